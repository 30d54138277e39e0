//! The reader's duplicate test: the 64-bit hash of each loc passed on (xxh3, the writer's
//! `loc_hash`), in the build's table of hashes (`hash_table`). A false duplicate among a
//! million locs has a chance of about 1 in 3.7e7; the set takes 16-32 bytes a loc where
//! Python's set of int hashes took ~60.

use std::hash::Hasher;

use xxhash_rust::xxh3::xxh3_64;

use crate::hash_table::HashTable;

/// A loc's hash as the reader's duplicate test takes it (the writer's `loc_hash` of the same
/// text: the check's set rules compare the two).
pub fn hash_of(loc: &[u8]) -> u64 {
    xxh3_64(loc)
}

/// A hasher that passes an xxh3 hash through: it is already well mixed (a map keyed by
/// hashes: `check::element_texts`).
#[derive(Default)]
pub struct PassThrough(u64);

impl Hasher for PassThrough {
    fn finish(&self) -> u64 {
        self.0
    }

    fn write(&mut self, bytes: &[u8]) {
        // only u64 keys are hashed here (write_u64); fold anything else in
        for &b in bytes {
            self.0 = self.0.rotate_left(8) ^ u64::from(b);
        }
    }

    fn write_u64(&mut self, n: u64) {
        self.0 = n;
    }
}

/// The most locs whose slots [`SeenLocs::warm`] reads in at once, before they are noted:
/// lines that stay in the cache until their inserts.
pub const WARMED: usize = 1024;

pub struct SeenLocs {
    hashes: HashTable,
}

impl Default for SeenLocs {
    fn default() -> Self {
        Self {
            hashes: HashTable::new(),
        }
    }
}

impl SeenLocs {
    pub fn new() -> Self {
        Self::default()
    }

    /// Note `loc`; false when it was seen before.
    pub fn insert(&mut self, loc: &str) -> bool {
        self.insert_bytes(loc.as_bytes())
    }

    /// `insert` for a loc's UTF-8 bytes.
    pub fn insert_bytes(&mut self, loc: &[u8]) -> bool {
        self.insert_hash(hash_of(loc))
    }

    /// `insert` for a loc's hash ([`hash_of`]).
    pub fn insert_hash(&mut self, hash: u64) -> bool {
        self.hashes.insert(hash)
    }

    /// Note every loc whose hash ([`hash_of`]) is in `hashes` when none was seen before (nor
    /// twice among them), and say so; else note none (each is then taken one at a time).
    pub fn insert_all_new(&mut self, hashes: &[u64]) -> bool {
        self.reserve(hashes.len()); // grown first: the slots warmed are the ones probed
        self.warm(hashes);
        self.hashes.insert_all_new(hashes)
    }

    /// Read the slot each probe of `hashes` starts at, in a loop whose loads depend on no
    /// other and on no branch, so the CPU has many cache misses in flight at once; the
    /// inserts that follow find their lines in the cache (one at a time, between records,
    /// each waited for memory: a sixth of a read's time). As the build's `SeenHashes::warm`.
    pub fn warm(&self, hashes: &[u64]) {
        let sum = hashes
            .iter()
            .fold(0u64, |sum, &h| sum.wrapping_add(self.hashes.first_slot(h)));
        std::hint::black_box(sum);
    }

    /// Room for `more` locs without growing.
    pub fn reserve(&mut self, more: usize) {
        self.hashes.reserve(more);
    }

    pub fn len(&self) -> usize {
        self.hashes.len()
    }

    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }
}

#[cfg(test)]
mod tests {
    use super::{hash_of, SeenLocs};

    #[test]
    fn all_or_none() {
        let mut seen = SeenLocs::new();
        assert!(seen.insert("https://a.test/"));
        assert!(!seen.insert("https://a.test/"));
        let all_new = |seen: &mut SeenLocs, locs: [&str; 2]| {
            seen.insert_all_new(&locs.map(|l| hash_of(l.as_bytes())))
        };
        assert!(all_new(&mut seen, ["https://a.test/1", "https://a.test/2"]));
        assert_eq!(seen.len(), 3);
        assert!(!all_new(
            &mut seen,
            ["https://a.test/3", "https://a.test/1"]
        ));
        assert!(!all_new(
            &mut seen,
            ["https://a.test/4", "https://a.test/4"]
        ));
        assert_eq!(seen.len(), 3);
        assert!(seen.insert("https://a.test/3") && seen.insert("https://a.test/4"));
    }
}
