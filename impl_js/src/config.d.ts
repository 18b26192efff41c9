import { HanzoError } from "./errors.js";
import type { PermissionPolicy } from "./permissions.js";

/** `model` when nothing sets it (CFG-9). */
export const DEFAULT_MODEL: "claude-sonnet-4-20250514";
/** Deepest allowed nesting of arrays/objects in a settings file (CFG-4). */
export const MAX_DEPTH: 64;
/** Tiers in merge order (CFG-7). */
export const TIERS: readonly ["user", "project", "local"];

export type Tier = "user" | "project" | "local";
import type { PermissionMode } from "./permissions.js";
export type WarningCode =
  | "unreadable_file"
  | "invalid_json"
  | "not_an_object"
  | "unknown_key"
  | "invalid_type"
  | "invalid_value"
  | "missing_key"
  | "sensitive_key_ignored"
  | "invalid_mode_denied";

export type InputMode = "vim" | "emacs" | "default";
export type HookEvent = "pre_tool_use" | "post_tool_use";

/** One pre/post tool-use hook (HIP-301 §9, CFG-24). */
export interface HookConfig {
  event: HookEvent;
  command: string;
  tool_pattern: string;
  timeout_ms: number;
}

/** `timeout_ms` of a hook that does not set it (HIP-301 §9). */
export const DEFAULT_HOOK_TIMEOUT_MS: 5000;
/** Largest accepted hook timeout: the largest delay a JS timer honours (CFG-24). */
export const MAX_HOOK_TIMEOUT_MS: 2147483647;

export interface McpServerConfig {
  command: string[];
  args: string[];
  env: Record<string, string>;
}

export interface HanzoConfig {
  api_key: string | null;
  model: string;
  mcp_servers: Record<string, McpServerConfig>;
  permissions: Record<string, PermissionMode>;
  custom_instructions: string;
  oauth_credentials: Record<string, unknown> | null;
  hooks: HookConfig[];
  input_mode: InputMode;
}

/** Something in a tier was ignored; holds no value from the file (CFG-20). */
export interface ConfigWarning {
  code: WarningCode;
  tier: Tier;
  /** JSON pointer (RFC 6901) to the member; absent for file-level warnings. */
  key?: string;
}

export interface LoadedConfig {
  config: HanzoConfig;
  /** Sorted by tier, key (code point order), code (CFG-21). */
  warnings: ConfigWarning[];
}

export type EnvMap = Record<string, string | undefined>;

export type TierSource =
  | { kind: "absent" }
  | { kind: "unreadable" }
  | { kind: "bytes"; bytes: Uint8Array };

/** A settings file is not a JSON text this contract accepts (code `invalid_json`). */
export class ConfigParseError extends HanzoError {
  constructor(message: string);
}

export function tierPaths(
  projectRoot: string | null | undefined,
  env: EnvMap,
): [string | null, string | null, string | null];
export function decodeTierText(bytes: Uint8Array): string | null;
export function parseTierText(text: string): unknown;
export function compareCodePoints(a: string, b: string): number;
export function mergeTiers(sources: [TierSource, TierSource, TierSource], env: EnvMap): LoadedConfig;
export function loadConfigWithWarnings(
  projectRoot?: string | null,
  options?: { env?: EnvMap },
): LoadedConfig;
export function loadConfig(
  projectRoot?: string | null,
  options?: { env?: EnvMap; onWarning?: (w: ConfigWarning) => void },
): HanzoConfig;
/** Config-built rules: every deny, then prompt, then allow; by pattern in code-point order (CFG-22). */
export function permissionRules(config: HanzoConfig): { toolPattern: string; mode: PermissionMode }[];
/** HIP-301 §7's PermissionPolicy built from `config.permissions` (CFG-22). */
export function policyFromConfig(config: HanzoConfig): PermissionPolicy;
