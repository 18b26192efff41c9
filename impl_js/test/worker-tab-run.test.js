// The worker's tab-run extension (docs/protocol.md, "The tab-run extension"): once
// taken, a line that does not begin with "{" is `<id> TAB <domain> TAB <expectation>
// TAB <input JSON>`, answered with the bytes the equivalent JSON run line gets.
import { test } from "node:test";
import assert from "node:assert/strict";
import { spawnSync } from "node:child_process";
import { fileURLToPath } from "node:url";

const WORKER = fileURLToPath(new URL("../conformance/worker.mjs", import.meta.url));
const START = '{"cmd":"start","version":1}';
const ALL = ["expect", "expect-error", "tab-run"];

const VERIFIER = "dBjftJeZ4CVP-mB92K27uhbUJU1p1r_wW1gFWFOEjXk"; // RFC 7636, appendix B
const CHALLENGE = "E9Melhoa2OwvFrEMTJguCHaoeK1t8URWbuGJSstw-cM";
const GOOD = JSON.stringify({ verifier: VERIFIER });
const SHORT = '{"verifier":"abc"}';
const OUTPUT = `{"challenge":"${CHALLENGE}"}`;

/**
 * The worker's answers (after the handshake and the extensions answer) to `lines`,
 * sent once it was offered `offered`.
 * @param {string[]} offered
 * @param {string[]} lines
 * @returns {{taken: unknown, answers: string[]}}
 */
function talk(offered, lines) {
  const extensions = JSON.stringify({ cmd: "extensions", use: offered });
  const input = [START, extensions, ...lines, '{"cmd":"stop"}'].join("\n") + "\n";
  const result = spawnSync(process.execPath, [WORKER], { input, encoding: "utf8", timeout: 30_000 });
  assert.equal(result.status, 0, result.stderr);
  const [started, taken, ...answers] = result.stdout.split("\n");
  assert.equal(JSON.parse(started).ok, true);
  assert.equal(answers.pop(), ""); // the last answer's newline
  assert.equal(answers.length, lines.length);
  return { taken: JSON.parse(taken), answers };
}

/**
 * @param {string} id
 * @param {string} expectation
 * @param {string} input
 */
const tabLine = (id, expectation, input) => `${id}\toauth-pkce\t${expectation}\t${input}`;

/**
 * The JSON run line a tab-run line stands for, as the harness spells it.
 * @param {string} id
 * @param {string} expectation
 * @param {string} input
 */
function jsonLine(id, expectation, input) {
  const head = `{"cmd":"run","id":${JSON.stringify(id)},"domain":"oauth-pkce","input":${input}`;
  if (expectation.startsWith("=")) return `${head},"expect":${JSON.stringify(expectation.slice(1))}}`;
  if (expectation.startsWith("!")) return `${head},"expect_error":${JSON.stringify(expectation.slice(1))}}`;
  return `${head}}`;
}

test("tab-run is taken only with expect and expect-error", () => {
  assert.deepEqual(talk(ALL, []).taken, { extensions: ALL });
  assert.deepEqual(talk(["expect", "tab-run"], []).taken, { extensions: ["expect"] });
  assert.deepEqual(talk(["tab-run"], []).taken, { extensions: [] });
  assert.deepEqual(talk(["expect", "expect-error"], []).taken, { extensions: ["expect", "expect-error"] });
});

test("an expected output is acknowledged with =, an expected error with its message", () => {
  const { answers } = talk(ALL, [tabLine("a#0", `=${OUTPUT}`, GOOD), tabLine("b#0", "!invalid_verifier", SHORT)]);
  assert.equal(answers[0], "=");
  assert.match(answers[1], /^!"[^"]+"$/);
  assert.ok(JSON.parse(answers[1].slice(1)).length > 0);
});

test("anything but the expectation gets the whole answer", () => {
  const { answers } = talk(ALL, [
    tabLine("a#0", `={"challenge":"${CHALLENGE.slice(0, -1)}x"}`, GOOD), // one character off
    tabLine("b#0", `={ "challenge":"${CHALLENGE}"}`, GOOD), // another spelling: not the text
    tabLine("c#0", "", GOOD), // no expectation
    tabLine("d#0", "!invalid_verifier", GOOD), // an output where an error was expected
    tabLine("e#0", "!invalid_verifie", SHORT), // another code
    tabLine("f#0", "", SHORT),
    tabLine("g#0", `=${OUTPUT}`, SHORT), // an error where an output was expected
  ]);
  for (const [index, id] of ["a#0", "b#0", "c#0", "d#0"].entries()) {
    assert.equal(answers[index], `{"id":"${id}","output":${OUTPUT}}`);
  }
  for (const [index, id] of ["e#0", "f#0", "g#0"].entries()) {
    const answer = JSON.parse(answers[index + 4]);
    assert.equal(answer.id, id);
    assert.equal(answer.error.code, "invalid_verifier");
  }
});

test("a tab-run line gets the bytes its JSON run line gets", () => {
  const cases = [
    ["a#0", `=${OUTPUT}`, GOOD],
    ["b#0", "!invalid_verifier", SHORT],
    ["c#0", `={"challenge":"x"}`, GOOD],
    ["d#0", "!other", SHORT],
    ["e#0", "", GOOD],
    ["f#0", "", '{"verifier":"ünïcödé and a \\t tab"}'],
    ["", `=${OUTPUT}`, GOOD], // no id: the crash a run without an id gets
    ["h#0", "", "[1,2]"], // an input the domain refuses
  ];
  const tabbed = talk(ALL, cases.map(([id, expectation, input]) => tabLine(id, expectation, input)));
  const json = talk(ALL, cases.map(([id, expectation, input]) => jsonLine(id, expectation, input)));
  assert.deepEqual(tabbed.answers, json.answers);
  assert.equal(tabbed.answers[0], "=");
  assert.equal(JSON.parse(tabbed.answers[6]).crash.message, "run request without a string id");
});

test("an unknown domain is a crash for the line's id, as for a run line", () => {
  const { answers } = talk(ALL, [`k#0\tno-such-domain\t\t{}`, jsonLine("k#0", "", "{}").replace("oauth-pkce", "no-such-domain")]);
  assert.equal(answers[0], answers[1]);
  assert.match(JSON.parse(answers[0]).crash.message, /^unknown domain "no-such-domain"/);
});

test("a line not taken apart is a crash for its id, and the worker goes on", () => {
  const { answers } = talk(ALL, [
    "k#0\toauth-pkce\t=1", // three fields
    `k#0\toauth-pkce\t\t${GOOD}\t`, // five
    "no tabs at all",
    'k#0\toauth-pkce\t\t{"verifier":', // input not JSON
    tabLine("ok#0", `=${OUTPUT}`, GOOD),
  ]);
  const crashes = answers.slice(0, 4).map((answer) => JSON.parse(answer));
  assert.deepEqual(
    crashes.map((c) => [c.id, Object.keys(c)]),
    [["", ["id", "crash"]], ["", ["id", "crash"]], ["", ["id", "crash"]], ["k#0", ["id", "crash"]]],
  );
  assert.match(crashes[0].crash.message, /3 tab-separated fields, not 4/);
  assert.match(crashes[1].crash.message, /5 tab-separated fields, not 4/);
  assert.match(crashes[2].crash.message, /1 tab-separated fields, not 4/);
  assert.match(crashes[3].crash.message, /input is not JSON/);
  assert.equal(answers[4], "=");
});

test("JSON lines are still JSON lines once tab-run is taken", () => {
  const { answers } = talk(ALL, [jsonLine("a#0", `=${OUTPUT}`, GOOD), jsonLine("b#0", "", GOOD)]);
  assert.deepEqual(answers, ["=", `{"id":"b#0","output":${OUTPUT}}`]);
});

test("without tab-run a tab-separated line is a request that is not JSON", () => {
  for (const offered of [["expect", "expect-error"], ["expect", "tab-run"], []]) {
    const { answers } = talk(offered, [tabLine("a#0", `=${OUTPUT}`, GOOD)]);
    const answer = JSON.parse(answers[0]);
    assert.equal(answer.id, "");
    assert.match(answer.crash.message, /^request is not JSON/);
  }
});

test("a last tab-run line without its newline is answered", () => {
  const extensions = JSON.stringify({ cmd: "extensions", use: ALL });
  const input = [START, extensions, tabLine("a#0", `=${OUTPUT}`, GOOD)].join("\n") + "\r";
  const result = spawnSync(process.execPath, [WORKER], { input, encoding: "utf8", timeout: 30_000 });
  assert.equal(result.stdout.split("\n")[2], "=");
});
