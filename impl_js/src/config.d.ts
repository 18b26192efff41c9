import { HanzoError } from "./errors.js";

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
  | "sensitive_key_ignored";

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
