// A conformance worker for openai 7.59.0 (npm) on http-retry: the SDK's own retry loop,
// through its real client, on a scripted fetch. The Stainless-generated SDKs share one
// worker, examples/_stainless-retry.mjs, which says what is reported and how.
//
//     (cd examples/openai-js-retry && npm ci)
//     hanzo-conformance run --worker openai-js='node examples/openai-js-retry/worker.mjs' \
//         --platform openai-js --domain http-retry \
//         --expectations examples/openai-js-retry/expectations.json

import { readFileSync } from "node:fs";
import OpenAI from "openai";
import { serve } from "../_stainless-retry.mjs";

const name = "openai";
const { version } = JSON.parse(
  readFileSync(new URL(`./node_modules/${name}/package.json`, import.meta.url), "utf8"),
);
serve({ Client: OpenAI, name, version, baseURL: "http://retry.test/v1" });
