//! The reader's duplicate test: the 64-bit hash of each loc passed on (xxh3, the writer's
//! `loc_hash`), in a hash set keyed by the hash itself. A false duplicate among a million
//! locs has a chance of about 1 in 3.7e7; the set takes ~16 bytes a loc where Python's set
//! of int hashes took ~60.

use std::collections::HashSet;
use std::hash::{BuildHasherDefault, Hasher};

use xxhash_rust::xxh3::xxh3_64;

/// A loc's hash as the reader's duplicate test takes it (the writer's `loc_hash` of the same
/// text: the check's set rules compare the two).
pub fn hash_of(loc: &[u8]) -> u64 {
    xxh3_64(loc)
}

/// A hasher that passes an xxh3 hash through: it is already well mixed.
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

#[derive(Default)]
pub struct SeenLocs {
    hashes: HashSet<u64, BuildHasherDefault<PassThrough>>,
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

    /// Note every loc when none was seen before (nor twice among them), and say so; else
    /// note none (each is then taken one at a time).
    pub fn insert_all_new<'a>(&mut self, locs: impl ExactSizeIterator<Item = &'a str>) -> bool {
        let hashes: Vec<u64> = locs.map(|l| hash_of(l.as_bytes())).collect();
        self.hashes.reserve(hashes.len());
        for (i, &h) in hashes.iter().enumerate() {
            if !self.hashes.insert(h) {
                for earlier in &hashes[..i] {
                    self.hashes.remove(earlier);
                }
                return false;
            }
        }
        true
    }

    /// Room for `more` locs without growing.
    pub fn reserve(&mut self, more: usize) {
        self.hashes.reserve(more);
    }

    pub fn len(&self) -> usize {
        self.hashes.len()
    }

    pub fn is_empty(&self) -> bool {
        self.hashes.is_empty()
    }
}

#[cfg(test)]
mod tests {
    use super::SeenLocs;

    #[test]
    fn all_or_none() {
        let mut seen = SeenLocs::new();
        assert!(seen.insert("https://a.test/"));
        assert!(!seen.insert("https://a.test/"));
        assert!(seen.insert_all_new(["https://a.test/1", "https://a.test/2"].into_iter()));
        assert_eq!(seen.len(), 3);
        assert!(!seen.insert_all_new(["https://a.test/3", "https://a.test/1"].into_iter()));
        assert!(!seen.insert_all_new(["https://a.test/4", "https://a.test/4"].into_iter()));
        assert_eq!(seen.len(), 3);
        assert!(seen.insert("https://a.test/3") && seen.insert("https://a.test/4"));
    }
}
