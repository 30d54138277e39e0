//! hreflang reciprocity across a sitemap set, on 64-bit hashes in bounded memory: the engine
//! behind Python's `extensions/reciprocity.py`, for check and build alike.
//!
//! Each page with alternates is kept as rows of hashes, one a link: (page, target, record,
//! link number), its strings (loc, each link's href and hreflang) in blocks beside them,
//! read again only for the findings listed; each page without alternates as its loc's hash.
//! Rows wait in memory up to `spill_bytes` a table, then go to a run (in the table's one
//! spill file) sorted by the top byte of their key (256 buckets), so a set of ten million
//! pages holds a few megabytes.
//! [`LinkSet::judge`] then works a bucket (of 256 or fewer: about `spill_bytes` of links
//! each) at a time, in four joins on the hashes:
//!
//! 1. the links of each page (a page given twice: the union, first place kept), its group's
//!    fingerprint (a sum of mixed hashes: the same set of pages gives the same sum), and a
//!    claim on each variant it names (bucketed by the variant); the upper half of the
//!    buckets on a second thread, with spill files of its own;
//! 2. each claim against the variant's own page: a variant with no alternates is unlisted
//!    (in the set when a page without alternates has its hash, or `known` says so); one
//!    whose group has the same fingerprint lacks nothing; the others are sent on by the
//!    naming page;
//! 3. each such claim made one candidate a member of the naming page's group;
//! 4. each candidate the variant does not link to is a missing link, once a (page, target).
//!
//! Every finding keeps its place (the naming page's first record, then the link numbers),
//! so the first `cap` of each code are the ones the rule walked in order names first.
//!
//! Hashes are the build's de-duplication hash ([`loc_hash`], XXH3): two distinct locs share
//! one with probability about n² / 2⁶⁵ (3e-6 for ten million), and such a pair is judged as
//! one page (a missing link can go unreported, a variant counted in the set); two groups'
//! fingerprints meet by chance with the same odds (a group then taken for reciprocal).
//! Pairs (page, target) are compared whole, never folded into one key.
//!
//! The spill directory ([`SpillDir`]) is made with the first file and removed on every
//! exit path: [`LinkSet::close`], the engine dropped (an error returned from any step drops
//! nothing, but the Python wrapper's owner closes it on collection and at the process's
//! exit through `weakref.finalize`).
mod alternates;
mod judge;
mod strings;
mod table;

use std::collections::BTreeSet;
use std::io;
use std::path::Path;

use crate::write::render::loc_hash;
pub use alternates::{alternates, alternates_in, alternates_into};
pub use judge::mixed;
use judge::{Judgement, Places};
use strings::Strings;
pub use table::SpillDir;
use table::Table;

/// Bytes a table holds in memory before its rows go to a run file.
pub const SPILL_BYTES: usize = 1 << 20;
/// Pages whose strings are kept in one block.
pub const STRING_BATCH: usize = 4096;
/// The place of a page's own loc appended to its group (it does not list itself).
pub const LAST: u64 = u64::MAX;

/// Asked which variants without alternates are in the set: their hashes, and a way to
/// have their hrefs when a caller must go by strings; an answer for each.
pub type Known<'k> =
    dyn FnMut(&[u64], &mut dyn FnMut() -> io::Result<Vec<String>>) -> io::Result<Vec<bool>> + 'k;

/// `page` does not link to `target`; `named_by` lists both as variants of one page;
/// `hreflang` is the code `named_by` gives `target` ("" for a page missing its self-link
/// that `named_by` does not list).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct MissingLink {
    pub page: String,
    pub target: String,
    pub hreflang: String,
    pub named_by: String,
}

/// `variant`, named as `hreflang` by `named_by`, lists no alternates; `in_set`: it is a page
/// of the set.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Unlisted {
    pub variant: String,
    pub hreflang: String,
    pub named_by: String,
    pub in_set: bool,
}

/// What [`LinkSet::judge`] finds: the findings listed (the first `cap` of each code, in the
/// order the rule walks the set) and how many of each there are.
#[derive(Debug, Default, PartialEq, Eq)]
pub struct Findings {
    pub missing: Vec<MissingLink>,
    pub missing_count: u64,
    pub unlisted: Vec<Unlisted>,
    pub unlisted_in_set: u64,
    pub unlisted_outside: u64,
    pub pages: u64,
}

/// A set's hreflang links as hashes (see the module doc).
#[derive(Debug)]
pub struct LinkSet {
    spill: SpillDir,
    spill_bytes: usize,
    own: Table<4>,
    plain: Table<1>,
    strings: Strings,
    records: u64,
    links: u64,
}

impl Default for LinkSet {
    fn default() -> Self {
        LinkSet::new(SPILL_BYTES, STRING_BATCH)
    }
}

impl LinkSet {
    /// An empty set; `spill_bytes` and `string_batch` small in tests, to spill at once.
    pub fn new(spill_bytes: usize, string_batch: usize) -> Self {
        LinkSet {
            spill: SpillDir::default(),
            spill_bytes,
            own: Table::new(0, spill_bytes),
            plain: Table::new(0, spill_bytes),
            strings: Strings::new(string_batch, spill_bytes),
            records: 0,
            links: 0,
        }
    }

    /// A page and its links as written, (href, hreflang) each: one link an href, at its
    /// first place with its last code (a later link to the same href wins, as a mapping
    /// of href to hreflang keeps them). A page without links adds nothing: give its hash
    /// to [`LinkSet::add_plain`].
    pub fn add_page<S: AsRef<str>>(&mut self, loc: &str, links: &[(S, S)]) -> io::Result<()> {
        if links.is_empty() {
            return Ok(());
        }
        // most pages name each href once: their links taken as they are, no copy made
        let repeated = (1..links.len()).any(|i| {
            let href = links[i].0.as_ref();
            links[..i].iter().any(|(known, _)| known.as_ref() == href)
        });
        if !repeated {
            return self.add_once(loc, links);
        }
        let mut once: Vec<(&str, &str)> = Vec::with_capacity(links.len());
        for (href, code) in links {
            let (href, code) = (href.as_ref(), code.as_ref());
            match once.iter_mut().find(|(known, _)| *known == href) {
                Some(link) => link.1 = code,
                None => once.push((href, code)),
            }
        }
        self.add_once(loc, &once)
    }

    /// `add_page` for links whose hrefs are distinct.
    fn add_once<S: AsRef<str>>(&mut self, loc: &str, once: &[(S, S)]) -> io::Result<()> {
        let page = loc_hash(loc);
        for (k, (href, _)) in once.iter().enumerate() {
            // a page's link to itself (most pages have one) takes the hash it has
            let href = href.as_ref();
            let target = if href == loc { page } else { loc_hash(href) };
            let row = [page, target, self.records, self.links + k as u64];
            self.own.push(row, &mut self.spill)?;
        }
        self.strings.add(loc, once, &mut self.spill)?;
        self.records += 1;
        self.links += once.len() as u64;
        Ok(())
    }

    /// Pages without alternates, as their locs' hashes ([`loc_hash`]).
    pub fn add_plain(&mut self, hashes: &[u64]) -> io::Result<()> {
        for &hash in hashes {
            self.plain.push([hash], &mut self.spill)?;
        }
        Ok(())
    }

    /// Pages added with links (a page given twice counts twice).
    pub fn records(&self) -> u64 {
        self.records
    }

    /// The spill directory, once a table or the strings went to a file.
    pub fn spill_path(&self) -> Option<&Path> {
        self.spill.path()
    }

    /// Remove the spill directory (the engine holds nothing useful after).
    pub fn close(&mut self) {
        self.spill.close();
    }

    /// The findings: the first `cap` of each code (all without one), in order, and their
    /// counts; `include_self`: a page lacking only its self-link is a missing link too.
    /// `known` says which variants without alternates are in the set (those it names are
    /// kept as plain pages for later judgements).
    pub fn judge(
        &mut self,
        cap: Option<usize>,
        include_self: bool,
        known: Option<&mut Known<'_>>,
    ) -> io::Result<Findings> {
        self.own.freeze(&mut self.spill)?;
        self.plain.freeze(&mut self.spill)?;
        self.strings.seal(&mut self.spill)?;
        // buckets of about spill_bytes of links each (at most 256): a few reads a run
        let bits = (self.own.rows * 32 / self.spill_bytes.max(1) as u64).checked_ilog2();
        let bits = bits.map_or(0, |b| (b + 1).min(8));
        let places = Judgement {
            own: &self.own,
            plain: &mut self.plain,
            strings: &self.strings,
            spill: &mut self.spill,
            known,
            cap,
            include_self,
            bits,
            spill_bytes: self.spill_bytes,
        }
        .run()?;
        self.named(places)
    }

    /// The places found made findings: the strings of the listed read back.
    fn named(&self, places: Places) -> io::Result<Findings> {
        let mut recs = BTreeSet::new();
        let mut numbers = BTreeSet::new();
        for &[_, _, rec, gq, gt] in &places.missing {
            recs.insert(rec);
            numbers.extend([gq, gt].into_iter().filter(|&g| g != LAST));
        }
        for &[_, rec, g, _] in &places.unlisted {
            recs.insert(rec);
            numbers.insert(g);
        }
        let (locs, links) = self.strings.look_up(&recs, &numbers)?;
        let named = |rec: u64, g: u64| -> (String, String) {
            if g == LAST {
                (locs[&rec].clone(), String::new())
            } else {
                links[&g].clone()
            }
        };
        let missing = places
            .missing
            .iter()
            .map(|&[_, _, rec, gq, gt]| {
                let (target, hreflang) = named(rec, gt);
                MissingLink {
                    page: named(rec, gq).0,
                    target,
                    hreflang,
                    named_by: locs[&rec].clone(),
                }
            })
            .collect();
        let unlisted = places
            .unlisted
            .iter()
            .map(|&[_, rec, g, in_set]| {
                let (variant, hreflang) = links[&g].clone();
                Unlisted {
                    variant,
                    hreflang,
                    named_by: locs[&rec].clone(),
                    in_set: in_set != 0,
                }
            })
            .collect();
        Ok(Findings {
            missing,
            missing_count: places.missing_count,
            unlisted,
            unlisted_in_set: places.in_set,
            unlisted_outside: places.outside,
            pages: places.pages,
        })
    }
}

#[cfg(test)]
mod tests;
