//! SplitMix64: the one small deterministic generator of treelb.
//!
//! Every random choice of a strategy (a victim, a push target, a tie) and
//! every generated instance draws from it. A generator of our own rather
//! than a crate's keeps every choice the same across dependency versions: a
//! seed names a run's decisions, and an instance, for good. (Steele, Lea and
//! Flood, "Fast splittable pseudorandom number generators", OOPSLA 2014; the
//! constants of `java.util.SplittableRandom`.)
//!
//! ```
//! use treelb::rng::SplitMix64;
//! let mut a = SplitMix64::new(7);
//! let mut b = SplitMix64::new(7);
//! assert_eq!(a.next_u64(), b.next_u64());
//! assert!((1..=6).contains(&a.range(1, 6)));
//! assert!(a.below(10) < 10);
//! // Distinct PEs of one run draw from distinct streams.
//! assert_ne!(SplitMix64::stream(1, 0, 0).next_u64(), SplitMix64::stream(1, 1, 0).next_u64());
//! ```

/// The golden-ratio increment of SplitMix64.
const GAMMA: u64 = 0x9E37_79B9_7F4A_7C15;

/// SplitMix64's output function: a well-mixed 64-bit hash of `z`.
///
/// ```
/// assert_ne!(treelb::rng::mix(1), treelb::rng::mix(2));
/// ```
#[inline]
pub fn mix(z: u64) -> u64 {
    let mut z = z.wrapping_add(GAMMA);
    z = (z ^ (z >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
    z = (z ^ (z >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
    z ^ (z >> 31)
}

/// The SplitMix64 generator.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct SplitMix64 {
    state: u64,
}

impl SplitMix64 {
    /// A generator with the given seed.
    pub fn new(seed: u64) -> Self {
        SplitMix64 { state: seed }
    }

    /// The stream of PE `pe` in a run seeded with `seed`, for the purpose
    /// `salt` (one PE may hold several independent streams): well-mixed and
    /// distinct per (seed, PE, salt).
    pub fn stream(seed: u64, pe: usize, salt: u64) -> Self {
        SplitMix64::new(mix(seed ^ mix((pe as u64).wrapping_add(1).wrapping_mul(GAMMA) ^ salt)))
    }

    /// The next 64 random bits.
    #[inline]
    pub fn next_u64(&mut self) -> u64 {
        self.state = self.state.wrapping_add(GAMMA);
        let mut z = self.state;
        z = (z ^ (z >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
        z = (z ^ (z >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
        z ^ (z >> 31)
    }

    /// A uniform integer in `0..n` (`n ≥ 1`), without modulo bias.
    #[inline]
    pub fn below(&mut self, n: u64) -> u64 {
        assert!(n > 0, "below(0) has no value");
        // Lemire's multiply-shift with rejection.
        loop {
            let m = u128::from(self.next_u64()) * u128::from(n);
            if (m as u64) >= n.wrapping_neg() % n {
                return (m >> 64) as u64;
            }
        }
    }

    /// A uniform integer in `lo..=hi` (`lo <= hi`), without modulo bias.
    pub fn range(&mut self, lo: i64, hi: i64) -> i64 {
        assert!(lo <= hi, "empty range {lo}..={hi}");
        let span = hi.abs_diff(lo).wrapping_add(1);
        if span == 0 {
            // The whole 64-bit range.
            return self.next_u64() as i64;
        }
        lo.wrapping_add(self.below(span) as i64)
    }

    /// A uniform float in `[0, 1)`.
    pub fn unit(&mut self) -> f64 {
        (self.next_u64() >> 11) as f64 * (1.0 / (1u64 << 53) as f64)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn below_is_uniform_and_in_range() {
        let mut r = SplitMix64::new(3);
        let mut hits = [0u32; 5];
        for _ in 0..50_000 {
            hits[r.below(5) as usize] += 1;
        }
        for h in hits {
            assert!((9_000..11_000).contains(&h), "{hits:?}");
        }
        assert_eq!(r.range(4, 4), 4);
        let u = r.unit();
        assert!((0.0..1.0).contains(&u));
    }

    #[test]
    fn the_reference_sequence() {
        // SplittableRandom(0).nextLong() sequence.
        let mut r = SplitMix64::new(0);
        assert_eq!(r.next_u64(), 0xE220_A839_7B1D_CDAF);
        assert_eq!(mix(0), 0xE220_A839_7B1D_CDAF);
    }
}
