//! A docs/protocol.md worker around rmcp 3.11.0 (the official MCP Rust SDK) for the
//! mcp-stdio domain.
//!
//! `decode` runs each case through rmcp's own stdio transport, `AsyncRwTransport`
//! (what `TokioChildProcess` and `stdio()` wrap): its reader is an `AsyncRead` that
//! yields exactly the case's chunks (then end of file when `eof` is true, else stays
//! pending), its writer records what the transport writes back. Every message
//! `receive()` returns is serialized back to JSON and mapped to the contract's shape;
//! nothing is corrected. rmcp reports nothing for a line it drops, so dropped lines
//! are absent from `messages` (STDIO-8c reports them). The other operations are
//! answered `skip`: `send` takes typed `ClientRequest`s, the server's environment is
//! the caller's `tokio::process::Command`, and the lifecycle is `ServiceExt::serve`'s.
use std::collections::VecDeque;
use std::io::{BufRead, Write};
use std::pin::Pin;
use std::sync::{Arc, Mutex};
use std::task::{Context, Poll};

use rmcp::service::RoleClient;
use rmcp::transport::async_rw::AsyncRwTransport;
use rmcp::transport::Transport;
use serde_json::{json, Map, Value};
use tokio::io::{AsyncRead, AsyncWrite, ReadBuf};
use tokio::sync::Notify;

struct Replay {
    chunks: VecDeque<Vec<u8>>,
    eof: bool,
    drained: Arc<Notify>,
}

impl AsyncRead for Replay {
    fn poll_read(
        mut self: Pin<&mut Self>,
        _: &mut Context<'_>,
        buf: &mut ReadBuf<'_>,
    ) -> Poll<std::io::Result<()>> {
        let Some(chunk) = self.chunks.front_mut() else {
            self.drained.notify_one();
            // End of file is a zero-byte read; an open stream stays pending.
            return if self.eof {
                Poll::Ready(Ok(()))
            } else {
                Poll::Pending
            };
        };
        let n = chunk.len().min(buf.remaining());
        buf.put_slice(&chunk[..n]);
        chunk.drain(..n);
        if chunk.is_empty() {
            self.chunks.pop_front();
        }
        Poll::Ready(Ok(()))
    }
}

#[derive(Clone, Default)]
struct Recorder(Arc<Mutex<Vec<u8>>>);

impl AsyncWrite for Recorder {
    fn poll_write(
        self: Pin<&mut Self>,
        _: &mut Context<'_>,
        buf: &[u8],
    ) -> Poll<std::io::Result<usize>> {
        self.0.lock().unwrap().extend_from_slice(buf);
        Poll::Ready(Ok(buf.len()))
    }
    fn poll_flush(self: Pin<&mut Self>, _: &mut Context<'_>) -> Poll<std::io::Result<()>> {
        Poll::Ready(Ok(()))
    }
    fn poll_shutdown(self: Pin<&mut Self>, _: &mut Context<'_>) -> Poll<std::io::Result<()>> {
        Poll::Ready(Ok(()))
    }
}

fn chunk_bytes(input: &Value) -> Vec<Vec<u8>> {
    let bytes = input.get("encoding").and_then(Value::as_str) == Some("bytes");
    input["chunks"]
        .as_array()
        .map(|chunks| {
            chunks
                .iter()
                .filter_map(Value::as_str)
                .map(|c| {
                    if bytes {
                        c.chars().map(|ch| ch as u32 as u8).collect()
                    } else {
                        c.as_bytes().to_vec()
                    }
                })
                .filter(|c: &Vec<u8>| !c.is_empty()) // a pipe never reads zero bytes
                .collect()
        })
        .unwrap_or_default()
}

fn message(raw: Value) -> Value {
    let Value::Object(mut m) = raw else {
        return json!({"type": "invalid", "reason": "not_an_object"});
    };
    let mut out = Map::new();
    if let Some(method) = m.remove("method") {
        if let Some(id) = m.remove("id") {
            out.insert("type".into(), "request".into());
            out.insert("id".into(), id);
        } else {
            out.insert("type".into(), "notification".into());
        }
        out.insert("method".into(), method);
        if let Some(params) = m.remove("params") {
            out.insert("params".into(), params);
        }
    } else if let Some(Value::Object(mut error)) = m.remove("error") {
        let mut reported = Map::new();
        for key in ["code", "message", "data"] {
            if let Some(v) = error.remove(key) {
                reported.insert(key.into(), v);
            }
        }
        out.insert("type".into(), "error".into());
        out.insert("id".into(), m.remove("id").unwrap_or(Value::Null));
        out.insert("error".into(), Value::Object(reported));
    } else {
        out.insert("type".into(), "response".into());
        out.insert("id".into(), m.remove("id").unwrap_or(Value::Null));
        out.insert("result".into(), m.remove("result").unwrap_or(Value::Null));
    }
    Value::Object(out)
}

async fn decode(input: &Value) -> Value {
    let drained = Arc::new(Notify::new());
    let reader = Replay {
        chunks: chunk_bytes(input).into(),
        eof: input.get("eof").and_then(Value::as_bool) == Some(true),
        drained: drained.clone(),
    };
    let recorder = Recorder::default();
    let mut transport = AsyncRwTransport::<RoleClient, _, _>::new(reader, recorder.clone());
    let mut messages = Vec::new();
    loop {
        tokio::select! {
            biased;
            received = Transport::<RoleClient>::receive(&mut transport) => match received {
                Some(m) => messages.push(message(serde_json::to_value(m).unwrap_or(Value::Null))),
                None => break,
            },
            () = drained.notified() => {
                if input.get("eof").and_then(Value::as_bool) != Some(true) {
                    break;
                }
            }
        }
    }
    let written = recorder.0.lock().unwrap().clone();
    let writes: Vec<Value> = String::from_utf8_lossy(&written)
        .lines()
        .filter(|l| !l.is_empty())
        .map(|l| serde_json::from_str(l).unwrap_or(Value::String(l.to_owned())))
        .collect();
    json!({"messages": messages, "writes": writes})
}

fn answer(runtime: &tokio::runtime::Runtime, request: &Value) -> Value {
    if request["cmd"] == "start" {
        return json!({"ok": true, "implementation": {
            "name": "rmcp", "version": "3.11.0", "language": "rust", "domains": ["mcp-stdio"]}});
    }
    let id = request["id"].clone();
    let input = &request["input"];
    match input["op"].as_str() {
        Some("decode") => json!({"id": id, "output": runtime.block_on(decode(input))}),
        _ => json!({"id": id, "skip": {"reason":
            "rmcp's send takes typed ClientRequests, the server's environment is the caller's tokio Command, and the lifecycle is ServiceExt::serve's; this worker drives AsyncRwTransport::receive"}}),
    }
}

fn main() {
    let runtime = tokio::runtime::Builder::new_current_thread()
        .enable_all()
        .build()
        .expect("a runtime");
    let stdin = std::io::stdin();
    let mut stdout = std::io::stdout();
    for line in stdin.lock().lines() {
        let Ok(line) = line else { break };
        let request: Value = match serde_json::from_str(&line) {
            Ok(v) => v,
            Err(e) => {
                let _ = writeln!(
                    stdout,
                    "{}",
                    json!({"id": "", "crash": {"message": e.to_string(), "detail": ""}})
                );
                continue;
            }
        };
        if request["cmd"] == "stop" {
            break;
        }
        let _ = writeln!(stdout, "{}", answer(&runtime, &request));
        let _ = stdout.flush();
    }
}
