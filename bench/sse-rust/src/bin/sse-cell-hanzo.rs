//! `hanzo-sse` in one cell of `bench/sse_cells.py` (see `cell.rs`): `hanzo` through
//! its plain `feed`, as a caller of `feed(bytes)` pays it, or `hanzo-feed-into`
//! through `feed_into` with one drained `Vec`.

#[path = "../cell.rs"]
mod cell;

use std::process::ExitCode;

use cell::{Counts, DataSize};
use hanzo_sse::SseFrameBuffer;

#[allow(clippy::unnecessary_wraps)] // the signature of `cell::Run`
fn feed(chunks: &[&[u8]], size: DataSize) -> Result<Counts, String> {
    let mut parser = SseFrameBuffer::new();
    let mut counts = Counts { frames: 0, data: 0 };
    for chunk in chunks {
        for frame in parser.feed(chunk) {
            counts.frames += 1;
            counts.data += size(&frame.data);
        }
    }
    Ok(counts)
}

#[allow(clippy::unnecessary_wraps)] // the signature of `cell::Run`
fn feed_into(chunks: &[&[u8]], size: DataSize) -> Result<Counts, String> {
    let mut parser = SseFrameBuffer::new();
    let mut counts = Counts { frames: 0, data: 0 };
    let mut frames = Vec::new();
    for chunk in chunks {
        parser.feed_into(chunk, &mut frames);
        for frame in frames.drain(..) {
            counts.frames += 1;
            counts.data += size(&frame.data);
        }
    }
    Ok(counts)
}

fn main() -> ExitCode {
    cell::main(&[("hanzo", feed), ("hanzo-feed-into", feed_into)])
}
