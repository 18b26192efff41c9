// A conformance worker for @anthropic-ai/sdk 1.15.0 (npm) on http-retry: the SDK's own retry loop,
// through its real client, on a scripted fetch. The Stainless-generated SDKs share one
// worker, examples/_stainless-retry.mjs, which says what is reported and how.
//
//     (cd examples/anthropic-js-retry && npm ci)
//     hanzo-conformance run --worker anthropic-js='node examples/anthropic-js-retry/worker.mjs' \
//         --platform anthropic-js --domain http-retry \
//         --expectations examples/anthropic-js-retry/expectations.json

import { readFileSync } from "node:fs";
import Anthropic from "@anthropic-ai/sdk";
import { serve } from "../_stainless-retry.mjs";

const name = "@anthropic-ai/sdk";
const { version } = JSON.parse(
  readFileSync(new URL(`./node_modules/${name}/package.json`, import.meta.url), "utf8"),
);
serve({ Client: Anthropic, name, version, baseURL: "http://retry.test" });
