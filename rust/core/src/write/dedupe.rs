//! De-duplication of a build's locs by their 64-bit hashes, exactly, in ~2.3 bytes a loc at
//! scale. New hashes go into a table in memory (open addressing: a probe depends on no other,
//! so a batch's cache misses overlap); when it holds `seal_at` hashes they are sealed: sorted,
//! written to a file in the spill directory and kept in memory as a trace (where each bucket
//! of top bits starts, and the 16 bits after a hash's bucket, its tag), and the table starts
//! again. A probe whose tag is in its bucket is read back from the file, so the answer stays
//! exact. Sealed runs merge file to file when a newer one grows to half the size of the one
//! before it.

use std::fs::{self, File};
use std::io::{self, BufReader, BufWriter, Read, Write};
use std::os::unix::fs::FileExt;
use std::path::{Path, PathBuf};

use crate::hash_table::HashTable;

const CHUNK: usize = 1 << 16; // hashes read or written at a time while sealing and merging
const WARM: usize = 512; // probes whose cache lines are read in before they run (32 KiB of lines)

/// An I/O error that names the file it happened to.
fn at(path: &Path) -> impl Fn(io::Error) -> io::Error + '_ {
    move |error| io::Error::new(error.kind(), format!("{}: {error}", path.display()))
}

/// A sorted run of hashes kept in a file, with 18 bits a hash in memory.
struct SealedRun {
    path: PathBuf,
    file: File,
    count: usize,
    shift: u32,
    starts: Vec<u32>,
    tags: Vec<u16>,
}

impl SealedRun {
    /// Write ascending `hashes` (`count` of them) to `path` and build the trace.
    fn write(path: PathBuf, hashes: impl Iterator<Item = u64>, count: usize) -> io::Result<Self> {
        let bits = (usize::BITS - count.leading_zeros())
            .saturating_sub(5)
            .max(1);
        let shift = 64 - bits;
        let mut starts = vec![0u32; (1usize << bits) + 1];
        let mut tags = Vec::with_capacity(count);
        let mut out = BufWriter::with_capacity(8 * CHUNK, File::create(&path).map_err(at(&path))?);
        let mut bucket = 0usize; // buckets whose start is known
        for (done, hash) in hashes.enumerate() {
            let id = (hash >> shift) as usize;
            while bucket <= id {
                starts[bucket] = done as u32;
                bucket += 1;
            }
            tags.push((hash >> (shift - 16)) as u16);
            out.write_all(&hash.to_le_bytes()).map_err(at(&path))?;
        }
        for start in &mut starts[bucket..] {
            *start = tags.len() as u32;
        }
        // no fsync: a run is scratch, read back through the page cache by this process only,
        // and removed with the staging directory (it cost ~70 ms a seal, on the build's path)
        out.into_inner().map_err(|e| at(&path)(e.into_error()))?;
        let file = File::open(&path).map_err(at(&path))?;
        Ok(SealedRun {
            path,
            file,
            count: tags.len().max(count.min(tags.len())),
            shift,
            starts,
            tags,
        })
    }

    /// The first tag of `hash`'s bucket (read only to bring its cache line in: `warm`).
    fn first_tag(&self, hash: u64) -> u16 {
        let start = self.starts[(hash >> self.shift) as usize] as usize;
        self.tags.get(start).copied().unwrap_or(0)
    }

    /// Whether the run holds `hash`.
    fn holds(&self, hash: u64) -> io::Result<bool> {
        let bucket = (hash >> self.shift) as usize;
        let (low, end) = (
            self.starts[bucket] as usize,
            self.starts[bucket + 1] as usize,
        );
        let tag = (hash >> (self.shift - 16)) as u16;
        let first = low + self.tags[low..end].partition_point(|&t| t < tag);
        let stop = first
            + self.tags[first..end]
                .iter()
                .take_while(|&&t| t == tag)
                .count();
        if first == stop {
            return Ok(false);
        }
        let mut window = vec![0u8; 8 * (stop - first)];
        self.file
            .read_exact_at(&mut window, 8 * first as u64)
            .map_err(at(&self.path))?;
        Ok(window
            .chunks_exact(8)
            .any(|w| u64::from_le_bytes(w.try_into().expect("8 bytes")) == hash))
    }

    /// The run's hashes, ascending, read from its file a chunk at a time.
    fn hashes(&self) -> io::Result<FileHashes> {
        Ok(FileHashes {
            reader: BufReader::with_capacity(8 * CHUNK, File::open(&self.path)?),
            error: None,
        })
    }
}

/// Hashes read back from a sealed run's file; an error ends the stream and is kept.
struct FileHashes {
    reader: BufReader<File>,
    error: Option<io::Error>,
}

impl Iterator for FileHashes {
    type Item = u64;

    fn next(&mut self) -> Option<u64> {
        let mut word = [0u8; 8];
        match self.reader.read_exact(&mut word) {
            Ok(()) => Some(u64::from_le_bytes(word)),
            Err(e) if e.kind() == io::ErrorKind::UnexpectedEof => None,
            Err(e) => {
                self.error = Some(e);
                None
            }
        }
    }
}

/// Two ascending streams as one (no hash is in both).
fn merged(a: impl Iterator<Item = u64>, b: impl Iterator<Item = u64>) -> impl Iterator<Item = u64> {
    let (mut a, mut b) = (a.peekable(), b.peekable());
    std::iter::from_fn(move || match (a.peek(), b.peek()) {
        (Some(x), Some(y)) if x <= y => a.next(),
        (Some(_), Some(_)) => b.next(),
        (Some(_), None) => a.next(),
        (None, _) => b.next(),
    })
}

/// The locs written so far, as hashes.
pub struct SeenHashes {
    table: HashTable,
    sealed: Vec<SealedRun>,
    spill_dir: Option<PathBuf>,
    seal_at: usize,
    files: usize,
}

impl SeenHashes {
    /// Without a spill directory every hash stays in the table in memory.
    pub fn new(spill_dir: Option<&Path>, seal_at: usize) -> SeenHashes {
        SeenHashes {
            table: HashTable::new(),
            sealed: Vec::new(),
            spill_dir: spill_dir.map(Path::to_path_buf),
            seal_at: seal_at.max(1),
            files: 0,
        }
    }

    /// For each hash, whether it is new (not seen before, not earlier in this batch); records
    /// the new ones.
    pub fn first_seen(&mut self, hashes: &[u64]) -> io::Result<Vec<bool>> {
        let mut keep = Vec::with_capacity(hashes.len());
        for part in hashes.chunks(WARM) {
            std::hint::black_box(self.warm(part));
            self.first_seen_into(part, &mut keep)?;
        }
        Ok(keep)
    }

    /// Read the slot and the tags each probe of `hashes` starts at, in a loop whose loads
    /// depend on no other and on no branch, so the CPU has many cache misses in flight at
    /// once (the table and the traces are megabytes, read at random); the probes after,
    /// which branch on what they read, then find their lines in the cache. Safe code has
    /// no prefetch instruction: these are plain loads, summed so they are not left out.
    fn warm(&self, hashes: &[u64]) -> u64 {
        let mut sum = 0u64;
        for &hash in hashes {
            sum = sum.wrapping_add(self.table.first_slot(hash));
            for sealed in &self.sealed {
                sum = sum.wrapping_add(u64::from(sealed.first_tag(hash)));
            }
        }
        sum
    }

    fn first_seen_into(&mut self, hashes: &[u64], keep: &mut Vec<bool>) -> io::Result<()> {
        for &hash in hashes {
            let mut new = !self.table.contains(hash);
            for sealed in &self.sealed {
                if !new {
                    break;
                }
                new = !sealed.holds(hash)?;
            }
            if new {
                self.table.insert(hash); // so a later one in this batch is not new
                                         // sealed at once, so that the table never grows past twice `seal_at` slots
                if self.spill_dir.is_some() && self.table.len() >= self.seal_at {
                    let run = self.table.drain_sorted();
                    let count = run.len();
                    self.seal(run.into_iter(), count)?;
                }
            }
            keep.push(new);
        }
        Ok(())
    }

    fn seal(&mut self, hashes: impl Iterator<Item = u64>, count: usize) -> io::Result<()> {
        let dir = self.spill_dir.as_ref().expect("a spill directory");
        self.files += 1;
        let run = SealedRun::write(dir.join(format!(".seen-{}", self.files)), hashes, count)?;
        self.sealed.push(run);
        if let [.., older, newer] = self.sealed.as_slice() {
            if 2 * newer.count >= older.count {
                let newer = self.sealed.pop().expect("two runs");
                let older = self.sealed.pop().expect("two runs");
                let (mut a, mut b) = (older.hashes()?, newer.hashes()?);
                let total = older.count + newer.count;
                let (older_path, newer_path) = (older.path.clone(), newer.path.clone());
                drop((older, newer)); // the traces go before the merged one is built
                self.seal(merged(&mut a, &mut b), total)?;
                if let Some(error) = a.error.or(b.error) {
                    return Err(error);
                }
                fs::remove_file(&older_path).map_err(at(&older_path))?;
                fs::remove_file(&newer_path).map_err(at(&newer_path))?;
            }
        }
        Ok(())
    }

    /// Remove the files of sealed runs.
    pub fn close(&mut self) {
        for sealed in self.sealed.drain(..) {
            let _ = fs::remove_file(&sealed.path);
        }
    }
}

impl Drop for SeenHashes {
    fn drop(&mut self) {
        self.close();
    }
}

#[cfg(test)]
mod tests {
    use super::SeenHashes;
    use std::collections::HashSet;

    fn check(seen: &mut SeenHashes) {
        let mut reference = HashSet::new();
        let mut state = 0x9E37_79B9_7F4A_7C15u64;
        for batch in 0..200 {
            let hashes: Vec<u64> = (0..97)
                .map(|i| {
                    state = state
                        .wrapping_mul(6_364_136_223_846_793_005)
                        .wrapping_add(1);
                    if i % 7 == 0 {
                        (state >> 40) % 500
                    } else {
                        state ^ batch
                    }
                })
                .collect();
            let want: Vec<bool> = hashes.iter().map(|h| reference.insert(*h)).collect();
            assert_eq!(seen.first_seen(&hashes).unwrap(), want, "batch {batch}");
        }
    }

    #[test]
    fn answers_are_those_of_a_set_in_memory_and_sealed() {
        check(&mut SeenHashes::new(None, 1 << 19));
        let dir = std::env::temp_dir().join(format!("urlset-seen-{}", std::process::id()));
        std::fs::create_dir_all(&dir).unwrap();
        let mut sealed = SeenHashes::new(Some(&dir), 32);
        check(&mut sealed);
        assert!(!sealed.sealed.is_empty());
        sealed.close();
        assert_eq!(std::fs::read_dir(&dir).unwrap().count(), 0);
        std::fs::remove_dir(&dir).unwrap();
    }

    #[test]
    fn a_batch_longer_than_the_warmed_part_is_answered_across_its_parts() {
        let dir = std::env::temp_dir().join(format!("urlset-seen-warm-{}", std::process::id()));
        std::fs::create_dir_all(&dir).unwrap();
        let mut seen = SeenHashes::new(Some(&dir), 700); // sealed inside the batch too
        let hashes: Vec<u64> = (0..3 * super::WARM as u64)
            .map(|i| (i % 1_000).wrapping_mul(0x9E37_79B9_7F4A_7C15))
            .collect(); // repeats that fall in a later part than their first
        let got = seen.first_seen(&hashes).unwrap();
        let want: Vec<bool> = (0..hashes.len()).map(|i| i < 1_000).collect();
        assert_eq!(got, want);
        assert!(!seen.sealed.is_empty());
        seen.close();
        std::fs::remove_dir(&dir).unwrap();
    }
}
