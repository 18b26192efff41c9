//! One pass over a chunk that finds its line endings and whether it is UTF-8,
//! and the list of where its lines end (with three functions of lib.rs, the
//! crate's only unsafe code: SIMD loads and UTF-8 validation on `x86_64`, AVX2
//! where the CPU has it and SSE2, always present, where not; `popcnt` and
//! `bmi1` for the list where the CPU has them; other targets use the portable
//! loops and `simdutf8`).
//!
//! Why a pass of its own rather than `memchr`: a search for CR and LF set up
//! again for every line costs more per line than the line's bytes on short
//! lines and short chunks, and streams without CR needed a second pass to
//! know that. One compare per byte into a bit mask serves every mix of
//! endings and every chunk size, and the mask's set bits are the lines.
#![allow(unsafe_code)]

/// Bytes per mask.
const LANES: usize = 64;

/// Fill `ends` with the line endings of `bytes`, one mask per [`LANES`] bytes
/// (bit `i` of mask `k` is set iff byte `64k + i` is a CR, or an LF that does
/// not follow a CR: the LF of a CRLF ends no line of its own), and return
/// whether `bytes` is UTF-8.
///
/// A short chunk on a CPU with AVX2 is validated in the same pass
/// ([`scan_checked_avx2`]); anything else from its first non-ASCII byte on,
/// by `simdutf8`, after the pass. On chunks of a few hundred bytes a second
/// pass cost more than the validation itself (`bench/README.md`, session 21).
pub(crate) fn scan(bytes: &[u8], ends: &mut Vec<u64>) -> bool {
    #[cfg(target_arch = "x86_64")]
    if bytes.len() < WIDE_MIN && std::is_x86_feature_detected!("avx2") {
        ends.clear();
        ends.reserve(bytes.len().div_ceil(LANES));
        // SAFETY: the CPU has AVX2, just checked.
        return unsafe { scan_checked_avx2(bytes, ends) };
    }
    let first_high = scan_lines(bytes, ends);
    valid_from(bytes, first_high)
}

/// Whether `bytes` is UTF-8, given where its first non-ASCII byte is
/// (`None`: all ASCII, nothing to validate).
fn valid_from(bytes: &[u8], first_high: Option<usize>) -> bool {
    first_high.map_or(true, |at| {
        // From a whole number of the validator's 64-byte blocks before the end
        // (ASCII bytes before `at` change nothing): a remainder costs it a copy
        // and more branches than the extra block.
        let span = (bytes.len() - at).next_multiple_of(64);
        simdutf8::basic::from_utf8(&bytes[bytes.len().saturating_sub(span)..]).is_ok()
    })
}

/// [`scan`]'s line endings, and where the first non-ASCII byte of `bytes` is.
fn scan_lines(bytes: &[u8], ends: &mut Vec<u64>) -> Option<usize> {
    ends.clear();
    ends.reserve(bytes.len().div_ceil(LANES));
    #[cfg(target_arch = "x86_64")]
    if std::is_x86_feature_detected!("avx2") {
        // SAFETY: the CPU has AVX2, just checked.
        return unsafe { scan_avx2(bytes, ends) };
    }
    scan_blocks(bytes, ends, 0, true, block_masks)
}

/// [`scan_lines`] with AVX2's 32-byte compares: a long chunk 256 bytes per call of
/// [`wide_masks`], the rest (and a short chunk) 64 bytes at a time.
#[cfg(target_arch = "x86_64")]
#[target_feature(enable = "avx2")]
unsafe fn scan_avx2(bytes: &[u8], ends: &mut Vec<u64>) -> Option<usize> {
    // SAFETY (of each call): this function runs only where the CPU has AVX2.
    let masks = |block: &[u8; LANES], want_high| unsafe { avx2_block_masks(block, want_high) };
    if bytes.len() < WIDE_MIN {
        return scan_blocks(bytes, ends, 0, true, masks);
    }
    let whole = bytes.len() / WIDE * WIDE;
    let mut first_high = None;
    let mut after_cr = 0;
    for (base, piece) in (0..).step_by(WIDE).zip(bytes[..whole].chunks_exact(WIDE)) {
        let piece: &[u8; WIDE] = piece.try_into().unwrap_or(&[0; WIDE]);
        let mut masks = [0; WIDE / LANES];
        let high = wide_masks(piece, &mut masks, &mut after_cr, first_high.is_none());
        ends.extend_from_slice(&masks);
        first_high = first_high.or(high.map(|at| base + at));
    }
    let rest_high = scan_blocks(&bytes[whole..], ends, after_cr, first_high.is_none(), masks);
    first_high.or(rest_high.map(|at| whole + at))
}

/// [`scan`] of a chunk shorter than [`WIDE_MIN`] with AVX2, validating it as
/// UTF-8 in the same pass: 64 bytes at a time, each block's line endings
/// from two 32-byte halves and the halves checked by [`Utf8Check`].
#[cfg(target_arch = "x86_64")]
#[target_feature(enable = "avx2")]
// `_mm256_loadu_si256` reads unaligned memory; a mask of 32 bytes has 32 bits.
#[allow(clippy::cast_ptr_alignment, clippy::cast_sign_loss)]
unsafe fn scan_checked_avx2(bytes: &[u8], ends: &mut Vec<u64>) -> bool {
    use std::arch::x86_64::{
        __m256i, _mm256_cmpeq_epi8, _mm256_loadu_si256, _mm256_movemask_epi8, _mm256_or_si256,
        _mm256_set1_epi8,
    };
    let lf = _mm256_set1_epi8(0x0A);
    let cr = _mm256_set1_epi8(0x0D);
    let bits = |half| u64::from(_mm256_movemask_epi8(half) as u32);
    let endings = |low, high, after_cr: &mut u64| {
        let cr_bits = bits(_mm256_cmpeq_epi8(low, cr)) | bits(_mm256_cmpeq_epi8(high, cr)) << 32;
        let lf_bits = bits(_mm256_cmpeq_epi8(low, lf)) | bits(_mm256_cmpeq_epi8(high, lf)) << 32;
        line_ends(cr_bits, lf_bits, after_cr)
    };
    // SAFETY (of each load): the 32 bytes it reads are in `bytes` (or `last`),
    // as each says.
    let load = |at: *const u8| unsafe { _mm256_loadu_si256(at.cast::<__m256i>()) };
    let mut utf8 = Utf8Check::new();
    let mut after_cr = 0;
    let mut blocks = bytes.chunks_exact(LANES);
    for block in blocks.by_ref() {
        // Bytes 0..32 and 32..64 of a 64-byte block.
        let (low, high) = (load(block.as_ptr()), load(block[32..].as_ptr()));
        ends.push(endings(low, high, &mut after_cr));
        utf8.check(low);
        utf8.check(high);
    }
    let rest = blocks.remainder().len();
    if rest > 0 {
        if let Some(at) = bytes.len().checked_sub(LANES) {
            // As in `scan_blocks`: the last 64 bytes, overlapping the block
            // before, their masks shifted down to the bytes not seen yet. The
            // halves are checked again from the 32 bytes before them, the
            // bytes they follow (a byte checked twice is checked the same way).
            let (low, high) = (load(bytes[at..].as_ptr()), load(bytes[at + 32..].as_ptr()));
            ends.push(endings(low, high, &mut 0) >> (LANES - rest));
            if rest > 32 {
                // Then the chunk has at least 64 + 33 bytes: 32 of them before `at`.
                utf8.follow(load(bytes[at - 32..].as_ptr()));
                utf8.check(low);
            } else {
                utf8.follow(low);
            }
            utf8.check(high);
        } else {
            // Shorter than a block: copied into zeros, which are ASCII, so a
            // sequence cut by the end is too short.
            let mut last = [0; LANES];
            last[..rest].copy_from_slice(bytes);
            let (low, high) = (load(last.as_ptr()), load(last[32..].as_ptr()));
            ends.push(endings(low, high, &mut after_cr));
            // Most often a chunk of a few ASCII characters (one character
            // at a time, whose line endings come here): no check needed.
            if bits(_mm256_or_si256(low, high)) != 0 {
                utf8.check(low);
                utf8.check(high);
            }
        }
    }
    utf8.is_valid()
}

/// UTF-8 validation 32 bytes at a time, each checked with the three bytes
/// before it (the lookup algorithm of Keiser and Lemire, "Validating UTF-8 in
/// less than one instruction per byte", 2021, as simdjson and `simdutf8` have
/// it): a byte's error bits come from tables indexed by the nibbles of it and
/// the byte before, and the two bytes before that say whether it must be a
/// continuation byte.
#[cfg(target_arch = "x86_64")]
struct Utf8Check {
    /// The 32 bytes before the next ones checked (zeros, ASCII, at the start).
    prev: std::arch::x86_64::__m256i,
    /// The error bits of every byte checked so far, together.
    errors: std::arch::x86_64::__m256i,
}

#[cfg(target_arch = "x86_64")]
impl Utf8Check {
    /// Error bits of a byte and the one before it (the tables' names).
    const TOO_SHORT: u8 = 1;
    const TOO_LONG: u8 = 1 << 1;
    const OVERLONG_3: u8 = 1 << 2;
    const TOO_LARGE: u8 = 1 << 3;
    const SURROGATE: u8 = 1 << 4;
    const OVERLONG_2: u8 = 1 << 5;
    const TOO_LARGE_1000: u8 = 1 << 6;
    const OVERLONG_4: u8 = 1 << 6;
    const TWO_CONTS: u8 = 1 << 7;
    const CARRY: u8 = union(&[Self::TOO_SHORT, Self::TOO_LONG, Self::TWO_CONTS]);

    /// Indexed by the high nibble of the byte before.
    const BYTE_1_HIGH: [u8; 16] = [
        Self::TOO_LONG,
        Self::TOO_LONG,
        Self::TOO_LONG,
        Self::TOO_LONG,
        Self::TOO_LONG,
        Self::TOO_LONG,
        Self::TOO_LONG,
        Self::TOO_LONG,
        Self::TWO_CONTS,
        Self::TWO_CONTS,
        Self::TWO_CONTS,
        Self::TWO_CONTS,
        union(&[Self::TOO_SHORT, Self::OVERLONG_2]),
        Self::TOO_SHORT,
        union(&[Self::TOO_SHORT, Self::OVERLONG_3, Self::SURROGATE]),
        union(&[
            Self::TOO_SHORT,
            Self::TOO_LARGE,
            Self::TOO_LARGE_1000,
            Self::OVERLONG_4,
        ]),
    ];

    /// Indexed by the low nibble of the byte before.
    const BYTE_1_LOW: [u8; 16] = [
        union(&[
            Self::CARRY,
            Self::OVERLONG_3,
            Self::OVERLONG_2,
            Self::OVERLONG_4,
        ]),
        union(&[Self::CARRY, Self::OVERLONG_2]),
        Self::CARRY,
        Self::CARRY,
        union(&[Self::CARRY, Self::TOO_LARGE]),
        union(&[Self::CARRY, Self::TOO_LARGE, Self::TOO_LARGE_1000]),
        union(&[Self::CARRY, Self::TOO_LARGE, Self::TOO_LARGE_1000]),
        union(&[Self::CARRY, Self::TOO_LARGE, Self::TOO_LARGE_1000]),
        union(&[Self::CARRY, Self::TOO_LARGE, Self::TOO_LARGE_1000]),
        union(&[Self::CARRY, Self::TOO_LARGE, Self::TOO_LARGE_1000]),
        union(&[Self::CARRY, Self::TOO_LARGE, Self::TOO_LARGE_1000]),
        union(&[Self::CARRY, Self::TOO_LARGE, Self::TOO_LARGE_1000]),
        union(&[Self::CARRY, Self::TOO_LARGE, Self::TOO_LARGE_1000]),
        union(&[
            Self::CARRY,
            Self::TOO_LARGE,
            Self::TOO_LARGE_1000,
            Self::SURROGATE,
        ]),
        union(&[Self::CARRY, Self::TOO_LARGE, Self::TOO_LARGE_1000]),
        union(&[Self::CARRY, Self::TOO_LARGE, Self::TOO_LARGE_1000]),
    ];

    /// Indexed by the high nibble of the byte.
    const BYTE_2_HIGH: [u8; 16] = [
        Self::TOO_SHORT,
        Self::TOO_SHORT,
        Self::TOO_SHORT,
        Self::TOO_SHORT,
        Self::TOO_SHORT,
        Self::TOO_SHORT,
        Self::TOO_SHORT,
        Self::TOO_SHORT,
        union(&[
            Self::TOO_LONG,
            Self::OVERLONG_2,
            Self::TWO_CONTS,
            Self::OVERLONG_3,
            Self::TOO_LARGE_1000,
            Self::OVERLONG_4,
        ]),
        union(&[
            Self::TOO_LONG,
            Self::OVERLONG_2,
            Self::TWO_CONTS,
            Self::OVERLONG_3,
            Self::TOO_LARGE,
        ]),
        union(&[
            Self::TOO_LONG,
            Self::OVERLONG_2,
            Self::TWO_CONTS,
            Self::SURROGATE,
            Self::TOO_LARGE,
        ]),
        union(&[
            Self::TOO_LONG,
            Self::OVERLONG_2,
            Self::TWO_CONTS,
            Self::SURROGATE,
            Self::TOO_LARGE,
        ]),
        Self::TOO_SHORT,
        Self::TOO_SHORT,
        Self::TOO_SHORT,
        Self::TOO_SHORT,
    ];

    /// Nothing checked yet, nothing before.
    #[target_feature(enable = "avx2")]
    #[inline]
    unsafe fn new() -> Self {
        use std::arch::x86_64::_mm256_setzero_si256;
        Self {
            prev: _mm256_setzero_si256(),
            errors: _mm256_setzero_si256(),
        }
    }

    /// Make `bytes` the 32 bytes before the next ones checked.
    #[inline]
    fn follow(&mut self, bytes: std::arch::x86_64::__m256i) {
        self.prev = bytes;
    }

    /// Check the 32 bytes that follow the last ones checked (or followed).
    #[target_feature(enable = "avx2")]
    #[inline]
    unsafe fn check(&mut self, input: std::arch::x86_64::__m256i) {
        use std::arch::x86_64::{
            _mm256_alignr_epi8, _mm256_and_si256, _mm256_or_si256, _mm256_permute2x128_si256,
            _mm256_set1_epi8, _mm256_shuffle_epi8, _mm256_srli_epi16, _mm256_subs_epu8,
            _mm256_xor_si256,
        };
        // The bytes one, two and three before each: lane-wise shifts of the
        // input and the 16 bytes before it.
        let before = _mm256_permute2x128_si256(self.prev, input, 0x21);
        let prev1 = _mm256_alignr_epi8(input, before, 15);
        let prev2 = _mm256_alignr_epi8(input, before, 14);
        let prev3 = _mm256_alignr_epi8(input, before, 13);
        let nibble = _mm256_set1_epi8(0x0F);
        let high_nibble = |v| _mm256_and_si256(_mm256_srli_epi16(v, 4), nibble);
        let special = _mm256_and_si256(
            _mm256_and_si256(
                _mm256_shuffle_epi8(table(Self::BYTE_1_HIGH), high_nibble(prev1)),
                _mm256_shuffle_epi8(table(Self::BYTE_1_LOW), _mm256_and_si256(prev1, nibble)),
            ),
            _mm256_shuffle_epi8(table(Self::BYTE_2_HIGH), high_nibble(input)),
        );
        // Bit 7 set iff two bytes before is a 3- or 4-byte lead, or three
        // before a 4-byte lead: then this byte must continue it, which is
        // exactly when the tables (TWO_CONTS) say it is a second continuation.
        let must_continue = _mm256_and_si256(
            _mm256_or_si256(
                _mm256_subs_epu8(prev2, _mm256_set1_epi8(0x60)),
                _mm256_subs_epu8(prev3, _mm256_set1_epi8(0x70)),
            ),
            _mm256_set1_epi8(i8::MIN),
        );
        self.errors = _mm256_or_si256(self.errors, _mm256_xor_si256(must_continue, special));
        self.prev = input;
    }

    /// Whether every byte checked is UTF-8, the last ones ending a character
    /// (a lead byte in the last three that more bytes would have to follow is
    /// an error here).
    #[target_feature(enable = "avx2")]
    #[inline]
    unsafe fn is_valid(&self) -> bool {
        use std::arch::x86_64::{_mm256_or_si256, _mm256_subs_epu8, _mm256_testz_si256};
        let mut last = [u8::MAX; 32];
        last[29..].copy_from_slice(&[0xF0 - 1, 0xE0 - 1, 0xC0 - 1]);
        let incomplete = _mm256_subs_epu8(self.prev, table_of(last));
        _mm256_testz_si256(
            _mm256_or_si256(self.errors, incomplete),
            _mm256_or_si256(self.errors, incomplete),
        ) == 1
    }
}

/// The error bits of all of `kinds` (each entry of [`Utf8Check`]'s tables
/// lists its kinds; two of them share a bit).
#[cfg(target_arch = "x86_64")]
const fn union(kinds: &[u8]) -> u8 {
    let mut bits = 0;
    let mut k = 0;
    while k < kinds.len() {
        bits |= kinds[k];
        k += 1;
    }
    bits
}

/// A 16-entry table in both 16-byte lanes, as `_mm256_shuffle_epi8` looks it up.
#[cfg(target_arch = "x86_64")]
#[target_feature(enable = "avx2")]
#[inline]
unsafe fn table(entries: [u8; 16]) -> std::arch::x86_64::__m256i {
    let mut both = [0; 32];
    both[..16].copy_from_slice(&entries);
    both[16..].copy_from_slice(&entries);
    table_of(both)
}

/// 32 bytes in a vector.
#[cfg(target_arch = "x86_64")]
#[target_feature(enable = "avx2")]
#[inline]
#[allow(clippy::cast_ptr_alignment)]
unsafe fn table_of(bytes: [u8; 32]) -> std::arch::x86_64::__m256i {
    use std::arch::x86_64::{__m256i, _mm256_loadu_si256};
    // SAFETY: reads the 32 bytes of `bytes`.
    _mm256_loadu_si256(bytes.as_ptr().cast::<__m256i>())
}

/// The line endings of one block (as in [`scan`]), given its CR and LF
/// masks; `after_cr` is 1 if the byte before the block is a CR, and becomes
/// that for the next block.
#[inline]
fn line_ends(cr: u64, lf: u64, after_cr: &mut u64) -> u64 {
    let ends = cr | lf & !(cr << 1 | *after_cr);
    *after_cr = cr >> (LANES - 1);
    ends
}

/// The positions of the set bits of `ends` (line endings, as [`scan`] fills
/// it), in order: `at[..n]`, where `n` is returned. `at` is only ever grown
/// (its other entries are leftovers), so a chunk pays no fill of it.
///
/// Each mask's first [`UNROLLED`] positions are written whether it has that
/// many or not (the extra ones are overwritten or left past `n`), so that the
/// number of lines in a block, which varies at random, costs no branch.
pub(crate) fn end_positions(ends: &[u64], at: &mut Vec<usize>) -> usize {
    #[cfg(target_arch = "x86_64")]
    if std::is_x86_feature_detected!("popcnt") && std::is_x86_feature_detected!("bmi1") {
        // SAFETY: the CPU has both, just checked.
        return unsafe { end_positions_popcnt(ends, at) };
    }
    end_positions_counted(ends, at)
}

/// [`end_positions`] where the CPU counts a mask's bits in one instruction
/// (and clears its lowest set bit in one).
#[cfg(target_arch = "x86_64")]
#[target_feature(enable = "popcnt,bmi1")]
unsafe fn end_positions_popcnt(ends: &[u64], at: &mut Vec<usize>) -> usize {
    let mut filled = 0;
    for (base, &mask) in (0..).step_by(LANES).zip(ends) {
        if at.len() < filled + LANES + UNROLLED {
            at.resize(filled + LANES + UNROLLED, 0);
        }
        let mut rest = mask;
        for slot in &mut at[filled..filled + UNROLLED] {
            *slot = base + rest.trailing_zeros() as usize;
            rest &= rest.wrapping_sub(1);
        }
        let mut next = filled + UNROLLED;
        while rest != 0 {
            at[next] = base + rest.trailing_zeros() as usize;
            rest &= rest - 1;
            next += 1;
        }
        filled += mask.count_ones() as usize;
    }
    filled
}

/// [`end_positions`] on any CPU: each mask's lines counted as they are
/// written (on baseline `x86_64`, `count_ones` is no single instruction but
/// a dozen).
fn end_positions_counted(ends: &[u64], at: &mut Vec<usize>) -> usize {
    let mut filled = 0;
    for (base, &mask) in (0..).step_by(LANES).zip(ends) {
        if at.len() < filled + LANES + UNROLLED {
            at.resize(filled + LANES + UNROLLED, 0);
        }
        let mut mask = mask;
        let mut next = filled;
        for slot in &mut at[filled..filled + UNROLLED] {
            *slot = base + mask.trailing_zeros() as usize;
            next += usize::from(mask != 0);
            mask &= mask.wrapping_sub(1);
        }
        while mask != 0 {
            at[next] = base + mask.trailing_zeros() as usize;
            mask &= mask - 1;
            next += 1;
        }
        filled = next;
    }
    filled
}

/// How many positions of a mask [`end_positions`] writes without a branch:
/// more lines than this in 64 bytes are rare.
const UNROLLED: usize = 3;

/// [`scan`] one block at a time with `block_masks`, appending to `ends`;
/// `after_cr` is 1 if the byte before `bytes` is a CR; looks for a non-ASCII
/// byte only if `want_high`. Inlined, so that `block_masks` is compiled with
/// the target features of its caller.
// Always: each caller must get its own copy, compiled with its target features.
#[allow(clippy::inline_always)]
#[inline(always)]
fn scan_blocks(
    bytes: &[u8],
    ends: &mut Vec<u64>,
    after_cr: u64,
    want_high: bool,
    block_masks: impl Fn(&[u8; LANES], bool) -> (u64, u64, u64),
) -> Option<usize> {
    let mut first_high = None;
    let mut want_high = want_high;
    let mut after_cr = after_cr;
    let mut blocks = bytes.chunks_exact(LANES);
    let mut base = 0;
    for block in blocks.by_ref() {
        let block: &[u8; LANES] = block.try_into().unwrap_or(&[0; LANES]);
        let (cr, lf, high) = block_masks(block, want_high);
        ends.push(line_ends(cr, lf, &mut after_cr));
        if high != 0 && want_high {
            first_high = Some(base + high.trailing_zeros() as usize);
            want_high = false;
        }
        base += LANES;
    }
    let rest = blocks.remainder().len();
    if rest > 0 {
        // The last block is read as the last 64 bytes (overlapping the one
        // before, which holds the byte before each new one) and its masks
        // shifted down to the bytes not seen yet; a chunk shorter than that is
        // copied into zeros, which are neither line endings nor non-ASCII.
        let (block_ends, high) = if let Some(at) = bytes.len().checked_sub(LANES) {
            let block: &[u8; LANES] = bytes[at..].try_into().unwrap_or(&[0; LANES]);
            let (cr, lf, high) = block_masks(block, want_high);
            let block_ends = line_ends(cr, lf, &mut 0);
            (block_ends >> (LANES - rest), high >> (LANES - rest))
        } else {
            let mut last = [0; LANES];
            last[..rest].copy_from_slice(&bytes[base..]);
            let (cr, lf, high) = block_masks(&last, want_high);
            (line_ends(cr, lf, &mut after_cr), high)
        };
        ends.push(block_ends);
        if high != 0 && want_high {
            first_high = Some(base + high.trailing_zeros() as usize);
        }
    }
    first_high
}

/// Chunks at least this long are scanned with AVX2 where the CPU has it: on
/// long lines the compares are most of the scan's work.
#[cfg(target_arch = "x86_64")]
const WIDE_MIN: usize = 4096;

/// Bytes per call of [`wide_masks`].
#[cfg(target_arch = "x86_64")]
const WIDE: usize = 4 * LANES;

/// The line endings of the four blocks of `piece` (as [`scan`]; `after_cr` as
/// in [`line_ends`]), and where its first non-ASCII byte is (looked for only
/// if `want_high`).
/// Not inlined: inlined into the loop of [`scan`], the compiler spread the
/// masks into single bits.
#[cfg(target_arch = "x86_64")]
#[target_feature(enable = "avx2")]
#[inline(never)]
#[allow(
    clippy::cast_ptr_alignment,
    clippy::cast_possible_truncation,
    clippy::cast_sign_loss
)]
unsafe fn wide_masks(
    piece: &[u8; WIDE],
    masks: &mut [u64; WIDE / LANES],
    after_cr: &mut u64,
    want_high: bool,
) -> Option<usize> {
    use std::arch::x86_64::{
        __m256i, _mm256_cmpeq_epi8, _mm256_loadu_si256, _mm256_movemask_epi8, _mm256_set1_epi8,
    };
    let lf = _mm256_set1_epi8(0x0A);
    let cr = _mm256_set1_epi8(0x0D);
    let at = piece.as_ptr().cast::<__m256i>();
    let mut first_high = None;
    for (k, mask) in masks.iter_mut().enumerate() {
        // SAFETY: the caller has AVX2; these read bytes 64k..64k + 64 of
        // `piece`, which is 256 bytes long.
        let (low, high) = (
            _mm256_loadu_si256(at.add(2 * k)),
            _mm256_loadu_si256(at.add(2 * k + 1)),
        );
        let bits = |half| u64::from(_mm256_movemask_epi8(half) as u32);
        let cr_bits = bits(_mm256_cmpeq_epi8(low, cr)) | bits(_mm256_cmpeq_epi8(high, cr)) << 32;
        let lf_bits = bits(_mm256_cmpeq_epi8(low, lf)) | bits(_mm256_cmpeq_epi8(high, lf)) << 32;
        *mask = line_ends(cr_bits, lf_bits, after_cr);
        if want_high && first_high.is_none() {
            let non_ascii = u64::from(_mm256_movemask_epi8(low) as u32)
                | u64::from(_mm256_movemask_epi8(high) as u32) << 32;
            if non_ascii != 0 {
                first_high = Some(LANES * k + non_ascii.trailing_zeros() as usize);
            }
        }
    }
    first_high
}

/// The masks of one block: bit `i` of the first is set iff `block[i]` is CR,
/// of the second iff it is LF, of the third iff it is not ASCII (0 unless
/// `want_high`, which saves that work once a non-ASCII byte has been found).
#[cfg(target_arch = "x86_64")]
#[inline]
// `_mm_loadu_si128` reads unaligned memory; a mask of 16 bytes has 16 bits.
#[allow(
    clippy::cast_ptr_alignment,
    clippy::cast_possible_truncation,
    clippy::cast_sign_loss
)]
fn block_masks(block: &[u8; LANES], want_high: bool) -> (u64, u64, u64) {
    use std::arch::x86_64::{
        __m128i, _mm_cmpeq_epi8, _mm_loadu_si128, _mm_movemask_epi8, _mm_set1_epi8,
    };
    // SAFETY: SSE2 is part of the x86_64 baseline, so these instructions exist on
    // every x86_64 CPU; the four unaligned loads read bytes 0..64 of `block`,
    // which is 64 bytes long.
    unsafe {
        let at = block.as_ptr().cast::<__m128i>();
        let vectors = [
            _mm_loadu_si128(at),
            _mm_loadu_si128(at.add(1)),
            _mm_loadu_si128(at.add(2)),
            _mm_loadu_si128(at.add(3)),
        ];
        let lf = _mm_set1_epi8(0x0A);
        let cr = _mm_set1_epi8(0x0D);
        let (mut cr_bits, mut lf_bits) = (0, 0);
        for (k, &v) in vectors.iter().enumerate() {
            cr_bits |= u64::from(_mm_movemask_epi8(_mm_cmpeq_epi8(v, cr)) as u16) << (16 * k);
            lf_bits |= u64::from(_mm_movemask_epi8(_mm_cmpeq_epi8(v, lf)) as u16) << (16 * k);
        }
        let mut high = 0;
        // Without first testing whether any of the 64 bytes is high: in text
        // that mixes scripts, that is a coin toss no branch predictor wins.
        if want_high {
            for (k, &v) in vectors.iter().enumerate() {
                high |= u64::from(_mm_movemask_epi8(v) as u16) << (16 * k);
            }
        }
        (cr_bits, lf_bits, high)
    }
}

/// [`block_masks`] with AVX2: two 32-byte halves.
#[cfg(target_arch = "x86_64")]
#[target_feature(enable = "avx2")]
#[inline]
// `_mm256_loadu_si256` reads unaligned memory; a mask of 32 bytes has 32 bits.
#[allow(clippy::cast_ptr_alignment, clippy::cast_sign_loss)]
unsafe fn avx2_block_masks(block: &[u8; LANES], want_high: bool) -> (u64, u64, u64) {
    use std::arch::x86_64::{
        __m256i, _mm256_cmpeq_epi8, _mm256_loadu_si256, _mm256_movemask_epi8, _mm256_set1_epi8,
    };
    // SAFETY: the caller has AVX2; the two unaligned loads read bytes 0..64
    // of `block`, which is 64 bytes long.
    let at = block.as_ptr().cast::<__m256i>();
    let (low, high) = (_mm256_loadu_si256(at), _mm256_loadu_si256(at.add(1)));
    let lf = _mm256_set1_epi8(0x0A);
    let cr = _mm256_set1_epi8(0x0D);
    let bits = |half| u64::from(_mm256_movemask_epi8(half) as u32);
    let cr_bits = bits(_mm256_cmpeq_epi8(low, cr)) | bits(_mm256_cmpeq_epi8(high, cr)) << 32;
    let lf_bits = bits(_mm256_cmpeq_epi8(low, lf)) | bits(_mm256_cmpeq_epi8(high, lf)) << 32;
    let non_ascii = if want_high {
        bits(low) | bits(high) << 32
    } else {
        0
    };
    (cr_bits, lf_bits, non_ascii)
}

/// The portable [`block_masks`]; built on every target, so that a test holds the SSE2 one to it.
#[cfg_attr(target_arch = "x86_64", allow(dead_code))]
#[inline]
fn portable_block_masks(block: &[u8; LANES], want_high: bool) -> (u64, u64, u64) {
    let (mut cr, mut lf, mut high) = (0u64, 0u64, 0u64);
    for (i, &byte) in block.iter().enumerate() {
        cr |= u64::from(byte == b'\r') << i;
        lf |= u64::from(byte == b'\n') << i;
        high |= u64::from(byte >> 7) << i;
    }
    (cr, lf, if want_high { high } else { 0 })
}
#[cfg(not(target_arch = "x86_64"))]
use portable_block_masks as block_masks;

#[cfg(test)]
mod tests {
    use super::*;

    /// A non-ASCII byte of a long chunk is validated wherever it is: in the
    /// part scanned 256 bytes at a time, or in the narrow tail after it.
    #[test]
    fn a_long_chunk_is_validated_from_its_first_non_ascii_byte() {
        let mut ends = Vec::new();
        for len in [WIDE_MIN, WIDE_MIN + 1, WIDE_MIN + 200, 5000] {
            for at in [
                0,
                1,
                WIDE - 1,
                WIDE,
                len / 2,
                len - WIDE - 1,
                len - 2,
                len - 1,
            ] {
                let mut bytes = vec![b'x'; len];
                bytes[at] = 0xC3;
                assert!(!scan(&bytes, &mut ends), "len {len}, a lone lead at {at}");
                assert_eq!(
                    scan_lines(&bytes, &mut ends),
                    Some(at),
                    "len {len}, at {at}"
                );
                if at + 1 < len {
                    bytes[at + 1] = 0xA9;
                    assert!(scan(&bytes, &mut ends), "len {len}, an e-acute at {at}");
                }
            }
            assert!(scan(&vec![b'y'; len], &mut ends));
            assert_eq!(scan_lines(&vec![b'y'; len], &mut ends), None);
        }
    }

    /// `scan`, and the path of CPUs without AVX2, say a chunk is UTF-8 exactly
    /// when `std::str::from_utf8` does.
    fn assert_validates_as_std(bytes: &[u8], ends: &mut Vec<u64>) {
        let std = std::str::from_utf8(bytes).is_ok();
        assert_eq!(scan(bytes, ends), std, "{bytes:x?}");
        let mut baseline = Vec::new();
        let first_high = scan_blocks(bytes, &mut baseline, 0, true, block_masks);
        assert_eq!(valid_from(bytes, first_high), std, "baseline: {bytes:x?}");
    }

    /// Every pair of bytes (which indexes every entry of the three tables
    /// with every other), alone and after the leads of a 3- and a 4-byte
    /// sequence (where a byte must continue it); every sequence of four bytes
    /// from classes that the Unicode Standard's table 3-7 tells apart (each end
    /// of each range, every nibble of a lead, ASCII, never-valid bytes); and
    /// three such bytes at the end of a chunk that fills its blocks, and of one
    /// that does not.
    #[test]
    fn every_pair_and_four_byte_class_sequence_is_validated_as_std_does() {
        let mut ends = Vec::new();
        for a in 0..=u8::MAX {
            for b in 0..=u8::MAX {
                assert_validates_as_std(&[a, b], &mut ends);
                assert_validates_as_std(&[0xE1, a, b], &mut ends);
                assert_validates_as_std(&[0xF1, 0x80, a, b], &mut ends);
            }
        }
        let classes = [
            0x00, 0x7F, 0x80, 0x8F, 0x90, 0x9F, 0xA0, 0xBF, 0xC0, 0xC1, 0xC2, 0xC7, 0xCA, 0xDF,
            0xE0, 0xE1, 0xE6, 0xEC, 0xED, 0xEE, 0xEF, 0xF0, 0xF1, 0xF3, 0xF4, 0xF5, 0xF8, 0xFF,
        ];
        for a in classes {
            for b in classes {
                for c in classes {
                    for d in classes {
                        assert_validates_as_std(&[a, b, c, d], &mut ends);
                    }
                }
            }
        }
        for len in [64, 100] {
            for a in classes {
                for b in classes {
                    for c in classes {
                        let mut bytes = vec![b'x'; len];
                        bytes[len - 3..].copy_from_slice(&[a, b, c]);
                        assert_validates_as_std(&bytes, &mut ends);
                    }
                }
            }
        }
    }

    /// Sequences that need the bytes before them to be judged, valid and
    /// not, at every offset of chunks of every length up to three blocks and
    /// a half: across the 32-byte halves, the blocks, the last block read
    /// over the one before (both ways: its last half only, or both), and cut
    /// by the chunk's end.
    #[test]
    fn sequences_anywhere_in_a_chunk_are_validated_as_std_does() {
        let sequences: [&[u8]; 10] = [
            b"\xC3\xA9",
            b"\xE2\x82\xAC",
            b"\xF0\x9F\x98\x80",
            b"\xF4\x8F\xBF\xBF",
            b"\x80",
            b"\xE2\x82",
            b"\xC0\x80",
            b"\xED\xA0\x80",
            b"\xF4\x90\x80\x80",
            b"\xE0\x80\x80",
        ];
        let mut ends = Vec::new();
        for len in 0..=230 {
            for at in 0..len {
                for sequence in sequences {
                    let mut bytes = vec![b'x'; len];
                    let n = sequence.len().min(len - at);
                    bytes[at..at + n].copy_from_slice(&sequence[..n]);
                    assert_validates_as_std(&bytes, &mut ends);
                    // Valid text before it, so that what it follows is not ASCII.
                    if at >= 3 {
                        bytes[at - 3..at].copy_from_slice("\u{20ac}".as_bytes());
                        assert_validates_as_std(&bytes, &mut ends);
                    }
                }
            }
        }
    }

    /// Random chunks of mostly valid text with random bytes in it agree with
    /// std, short and long.
    #[test]
    fn random_chunks_are_validated_as_std_does() {
        let mut next = crate::xorshift32(0x27d4_eb2d);
        let pieces: [&[u8]; 9] = [
            b"a",
            b"\n",
            "\u{e9}".as_bytes(),
            "\u{20ac}".as_bytes(),
            "\u{1f600}".as_bytes(),
            "\u{10ffff}".as_bytes(),
            "\u{d7ff}".as_bytes(),
            "\u{e000}".as_bytes(),
            b"bc",
        ];
        let mut ends = Vec::new();
        for round in 0..3000 {
            let len = next() as usize % if round % 50 == 0 { 5000 } else { 300 };
            let mut bytes = Vec::new();
            while bytes.len() < len {
                let r = next() as usize;
                bytes.extend_from_slice(pieces[r % pieces.len()]);
            }
            bytes.truncate(len);
            // Now and then a byte changed at random (often making it invalid).
            if round % 3 == 0 && len > 0 {
                let r = next() as usize;
                bytes[r % len] = (r >> 12).to_le_bytes()[0];
            }
            assert_validates_as_std(&bytes, &mut ends);
        }
    }

    /// The block masks of the target (SSE2 on `x86_64`), AVX2's where the CPU
    /// has it, and the portable ones agree on random blocks, with and without
    /// the non-ASCII mask.
    #[test]
    fn block_masks_match_the_portable_ones() {
        let mut next = crate::xorshift32(0x85eb_ca6b);
        let alphabet = [
            b'\r', b'\n', b'a', 0x7F, 0x80, 0xFF, 0x00, 0x0C, 0x0E, 0x09, 0x0B,
        ];
        for round in 0..2000 {
            let block: [u8; LANES] = std::array::from_fn(|_| {
                let r = next() as usize;
                // Every few rounds a block of ASCII only, so the non-ASCII mask is 0.
                let pick = alphabet[r % alphabet.len()];
                if round % 5 == 0 && pick >= 0x80 {
                    b'b'
                } else {
                    pick
                }
            });
            for want_high in [true, false] {
                let portable = portable_block_masks(&block, want_high);
                assert_eq!(
                    block_masks(&block, want_high),
                    portable,
                    "{block:?} want_high={want_high}"
                );
                #[cfg(target_arch = "x86_64")]
                if std::is_x86_feature_detected!("avx2") {
                    // SAFETY: the CPU has AVX2, just checked.
                    let avx2 = unsafe { avx2_block_masks(&block, want_high) };
                    assert_eq!(avx2, portable, "AVX2: {block:?} want_high={want_high}");
                }
            }
        }
    }

    /// The masks and the first non-ASCII byte agree with a byte-by-byte search
    /// at every length and offset around the block size (CRLFs across blocks
    /// too), on the CPU's path and the baseline one.
    #[test]
    fn scan_matches_a_byte_by_byte_search() {
        let mut next = crate::xorshift32(0x9e37_79b9);
        let alphabet = [b'a', b'\n', b'\r', 0x80, 0xC3, 0xFF, 0x7F, 0x00, b':'];
        let mut ends = Vec::new();
        // Short chunks, and long ones (the AVX2 path, where the CPU has it).
        let lengths = (0..200_usize).chain([4095, 4096, 4097, 4159, 4160, 4161, 4351, 5000]);
        for len in lengths {
            for _ in 0..20 {
                // Mostly ASCII letters, so that the first non-ASCII byte moves about.
                let bytes: Vec<u8> = (0..len)
                    .map(|_| {
                        let r = next() as usize;
                        if r % 7 == 0 {
                            alphabet[r / 7 % alphabet.len()]
                        } else if r % 7 == 1 {
                            // Endings often, so that CRLFs fall across blocks.
                            [b'\r', b'\n'][r / 7 % 2]
                        } else {
                            b'x'
                        }
                    })
                    .collect();
                // The baseline blocks too, which `scan` skips where the CPU has AVX2.
                let mut baseline = Vec::new();
                let baseline_high = scan_blocks(&bytes, &mut baseline, 0, true, block_masks);
                let first_high = scan_lines(&bytes, &mut ends);
                assert_eq!((&baseline, baseline_high), (&ends, first_high), "{bytes:?}");
                // And the pass that validates as it goes.
                scan(&bytes, &mut ends);
                assert_eq!(&baseline, &ends, "{bytes:?}");
                assert_eq!(
                    first_high,
                    bytes.iter().position(|&b| b >= 0x80),
                    "{bytes:?}"
                );
                assert_eq!(ends.len(), len.div_ceil(LANES));
                let is_end = |i: usize| {
                    bytes[i] == b'\r' || bytes[i] == b'\n' && (i == 0 || bytes[i - 1] != b'\r')
                };
                for i in 0..len {
                    let bit = ends[i / LANES] >> (i % LANES) & 1 == 1;
                    assert_eq!(bit, is_end(i), "byte {i} of {bytes:?}");
                }
                let set: u32 = ends.iter().map(|m| m.count_ones()).sum();
                assert_eq!(set as usize, (0..len).filter(|&i| is_end(i)).count());
            }
        }
    }

    /// Both ways of listing the set bits agree with a bit-by-bit listing, on
    /// masks with no, few, more than [`UNROLLED`] and all bits set, and on an
    /// `at` that starts too short or long with leftovers.
    #[test]
    fn end_positions_list_every_set_bit_in_order() {
        let mut next = crate::xorshift32(0x2545_f491);
        let mut random = || u64::from(next()) << 32 | u64::from(next());
        // A full mask right after 38 endings, with `at` 62 slots past them:
        // it needs 64.
        let mut cases = vec![vec![(1 << 38) - 1, u64::MAX]];
        for round in 0..500 {
            cases.push(
                (0..round % 9)
                    .map(|k| match (round + k) % 6 {
                        0 => 0,
                        1 => u64::MAX,
                        2 => 1 << 63 | 1,
                        3 => random() & random() & random(),
                        _ => random(),
                    })
                    .collect(),
            );
        }
        for (round, ends) in cases.into_iter().enumerate() {
            let want: Vec<usize> = (0..ends.len() * LANES)
                .filter(|&i| ends[i / LANES] >> (i % LANES) & 1 == 1)
                .collect();
            let mut counted = vec![usize::MAX; (round + 1) % 3 * 100];
            let n = end_positions_counted(&ends, &mut counted);
            assert_eq!(&counted[..n], want, "counted, {ends:x?}");
            let mut dispatched = vec![7; (round + 1) % 3 * 100];
            let n = end_positions(&ends, &mut dispatched);
            assert_eq!(&dispatched[..n], want, "end_positions, {ends:x?}");
        }
    }
}
