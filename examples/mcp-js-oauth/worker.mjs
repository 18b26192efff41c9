// A docs/protocol.md worker around the official MCP TypeScript SDK's OAuth client,
// @modelcontextprotocol/sdk 1.32.2 (npm), for the oauth-authorize domain:
//
//     npm ci --prefix examples/mcp-js-oauth
//     hanzo-conformance run --worker mcpjs='node examples/mcp-js-oauth/worker.mjs' \
//         --platform mcpjs --domain oauth-authorize \
//         --expectations examples/mcp-js-oauth/expectations.json
//
// What runs, from `@modelcontextprotocol/sdk/client/auth.js`, nothing re-implemented:
// - authorize-url: `startAuthorization(issuer, {metadata, clientInformation, redirectUrl,
//   scope, state, resource})` with the case's endpoint as `metadata.authorization_endpoint`,
//   its scopes joined with spaces (the SDK takes one scope string), its resource as given
//   (the SDK accepts a string), and `authorizationUrl.href` as the answer. The SDK draws
//   its own PKCE pair (pkce-challenge: 43 characters from 66, one random byte each); the
//   case's verifier is injected by giving `crypto.getRandomValues` the bytes that pick its
//   characters, so the SDK computes the challenge itself. A verifier that is not 43 such
//   characters cannot be drawn and is answered `skip`, as is a case with `prompt` values
//   (the SDK has no prompt input; it appends prompt=consent for offline_access itself).
//   A `TypeError` from `new URL(endpoint)` is `invalid_endpoint`.
// - callback: `skip`: the SDK does not parse the redirect URL (the application passes the
//   code to `auth()` / `finishAuth()`).
// - token-response: `exchangeAuthorization` (a first token) or, with a previous refresh
//   token, `refreshAuthorization`, whose `fetchFn` answers the token request with the
//   case's body (HTTP 200, application/json). The SDK keeps `expires_in` as sent and
//   computes no absolute expiry, so a token it accepts with an `expires_in` is answered
//   `skip`; one without is written with `expires_at: null`. A ZodError or a body that is
//   not JSON is `invalid_token_response`; an `OAuthError` (the SDK's reading of an error
//   response) is the server's error output.
import { readFileSync } from "node:fs";
import { createInterface } from "node:readline";

import {
  exchangeAuthorization,
  refreshAuthorization,
  startAuthorization,
} from "@modelcontextprotocol/sdk/client/auth.js";
import { OAuthError } from "@modelcontextprotocol/sdk/server/auth/errors.js";

const installed = new URL("./node_modules/@modelcontextprotocol/sdk/package.json", import.meta.url);
const { version } = JSON.parse(readFileSync(installed, "utf8"));

// pkce-challenge's alphabet, in its order: byte b picks MASK[b % 66].
const MASK = "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789-._~";
const realRandom = crypto.getRandomValues.bind(crypto);
const NO_PROMPT = "the SDK's startAuthorization has no prompt input (it adds consent for offline_access)";
const NO_CALLBACK = "the SDK does not parse the redirect URL: the application hands it the code";
const NO_EXPIRES_AT = "the SDK keeps expires_in relative and computes no expires_at";

class ContractError extends Error {
  /** @param {string} code @param {string} message */
  constructor(code, message) {
    super(message);
    this.code = code;
  }
}

class Skip extends Error {}

const METADATA_BASE = {
  issuer: "https://as.example",
  token_endpoint: "https://as.example/token",
  response_types_supported: ["code"],
  code_challenge_methods_supported: ["S256"],
};

/** @param {Record<string, any>} input */
async function authorizeUrl(input) {
  if (input.prompt?.length) throw new Skip(NO_PROMPT);
  const verifier = input.code_verifier;
  if (verifier.length !== 43 || [...verifier].some((c) => !MASK.includes(c))) {
    throw new Skip("pkce-challenge draws 43 characters of [A-Za-z0-9-._~]; this verifier cannot be injected");
  }
  const bytes = Uint8Array.from(verifier, (c) => MASK.indexOf(c));
  Object.defineProperty(crypto, "getRandomValues", {
    configurable: true,
    value: (/** @type {Uint8Array} */ array) => {
      array.set(bytes.subarray(0, array.length));
      return array;
    },
  });
  try {
    const scope = input.scopes.join(" ");
    const { authorizationUrl } = await startAuthorization("https://as.example", {
      metadata: { ...METADATA_BASE, authorization_endpoint: input.authorization_endpoint },
      clientInformation: { client_id: input.client_id },
      redirectUrl: input.redirect_uri,
      scope: scope === "" ? undefined : scope,
      state: input.state,
      resource: input.resource,
    });
    return { url: authorizationUrl.href };
  } catch (e) {
    if (e instanceof TypeError && /Invalid URL/.test(String(e.message))) {
      throw new ContractError("invalid_endpoint", String(e.message));
    }
    throw e;
  } finally {
    Object.defineProperty(crypto, "getRandomValues", { configurable: true, value: realRandom });
  }
}

/** @param {Record<string, any>} input */
async function tokenResponse(input) {
  const fetchFn = async () =>
    new Response(input.body, { status: 200, headers: { "content-type": "application/json" } });
  const common = {
    metadata: { ...METADATA_BASE, authorization_endpoint: "https://as.example/authorize" },
    clientInformation: { client_id: "hanzo-cli" },
    fetchFn,
  };
  let tokens;
  try {
    tokens =
      input.previous_refresh_token === undefined
        ? await exchangeAuthorization("https://as.example", {
            ...common,
            authorizationCode: "abc",
            codeVerifier: "dBjftJeZ4CVP-mB92K27uhbUJU1p1r_wW1gFWFOEjXk",
            redirectUri: "http://127.0.0.1:8765/callback",
          })
        : await refreshAuthorization("https://as.example", {
            ...common,
            refreshToken: input.previous_refresh_token,
          });
  } catch (e) {
    if (e instanceof OAuthError) {
      return { error: e.errorCode, error_description: e.message || null, error_uri: e.errorUri ?? null };
    }
    if (e instanceof Error && (e.name === "ZodError" || e instanceof SyntaxError)) {
      throw new ContractError("invalid_token_response", e.message.slice(0, 300));
    }
    throw e;
  }
  if (tokens.expires_in !== undefined) {
    // Which lifetime it accepted is told, since the comparison cannot be made.
    throw new Skip(`${NO_EXPIRES_AT} (it accepted expires_in ${JSON.stringify(tokens.expires_in)})`);
  }
  return {
    access_token: tokens.access_token,
    token_type: tokens.token_type,
    expires_at: null,
    refresh_token: tokens.refresh_token ?? null,
    scope: tokens.scope ?? null,
  };
}

/** @param {Record<string, any>} input */
async function oauthAuthorize(input) {
  if (input.op === "authorize-url") return authorizeUrl(input);
  if (input.op === "token-response") return tokenResponse(input);
  throw new Skip(NO_CALLBACK);
}

/** @param {Record<string, any>} request */
async function answer(request) {
  if (request.cmd === "start") {
    if (request.version !== 1) {
      const error = { code: "unsupported_version", message: "protocol 1 only" };
      return { ok: false, error, versions: [1] };
    }
    const language = `javascript (node ${process.versions.node})`;
    return {
      ok: true,
      implementation: { name: "@modelcontextprotocol/sdk", version, language, domains: ["oauth-authorize"] },
    };
  }
  const id = typeof request.id === "string" ? request.id : "";
  if (request.domain !== "oauth-authorize") {
    return { id, crash: { message: `unknown domain ${request.domain}`, detail: "" } };
  }
  try {
    return { id, output: await oauthAuthorize(request.input) };
  } catch (e) {
    if (e instanceof Skip) return { id, skip: { reason: e.message } };
    if (e instanceof ContractError) return { id, error: { code: e.code, message: e.message } };
    const err = /** @type {Error} */ (e);
    return { id, crash: { message: `${err.name}: ${err.message}`, detail: String(err.stack ?? "") } };
  }
}

const lines = createInterface({ input: process.stdin, crlfDelay: Infinity });
for await (const line of lines) {
  const request = JSON.parse(line);
  if (request.cmd === "stop") break;
  process.stdout.write(`${JSON.stringify(await answer(request))}\n`);
}
