// The OAuth 2.1 authorization-code flow with PKCE around the S256 challenge (HIP-301 §6):
// the authorize URL, the callback and the token response.
// Contract: docs/domains/oauth-authorize.md.
import { HanzoError } from "./errors.js";
import { PkceChallenge, s256Challenge } from "./pkce.js";

/** TOK-4: the largest lifetime, in seconds. */
export const MAX_EXPIRES_IN = 2 ** 31 - 1;
/** AUTH-8: the prompt values of OpenID Connect Core §3.1.2.1. */
export const PROMPT_VALUES = Object.freeze(["none", "login", "consent", "select_account"]);

/** AUTH-3: every name the client adds, whether or not a request sends it. */
const ADDED_NAMES = new Set([
  "response_type",
  "client_id",
  "redirect_uri",
  "scope",
  "state",
  "code_challenge",
  "code_challenge_method",
  "resource",
  "prompt",
]);
const LOOPBACK = new Set(["localhost", "127.0.0.1", "[::1]"]);
const UNRESERVED = /^[A-Za-z0-9\-._~]$/;
const URI_CHARS = /^[A-Za-z0-9\-._~:/?#[\]@!$&'()*+,;=%]*$/;
const BAD_PERCENT = /%(?![0-9A-Fa-f]{2})/;
const VSCHAR_TEXT = /^[\x20-\x7e]+$/;
const SCOPE_TOKEN = /^[\x21\x23-\x5b\x5d-\x7e]+$/;
// With the u flag a surrogate class matches only a lone surrogate, never half a pair.
const LONE_SURROGATE = /[\uD800-\uDFFF]/u;
const utf8 = new TextEncoder();
// fatal: octets that are not UTF-8 are an error; ignoreBOM: a decoded U+FEFF is kept.
const strictUtf8 = new TextDecoder("utf-8", { fatal: true, ignoreBOM: true });

/** A refusal of this client: a contract error. */
export class OAuthError extends HanzoError {}

/** The server's error response: `error`, `errorDescription`, `errorUri` as sent. */
class ServerError extends Error {
  /**
   * @param {string} error
   * @param {string | null} errorDescription
   * @param {string | null} errorUri
   */
  constructor(error, errorDescription, errorUri) {
    super(error);
    this.name = new.target.name;
    /** @type {string} */
    this.error = error;
    /** @type {string | null} */
    this.errorDescription = errorDescription;
    /** @type {string | null} */
    this.errorUri = errorUri;
  }
}

/** CB-4: the authorization server redirected back with an error response. */
export class AuthorizationDeniedError extends ServerError {}

/** TOK-2: the token endpoint answered with an error body. */
export class TokenRequestFailedError extends ServerError {}

/**
 * AUTH-1/AUTH-2: URI characters, good `%`, no fragment, https or loopback http.
 * @param {unknown} url
 * @returns {boolean}
 */
function validUrl(url) {
  if (typeof url !== "string" || !URI_CHARS.test(url) || url.includes("#") || BAD_PERCENT.test(url)) {
    return false;
  }
  const sep = url.indexOf("://");
  if (sep === -1) return false;
  const scheme = url.slice(0, sep).toLowerCase();
  const after = url.slice(sep + 3);
  const stop = after.search(/[/?]/);
  const authority = stop === -1 ? after : after.slice(0, stop);
  if (authority.includes("@")) return false;
  let host;
  let portPart;
  if (authority.startsWith("[")) {
    const close = authority.indexOf("]");
    if (close === -1 || !ipv6Address(authority.slice(1, close))) return false;
    host = authority.slice(0, close + 1);
    portPart = authority.slice(close + 1);
  } else {
    host = authority.split(":")[0];
    if (host === "" || host.includes("[") || host.includes("]")) return false;
    portPart = authority.slice(host.length);
  }
  if (portPart !== "" && !/^:[0-9]+$/.test(portPart)) return false;
  if (scheme === "https") return true;
  return scheme === "http" && LOOPBACK.has(host.toLowerCase());
}

/**
 * AUTH-4: UTF-8, unreserved octets kept, everything else `%HH` uppercase.
 * @param {string} value
 * @returns {string}
 */
function encode(value) {
  let out = "";
  for (const octet of utf8.encode(value)) {
    const char = String.fromCharCode(octet);
    out += UNRESERVED.test(char) ? char : `%${octet.toString(16).toUpperCase().padStart(2, "0")}`;
  }
  return out;
}

/**
 * `+` is a space, `%HH` an octet; null for a bad `%` or octets that are not UTF-8.
 * @param {string} text
 * @returns {string | null}
 */
function formDecode(text) {
  if (BAD_PERCENT.test(text)) return null;
  /** @type {number[]} */
  const raw = [];
  let at = 0;
  while (at < text.length) {
    const char = text[at];
    if (char === "%") {
      raw.push(parseInt(text.slice(at + 1, at + 3), 16));
      at += 3;
    } else if (char === "+") {
      raw.push(0x20);
      at += 1;
    } else {
      // a run of other characters, as UTF-8
      let end = at + 1;
      while (end < text.length && text[end] !== "%" && text[end] !== "+") end += 1;
      raw.push(...utf8.encode(text.slice(at, end)));
      at = end;
    }
  }
  try {
    return strictUtf8.decode(new Uint8Array(raw));
  } catch {
    return null;
  }
}

/**
 * Terms, form-decoding: the query's [name, value] pairs; null if one cannot be decoded.
 * @param {string} query
 * @returns {[string, string][] | null}
 */
function formPairs(query) {
  /** @type {[string, string][]} */
  const pairs = [];
  for (const piece of query.split("&")) {
    if (piece === "") continue;
    const eq = piece.indexOf("=");
    const name = formDecode(eq === -1 ? piece : piece.slice(0, eq));
    const value = formDecode(eq === -1 ? "" : piece.slice(eq + 1));
    if (name === null || value === null) return null;
    pairs.push([name, value]);
  }
  return pairs;
}

/**
 * @param {Iterable<string>} values
 * @returns {string[]}
 */
function unique(values) {
  return [...new Set(values)];
}

/**
 * AUTH-1..9: the authorization request URL for the code flow with S256 PKCE.
 * @param {{endpoint: string, clientId: string, redirectUri: string, scopes: string[],
 *   state: string, codeVerifier: string, resource?: string | null, prompt?: string[]}} request
 * @returns {string}
 * @throws {OAuthError | import("./pkce.js").InvalidVerifierError}
 */
export function authorizationUrl({
  endpoint,
  clientId,
  redirectUri,
  scopes,
  state,
  codeVerifier,
  resource = null,
  prompt = [],
}) {
  if (!validUrl(endpoint)) {
    throw new OAuthError("invalid_endpoint", "the endpoint is not a valid https URL");
  }
  const question = endpoint.indexOf("?");
  const query = question === -1 ? null : endpoint.slice(question + 1);
  if (query !== null) {
    const existing = formPairs(query);
    if (existing === null || existing.some(([name]) => ADDED_NAMES.has(name))) {
      throw new OAuthError("invalid_endpoint", "the endpoint's query repeats a parameter the client adds");
    }
  }
  if (typeof clientId !== "string" || !VSCHAR_TEXT.test(clientId)) {
    throw new OAuthError("invalid_client_id", "client_id must be non-empty VSCHAR text");
  }
  if (!validUrl(redirectUri)) {
    throw new OAuthError("invalid_redirect_uri", "redirect_uri must be https or loopback http");
  }
  if (!scopes.every((s) => typeof s === "string" && SCOPE_TOKEN.test(s))) {
    throw new OAuthError("invalid_scope", "a scope is not an RFC 6749 scope-token");
  }
  const scopeList = unique(scopes);
  if (typeof state !== "string" || !VSCHAR_TEXT.test(state)) {
    throw new OAuthError("invalid_state", "state must be non-empty VSCHAR text");
  }
  const challenge = s256Challenge(codeVerifier); // InvalidVerifierError: PKCE-1/2
  if (resource !== null && !validUrl(resource)) {
    throw new OAuthError("invalid_resource", "resource must be an absolute https URL");
  }
  const prompts = unique(prompt);
  if (!prompts.every((p) => PROMPT_VALUES.includes(p))) {
    throw new OAuthError("invalid_prompt", "unknown prompt value");
  }
  if (scopeList.includes("offline_access") && !prompts.includes("consent")) prompts.push("consent");
  if (prompts.includes("none") && prompts.length > 1) {
    throw new OAuthError("invalid_prompt", "prompt none cannot be combined");
  }

  /** @type {[string, string][]} */
  const params = [
    ["response_type", "code"],
    ["client_id", clientId],
    ["redirect_uri", redirectUri],
  ];
  if (scopeList.length > 0) params.push(["scope", scopeList.join(" ")]);
  params.push(["state", state], ["code_challenge", challenge], ["code_challenge_method", PkceChallenge.METHOD]);
  if (resource !== null) params.push(["resource", resource]);
  if (prompts.length > 0) params.push(["prompt", prompts.join(" ")]);
  const added = params.map(([name, value]) => `${name}=${encode(value)}`).join("&");
  if (query === null) return `${endpoint}?${added}`;
  const joiner = query === "" || query.endsWith("&") ? "" : "&";
  return `${endpoint}${joiner}${added}`;
}

/**
 * CB-1..5: the authorization code from the redirect URL.
 * @param {string} url
 * @param {{expectedState: string}} options
 * @returns {string}
 * @throws {OAuthError | AuthorizationDeniedError}
 */
export function parseCallback(url, { expectedState }) {
  // The fragment starts at the first `#`, even before a `?` (RFC 3986 §3.5).
  const beforeFragment = url.split("#")[0];
  const question = beforeFragment.indexOf("?");
  const pairs = formPairs(question === -1 ? "" : beforeFragment.slice(question + 1));
  if (pairs === null) {
    throw new OAuthError("invalid_callback", "the callback query is not form-encoded UTF-8");
  }
  /** @type {Map<string, string>} */
  const params = new Map();
  for (const [name, value] of pairs) {
    if (params.has(name)) throw new OAuthError("invalid_callback", `parameter ${name} appears twice`);
    params.set(name, value);
  }
  if (params.get("state") !== expectedState) {
    throw new OAuthError("state_mismatch", "state does not match the request's");
  }
  const error = params.get("error");
  if (error !== undefined) {
    if (error === "" || params.has("code")) {
      throw new OAuthError("invalid_callback", "malformed error response");
    }
    throw new AuthorizationDeniedError(
      error,
      params.get("error_description") ?? null,
      params.get("error_uri") ?? null,
    );
  }
  const code = params.get("code") ?? "";
  if (code === "") throw new OAuthError("missing_code", "the callback has no code");
  return code;
}

/**
 * TOK-1: every number finite, every string (and name) free of lone surrogates.
 * @param {unknown} value
 * @returns {boolean}
 */
function wellFormed(value) {
  const stack = [value];
  while (stack.length > 0) {
    const item = stack.pop();
    if (typeof item === "number") {
      if (!Number.isFinite(item)) return false;
    } else if (typeof item === "string") {
      if (LONE_SURROGATE.test(item)) return false;
    } else if (Array.isArray(item)) {
      stack.push(...item);
    } else if (item !== null && typeof item === "object") {
      for (const [name, member] of Object.entries(item)) stack.push(name, member);
    }
  }
  return true;
}

/** @param {string} message */
const invalid = (message) => new OAuthError("invalid_token_response", message);

/**
 * @param {Record<string, unknown>} body
 * @param {string} name
 * @returns {unknown}
 */
const member = (body, name) => (Object.hasOwn(body, name) ? body[name] : undefined);

/**
 * @param {Record<string, unknown>} body
 * @param {string} name
 * @returns {string | null}
 */
function optionalText(body, name) {
  const value = member(body, name);
  if (value === undefined || value === null) return null;
  if (typeof value === "string") return value;
  throw invalid(`${name} must be a string`);
}

/**
 * @typedef {object} TokenResponse TOK-3..6
 * @property {string} accessToken
 * @property {"Bearer"} tokenType
 * @property {number | null} expiresAt whole seconds since the Unix epoch
 * @property {string | null} refreshToken
 * @property {string | null} scope
 */

/**
 * TOK-1..6: the credential in a token endpoint's JSON body; `now` in whole seconds.
 * @param {string} body
 * @param {{now: number, previousRefreshToken?: string | null}} options
 * @returns {TokenResponse}
 * @throws {OAuthError | TokenRequestFailedError}
 */
export function parseTokenResponse(body, { now, previousRefreshToken = null }) {
  /** @type {unknown} */
  let parsed;
  try {
    parsed = JSON.parse(body); // a repeated member keeps its last value (TOK-1)
  } catch {
    throw invalid("the body is not JSON");
  }
  if (parsed === null || typeof parsed !== "object" || Array.isArray(parsed) || !wellFormed(parsed)) {
    throw invalid("the body is not a JSON object of Unicode text and finite numbers");
  }
  const object = /** @type {Record<string, unknown>} */ (parsed);
  if (Object.hasOwn(object, "error")) {
    const error = object.error;
    if (typeof error !== "string" || error === "") throw invalid("error must be a non-empty string");
    const description = optionalText(object, "error_description");
    throw new TokenRequestFailedError(error, description, optionalText(object, "error_uri"));
  }
  const accessToken = member(object, "access_token");
  if (typeof accessToken !== "string" || accessToken === "") {
    throw invalid("access_token must be a non-empty string");
  }
  const tokenType = member(object, "token_type");
  if (typeof tokenType !== "string") throw invalid("token_type must be a string");
  // ASCII case folding only: toLowerCase would fold non-ASCII letters too
  if (tokenType.replace(/[A-Z]/g, (c) => c.toLowerCase()) !== "bearer") {
    throw new OAuthError("unsupported_token_type", `token type ${tokenType} is not Bearer`);
  }
  let expiresAt = null;
  const expiresIn = member(object, "expires_in");
  if (expiresIn !== undefined && expiresIn !== null) {
    if (typeof expiresIn !== "number" || !Number.isInteger(expiresIn) || expiresIn < 0 || expiresIn > MAX_EXPIRES_IN) {
      throw invalid("expires_in must be whole seconds from 0 to 2^31-1");
    }
    expiresAt = now + expiresIn + 0; // + 0 turns -0 into 0
  }
  let refreshToken = member(object, "refresh_token");
  if (refreshToken === undefined || refreshToken === null) {
    refreshToken = previousRefreshToken;
  } else if (typeof refreshToken !== "string" || refreshToken === "") {
    throw invalid("refresh_token must be a non-empty string");
  }
  const scope = optionalText(object, "scope");
  return {
    accessToken,
    tokenType: "Bearer",
    expiresAt,
    refreshToken: /** @type {string | null} */ (refreshToken),
    scope,
  };
}

/**
 * AUTH-2: RFC 3986 §3.2.2's `IPv6address`: eight groups of 1-4 hex digits, or fewer with
 * one `::` standing for at least one, the last two optionally a dotted IPv4.
 * @param {string} text
 * @returns {boolean}
 */
function ipv6Address(text) {
  // A second `::` needs no test of its own: it leaves an empty group in the tail.
  const compressed = text.indexOf("::");
  let groups;
  if (compressed === -1) {
    groups = text.split(":");
  } else {
    const head = text.slice(0, compressed);
    const tail = text.slice(compressed + 2);
    groups = [...(head ? head.split(":") : []), ...(tail ? tail.split(":") : [])];
  }
  let width = groups.length;
  const last = groups.at(-1);
  if (last !== undefined && last.includes(".")) {
    if (!ipv4Address(last)) return false;
    groups.pop();
    width += 1;
  }
  if (!groups.every((g) => /^[0-9A-Fa-f]{1,4}$/.test(g))) return false;
  return compressed === -1 ? width === 8 : width < 8;
}

/**
 * RFC 3986 §3.2.2's `IPv4address`: four decimal octets 0-255, no leading zeros.
 * @param {string} text
 * @returns {boolean}
 */
function ipv4Address(text) {
  const octets = text.split(".");
  return octets.length === 4 && octets.every((o) => /^(0|[1-9][0-9]{0,2})$/.test(o) && Number(o) <= 255);
}
