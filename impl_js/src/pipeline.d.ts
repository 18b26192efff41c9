import type { HookRunner, ToolResult } from "./hooks.js";
import type { PermissionPolicy } from "./permissions.js";
import type { Sandbox } from "./sandbox.js";

export type Origin = "agent" | "subagent" | "slash_command";
export const ORIGINS: readonly Origin[];
export interface PermissionDecision {
  kind: "allow" | "deny" | "escalate";
  reason?: string | null;
}
export interface PermissionPrompter {
  requestPermission(toolName: string, input: unknown): Promise<PermissionDecision>;
}
export interface ToolExecutor {
  execute(name: string, input: unknown, sessionId: string): Promise<ToolResult>;
}
export interface ToolCallRequest {
  toolName: string;
  input: unknown;
  origin: string;
  paths: readonly string[];
}
export type RefusedBy = "permission" | "prompter" | "pre_hooks" | "sandbox";
export interface PipelineAudit {
  toolName: string;
  origin: Origin;
  outcome: "ran" | "refused" | "escalated";
  refusedBy: RefusedBy | null;
  reason: string | null;
}
export interface PipelineOutcome {
  ran: boolean;
  steps: Record<string, unknown>[];
  toolResult: ToolResult;
  audit: PipelineAudit;
}
export class ToolCallPipeline {
  constructor(parts: {
    policy: PermissionPolicy;
    prompter: PermissionPrompter;
    hooks: HookRunner;
    sandbox: Sandbox;
    executor: ToolExecutor;
    sessionId?: string;
  });
  run(call: ToolCallRequest): Promise<PipelineOutcome>;
}
