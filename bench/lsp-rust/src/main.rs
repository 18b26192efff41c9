//! Times position -> offset and offset -> position on one document with hanzo-lsp and
//! with line-index 0.1.2; prints one JSON line (bench/lsp_positions.py reads it).
//!
//! Input (argv[1], a directory): `doc.txt`, `positions.txt` (`line character` in UTF-16
//! units, one a line) and `offsets.txt` (`utf8 utf16 utf32` offsets of one boundary a line).

use std::hint::black_box;
use std::time::Instant;

use hanzo_lsp::{Encoding, Position, TextDocument};
use line_index::{LineIndex, TextSize, WideEncoding, WideLineCol};

fn pairs(text: &str) -> Vec<Vec<u32>> {
    text.lines()
        .map(|l| l.split(' ').map(|n| n.parse().expect("a number")).collect())
        .collect()
}

fn per_op_ns(start: Instant, ops: usize) -> f64 {
    start.elapsed().as_secs_f64() * 1e9 / ops as f64
}

fn main() {
    let dir = std::env::args().nth(1).expect("a directory");
    let read = |name: &str| std::fs::read_to_string(format!("{dir}/{name}")).expect(name);
    let doc = read("doc.txt");
    let positions = pairs(&read("positions.txt"));
    let offsets = pairs(&read("offsets.txt"));
    let rounds = 5;

    let start = Instant::now();
    let ours = TextDocument::new(doc.clone(), Encoding::Utf16);
    // its per-line unit starts are made on first use: count them in the build
    black_box(ours.offset_at(Position::new(0, 0), Encoding::Utf8));
    black_box(ours.position_at(0, Encoding::Utf8));
    let ours_build = start.elapsed().as_secs_f64() * 1e3;
    let start = Instant::now();
    let theirs = LineIndex::new(&doc);
    let theirs_build = start.elapsed().as_secs_f64() * 1e3;

    let mut sum = 0usize;
    let start = Instant::now();
    for _ in 0..rounds {
        for p in &positions {
            sum += ours.offset_at(Position::new(p[0], p[1]), Encoding::Utf8);
        }
    }
    let ours_to_offset = per_op_ns(start, rounds * positions.len());
    let start = Instant::now();
    for _ in 0..rounds {
        for p in &positions {
            let wide = WideLineCol {
                line: p[0],
                col: p[1],
            };
            let at = theirs
                .to_utf8(WideEncoding::Utf16, wide)
                .and_then(|lc| theirs.offset(lc));
            sum += at.map_or(0, |o| u32::from(o) as usize);
        }
    }
    let theirs_to_offset = per_op_ns(start, rounds * positions.len());

    let start = Instant::now();
    for _ in 0..rounds {
        for o in &offsets {
            sum += ours.position_at(o[0] as usize, Encoding::Utf8).character as usize;
        }
    }
    let ours_to_position = per_op_ns(start, rounds * offsets.len());
    let start = Instant::now();
    for _ in 0..rounds {
        for o in &offsets {
            let at = theirs
                .try_line_col(TextSize::from(o[0]))
                .and_then(|lc| theirs.to_wide(WideEncoding::Utf16, lc));
            sum += at.map_or(0, |w| w.col as usize);
        }
    }
    let theirs_to_position = per_op_ns(start, rounds * offsets.len());
    println!(
        "{{\"ours_build_ms\": {ours_build}, \"theirs_build_ms\": {theirs_build}, \
         \"ours_to_offset_ns\": {ours_to_offset}, \"theirs_to_offset_ns\": {theirs_to_offset}, \
         \"ours_to_position_ns\": {ours_to_position}, \"theirs_to_position_ns\": {theirs_to_position}, \
         \"sum\": {sum}}}"
    );
}
