//! The transposition table: bounds of position values, shared by all PEs
//! without locks.

use std::sync::atomic::{AtomicU64, Ordering};

use treelb::game::Bound;

/// A table of `2^k` entries, one `u64` each: the position's 49-bit key,
/// whether the value is a lower or an upper bound, and the value. An entry
/// is read and written as one atomic word, so a reader sees an entry some
/// PE wrote whole or an empty one, never a mix of two; a key that does not
/// match is a miss. A write replaces whatever the slot held (the newest
/// result is the likeliest to be needed again). Every bound stored is a
/// correct bound of its position's value whoever searched it, so sharing
/// the table between PEs can change the nodes searched, never a value.
#[derive(Debug)]
pub struct Table {
    slots: Vec<AtomicU64>,
    shift: u32,
}

const VALUE_BITS: u32 = 8;

impl Table {
    /// An empty table of `2^log2_entries` entries (clamped to 1–40).
    pub fn new(log2_entries: u32) -> Self {
        let k = log2_entries.clamp(1, 40);
        Table { slots: (0..1u64 << k).map(|_| AtomicU64::new(0)).collect(), shift: 64 - k }
    }

    /// The number of entries.
    pub fn len(&self) -> usize {
        self.slots.len()
    }

    /// Whether the table has no entries (never: it has at least two).
    pub fn is_empty(&self) -> bool {
        self.slots.is_empty()
    }

    #[inline]
    fn slot(&self, key: u64) -> &AtomicU64 {
        &self.slots[(key.wrapping_mul(0x9E37_79B9_7F4A_7C15) >> self.shift) as usize]
    }

    /// The bound stored for `key`, if any.
    ///
    /// ```
    /// use treelb::game::Bound;
    /// use treelb_apps::connect4::Table;
    /// let t = Table::new(10);
    /// t.put(12345, -3, Bound::Upper);
    /// assert_eq!(t.get(12345), Some((-3, Bound::Upper)));
    /// assert_eq!(t.get(54321), None);
    /// ```
    #[inline]
    pub fn get(&self, key: u64) -> Option<(i32, Bound)> {
        let e = self.slot(key).load(Ordering::Relaxed);
        if e == 0 || e >> VALUE_BITS != key {
            return None;
        }
        let bound = if e & 0x80 != 0 { Bound::Lower } else { Bound::Upper };
        Some(((e & 0x7f) as i32 - 64, bound))
    }

    /// Stores a bound of the value of `key` (values from −64 to 63; keys of
    /// at most 56 bits).
    #[inline]
    pub fn put(&self, key: u64, value: i32, bound: Bound) {
        debug_assert!((-64..64).contains(&value) && key >> 56 == 0);
        let flag = if bound == Bound::Lower { 0x80 } else { 0 };
        // value + 64 > 0, so no stored entry is 0 (the empty slot).
        let e = key << VALUE_BITS | flag | (value + 64) as u64;
        self.slot(key).store(e, Ordering::Relaxed);
    }

    /// Empties the table.
    pub fn clear(&self) {
        for s in &self.slots {
            s.store(0, Ordering::Relaxed);
        }
    }
}
