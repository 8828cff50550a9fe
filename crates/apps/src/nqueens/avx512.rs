//! The counting kernel for processors with AVX-512: an explicit DFS stack,
//! and all children of a node generated at once in the 16 lanes of a vector.
//!
//! The stack holds nodes in structure-of-arrays form (`cols`, `up`, `down`)
//! whose free set is not empty and which have at least three rows left to
//! fill. One turn of the loop pops one node and, with lane `i` standing for
//! column `1 << i`, builds all its children in the lanes (the lanes outside
//! its free set `f` are masked off). Then, without a branch per child:
//!
//! * the children are counted (`popcount(f)`);
//! * if the node has more than three rows left, the children that have
//!   children of their own are compressed to the front of a vector
//!   (`vpcompressd`) and stored at the top of the stack with one full-width
//!   store per array — the lanes beyond the pushed ones land in the slack at
//!   the end of the arrays and are overwritten or never read;
//! * if it has exactly three rows left, its children have two rows left and
//!   are finished in the lanes: two rows left means two free columns on the
//!   board, so a child has at most two children (the lowest and the highest
//!   bit of its free set), each with one column left, which is a solution
//!   if no diagonal attacks it. Those grandchildren and solutions are
//!   counted with a mask popcount each.
//!
//! Both cases are computed every turn and selected by masks, so the loop's
//! only branch is its exit test, and every node below the starting one is
//! counted exactly once: by its parent's turn, as a child (the popcount of
//! `f`), or, on the last two rows, by its grandparent's turn.

use std::arch::x86_64::*;
use std::mem::MaybeUninit;

/// Lanes of a vector of 32-bit columns sets: boards up to 16 columns.
pub(super) const LANES: usize = 16;

/// The stack's length. Popping a node and pushing its children keeps the
/// stack a sequence of groups, each the siblings still to be visited of one
/// node on the current path, at most one group per row. Children are pushed
/// only on rows `1..=n - 3` (they have three rows left or more), and a node
/// on row `r` has at most `n - r` children, so the stack never holds more
/// than `16 + 15 + … + 4 = 130` entries after the starting node is popped.
/// A push writes 16 lanes from the stack top, so it needs 16 entries of
/// slack above it: 16 × 16 + 16 entries are more than enough.
const STACK: usize = LANES * LANES + LANES;

/// The nodes and solutions strictly below a partial placement with
/// `left >= 3` rows to fill on a board of `n = popcount(all) <= 16`
/// columns, whose free columns on the next row are `free`.
///
/// # Safety
///
/// The processor must have AVX-512F, BMI1 and POPCNT, and `all` must be
/// `(1 << n) - 1` with `n <= 16`: the stack bound above relies on it.
#[target_feature(enable = "avx512f,bmi1,popcnt")]
pub(super) unsafe fn below(all: u32, cols: u32, up: u32, down: u32, free: u32, left: u32) -> (u64, u64) {
    debug_assert!(all < 1 << LANES && all.count_ones() >= left && left >= 3);
    if free == 0 {
        return (0, 0);
    }
    let n = all.count_ones();
    // The stacks are written before they are read: every entry below `sp`
    // was stored by the starting node's write or by a push.
    let mut sc = [MaybeUninit::<u32>::uninit(); STACK];
    let mut su = [MaybeUninit::<u32>::uninit(); STACK];
    let mut sd = [MaybeUninit::<u32>::uninit(); STACK];
    sc[0].write(cols);
    su[0].write(up);
    sd[0].write(down);
    let mut sp = 1usize;
    let bits = _mm512_setr_epi32(
        1,
        1 << 1,
        1 << 2,
        1 << 3,
        1 << 4,
        1 << 5,
        1 << 6,
        1 << 7,
        1 << 8,
        1 << 9,
        1 << 10,
        1 << 11,
        1 << 12,
        1 << 13,
        1 << 14,
        1 << 15,
    );
    let vall = _mm512_set1_epi32(all as i32);
    let zero = _mm512_setzero_si512();
    let one = _mm512_set1_epi32(1);
    // Counts per lane: a lane counts at most one node per node of the
    // subtree, and a board of at most 16 columns has fewer than 2^32 nodes
    // (1,141,190,303 at n = 16), so the 32-bit lanes cannot overflow.
    let mut vnodes = zero;
    let mut vsolutions = zero;
    while sp > 0 {
        sp -= 1;
        // SAFETY: `sp` is below the stack top, so the entry was written
        // (see above), and inside the arrays (see `STACK`).
        let (c, u, d) = unsafe {
            (
                sc.get_unchecked(sp).assume_init(),
                su.get_unchecked(sp).assume_init(),
                sd.get_unchecked(sp).assume_init(),
            )
        };
        let f = all & !(c | u | d);
        // Every node on the stack has three rows left or more.
        let deep = 0u16.wrapping_sub(u16::from(n - c.count_ones() > 3));
        let k = f as __mmask16;
        let vc = _mm512_or_si512(bits, _mm512_set1_epi32(c as i32));
        let vu = _mm512_slli_epi32::<1>(_mm512_or_si512(bits, _mm512_set1_epi32(u as i32)));
        let vd = _mm512_srli_epi32::<1>(_mm512_or_si512(bits, _mm512_set1_epi32(d as i32)));
        let vf = _mm512_andnot_si512(_mm512_or_si512(vc, _mm512_or_si512(vu, vd)), vall);
        vnodes = _mm512_mask_add_epi32(vnodes, k, vnodes, one);

        // More than three rows left: push the children with children.
        let push = _mm512_mask_test_epi32_mask(k & deep, vf, vf);
        // SAFETY: `sp + 16 <= STACK` (see `STACK`), so the 16 lanes stored
        // from `sp` lie inside each array.
        unsafe {
            _mm512_storeu_si512(sc.as_mut_ptr().add(sp).cast(), _mm512_maskz_compress_epi32(push, vc));
            _mm512_storeu_si512(su.as_mut_ptr().add(sp).cast(), _mm512_maskz_compress_epi32(push, vu));
            _mm512_storeu_si512(sd.as_mut_ptr().add(sp).cast(), _mm512_maskz_compress_epi32(push, vd));
        }
        sp += push.count_ones() as usize;

        // Three rows left: finish the children's two last rows.
        let last = k & !deep;
        let lo = _mm512_and_si512(vf, _mm512_sub_epi32(zero, vf));
        let hi = _mm512_xor_si512(vf, lo);
        let klo = _mm512_mask_test_epi32_mask(last, lo, lo);
        let khi = _mm512_mask_test_epi32_mask(last, hi, hi);
        let open = |g: __m512i| {
            let attacked = _mm512_or_si512(
                _mm512_or_si512(vc, g),
                _mm512_or_si512(
                    _mm512_slli_epi32::<1>(_mm512_or_si512(vu, g)),
                    _mm512_srli_epi32::<1>(_mm512_or_si512(vd, g)),
                ),
            );
            _mm512_andnot_si512(attacked, vall)
        };
        let (olo, ohi) = (open(lo), open(hi));
        let slo = _mm512_mask_test_epi32_mask(klo, olo, olo);
        let shi = _mm512_mask_test_epi32_mask(khi, ohi, ohi);
        vnodes = _mm512_mask_add_epi32(vnodes, klo, vnodes, one);
        vnodes = _mm512_mask_add_epi32(vnodes, khi, vnodes, one);
        vsolutions = _mm512_mask_add_epi32(vsolutions, slo, vsolutions, one);
        vsolutions = _mm512_mask_add_epi32(vsolutions, shi, vsolutions, one);
    }
    let sum = |v: __m512i| u64::from(_mm512_reduce_add_epi32(v) as u32);
    let solutions = sum(vsolutions);
    (sum(vnodes) + solutions, solutions)
}
