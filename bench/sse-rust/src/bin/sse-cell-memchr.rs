//! The line-scan limit in one cell of `bench/sse_cells.py` (see `cell.rs`).

#[path = "../cell.rs"]
mod cell;
#[path = "../run/memchr_lf.rs"]
mod memchr_lf;

fn main() -> std::process::ExitCode {
    cell::main(&[("scan", memchr_lf::scan)])
}
