// sandbox-paths JSON layer: build the case's tree in a temporary root, then
// check a path or detect a container. `{root}` in inputs is the root; in
// `resolved` the root is written back as `{root}` and a path outside it is null.
import { Sandbox, defaultMode, detectContainer } from "../src/sandbox.js";
import { PLACEHOLDER, buildTree, str, withTempRoot } from "./temp-root.js";

/**
 * @param {string | null} path
 * @param {string} root
 * @returns {string | null}
 */
function relativeToRoot(path, root) {
  if (path === null) return null;
  if (path === root) return PLACEHOLDER;
  if (path.startsWith(`${root}/`)) return PLACEHOLDER + path.slice(root.length);
  return null;
}

/**
 * @param {any} input
 * @param {string} root
 */
function check(input, root) {
  /** @param {unknown} value @param {string} what */
  const sub = (value, what) => str(value, what).replaceAll(PLACEHOLDER, root);
  const config = input.config;
  if (config === null || typeof config !== "object" || !Array.isArray(config.allowed_paths)) {
    throw new TypeError("input.config must be {mode, allowed_paths}");
  }
  const sandbox = new Sandbox(
    {
      mode: str(config.mode, "config.mode"),
      allowedPaths: config.allowed_paths.map((/** @type {unknown} */ p) => sub(p, "allowed_paths[]")),
    },
    sub(input.workspace, "input.workspace"),
  );
  const result = sandbox.check(sub(input.path, "input.path"));
  return { allowed: result.allowed, reason: result.reason, resolved: relativeToRoot(result.resolved, root) };
}

/**
 * @param {any} input
 * @param {string} root
 */
function detect(input, root) {
  const env = input.env;
  if (env === null || typeof env !== "object" || !Object.values(env).every((v) => typeof v === "string")) {
    throw new TypeError("input.env must map names to strings");
  }
  const runtime = detectContainer(root, env);
  return { runtime, default_mode: defaultMode(runtime) };
}

/**
 * `{op: check_path | detect_container, tree, ...}` -> the check or the detection.
 * @param {any} input
 */
export function run(input) {
  const op = input?.op;
  if (op !== "check_path" && op !== "detect_container") {
    throw new TypeError("input.op must be check_path or detect_container");
  }
  return withTempRoot("sandbox", (root) => {
    buildTree(root, input.tree);
    return op === "check_path" ? check(input, root) : detect(input, root);
  });
}
