//! eventsource-stream in one cell of `bench/sse_cells.py` (see `cell.rs`).

#[path = "../cell.rs"]
mod cell;
#[path = "../run/eventsource_stream.rs"]
mod eventsource_stream;

fn main() -> std::process::ExitCode {
    cell::main(&[("eventsource-stream", eventsource_stream::parse)])
}
