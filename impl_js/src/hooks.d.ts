export const DEFAULT_TIMEOUT_MS: number;
export const MAX_TIMEOUT_MS: number;
export const MAX_ENV_ENTRY_BYTES: number;
export const REASON_LIMIT_BYTES: number;
export const DEFAULT_DENY_REASON: string;
export type HookEvent = "pre_tool_use" | "post_tool_use";
export interface HookConfig {
  event: string;
  command: string;
  toolPattern: string;
  timeoutMs?: number;
}
export interface ToolResult {
  output: string;
  error: string | null;
  isError: boolean;
}
export type LogCode = "hook_allow" | "hook_deny" | "hook_exit_error" | "hook_signal" | "hook_timeout" | "hook_env_unpassable";
export interface HookLogRecord {
  code: LogCode;
  hook: number;
  exitCode: number | null;
  signal: number | null;
}
export interface HookResult {
  decision: "allow" | "deny" | "error";
  reason: string | null;
  ran: number[];
  log: HookLogRecord[];
}
export type Ending =
  | { kind: "unpassable"; name: string }
  | { kind: "timeout" }
  | { kind: "exit"; code: number; stderr: Uint8Array }
  | { kind: "signal"; signal: number };
export function canonicalJson(value: unknown): string;
export function unpassable(env: Record<string, string>): string | null;
export function reasonText(kept: Uint8Array): string;
export function runHookProcess(command: string, env: Record<string, string>, cwd: string | undefined, timeoutMs: number): Promise<Ending>;
export class HookRunner {
  constructor(hooks: readonly HookConfig[], options?: { sessionId?: string; cwd?: string; env?: Record<string, string | undefined> });
  readonly sessionId: string;
  readonly cwd: string | undefined;
  readonly env: Record<string, string>;
  runPre(toolName: string, input: unknown): Promise<HookResult>;
  runPost(toolName: string, input: unknown, toolResult: ToolResult): Promise<HookResult>;
}
