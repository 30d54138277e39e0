//! A set of 64-bit hashes for the duplicate tests of a build (`write::dedupe`, the hashes
//! recorded since the last seal) and of a read (`read::seen`): one slot of 8 bytes a probe
//! reads, where a general hash set reads a control byte and the slot, two lines of a table
//! of megabytes, each a cache and TLB miss (a third of a 500k-entry read's time went there).

use memmap2::{MmapMut, MmapOptions};

/// Tables from this size on live in an anonymous map the kernel is asked to back with huge
/// pages (`Slots`).
const HUGE_PAGE: usize = 2 << 20;

/// The slots' memory, zeroed: a vector, or from `HUGE_PAGE` bytes on an anonymous map,
/// advised as huge pages where the kernel has them (refused, it has small pages, as a
/// vector has): a table of megabytes probed at random missed the TLB on nearly every probe,
/// and on a virtual machine a miss walks two page tables.
enum Slots {
    Small(Vec<u64>),
    /// The map and where in it the first 2 MiB boundary is, where the slots start (a huge
    /// page covers only an aligned 2 MiB).
    Mapped(MmapMut, usize, usize),
}

impl Slots {
    fn zeroed(n: usize) -> Slots {
        let bytes = n * 8;
        if bytes >= HUGE_PAGE {
            if let Ok(map) = MmapOptions::new().len(bytes + HUGE_PAGE).map_anon() {
                #[cfg(target_os = "linux")]
                let _ = map.advise(memmap2::Advice::HugePage);
                let start = (HUGE_PAGE - map.as_ptr() as usize % HUGE_PAGE) % HUGE_PAGE;
                return Slots::Mapped(map, start, bytes);
            }
        }
        Slots::Small(vec![0; n])
    }

    fn get(&self) -> &[u64] {
        match self {
            Slots::Small(slots) => slots,
            Slots::Mapped(map, start, bytes) => bytemuck::cast_slice(&map[*start..start + bytes]),
        }
    }

    fn get_mut(&mut self) -> &mut [u64] {
        match self {
            Slots::Small(slots) => slots,
            Slots::Mapped(map, start, bytes) => {
                bytemuck::cast_slice_mut(&mut map[*start..*start + *bytes])
            }
        }
    }
}

/// 64-bit hashes (XXH3: evenly spread) in an open-addressed table (linear probing, at most
/// half full): a probe is one read that depends on no
/// other probe, so a batch's probes overlap their cache misses, and a batch needs no sort.
/// Zero marks an empty slot (the hash 0 is kept aside).
pub(crate) struct HashTable {
    slots: Slots,
    size: usize,
    shift: u32,
    len: usize,
    zero: bool,
}

impl HashTable {
    const FIRST_BITS: u32 = 14;

    pub(crate) fn new() -> HashTable {
        HashTable {
            slots: Slots::zeroed(1 << Self::FIRST_BITS),
            size: 1 << Self::FIRST_BITS,
            shift: 64 - Self::FIRST_BITS,
            len: 0,
            zero: false,
        }
    }

    /// Where `hash` is, or the empty slot where it would go.
    fn slot(&self, hash: u64) -> Result<usize, usize> {
        let slots = self.slots.get();
        let mask = self.size - 1;
        // the top bits after a multiply (Fibonacci hashing): small values spread too
        let mut at = (hash.wrapping_mul(0x9E37_79B9_7F4A_7C15) >> self.shift) as usize;
        loop {
            match slots[at] {
                0 => return Err(at),
                held if held == hash => return Ok(at),
                _ => at = (at + 1) & mask,
            }
        }
    }

    /// The slot `hash`'s probe starts at (read only to bring its cache line in: `warm`).
    pub(crate) fn first_slot(&self, hash: u64) -> u64 {
        self.slots.get()[(hash.wrapping_mul(0x9E37_79B9_7F4A_7C15) >> self.shift) as usize]
    }

    pub(crate) fn contains(&self, hash: u64) -> bool {
        if hash == 0 {
            return self.zero;
        }
        self.slot(hash).is_ok()
    }

    /// Add `hash`; false when the table held it already.
    pub(crate) fn insert(&mut self, hash: u64) -> bool {
        if hash == 0 {
            return !std::mem::replace(&mut self.zero, true);
        }
        let Err(at) = self.slot(hash) else {
            return false;
        };
        self.slots.get_mut()[at] = hash;
        self.len += 1;
        if 2 * self.len > self.size {
            self.grow(1);
        }
        true
    }

    /// Add every hash of `hashes` when none is held yet nor twice among them (true); else
    /// add none and leave the table as it was (false). One probe a hash: the inserts made
    /// before a hash found held are undone, last first (with no growth in between, zeroing
    /// a slot undoes the insert that filled it: every later one is gone already).
    pub(crate) fn insert_all_new(&mut self, hashes: &[u64]) -> bool {
        self.reserve(hashes.len());
        let (len, zero) = (self.len, self.zero);
        let mut placed = Vec::with_capacity(hashes.len());
        for &hash in hashes {
            let at = match hash {
                0 if !self.zero => {
                    self.zero = true;
                    continue;
                }
                0 => None,
                _ => self.slot(hash).err(),
            };
            let Some(at) = at else {
                let slots = self.slots.get_mut();
                for &at in placed.iter().rev() {
                    slots[at] = 0;
                }
                (self.len, self.zero) = (len, zero);
                return false;
            };
            self.slots.get_mut()[at] = hash;
            self.len += 1;
            placed.push(at);
        }
        true
    }

    /// Room for `more` hashes without growing.
    pub(crate) fn reserve(&mut self, more: usize) {
        let mut doublings = 0;
        while 2 * (self.len + more) > self.size << doublings {
            doublings += 1;
        }
        if doublings > 0 {
            self.grow(doublings);
        }
    }

    /// The table `doublings` times as large, its hashes placed again.
    fn grow(&mut self, doublings: u32) {
        self.size <<= doublings;
        let old = std::mem::replace(&mut self.slots, Slots::zeroed(self.size));
        self.shift -= doublings;
        self.len = 0;
        for &hash in old.get().iter().filter(|&&h| h != 0) {
            self.insert(hash);
        }
    }

    pub(crate) fn len(&self) -> usize {
        self.len + usize::from(self.zero)
    }

    /// The hashes, ascending, and the table emptied (its slots kept). They are spread evenly
    /// (XXH3), so a counting sort by their top 16 bits puts each within a bucket of a few,
    /// which an insertion sort finishes (a crowded bucket is sorted as a whole instead).
    pub(crate) fn drain_sorted(&mut self) -> Vec<u64> {
        const BITS: u32 = 16;
        let mut starts = vec![0usize; (1 << BITS) + 1];
        for &hash in self.slots.get().iter().filter(|&&h| h != 0) {
            starts[(hash >> (64 - BITS)) as usize + 1] += 1;
        }
        for bucket in 1..starts.len() {
            starts[bucket] += starts[bucket - 1];
        }
        let mut sorted = vec![0u64; self.len];
        let mut next = starts.clone();
        for &hash in self.slots.get().iter().filter(|&&h| h != 0) {
            let bucket = (hash >> (64 - BITS)) as usize;
            sorted[next[bucket]] = hash;
            next[bucket] += 1;
        }
        for bucket in starts.windows(2) {
            let run = &mut sorted[bucket[0]..bucket[1]];
            if run.len() > 32 {
                run.sort_unstable();
                continue;
            }
            for end in 1..run.len() {
                let mut at = end;
                while at > 0 && run[at - 1] > run[at] {
                    run.swap(at - 1, at);
                    at -= 1;
                }
            }
        }
        if std::mem::take(&mut self.zero) {
            sorted.insert(0, 0);
        }
        self.slots.get_mut().fill(0);
        self.len = 0;
        sorted
    }
}

#[cfg(test)]
mod tests {
    use super::HashTable;

    #[test]
    fn a_batch_goes_in_whole_or_leaves_the_table_as_it_was() {
        let mut state = 11u64;
        let mut next = |range: u64| {
            state = state
                .wrapping_mul(6_364_136_223_846_793_005)
                .wrapping_add(1_442_695_040_888_963_407);
            (state >> 33) % range
        };
        // few distinct values (crowded probes, batches that meet the held ones) and 0
        let mut table = HashTable::new();
        let mut held: Vec<u64> = Vec::new();
        for batch in 0..400 {
            let n = 1 + next(300) as usize;
            let hashes: Vec<u64> = (0..n)
                .map(|_| match next(50) {
                    0 => 0,
                    _ => next(40_000).wrapping_mul(0x9E37_79B9_7F4A_7C15) >> (batch % 3 * 20),
                })
                .collect();
            let mut distinct = hashes.clone();
            distinct.sort_unstable();
            distinct.dedup();
            let new = distinct.len() == n && hashes.iter().all(|h| held.binary_search(h).is_err());
            assert_eq!(table.insert_all_new(&hashes), new, "batch {batch}");
            if new {
                held.extend(&hashes);
                held.sort_unstable();
            }
            assert_eq!(table.len(), held.len());
            let probes = hashes.iter().chain(&held);
            assert!(probes
                .clone()
                .all(|h| table.contains(*h) == held.binary_search(h).is_ok()));
        }
        assert_eq!(table.drain_sorted(), held);
    }

    #[test]
    fn the_table_finds_what_a_binary_search_finds_and_drains_sorted() {
        let mut state = 7u64;
        let mut next = || {
            state = state
                .wrapping_mul(6_364_136_223_846_793_005)
                .wrapping_add(1_442_695_040_888_963_407);
            ((state >> 33) % 5_000).wrapping_mul(0x9E37_79B9_7F4A_7C15) // spread, collisions kept
        };
        for (runs, probes) in [
            (0, 10),
            (1, 1),
            (3, 40),
            (1_000, 7),
            (2_000, 2_000),
            (50, 900),
        ] {
            let mut run: Vec<u64> = (0..runs).map(|_| next()).collect();
            run.sort_unstable();
            run.dedup();
            let mut probe: Vec<u64> = (0..probes).map(|_| next()).collect();
            probe.sort_unstable();
            probe.dedup();
            let mut table = HashTable::new();
            for hash in &run {
                table.insert(*hash);
            }
            let held: Vec<bool> = probe.iter().map(|p| table.contains(*p)).collect();
            let want: Vec<bool> = probe.iter().map(|p| run.binary_search(p).is_ok()).collect();
            assert_eq!(held, want, "{runs} {probes}");
            assert_eq!(table.drain_sorted(), run);
            assert_eq!(table.len(), 0);
            assert!(!table.contains(probe[0]));
        }
        let mut table = HashTable::new();
        let many: Vec<u64> = (0..40_000u64).map(|i| i * 3).collect(); // one crowded bucket
        for hash in &many {
            table.insert(*hash);
            table.insert(*hash);
        }
        assert_eq!(table.len(), many.len());
        assert!(many.iter().all(|h| table.contains(*h)) && !table.contains(1));
        assert_eq!(table.drain_sorted(), many);
    }

    #[test]
    fn a_table_of_megabytes_in_a_map_answers_as_a_small_one() {
        let hashes: Vec<u64> = (1..=200_000u64)
            .map(|i| i.wrapping_mul(0x9E37_79B9_7F4A_7C15))
            .collect();
        let (mut grown, mut reserved) = (HashTable::new(), HashTable::new());
        reserved.reserve(hashes.len());
        assert!(matches!(reserved.slots, super::Slots::Mapped(..)));
        for &h in &hashes {
            assert!(grown.insert(h) && reserved.insert(h));
            assert!(!grown.insert(h));
        }
        assert!(matches!(grown.slots, super::Slots::Mapped(..)));
        assert_eq!((grown.len(), reserved.len()), (hashes.len(), hashes.len()));
        assert!(hashes
            .iter()
            .all(|&h| grown.contains(h) && reserved.contains(h)));
        assert!(!grown.contains(3) && !reserved.contains(0));
        assert!(grown.insert(0) && !grown.insert(0) && grown.contains(0));
        let mut sorted = hashes.clone();
        sorted.sort_unstable();
        assert_eq!(reserved.drain_sorted(), sorted);
    }
}
