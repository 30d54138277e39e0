//! Where the set rule's rows wait: a spill directory, and tables of fixed-width rows of
//! `u64`s bucketed by the top byte of one column (their key).
use std::fs::{self, File};
use std::io::{self, Write};
use std::os::unix::fs::FileExt;
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicU64, Ordering};

/// A temporary directory, made with the first file and removed by `close` or when dropped
/// (the Python wrapper calls `close` on its own collection and at the process's exit).
#[derive(Debug, Default)]
pub struct SpillDir {
    path: Option<PathBuf>,
    files: u64,
}

static DIRS: AtomicU64 = AtomicU64::new(0);

impl SpillDir {
    /// The directory, once a file was made in it.
    pub fn path(&self) -> Option<&Path> {
        self.path.as_deref()
    }

    /// A new file's path in the directory (made with the first).
    pub fn new_file(&mut self) -> io::Result<PathBuf> {
        if self.path.is_none() {
            self.path = Some(fresh_dir()?);
        }
        self.files += 1;
        let dir = self.path.as_ref().expect("made above");
        Ok(dir.join(format!("{}.bin", self.files)))
    }

    /// Remove the directory and every file in it (an error removing is ignored: the
    /// directory is temporary, and nothing better can be done at exit).
    pub fn close(&mut self) {
        if let Some(path) = self.path.take() {
            let _ = fs::remove_dir_all(path);
        }
    }
}

impl Drop for SpillDir {
    fn drop(&mut self) {
        self.close();
    }
}

/// A directory of our own under the system's temporary directory (`TMPDIR`).
fn fresh_dir() -> io::Result<PathBuf> {
    let base = std::env::temp_dir();
    let nanos = std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .map_or(0, |d| d.subsec_nanos());
    loop {
        let n = DIRS.fetch_add(1, Ordering::Relaxed);
        let name = format!("urlset-hreflang-{}-{n}-{nanos:08x}", std::process::id());
        let path = base.join(name);
        match fs::create_dir(&path) {
            Ok(()) => return Ok(path),
            Err(e) if e.kind() == io::ErrorKind::AlreadyExists => continue,
            Err(e) => return Err(e),
        }
    }
}

/// A new file in `spill`, to write and read back.
fn spill_file(spill: &mut SpillDir) -> io::Result<File> {
    let path = spill.new_file()?;
    File::options()
        .read(true)
        .write(true)
        .create_new(true)
        .open(path)
}

pub type Row<const W: usize> = [u64; W];

#[derive(Debug)]
enum Run<const W: usize> {
    Held(Vec<Row<W>>),
    /// In the table's spill file of this number (its own, or one of a table appended to
    /// it), at this byte.
    Spilled(usize, u64),
}

/// Rows of `W` columns bucketed by the top byte of column `key`: in memory up to
/// `spill_bytes`, then in runs, each sorted by that byte with its 257 bucket bounds. A
/// table's spilled runs are one file, appended to and read at offsets: a judgement reads a
/// slice of every run a bucket, and a file a run cost an open, a seek and a close each time
/// (7,000 of each, and 130 files made and removed, at a million pages).
#[derive(Debug)]
pub struct Table<const W: usize> {
    key: usize,
    spill_bytes: usize,
    chunk: Vec<Row<W>>,
    pub rows: u64,
    runs: Vec<(Run<W>, Box<[usize; 257]>)>,
    files: Vec<File>,
    /// the file this table appends its runs to, and its length
    writing: Option<(usize, u64)>,
}

impl<const W: usize> Table<W> {
    pub fn new(key: usize, spill_bytes: usize) -> Self {
        Table {
            key,
            spill_bytes: spill_bytes.max(8 * W),
            chunk: Vec::new(),
            rows: 0,
            runs: Vec::new(),
            files: Vec::new(),
            writing: None,
        }
    }

    #[inline]
    pub fn push(&mut self, row: Row<W>, spill: &mut SpillDir) -> io::Result<()> {
        if self.chunk.len() == self.chunk.capacity() {
            self.make_room();
        }
        self.chunk.push(row);
        self.rows += 1;
        if self.chunk.len() * 8 * W >= self.spill_bytes {
            self.seal(true, spill)?;
        }
        Ok(())
    }

    /// Past its first rows a table takes room for a whole run at once (a small set stays
    /// small), not a doubling and a copy at a time.
    #[cold]
    fn make_room(&mut self) {
        let wanted = if self.rows < 4096 {
            64.max(2 * self.chunk.len())
        } else {
            self.full()
        };
        self.chunk
            .reserve_exact(wanted.max(self.chunk.len() + 1) - self.chunk.len());
    }

    /// The rows a run holds.
    fn full(&self) -> usize {
        self.spill_bytes.div_ceil(8 * W)
    }

    #[cfg(test)]
    pub fn extend(&mut self, rows: &[Row<W>], spill: &mut SpillDir) -> io::Result<()> {
        for row in rows {
            self.push(*row, spill)?;
        }
        Ok(())
    }

    fn seal(&mut self, to_disk: bool, spill: &mut SpillDir) -> io::Result<()> {
        if self.chunk.is_empty() {
            return Ok(());
        }
        let key = self.key;
        // a counting sort by the key's top byte: stable, so a run keeps the order rows came
        let mut bounds = Box::new([0usize; 257]);
        for row in &self.chunk {
            bounds[(row[key] >> 56) as usize + 1] += 1;
        }
        for top in 0..256 {
            bounds[top + 1] += bounds[top];
        }
        let mut next: [usize; 256] = bounds[..256].try_into().expect("256 bounds");
        // each place's row (4 bytes a row to set out, not the rows themselves), then the
        // rows written out in that order
        let mut order = vec![0u32; self.chunk.len()];
        for (i, row) in self.chunk.iter().enumerate() {
            let top = (row[key] >> 56) as usize;
            order[next[top]] = i as u32;
            next[top] += 1;
        }
        let chunk = &self.chunk;
        if to_disk {
            let mut bytes = Vec::with_capacity(chunk.len() * 8 * W);
            for &i in &order {
                for value in &chunk[i as usize] {
                    bytes.extend_from_slice(&value.to_ne_bytes());
                }
            }
            let (number, length) = match &mut self.writing {
                Some(writing) => writing,
                None => {
                    self.files.push(spill_file(spill)?);
                    self.writing.insert((self.files.len() - 1, 0))
                }
            };
            self.files[*number].write_all(&bytes)?;
            self.runs.push((Run::Spilled(*number, *length), bounds));
            *length += bytes.len() as u64;
        } else {
            let rows = order.iter().map(|&i| chunk[i as usize]).collect();
            self.runs.push((Run::Held(rows), bounds));
        }
        self.chunk.clear(); // its capacity kept for the next rows
        Ok(())
    }

    /// Seal the rows held, so that `bucket` sees every row so far: in memory while the
    /// table fits there, else to its spill file like the others.
    pub fn freeze(&mut self, spill: &mut SpillDir) -> io::Result<()> {
        self.seal(!self.files.is_empty(), spill)
    }

    /// Take `other`'s rows after these (both frozen; its spill files stay where they are,
    /// in their directory, which must outlive this table's reads).
    pub fn append(&mut self, other: Table<W>) {
        debug_assert!(self.chunk.is_empty() && other.chunk.is_empty(), "frozen");
        let files = self.files.len();
        self.files.extend(other.files);
        self.rows += other.rows;
        let moved = other.runs.into_iter().map(|(run, bounds)| match run {
            Run::Spilled(number, at) => (Run::Spilled(files + number, at), bounds),
            held => (held, bounds),
        });
        self.runs.extend(moved);
    }

    /// The rows whose key's top `bits` (0 to 8) are `number`: each run's rows of
    /// `2 ** (8 - bits)` neighbouring buckets of its 256 at once.
    pub fn bucket(&self, number: usize, bits: u32) -> io::Result<Vec<Row<W>>> {
        let width = 1usize << (8 - bits);
        let span = |bounds: &[usize; 257]| (bounds[number * width], bounds[(number + 1) * width]);
        let total = self.runs.iter().map(|(_, b)| span(b).1 - span(b).0).sum();
        let mut out = Vec::with_capacity(total);
        let mut bytes = Vec::new(); // one buffer for every run's read
        for (run, bounds) in &self.runs {
            let (lo, hi) = span(bounds);
            if hi == lo {
                continue;
            }
            match run {
                Run::Held(rows) => out.extend_from_slice(&rows[lo..hi]),
                Run::Spilled(number, at) => {
                    bytes.resize((hi - lo) * 8 * W, 0);
                    self.files[*number].read_exact_at(&mut bytes, at + (lo * 8 * W) as u64)?;
                    out.extend(bytes.chunks_exact(8 * W).map(|row| {
                        let mut values = [0u64; W];
                        for (value, word) in values.iter_mut().zip(row.chunks_exact(8)) {
                            *value = u64::from_ne_bytes(word.try_into().expect("8 bytes"));
                        }
                        values
                    }));
                }
            }
        }
        Ok(out)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn buckets_hold_every_row_in_memory_and_on_disk() {
        let mut spill = SpillDir::default();
        let mut table: Table<2> = Table::new(0, 64); // 4 rows a run file
        let rows: Vec<Row<2>> = (0..37u64)
            .map(|i| [i.wrapping_mul(0x9E37_79B9_7F4A_7C15), i])
            .collect();
        table.extend(&rows, &mut spill).unwrap();
        table.freeze(&mut spill).unwrap();
        let dir = spill.path().unwrap().to_path_buf();
        // ten runs, one file
        assert_eq!(table.runs.len(), 10);
        assert_eq!(fs::read_dir(&dir).unwrap().count(), 1);
        for bits in [0, 3, 8] {
            let mut seen: Vec<Row<2>> = Vec::new();
            for b in 0..1usize << bits {
                let part = table.bucket(b, bits).unwrap();
                assert!(part
                    .iter()
                    .all(|r| (r[0] >> (64 - bits.max(1))) as usize == b || bits == 0));
                seen.extend(part);
            }
            seen.sort_by_key(|r| r[1]);
            assert_eq!(seen, rows);
        }
        spill.close();
        assert!(!dir.exists());
    }

    #[test]
    fn a_table_that_fits_stays_in_memory() {
        let mut spill = SpillDir::default();
        let mut table: Table<1> = Table::new(0, 1 << 20);
        table.extend(&[[3], [u64::MAX], [1]], &mut spill).unwrap();
        table.freeze(&mut spill).unwrap();
        assert!(spill.path().is_none());
        assert_eq!(table.bucket(0, 8).unwrap(), vec![[3], [1]]);
        assert_eq!(table.bucket(255, 8).unwrap(), vec![[u64::MAX]]);
    }
}
