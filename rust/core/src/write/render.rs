//! Entries rendered a batch at a time into one buffer, with exact byte accounting: where each
//! entry ends, its lastmod (for the index's newest and the future check) and its loc's hash
//! (for de-duplication), so a document takes a run of entries as one slice of bytes.

use std::collections::HashMap;

use super::entry_texts::EntryTexts;
use super::escape::escape_into;
use super::links::{EntryLinks, Links};
use crate::values::extensions::Extensions;
use crate::values::lastmod::{Lastmod, Precision};
use crate::values::scalars::Priority;

/// The checked values of one entry.
#[derive(Clone, Copy, Debug, Default)]
pub struct Values {
    pub lastmod: Option<Lastmod>,
    pub changefreq: Option<&'static str>,
    pub priority: Option<Priority>,
}

/// Why a row left the compiled path for the per-entry one (the build counts them by name).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Refusal {
    /// a loc the core does not make a URI under the prefix (invalid, out of scope, or rare)
    Loc,
    /// a lastmod, changefreq or priority that is invalid or given as an unusual object
    Value,
    /// a row that is not a (loc, lastmod, changefreq, priority) tuple of usual objects
    Row,
    /// a row with extension values (images, videos, news, alternates)
    Extensions,
    /// a JSON line other than an object of the core keys with scalar values
    JsonLine,
}

impl Refusal {
    pub const ALL: [Refusal; 5] = [
        Refusal::Loc,
        Refusal::Value,
        Refusal::Row,
        Refusal::Extensions,
        Refusal::JsonLine,
    ];

    /// The reason's name in the build report's counter.
    pub fn name(self) -> &'static str {
        match self {
            Refusal::Loc => "loc",
            Refusal::Value => "value",
            Refusal::Row => "row",
            Refusal::Extensions => "extensions",
            Refusal::JsonLine => "json-line",
        }
    }
}

pub use crate::values::extensions::{IMAGE_BIT, TYPED_NAMESPACES, XHTML_BIT};

/// Entries of a batch, back to back in one buffer, and the input rows that were refused (each
/// by its position among the inputs: rendered and refused rows in their given order).
#[derive(Clone, Debug, Default)]
pub struct Rendered {
    inputs: usize,
    refused: Vec<(usize, Refusal)>,
    buf: Vec<u8>,
    ends: Vec<usize>,
    lastmods: Vec<Option<Lastmod>>,
    /// each entry's `Lastmod::newest_key` (`NO_KEY` without a lastmod): the document's newest
    /// is found on these, and they are made where the entries are rendered (off the thread
    /// that writes documents)
    newest_keys: Vec<i64>,
    /// the latest `Lastmod::future_key` of the entries (`NO_KEY` when none has a lastmod)
    latest_future: i64,
    /// the last lastmod written, its text and keys: most entries of a batch share the lastmod
    /// of the entry before (a site's pages have a few dates), which is then copied
    last_lastmod: Option<WrittenLastmod>,
    /// whether a lastmod is a year or a month alone (check warns: `lastmod-without-day`)
    without_day: bool,
    hashes: Vec<u64>,
    locs: Vec<u8>,
    loc_ends: Vec<usize>,
    /// the typed namespaces each entry uses (bits of [`TYPED_NAMESPACES`]): its text has no
    /// declaration of them, the document's root or its `<url>` gets one (`bytes_declared`)
    namespaces: Vec<u8>,
    /// all entries' namespaces together
    any_namespace: u8,
    /// (entry, code, text) of what the per-URL extension rules found in entries written as
    /// given (`Extensions::findings`), in order: the build reports each with check's code
    findings: EntryTexts<&'static str>,
    /// the hreflang links of the entries that have some, (hreflang, href) each: the set's
    /// reciprocity is judged on what was written
    links: Links,
    /// the news articles of the entries that have some, (publication instant, title) each:
    /// a document holds at most 1,000, and the build's rules judge their age
    news: EntryTexts<i64>,
}

/// The room `more` entries take when each is like the `done` before it, which held `len`
/// (an eighth more: entries differ).
pub(crate) fn room_as_so_far(len: usize, done: usize, more: usize) -> usize {
    (len * more).div_ceil(done.max(1)) * 9 / 8
}

/// A lastmod as an entry's text has it, and its keys (`Lastmod::newest_key`, `future_key`).
#[derive(Clone, Copy, Debug)]
struct WrittenLastmod {
    lastmod: Lastmod,
    text: [u8; 32],
    len: usize,
    newest: i64,
    future: i64,
}

impl WrittenLastmod {
    fn of(lastmod: Lastmod) -> WrittenLastmod {
        let (text, len) = lastmod.text();
        let (newest, future) = match lastmod.precision {
            Precision::Time => {
                let instant = lastmod.instant(); // both keys of a time
                (instant, instant)
            }
            _ => (lastmod.newest_key(), lastmod.future_key()),
        };
        WrittenLastmod {
            lastmod,
            text,
            len,
            newest,
            future,
        }
    }
}

/// The key of an entry without a lastmod: before every instant a lastmod can name.
const NO_KEY: i64 = i64::MIN;

/// The 64-bit key de-duplication keeps for a loc.
pub fn loc_hash(loc: &str) -> u64 {
    xxhash_rust::xxh3::xxh3_64(loc.as_bytes())
}

impl Rendered {
    pub fn with_capacity(entries: usize) -> Rendered {
        Rendered {
            inputs: 0,
            refused: Vec::new(),
            buf: Vec::with_capacity(entries * 160),
            ends: Vec::with_capacity(entries),
            lastmods: Vec::with_capacity(entries),
            newest_keys: Vec::with_capacity(entries),
            latest_future: NO_KEY,
            last_lastmod: None,
            without_day: false,
            hashes: Vec::with_capacity(entries),
            locs: Vec::with_capacity(entries * 48),
            loc_ends: Vec::with_capacity(entries),
            namespaces: Vec::with_capacity(entries),
            any_namespace: 0,
            findings: EntryTexts::default(),
            links: Links::default(),
            news: EntryTexts::default(),
        }
    }

    /// Room for `bytes` more of rendered text than [`Rendered::with_capacity`] guessed: a
    /// batch whose rows carry extensions renders about their texts' size more, and a
    /// buffer grown by doubling copies what it held each time.
    pub fn reserve_text(&mut self, bytes: usize) {
        let room = self.buf.capacity() - self.buf.len();
        self.buf.reserve(room + bytes);
    }

    /// Room for `entries` entries in all, each like those rendered so far: once a batch's
    /// first rows show its shape (links, long extensions), its buffers are made that size
    /// at once rather than grown by doubling, which copies what they held each time.
    pub fn reserve_as_so_far(&mut self, entries: usize) {
        let (done, more) = (self.inputs, entries.saturating_sub(self.inputs));
        self.buf
            .reserve_exact(room_as_so_far(self.buf.len(), done, more));
        self.locs
            .reserve_exact(room_as_so_far(self.locs.len(), done, more));
        self.links.reserve_as_so_far(done, more);
        self.news.reserve_as_so_far(done, more);
        self.findings.reserve_as_so_far(done, more);
    }

    /// Render one entry: a <url> element and its newline, or in a text sitemap the loc and
    /// a newline (`loc` is a URI: no line break in it).
    pub fn push(&mut self, loc: &str, values: &Values, text: bool) {
        self.push_with(loc, values, text, &Extensions::default());
    }

    /// [`Rendered::push`] with the entry's extensions (checked: `values::extensions`),
    /// written after its priority as `document._xml_entries_ext` writes them, without their
    /// namespaces' declarations; what the per-URL rules find noted for the report (a text
    /// sitemap too). An entry the rules would have the build repair is refused instead
    /// ([`Refusal::Extensions`]): the per-entry way repairs it and says so.
    pub fn push_with(&mut self, loc: &str, values: &Values, text: bool, extensions: &Extensions) {
        let Some(found) = extensions.findings(loc) else {
            self.refuse(Refusal::Extensions);
            return;
        };
        let entry = self.ends.len();
        let found = found.iter().map(|(code, text)| (*code, text.as_str()));
        self.findings.push(entry, found);
        let links = extensions.links();
        self.links
            .push(entry, links.map(|link| (link.hreflang(), link.href())));
        self.news.push(entry, extensions.news_published());
        let namespaces = if text { 0 } else { extensions.namespaces() };
        self.namespaces.push(namespaces);
        self.any_namespace |= namespaces;
        let written = values.lastmod.map(|lastmod| self.written_lastmod(lastmod));
        let out = &mut self.buf;
        if text {
            out.extend_from_slice(loc.as_bytes());
            out.push(b'\n');
        } else {
            out.extend_from_slice(b"<url><loc>");
            escape_into(out, loc);
            out.extend_from_slice(b"</loc>");
            if let Some(lastmod) = &written {
                out.extend_from_slice(b"<lastmod>");
                out.extend_from_slice(&lastmod.text[..lastmod.len]);
                out.extend_from_slice(b"</lastmod>");
            }
            if let Some(changefreq) = values.changefreq {
                out.extend_from_slice(b"<changefreq>");
                out.extend_from_slice(changefreq.as_bytes());
                out.extend_from_slice(b"</changefreq>");
            }
            if let Some(priority) = values.priority {
                out.extend_from_slice(b"<priority>");
                priority.write(out);
                out.extend_from_slice(b"</priority>");
            }
            extensions.write(out);
            out.extend_from_slice(b"</url>\n");
        }
        self.ends.push(out.len());
        self.push_lastmod(values.lastmod, written.map(|w| (w.newest, w.future)));
        self.hashes.push(loc_hash(loc));
        self.locs.extend_from_slice(loc.as_bytes());
        self.loc_ends.push(self.locs.len());
        self.inputs += 1;
    }

    /// The next input row is not rendered: it goes the per-entry way, for `why`.
    pub fn refuse(&mut self, why: Refusal) {
        self.refused.push((self.inputs, why));
        self.inputs += 1;
    }

    /// The refused input rows, by position among the inputs, in order.
    pub fn refused(&self) -> &[(usize, Refusal)] {
        &self.refused
    }

    /// Add `other`'s entries (and refused rows) after these.
    pub fn append(&mut self, other: &Rendered) {
        let (base, loc_base) = (self.buf.len(), self.locs.len());
        let inputs = self.inputs;
        self.refused
            .extend(other.refused.iter().map(|&(at, why)| (inputs + at, why)));
        self.inputs += other.inputs;
        self.buf.extend_from_slice(&other.buf);
        self.ends.extend(other.ends.iter().map(|end| base + end));
        self.lastmods.extend_from_slice(&other.lastmods);
        self.newest_keys.extend_from_slice(&other.newest_keys);
        self.latest_future = self.latest_future.max(other.latest_future);
        self.without_day |= other.without_day;
        self.hashes.extend_from_slice(&other.hashes);
        self.locs.extend_from_slice(&other.locs);
        self.loc_ends
            .extend(other.loc_ends.iter().map(|end| loc_base + end));
        let entries = self.namespaces.len();
        self.namespaces.extend_from_slice(&other.namespaces);
        self.any_namespace |= other.any_namespace;
        self.findings.append(&other.findings, entries);
        self.links.append(&other.links, entries);
        self.news.append(&other.news, entries);
    }

    /// The loc of entry `index`.
    pub fn loc(&self, index: usize) -> &str {
        let start = if index == 0 {
            0
        } else {
            self.loc_ends[index - 1]
        };
        std::str::from_utf8(&self.locs[start..self.loc_ends[index]]).expect("locs are whole strs")
    }

    pub fn len(&self) -> usize {
        self.ends.len()
    }

    pub fn is_empty(&self) -> bool {
        self.ends.is_empty()
    }

    fn start_of(&self, index: usize) -> usize {
        if index == 0 {
            0
        } else {
            self.ends[index - 1]
        }
    }

    /// The bytes of entries `start..end`.
    pub fn bytes(&self, start: usize, end: usize) -> &[u8] {
        &self.buf[self.start_of(start)..self.start_of(end)]
    }

    /// How many entries from `start` (at most `limit`) fit in `room` bytes.
    pub fn fit(&self, start: usize, limit: usize, room: usize) -> usize {
        let stop = (start + limit).min(self.len());
        let base = self.start_of(start);
        // ends are ascending: the first end past the room is where the run stops
        self.ends[start..stop].partition_point(|&end| end - base <= room)
    }

    /// The typed namespaces entries `start..end` use (bits of [`TYPED_NAMESPACES`]).
    pub fn namespaces(&self, start: usize, end: usize) -> u8 {
        if self.any_namespace == 0 {
            return 0;
        }
        let end = end.min(self.len());
        self.namespaces[start.min(end)..end]
            .iter()
            .fold(0, |all, &bits| all | bits)
    }

    /// The declarations entry `index` carries when the root declares `declared`: each
    /// namespace it uses that the root does not, ` xmlns:prefix="namespace"`, in order.
    fn declarations(&self, index: usize, declared: u8) -> impl Iterator<Item = (&str, &str)> {
        let missing = self
            .namespaces
            .get(index)
            .map_or(0, |bits| bits & !declared);
        let typed = TYPED_NAMESPACES.iter().enumerate();
        typed
            .filter(move |(bit, _)| missing & (1 << bit) != 0)
            .map(|(_, &pair)| pair)
    }

    /// The bytes of entry `index` when the root declares `declared`.
    pub fn size_declared(&self, index: usize, declared: u8) -> usize {
        let extra: usize = self
            .declarations(index, declared)
            .map(|(prefix, ns)| " xmlns:=\"\"".len() + prefix.len() + ns.len())
            .sum();
        self.bytes(index, index + 1).len() + extra
    }

    /// [`Rendered::fit`] when the root declares `declared` (an entry using another typed
    /// namespace declares it on its `<url>`).
    pub fn fit_declared(&self, start: usize, limit: usize, room: usize, declared: u8) -> usize {
        if self.namespaces(start, start + limit) & !declared == 0 {
            return self.fit(start, limit, room);
        }
        let stop = (start + limit).min(self.len());
        let mut used = 0;
        for index in start..stop {
            used += self.size_declared(index, declared);
            if used > room {
                return index - start;
            }
        }
        stop - start
    }

    /// The bytes of entries `start..end` when the root declares `declared`.
    pub fn bytes_declared(&self, start: usize, end: usize, declared: u8) -> Vec<u8> {
        if self.namespaces(start, end) & !declared == 0 {
            return self.bytes(start, end).to_vec();
        }
        let mut out = Vec::with_capacity(self.bytes(start, end).len() + 64);
        for index in start..end {
            let entry = self.bytes(index, index + 1);
            let mut declarations = self.declarations(index, declared).peekable();
            if declarations.peek().is_none() {
                out.extend_from_slice(entry);
                continue;
            }
            out.extend_from_slice(b"<url");
            for (prefix, ns) in declarations {
                out.extend_from_slice(b" xmlns:");
                out.extend_from_slice(prefix.as_bytes());
                out.extend_from_slice(b"=\"");
                out.extend_from_slice(ns.as_bytes());
                out.push(b'"');
            }
            out.extend_from_slice(&entry[b"<url".len()..]);
        }
        out
    }

    /// (entry, code, text): what the per-URL extension rules found, entry by entry in the
    /// order `extensions.rules.check_url` reports it.
    pub fn findings(&self) -> impl Iterator<Item = (usize, &'static str, &str)> {
        self.findings.iter()
    }

    /// How many findings each code has, codes in the order first found.
    pub fn finding_counts(&self) -> Vec<(&'static str, usize)> {
        let mut counts: Vec<(&'static str, usize)> = Vec::new();
        for (_, code, _) in self.findings.iter() {
            match counts.iter_mut().find(|(known, _)| *known == code) {
                Some((_, count)) => *count += 1,
                None => counts.push((code, 1)),
            }
        }
        counts
    }

    /// Whether any entry has news articles.
    pub fn has_news(&self) -> bool {
        !self.news.is_empty()
    }

    /// How many of the entries from `start` (at most `limit`) keep a sitemap within `room`
    /// more news articles: up to the first whose articles pass it, which a sitemap's
    /// `first` entry is taken with all the same. Found by a binary search among the
    /// articles (one row each), not a Python step an entry.
    pub fn news_fit(&self, start: usize, limit: usize, room: usize, first: bool) -> usize {
        match self.news.entries_within(start, limit, room) {
            Some(entries) => entries.max(usize::from(first)),
            None => limit,
        }
    }

    /// How many news articles the entries from `start` to `end` hold.
    pub fn news_in(&self, start: usize, end: usize) -> usize {
        self.news.count_in(start, end)
    }

    /// (entry, title, publication instant) of each news article published before `since`
    /// (microseconds since 1970 UTC), in order: the build's rules leave it out or report it.
    pub fn news_before(&self, since: i64) -> Vec<(usize, &str, i64)> {
        let old = self.old_news(since);
        old.map(|(entry, published, title)| (entry, title, published))
            .collect()
    }

    /// How many news articles were published before `since`: what a build counts once its
    /// examples of `news-too-old` are full.
    pub fn news_count_before(&self, since: i64) -> usize {
        self.old_news(since).count()
    }

    fn old_news(&self, since: i64) -> impl Iterator<Item = (usize, i64, &str)> {
        let articles = self.news.iter();
        articles.filter(move |&(_, published, _)| published < since)
    }

    /// (entry, its hreflang links as (hreflang, href)) of the entries that have some.
    pub fn links(&self) -> impl Iterator<Item = (usize, EntryLinks<'_>)> {
        self.links.iter()
    }

    /// How many entries have hreflang links.
    pub fn linked_entries(&self) -> usize {
        self.links.len()
    }

    /// `lastmod` written and keyed, or the last one again when it is the same.
    fn written_lastmod(&mut self, lastmod: Lastmod) -> WrittenLastmod {
        match self.last_lastmod {
            Some(last) if last.lastmod == lastmod => last,
            _ => *self.last_lastmod.insert(WrittenLastmod::of(lastmod)),
        }
    }

    /// An entry's lastmod and its keys (newest, future), made by `written_lastmod` (None:
    /// made here).
    fn push_lastmod(&mut self, lastmod: Option<Lastmod>, keys: Option<(i64, i64)>) {
        self.lastmods.push(lastmod);
        let Some(lastmod) = lastmod else {
            self.newest_keys.push(NO_KEY);
            return;
        };
        let (newest, future) = keys.unwrap_or_else(|| (lastmod.newest_key(), lastmod.future_key()));
        self.newest_keys.push(newest);
        self.latest_future = self.latest_future.max(future);
        self.without_day |= matches!(lastmod.precision, Precision::Year | Precision::Month);
    }

    /// The newest lastmod of entries `start..end` (`dates.latest_moment`); of equal ones the
    /// first, so the index never depends on how entries were batched.
    pub fn newest(&self, start: usize, end: usize) -> Option<Lastmod> {
        let keys = &self.newest_keys[start..end];
        let newest = keys.iter().copied().max().filter(|&key| key != NO_KEY)?;
        let first = keys.iter().position(|&key| key == newest)?;
        self.lastmods[start + first]
    }

    /// Whether no lastmod is in the future at `now` (microseconds since 1970 UTC).
    pub fn all_current(&self, now: i64) -> bool {
        self.latest_future <= now
    }

    /// Whether every lastmod names a day at least (none is a year or a month alone).
    pub fn all_with_day(&self) -> bool {
        !self.without_day
    }

    /// Each entry's loc hash, in order.
    pub fn hashes(&self) -> &[u64] {
        &self.hashes
    }

    /// The entries whose flag is true, in order (no refused rows among the inputs).
    pub fn select(&self, keep: &[bool]) -> Rendered {
        let mut out = Rendered::with_capacity(keep.len());
        for (index, _) in keep.iter().enumerate().filter(|(_, &k)| k) {
            out.copy_entry(self, index);
        }
        out
    }

    /// Entries `start..end` (no refused rows among the inputs).
    pub fn range(&self, start: usize, end: usize) -> Rendered {
        let mut out = Rendered::with_capacity(end - start);
        for index in start..end {
            out.copy_entry(self, index);
        }
        out
    }

    /// These rows with the refused inputs `at` (ascending, each refused here) rendered in
    /// `other` after all (`other`'s entries, one for each in order): the batch whole again,
    /// in input order, the other refused rows still refused.
    pub fn spliced(&self, other: &Rendered, at: &[usize]) -> Rendered {
        let mut out = Rendered::with_capacity(self.len() + other.len());
        let (mut entry, mut taken) = (0, 0);
        let mut refused = self.refused.iter().peekable();
        let mut at = at.iter().peekable();
        for input in 0..self.inputs {
            let Some(&(_, why)) = refused.next_if(|(row, _)| *row == input) else {
                out.copy_entry(self, entry);
                entry += 1;
                continue;
            };
            if at.next_if(|&&row| row == input).is_some() && taken < other.len() {
                out.copy_entry(other, taken);
                taken += 1;
            } else {
                out.refuse(why);
            }
        }
        out
    }

    fn copy_entry(&mut self, from: &Rendered, index: usize) {
        let namespaces = from.namespaces.get(index).copied().unwrap_or(0);
        self.namespaces.push(namespaces);
        self.any_namespace |= namespaces;
        let entry = self.ends.len();
        self.findings.copy(&from.findings, index, entry);
        self.links.copy(&from.links, index, entry);
        self.news.copy(&from.news, index, entry);
        self.buf.extend_from_slice(from.bytes(index, index + 1));
        self.ends.push(self.buf.len());
        self.push_lastmod(from.lastmods[index], None);
        self.hashes.push(from.hashes[index]);
        self.locs.extend_from_slice(from.loc(index).as_bytes());
        self.loc_ends.push(self.locs.len());
        self.inputs += 1;
    }

    /// The entries whose lastmod is later than `now` (microseconds since 1970 UTC).
    pub fn future(&self, now: i64) -> Vec<usize> {
        if self.all_current(now) {
            return Vec::new();
        }
        let later = |(_, lastmod): &(usize, &Option<Lastmod>)| {
            lastmod.is_some_and(|lastmod| lastmod.future_key() > now)
        };
        let lastmods = self.lastmods.iter().enumerate();
        lastmods.filter(later).map(|(index, _)| index).collect()
    }

    /// The distinct texts of the lastmods that are a year or a month alone, each with how
    /// many entries have it, in the order of first use: what the build counts when the
    /// examples of `lastmod-without-day` are full (a year-month site has a few dozen such
    /// texts over millions of entries).
    pub fn without_day_texts(&self) -> Vec<(String, usize)> {
        if self.all_with_day() {
            return Vec::new();
        }
        let mut first: HashMap<(bool, u16, u8), usize> = HashMap::new();
        let mut texts: Vec<(Lastmod, usize)> = Vec::new();
        for lastmod in self.lastmods.iter().flatten() {
            let month = match lastmod.precision {
                Precision::Year => false,
                Precision::Month => true,
                _ => continue,
            };
            let key = (month, lastmod.year, if month { lastmod.month } else { 0 });
            let index = *first.entry(key).or_insert_with(|| {
                texts.push((*lastmod, 0));
                texts.len() - 1
            });
            texts[index].1 += 1;
        }
        let text = |lastmod: Lastmod| {
            let mut text = Vec::with_capacity(8);
            lastmod.write(&mut text);
            String::from_utf8_lossy(&text).into_owned()
        };
        texts.into_iter().map(|(l, n)| (text(l), n)).collect()
    }

    /// The entries whose lastmod is a year or a month alone, with its text.
    pub fn without_day(&self) -> Vec<(usize, String)> {
        if self.all_with_day() {
            return Vec::new();
        }
        let short = |(_, lastmod): &(usize, &Option<Lastmod>)| {
            lastmod.is_some_and(|l| matches!(l.precision, Precision::Year | Precision::Month))
        };
        let lastmods = self.lastmods.iter().enumerate().filter(short);
        lastmods
            .filter_map(|(index, lastmod)| {
                let mut text = Vec::with_capacity(8);
                lastmod.as_ref()?.write(&mut text);
                Some((index, String::from_utf8_lossy(&text).into_owned()))
            })
            .collect()
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::values::lastmod::parse;
    use crate::values::scalars::changefreq;

    fn values(lastmod: &str) -> Values {
        Values {
            lastmod: parse(lastmod),
            changefreq: changefreq(" Daily "),
            priority: Priority::from_text("0.50"),
        }
    }

    #[test]
    fn an_entry_is_written_whole_and_escaped() {
        let mut rendered = Rendered::with_capacity(1);
        rendered.push("https://x.org/?a=1&b='2'", &values("2024-01-02"), false);
        assert_eq!(
            std::str::from_utf8(rendered.bytes(0, 1)).unwrap(),
            "<url><loc>https://x.org/?a=1&amp;b=&apos;2&apos;</loc><lastmod>2024-01-02</lastmod>\
             <changefreq>daily</changefreq><priority>0.5</priority></url>\n"
        );
    }

    #[test]
    fn a_lastmod_repeated_is_written_and_keyed_as_a_new_one() {
        let texts = [
            "2024-01-02",
            "2024-01-02",
            "2024",
            "2024-01-01",
            "2024",
            "2024-01-01T00:00:00Z",
            "2024-01-01T00:00:00Z",
            "2024-01-01T00:00:00+01:00",
            "2024-01-02",
            "",
        ];
        let mut rendered = Rendered::with_capacity(texts.len());
        for text in texts {
            rendered.push("https://x.org/a", &values(text), false);
        }
        for (index, text) in texts.iter().enumerate() {
            let mut alone = Rendered::with_capacity(1);
            alone.push("https://x.org/a", &values(text), false);
            assert_eq!(
                rendered.bytes(index, index + 1),
                alone.bytes(0, 1),
                "{text}"
            );
            assert_eq!(rendered.newest(index, index + 1), alone.newest(0, 1));
            assert_eq!(rendered.newest_keys[index], alone.newest_keys[0]);
        }
        let latest = texts
            .iter()
            .filter_map(|text| parse(text))
            .map(|l| l.future_key())
            .max();
        assert_eq!(Some(rendered.latest_future), latest);
    }

    #[test]
    fn lastmods_without_a_day_are_counted_by_text() {
        let mut rendered = Rendered::with_capacity(7);
        for lastmod in [
            "2024-02",
            "2024",
            "2024-02-03",
            "2024-02",
            "",
            "2023-12",
            "2024",
        ] {
            rendered.push("https://x.org/a", &values(lastmod), false);
        }
        let counted = rendered.without_day_texts();
        let want = [("2024-02", 2), ("2024", 2), ("2023-12", 1)];
        assert_eq!(counted, want.map(|(text, n)| (text.to_owned(), n)));
        // the same texts as the per-entry list, counted
        let each = rendered.without_day();
        assert_eq!(each.len(), 5);
        for (text, n) in &counted {
            assert_eq!(each.iter().filter(|(_, t)| t == text).count(), *n);
        }
        let mut with_days = Rendered::with_capacity(1);
        with_days.push("https://x.org/a", &values("2024-02-03"), false);
        assert!(with_days.without_day_texts().is_empty());
    }

    #[test]
    fn rows_rendered_after_all_take_their_places() {
        let mut first = Rendered::with_capacity(4);
        first.push("https://e.com/a", &values("2024-01-02"), false);
        first.refuse(Refusal::Value);
        first.refuse(Refusal::Loc);
        first.push("https://e.com/d", &values("2024-01-03"), false);
        first.refuse(Refusal::Value);
        let mut again = Rendered::with_capacity(1);
        again.push("https://e.com/b", &Values::default(), false);
        let spliced = first.spliced(&again, &[1]);
        assert_eq!(spliced.refused(), [(2, Refusal::Loc), (4, Refusal::Value)]);
        let locs: Vec<_> = (0..spliced.len()).map(|i| spliced.loc(i)).collect();
        assert_eq!(
            locs,
            ["https://e.com/a", "https://e.com/b", "https://e.com/d"]
        );
        let mut whole = first.range(0, 1);
        whole.append(&again);
        whole.append(&first.range(1, 2));
        assert_eq!(spliced.bytes(0, 3), whole.bytes(0, 3));
        assert_eq!(spliced.newest(0, 3), whole.newest(0, 3));
    }

    #[test]
    fn appended_halves_are_the_whole() {
        let mut one_by_one = Rendered::with_capacity(2);
        one_by_one.push("https://x.org/a?b=1&c='2'", &values("2024-01-02"), false);
        one_by_one.push("https://x.org/é", &Values::default(), false);
        let mut halves = Rendered::with_capacity(1);
        halves.push("https://x.org/a?b=1&c='2'", &values("2024-01-02"), false);
        let mut second = Rendered::with_capacity(1);
        second.push("https://x.org/é", &Values::default(), false);
        halves.append(&second);
        assert_eq!(halves.bytes(0, 2), one_by_one.bytes(0, 2));
        assert_eq!(halves.hashes(), one_by_one.hashes());
        assert_eq!(
            (halves.loc(0), halves.loc(1)),
            (one_by_one.loc(0), one_by_one.loc(1))
        );
        assert_eq!(halves.fit(1, 1, 1000), 1);
    }

    #[test]
    fn images_are_declared_where_the_root_does_not() {
        let image = crate::values::image::Image::checked(
            "https://x.org/i.jpg",
            [None, None, Some("T"), None],
        )
        .unwrap();
        let mut rendered = Rendered::with_capacity(3);
        rendered.push("https://x.org/a", &Values::default(), false);
        let mut extensions = Extensions::default();
        extensions.push(crate::values::extensions::Extension::Image(image));
        rendered.push_with("https://x.org/b", &Values::default(), false, &extensions);
        rendered.push("https://x.org/c", &Values::default(), false);
        assert_eq!(
            (rendered.namespaces(0, 1), rendered.namespaces(0, 3)),
            (0, 1)
        );
        let on_root = "<url><loc>https://x.org/b</loc><image:image><image:loc>https://x.org/i.jpg\
                       </image:loc><image:title>T</image:title></image:image></url>\n";
        assert_eq!(rendered.bytes_declared(1, 2, IMAGE_BIT), on_root.as_bytes());
        let own = rendered.bytes_declared(1, 2, 0);
        let ns = crate::values::image::IMAGE_NS;
        let declared = format!("<url xmlns:image=\"{ns}\">{}", &on_root[5..]);
        assert_eq!(std::str::from_utf8(&own).unwrap(), declared);
        assert_eq!(rendered.size_declared(1, 0), declared.len());
        let all = rendered.bytes_declared(0, 3, 0).len();
        assert_eq!(rendered.fit_declared(0, 3, all, 0), 3);
        assert_eq!(rendered.fit_declared(0, 3, all - 1, 0), 2);
        assert_eq!(rendered.fit_declared(0, 3, all - 1, IMAGE_BIT), 3);
        let title = "title (1)".to_string();
        let found: Vec<_> = rendered.findings().collect();
        assert_eq!(found, [(1, "image-deprecated-field", title.as_str())]);
        let kept = rendered.select(&[false, true, true]);
        let found: Vec<_> = kept.findings().collect();
        assert_eq!(found, [(0, "image-deprecated-field", title.as_str())]);
        assert_eq!(kept.namespaces(1, 2), 0);
        let mut joined = rendered.range(0, 1);
        joined.append(&kept);
        assert_eq!(
            joined.bytes_declared(0, 3, 0),
            rendered.bytes_declared(0, 3, 0)
        );
        assert!(joined.findings().eq(rendered.findings()));
    }

    #[test]
    fn fit_counts_whole_entries_within_the_room() {
        let mut rendered = Rendered::with_capacity(3);
        for loc in ["https://x.org/a", "https://x.org/bb", "https://x.org/ccc"] {
            rendered.push(loc, &Values::default(), true);
        }
        assert_eq!(rendered.fit(0, 3, 16), 1);
        assert_eq!(rendered.fit(0, 3, 33), 2);
        assert_eq!(rendered.fit(0, 3, 51), 3);
        assert_eq!(rendered.fit(0, 2, 51), 2);
        assert_eq!(rendered.fit(1, 3, 35), 2);
        assert_eq!(rendered.fit(0, 3, 15), 0);
    }

    #[test]
    fn newest_is_the_first_of_the_latest() {
        let mut rendered = Rendered::with_capacity(4);
        for lastmod in [
            "2024-01-01T12:00:00Z",
            "2024-01-01T14:00:00+02:00",
            "2024-01-01",
            "x",
        ] {
            rendered.push("https://x.org/", &values(lastmod), false);
        }
        assert_eq!(rendered.newest(0, 2), parse("2024-01-01T12:00:00Z"));
        assert_eq!(rendered.newest(1, 4), parse("2024-01-01"));
        assert_eq!(rendered.newest(3, 4), None);
        let kept = rendered.select(&[false, true, false, true]);
        assert_eq!(kept.len(), 2);
        assert_eq!(kept.newest(0, 2), parse("2024-01-01T14:00:00+02:00"));
    }

    #[test]
    fn the_latest_future_key_follows_appends_and_selections() {
        let micros = |text: &str| parse(text).unwrap().future_key();
        let mut first = Rendered::with_capacity(2);
        first.push("https://x.org/a", &values("2024-01-01T12:00:00Z"), false);
        first.push("https://x.org/b", &Values::default(), false);
        assert!(first.all_current(micros("2024-01-01T12:00:00Z")));
        assert!(!first.all_current(micros("2024-01-01T11:59:59Z")));
        let mut second = Rendered::with_capacity(1);
        second.push(
            "https://x.org/c",
            &values("2024-03-01T00:00:00+01:00"),
            false,
        );
        first.append(&second);
        assert!(!first.all_current(micros("2024-02-29T23:00:00Z") - 1));
        assert!(first.all_current(micros("2024-02-29T23:00:00Z")));
        let kept = first.select(&[true, true, false]);
        assert!(kept.all_current(micros("2024-01-01T12:00:00Z")));
        assert_eq!(kept.newest(0, 2), parse("2024-01-01T12:00:00Z"));
        assert_eq!(first.newest(1, 2), None);
        assert!(Rendered::with_capacity(0).all_current(i64::MIN));
        assert!(first.all_with_day() && kept.all_with_day());
    }

    #[test]
    fn a_year_or_a_month_alone_is_known_through_appends_and_selections() {
        let mut rendered = Rendered::with_capacity(3);
        rendered.push("https://x.org/a", &values("2024-05-06"), false);
        assert!(rendered.all_with_day());
        for lastmod in ["2014-06", "2014"] {
            let mut other = Rendered::with_capacity(1);
            other.push("https://x.org/b", &values(lastmod), false);
            assert!(!other.all_with_day(), "{lastmod}");
            let mut joined = rendered.clone();
            joined.append(&other);
            assert!(!joined.all_with_day());
            assert!(joined.select(&[true, false]).all_with_day());
            assert!(!joined.select(&[false, true]).all_with_day());
        }
    }

    #[test]
    fn priorities_are_written_as_python_does() {
        let cases = [
            (0.0, "0.0"),
            (1.0, "1.0"),
            (0.5, "0.5"),
            (0.85, "0.85"),
            (0.1234, "0.1234"),
            (0.12345, "0.1235"),
            (0.03125, "0.0312"),
            (0.09375, "0.0938"),
            (0.00005, "0.0001"),
            (0.00001, "0.0"),
        ];
        for (value, text) in cases {
            let mut out = Vec::new();
            Priority::from_f64(value).unwrap().write(&mut out);
            assert_eq!(std::str::from_utf8(&out).unwrap(), text, "{value}");
        }
        let written = |text: &str| {
            let mut out = Vec::new();
            Priority::from_text(text).map(|p| {
                p.write(&mut out);
                String::from_utf8(out).unwrap()
            })
        };
        assert_eq!(written(" 1 ").as_deref(), Some("1.0"));
        assert_eq!(written("00.50").as_deref(), Some("0.5"));
        assert_eq!(written(".5").as_deref(), Some("0.5"));
        assert_eq!(written("0.").as_deref(), Some("0.0"));
        assert_eq!(written("0.12345").as_deref(), Some("0.1235"));
        assert_eq!(written("0.03125").as_deref(), Some("0.0312"));
        assert_eq!(written("1.00001").as_deref(), None);
        assert_eq!(written("1.5"), None);
        assert_eq!(written("1e-1"), None);
        assert_eq!(written("."), None);
        assert_eq!(written("-0.5"), None);
    }
}
