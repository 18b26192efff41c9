//! The Rust half of `bench/stream_assembly.py`: `hanzo_sse` then [`hanzo_stream`] on the
//! bodies it wrote (16 KiB chunks); prints `{workload: {"rust-ours": seconds}}`, medians.
//!
//!     cargo run --release -p hanzo-stream --example assemble_bench -- DIR REPEAT

use std::time::Instant;

use hanzo_sse::SseFrameBuffer;
use hanzo_stream::{Dialect, StreamAssembler, StreamEvent};

const CHUNK: usize = 16384;

fn assemble(dialect: Dialect, body: &[u8]) -> usize {
    let mut frames = SseFrameBuffer::new();
    let mut assembler = StreamAssembler::new(dialect);
    let mut calls = 0;
    for chunk in body.chunks(CHUNK) {
        for frame in frames.feed(chunk) {
            let events = assembler.feed(frame.event.as_deref(), &frame.data);
            calls += events
                .iter()
                .filter(|e| matches!(e, StreamEvent::ToolUse(_)))
                .count();
        }
    }
    assembler.end();
    calls
}

fn main() {
    let mut args = std::env::args().skip(1);
    let dir = args.next().expect("DIR");
    let repeat: usize = args.next().and_then(|r| r.parse().ok()).unwrap_or(5);
    let mut out = Vec::new();
    for (name, dialect) in [
        ("openai-text", Dialect::OpenAiChat),
        ("openai-tools", Dialect::OpenAiChat),
        ("anthropic-text", Dialect::Anthropic),
        ("anthropic-tools", Dialect::Anthropic),
    ] {
        let body = std::fs::read(format!("{dir}/{name}.sse")).expect("the workload's body");
        let mut times: Vec<f64> = (0..repeat)
            .map(|_| {
                let start = Instant::now();
                std::hint::black_box(assemble(dialect, &body));
                start.elapsed().as_secs_f64()
            })
            .collect();
        times.sort_by(f64::total_cmp);
        out.push(format!(
            "\"{name}\": {{\"rust-ours\": {}}}",
            times[times.len() / 2]
        ));
    }
    println!("{{{}}}", out.join(", "));
}
