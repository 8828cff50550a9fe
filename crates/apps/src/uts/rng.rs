//! The splittable random number generator of UTS, based on SHA-1.
//!
//! This is the generator of the reference implementation (`rng/brg_sha1.c`):
//! a node's state is a 20-byte SHA-1 digest, and the state of its `i`-th child
//! is the digest of the parent's state followed by `i` as four big-endian
//! bytes. Every node of a UTS tree is thus determined by the root seed and the
//! path to it, independently of the order in which nodes are visited.
//!
//! Spawning is the hot path of UTS (one SHA-1 block per node). A spawn message
//! is 24 bytes, so it fits one 64-byte block together with its padding.
//! [`Spawner`] builds that block once per parent and only rewrites the four
//! bytes of the child index per child before running the `sha1` crate's
//! compression function (which uses the CPU's SHA extensions when present).

use sha1::{Digest, Sha1};

/// The size of a generator state in bytes: one SHA-1 digest.
pub const STATE_LEN: usize = 20;

/// The initial hash value of SHA-1 (FIPS 180-4, §5.3.1).
const SHA1_H0: [u32; 5] = [0x6745_2301, 0xEFCD_AB89, 0x98BA_DCFE, 0x1032_5476, 0xC3D2_E1F0];

/// The length of a spawn message: the parent's state and a 32-bit index.
const SPAWN_MESSAGE_LEN: usize = STATE_LEN + 4;

/// The state of the generator at one tree node: a SHA-1 digest.
#[derive(Clone, Copy, PartialEq, Eq, Hash, serde::Serialize, serde::Deserialize)]
pub struct RngState([u8; STATE_LEN]);

impl RngState {
    /// Wraps 20 raw bytes as a state.
    #[inline]
    pub const fn from_bytes(bytes: [u8; STATE_LEN]) -> Self {
        RngState(bytes)
    }

    /// The raw bytes of the state.
    #[inline]
    pub const fn as_bytes(&self) -> &[u8; STATE_LEN] {
        &self.0
    }
}

impl std::fmt::Debug for RngState {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str("RngState(")?;
        for byte in self.0 {
            write!(f, "{byte:02x}")?;
        }
        f.write_str(")")
    }
}

/// The state of the root: SHA-1 of 16 zero bytes followed by `seed` as four
/// big-endian bytes (`rng_init` of the reference).
pub fn rng_init(seed: i32) -> RngState {
    let mut message = [0u8; STATE_LEN];
    message[16..].copy_from_slice(&seed.to_be_bytes());
    RngState(Sha1::digest(message).into())
}

/// The state of child `i` of `parent`: SHA-1 of the parent's 20 bytes followed
/// by `i` as four big-endian bytes (`rng_spawn` of the reference).
///
/// To spawn several children of one parent, [`Spawner`] saves a little work.
#[inline]
pub fn rng_spawn(parent: &RngState, i: u32) -> RngState {
    Spawner::new(parent).spawn(i)
}

/// The random number of a state: bytes 16..20 as a big-endian integer with the
/// sign bit cleared, so in `0..2^31` (`rng_rand` of the reference).
#[inline]
pub fn rng_rand(state: &RngState) -> u32 {
    let [.., a, b, c, d] = state.0;
    u32::from_be_bytes([a, b, c, d]) & 0x7fff_ffff
}

/// Maps a random number of [`rng_rand`] to a probability in `[0, 1)`
/// (`rng_toProb` of the reference).
#[inline]
pub fn to_prob(n: u32) -> f64 {
    f64::from(n) / 2_147_483_648.0
}

/// Spawns the children of one parent: the padded SHA-1 block of the spawn
/// message, built once, with only the child index rewritten per child.
#[derive(Clone)]
pub struct Spawner {
    block: [u8; 64],
}

impl Spawner {
    /// Prepares to spawn children of `parent`.
    #[inline]
    pub fn new(parent: &RngState) -> Self {
        let mut block = [0u8; 64];
        block[..STATE_LEN].copy_from_slice(&parent.0);
        // SHA-1 padding of a 24-byte message: a one bit, zeros, and the
        // message length in bits as a big-endian 64-bit integer.
        block[SPAWN_MESSAGE_LEN] = 0x80;
        block[56..].copy_from_slice(&(8 * SPAWN_MESSAGE_LEN as u64).to_be_bytes());
        Spawner { block }
    }

    /// The state of child `i` of the parent: the same as [`rng_spawn`].
    #[inline]
    pub fn spawn(&mut self, i: u32) -> RngState {
        self.block[STATE_LEN..SPAWN_MESSAGE_LEN].copy_from_slice(&i.to_be_bytes());
        let mut h = SHA1_H0;
        sha1::block_api::compress(&mut h, std::slice::from_ref(&self.block));
        let mut out = [0u8; STATE_LEN];
        for (chunk, word) in out.chunks_exact_mut(4).zip(h) {
            chunk.copy_from_slice(&word.to_be_bytes());
        }
        RngState(out)
    }
}

impl Spawner {
    /// The states of children `first .. first + count` of the parent, in
    /// order, each passed to `f`: the same as [`Spawner::spawn`] for each
    /// index.
    ///
    /// The children's hashes are independent, so on processors with the SHA
    /// extensions they are computed two or three at a time, interleaved
    /// (see the `sha_ni` module): one SHA-1 block is a chain of 20
    /// dependent `sha1rnds4` instructions, whose latency, not the
    /// processor's throughput, bounds a single hash. Elsewhere each child is
    /// hashed by the `sha1` crate.
    #[inline]
    pub fn spawn_each(&mut self, first: u32, count: u32, mut f: impl FnMut(RngState)) {
        #[cfg(target_arch = "x86_64")]
        if sha_ni::available() {
            // SAFETY: the processor has the features `sha_ni::spawn_each`
            // is compiled for (just checked).
            unsafe { sha_ni::spawn_each(&self.block, first, count, f) };
            return;
        }
        for k in 0..count {
            f(self.spawn(first.wrapping_add(k)));
        }
    }
}

/// SHA-1 of several spawn blocks at once with the x86 SHA extensions.
///
/// The code of one block follows Intel's description of the SHA extensions
/// (the `sha1rnds4`, `sha1nexte`, `sha1msg1` and `sha1msg2` instructions,
/// four rounds each): twenty groups of four rounds, the message schedule
/// computed three groups ahead. Each step is written once for `L` lanes —
/// arrays of registers indexed by a constant-length loop that the compiler
/// unrolls — so that the lanes' independent dependency chains interleave.
/// The lanes' blocks differ only in the child index (word 5), so the first
/// four rounds, which read words 0–3 only, are computed once for all.
#[cfg(target_arch = "x86_64")]
mod sha_ni {
    use std::arch::x86_64::*;

    use super::{RngState, SHA1_H0, STATE_LEN};

    /// Whether the processor has the SHA extensions and SSE4.1 (cached by
    /// the standard library after the first call).
    #[inline]
    pub(super) fn available() -> bool {
        std::arch::is_x86_feature_detected!("sha") && std::arch::is_x86_feature_detected!("sse4.1")
    }

    /// Children `first .. first + count` of the spawn block `block` (the
    /// parent's padded message; its index bytes are ignored), in order,
    /// three lanes at a time (two for a remainder of two or four).
    ///
    /// # Safety
    ///
    /// The processor must have the SHA extensions and SSE4.1.
    #[inline]
    #[target_feature(enable = "sha,sse2,ssse3,sse4.1")]
    pub(super) unsafe fn spawn_each(block: &[u8; 64], first: u32, count: u32, mut f: impl FnMut(RngState)) {
        let mut index = first;
        let mut rest = count;
        while rest > 0 {
            let take = match rest {
                1 => {
                    let [a] = lanes::<1>(block, index);
                    f(a);
                    1
                }
                2 | 4 => {
                    let [a, b] = lanes::<2>(block, index);
                    f(a);
                    f(b);
                    2
                }
                _ => {
                    let [a, b, c] = lanes::<3>(block, index);
                    f(a);
                    f(b);
                    f(c);
                    3
                }
            };
            index = index.wrapping_add(take);
            rest -= take;
        }
    }

    /// The states of children `first .. first + L`.
    #[inline]
    #[target_feature(enable = "sha,sse2,ssse3,sse4.1")]
    fn lanes<const L: usize>(block: &[u8; 64], first: u32) -> [RngState; L] {
        // Big-endian words, in the order the SHA instructions want them:
        // the 16 bytes of four words reversed.
        let reverse = _mm_set_epi64x(0x0001_0203_0405_0607, 0x0809_0a0b_0c0d_0e0f);
        // SAFETY: four 16-byte unaligned loads within the 64-byte block.
        let load = |offset: usize| unsafe {
            _mm_shuffle_epi8(_mm_loadu_si128(block.as_ptr().add(offset).cast()), reverse)
        };
        let shared = [load(0), load(16), load(32), load(48)];
        // Word 5 — the child index — is element 2 of the second quarter
        // (elements run from word 7 at 0 to word 4 at 3 after the reversal).
        let mut msg: [[__m128i; 4]; L] = [shared; L];
        for (lane, m) in msg.iter_mut().enumerate() {
            m[1] = _mm_insert_epi32::<2>(m[1], first.wrapping_add(lane as u32) as i32);
        }
        let h = SHA1_H0;
        let abcd_save = _mm_set_epi32(h[0] as i32, h[1] as i32, h[2] as i32, h[3] as i32);
        let e_save = _mm_set_epi32(h[4] as i32, 0, 0, 0);
        // Rounds 0–3 read words 0–3, the same in every lane.
        let e0_first = _mm_add_epi32(e_save, shared[0]);
        let abcd_first = _mm_sha1rnds4_epu32::<0>(abcd_save, e0_first);
        let mut abcd = [abcd_first; L];
        // The E value of the next group is derived from ABCD two groups back.
        let mut e0 = [e0_first; L];
        let mut e1 = [abcd_save; L];

        /// Group `$g` (rounds 4g … 4g + 3) with round function `$f`, in
        /// every lane; the E registers alternate between groups.
        macro_rules! group {
            ($g:literal, $f:literal, $e_in:ident, $e_out:ident) => {
                for l in 0..L {
                    let m = &mut msg[l];
                    $e_in[l] = _mm_sha1nexte_epu32($e_in[l], m[$g % 4]);
                    $e_out[l] = abcd[l];
                    if (3..=18).contains(&$g) {
                        m[($g + 1) % 4] = _mm_sha1msg2_epu32(m[($g + 1) % 4], m[$g % 4]);
                    }
                    abcd[l] = _mm_sha1rnds4_epu32::<$f>(abcd[l], $e_in[l]);
                    if (1..=16).contains(&$g) {
                        m[($g + 3) % 4] = _mm_sha1msg1_epu32(m[($g + 3) % 4], m[$g % 4]);
                    }
                    if (2..=17).contains(&$g) {
                        m[($g + 2) % 4] = _mm_xor_si128(m[($g + 2) % 4], m[$g % 4]);
                    }
                }
            };
        }
        // Group 0 was done above with its message update (msg1 starts at 1).
        group!(1, 0, e1, e0);
        group!(2, 0, e0, e1);
        group!(3, 0, e1, e0);
        group!(4, 0, e0, e1);
        group!(5, 1, e1, e0);
        group!(6, 1, e0, e1);
        group!(7, 1, e1, e0);
        group!(8, 1, e0, e1);
        group!(9, 1, e1, e0);
        group!(10, 2, e0, e1);
        group!(11, 2, e1, e0);
        group!(12, 2, e0, e1);
        group!(13, 2, e1, e0);
        group!(14, 2, e0, e1);
        group!(15, 3, e1, e0);
        group!(16, 3, e0, e1);
        group!(17, 3, e1, e0);
        group!(18, 3, e0, e1);
        group!(19, 3, e1, e0);

        std::array::from_fn(|l| {
            let e = _mm_sha1nexte_epu32(e0[l], e_save);
            let sum = _mm_add_epi32(abcd[l], abcd_save);
            // Big-endian bytes of A, B, C, D: the sum holds A in its top
            // element, so this is the reversal of its 16 bytes.
            let bytes = _mm_shuffle_epi8(sum, reverse);
            let mut out = [0u8; STATE_LEN];
            // SAFETY: a 16-byte unaligned store into the first 16 of 20 bytes.
            unsafe { _mm_storeu_si128(out.as_mut_ptr().cast(), bytes) };
            out[16..].copy_from_slice(&(_mm_extract_epi32::<3>(e) as u32).to_be_bytes());
            RngState(out)
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// SHA-1 of a message by the `sha1` crate's one-shot API.
    fn sha1(message: &[u8]) -> [u8; STATE_LEN] {
        Sha1::digest(message).into()
    }

    #[test]
    fn init_hashes_zeros_and_big_endian_seed() {
        for seed in [0, 1, 19, 42, -1, i32::MIN, i32::MAX] {
            let mut message = [0u8; 20];
            message[16..].copy_from_slice(&seed.to_be_bytes());
            assert_eq!(rng_init(seed).as_bytes(), &sha1(&message));
        }
        // SHA-1 of twenty zero bytes, a published test vector.
        assert_eq!(format!("{:?}", rng_init(0)), "RngState(6768033e216468247bd031a0a2d9876d79818f8f)");
    }

    /// Values computed independently (Python's `hashlib`) for the root of T1
    /// (seed 19) and its first children.
    #[test]
    fn seed_19_matches_independent_sha1() {
        let hex = |state: RngState| format!("{state:?}");
        let root = rng_init(19);
        assert_eq!(hex(root), "RngState(c6988ab70cc9559ae4d6cba254e29a845a85f86b)");
        assert_eq!(hex(rng_spawn(&root, 0)), "RngState(2fb3131030280c1617a81d6a49c1e29effb19645)");
        assert_eq!(hex(rng_spawn(&root, 1)), "RngState(4a8304c7c88f903ac06b01b07c7b2590e9397b5b)");
        assert_eq!(hex(rng_spawn(&root, 2)), "RngState(0f440b68d030929503be64d09655d21a7dfd8365)");
        assert_eq!(rng_rand(&root), 0x5a85_f86b);
    }

    #[test]
    fn spawn_is_sha1_of_parent_and_big_endian_index() {
        let mut parent = rng_init(19);
        for step in 0..50u32 {
            let mut spawner = Spawner::new(&parent);
            for i in [0, 1, 2, 7, 99, 255, 256, 65_536, 1 << 24, u32::MAX] {
                let mut message = parent.as_bytes().to_vec();
                message.extend_from_slice(&i.to_be_bytes());
                let expected = sha1(&message);
                assert_eq!(rng_spawn(&parent, i).as_bytes(), &expected);
                assert_eq!(spawner.spawn(i).as_bytes(), &expected);
            }
            parent = rng_spawn(&parent, step % 5);
        }
    }

    #[test]
    fn spawn_each_is_spawn_of_each_index() {
        let mut parent = rng_init(19);
        for step in 0..40u32 {
            let mut spawner = Spawner::new(&parent);
            for count in 0..=13u32 {
                for first in [0, 1, 5, 255, 65_534, u32::MAX - 3] {
                    let mut got = Vec::new();
                    spawner.spawn_each(first, count, |state| got.push(state));
                    assert_eq!(got.len(), count as usize);
                    for (k, state) in (0u32..).zip(&got) {
                        let i = first.wrapping_add(k);
                        let mut message = parent.as_bytes().to_vec();
                        message.extend_from_slice(&i.to_be_bytes());
                        assert_eq!(state.as_bytes(), &sha1(&message), "child {i} of {parent:?}");
                    }
                }
            }
            parent = rng_spawn(&parent, step % 7);
        }
    }

    /// On a Linux machine whose processor has the SHA extensions, the test
    /// above ran the interleaved code.
    #[test]
    #[cfg(all(target_arch = "x86_64", target_os = "linux"))]
    fn sha_extensions_are_detected_where_the_kernel_reports_them() {
        let cpuinfo = std::fs::read_to_string("/proc/cpuinfo").unwrap_or_default();
        let listed = cpuinfo.split_whitespace().any(|flag| flag == "sha_ni")
            && cpuinfo.split_whitespace().any(|flag| flag == "sse4_1");
        assert_eq!(sha_ni::available(), listed);
    }

    #[test]
    fn rand_reads_the_last_four_bytes_without_sign_bit() {
        let mut bytes = [0u8; STATE_LEN];
        bytes[16..].copy_from_slice(&[0xff, 0x12, 0x34, 0x56]);
        assert_eq!(rng_rand(&RngState::from_bytes(bytes)), 0x7f12_3456);
        bytes[16..].copy_from_slice(&[0x01, 0x02, 0x03, 0x04]);
        assert_eq!(rng_rand(&RngState::from_bytes(bytes)), 0x0102_0304);
    }

    #[test]
    fn to_prob_maps_to_unit_interval() {
        assert_eq!(to_prob(0), 0.0);
        assert_eq!(to_prob(1 << 30), 0.5);
        assert!(to_prob(0x7fff_ffff) < 1.0);
    }
}
