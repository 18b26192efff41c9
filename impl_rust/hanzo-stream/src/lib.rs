//! SSE frames of one model response into HIP-301 `StreamEvent`s, with tool calls
//! assembled from their fragments.
//!
//! The contract is `docs/domains/stream-assembly.md`: a [`StreamAssembler`] for one
//! [`Dialect`] (the Anthropic Messages stream or the `OpenAI` Chat Completions stream)
//! is fed each frame's `event` and `data` (the output of `hanzo-sse`) and returns
//! the events each completes; [`StreamAssembler::end`] is called when the body ends.
//!
//! ```
//! use hanzo_stream::{Dialect, StreamAssembler, StreamEvent};
//!
//! let mut assembler = StreamAssembler::new("openai-chat".parse::<Dialect>().unwrap());
//! let mut events = Vec::new();
//! for data in [
//!     r#"{"choices":[{"index":0,"delta":{"tool_calls":[{"index":0,"id":"call_1","function":{"name":"get","arguments":"{\"a\":"}}]}}]}"#,
//!     r#"{"choices":[{"index":0,"delta":{"tool_calls":[{"index":0,"id":"call_1","function":{"name":"get","arguments":"1}"}}]},"finish_reason":"tool_calls"}]}"#,
//!     "[DONE]",
//! ] {
//!     events.extend(assembler.feed(None, data));
//! }
//! let StreamEvent::ToolUse(call) = &events[0] else { panic!() };
//! assert_eq!((call.id.as_str(), call.name.as_str(), call.input_json.as_str()), ("call_1", "get", "{\"a\":1}"));
//! assert!(matches!(&events[1], StreamEvent::MessageStop { stop_reason: Some(r), .. } if r == "tool_use"));
//! ```

use std::collections::{BTreeMap, HashMap, HashSet};
use std::fmt;
use std::str::FromStr;

use serde_json::{Map, Number, Value};

/// 2^53 − 1, the largest integer every platform holds exactly (I-JSON).
pub const MAX_SAFE: u64 = (1 << 53) - 1;
/// The deepest nesting of a payload or of tool arguments (STREAM-6c).
pub const MAX_DEPTH: usize = 64;

/// The provider's stream format.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Dialect {
    /// The Anthropic Messages API stream (`anthropic`).
    Anthropic,
    /// The `OpenAI` Chat Completions stream (`openai-chat`).
    OpenAiChat,
}

/// A dialect name that is neither `anthropic` nor `openai-chat`.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct UnknownDialect(pub String);

impl fmt::Display for UnknownDialect {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(
            f,
            "unknown dialect {:?}; expected anthropic or openai-chat",
            self.0
        )
    }
}

impl std::error::Error for UnknownDialect {}

impl FromStr for Dialect {
    type Err = UnknownDialect;

    fn from_str(s: &str) -> Result<Self, Self::Err> {
        match s {
            "anthropic" => Ok(Self::Anthropic),
            "openai-chat" => Ok(Self::OpenAiChat),
            _ => Err(UnknownDialect(s.to_owned())),
        }
    }
}

/// Why a tool call has no `input` (STREAM-6c, STREAM-6d).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum InputError {
    /// The argument text is not one strict I-JSON text.
    InvalidJson,
    /// The argument text is JSON but not an object.
    NotObject,
}

impl InputError {
    /// The contract's name: `invalid_json` or `not_object`.
    pub fn as_str(self) -> &'static str {
        match self {
            Self::InvalidJson => "invalid_json",
            Self::NotObject => "not_object",
        }
    }
}

/// One assembled tool call (STREAM-6).
#[derive(Debug, Clone, PartialEq)]
pub struct ToolUse {
    /// The provider's call id (`""` if never sent).
    pub id: String,
    /// The tool name (`""` if never sent).
    pub name: String,
    /// The parsed arguments; `None` exactly when `input_error` is set.
    pub input: Option<Map<String, Value>>,
    /// The argument text exactly as received (STREAM-6a).
    pub input_json: String,
    /// Why `input` is `None`.
    pub input_error: Option<InputError>,
}

/// One HIP-301 stream event.
#[derive(Debug, Clone, PartialEq)]
pub enum StreamEvent {
    /// A non-empty piece of the assistant's text (STREAM-3).
    ContentDelta {
        /// The text.
        text: String,
    },
    /// A complete tool call (STREAM-4, STREAM-5).
    ToolUse(ToolUse),
    /// The message ended (STREAM-8).
    MessageStop {
        /// The common stop reason (STREAM-8c).
        stop_reason: Option<String>,
        /// The provider's own stop reason.
        provider_stop_reason: Option<String>,
    },
    /// The stream failed (STREAM-7, STREAM-2b, STREAM-8d); nothing follows it.
    Error {
        /// The provider's error type, or `invalid_event` / `incomplete_stream` / `unknown`.
        error_type: String,
        /// The provider's message (`""` for the contract's own errors).
        message: String,
    },
}

/// Token counts (STREAM-9).
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct Usage {
    /// Input (prompt) tokens, once sent.
    pub input_tokens: Option<u64>,
    /// Output (completion) tokens, once sent.
    pub output_tokens: Option<u64>,
}

/// Not strict I-JSON, or a payload field of the wrong type.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Invalid;

/// Parses `text` as one strict I-JSON text with STREAM-6e's numbers: integral values
/// within ±[`MAX_SAFE`] are integers, every other number its binary64 value.
///
/// # Errors
/// [`Invalid`] for anything that is not RFC 8259 JSON, a lone surrogate escape, a
/// number beyond binary64, or nesting deeper than [`MAX_DEPTH`].
pub fn parse_json(text: &str) -> Result<Value, Invalid> {
    // serde_json rejects NaN, lone surrogates, overflowing numbers and nesting past 128.
    let mut value: Value = serde_json::from_str(text).map_err(|_| Invalid)?;
    normalize(&mut value, 0)?;
    Ok(value)
}

fn normalize(value: &mut Value, depth: usize) -> Result<(), Invalid> {
    match value {
        Value::Object(map) => {
            if depth >= MAX_DEPTH {
                return Err(Invalid);
            }
            map.values_mut().try_for_each(|v| normalize(v, depth + 1))
        }
        Value::Array(items) => {
            if depth >= MAX_DEPTH {
                return Err(Invalid);
            }
            items.iter_mut().try_for_each(|v| normalize(v, depth + 1))
        }
        Value::Number(number) => {
            if let Some(n) = normalize_number(number) {
                *number = n;
            }
            Ok(())
        }
        _ => Ok(()),
    }
}

/// The number STREAM-6e makes of `number`, if it is not that already.
#[allow(clippy::cast_precision_loss, clippy::cast_possible_truncation)]
fn normalize_number(number: &Number) -> Option<Number> {
    if let Some(n) = number.as_u64() {
        return (n > MAX_SAFE).then(|| Number::from_f64(n as f64)).flatten();
    }
    if let Some(n) = number.as_i64() {
        return (n.unsigned_abs() > MAX_SAFE)
            .then(|| Number::from_f64(n as f64))
            .flatten();
    }
    let f = number.as_f64()?;
    // Integral and within ±MAX_SAFE: exact in i64 (1.5e3 is 1500, -0 is 0).
    if f.fract() == 0.0 && f.abs() <= MAX_SAFE as f64 {
        return Some(Number::from(f as i64));
    }
    None
}

fn optional<'a, T>(
    object: &'a Map<String, Value>,
    key: &str,
    get: impl FnOnce(&'a Value) -> Option<T>,
) -> Result<Option<T>, Invalid> {
    match object.get(key) {
        None | Some(Value::Null) => Ok(None),
        Some(value) => get(value).map(Some).ok_or(Invalid),
    }
}

fn opt_str<'a>(object: &'a Map<String, Value>, key: &str) -> Result<Option<&'a str>, Invalid> {
    optional(object, key, Value::as_str)
}

fn opt_object<'a>(
    object: &'a Map<String, Value>,
    key: &str,
) -> Result<Option<&'a Map<String, Value>>, Invalid> {
    optional(object, key, Value::as_object)
}

fn opt_array<'a>(
    object: &'a Map<String, Value>,
    key: &str,
) -> Result<Option<&'a Vec<Value>>, Invalid> {
    optional(object, key, Value::as_array)
}

/// An index: an integer in `[0, MAX_SAFE]` (normalized numbers hold it as `u64`).
fn index_of(value: Option<&Value>) -> Result<u64, Invalid> {
    value
        .and_then(Value::as_u64)
        .filter(|n| *n <= MAX_SAFE)
        .ok_or(Invalid)
}

fn tool_use(id: String, name: String, text: String, empty: Map<String, Value>) -> ToolUse {
    let (input, input_error) = if text.trim_matches([' ', '\t', '\n', '\r']).is_empty() {
        (Some(empty), None) // STREAM-6b, STREAM-4d
    } else {
        match parse_json(&text) {
            Ok(Value::Object(map)) => (Some(map), None),
            Ok(_) => (None, Some(InputError::NotObject)),
            Err(Invalid) => (None, Some(InputError::InvalidJson)),
        }
    };
    ToolUse {
        id,
        name,
        input,
        input_json: text,
        input_error,
    }
}

#[derive(Debug)]
struct Slot {
    index: u64,
    id: String,
    name: String,
    text: String,
    start_input: Map<String, Value>,
}

impl Slot {
    fn new(index: u64) -> Self {
        Self {
            index,
            id: String::new(),
            name: String::new(),
            text: String::new(),
            start_input: Map::new(),
        }
    }

    fn emit(self) -> StreamEvent {
        StreamEvent::ToolUse(tool_use(self.id, self.name, self.text, self.start_input))
    }
}

/// Turns one response's SSE frames into [`StreamEvent`]s.
#[derive(Debug)]
pub struct StreamAssembler {
    dialect: Dialect,
    finished: bool,
    stop: Option<String>,
    usage: Option<Usage>,
    /// anthropic: every index started (STREAM-4a), and the open tool slots by index.
    started: HashSet<u64>,
    open: BTreeMap<u64, Slot>,
    /// openai-chat: every slot not yet emitted, in open order, and the current one per index.
    slots: Vec<Slot>,
    current: HashMap<u64, usize>,
}

impl StreamAssembler {
    /// A fresh assembler for one response.
    pub fn new(dialect: Dialect) -> Self {
        Self {
            dialect,
            finished: false,
            stop: None,
            usage: None,
            started: HashSet::new(),
            open: BTreeMap::new(),
            slots: Vec::new(),
            current: HashMap::new(),
        }
    }

    /// The token counts seen so far (STREAM-9).
    pub fn usage(&self) -> Option<Usage> {
        self.usage
    }

    /// The events completed by the frame with this `event` name and `data` (STREAM-1).
    pub fn feed(&mut self, event: Option<&str>, data: &str) -> Vec<StreamEvent> {
        if self.finished || data.is_empty() {
            return Vec::new(); // STREAM-1, STREAM-2a
        }
        if self.dialect == Dialect::OpenAiChat && data == "[DONE]" {
            return self.done();
        }
        let payload = parse_json(data).ok();
        let is_error = event == Some("error")
            || payload
                .as_ref()
                .and_then(Value::as_object)
                .is_some_and(|p| {
                    p.get("type").and_then(Value::as_str) == Some("error")
                        || p.get("error").is_some_and(|e| !e.is_null())
                });
        if is_error {
            return vec![self.error(payload.as_ref(), data)];
        }
        let Some(Value::Object(payload)) = payload else {
            return vec![self.fail("invalid_event")];
        };
        let fed = match self.dialect {
            Dialect::Anthropic => self.feed_anthropic(&payload),
            Dialect::OpenAiChat => self.feed_openai(&payload),
        };
        // STREAM-2: a broken frame emits only the error.
        fed.unwrap_or_else(|Invalid| vec![self.fail("invalid_event")])
    }

    /// The body ended: `incomplete_stream` unless the message stopped (STREAM-8d).
    pub fn end(&mut self) -> Vec<StreamEvent> {
        if self.finished {
            return Vec::new();
        }
        vec![self.fail("incomplete_stream")]
    }

    fn fail(&mut self, error_type: &str) -> StreamEvent {
        self.finished = true;
        self.open.clear();
        self.slots.clear();
        self.current.clear();
        StreamEvent::Error {
            error_type: error_type.to_owned(),
            message: String::new(),
        }
    }

    /// STREAM-7b.
    fn error(&mut self, payload: Option<&Value>, data: &str) -> StreamEvent {
        let (mut error_type, mut message) = ("unknown".to_owned(), String::new());
        match payload {
            Some(Value::Object(p)) => match p.get("error") {
                Some(Value::Object(error)) => {
                    let non_empty = |key: &str| {
                        error
                            .get(key)
                            .and_then(Value::as_str)
                            .filter(|s| !s.is_empty())
                    };
                    if let Some(kind) = non_empty("type").or_else(|| non_empty("code")) {
                        kind.clone_into(&mut error_type);
                    }
                    if let Some(text) = error.get("message").and_then(Value::as_str) {
                        text.clone_into(&mut message);
                    }
                }
                Some(Value::String(text)) => text.clone_into(&mut message),
                _ => {}
            },
            _ => data.clone_into(&mut message), // not a JSON object: its text
        }
        self.fail("unknown");
        StreamEvent::Error {
            error_type,
            message,
        }
    }

    fn set_usage(&mut self, usage: Option<&Value>, input_key: &str, output_key: &str) {
        let Some(Value::Object(usage)) = usage else {
            return;
        };
        let count = |key: &str| usage.get(key).and_then(Value::as_u64);
        let old = self.usage.unwrap_or_default();
        self.usage = Some(Usage {
            input_tokens: count(input_key).or(old.input_tokens),
            output_tokens: count(output_key).or(old.output_tokens),
        });
    }

    fn feed_anthropic(
        &mut self,
        payload: &Map<String, Value>,
    ) -> Result<Vec<StreamEvent>, Invalid> {
        let mut out = Vec::new();
        match payload.get("type").and_then(Value::as_str) {
            Some("content_block_delta") => {
                let index = index_of(payload.get("index"))?;
                if !self.started.contains(&index) {
                    return Err(Invalid);
                }
                let delta = payload
                    .get("delta")
                    .and_then(Value::as_object)
                    .ok_or(Invalid)?;
                match delta.get("type").and_then(Value::as_str) {
                    Some("text_delta") => {
                        if let Some(text) = opt_str(delta, "text")?.filter(|t| !t.is_empty()) {
                            out.push(StreamEvent::ContentDelta {
                                text: text.to_owned(),
                            });
                        }
                    }
                    Some("input_json_delta") => {
                        let part = opt_str(delta, "partial_json")?;
                        if let (Some(part), Some(slot)) = (part, self.open.get_mut(&index)) {
                            slot.text.push_str(part);
                        }
                    }
                    _ => {}
                }
            }
            Some("content_block_start") => {
                let index = index_of(payload.get("index"))?;
                let block = payload
                    .get("content_block")
                    .and_then(Value::as_object)
                    .ok_or(Invalid)?;
                if self.started.contains(&index) {
                    return Err(Invalid);
                }
                if block.get("type").and_then(Value::as_str) == Some("tool_use") {
                    let mut slot = Slot::new(index);
                    opt_str(block, "id")?.unwrap_or("").clone_into(&mut slot.id);
                    opt_str(block, "name")?
                        .unwrap_or("")
                        .clone_into(&mut slot.name);
                    if let Some(Value::Object(input)) = block.get("input") {
                        slot.start_input.clone_from(input);
                    }
                    self.open.insert(index, slot);
                }
                self.started.insert(index);
            }
            Some("content_block_stop") => {
                let index = index_of(payload.get("index"))?;
                if !self.started.contains(&index) {
                    return Err(Invalid);
                }
                if let Some(slot) = self.open.remove(&index) {
                    out.push(slot.emit());
                }
            }
            Some("message_start") => {
                if let Some(Value::Object(message)) = payload.get("message") {
                    self.set_usage(message.get("usage"), "input_tokens", "output_tokens");
                }
            }
            Some("message_delta") => {
                if let Some(reason) = payload
                    .get("delta")
                    .and_then(|d| d.get("stop_reason"))
                    .and_then(Value::as_str)
                {
                    self.stop = Some(reason.to_owned());
                }
                self.set_usage(payload.get("usage"), "input_tokens", "output_tokens");
            }
            Some("message_stop") => {
                out.extend(std::mem::take(&mut self.open).into_values().map(Slot::emit));
                out.push(StreamEvent::MessageStop {
                    stop_reason: self.stop.clone(),
                    provider_stop_reason: self.stop.clone(),
                });
                self.finished = true;
            }
            _ => {}
        }
        Ok(out)
    }

    fn feed_openai(&mut self, payload: &Map<String, Value>) -> Result<Vec<StreamEvent>, Invalid> {
        let mut out = Vec::new();
        let choices = opt_array(payload, "choices")?.map_or(&[][..], Vec::as_slice);
        for (position, choice) in choices.iter().enumerate() {
            let choice = choice.as_object().ok_or(Invalid)?;
            let index = match choice.get("index") {
                None | Some(Value::Null) => position as u64,
                Some(value) => index_of(Some(value))?,
            };
            if index != 0 {
                continue;
            }
            if let Some(delta) = opt_object(choice, "delta")? {
                if let Some(text) = opt_str(delta, "content")?.filter(|t| !t.is_empty()) {
                    out.push(StreamEvent::ContentDelta {
                        text: text.to_owned(),
                    });
                }
                if let Some(calls) = opt_array(delta, "tool_calls")? {
                    self.fragments(calls)?;
                }
            }
            if let Some(finish) = opt_str(choice, "finish_reason")? {
                self.stop = Some(finish.to_owned());
                out.extend(self.emit_slots());
            }
        }
        self.set_usage(payload.get("usage"), "prompt_tokens", "completion_tokens");
        Ok(out)
    }

    fn fragments(&mut self, calls: &[Value]) -> Result<(), Invalid> {
        for (position, call) in calls.iter().enumerate() {
            let call = call.as_object().ok_or(Invalid)?;
            let index = match call.get("index") {
                None | Some(Value::Null) => position as u64,
                Some(value) => index_of(Some(value))?,
            };
            let id = opt_str(call, "id")?.filter(|s| !s.is_empty());
            let (mut name, mut arguments) = (None, None);
            if let Some(function) = opt_object(call, "function")? {
                name = opt_str(function, "name")?.filter(|s| !s.is_empty());
                arguments = opt_str(function, "arguments")?;
            }
            let at = match self.current.get(&index) {
                // STREAM-5c: a different id starts another call at this index.
                Some(&at)
                    if !id.is_some_and(|id| {
                        !self.slots[at].id.is_empty() && self.slots[at].id != id
                    }) =>
                {
                    at
                }
                _ => {
                    self.slots.push(Slot::new(index));
                    self.current.insert(index, self.slots.len() - 1);
                    self.slots.len() - 1
                }
            };
            let slot = &mut self.slots[at];
            if let Some(id) = id {
                id.clone_into(&mut slot.id); // STREAM-5b: set, not appended
            }
            if let Some(name) = name {
                name.clone_into(&mut slot.name);
            }
            if let Some(arguments) = arguments {
                slot.text.push_str(arguments);
            }
        }
        Ok(())
    }

    /// STREAM-5e: by index, then in open order (a stable sort).
    fn emit_slots(&mut self) -> Vec<StreamEvent> {
        let mut slots = std::mem::take(&mut self.slots);
        self.current.clear();
        slots.sort_by_key(|slot| slot.index);
        slots.into_iter().map(Slot::emit).collect()
    }

    fn done(&mut self) -> Vec<StreamEvent> {
        let mut out = self.emit_slots();
        let stop_reason = self.stop.as_deref().map(|reason| {
            match reason {
                "stop" => "end_turn",
                "tool_calls" | "function_call" => "tool_use",
                "length" => "max_tokens",
                other => other,
            }
            .to_owned()
        });
        out.push(StreamEvent::MessageStop {
            stop_reason,
            provider_stop_reason: self.stop.clone(),
        });
        self.finished = true;
        out
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn numbers_are_binary64_values() {
        let value =
            parse_json(r#"{"a": 1.5e3, "b": 12345678901234567890, "c": -0, "d": 0.5}"#).unwrap();
        assert_eq!(value["a"].as_i64(), Some(1500));
        assert_eq!(value["b"].as_f64(), Some(12_345_678_901_234_567_890_f64));
        assert!(value["b"].as_u64().is_none());
        assert_eq!(value["c"].as_i64(), Some(0));
        assert_eq!(value["d"].as_f64(), Some(0.5));
    }

    // A negative integer that fits i64 but not ±MAX_SAFE is the nearest double, and
    // -MAX_SAFE stays an integer. The harness compares numbers as doubles, so no vector
    // can tell an exact i64 from that double.
    #[test]
    fn negative_integers_beyond_max_safe_are_doubles() {
        let value = parse_json(r#"{"a": -9007199254740993, "b": -9007199254740991}"#).unwrap();
        assert!(value["a"].as_i64().is_none());
        assert_eq!(value["a"].as_f64(), Some(-9_007_199_254_740_992_f64));
        assert_eq!(value["b"].as_i64(), Some(-9_007_199_254_740_991));
    }

    #[test]
    fn strictness() {
        for bad in [
            "NaN",
            r#"{"a": 1e400}"#,
            r#""\ud800""#,
            "{} {}",
            "\u{feff}{}",
            "{'a': 1}",
        ] {
            assert_eq!(parse_json(bad), Err(Invalid), "{bad}");
        }
        let deep_ok = format!("{}{}", "[".repeat(64), "]".repeat(64));
        assert!(parse_json(&deep_ok).is_ok());
        let too_deep = format!("{}{}", "[".repeat(65), "]".repeat(65));
        assert_eq!(parse_json(&too_deep), Err(Invalid));
    }

    #[test]
    fn unknown_dialect() {
        assert!("openai".parse::<Dialect>().is_err());
    }
}
