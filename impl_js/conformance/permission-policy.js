// permission-policy JSON layer: build a PermissionPolicy from input.rules and
// evaluate input.tool_name; camelCase API fields map to the snake_case vectors.
import { PermissionPolicy } from "../src/permissions.js";

/**
 * @param {any} raw
 * @returns {import("../src/permissions.js").PermissionRuleSpec}
 */
function ruleSpec(raw) {
  const { tool_pattern: toolPattern, mode, reason } = raw;
  return { toolPattern, mode, reason: reason ?? null };
}

/**
 * `{rules, tool_name}` -> `{mode, rule_index, reason, audit}`.
 * @param {any} input
 */
export function run(input) {
  const rules = input.rules;
  const toolName = input.tool_name;
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
