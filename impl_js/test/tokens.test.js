// Library-level checks of the token estimator that the JSON vectors cannot express:
// a lone surrogate, which a JS string can hold and I-JSON (every vector file) cannot.
// TOK-1 counts it as 3 bytes, the U+FFFD an encoder writes for it.
import { test } from "node:test";
import assert from "node:assert/strict";
import { estimateText, utf8Length } from "../src/tokens.js";

test("a surrogate pair is one 4-byte scalar", () => {
  assert.equal(utf8Length("\ud83d\ude00"), 4);
  assert.equal(utf8Length("a\ud83d\ude00b"), 6);
});

test("a lone surrogate counts 3 bytes, and so does what follows it", () => {
  const cases = [
    ["\ud800", 3], // a high surrogate at the end
    ["\udc00", 3], // a low surrogate at the start
    ["\ud800a", 4], // a high surrogate before ASCII
    ["\ud800\u00e9", 5], // a high surrogate before a 2-byte character
    ["\ud800\u0800", 6], // a high surrogate before a 3-byte character below the surrogates
    ["\ud800\ue000", 6], // a high surrogate before a 3-byte character above the surrogates
    ["\u0800\udc00", 6], // a low surrogate after a character below the surrogates
    ["\ue000\udc00", 6], // a low surrogate after a character above the surrogates
    ["\udc00\udc00", 6], // a low surrogate after a low surrogate
    ["\ud800\ud800\udc00", 7], // a lone high surrogate, then a pair
  ];
  for (const [text, bytes] of cases) {
    assert.equal(utf8Length(/** @type {string} */ (text)), bytes, JSON.stringify(text));
  }
  assert.equal(estimateText("\ud800a"), 2);
});
