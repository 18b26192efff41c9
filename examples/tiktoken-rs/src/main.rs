//! A docs/protocol.md worker around the published tiktoken-rs 0.12.1 (which embeds
//! the `o200k_base` ranks, so it needs no network), for the token-encoding domain:
//!
//! ```sh
//! cargo build --release --manifest-path examples/tiktoken-rs/Cargo.toml
//! hanzo-conformance run --worker tiktoken-rs=examples/tiktoken-rs/target/release/hanzo-conformance-example-tiktoken-rs \
//!     --platform tiktoken-rs --domain token-encoding \
//!     --expectations examples/tiktoken-rs/expectations.json \
//!     --no-default-vectors --vectors examples/token-encoding/token-encoding.json --schemas examples/token-encoding
//! ```
//!
//! Each case is `o200k_base()?.encode_ordinary(text)` (TENC-2: special-token strings
//! are text). `--with-special-tokens` calls `encode_with_special_tokens(text)`
//! instead, which makes `<|endoftext|>` one special token. Nothing is corrected: the
//! ledger next to this file records any divergence.

use std::io::{self, BufRead, Write};

use serde_json::{json, Value};
use tiktoken_rs::CoreBPE;

const VERSION: &str = "0.12.1";

fn encode(bpe: &CoreBPE, with_special: bool, input: &Value) -> Result<Value, String> {
    if input.get("encoding").and_then(Value::as_str) != Some("o200k_base") {
        return Err(format!("not carried: {}", input["encoding"]));
    }
    let text = input
        .get("text")
        .and_then(Value::as_str)
        .ok_or("input.text must be a string")?;
    let tokens = if with_special {
        bpe.encode_with_special_tokens(text)
    } else {
        bpe.encode_ordinary(text)
    };
    Ok(json!({"count": tokens.len(), "tokens": tokens}))
}

fn answer(bpe: &CoreBPE, with_special: bool, request: &Value) -> Value {
    if request["cmd"] == "start" {
        if request["version"] != 1 {
            return json!({"ok": false, "versions": [1],
                "error": {"code": "unsupported_version", "message": "protocol 1 only"}});
        }
        return json!({"ok": true, "implementation": {
            "name": "tiktoken-rs", "version": VERSION, "language": "rust",
            "domains": ["token-encoding"]}});
    }
    let id = request["id"].as_str().unwrap_or("");
    if request["domain"] != "token-encoding" {
        return json!({"id": id, "crash": {"message": "not a token-encoding run request", "detail": ""}});
    }
    match encode(bpe, with_special, &request["input"]) {
        Ok(output) => json!({"id": id, "output": output}),
        Err(message) => json!({"id": id, "crash": {"message": message, "detail": ""}}),
    }
}

fn main() -> io::Result<()> {
    let with_special = std::env::args().any(|a| a == "--with-special-tokens");
    let bpe = tiktoken_rs::o200k_base().map_err(io::Error::other)?;
    let stdout = io::stdout();
    for line in io::stdin().lock().lines() {
        let line = line?;
        let reply = match serde_json::from_str::<Value>(&line) {
            Ok(request) if request["cmd"] == "stop" => break,
            Ok(request) => answer(&bpe, with_special, &request),
            Err(e) => json!({"id": "", "crash": {"message": e.to_string(), "detail": ""}}),
        };
        let mut out = stdout.lock();
        writeln!(out, "{reply}")?;
        out.flush()?;
    }
    Ok(())
}
