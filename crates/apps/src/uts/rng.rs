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
