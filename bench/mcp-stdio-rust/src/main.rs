//! `mcp-stdio-rust-bench STREAM_FILE REPEAT`: hanzo-mcp-stdio's `StdioMessageDecoder`
//! against rmcp 3.11.0's `AsyncRwTransport::receive` (its stdio transport) on the same
//! bytes, read in 64 KiB chunks; prints the medians (seconds) as JSON.
use std::pin::Pin;
use std::task::{Context, Poll};
use std::time::Instant;

use hanzo_mcp_stdio::StdioMessageDecoder;
use rmcp::service::RoleClient;
use rmcp::transport::async_rw::AsyncRwTransport;
use rmcp::transport::Transport;
use tokio::io::{AsyncRead, AsyncWrite, ReadBuf};

struct Chunks<'a> {
    data: &'a [u8],
}

impl AsyncRead for Chunks<'_> {
    fn poll_read(
        mut self: Pin<&mut Self>,
        _: &mut Context<'_>,
        buf: &mut ReadBuf<'_>,
    ) -> Poll<std::io::Result<()>> {
        let n = self.data.len().min(buf.remaining()).min(65536);
        buf.put_slice(&self.data[..n]);
        self.data = &self.data[n..];
        Poll::Ready(Ok(()))
    }
}

struct Sink;

impl AsyncWrite for Sink {
    fn poll_write(
        self: Pin<&mut Self>,
        _: &mut Context<'_>,
        b: &[u8],
    ) -> Poll<std::io::Result<usize>> {
        Poll::Ready(Ok(b.len()))
    }
    fn poll_flush(self: Pin<&mut Self>, _: &mut Context<'_>) -> Poll<std::io::Result<()>> {
        Poll::Ready(Ok(()))
    }
    fn poll_shutdown(self: Pin<&mut Self>, _: &mut Context<'_>) -> Poll<std::io::Result<()>> {
        Poll::Ready(Ok(()))
    }
}

fn ours(data: &[u8]) -> usize {
    let mut decoder = StdioMessageDecoder::default();
    let mut n = 0;
    for chunk in data.chunks(65536) {
        n += decoder.feed(chunk).len();
    }
    n + decoder.close().len()
}

fn rmcp(runtime: &tokio::runtime::Runtime, data: &'static [u8]) -> usize {
    runtime.block_on(async {
        let mut transport = AsyncRwTransport::<RoleClient, _, _>::new(Chunks { data }, Sink);
        let mut n = 0;
        while Transport::<RoleClient>::receive(&mut transport)
            .await
            .is_some()
        {
            n += 1;
        }
        n
    })
}

fn median(mut xs: Vec<f64>) -> f64 {
    xs.sort_by(f64::total_cmp);
    xs[xs.len() / 2]
}

fn main() {
    let args: Vec<String> = std::env::args().collect();
    // 'static, as the transport's reader must be: leaked once, outside the timing.
    let data: &'static [u8] = Box::leak(
        std::fs::read(&args[1])
            .expect("the stream file")
            .into_boxed_slice(),
    );
    let repeat: usize = args[2].parse().expect("a repeat count");
    let runtime = tokio::runtime::Builder::new_current_thread()
        .build()
        .expect("a runtime");
    let count = ours(data);
    assert_eq!(count, rmcp(&runtime, data), "message counts differ");
    let (mut t_ours, mut t_rmcp) = (Vec::new(), Vec::new());
    for _ in 0..repeat {
        let start = Instant::now();
        ours(data);
        t_ours.push(start.elapsed().as_secs_f64());
        let start = Instant::now();
        rmcp(&runtime, data);
        t_rmcp.push(start.elapsed().as_secs_f64());
    }
    println!(
        "{{\"ours\":{},\"sdk\":{},\"messages\":{count}}}",
        median(t_ours),
        median(t_rmcp)
    );
}
