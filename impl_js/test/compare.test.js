// The comparator must catch wrong output, and its rules must relax exactly what
// they say and nothing more.

import assert from "node:assert/strict";
import { readFileSync } from "node:fs";
import { describe, test } from "node:test";

import { checkRules, compare, formatPointer, parsePointer, resolvePointer } from "./compare.js";

/** @param {ReturnType<typeof compare>} diffs */
const pointers = (diffs) => diffs.map((d) => d.pointer);

describe("exact comparison", () => {
  test("equal documents pass", () => {
    const doc = { a: [1, "x", null, true, { b: 2.5 }], c: {} };
    assert.deepEqual(compare(doc, structuredClone(doc)), []);
  });

  test("key order does not matter; integer-valued floats equal integers", () => {
    assert.deepEqual(compare({ a: 1, b: 2 }, { b: 2.0, a: 1.0 }), []);
  });

  test("a changed scalar is reported with pointer, expected and actual", () => {
    assert.deepEqual(compare({ frames: [{ data: "hi" }] }, { frames: [{ data: "ho" }] }), [
      { pointer: "/frames/0/data", expected: "hi", actual: "ho" },
    ]);
  });

  test("type differences are caught", () => {
    assert.deepEqual(pointers(compare({ n: 1 }, { n: "1" })), ["/n"]);
    assert.deepEqual(pointers(compare({ n: null }, { n: false })), ["/n"]);
    assert.deepEqual(pointers(compare({ n: [] }, { n: {} })), ["/n"]);
    assert.deepEqual(pointers(compare({ n: 0 }, { n: null })), ["/n"]);
    assert.deepEqual(pointers(compare([1], { 0: 1 })), [""]);
  });

  test("missing and extra keys are caught", () => {
    assert.deepEqual(compare({ a: 1, b: 2 }, { a: 1 }), [{ pointer: "/b", expected: 2, actual: undefined }]);
    assert.deepEqual(compare({ a: 1 }, { a: 1, z: 0 }), [{ pointer: "/z", expected: undefined, actual: 0 }]);
  });

  test("array length differences are caught element by element", () => {
    assert.deepEqual(pointers(compare([1, 2, 3], [1, 2])), ["/2"]);
    assert.deepEqual(pointers(compare([1], [1, 9, 9])), ["/1", "/2"]);
  });

  test("pointer segments are escaped", () => {
    assert.deepEqual(pointers(compare({ "a/b": 1, "c~d": 1 }, { "a/b": 2, "c~d": 2 })), ["/a~1b", "/c~0d"]);
  });
});

describe("ignore rules", () => {
  const rules = [{ kind: /** @type {const} */ ("ignore"), path: "/messages/*/content", where: { summary: true } }];
  const expected = {
    messages: [
      { summary: true, content: "anything" },
      { summary: false, content: "exact" },
    ],
  };

  test("skips the value only where the expected holder matches `where`", () => {
    const actual = {
      messages: [
        { summary: true, content: "something else" },
        { summary: false, content: "exact" },
      ],
    };
    assert.deepEqual(compare(expected, actual, { rules }), []);
  });

  test("still compares holders that do not match `where`", () => {
    const actual = {
      messages: [
        { summary: true, content: "x" },
        { summary: false, content: "wrong" },
      ],
    };
    assert.deepEqual(pointers(compare(expected, actual, { rules })), ["/messages/1/content"]);
  });

  test("only the ignored path is relaxed: siblings are compared", () => {
    const actual = {
      messages: [
        { summary: "yes", content: "x" },
        { summary: false, content: "exact" },
      ],
    };
    assert.deepEqual(pointers(compare(expected, actual, { rules })), ["/messages/0/summary"]);
  });

  test("without `where` always skips", () => {
    const r = [{ kind: /** @type {const} */ ("ignore"), path: "/t" }];
    assert.deepEqual(compare({ t: 1, u: 1 }, { t: 2, u: 1 }, { rules: r }), []);
    assert.deepEqual(pointers(compare({ t: 1, u: 1 }, { t: 2, u: 2 }, { rules: r })), ["/u"]);
  });
});

describe("at-most rules", () => {
  const rules = [
    {
      kind: /** @type {const} */ ("at-most"),
      path: "/delays_ms/*",
      when: { "/jitter": "full" },
      unless: ["/samples"],
    },
  ];
  const expected = { delays_ms: [100, 200] };

  test("accepts 0 <= actual <= expected when the input matches `when`", () => {
    const input = { jitter: "full" };
    assert.deepEqual(compare(expected, { delays_ms: [0, 200] }, { rules, input }), []);
    assert.deepEqual(compare(expected, { delays_ms: [57.5, 199] }, { rules, input }), []);
  });

  test("rejects values above the bound, negatives and non-numbers", () => {
    const input = { jitter: "full" };
    assert.deepEqual(pointers(compare(expected, { delays_ms: [101, 200] }, { rules, input })), ["/delays_ms/0"]);
    assert.deepEqual(pointers(compare(expected, { delays_ms: [-1, 200] }, { rules, input })), ["/delays_ms/0"]);
    assert.deepEqual(pointers(compare(expected, { delays_ms: ["5", 200] }, { rules, input })), ["/delays_ms/0"]);
    assert.deepEqual(pointers(compare(expected, { delays_ms: [5] }, { rules, input })), ["/delays_ms/1"]);
  });

  test("does not apply when `when` does not match: exact comparison", () => {
    const input = { jitter: "none" };
    assert.deepEqual(pointers(compare(expected, { delays_ms: [50, 200] }, { rules, input })), ["/delays_ms/0"]);
  });

  test("does not apply when an `unless` pointer is present in the input", () => {
    const input = { jitter: "full", samples: [0.5] };
    assert.deepEqual(pointers(compare(expected, { delays_ms: [50, 200] }, { rules, input })), ["/delays_ms/0"]);
  });
});

describe("pointers", () => {
  test("round-trip and resolve", () => {
    assert.deepEqual(parsePointer("/a~1b/~0/0"), ["a/b", "~", "0"]);
    assert.equal(formatPointer(["a/b", "~", "0"]), "/a~1b/~0/0");
    assert.deepEqual(resolvePointer({ a: [{ b: 3 }] }, "/a/0/b"), { found: true, value: 3 });
    assert.deepEqual(resolvePointer({ a: [] }, "/a/0"), { found: false });
    assert.deepEqual(resolvePointer({ a: [1] }, "/a/01"), { found: false });
  });
});

// The shared table (tests/tables/comparison.json): the Python and Rust comparators
// load the same rows and must reach the same verdicts.
describe("shared comparison table", () => {
  const table = JSON.parse(readFileSync(new URL("../../tests/tables/comparison.json", import.meta.url), "utf8"));
  for (const row of table.cases) {
    test(row.id, () => {
      if (row.verdict === "invalid") {
        assert.throws(() => checkRules(row.rules), `accepted ${JSON.stringify(row.rules)}`);
        return;
      }
      const found = compare(row.expected, row.actual, { rules: row.rules, input: row.input ?? {} })
        .map((d) => d.pointer)
        .sort();
      assert.deepEqual(found, [...(row.differences ?? [])].sort());
      assert.equal(row.verdict === "pass", found.length === 0);
    });
  }
});
