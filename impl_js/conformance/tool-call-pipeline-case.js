// The tool-call-pipeline case, asynchronously: build the sandbox tree in the
// case root, compose the real policy, hook runner (fixtures) and sandbox with a
// scripted prompter and executor, run one call; the root is written back as {root}.
import { mergeTiers, TIERS } from "../src/config.js";
import { HookRunner } from "../src/hooks.js";
import { PermissionPolicy } from "../src/permissions.js";
import { ToolCallPipeline } from "../src/pipeline.js";
import { Sandbox } from "../src/sandbox.js";
import { substitute } from "./hooks-case.js";
import { PLACEHOLDER, buildTree } from "./temp-root.js";

/**
 * @param {unknown} value
 * @param {string} root
 * @returns {unknown}
 */
function unroot(value, root) {
  if (typeof value === "string") return value.replaceAll(root, PLACEHOLDER);
  if (Array.isArray(value)) return value.map((v) => unroot(v, root));
  if (value !== null && typeof value === "object") {
    return Object.fromEntries(Object.entries(value).map(([k, v]) => [k, unroot(v, root)]));
  }
  return value;
}

/** @typedef {import("../src/config.js").TierSource} TierSource */
/** @typedef {Omit<ConstructorParameters<typeof ToolCallPipeline>[0], "policy" | "hooks">} Parts */

/**
 * The settings tiers (file texts, as in config-merge) merged by config-merge's rules;
 * the policy and hooks come from the merged config (PIPE-6).
 * @param {any} settings @param {Parts} parts @param {(text: string) => string} sub
 */
function fromSettings(settings, parts, sub) {
  const files = settings.files ?? {};
  const encoder = new TextEncoder();
  const sources = /** @type {[TierSource, TierSource, TierSource]} */ (
    TIERS.map((tier) =>
      typeof files[tier] === "string" ? /** @type {TierSource} */ ({ kind: "bytes", bytes: encoder.encode(files[tier]) }) : /** @type {TierSource} */ ({ kind: "absent" }),
    )
  );
  const { config } = mergeTiers(sources, settings.env ?? {}, { trusted: settings.trusted ?? false });
  const withFixtures = { ...config, hooks: config.hooks.map((h) => ({ ...h, command: sub(h.command) })) };
  return ToolCallPipeline.fromConfig(withFixtures, { ...parts, hookEnv: { PATH: "/usr/bin:/bin" } });
}

/**
 * The direct form: ordered rules and hooks as given (PIPE-6).
 * @param {any} input @param {Parts} parts @param {(text: string) => string} sub
 */
function direct(input, parts, sub) {
  const policy = new PermissionPolicy(
    input.rules.map((/** @type {any} */ r) => ({ toolPattern: r.tool_pattern, mode: r.mode, reason: r.reason ?? null })),
  );
  const hooks = new HookRunner(
    input.hooks.map((/** @type {any} */ h) => ({
      event: h.event,
      command: sub(h.command),
      toolPattern: h.tool_pattern,
      timeoutMs: h.timeout_ms,
    })),
    { sessionId: parts.sessionId, cwd: parts.sandbox.workspace, env: { PATH: "/usr/bin:/bin" } },
  );
  return new ToolCallPipeline({ ...parts, policy, hooks });
}

/**
 * @param {any} input
 * @param {string} root
 */
export async function runCase(input, root) {
  /** @param {string} text */
  const sub = (text) => substitute(text, root);
  /** @param {string} text */
  const subCommand = (text) => substitute(text, root, true);
  buildTree(root, input.sandbox.tree);
  const sandbox = new Sandbox(
    { mode: input.sandbox.config.mode, allowedPaths: input.sandbox.config.allowed_paths.map(sub) },
    sub(input.sandbox.workspace),
  );
  const answer = { kind: input.prompter.answer, reason: input.prompter.reason };
  const out = input.tool_output;
  const parts = {
    prompter: { requestPermission: async () => answer },
    sandbox,
    executor: { execute: async () => ({ output: out.output, error: out.error, isError: out.is_error }) },
    sessionId: input.session_id,
  };
  const pipeline = input.settings ? fromSettings(input.settings, parts, subCommand) : direct(input, parts, subCommand);
  const call = input.call;
  const outcome = await pipeline.run({ toolName: call.tool_name, input: call.input, origin: call.origin, paths: call.paths.map(sub) });
  return unroot(
    {
      ran: outcome.ran,
      steps: outcome.steps,
      tool_result: { output: outcome.toolResult.output, error: outcome.toolResult.error, is_error: outcome.toolResult.isError },
      audit: {
        tool_name: outcome.audit.toolName,
        origin: outcome.audit.origin,
        outcome: outcome.audit.outcome,
        refused_by: outcome.audit.refusedBy,
        reason: outcome.audit.reason,
      },
    },
    root,
  );
}
