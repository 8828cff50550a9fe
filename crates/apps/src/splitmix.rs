//! SplitMix64: the small deterministic generator behind the instance
//! generators ([`crate::clique::Graph::random`], [`crate::knapsack`]).
//!
//! A generator of our own rather than a crate's keeps every generated
//! instance the same across dependency versions: a seed names an instance
//! for good. (Steele, Lea and Flood, "Fast splittable pseudorandom number
//! generators", OOPSLA 2014; the constants of `java.util.SplittableRandom`.)
//!
//! ```
//! use treelb_apps::splitmix::SplitMix64;
//! let mut a = SplitMix64::new(7);
//! let mut b = SplitMix64::new(7);
//! assert_eq!(a.next_u64(), b.next_u64());
//! assert!((1..=6).contains(&a.range(1, 6)));
//! ```

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

    /// The next 64 random bits.
    pub fn next_u64(&mut self) -> u64 {
        self.state = self.state.wrapping_add(0x9E37_79B9_7F4A_7C15);
        let mut z = self.state;
        z = (z ^ (z >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
        z = (z ^ (z >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
        z ^ (z >> 31)
    }

    /// A uniform integer in `lo..=hi` (`lo <= hi`), without modulo bias.
    pub fn range(&mut self, lo: i64, hi: i64) -> i64 {
        assert!(lo <= hi, "empty range {lo}..={hi}");
        let span = hi.abs_diff(lo).wrapping_add(1);
        if span == 0 {
            // The whole 64-bit range.
            return self.next_u64() as i64;
        }
        // Lemire's multiply-shift with rejection.
        loop {
            let x = self.next_u64();
            let m = u128::from(x) * u128::from(span);
            let low = m as u64;
            if low >= span.wrapping_neg() % span {
                return lo.wrapping_add((m >> 64) as i64);
            }
        }
    }

    /// A uniform float in `[0, 1)`.
    pub fn unit(&mut self) -> f64 {
        (self.next_u64() >> 11) as f64 * (1.0 / (1u64 << 53) as f64)
    }
}
