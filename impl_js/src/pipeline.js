// One tool call through HIP-301's composition (docs/domains/tool-call-pipeline.md):
// permission policy, prompter, pre-hooks, sandbox, execution, post-hooks.
import { HanzoError } from "./errors.js";

/** @typedef {"agent" | "subagent" | "slash_command"} Origin */
/** @typedef {{kind: "allow" | "deny" | "escalate", reason?: string | null}} PermissionDecision */
/** @typedef {{requestPermission(toolName: string, input: unknown): Promise<PermissionDecision>}} PermissionPrompter */
/** @typedef {{execute(name: string, input: unknown, sessionId: string): Promise<import("./hooks.js").ToolResult>}} ToolExecutor */
/** @typedef {{toolName: string, input: unknown, origin: string, paths: readonly string[]}} ToolCallRequest */
/** @typedef {"permission" | "prompter" | "pre_hooks" | "sandbox"} RefusedBy */
/**
 * @typedef {{toolName: string, origin: Origin, outcome: "ran" | "refused" | "escalated",
 *   refusedBy: RefusedBy | null, reason: string | null}} PipelineAudit
 */
/** @typedef {{ran: boolean, steps: Record<string, unknown>[], toolResult: import("./hooks.js").ToolResult, audit: PipelineAudit}} PipelineOutcome */

/** @type {readonly Origin[]} */
export const ORIGINS = ["agent", "subagent", "slash_command"];

/** The steps between the model asking for a tool and the result it gets back. */
export class ToolCallPipeline {
  /**
   * @param {{policy: import("./permissions.js").PermissionPolicy, prompter: PermissionPrompter,
   *   hooks: import("./hooks.js").HookRunner, sandbox: import("./sandbox.js").Sandbox,
   *   executor: ToolExecutor, sessionId?: string}} parts
   */
  constructor(parts) {
    this.policy = parts.policy;
    this.prompter = parts.prompter;
    this.hooks = parts.hooks;
    this.sandbox = parts.sandbox;
    this.executor = parts.executor;
    this.sessionId = parts.sessionId ?? "";
  }

  /**
   * Take PIPE-2's steps in order; the first refusal ends the call.
   * @param {ToolCallRequest} call
   * @returns {Promise<PipelineOutcome>}
   */
  async run(call) {
    if (!ORIGINS.includes(/** @type {Origin} */ (call.origin))) {
      throw new HanzoError("invalid_origin", `invalid origin ${JSON.stringify(call.origin)}`);
    }
    const origin = /** @type {Origin} */ (call.origin);
    /** @type {Record<string, unknown>[]} */
    const steps = [];
    /**
     * @param {RefusedBy} refusedBy
     * @param {string} message
     * @param {"refused" | "escalated"} [outcome]
     * @returns {PipelineOutcome}
     */
    const refuse = (refusedBy, message, outcome = "refused") => ({
      ran: false,
      steps,
      toolResult: { output: "", error: message, isError: true },
      audit: { toolName: call.toolName, origin, outcome, refusedBy, reason: message },
    });
    if (origin !== "slash_command") {
      const decision = this.policy.evaluate(call.toolName);
      steps.push({ step: "permission", mode: decision.mode, rule_index: decision.ruleIndex });
      if (decision.mode === "deny") {
        return refuse("permission", `permission denied: ${decision.reason ?? "denied by permission policy"}`);
      }
      if (decision.mode === "prompt") {
        const answer = await this.prompter.requestPermission(call.toolName, call.input);
        const reason = answer.kind === "deny" ? (answer.reason ?? null) : null; // only Deny has one
        steps.push({ step: "prompter", answer: answer.kind, reason });
        if (answer.kind === "deny") return refuse("prompter", `permission denied: ${reason ?? "denied by user"}`);
        if (answer.kind === "escalate") {
          return refuse("prompter", `permission escalated: ${call.toolName} needs a human decision`, "escalated");
        }
      }
    }
    const pre = await this.hooks.runPre(call.toolName, call.input);
    steps.push({ step: "pre_hooks", decision: pre.decision, reason: pre.reason, ran: pre.ran });
    if (pre.decision !== "allow") return refuse("pre_hooks", `blocked by hook: ${pre.reason}`);
    for (const path of call.paths) {
      const check = this.sandbox.check(path);
      steps.push({ step: "sandbox", path, allowed: check.allowed, reason: check.reason });
      if (!check.allowed) return refuse("sandbox", `path not allowed: ${path}`);
    }
    const result = await this.executor.execute(call.toolName, call.input, this.sessionId);
    steps.push({ step: "execute", is_error: result.isError });
    const post = await this.hooks.runPost(call.toolName, call.input, result);
    steps.push({ step: "post_hooks", ran: post.ran });
    return {
      ran: true,
      steps,
      toolResult: result,
      audit: { toolName: call.toolName, origin, outcome: "ran", refusedBy: null, reason: null },
    };
  }
}
