//! The counting kernel for processors with AVX-512, on boards of up to 16
//! columns (a column set per 32-bit lane). Large subtrees go to
//! [`below_lanes`]: 16 depth-first searches side by side, one per lane.
//! Small ones go to [`below`]: an explicit DFS stack, and all children of a
//! node generated at once in the 16 lanes of a vector.
//!
//! In [`below`], the stack holds nodes in structure-of-arrays form (`cols`, `up`, `down`)
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

/// Lane `i` holds column `1 << i`.
#[inline]
#[target_feature(enable = "avx512f")]
fn column_bits() -> __m512i {
    _mm512_sllv_epi32(
        _mm512_set1_epi32(1),
        _mm512_setr_epi32(0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15),
    )
}

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
    let bits = column_bits();
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

/// Subtrees searched by [`below_lanes`] are cut into at least this many
/// tasks, so that the 16 lanes stay busy until the last ones.
const MIN_TASKS: usize = 256;

/// The nodes and solutions strictly below a partial placement with
/// `left >= 2` rows to fill on a board of `n = popcount(all) <= 16`
/// columns, whose free columns on the next row are `free`: 16 depth-first
/// searches side by side, one per lane.
///
/// The subtree is first cut, breadth first, into tasks: the nodes some rows
/// further down that have children (at least [`MIN_TASKS`] of them, unless
/// the rows run out first). Each lane then searches one task after the
/// other; a lane that finishes its task loads the next one (`vpexpandd`).
/// A step of the loop moves every lane by one edge of its tree: down to the
/// next child of its node (the child is counted as a node, a solution if it
/// fills the board, and entered if it has children of its own), or, with no
/// child left, back up to the parent. The path down is kept reversible: a
/// child's attacks are its parent's with the queen's bit added and shifted,
/// and no bit is shifted out — `up` gains at most one bit position per row
/// from column 15 (at most bit 30 before the last shift), and the down
/// diagonals are kept 16 bits higher (`down << 16`), so they lose at most
/// 15 of those 16 positions. Going back up therefore needs only the set of
/// the parent's columns still to try, with the queen just placed as its
/// lowest bit; each lane keeps these on its own stack, one word per row
/// (`vpscatterdd` down, `vpgatherdd` up). Every node below the starting one
/// is counted once: by the cutting if it lies above the tasks or is one,
/// by the step that goes down to it otherwise.
///
/// # Safety
///
/// The processor must have AVX-512F, BMI1 and POPCNT, and `all` must be
/// `(1 << n) - 1` with `n <= 16`.
#[target_feature(enable = "avx512f,bmi1,popcnt")]
pub(super) unsafe fn below_lanes(
    all: u32,
    cols: u32,
    up: u32,
    down: u32,
    free: u32,
    left: u32,
) -> (u64, u64) {
    debug_assert!(all < 1 << LANES && all.count_ones() >= left && left >= 2);
    if free == 0 {
        return (0, 0);
    }
    let bits = column_bits();
    let vall = _mm512_set1_epi32(all as i32);
    let mut nodes = 0u64;
    // The tasks, in structure-of-arrays form (`cols`, `up`, `down`), each
    // array with 16 words of slack after its `len` tasks.
    let mut front = [vec![cols; LANES + 1], vec![up; LANES + 1], vec![down; LANES + 1]];
    let mut len = 1usize;
    // Rows left below the tasks: at least 2, so that the cutting meets no
    // solution and a task has rows for the lanes to search.
    let mut rows = left;
    while len < MIN_TASKS && rows > 2 {
        // Each task's children with children of their own, compressed into
        // the next level's arrays as in `below`.
        let size = len * LANES + LANES;
        let mut next: [Vec<u32>; 3] =
            [Vec::with_capacity(size), Vec::with_capacity(size), Vec::with_capacity(size)];
        let mut top = 0usize;
        let [fc, fu, fd] = &front;
        for ((&c, &u), &d) in fc.iter().zip(fu).zip(fd).take(len) {
            let f = all & !(c | u | d);
            nodes += u64::from(f.count_ones());
            let vc = _mm512_or_si512(bits, _mm512_set1_epi32(c as i32));
            let vu = _mm512_slli_epi32::<1>(_mm512_or_si512(bits, _mm512_set1_epi32(u as i32)));
            let vd = _mm512_srli_epi32::<1>(_mm512_or_si512(bits, _mm512_set1_epi32(d as i32)));
            let vf = _mm512_andnot_si512(_mm512_or_si512(vc, _mm512_or_si512(vu, vd)), vall);
            let push = _mm512_mask_test_epi32_mask(f as __mmask16, vf, vf);
            // SAFETY: at most 16 children per task, so before the `i`-th
            // task `top <= 16 * i`, and the 16 words stored from `top` lie
            // inside the `16 * len + 16` words of each array's capacity.
            unsafe {
                _mm512_storeu_si512(
                    next[0].as_mut_ptr().add(top).cast(),
                    _mm512_maskz_compress_epi32(push, vc),
                );
                _mm512_storeu_si512(
                    next[1].as_mut_ptr().add(top).cast(),
                    _mm512_maskz_compress_epi32(push, vu),
                );
                _mm512_storeu_si512(
                    next[2].as_mut_ptr().add(top).cast(),
                    _mm512_maskz_compress_epi32(push, vd),
                );
            }
            top += push.count_ones() as usize;
        }
        for v in &mut next {
            // SAFETY: the words below `top` were stored above (each store
            // writes the 16 words from the `top` of its time), inside the
            // capacity.
            unsafe { v.set_len(top) };
            v.resize(top + LANES, 0);
        }
        front = next;
        len = top;
        rows -= 1;
    }
    let tasks = len;
    // The lanes' form of the tasks, with 16 empty tasks after them:
    // `vpexpandd` may read past the last task, and a lane given an empty
    // task stays idle.
    let [tc, tu, mut td] = front;
    td.iter_mut().for_each(|d| *d <<= 16);
    let mut tf: Vec<u32> = (0..tasks).map(|i| all & !(tc[i] | tu[i] | td[i] >> 16)).collect();
    tf.resize(tasks + LANES, 0);
    // A lane's stack: the columns still to try on each row of its task,
    // lane `i`'s word of depth `j` at `16 * j + i`; depths are below
    // `rows <= 16`.
    let mut stack = [0u32; LANES * LANES];
    let lane = _mm512_setr_epi32(0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15);
    let zero = _mm512_setzero_si512();
    let one = _mm512_set1_epi32(1);
    let last = _mm512_set1_epi32(rows as i32 - 1);
    let (mut c, mut u, mut d, mut r, mut j) = (zero, zero, zero, zero, zero);
    // Per lane, at most one count per node below the starting one: fewer
    // than 2^32 (1,141,190,303 nodes at n = 16), so the lanes and their sum
    // cannot overflow.
    let mut vnodes = zero;
    let mut vsolutions = zero;
    let mut next = 0usize;
    loop {
        let idle = _mm512_mask_testn_epi32_mask(_mm512_testn_epi32_mask(j, j), r, r);
        if next < tasks {
            // SAFETY: at most 16 words are read from `next < tasks`, inside
            // the padded arrays.
            unsafe {
                c = _mm512_mask_expandloadu_epi32(c, idle, tc.as_ptr().add(next).cast());
                u = _mm512_mask_expandloadu_epi32(u, idle, tu.as_ptr().add(next).cast());
                d = _mm512_mask_expandloadu_epi32(d, idle, td.as_ptr().add(next).cast());
                r = _mm512_mask_expandloadu_epi32(r, idle, tf.as_ptr().add(next).cast());
            }
            next += idle.count_ones() as usize;
        } else if idle == 0xffff {
            break;
        }
        let has = _mm512_test_epi32_mask(r, r);
        let b = _mm512_and_si512(r, _mm512_sub_epi32(zero, r));
        let cc = _mm512_or_si512(c, b);
        let cu = _mm512_slli_epi32::<1>(_mm512_or_si512(u, b));
        let cd = _mm512_srli_epi32::<1>(_mm512_or_si512(d, _mm512_slli_epi32::<16>(b)));
        let cf =
            _mm512_andnot_si512(_mm512_or_si512(_mm512_or_si512(cc, cu), _mm512_srli_epi32::<16>(cd)), vall);
        vnodes = _mm512_mask_add_epi32(vnodes, has, vnodes, one);
        let solved = _mm512_mask_cmpeq_epi32_mask(has, j, last);
        vsolutions = _mm512_mask_add_epi32(vsolutions, solved, vsolutions, one);
        let down_ = _mm512_mask_test_epi32_mask(has, cf, cf);
        let stay = has & !down_;
        let back = !has & _mm512_test_epi32_mask(j, j);
        let at = _mm512_or_si512(_mm512_slli_epi32::<4>(j), lane);
        // SAFETY: a lane goes down only from depths `j < rows - 1` (a node
        // on the last row has no free column), and goes up only from
        // `j >= 1`, so every index `16 * j + i` or `16 * (j - 1) + i` is
        // below `16 * 16`.
        let s = unsafe {
            _mm512_mask_i32scatter_epi32::<4>(stack.as_mut_ptr().cast(), down_, at, r);
            _mm512_mask_i32gather_epi32::<4>(
                zero,
                back,
                _mm512_sub_epi32(at, _mm512_set1_epi32(16)),
                stack.as_ptr().cast(),
            )
        };
        let bb = _mm512_and_si512(s, _mm512_sub_epi32(zero, s));
        r = _mm512_mask_xor_epi32(r, stay, r, b);
        r = _mm512_mask_mov_epi32(r, down_, cf);
        r = _mm512_mask_xor_epi32(r, back, s, bb);
        c = _mm512_mask_mov_epi32(c, down_, cc);
        c = _mm512_mask_xor_epi32(c, back, c, bb);
        u = _mm512_mask_mov_epi32(u, down_, cu);
        u = _mm512_mask_xor_epi32(u, back, _mm512_srli_epi32::<1>(u), bb);
        d = _mm512_mask_mov_epi32(d, down_, cd);
        d = _mm512_mask_xor_epi32(d, back, _mm512_slli_epi32::<1>(d), _mm512_slli_epi32::<16>(bb));
        j = _mm512_mask_add_epi32(j, down_, j, one);
        j = _mm512_mask_sub_epi32(j, back, j, one);
    }
    let sum = |v: __m512i| u64::from(_mm512_reduce_add_epi32(v) as u32);
    (nodes + sum(vnodes), sum(vsolutions))
}
