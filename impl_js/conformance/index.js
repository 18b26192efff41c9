// The JSON layer: domain name -> run(input) -> output (throws HanzoError for a
// contract error). Used by the worker (worker.mjs) and by `node --test`.

import { run as sseFrames } from "./sse-frames.js";
import { run as mcpNormalization } from "./mcp-normalization.js";
import { run as permissionPolicy } from "./permission-policy.js";
import { run as sessionCompaction } from "./session-compaction.js";
import { run as configMerge } from "./config-merge.js";
import { run as oauthPkce } from "./oauth-pkce.js";
import { run as backoffTiming } from "./backoff-timing.js";
import { run as sandboxPaths } from "./sandbox-paths.js";
import { run as hooks } from "./hooks.js";
import { run as toolCallPipeline } from "./tool-call-pipeline.js";
import { run as oauthAuthorize } from "./oauth-authorize.js";
import { run as lspPositions } from "./lsp-positions.js";
import { run as tokenEstimation } from "./token-estimation.js";
import { run as streamAssembly } from "./stream-assembly.js";
import { run as httpRetry } from "./http-retry.js";
import { run as mcpStdio } from "./mcp-stdio.js";

/** @type {Record<string, (input: any) => any>} */
export const DOMAINS = {
  "oauth-pkce": oauthPkce,
  "backoff-timing": backoffTiming,
  "session-compaction": sessionCompaction,
  "sse-frames": sseFrames,
  "mcp-normalization": mcpNormalization,
  "permission-policy": permissionPolicy,
  "config-merge": configMerge,
  "sandbox-paths": sandboxPaths,
  hooks,
  "tool-call-pipeline": toolCallPipeline,
  "oauth-authorize": oauthAuthorize,
  "lsp-positions": lspPositions,
  "token-estimation": tokenEstimation,
  "stream-assembly": streamAssembly,
  "http-retry": httpRetry,
  "mcp-stdio": mcpStdio,
};
