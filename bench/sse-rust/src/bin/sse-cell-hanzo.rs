//! `hanzo-sse` in one cell of `bench/sse_cells.py` (see `cell.rs`): `hanzo` through
//! its plain `feed`, `hanzo-feed-into` through `feed_into`.

#[path = "../cell.rs"]
mod cell;
#[path = "../run/hanzo.rs"]
mod hanzo;

fn main() -> std::process::ExitCode {
    cell::main(&[
        ("hanzo", hanzo::feed),
        ("hanzo-feed-into", hanzo::feed_into),
    ])
}
