// SSE frames of one model response into HIP-301 StreamEvents, assembling tool calls.
// Contract: docs/domains/stream-assembly.md.

/** 2^53 - 1, the largest integer every platform holds exactly (I-JSON). */
const MAX_SAFE = Number.MAX_SAFE_INTEGER;
/** The deepest nesting of a payload or of tool arguments (STREAM-6c). */
export const STREAM_MAX_DEPTH = 64;
export const STREAM_DIALECTS = Object.freeze(["anthropic", "openai-chat"]);

/**
 * @typedef {{type: "content_delta", text: string}} ContentDelta
 * @typedef {{type: "tool_use", id: string, name: string, input: Record<string, unknown> | null,
 *   input_json: string, input_error: "invalid_json" | "not_object" | null}} ToolUse
 * @typedef {{type: "message_stop", stop_reason: string | null, provider_stop_reason: string | null}} MessageStop
 * @typedef {{type: "error", error_type: string, message: string}} StreamError
 * @typedef {ContentDelta | ToolUse | MessageStop | StreamError} StreamEvent
 * @typedef {{input_tokens: number | null, output_tokens: number | null}} Usage
 * @typedef {{event: string | null, data: string}} Frame
 */

const OPENAI_STOP_REASONS = new Map([
  ["stop", "end_turn"],
  ["tool_calls", "tool_use"],
  ["function_call", "tool_use"],
  ["length", "max_tokens"],
]);
const LONE_SURROGATE = /[\uD800-\uDBFF](?![\uDC00-\uDFFF])|(?<![\uD800-\uDBFF])[\uDC00-\uDFFF]/;
// A text none of these match cannot hold a lone surrogate, an overflowing number or
// deep nesting, so its parsed value needs no walk (the walk is the check).
const SURROGATE_ESCAPE = /\\u[dD][89a-fA-F]/;
const MAYBE_OVERFLOW = /[eE]\+?\d{3}|\d{309}/;
const WHITESPACE_ONLY = /^[ \t\n\r]*$/;

class Invalid extends Error {}

/**
 * @param {unknown} value
 * @param {number} depth
 * @returns {unknown} the value with -0 as 0 (STREAM-6e)
 */
function walk(value, depth) {
  if (typeof value === "number") {
    if (!Number.isFinite(value)) throw new Invalid("a number beyond binary64");
    return value === 0 ? 0 : value;
  }
  if (typeof value === "string") {
    if (LONE_SURROGATE.test(value)) throw new Invalid("a lone surrogate");
    return value;
  }
  if (value === null || typeof value !== "object") return value;
  if (depth >= STREAM_MAX_DEPTH) throw new Invalid("nested deeper than 64 levels");
  if (Array.isArray(value)) {
    for (let i = 0; i < value.length; i++) value[i] = walk(value[i], depth + 1);
    return value;
  }
  const object = /** @type {Record<string, unknown>} */ (value);
  for (const key of Object.keys(object)) {
    if (LONE_SURROGATE.test(key)) throw new Invalid("a lone surrogate");
    object[key] = walk(object[key], depth + 1);
  }
  return value;
}

/**
 * @param {string} text
 * @returns {number}
 */
function bracketCount(text) {
  let n = 0;
  for (let i = text.indexOf("["); i !== -1 && n <= STREAM_MAX_DEPTH; i = text.indexOf("[", i + 1)) n++;
  for (let i = text.indexOf("{"); i !== -1 && n <= STREAM_MAX_DEPTH; i = text.indexOf("{", i + 1)) n++;
  return n;
}

/**
 * Parse `text` as strict I-JSON (STREAM-6c): numbers are binary64 values, no lone
 * surrogate, nothing beyond binary64, at most 64 levels.
 * @param {string} text
 * @param {boolean} [always] walk the value even when the text cannot need it (tool input: -0)
 * @returns {unknown}
 */
export function parseStreamJson(text, always = false) {
  let value;
  try {
    value = JSON.parse(text);
  } catch {
    throw new Invalid("not JSON");
  }
  if (
    always ||
    bracketCount(text) > STREAM_MAX_DEPTH ||
    SURROGATE_ESCAPE.test(text) ||
    MAYBE_OVERFLOW.test(text)
  ) {
    value = walk(value, 0);
  }
  return value;
}

/** @param {unknown} v @returns {v is Record<string, unknown>} */
const isObject = (v) => typeof v === "object" && v !== null && !Array.isArray(v);

/**
 * `object[key]` if it has the type `check` accepts, null if absent or null; else invalid.
 * @template T
 * @param {Record<string, unknown>} object
 * @param {string} key
 * @param {(v: unknown) => v is T} check
 * @returns {T | null}
 */
function optional(object, key, check) {
  const value = object[key];
  if (value === undefined || value === null) return null;
  if (check(value)) return value;
  throw new Invalid(`${key} has the wrong type`);
}
/** @param {unknown} v @returns {v is string} */
const isString = (v) => typeof v === "string";
/** @param {unknown} v @returns {v is unknown[]} */
const isArray = (v) => Array.isArray(v);

/** @param {unknown} value @returns {number} */
function indexOf(value) {
  if (typeof value === "number" && Number.isInteger(value) && value >= 0 && value <= MAX_SAFE) {
    return value === 0 ? 0 : value;
  }
  throw new Invalid("index is not an integer in [0, MAX_SAFE]");
}

/** @param {unknown} value @returns {value is number} */
const isCount = (value) =>
  typeof value === "number" && Number.isInteger(value) && value >= 0 && value <= MAX_SAFE;

/**
 * @param {string} id
 * @param {string} name
 * @param {string} text
 * @param {Record<string, unknown>} empty
 * @returns {ToolUse}
 */
function toolUse(id, name, text, empty) {
  /** @type {ToolUse} */
  const call = { type: "tool_use", id, name, input: empty, input_json: text, input_error: null };
  if (WHITESPACE_ONLY.test(text)) return call; // STREAM-6b, STREAM-4d
  let value;
  try {
    value = parseStreamJson(text, true);
  } catch {
    call.input = null;
    call.input_error = "invalid_json";
    return call;
  }
  if (isObject(value)) {
    call.input = value;
  } else {
    call.input = null;
    call.input_error = "not_object";
  }
  return call;
}

class Slot {
  /** @param {number} index */
  constructor(index) {
    this.index = index;
    this.id = "";
    this.name = "";
    /** @type {string[]} */
    this.parts = [];
    /** @type {Record<string, unknown>} */
    this.startInput = {};
  }

  /** @returns {ToolUse} */
  emit() {
    return toolUse(this.id, this.name, this.parts.join(""), this.startInput);
  }
}

/** Turns one response's SSE frames into StreamEvents (docs/domains/stream-assembly.md). */
export class StreamAssembler {
  /** @param {string} dialect `anthropic` or `openai-chat` */
  constructor(dialect) {
    if (!STREAM_DIALECTS.includes(dialect)) {
      throw new RangeError(`unknown dialect ${JSON.stringify(dialect)}; expected anthropic or openai-chat`);
    }
    this.anthropic = dialect === "anthropic";
    this.finished = false;
    /** @type {string | null} */
    this.stop = null;
    /** @type {Usage | null} STREAM-9 */
    this.usage = null;
    /** anthropic: every started index (STREAM-4a). @type {Set<number>} */
    this.started = new Set();
    /** The open slot per index. @type {Map<number, Slot>} */
    this.current = new Map();
    /** openai-chat: every slot not yet emitted, in open order. @type {Slot[]} */
    this.slots = [];
  }

  /**
   * The events completed by `frame` (STREAM-1).
   * @param {Frame} frame
   * @returns {StreamEvent[]}
   */
  feed(frame) {
    if (this.finished) return [];
    const data = frame.data;
    if (data === "") return []; // STREAM-2a
    if (!this.anthropic && data === "[DONE]") return this.done();
    /** @type {unknown} */
    let payload;
    try {
      payload = parseStreamJson(data);
    } catch {
      // not JSON, so not an object either: payload stays undefined
    }
    if (
      frame.event === "error" ||
      (isObject(payload) &&
        (payload.type === "error" || (payload.error !== undefined && payload.error !== null)))
    ) {
      return [this.error(payload, data)];
    }
    if (!isObject(payload)) return [this.fail("invalid_event")];
    try {
      return this.anthropic ? this.feedAnthropic(payload) : this.feedOpenai(payload);
    } catch (error) {
      if (!(error instanceof Invalid)) throw error;
      // STREAM-2: a broken frame emits only the error.
      return [this.fail("invalid_event")];
    }
  }

  /**
   * The body ended: `incomplete_stream` unless the message stopped (STREAM-8d).
   * @returns {StreamEvent[]}
   */
  end() {
    if (this.finished) return [];
    return [this.fail("incomplete_stream")];
  }

  /** @param {string} errorType @returns {StreamError} */
  fail(errorType) {
    this.finished = true;
    this.current.clear();
    this.slots = [];
    return { type: "error", error_type: errorType, message: "" };
  }

  /**
   * STREAM-7b.
   * @param {unknown} payload
   * @param {string} data
   * @returns {StreamError}
   */
  error(payload, data) {
    let errorType = "unknown";
    let message = "";
    if (isObject(payload)) {
      const error = payload.error;
      if (isObject(error)) {
        if (typeof error.type === "string" && error.type) errorType = error.type;
        else if (typeof error.code === "string" && error.code) errorType = error.code;
        if (typeof error.message === "string") message = error.message;
      } else if (typeof error === "string") {
        message = error;
      }
    } else {
      message = data; // not a JSON object: its text
    }
    this.fail("unknown");
    return { type: "error", error_type: errorType, message };
  }

  /**
   * @param {unknown} usage
   * @param {string} inputKey
   * @param {string} outputKey
   */
  setUsage(usage, inputKey, outputKey) {
    if (!isObject(usage)) return;
    const old = this.usage ?? { input_tokens: null, output_tokens: null };
    const input = usage[inputKey];
    const output = usage[outputKey];
    this.usage = {
      input_tokens: isCount(input) ? input : old.input_tokens,
      output_tokens: isCount(output) ? output : old.output_tokens,
    };
  }

  /**
   * STREAM-3a, STREAM-4, STREAM-8a.
   * @param {Record<string, unknown>} payload
   * @returns {StreamEvent[]}
   */
  feedAnthropic(payload) {
    /** @type {StreamEvent[]} */
    const out = [];
    switch (payload.type) {
      case "content_block_delta": {
        const index = indexOf(payload.index);
        if (!this.started.has(index)) throw new Invalid("a delta for a block never started");
        const delta = payload.delta;
        if (!isObject(delta)) throw new Invalid("delta is not an object");
        if (delta.type === "text_delta") {
          const text = optional(delta, "text", isString);
          if (text) out.push({ type: "content_delta", text });
        } else if (delta.type === "input_json_delta") {
          const part = optional(delta, "partial_json", isString);
          const slot = this.current.get(index);
          if (part && slot) slot.parts.push(part);
        }
        break;
      }
      case "content_block_start": {
        const index = indexOf(payload.index);
        const block = payload.content_block;
        if (!isObject(block)) throw new Invalid("content_block is not an object");
        if (this.started.has(index)) throw new Invalid("a second start at one index");
        if (block.type === "tool_use") {
          const slot = new Slot(index);
          slot.id = optional(block, "id", isString) ?? "";
          slot.name = optional(block, "name", isString) ?? "";
          if (isObject(block.input)) slot.startInput = block.input;
          this.current.set(index, slot);
        }
        this.started.add(index);
        break;
      }
      case "content_block_stop": {
        const index = indexOf(payload.index);
        if (!this.started.has(index)) throw new Invalid("a stop for a block never started");
        const slot = this.current.get(index);
        if (slot) {
          this.current.delete(index);
          out.push(slot.emit());
        }
        break;
      }
      case "message_start":
        if (isObject(payload.message)) {
          this.setUsage(payload.message.usage, "input_tokens", "output_tokens");
        }
        break;
      case "message_delta":
        if (isObject(payload.delta) && typeof payload.delta.stop_reason === "string") {
          this.stop = payload.delta.stop_reason;
        }
        this.setUsage(payload.usage, "input_tokens", "output_tokens");
        break;
      case "message_stop": {
        const indices = [...this.current.keys()].sort((a, b) => a - b);
        for (const index of indices) out.push(/** @type {Slot} */ (this.current.get(index)).emit());
        this.current.clear();
        out.push({ type: "message_stop", stop_reason: this.stop, provider_stop_reason: this.stop });
        this.finished = true;
        break;
      }
      default:
        break;
    }
    return out;
  }

  /**
   * STREAM-3b, STREAM-5, STREAM-8b.
   * @param {Record<string, unknown>} payload
   * @returns {StreamEvent[]}
   */
  feedOpenai(payload) {
    /** @type {StreamEvent[]} */
    const out = [];
    const choices = optional(payload, "choices", isArray) ?? [];
    for (let position = 0; position < choices.length; position++) {
      const choice = choices[position];
      if (!isObject(choice)) throw new Invalid("a choice is not an object");
      const number = choice.index;
      const index = number === undefined || number === null ? position : indexOf(number);
      if (index !== 0) continue;
      const delta = optional(choice, "delta", isObject);
      if (delta) {
        const text = optional(delta, "content", isString);
        if (text) out.push({ type: "content_delta", text });
        const calls = optional(delta, "tool_calls", isArray);
        if (calls) this.fragments(calls);
      }
      const finish = optional(choice, "finish_reason", isString);
      if (finish !== null) {
        this.stop = finish;
        for (const call of this.emitSlots()) out.push(call);
      }
    }
    this.setUsage(payload.usage, "prompt_tokens", "completion_tokens");
    return out;
  }

  /** @param {unknown[]} calls */
  fragments(calls) {
    for (let position = 0; position < calls.length; position++) {
      const call = calls[position];
      if (!isObject(call)) throw new Invalid("a tool call is not an object");
      const number = call.index;
      const index = number === undefined || number === null ? position : indexOf(number);
      const id = optional(call, "id", isString);
      const fn = optional(call, "function", isObject);
      const name = fn ? optional(fn, "name", isString) : null;
      const args = fn ? optional(fn, "arguments", isString) : null;
      let slot = this.current.get(index);
      if (!slot || (id && slot.id && id !== slot.id)) {
        // STREAM-5a opens a slot; STREAM-5c a changed id opens another at this index.
        slot = new Slot(index);
        this.current.set(index, slot);
        this.slots.push(slot);
      }
      if (id) slot.id = id; // STREAM-5b: set, not appended
      if (name) slot.name = name;
      if (args) slot.parts.push(args);
    }
  }

  /** STREAM-5e: by index, then in open order (Array.prototype.sort is stable). @returns {ToolUse[]} */
  emitSlots() {
    const slots = this.slots.sort((a, b) => a.index - b.index);
    this.slots = [];
    this.current.clear();
    return slots.map((slot) => slot.emit());
  }

  /** @returns {StreamEvent[]} */
  done() {
    /** @type {StreamEvent[]} */
    const out = this.emitSlots();
    const stop = this.stop;
    out.push({
      type: "message_stop",
      stop_reason: stop === null ? null : (OPENAI_STOP_REASONS.get(stop) ?? stop),
      provider_stop_reason: stop,
    });
    this.finished = true;
    return out;
  }
}
