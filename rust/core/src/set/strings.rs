//! Each page's strings (its loc, then each link's href and hreflang), a block of pages at a
//! time: in memory up to the spill budget, then appended to one file; read again only for
//! the findings listed, found by record or link number.
use std::collections::{BTreeSet, HashMap};
use std::fs::{File, OpenOptions};
use std::io::{self, Read, Seek, SeekFrom, Write};
use std::path::PathBuf;

use super::table::SpillDir;

#[derive(Debug)]
enum Place {
    Held(Vec<u8>),
    File { at: u64, len: usize },
}

#[derive(Debug)]
struct Block {
    first_rec: u64,
    first_g: u64,
    place: Place,
}

#[derive(Debug)]
pub struct Strings {
    batch: usize,
    spill_bytes: usize,
    pending: Vec<u8>,
    pending_pages: usize,
    next: (u64, u64), // the record and link number the next page starts at
    blocks: Vec<Block>,
    held: usize,
    file: Option<(PathBuf, u64)>, // the file and its length
}

/// The length written for an href that is the page's own loc.
const SAME: u32 = u32::MAX;

fn put(out: &mut Vec<u8>, text: &str) {
    out.extend_from_slice(&(text.len() as u32).to_ne_bytes());
    out.extend_from_slice(text.as_bytes());
}

struct Reader<'a> {
    data: &'a [u8],
    at: usize,
}

impl<'a> Reader<'a> {
    fn number(&mut self) -> usize {
        let word = &self.data[self.at..self.at + 4];
        self.at += 4;
        u32::from_ne_bytes(word.try_into().expect("4 bytes")) as usize
    }

    fn text(&mut self) -> &'a str {
        let len = self.number();
        self.string(len)
    }

    fn string(&mut self, len: usize) -> &'a str {
        let text = &self.data[self.at..self.at + len];
        self.at += len;
        std::str::from_utf8(text).expect("written as a str")
    }
}

/// The locs of some records and the (href, hreflang) of some links.
pub type Found = (HashMap<u64, String>, HashMap<u64, (String, String)>);

impl Strings {
    pub fn new(batch: usize, spill_bytes: usize) -> Self {
        Strings {
            batch: batch.max(1),
            spill_bytes,
            pending: Vec::new(),
            pending_pages: 0,
            next: (0, 0),
            blocks: Vec::new(),
            held: 0,
            file: None,
        }
    }

    /// A page's loc and its links (href, hreflang), the next record.
    pub fn add<S: AsRef<str>>(
        &mut self,
        loc: &str,
        links: &[(S, S)],
        spill: &mut SpillDir,
    ) -> io::Result<()> {
        if self.pending_pages == 0 {
            self.blocks.push(Block {
                first_rec: self.next.0,
                first_g: self.next.1,
                place: Place::Held(Vec::new()),
            });
        }
        put(&mut self.pending, loc);
        self.pending
            .extend_from_slice(&(links.len() as u32).to_ne_bytes());
        for (href, code) in links {
            let (href, code) = (href.as_ref(), code.as_ref());
            if href == loc {
                // the page's own loc (most pages link to themselves): not written twice
                self.pending.extend_from_slice(&SAME.to_ne_bytes());
            } else {
                put(&mut self.pending, href);
            }
            put(&mut self.pending, code);
        }
        self.pending_pages += 1;
        self.next = (self.next.0 + 1, self.next.1 + links.len() as u64);
        if self.pending_pages >= self.batch {
            self.seal(spill)?;
        }
        Ok(())
    }

    /// The block being filled closed: kept in memory, or written to the file.
    pub fn seal(&mut self, spill: &mut SpillDir) -> io::Result<()> {
        if self.pending_pages == 0 {
            return Ok(());
        }
        // the next block's room taken at once (about as large), not grown a page at a time
        let room = self.pending.len();
        let data = std::mem::replace(&mut self.pending, Vec::with_capacity(room));
        self.pending_pages = 0;
        let last = self.blocks.len() - 1;
        if self.file.is_some() {
            self.blocks[last].place = self.write(&data)?;
            return Ok(());
        }
        self.held += data.len();
        self.blocks[last].place = Place::Held(data);
        if self.held >= self.spill_bytes {
            self.file = Some((spill.new_file()?, 0));
            for at in 0..self.blocks.len() {
                if let Place::Held(data) = &self.blocks[at].place {
                    let data = data.clone();
                    self.blocks[at].place = self.write(&data)?;
                }
            }
            self.held = 0;
        }
        Ok(())
    }

    fn write(&mut self, data: &[u8]) -> io::Result<Place> {
        let (path, len) = self.file.as_mut().expect("a file to write to");
        let mut out = OpenOptions::new().append(true).create(true).open(path)?;
        out.write_all(data)?;
        let place = Place::File {
            at: *len,
            len: data.len(),
        };
        *len += data.len() as u64;
        Ok(place)
    }

    /// The loc of each record in `recs`, the (href, hreflang) of each link in `links`.
    /// (The block being filled must be sealed first.)
    pub fn look_up(&self, recs: &BTreeSet<u64>, links: &BTreeSet<u64>) -> io::Result<Found> {
        debug_assert_eq!(self.pending_pages, 0);
        let mut wanted = BTreeSet::new();
        for rec in recs {
            wanted.insert(self.blocks.partition_point(|b| b.first_rec <= *rec) - 1);
        }
        for g in links {
            wanted.insert(self.blocks.partition_point(|b| b.first_g <= *g) - 1);
        }
        let mut locs = HashMap::new();
        let mut found = HashMap::new();
        let mut file: Option<File> = None;
        for at in wanted {
            let block = &self.blocks[at];
            let read;
            let data: &[u8] = match &block.place {
                Place::Held(data) => data,
                Place::File { at, len } => {
                    if file.is_none() {
                        let (path, _) = self.file.as_ref().expect("written to the file");
                        file = Some(File::open(path)?);
                    }
                    let f = file.as_mut().expect("opened above");
                    f.seek(SeekFrom::Start(*at))?;
                    let mut bytes = vec![0u8; *len];
                    f.read_exact(&mut bytes)?;
                    read = bytes;
                    &read
                }
            };
            let (mut rec, mut g) = (block.first_rec, block.first_g);
            let mut reader = Reader { data, at: 0 };
            while reader.at < data.len() {
                let loc = reader.text();
                if recs.contains(&rec) {
                    locs.insert(rec, loc.to_owned());
                }
                for _ in 0..reader.number() {
                    let len = reader.number();
                    let href = if len == SAME as usize {
                        loc
                    } else {
                        reader.string(len)
                    };
                    let code = reader.text();
                    if links.contains(&g) {
                        found.insert(g, (href.to_owned(), code.to_owned()));
                    }
                    g += 1;
                }
                rec += 1;
            }
        }
        Ok((locs, found))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn strings_found_again_in_memory_and_on_disk() {
        for (batch, spill_bytes) in [(4096, 1 << 20), (2, 16)] {
            let mut spill = SpillDir::default();
            let mut strings = Strings::new(batch, spill_bytes);
            let pages: Vec<(String, Vec<(String, String)>)> = (0..9)
                .map(|i| {
                    let links = (0..i % 3)
                        .map(|k| (format!("h{i}-{k}"), format!("c{k}")))
                        .collect();
                    (format!("p{i}"), links)
                })
                .collect();
            for (loc, links) in &pages {
                let links: Vec<(&str, &str)> = links
                    .iter()
                    .map(|(h, c)| (h.as_str(), c.as_str()))
                    .collect();
                strings.add(loc, &links, &mut spill).unwrap();
            }
            let recs: BTreeSet<u64> = (0..9).collect();
            let gs: BTreeSet<u64> = (0..9).collect();
            strings.seal(&mut spill).unwrap();
            let (locs, found) = strings.look_up(&recs, &gs).unwrap();
            assert_eq!(locs[&4], "p4");
            let flat: Vec<&(String, String)> = pages.iter().flat_map(|(_, l)| l).collect();
            assert_eq!(found.len(), flat.len());
            for (g, link) in flat.iter().enumerate() {
                assert_eq!(&&found[&(g as u64)], link);
            }
            assert_eq!(spill.path().is_some(), spill_bytes == 16);
        }
    }
}
