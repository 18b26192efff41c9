//! `hanzo-sse`, driven two ways.

use hanzo_sse::SseFrameBuffer;

use crate::cell::{Counts, DataSize};

/// Through its plain `feed`, as a caller of `feed(bytes)` pays it.
#[allow(clippy::unnecessary_wraps)] // the signature of `cell::Run`
pub fn feed(chunks: &[&[u8]], size: DataSize) -> Result<Counts, String> {
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

/// Through `feed_into` with one drained `Vec`.
#[allow(clippy::unnecessary_wraps)] // the signature of `cell::Run`
pub fn feed_into(chunks: &[&[u8]], size: DataSize) -> Result<Counts, String> {
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
