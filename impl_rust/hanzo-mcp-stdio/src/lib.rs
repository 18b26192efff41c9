//! The MCP client's stdio transport (HIP-301 §1; contract: `docs/domains/mcp-stdio.md`).
//!
//! [`StdioMessageDecoder`] turns a server's stdout bytes, chunked anyhow, into JSON-RPC
//! messages (STDIO-1..9); [`reply_for`] is what the client writes back (STDIO-10);
//! [`encode_message`] writes one message as one line (STDIO-11); [`McpClientSession`]
//! is the sans-I/O lifecycle, id matching and tool table (STDIO-12..15);
//! [`server_process`] the server's argv and environment (STDIO-16, 17).

use std::collections::{BTreeMap, HashSet};
use std::fmt;
use std::fmt::Write as _;

use hanzo_config::McpServerConfig;
use hanzo_hooks::ecmascript_number;
use serde_json::{json, Map, Value};

/// The default longest line (STDIO-6): 16 MiB.
pub const DEFAULT_MAX_LINE_BYTES: usize = 16 * 1024 * 1024;
/// The protocol version this client asks for.
pub const PROTOCOL_VERSION: &str = "2025-06-18";
/// The versions an initialize result may name (STDIO-12b).
pub const SUPPORTED_PROTOCOL_VERSIONS: [&str; 3] = ["2025-06-18", "2025-03-26", "2024-11-05"];
/// The variables a server inherits from the parent (STDIO-17a).
pub const INHERITED_ENV_VARS: [&str; 6] = ["HOME", "LOGNAME", "PATH", "SHELL", "TERM", "USER"];
const MAX_SAFE: i64 = 9_007_199_254_740_991;
const MAX_DEPTH: usize = 100;
const BOM: &[u8] = b"\xef\xbb\xbf";

/// A JSON-RPC id: a string or an integer within ±(2^53−1).
#[derive(Debug, Clone, PartialEq, Eq, Hash)]
pub enum Id {
    /// A string id.
    Str(String),
    /// An integer id.
    Int(i64),
}

impl Id {
    /// The id `value` is (the contract's Terms), if it is one.
    #[must_use]
    pub fn from_value(value: &Value) -> Option<Self> {
        match value {
            Value::String(s) => Some(Self::Str(s.clone())),
            Value::Number(n) => {
                if let Some(i) = n.as_i64() {
                    return (-MAX_SAFE..=MAX_SAFE).contains(&i).then_some(Self::Int(i));
                }
                if n.is_u64() {
                    return None; // past i64, so past 2^53
                }
                let f = n.as_f64()?;
                #[allow(clippy::cast_precision_loss, clippy::cast_possible_truncation)]
                let integral = f.fract() == 0.0 && f.abs() <= MAX_SAFE as f64;
                #[allow(clippy::cast_possible_truncation)]
                integral.then_some(Self::Int(f as i64))
            }
            _ => None,
        }
    }

    /// As JSON.
    #[must_use]
    pub fn to_json(&self) -> Value {
        match self {
            Self::Str(s) => Value::String(s.clone()),
            Self::Int(i) => Value::from(*i),
        }
    }
}

/// One decoded line (STDIO-8); [`Incoming::to_json`] is the contract's object.
#[derive(Debug, Clone, PartialEq)]
pub enum Incoming {
    /// `{"type": "response", "id", "result"}`.
    Response {
        /// The request it answers.
        id: Id,
        /// Any JSON value.
        result: Value,
    },
    /// `{"type": "error", "id", "error"}`.
    Error {
        /// `None` for `id: null`.
        id: Option<Id>,
        /// `{"code", "message", "data"?}`.
        error: Value,
    },
    /// `{"type": "request", "id", "method", "params"?}`.
    Request {
        /// The server's id.
        id: Id,
        /// The method.
        method: String,
        /// An object, when the line has one.
        params: Option<Value>,
    },
    /// `{"type": "notification", "method", "params"?}`.
    Notification {
        /// The method.
        method: String,
        /// An object, when the line has one.
        params: Option<Value>,
    },
    /// `{"type": "invalid", "reason", "id"?}`.
    Invalid {
        /// STDIO-8c's reason.
        reason: &'static str,
        /// The id of a would-be request, when readable (STDIO-10c).
        id: Option<Id>,
    },
}

impl Incoming {
    fn invalid(reason: &'static str) -> Self {
        Self::Invalid { reason, id: None }
    }

    /// The message as the contract's JSON object.
    #[must_use]
    pub fn to_json(&self) -> Value {
        let mut out = Map::new();
        let mut put = |k: &str, v: Value| {
            out.insert(k.to_owned(), v);
        };
        match self {
            Self::Response { id, result } => {
                put("type", "response".into());
                put("id", id.to_json());
                put("result", result.clone());
            }
            Self::Error { id, error } => {
                put("type", "error".into());
                put("id", id.as_ref().map_or(Value::Null, Id::to_json));
                put("error", error.clone());
            }
            Self::Request { id, method, params } => {
                put("type", "request".into());
                put("id", id.to_json());
                put("method", method.as_str().into());
                if let Some(p) = params {
                    put("params", p.clone());
                }
            }
            Self::Notification { method, params } => {
                put("type", "notification".into());
                put("method", method.as_str().into());
                if let Some(p) = params {
                    put("params", p.clone());
                }
            }
            Self::Invalid { reason, id } => {
                put("type", "invalid".into());
                put("reason", (*reason).into());
                if let Some(id) = id {
                    put("id", id.to_json());
                }
            }
        }
        Value::Object(out)
    }
}

fn too_deep(value: &Value, depth: usize) -> bool {
    match value {
        Value::Array(items) => depth >= MAX_DEPTH || items.iter().any(|v| too_deep(v, depth + 1)),
        Value::Object(map) => depth >= MAX_DEPTH || map.values().any(|v| too_deep(v, depth + 1)),
        _ => false,
    }
}

fn is_jsonrpc_2(object: &Map<String, Value>) -> bool {
    object.get("jsonrpc").and_then(Value::as_str) == Some("2.0")
}

fn error_code(value: Option<&Value>) -> Option<i64> {
    match Id::from_value(value?)? {
        Id::Int(i) => Some(i),
        Id::Str(_) => None,
    }
}

/// STDIO-7c..8: one parsed JSON text to a message.
fn classify(value: Value) -> Incoming {
    let mut object = match value {
        Value::Array(_) => return Incoming::invalid("batch"),
        Value::Object(o) => o,
        _ => return Incoming::invalid("not_an_object"),
    };
    if let Some(method) = object.get("method") {
        let request_id = object.get("id").map(Id::from_value);
        let readable_id = match (method.is_string(), &request_id) {
            (true, Some(Some(id))) => Some(id.clone()),
            _ => None,
        };
        if !is_jsonrpc_2(&object) {
            return Incoming::Invalid {
                reason: "bad_jsonrpc",
                id: readable_id,
            };
        }
        let Some(method) = method.as_str().map(str::to_owned) else {
            return Incoming::invalid("bad_method");
        };
        let params = object.remove("params");
        if params.as_ref().is_some_and(|p| !p.is_object()) {
            return Incoming::Invalid {
                reason: "bad_params",
                id: readable_id,
            };
        }
        return match request_id {
            None => Incoming::Notification { method, params },
            Some(None) => Incoming::invalid("bad_id"),
            Some(Some(id)) => Incoming::Request { id, method, params },
        };
    }
    if !is_jsonrpc_2(&object) {
        return Incoming::invalid("bad_jsonrpc");
    }
    let Some(raw_id) = object.get("id") else {
        return Incoming::invalid("bad_id");
    };
    let id = Id::from_value(raw_id);
    let id_is_null = raw_id.is_null();
    match (object.remove("result"), object.remove("error")) {
        (Some(_), Some(_)) => Incoming::invalid("result_and_error"),
        (None, None) => Incoming::invalid("no_result_or_error"),
        (None, Some(error)) => {
            let Value::Object(mut error) = error else {
                return Incoming::invalid("bad_error");
            };
            let code = error_code(error.get("code"));
            let message = error.remove("message");
            let (Some(code), Some(Value::String(message))) = (code, message) else {
                return Incoming::invalid("bad_error");
            };
            if id.is_none() && !id_is_null {
                return Incoming::invalid("bad_id");
            }
            let mut reported = Map::new();
            reported.insert("code".to_owned(), Value::from(code));
            reported.insert("message".to_owned(), Value::String(message));
            if let Some(data) = error.remove("data") {
                reported.insert("data".to_owned(), data);
            }
            Incoming::Error {
                id,
                error: Value::Object(reported),
            }
        }
        (Some(result), None) => match id {
            Some(id) => Incoming::Response { id, result },
            None => Incoming::invalid("bad_id"),
        },
    }
}

fn is_json_whitespace(b: u8) -> bool {
    matches!(b, b' ' | b'\t' | b'\r' | b'\n')
}

/// One line's bytes (no LF; BOM already dropped) to its message; `None` when blank.
#[must_use]
pub fn decode_line(line: &[u8]) -> Option<Incoming> {
    if line.iter().all(|&b| is_json_whitespace(b)) {
        return None;
    }
    let Ok(text) = std::str::from_utf8(line) else {
        return Some(Incoming::invalid("invalid_utf8"));
    };
    // serde_json refuses lone surrogate escapes, overflowing numbers, NaN and more
    // than 127 levels; STDIO-7b's 100 levels is checked after, when there could be more.
    let Ok(value) = serde_json::from_str::<Value>(text) else {
        return Some(Incoming::invalid("parse_error"));
    };
    let brackets = text.bytes().filter(|&b| b == b'[' || b == b'{').count();
    if brackets > MAX_DEPTH && too_deep(&value, 0) {
        return Some(Incoming::invalid("parse_error"));
    }
    Some(classify(value))
}

/// Stdout bytes in, messages out; lines end at LF only (STDIO-2).
#[derive(Debug)]
pub struct StdioMessageDecoder {
    max_line_bytes: usize,
    held: Vec<u8>,
    overlong: bool,
    first_line: bool,
}

impl Default for StdioMessageDecoder {
    fn default() -> Self {
        Self::new(DEFAULT_MAX_LINE_BYTES)
    }
}

impl StdioMessageDecoder {
    /// A decoder that decodes every line of up to `max_line_bytes` bytes (STDIO-6).
    #[must_use]
    pub fn new(max_line_bytes: usize) -> Self {
        Self {
            max_line_bytes,
            held: Vec::new(),
            overlong: false,
            first_line: true,
        }
    }

    fn hold(&mut self, piece: &[u8]) {
        if self.overlong || piece.is_empty() {
            return;
        }
        if self.held.len() + piece.len() > self.max_line_bytes {
            self.overlong = true; // STDIO-6: stop keeping this line's bytes
            self.held = Vec::new();
            return;
        }
        self.held.extend_from_slice(piece);
    }

    fn end_line(&mut self, last: &[u8]) -> Option<Incoming> {
        let first = std::mem::replace(&mut self.first_line, false);
        if self.overlong || self.held.len() + last.len() > self.max_line_bytes {
            self.overlong = false;
            self.held.clear();
            return Some(Incoming::invalid("line_too_long"));
        }
        let message = if self.held.is_empty() {
            let line = if first {
                last.strip_prefix(BOM).unwrap_or(last)
            } else {
                last
            };
            decode_line(line)
        } else {
            let mut line = std::mem::take(&mut self.held);
            line.extend_from_slice(last);
            let start = if first && line.starts_with(BOM) { 3 } else { 0 };
            decode_line(&line[start..])
        };
        self.held.clear();
        message
    }

    /// The messages whose line ended in `chunk`.
    pub fn feed(&mut self, chunk: &[u8]) -> Vec<Incoming> {
        let mut out = Vec::new();
        let mut rest = chunk;
        while let Some(end) = rest.iter().position(|&b| b == b'\n') {
            if let Some(message) = self.end_line(&rest[..end]) {
                out.push(message);
            }
            rest = &rest[end + 1..];
        }
        self.hold(rest);
        out
    }

    /// The end of the stream: held bytes are a final line (STDIO-5b).
    pub fn close(&mut self) -> Vec<Incoming> {
        if !self.overlong && self.held.is_empty() {
            return Vec::new();
        }
        self.end_line(&[]).into_iter().collect()
    }
}

/// What the client writes back for one decoded message (STDIO-10), if anything.
#[must_use]
pub fn reply_for(message: &Incoming) -> Option<Value> {
    match message {
        Incoming::Request { id, method, .. } if method == "ping" => {
            Some(json!({"jsonrpc": "2.0", "id": id.to_json(), "result": {}}))
        }
        Incoming::Request { id, .. } => Some(json!({
            "jsonrpc": "2.0", "id": id.to_json(),
            "error": {"code": -32601, "message": "Method not found"}
        })),
        Incoming::Invalid { id: Some(id), .. } => Some(json!({
            "jsonrpc": "2.0", "id": id.to_json(),
            "error": {"code": -32600, "message": "Invalid Request"}
        })),
        _ => None,
    }
}

// --- encoding ---------------------------------------------------------------------

/// A message that cannot be one line (STDIO-11d, 11e).
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum EncodeError {
    /// A lone surrogate (Rust strings cannot hold one; the JSON text that had one).
    InvalidString,
    /// A number past binary64.
    InvalidNumber,
}

impl EncodeError {
    /// The contract's code.
    #[must_use]
    pub fn code(&self) -> &'static str {
        match self {
            Self::InvalidString => "invalid_string",
            Self::InvalidNumber => "invalid_number",
        }
    }
}

impl fmt::Display for EncodeError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(match self {
            Self::InvalidString => "a lone surrogate cannot be UTF-8",
            Self::InvalidNumber => "a number past binary64",
        })
    }
}

impl std::error::Error for EncodeError {}

fn write_string(out: &mut String, text: &str) {
    out.push('"');
    for c in text.chars() {
        match c {
            '"' => out.push_str("\\\""),
            '\\' => out.push_str("\\\\"),
            '\u{8}' => out.push_str("\\b"),
            '\t' => out.push_str("\\t"),
            '\n' => out.push_str("\\n"),
            '\u{c}' => out.push_str("\\f"),
            '\r' => out.push_str("\\r"),
            '\u{0}'..='\u{1f}' | '\u{2028}' | '\u{2029}' => {
                let _ = write!(out, "\\u{:04x}", u32::from(c));
            }
            _ => out.push(c),
        }
    }
    out.push('"');
}

fn write_number(out: &mut String, n: &serde_json::Number) -> Result<(), EncodeError> {
    if let Some(i) = n.as_i64() {
        if (-MAX_SAFE..=MAX_SAFE).contains(&i) {
            out.push_str(&i.to_string());
            return Ok(());
        }
    }
    let f = n.as_f64().ok_or(EncodeError::InvalidNumber)?;
    if !f.is_finite() {
        return Err(EncodeError::InvalidNumber);
    }
    #[allow(clippy::cast_precision_loss, clippy::cast_possible_truncation)]
    if f.fract() == 0.0 && f.abs() <= MAX_SAFE as f64 {
        out.push_str(&(f as i64).to_string());
    } else {
        out.push_str(&ecmascript_number(f));
    }
    Ok(())
}

fn write_value(out: &mut String, value: &Value) -> Result<(), EncodeError> {
    match value {
        Value::Null => out.push_str("null"),
        Value::Bool(b) => out.push_str(if *b { "true" } else { "false" }),
        Value::Number(n) => write_number(out, n)?,
        Value::String(s) => write_string(out, s),
        Value::Array(items) => {
            out.push('[');
            for (i, item) in items.iter().enumerate() {
                if i > 0 {
                    out.push(',');
                }
                write_value(out, item)?;
            }
            out.push(']');
        }
        Value::Object(map) => {
            // Sorted by code point (STDIO-11b): UTF-8 byte order is code point order.
            let mut members: Vec<(&String, &Value)> = map.iter().collect();
            members.sort_by(|a, b| a.0.cmp(b.0));
            out.push('{');
            for (i, (key, item)) in members.into_iter().enumerate() {
                if i > 0 {
                    out.push(',');
                }
                write_string(out, key);
                out.push(':');
                write_value(out, item)?;
            }
            out.push('}');
        }
    }
    Ok(())
}

/// One request (`id` given) or notification as one line, LF included (STDIO-11).
///
/// `message` is `{"id"?, "method", "params"?}`.
///
/// # Errors
/// [`EncodeError::InvalidNumber`] for a number past binary64.
pub fn encode_message(message: &Value) -> Result<String, EncodeError> {
    let mut out = String::from("{\"jsonrpc\":\"2.0\"");
    if let Some(id) = message.get("id") {
        out.push_str(",\"id\":");
        write_value(&mut out, id)?;
    }
    out.push_str(",\"method\":");
    write_string(
        &mut out,
        message.get("method").and_then(Value::as_str).unwrap_or(""),
    );
    if let Some(params) = message.get("params") {
        out.push_str(",\"params\":");
        write_value(&mut out, params)?;
    }
    out.push_str("}\n");
    Ok(out)
}

// --- the session ------------------------------------------------------------------

/// Where a session is (STDIO-12).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum SessionState {
    /// initialize written, not answered.
    Initializing,
    /// initialized written.
    Ready,
    /// initialize failed: nothing more is written.
    Failed,
    /// The stream ended.
    Closed,
}

#[derive(Debug)]
struct Listing {
    pending: usize,
    seen: HashSet<String>,
    names: Vec<String>,
    stale: bool,
}

/// Lifecycle, id matching and the tool table, without I/O (STDIO-12..15).
#[derive(Debug)]
pub struct McpClientSession {
    decoder: StdioMessageDecoder,
    server: Option<String>,
    writes: Vec<Value>,
    taken: usize,
    events: Vec<Value>,
    tables: Vec<Vec<(String, String)>>,
    state: SessionState,
    next_id: i64,
    pending: BTreeMap<i64, usize>,
    answered: HashSet<i64>,
    outcomes: Vec<Option<Value>>,
    calls: Vec<(String, Option<Value>)>,
    queued: Vec<usize>,
    listing: Option<Listing>,
}

impl McpClientSession {
    /// A session that has written `initialize`; `list_tools_server` turns STDIO-15 on.
    #[must_use]
    pub fn new(max_line_bytes: usize, list_tools_server: Option<String>) -> Self {
        let mut session = Self {
            decoder: StdioMessageDecoder::new(max_line_bytes),
            server: list_tools_server,
            writes: Vec::new(),
            taken: 0,
            events: Vec::new(),
            tables: Vec::new(),
            state: SessionState::Initializing,
            next_id: 1,
            pending: BTreeMap::new(),
            answered: HashSet::new(),
            outcomes: Vec::new(),
            calls: Vec::new(),
            queued: Vec::new(),
            listing: None,
        };
        let params = json!({
            "capabilities": {},
            "clientInfo": {"name": "hanzo-mcp-stdio", "version": "1.0.0"},
            "protocolVersion": PROTOCOL_VERSION,
        });
        let init = session.new_handle("initialize", Some(params));
        session.send(init);
        session
    }

    fn new_handle(&mut self, method: &str, params: Option<Value>) -> usize {
        self.outcomes.push(None);
        self.calls.push((method.to_owned(), params));
        self.outcomes.len() - 1
    }

    fn send(&mut self, handle: usize) {
        let id = self.next_id;
        self.next_id += 1;
        let (method, params) = &self.calls[handle];
        let mut write = Map::new();
        write.insert("jsonrpc".to_owned(), "2.0".into());
        write.insert("id".to_owned(), id.into());
        write.insert("method".to_owned(), method.as_str().into());
        if let Some(p) = params {
            write.insert("params".to_owned(), p.clone());
        }
        self.writes.push(Value::Object(write));
        self.pending.insert(id, handle);
    }

    /// Make a request; returns its handle for [`Self::outcome`]. Queued until ready.
    pub fn request(&mut self, method: &str, params: Option<Value>) -> usize {
        let handle = self.new_handle(method, params);
        match self.state {
            SessionState::Ready => self.send(handle),
            SessionState::Initializing => self.queued.push(handle),
            SessionState::Failed | SessionState::Closed => {}
        }
        handle
    }

    /// `{"result"}`, `{"error"}`, `{"failed"}`, `{"unanswered": true}` or
    /// `{"not_sent": true}` (STDIO-13e). Handle 0 is initialize.
    #[must_use]
    pub fn outcome(&self, handle: usize) -> Value {
        if let Some(done) = &self.outcomes[handle] {
            return done.clone();
        }
        if self.pending.values().any(|&h| h == handle) {
            json!({"unanswered": true})
        } else {
            json!({"not_sent": true})
        }
    }

    /// Every message written so far, in order.
    #[must_use]
    pub fn writes(&self) -> &[Value] {
        &self.writes
    }

    /// The writes made since the last call.
    pub fn take_writes(&mut self) -> Vec<Value> {
        let out = self.writes[self.taken..].to_vec();
        self.taken = self.writes.len();
        out
    }

    /// The events (STDIO-14), as JSON.
    #[must_use]
    pub fn events(&self) -> &[Value] {
        &self.events
    }

    /// Every completed table, each `(name, tool)` sorted by tool (STDIO-15d).
    #[must_use]
    pub fn tables(&self) -> &[Vec<(String, String)>] {
        &self.tables
    }

    /// Where the session is.
    #[must_use]
    pub fn state(&self) -> SessionState {
        self.state
    }

    /// Feed stdout bytes.
    pub fn feed(&mut self, chunk: &[u8]) {
        for message in self.decoder.feed(chunk) {
            self.receive(message);
        }
    }

    /// The stream ended.
    pub fn close(&mut self) {
        for message in self.decoder.close() {
            self.receive(message);
        }
        if self.state != SessionState::Failed {
            self.state = SessionState::Closed;
        }
    }

    fn receive(&mut self, message: Incoming) {
        let answer = match &message {
            Incoming::Response { id, .. } | Incoming::Error { id: Some(id), .. } => {
                Some(id.clone())
            }
            _ => None,
        };
        if let Some(id) = answer {
            let handle = match &id {
                Id::Int(i) => self.pending.remove(i),
                Id::Str(_) => None,
            };
            let Some(handle) = handle else {
                let answered = matches!(&id, Id::Int(i) if self.answered.contains(i));
                let reason = if answered {
                    "already_answered"
                } else {
                    "unknown_id"
                };
                self.events
                    .push(json!({"type": "unmatched", "id": id.to_json(), "reason": reason}));
                return;
            };
            if let Id::Int(i) = id {
                self.answered.insert(i);
            }
            self.answer(handle, message);
            return;
        }
        self.events.push(message.to_json());
        if let Some(reply) = reply_for(&message) {
            if self.state != SessionState::Failed {
                self.writes.push(reply);
            }
        }
        if let Incoming::Notification { method, .. } = &message {
            if method == "notifications/tools/list_changed"
                && self.server.is_some()
                && self.state == SessionState::Ready
            {
                match &mut self.listing {
                    Some(listing) => listing.stale = true,
                    None => self.start_listing(),
                }
            }
        }
    }

    fn answer(&mut self, handle: usize, message: Incoming) {
        if self.listing.as_ref().is_some_and(|l| l.pending == handle) {
            self.page(message);
            return;
        }
        let outcome = match message {
            Incoming::Response { result, .. } => json!({ "result": result }),
            Incoming::Error { error, .. } => json!({ "error": error }),
            _ => return,
        };
        let outcome = if handle == 0 {
            self.initialized(outcome)
        } else {
            outcome
        };
        self.outcomes[handle] = Some(outcome);
    }

    fn initialized(&mut self, outcome: Value) -> Value {
        if outcome.get("error").is_some() {
            self.state = SessionState::Failed;
            return outcome;
        }
        let version = outcome
            .get("result")
            .and_then(Value::as_object)
            .and_then(|r| r.get("protocolVersion"))
            .and_then(Value::as_str);
        if !version.is_some_and(|v| SUPPORTED_PROTOCOL_VERSIONS.contains(&v)) {
            self.state = SessionState::Failed;
            return json!({"failed": "unsupported_protocol_version"});
        }
        self.state = SessionState::Ready;
        self.writes
            .push(json!({"jsonrpc": "2.0", "method": "notifications/initialized"}));
        if self.server.is_some() {
            self.start_listing();
        }
        for handle in std::mem::take(&mut self.queued) {
            self.send(handle);
        }
        outcome
    }

    fn start_listing(&mut self) {
        let handle = self.new_handle("tools/list", None);
        self.send(handle);
        self.listing = Some(Listing {
            pending: handle,
            seen: HashSet::new(),
            names: Vec::new(),
            stale: false,
        });
    }

    fn fail_listing(&mut self, reason: &str) {
        self.listing = None;
        self.events
            .push(json!({"type": "listing_failed", "reason": reason}));
    }

    fn page(&mut self, message: Incoming) {
        let Some(mut listing) = self.listing.take() else {
            return;
        };
        if listing.stale {
            self.start_listing(); // STDIO-15e: stale pages are discarded
            return;
        }
        let Incoming::Response { result, .. } = message else {
            return self.fail_listing("tools_list_error");
        };
        let tools = result.get("tools").and_then(Value::as_array);
        let names: Option<Vec<String>> = tools.and_then(|tools| {
            tools
                .iter()
                .map(|t| t.get("name").and_then(Value::as_str).map(str::to_owned))
                .collect()
        });
        let (Some(names), true) = (names, result.is_object()) else {
            return self.fail_listing("bad_tools_page");
        };
        let cursor = match result.get("nextCursor") {
            None | Some(Value::Null) => None,
            Some(Value::String(c)) => Some(c.clone()),
            Some(_) => return self.fail_listing("bad_tools_page"),
        };
        listing.names.extend(names);
        match cursor {
            None => self.publish(&listing.names),
            Some(c) if listing.seen.contains(&c) => self.fail_listing("cursor_loop"),
            Some(c) => {
                let handle = self.new_handle("tools/list", Some(json!({ "cursor": c })));
                self.send(handle);
                listing.seen.insert(c);
                listing.pending = handle;
                self.listing = Some(listing);
            }
        }
    }

    fn publish(&mut self, names: &[String]) {
        let server = self.server.clone().unwrap_or_default();
        match hanzo_mcp_names::build_tool_table([(
            server.as_str(),
            names.iter().map(String::as_str),
        )]) {
            Ok(table) => {
                let mut entries: Vec<(String, String)> = table
                    .entries()
                    .iter()
                    .map(|e| (e.name.clone(), e.tool.clone()))
                    .collect();
                entries.sort_by(|a, b| a.1.cmp(&b.1));
                self.tables.push(entries);
            }
            Err(e) => self
                .events
                .push(json!({"type": "listing_failed", "reason": e.code()})),
        }
    }
}

// --- the server's process ---------------------------------------------------------

/// A configuration that cannot start a process (STDIO-16, 17c).
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum SpawnError {
    /// No program.
    EmptyCommand,
    /// A NUL in an argument or a configured value.
    NulByte,
    /// A configured name outside `[A-Za-z_][A-Za-z0-9_]*`.
    InvalidEnvName(String),
}

impl SpawnError {
    /// The contract's code.
    #[must_use]
    pub fn code(&self) -> &'static str {
        match self {
            Self::EmptyCommand => "empty_command",
            Self::NulByte => "nul_byte",
            Self::InvalidEnvName(_) => "invalid_env_name",
        }
    }
}

impl fmt::Display for SpawnError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Self::EmptyCommand => f.write_str("no program to start"),
            Self::NulByte => f.write_str("a NUL in an argument or value"),
            Self::InvalidEnvName(name) => write!(f, "not an environment name: {name:?}"),
        }
    }
}

impl std::error::Error for SpawnError {}

/// What to `execve`: the argv and the exact environment.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ServerProcess {
    /// `command` then `args`.
    pub argv: Vec<String>,
    /// The whole environment of the server.
    pub env: BTreeMap<String, String>,
}

fn is_env_name(name: &str) -> bool {
    let mut bytes = name.bytes();
    bytes
        .next()
        .is_some_and(|b| b == b'_' || b.is_ascii_alphabetic())
        && bytes.all(|b| b == b'_' || b.is_ascii_alphanumeric())
}

/// The server's argv and environment (STDIO-16, 17).
///
/// # Errors
/// [`SpawnError`].
pub fn server_process<S: std::hash::BuildHasher>(
    config: &McpServerConfig,
    parent_env: &std::collections::HashMap<String, String, S>,
) -> Result<ServerProcess, SpawnError> {
    if config.command.first().map_or(true, String::is_empty) {
        return Err(SpawnError::EmptyCommand);
    }
    let argv: Vec<String> = config.command.iter().chain(&config.args).cloned().collect();
    if argv.iter().any(|a| a.contains('\0')) {
        return Err(SpawnError::NulByte);
    }
    let mut env = BTreeMap::new();
    for name in INHERITED_ENV_VARS {
        if let Some(value) = parent_env.get(name) {
            if !value.starts_with("()") {
                env.insert(name.to_owned(), value.clone());
            }
        }
    }
    for (name, value) in &config.env {
        if !is_env_name(name) {
            return Err(SpawnError::InvalidEnvName(name.clone()));
        }
        if value.contains('\0') {
            return Err(SpawnError::NulByte);
        }
        env.insert(name.clone(), value.clone());
    }
    Ok(ServerProcess { argv, env })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_line_split_anywhere_decodes_the_same() {
        let stream = b"{\"jsonrpc\":\"2.0\",\"id\":1,\"result\":\"\xe2\x82\xac\"}\r\n";
        for cut in 0..=stream.len() {
            let mut decoder = StdioMessageDecoder::default();
            let mut messages = decoder.feed(&stream[..cut]);
            messages.extend(decoder.feed(&stream[cut..]));
            assert_eq!(messages.len(), 1, "cut at {cut}");
            assert_eq!(messages[0].to_json()["result"], "€");
        }
    }

    #[test]
    fn the_default_limit_is_16_mib() {
        // A whole 16 MiB line: the JSON text padded with trailing whitespace.
        let limit = 16 * 1024 * 1024;
        let text = b"{\"jsonrpc\":\"2.0\",\"method\":\"n\"}";
        let mut line = text.to_vec();
        line.resize(limit, b' ');
        let mut decoder = StdioMessageDecoder::default();
        let mut messages = decoder.feed(&line);
        messages.extend(decoder.feed(b"\n"));
        assert_eq!(messages.len(), 1);
        assert_eq!(messages[0].to_json()["type"], "notification");
        line.push(b' ');
        line.push(b'\n');
        assert_eq!(
            decoder.feed(&line),
            vec![Incoming::invalid("line_too_long")]
        );
    }

    fn initialize_result() -> &'static [u8] {
        b"{\"jsonrpc\":\"2.0\",\"id\":1,\"result\":{\"protocolVersion\":\"2025-06-18\"}}\n"
    }

    #[test]
    fn take_writes_returns_each_write_once() {
        let mut session = McpClientSession::new(DEFAULT_MAX_LINE_BYTES, None);
        let first = session.take_writes();
        assert_eq!(first.len(), 1);
        assert_eq!(first[0]["method"], "initialize");
        assert!(session.take_writes().is_empty());
        session.feed(initialize_result());
        assert_eq!(
            session.take_writes(),
            vec![json!({"jsonrpc": "2.0", "method": "notifications/initialized"})]
        );
        assert_eq!(session.writes().len(), 2);
    }

    #[test]
    fn close_ends_a_ready_session_but_keeps_a_failure() {
        let mut ready = McpClientSession::new(DEFAULT_MAX_LINE_BYTES, None);
        ready.feed(initialize_result());
        assert_eq!(ready.state(), SessionState::Ready);
        ready.close();
        assert_eq!(ready.state(), SessionState::Closed);

        let mut failed = McpClientSession::new(DEFAULT_MAX_LINE_BYTES, None);
        failed.feed(b"{\"jsonrpc\":\"2.0\",\"id\":1,\"error\":{\"code\":-1,\"message\":\"no\"}}\n");
        assert_eq!(failed.state(), SessionState::Failed);
        failed.close();
        assert_eq!(failed.state(), SessionState::Failed);
    }
}
