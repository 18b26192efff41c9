// What the JSON layer never calls: HIP-301's checkPath (the boolean form of check()),
// and a config without allowedPaths (the layer always passes the case's list).
import { test } from "node:test";
import assert from "node:assert/strict";
import { mkdtempSync, realpathSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";

import { Sandbox } from "../src/sandbox.js";

test("checkPath is check(path).allowed; allowedPaths defaults to none", () => {
  const root = realpathSync(mkdtempSync(join(tmpdir(), "hanzo-sandbox-")));
  try {
    writeFileSync(join(root, "a.txt"), "a");
    const sandbox = new Sandbox({ mode: "workspace" }, root);
    assert.equal(sandbox.checkPath(join(root, "a.txt")), true);
    assert.equal(sandbox.checkPath("/etc/passwd"), false);
    assert.equal(new Sandbox({ mode: "off" }, root).checkPath("/etc/passwd"), true);
    const noList = new Sandbox({ mode: "allowlist" }, root);
    assert.deepEqual(noList.allowedPaths, []);
    assert.equal(noList.checkPath(join(root, "a.txt")), false);
  } finally {
    rmSync(root, { recursive: true, force: true });
  }
});
