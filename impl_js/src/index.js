// Hanzo agent runtime core (HIP-301), one module per domain.
export { HanzoError } from "./errors.js";
export * from "./sse.js";
export * from "./mcp-names.js";
export * from "./permissions.js";
export * from "./compaction.js";
export * from "./pkce.js";
export * from "./oauth.js";
export * from "./config.js";
export * from "./backoff.js";
export * from "./sandbox.js";
export * from "./hooks.js";
export * from "./pipeline.js";
export * from "./lsp-positions.js";
export * from "./tokens.js";
export * from "./stream-assembly.js";
export * from "./retry.js";
export * from "./mcp-stdio.js";
