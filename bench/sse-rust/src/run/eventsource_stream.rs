//! eventsource-stream 0.2.3, driven synchronously with `futures::executor::block_on`
//! over `futures::stream::iter` of the byte chunks (it decodes UTF-8 itself).

use std::convert::Infallible;

use eventsource_stream::Eventsource;
use futures::executor::block_on;
use futures::stream::{self, StreamExt};

use crate::cell::{Counts, DataSize};

pub fn parse(chunks: &[&[u8]], size: DataSize) -> Result<Counts, String> {
    let events = stream::iter(chunks.iter().map(|c| Ok::<&[u8], Infallible>(c))).eventsource();
    block_on(
        events.fold(Ok(Counts { frames: 0, data: 0 }), |acc, event| async move {
            let mut counts = acc?;
            let event = event.map_err(|e| e.to_string())?;
            counts.frames += 1;
            counts.data += size(&event.data);
            Ok(counts)
        }),
    )
}
