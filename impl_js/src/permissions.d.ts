import { HanzoError } from "./errors.js";

/** What the agent loop does with a tool call (HIP-301 §7). */
export type PermissionMode = "allow" | "deny" | "prompt";

/** The three modes, exactly as spelled in configs (PERM-2). */
export declare const PERMISSION_MODES: readonly ["allow", "deny", "prompt"];

/** Base of the permission-policy contract errors. */
export declare class PolicyError extends HanzoError {}

/** A rule's mode is not exactly allow, deny or prompt (PERM-2); code `invalid_mode`. */
export declare class InvalidModeError extends PolicyError {
  constructor(message: string);
  readonly code: "invalid_mode";
}

/** A compiled glob of the PERM-11..PERM-19 dialect; every string is a valid pattern. */
export declare class Glob {
  constructor(pattern: string);
  readonly pattern: string;
  /** True if the pattern matches the whole of `name`. */
  matches(name: string): boolean;
}

/** True if glob `pattern` matches the whole of `name`. */
export declare function globMatch(pattern: string, name: string): boolean;

/** A rule as configured; the mode is checked by the PermissionPolicy constructor. */
export interface PermissionRuleSpec {
  toolPattern: string;
  mode: string;
  /** Absent and null mean the same (PERM-1). */
  reason?: string | null;
}

/** HIP-301's audit record minus timestamp and session_id (PERM-6). */
export interface AuditRecord {
  toolName: string;
  mode: PermissionMode;
  ruleMatched: number | null;
  /** The denial reason for "deny" (never null then), otherwise null. */
  reason: string | null;
}

/** The outcome of one evaluation (PERM-4..PERM-6). */
export interface Decision {
  mode: PermissionMode;
  ruleIndex: number | null;
  /** The matched rule's reason as given, whatever its mode. */
  reason: string | null;
  audit: AuditRecord;
}

/** Evaluates permission rules for tool execution requests (HIP-301 §7). */
export declare class PermissionPolicy {
  /** Throws InvalidModeError if any rule's mode is invalid, reachable or not. */
  constructor(rules: Iterable<PermissionRuleSpec>);
  /** The first matching rule decides; no match is "prompt". */
  evaluate(toolName: string): Decision;
}
