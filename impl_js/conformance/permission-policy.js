// permission-policy JSON layer: build a PermissionPolicy from input.rules and
// evaluate input.tool_name; camelCase API fields map to the snake_case vectors.
import { HanzoError } from "../src/errors.js";
import { PermissionPolicy } from "../src/permissions.js";

/**
 * @param {any} raw
 * @returns {import("../src/permissions.js").PermissionRuleSpec}
 */
function ruleSpec(raw) {
  const { tool_pattern: toolPattern, mode, reason } = raw ?? {};
  if (typeof toolPattern !== "string" || typeof mode !== "string") {
    throw new HanzoError("bad_input", "rule.tool_pattern and rule.mode must be strings");
  }
  if (reason !== undefined && reason !== null && typeof reason !== "string") {
    throw new HanzoError("bad_input", "rule.reason must be a string or null");
  }
  return { toolPattern, mode, reason: reason ?? null };
}

/**
 * `{rules, tool_name}` -> `{mode, rule_index, reason, audit}`.
 * @param {any} input
 */
export function run(input) {
  const rules = input?.rules;
  const toolName = input?.tool_name;
  if (!Array.isArray(rules) || typeof toolName !== "string") {
    throw new HanzoError("bad_input", "input.rules must be a list and input.tool_name a string");
  }
  const decision = new PermissionPolicy(rules.map(ruleSpec)).evaluate(toolName);
  return {
    mode: decision.mode,
    rule_index: decision.ruleIndex,
    reason: decision.reason,
    audit: {
      tool_name: decision.audit.toolName,
      mode: decision.audit.mode,
      rule_matched: decision.audit.ruleMatched,
      reason: decision.audit.reason,
    },
  };
}
