//! Canonical records rendered straight into output text (urlset.reading.output's formats), so
//! a large read or fetch makes no Python object per URL: JSON Lines, CSV, TSV and locs, each
//! line byte for byte what the Python renderers write for the same entry.
//!
//! A run stops before a record the reader's sink must see (its loc seen before in the
//! document, or its origin not yet judged for development hosts): the caller passes that one
//! through the Python path and goes on after it. [`Seen`] is the document's duplicate set,
//! which the Python path shares (the sink's `seen` is the renderer then), so both paths find the same duplicates.

use std::collections::HashSet;

use super::columns::Columns;
use super::json::{extensions_json, extensions_object, plain_loc_value};
use super::media::Prefixes;
use super::raw::RootScope;
use super::records::{
    note_late, pad_note, scan_until, value_note, Converted, Kind, Limits, OrderNote, PadNote,
    Record, Scan, Spares, Stop, ValueNote,
};
use super::seen::{hash_of, SeenLocs, WARMED};
use super::values::value_str;
use crate::values::lastmod::parse_bytes;
use crate::values::scalars::CHANGEFREQS;

/// An output format of `urlset read` / `urlset fetch` for text.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Format {
    JsonLines,
    Csv,
    Tsv,
    Locs,
}

impl Format {
    /// The format named as the CLI names it.
    pub fn named(name: &str) -> Option<Format> {
        Some(match name {
            "jsonl" => Format::JsonLines,
            "csv" => Format::Csv,
            "tsv" => Format::Tsv,
            "locs" => Format::Locs,
            _ => return None,
        })
    }
}

/// Origins judged once per this many (the sink's cache of origins is cleared as often).
const MAX_ORIGINS: usize = 4096;

/// What a document's entries have shown so far: each loc's hash, and the origins
/// (`scheme://authority/`) the sink has judged.
#[derive(Default)]
pub struct Seen {
    hashes: SeenLocs,
    origins: HashSet<Vec<u8>>,
    last_origin: Vec<u8>,
    /// The memory of the last scan's records, for the document's next scan: a piece's
    /// records take ~0.5 MB, which glibc gave back and took again for every piece.
    room: Vec<Record>,
    /// The extension elements out of the schema's order among the records rendered since
    /// the notes were taken, each record counted in its run ([`Seen::take_notes`]).
    notes: Vec<OrderNote>,
    /// Their values the reader reports ([`Seen::take_value_notes`]).
    values: ValueNotes,
    /// Their values written with whitespace around them ([`Seen::take_pad_notes`]).
    pads: PadNotes,
    /// The conversions of records taken, for the next scans to fill again.
    spare: Spares,
    /// The locs' hashes of the scan being judged, made before any is noted (`run`).
    window_hashes: Vec<u64>,
}

/// The values the reader reports noted between two takes: the first of each code
/// ([`JudgedValue::code`]) with their texts, as many as its room, the others counted.
pub struct ValueNotes {
    listed: Vec<ValueNote>,
    listed_of: [usize; 6],
    more: [usize; 6],
    /// How many of each code a take lists ([`Seen::note_room`]).
    room: [usize; 6],
}

/// The issues of one code the reader lists (`sink.MAX_ISSUES_PER_CODE`): the most a take
/// lists.
pub const LISTED_NOTES: usize = 1000;

impl ValueNotes {
    pub fn with_room(room: [usize; 6]) -> Self {
        Self {
            listed: Vec::new(),
            listed_of: [0; 6],
            more: [0; 6],
            room,
        }
    }

    /// Note the values of record `r` of `text`, counted `index` in its run, that the reader
    /// reports; each listed when `listed` whatever the room.
    pub fn note(&mut self, text: &[u8], r: &Record, index: usize, listed: bool) {
        for v in r.judged().iter() {
            let code = v.code();
            if listed || self.listed_of[code] < self.room[code] {
                self.listed_of[code] += 1;
                self.listed.push(value_note(text, v, index));
            } else {
                self.more[code] += 1;
            }
        }
    }
}

impl ValueNotes {
    /// The notes listed and the count of the others of each code since the last take.
    pub fn take(&mut self) -> (Vec<ValueNote>, [usize; 6]) {
        let notes = std::mem::replace(self, Self::with_room(self.room));
        (notes.listed, notes.more)
    }

    /// How many of each code the takes from now on list ([`Seen::note_room`]).
    pub fn set_room(&mut self, room: [usize; 6]) {
        self.room = room.map(|n| n.min(LISTED_NOTES));
    }
}

impl Default for ValueNotes {
    fn default() -> Self {
        Self::with_room([LISTED_NOTES; 6])
    }
}

/// The values written with whitespace around them noted between two takes: the first with
/// their texts, as many as the room, the others counted by element (loc, lastmod,
/// changefreq, priority).
pub struct PadNotes {
    listed: Vec<PadNote>,
    more: [usize; 4],
    /// How many a take lists ([`Seen::note_room`]).
    room: usize,
}

impl PadNotes {
    pub fn with_room(room: usize) -> Self {
        Self {
            listed: Vec::new(),
            more: [0; 4],
            room,
        }
    }

    /// Note the padded values of record `r` of `text`, counted `index` in its run; each
    /// listed when `listed` whatever the room.
    pub fn note(&mut self, text: &[u8], r: &Record, index: usize, listed: bool) {
        for p in r.padded().iter() {
            if listed || self.listed.len() < self.room {
                self.listed.push(pad_note(text, p, index));
            } else {
                self.more[usize::from(p.element)] += 1;
            }
        }
    }
}

impl PadNotes {
    /// The notes listed and the count of the others of each element since the last take.
    pub fn take(&mut self) -> (Vec<PadNote>, [usize; 4]) {
        let notes = std::mem::replace(self, Self::with_room(self.room));
        (notes.listed, notes.more)
    }

    /// How many the takes from now on list ([`Seen::note_room`]).
    pub fn set_room(&mut self, room: usize) {
        self.room = room.min(LISTED_NOTES);
    }
}

impl Default for PadNotes {
    fn default() -> Self {
        Self::with_room(LISTED_NOTES)
    }
}

/// The most conversions [`Seen`] keeps for the next scans (a window's worth).
const KEPT_SPARE: usize = 1 << 12;

impl Seen {
    /// Keep `c`, a taken record's conversion, for a next scan to fill again.
    fn spare(&mut self, c: Box<Converted>) {
        if self.spare.uris.len() < KEPT_SPARE {
            self.spare.uris.push(c);
        }
    }
}

impl Seen {
    /// The images out of the schema's order among the records of the runs since the last
    /// call (the reader reports them: `extension-order`).
    pub fn take_notes(&mut self) -> Vec<OrderNote> {
        std::mem::take(&mut self.notes)
    }

    /// The values the reader reports among the records of the runs since the last call
    /// (`lenient-lastmod`, `invalid-lastmod`, `changefreq-case`, `invalid-changefreq`,
    /// `invalid-priority`): the first [`LISTED_NOTES`] of each code, and how many more of
    /// each ([`JudgedValue::code`]).
    pub fn take_value_notes(&mut self) -> (Vec<ValueNote>, [usize; 6]) {
        self.values.take()
    }

    /// The values written with whitespace around them among the records of the runs since
    /// the last call (the reader reports them: `whitespace-in-value`): the first
    /// [`LISTED_NOTES`], and how many more of each element.
    pub fn take_pad_notes(&mut self) -> (Vec<PadNote>, [usize; 4]) {
        self.pads.take()
    }

    /// How many notes of each code the takes from now on list with their texts, at most
    /// [`LISTED_NOTES`] (the others only counted): the room the reader has left for its
    /// issues of each value code ([`JudgedValue::code`]) and for `whitespace-in-value`. A
    /// reader whose cap of a code is reached has no tuple or text made for it.
    pub fn note_room(&mut self, values: [usize; 6], pads: usize) {
        self.values.set_room(values);
        self.pads.set_room(pads);
    }

    /// Whether `loc` is new in the document (it is remembered from now on).
    pub fn first_seen(&mut self, loc: &[u8]) -> bool {
        self.hashes.insert_bytes(loc)
    }

    /// `first_seen` of the loc whose hash ([`hash_of`]) is `hash`.
    /// Read in the duplicate set's slots of `hashes` ([`SeenLocs::warm`]).
    pub(crate) fn warm(&self, hashes: &[u64]) {
        self.hashes.warm(hashes);
    }

    pub(crate) fn first_seen_hash(&mut self, hash: u64) -> bool {
        self.hashes.insert_hash(hash)
    }

    /// Note every loc whose hash ([`hash_of`]) is in `hashes` when none was seen before (nor
    /// twice among them), and say so; else note none (`SeenLocs::insert_all_new`).
    pub fn all_new(&mut self, hashes: &[u64]) -> bool {
        self.hashes.insert_all_new(hashes)
    }

    /// An origin the sink has judged: records on it need no Python from now on.
    pub fn know(&mut self, origin: &[u8]) {
        if self.origins.len() >= MAX_ORIGINS {
            self.origins.clear();
        }
        self.origins.insert(origin.to_vec());
    }

    pub(crate) fn known(&mut self, origin: &[u8]) -> bool {
        if origin == self.last_origin.as_slice() {
            return true;
        }
        if self.origins.contains(origin) {
            // a document's origins take turns: the buffer is kept, not made anew
            self.last_origin.clear();
            self.last_origin.extend_from_slice(origin);
            return true;
        }
        false
    }
}

/// Renders records in one format, each line ended by `tail` (`}\n` for JSON Lines read
/// alone, the sitemap's cell and a line feed for a fetch's CSV...).
#[derive(Clone)]
pub struct Renderer {
    format: Format,
    tail: Vec<u8>,
    /// A sitemap index's records are rendered as `urlset read` writes a `SitemapRef`.
    kind: Kind,
    /// The prefixes the root binds to the image, video and news namespaces: records with
    /// plain images, videos and news are rendered with them (as `urlset read` writes them)
    /// instead of ending the run.
    prefixes: Option<Prefixes>,
    /// The CSV/TSV extensions cell's JSON before quoting (kept: one allocation a renderer).
    extension: Vec<u8>,
    loc: Vec<u8>,
    lastmod_in: Vec<u8>,
    lastmod_out: Vec<u8>,
    priorities: Vec<(u64, Vec<u8>)>,
}

/// Distinct priorities remembered with their text (a file uses a handful).
const PRIORITY_MEMO: usize = 32;

impl Renderer {
    pub fn new(format: Format, tail: &[u8]) -> Renderer {
        Renderer {
            format,
            tail: tail.to_vec(),
            kind: Kind::Urlset,
            prefixes: None,
            extension: Vec::new(),
            loc: Vec::with_capacity(256),
            lastmod_in: Vec::with_capacity(32),
            lastmod_out: Vec::with_capacity(32),
            priorities: Vec::new(),
        }
    }

    /// Records of a document of `kind`: an index's are rendered with its loc and lastmod
    /// only (JSON Lines says `"type":"sitemap"`; CSV and TSV have two columns).
    pub fn with_kind(mut self, kind: Kind) -> Renderer {
        self.kind = kind;
        self
    }

    /// Records with plain images (`prefix`: the image namespace's, as the root binds it)
    /// are rendered in the run from now on.
    pub fn with_images(self, prefix: &[u8]) -> Renderer {
        self.with_extensions(Prefixes::images(prefix))
    }

    /// Records with plain images, videos and news (in the namespaces the root binds to
    /// `prefixes`) are rendered in the run from now on.
    pub fn with_extensions(mut self, prefixes: Prefixes) -> Renderer {
        self.prefixes = prefixes.any().then_some(prefixes);
        self
    }

    /// The root's scope for elements of other namespaces (strays are added to it as the
    /// reader reports them), when the renderer reads extensions.
    pub fn scope_mut(&mut self) -> Option<&mut RootScope> {
        self.prefixes.as_mut().map(|p| &mut p.scope)
    }

    /// The lastmod of `r`, whose text is `text`, as `dates.format_w3c` writes the value read
    /// (the last one kept: a file's lastmods often repeat), into `out`; the scan's value is
    /// used when it gave one (the text is not parsed again).
    fn lastmod_text(&mut self, text: &[u8], r: &Record, out: &mut Vec<u8>) {
        let value = r.lastmod_value;
        // a lenient text is never its W3C text, whatever its shape
        if !r.lastmod_judged() && value.is_some_and(|v| v.written_as(text)) {
            out.extend_from_slice(text);
            return;
        }
        if self.lastmod_in != text {
            self.lastmod_in.clear();
            self.lastmod_in.extend_from_slice(text);
            self.lastmod_out.clear();
            // the scanner took the text as plain, so it parses
            if let Some(value) = value.or_else(|| parse_bytes(text)) {
                value.write(&mut self.lastmod_out);
            }
        }
        out.extend_from_slice(&self.lastmod_out);
    }

    /// Python's `repr` of a priority (the shortest text that reads back, `.0` on a whole).
    fn priority_text(&mut self, value: f64) -> &[u8] {
        let bits = value.to_bits();
        let at = match self.priorities.iter().position(|(b, _)| *b == bits) {
            Some(at) => at,
            None => {
                if self.priorities.len() >= PRIORITY_MEMO {
                    self.priorities.clear();
                }
                self.priorities
                    .push((bits, format!("{value:?}").into_bytes()));
                self.priorities.len() - 1
            }
        };
        &self.priorities[at].1
    }

    /// Append the line of record `r` of `data`, whose loc's value is `loc`.
    pub(crate) fn line(&mut self, data: &[u8], r: &Record, loc: &[u8], out: &mut Vec<u8>) {
        if self.kind == Kind::Index {
            self.index_line(data, r, loc, out);
            return;
        }
        match self.format {
            Format::Locs => {
                out.extend_from_slice(loc);
                out.push(b'\n');
            }
            Format::JsonLines => {
                // a plain loc holds no character JSON escapes
                out.extend_from_slice(b"{\"loc\":\"");
                out.extend_from_slice(loc);
                out.push(b'"');
                if let Some((a, b)) = r.lastmod {
                    out.extend_from_slice(b",\"lastmod\":\"");
                    self.lastmod_text(&data[a..b], r, out);
                    out.push(b'"');
                }
                if let Some(i) = r.changefreq {
                    out.extend_from_slice(b",\"changefreq\":\"");
                    out.extend_from_slice(CHANGEFREQS[usize::from(i)]);
                    out.push(b'"');
                }
                if let Some(p) = r.priority {
                    out.extend_from_slice(b",\"priority\":");
                    out.extend_from_slice(self.priority_text(p));
                }
                if r.extended() {
                    out.push(b',');
                    extensions_json(data, r, out);
                }
                out.extend_from_slice(&self.tail);
            }
            Format::Csv | Format::Tsv => {
                let d = if self.format == Format::Csv {
                    b','
                } else {
                    b'\t'
                };
                quoted_loc(loc, d, out);
                out.push(d);
                if let Some((a, b)) = r.lastmod {
                    self.lastmod_text(&data[a..b], r, out);
                }
                out.push(d);
                if let Some(i) = r.changefreq {
                    out.extend_from_slice(CHANGEFREQS[usize::from(i)]);
                }
                out.push(d);
                if let Some(p) = r.priority {
                    out.extend_from_slice(self.priority_text(p));
                }
                out.push(d);
                if r.extended() {
                    // the extensions cell: the JSON object, quoted as csv.writer quotes it
                    // (JSON escapes tabs and line breaks, so this is right for TSV too)
                    let mut json = std::mem::take(&mut self.extension);
                    json.clear();
                    extensions_object(data, r, &mut json);
                    out.push(b'"');
                    for part in json.split_inclusive(|&b| b == b'"') {
                        out.extend_from_slice(part);
                        if part.last() == Some(&b'"') {
                            out.push(b'"');
                        }
                    }
                    out.push(b'"');
                    self.extension = json;
                }
                out.extend_from_slice(&self.tail);
            }
        }
    }
}

impl Renderer {
    /// [`Renderer::line`] of a sitemap index's record: what `urlset read` writes for a
    /// `SitemapRef` (`entry_dict` as JSON, or the loc and lastmod cells).
    fn index_line(&mut self, data: &[u8], r: &Record, loc: &[u8], out: &mut Vec<u8>) {
        match self.format {
            Format::Locs => {
                out.extend_from_slice(loc);
                out.push(b'\n');
            }
            Format::JsonLines => {
                // a plain loc holds no character JSON escapes
                out.extend_from_slice(b"{\"loc\":\"");
                out.extend_from_slice(loc);
                out.extend_from_slice(b"\",\"type\":\"sitemap\"");
                if let Some((a, b)) = r.lastmod {
                    out.extend_from_slice(b",\"lastmod\":\"");
                    self.lastmod_text(&data[a..b], r, out);
                    out.push(b'"');
                }
                out.extend_from_slice(&self.tail);
            }
            Format::Csv | Format::Tsv => {
                let d = if self.format == Format::Csv {
                    b','
                } else {
                    b'\t'
                };
                quoted_loc(loc, d, out);
                out.push(d);
                if let Some((a, b)) = r.lastmod {
                    self.lastmod_text(&data[a..b], r, out);
                }
                out.extend_from_slice(&self.tail);
            }
        }
    }
}

/// A loc's CSV/TSV cell as csv.writer writes it: quoted when it holds the delimiter (a plain
/// loc holds no quote or line break).
fn quoted_loc(loc: &[u8], d: u8, out: &mut Vec<u8>) {
    if loc.contains(&d) {
        out.push(b'"');
        out.extend_from_slice(loc);
        out.push(b'"');
    } else {
        out.extend_from_slice(loc);
    }
}

/// What [`render_run`] did: where reading stopped, on which line, how many records it
/// rendered, whether the core made any of their locs a URI (`crate::values::iri`), and
/// whether any had images.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Rendered {
    pub pos: usize,
    pub line: u32,
    pub count: usize,
    pub made: bool,
    pub images: bool,
    /// Whether a record's core elements were in another order ([`Record::reordered`]).
    pub reordered: bool,
}

/// A loc of a run the core made a URI of that differs from its text: the record's index in
/// the run, the loc element's line, the text and the URI (as `records::scan_converting`
/// gives them, for the reader's `normalized-url`).
pub type Conversion = (usize, u32, String, String);

/// A run's [`Conversion`]s as the reader takes them: the first `room` listed, the rest only
/// counted in `more` (the reader lists the first `MAX_ISSUES_PER_CODE` locs made URIs and
/// counts the others: a file of IRIs made two strings a loc to drop them).
#[derive(Debug, Clone)]
pub struct Conversions {
    pub listed: Vec<Conversion>,
    room: usize,
    pub more: usize,
    /// A test of each loc text made a URI, listed or not ([`Conversions::judging`]).
    judge: Option<fn(&str) -> bool>,
    /// Whether a loc text failed it.
    pub odd: bool,
}

/// Conversions are equal when they list and count the same (whatever judged them).
impl PartialEq for Conversions {
    fn eq(&self, other: &Conversions) -> bool {
        (&self.listed, self.room, self.more, self.odd)
            == (&other.listed, other.room, other.more, other.odd)
    }
}

impl Eq for Conversions {}

impl Default for Conversions {
    /// Every conversion listed.
    fn default() -> Conversions {
        Conversions::listing(usize::MAX)
    }
}

impl Conversions {
    /// The first `room` conversions listed, the rest counted.
    pub fn listing(room: usize) -> Conversions {
        Conversions {
            listed: Vec::new(),
            room,
            more: 0,
            judge: None,
            odd: false,
        }
    }

    /// Each loc text made a URI tested with `fine` as it is noted (`odd` when one fails):
    /// check's test of the texts it need not read again, asked for every text, not only
    /// the listed ones.
    pub fn judging(self, fine: fn(&str) -> bool) -> Conversions {
        Conversions {
            judge: Some(fine),
            ..self
        }
    }

    /// Record `record`'s loc made a URI (`c`, of the loc `raw`): listed or counted when the
    /// URI differs from its text.
    fn note(&mut self, record: usize, c: &mut Converted, raw: &[u8]) {
        if !c.differs {
            return;
        }
        let judge = self.judge.filter(|_| !self.odd);
        if self.listed.len() < self.room {
            let text = c.take_text(raw);
            self.odd |= judge.is_some_and(|fine| !fine(&text));
            self.listed
                .push((record, c.line, text, std::mem::take(&mut c.uri)));
        } else {
            self.more += 1;
            // not listed: its text made only to judge it (none holds a reference, as a rule)
            self.odd |=
                judge.is_some_and(|fine| value_str(raw, usize::MAX).is_none_or(|t| !fine(&t)));
        }
    }
}

/// Render the canonical records of `text[pos..end]` (from `line` on) into `out`, at most
/// `limits.max_records`, stopping before the first entry that is not canonical, whose loc
/// `seen` holds, or whose origin it does not know.
#[allow(clippy::too_many_arguments)]
pub fn render_run(
    text: &[u8],
    span: (usize, usize),
    line: u32,
    limits: Limits,
    renderer: &mut Renderer,
    seen: &mut Seen,
    out: &mut Vec<u8>,
    conversions: &mut Conversions,
) -> Rendered {
    let mut loc = std::mem::take(&mut renderer.loc);
    let prefixes = renderer.prefixes.take();
    let mut lane = Lane::Text { renderer, out };
    let done = run(
        text,
        (span, line),
        (limits, prefixes.as_ref()),
        (seen, &mut loc, conversions),
        &mut lane,
    );
    let Lane::Text { renderer, .. } = lane else {
        unreachable!("a text lane stays one")
    };
    renderer.loc = loc;
    renderer.prefixes = prefixes;
    done
}

/// [`render_run`] into Arrow columns (urlset.reading.arrow) instead of text; with the root's
/// image prefix, records with plain images too (their `extensions` text).
pub fn columns_run(
    text: &[u8],
    span: (usize, usize),
    line: u32,
    (limits, prefixes): (Limits, Option<&Prefixes>),
    seen: &mut Seen,
    columns: &mut Columns,
    conversions: &mut Conversions,
) -> Rendered {
    let mut loc = Vec::new();
    run(
        text,
        (span, line),
        (limits, prefixes),
        (seen, &mut loc, conversions),
        &mut Lane::Columns(columns),
    )
}

/// Where each record of a run goes.
enum Lane<'a> {
    /// `out` takes the lines.
    Text {
        renderer: &'a mut Renderer,
        out: &'a mut Vec<u8>,
    },
    Columns(&'a mut Columns),
}

impl Lane<'_> {
    /// `r`, whose loc's value is `loc` and its hash `hash` (the duplicate test's).
    fn take(&mut self, text: &[u8], (loc, hash): (&[u8], u64), r: &Record) {
        match self {
            Lane::Text { renderer, out } => renderer.line(text, r, loc, out),
            Lane::Columns(columns) => columns.push_valued(text, r, (loc, hash)),
        }
    }
}

/// Where a run that took every record of `found` (a scan from `pos`) stops: where the scan
/// did, but before a run to judge (its first entry is the first start tag after the last
/// record).
fn stop_of(text: &[u8], found: &Scan, (pos, end): (usize, usize), kind: Kind) -> (usize, u32) {
    if let Stop::Judged(judged) = &found.stop {
        if let Some(first) = judged.first() {
            let from = found.records.last().map_or(pos, |r| {
                memchr::memmem::find(&text[r.loc.1..end], kind.close())
                    .map_or(r.loc.1, |i| r.loc.1 + i)
            });
            let stop =
                memchr::memmem::find(&text[from..end], kind.open()).map_or(from, |i| from + i);
            return (stop, first.line);
        }
    }
    (found.pos, found.line)
}

/// Entries scanned at first after a stop: a scan collects a whole run of entries to judge
/// after the records it returns, so windows start small and grow while they come back full
/// of records (a document that mixes plain and odd entries is not scanned again and again).
const FIRST_WINDOW: usize = 4;

/// The records of scans that need no Python, each given to `lane` with its loc's value
/// (made in `loc`: the URI the core made of it, if any, noted in `conversions` when it
/// differs from the text); where the run stopped. With an image prefix, records with plain
/// images are in the run too.
fn run(
    text: &[u8],
    ((mut pos, end), mut line): ((usize, usize), u32),
    (limits, prefixes): (Limits, Option<&Prefixes>),
    (seen, loc, conversions): (&mut Seen, &mut Vec<u8>, &mut Conversions),
    lane: &mut Lane<'_>,
) -> Rendered {
    let mut count = 0;
    let (mut made, mut images, mut reordered) = (false, false, false);
    let mut window = FIRST_WINDOW;
    loop {
        let max_records = window.min(limits.max_records - count);
        let limits_now = Limits {
            max_records,
            ..limits
        };
        let room = (std::mem::take(&mut seen.room), &mut seen.spare);
        let mut found = scan_until(text, (pos, end), line, (limits_now, prefixes), room);
        seen.hashes.reserve(found.records.len());
        let mut hashes = std::mem::take(&mut seen.window_hashes);
        hashes.clear();
        for r in &found.records {
            hashes.push(if r.uri.is_none() && !r.has_entity {
                hash_of(&text[r.loc.0..r.loc.1]) // the loc's value is its text
            } else {
                loc_value(text, r, loc);
                hash_of(loc)
            });
        }
        seen.hashes.warm(&hashes);
        for (r, &hash) in found.records.iter_mut().zip(&hashes) {
            loc_value(text, r, loc);
            let origin = match r.uri {
                Some(_) => &loc[..r.origin_len],
                None => &text[r.loc.0..r.loc.0 + r.origin_len],
            };
            if !seen.known(origin) || !seen.first_seen_hash(hash) {
                // the record's start tag: only whitespace lies between it and <loc>
                let start =
                    memchr::memmem::rfind(&text[..r.loc.0], limits.kind.open()).unwrap_or(r.loc.0);
                let done = Rendered {
                    pos: start,
                    line: r.line,
                    count,
                    made,
                    images,
                    reordered,
                };
                seen.window_hashes = hashes;
                return done;
            }
            images |= r.extended();
            reordered |= r.reordered;
            lane.take(text, (loc, hash), r);
            note_late(text, r, count, limits.kind, &mut seen.notes);
            if r.noted.is_some() {
                seen.values.note(text, r, count, false);
                seen.pads.note(text, r, count, false);
            }
            // taken: the record's URI moves into the conversion, not copied (the scan's
            // records are dropped or cleared after the run)
            if let Some(mut c) = r.uri.take() {
                made = true;
                conversions.note(count, &mut c, &text[r.loc.0..r.loc.1]);
                seen.spare(c);
            }
            count += 1;
        }
        seen.window_hashes = hashes;
        let full = found.records.len() == max_records;
        if found.stop == Stop::End && full && count < limits.max_records && found.pos < end {
            (pos, line) = (found.pos, found.line);
            window = (window * 4).min(WARMED); // their slots warmed at once
            seen.room = found.records;
            continue;
        }
        let (stop, stop_line) = stop_of(text, &found, (pos, end), limits.kind);
        seen.room = found.records;
        return Rendered {
            pos: stop,
            line: stop_line,
            count,
            made,
            images,
            reordered,
        };
    }
}

/// The loc's value (its entities read as their characters, or the URI the core made of it)
/// into `out`.
fn loc_value(data: &[u8], r: &Record, out: &mut Vec<u8>) {
    out.clear();
    match &r.uri {
        Some(c) => out.extend_from_slice(c.uri.as_bytes()),
        None => plain_loc_value(data, r.loc, r.has_entity, out),
    }
}

#[cfg(test)]
mod tests {
    use super::super::raw::RootScope;
    use super::super::records::Kind;
    use super::*;

    const ALL: Limits = Limits {
        kind: Kind::Urlset,
        max_records: usize::MAX,
        max_value: 1 << 20,
        max_judged: 0,
    };

    const TEXT: &[u8] = b"<url><loc>https://e.com/a?x=1&amp;y=2,3</loc><lastmod>2024-01-02T03:04:05+00:00</lastmod>\
<changefreq>daily</changefreq><priority>1</priority></url>\n<url><loc>https://e.com/b</loc><priority>0.25</priority></url>";

    /// `text` rendered whole from line 1 (its origin known), with the image prefix if any.
    fn rendered_with(
        text: &[u8],
        format: Format,
        tail: &[u8],
        prefix: Option<&[u8]>,
    ) -> (Rendered, String) {
        let mut seen = Seen::default();
        seen.know(b"https://e.com/");
        let mut out = Vec::new();
        let mut renderer = Renderer::new(format, tail);
        if let Some(prefix) = prefix {
            renderer = renderer.with_images(prefix);
        }
        let done = render_run(
            text,
            (0, text.len()),
            1,
            ALL,
            &mut renderer,
            &mut seen,
            &mut out,
            &mut Conversions::default(),
        );
        (done, String::from_utf8(out).unwrap())
    }

    fn rendered(format: Format, tail: &[u8]) -> String {
        let (done, out) = rendered_with(TEXT, format, tail, None);
        assert_eq!((done.count, done.pos, done.line), (2, TEXT.len(), 2));
        out
    }

    #[test]
    fn records_render_as_the_python_renderers_write_them() {
        assert_eq!(
            rendered(Format::JsonLines, b"}\n"),
            "{\"loc\":\"https://e.com/a?x=1&y=2,3\",\"lastmod\":\"2024-01-02T03:04:05Z\",\"changefreq\":\"daily\",\"priority\":1.0}\n\
{\"loc\":\"https://e.com/b\",\"priority\":0.25}\n"
        );
        assert_eq!(
            rendered(Format::Csv, b",s\n"),
            "\"https://e.com/a?x=1&y=2,3\",2024-01-02T03:04:05Z,daily,1.0,,s\nhttps://e.com/b,,,0.25,,s\n"
        );
        assert_eq!(
            rendered(Format::Tsv, b"\n"),
            "https://e.com/a?x=1&y=2,3\t2024-01-02T03:04:05Z\tdaily\t1.0\t\nhttps://e.com/b\t\t\t0.25\t\n"
        );
        assert_eq!(
            rendered(Format::Locs, b""),
            "https://e.com/a?x=1&y=2,3\nhttps://e.com/b\n"
        );
    }

    #[test]
    fn runs_stop_before_a_duplicate_or_an_unknown_origin() {
        let text = b"<url><loc>https://e.com/a</loc></url>\n<url><loc>https://e.com/a</loc></url>\n<url><loc>https://f.com/</loc></url>";
        let mut seen = Seen::default();
        seen.know(b"https://e.com/");
        let mut renderer = Renderer::new(Format::Locs, b"");
        let mut out = Vec::new();
        let first = render_run(
            text,
            (0, text.len()),
            1,
            ALL,
            &mut renderer,
            &mut seen,
            &mut out,
            &mut Conversions::default(),
        );
        assert_eq!((first.count, first.line), (1, 2));
        assert!(text[first.pos..].starts_with(b"<url><loc>https://e.com/a"));
        assert!(!seen.first_seen(b"https://e.com/a"));
        let after = first.pos + 38;
        let second = render_run(
            text,
            (after, text.len()),
            3,
            ALL,
            &mut renderer,
            &mut seen,
            &mut out,
            &mut Conversions::default(),
        );
        assert_eq!((second.count, second.pos, second.line), (0, after, 3));
        seen.know(b"https://f.com/");
        let third = render_run(
            text,
            (after, text.len()),
            3,
            ALL,
            &mut renderer,
            &mut seen,
            &mut out,
            &mut Conversions::default(),
        );
        assert_eq!((third.count, third.pos), (1, text.len()));
        assert_eq!(out, b"https://e.com/a\nhttps://f.com/\n");
    }

    #[test]
    fn runs_stop_where_entries_to_judge_start() {
        let text = b"<url><loc>https://e.com/a</loc></url>\n <url><loc>https://e.com/b</loc><lastmod>2024-13-2t10:00</lastmod></url>\n<url><loc>https://e.com/c</loc></url>";
        let mut seen = Seen::default();
        seen.know(b"https://e.com/");
        let mut renderer = Renderer::new(Format::Locs, b"");
        let mut out = Vec::new();
        let done = render_run(
            text,
            (0, text.len()),
            1,
            ALL,
            &mut renderer,
            &mut seen,
            &mut out,
            &mut Conversions::default(),
        );
        assert_eq!((done.count, done.line), (1, 2));
        assert!(text[done.pos..].starts_with(b"<url><loc>https://e.com/b"));
    }

    /// `text` rendered whole from line 1 in `format`, its origin known: what the run did,
    /// its output and what it saw.
    fn rendered_on_known(text: &[u8], format: Format, tail: &[u8]) -> (Rendered, Vec<u8>, Seen) {
        converted_on_known(text, format, tail, &mut Conversions::default())
    }

    /// [`rendered_on_known`], its locs made URIs noted in `conversions`.
    fn converted_on_known(
        text: &[u8],
        format: Format,
        tail: &[u8],
        conversions: &mut Conversions,
    ) -> (Rendered, Vec<u8>, Seen) {
        let mut seen = Seen::default();
        seen.know(b"https://e.com/");
        let mut out = Vec::new();
        let done = render_run(
            text,
            (0, text.len()),
            1,
            ALL,
            &mut Renderer::new(format, tail),
            &mut seen,
            &mut out,
            conversions,
        );
        (done, out, seen)
    }

    #[test]
    fn lenient_lastmods_are_rendered_as_read_and_noted() {
        let text = b"<url><loc>https://e.com/a</loc>\n<lastmod>2024-5-6 10:00:00</lastmod></url>\n<url><loc>https://e.com/b</loc><lastmod>2024-05-06T10:00:00Z</lastmod></url>\n<url>\n<loc>https://e.com/c</loc>\n\n<lastmod>2024-05-06 10:00:5 +01:00</lastmod></url>";
        let (done, out, mut seen) = rendered_on_known(text, Format::JsonLines, b"}\n");
        assert_eq!((done.count, done.pos), (3, text.len()));
        let lastmods: Vec<&str> = std::str::from_utf8(&out)
            .unwrap()
            .lines()
            .map(|l| {
                l.split("\"lastmod\":\"")
                    .nth(1)
                    .unwrap()
                    .trim_end_matches("\"}")
            })
            .collect();
        // the W3C text of the value, never the text as written
        let expected = [
            "2024-05-06T10:00:00Z",
            "2024-05-06T10:00:00Z",
            "2024-05-06T10:00:05+01:00",
        ];
        assert_eq!(lastmods, expected);
        let (notes, more) = seen.take_value_notes();
        assert_eq!(
            notes,
            [
                (0, 2, 1, "2024-5-6 10:00:00".to_string(), false),
                (2, 7, 1, "2024-05-06 10:00:5 +01:00".to_string(), false),
            ]
        );
        assert_eq!((more, seen.take_value_notes().0.len()), ([0; 6], 0));
    }

    #[test]
    fn past_the_listed_lastmods_of_each_code_they_are_counted() {
        let one = "<url><loc>https://e.com/{i}</loc><lastmod>{l}</lastmod></url>\n";
        // every other lenient, every other invalid (a year 0): listed apart
        let text: String = (0..2 * LISTED_NOTES + 7)
            .map(|i| {
                let lastmod = if i % 2 == 0 { "2024-5-6" } else { "0000-5-6" };
                one.replace("{i}", &i.to_string()).replace("{l}", lastmod)
            })
            .collect();
        let (done, _, mut seen) = rendered_on_known(text.as_bytes(), Format::Locs, b"");
        assert_eq!(done.count, 2 * LISTED_NOTES + 7);
        let (notes, more) = seen.take_value_notes();
        assert_eq!((notes.len(), more), (2 * LISTED_NOTES, [4, 3, 0, 0, 0, 0]));
        assert_eq!((notes[1].0, notes[1].4), (1, true));
        assert_eq!((notes[1998].0, notes[1998].4), (1998, false));
    }

    #[test]
    fn a_take_lists_no_more_notes_than_the_room_the_reader_has_left() {
        let text = b"<url><loc>https://e.com/a</loc><lastmod>2024-5-6</lastmod></url>\n<url><loc>https://e.com/b</loc><lastmod>0000-5-6</lastmod></url>\n<url><loc>https://e.com/c</loc><lastmod>2024-5-7</lastmod><priority> 0.5</priority></url>";
        let mut seen = Seen::default();
        seen.know(b"https://e.com/");
        seen.note_room([1, 0, 9, 9, 9, 9], 0);
        render_run(
            text,
            (0, text.len()),
            1,
            ALL,
            &mut Renderer::new(Format::Locs, b""),
            &mut seen,
            &mut Vec::new(),
            &mut Conversions::default(),
        );
        let (notes, more) = seen.take_value_notes();
        assert_eq!(notes, [(0, 1, 1, "2024-5-6".to_string(), false)]);
        assert_eq!(more, [1, 1, 0, 0, 0, 0]);
        assert_eq!(seen.take_pad_notes(), (vec![], [0, 0, 0, 1]));
        // the room stays for the takes after, up to the most a take lists
        seen.note_room([LISTED_NOTES + 1; 6], 1);
        assert_eq!((seen.values.room, seen.pads.room), ([LISTED_NOTES; 6], 1));
    }

    #[test]
    fn a_record_noted_as_listed_is_listed_past_the_room() {
        let text = b"<url><loc> https://e.com/a</loc><lastmod>2024-5-6</lastmod></url>";
        let found = crate::read::records::scan(text, 0, text.len(), 1, ALL);
        let (mut values, mut pads) = (ValueNotes::with_room([0; 6]), PadNotes::with_room(0));
        values.note(text, &found.records[0], 0, false);
        pads.note(text, &found.records[0], 0, false);
        assert_eq!(
            (values.take().1, pads.take().1),
            ([1, 0, 0, 0, 0, 0], [1, 0, 0, 0])
        );
        values.note(text, &found.records[0], 0, true);
        pads.note(text, &found.records[0], 0, true);
        let ((listed, more), (padded, more_pads)) = (values.take(), pads.take());
        assert_eq!(
            (listed.len(), more, padded.len(), more_pads),
            (1, [0; 6], 1, [0; 4])
        );
    }

    #[test]
    fn runs_into_arrow_columns_stop_as_text_runs_do() {
        let text = b"<url><loc>https://e.com/a?b&amp;c</loc><priority>0.5</priority></url>\n<url><loc>https://e.com/a?b&amp;c</loc></url>";
        let mut seen = Seen::default();
        seen.know(b"https://e.com/");
        let mut columns = Columns::default();
        let done = columns_run(
            text,
            (0, text.len()),
            1,
            (ALL, None),
            &mut seen,
            &mut columns,
            &mut Conversions::default(),
        );
        assert_eq!((done.count, done.line), (1, 2));
        assert_eq!(columns.len, 1);
        assert_eq!(columns.loc.values, b"https://e.com/a?b&c");
        assert_eq!(columns.priority.values, [0.5]);
    }

    #[test]
    fn runs_render_the_uris_the_core_made_and_say_so() {
        let text = "<url><loc>https://e.com/a</loc></url>\n<url><loc>https://E.com/é</loc></url>\n<url><loc>https://e.com/%C3%A9</loc></url>".as_bytes();
        let mut conversions = Conversions::default();
        let (done, out, _) = converted_on_known(text, Format::Locs, b"", &mut conversions);
        // the third loc is the second's URI: a duplicate, where the run stops
        assert_eq!((done.count, done.line, done.made), (2, 3, true));
        assert_eq!(out, b"https://e.com/a\nhttps://e.com/%C3%A9\n");
        assert_eq!(
            conversions.listed,
            [(
                1,
                2,
                "https://E.com/é".into(),
                "https://e.com/%C3%A9".into()
            )]
        );
        let mut columns = Columns::default();
        let mut seen = Seen::default();
        seen.know(b"https://e.com/");
        // none listed: counted only
        let mut conversions = Conversions::listing(0);
        let done = columns_run(
            text,
            (0, text.len()),
            1,
            (ALL, None),
            &mut seen,
            &mut columns,
            &mut conversions,
        );
        assert_eq!(
            (done.count, conversions.listed.len(), conversions.more),
            (2, 0, 1)
        );
        assert_eq!(columns.loc.values, b"https://e.com/ahttps://e.com/%C3%A9");
        // a listed text is the loc's value, its entities replaced
        let text: String = (0..40)
            .map(|i| format!("<url><loc>https://e.com/é{i}?a&amp;b</loc></url>\n"))
            .collect();
        let mut conversions = Conversions::listing(30);
        let (done, ..) = converted_on_known(text.as_bytes(), Format::Locs, b"", &mut conversions);
        assert_eq!(
            (done.count, conversions.listed.len(), conversions.more),
            (40, 30, 10)
        );
        for (i, listed) in conversions.listed.iter().enumerate() {
            let text = format!("https://e.com/é{i}?a&b");
            let uri = format!("https://e.com/%C3%A9{i}?a&b");
            assert_eq!(*listed, (i, i as u32 + 1, text, uri));
        }
    }

    #[test]
    fn records_with_plain_images_render_with_them_when_asked() {
        let text = "<url><loc>https://e.com/a</loc><i:image><i:loc>https://e.com/1.png?a&amp;b</i:loc>\
<i:caption>A &quot;b&quot;, c \\ d</i:caption></i:image><i:image><i:loc>https://e.com/2.png</i:loc>\
<i:geo_location>Caf\u{e9}</i:geo_location><i:title>T</i:title></i:image></url>\n<url><loc>https://e.com/b</loc></url>"
            .as_bytes();
        let render = |format: Format, tail: &[u8], prefix: Option<&[u8]>| {
            let (done, out) = rendered_with(text, format, tail, prefix);
            (done.count, done.images, out)
        };
        let images = "\"images\":[{\"loc\":\"https://e.com/1.png?a&b\",\"caption\":\"A \\\"b\\\", c \\\\ d\"},\
{\"loc\":\"https://e.com/2.png\",\"geo_location\":\"Caf\u{e9}\",\"title\":\"T\"}]";
        assert_eq!(
            render(Format::JsonLines, b"}\n", Some(b"i")),
            (
                2,
                true,
                format!(
                    "{{\"loc\":\"https://e.com/a\",{images}}}\n{{\"loc\":\"https://e.com/b\"}}\n"
                )
            )
        );
        let cell = format!("\"{{{}}}\"", images.replace('"', "\"\""));
        assert_eq!(
            render(Format::Tsv, b"\n", Some(b"i")).2,
            format!("https://e.com/a\t\t\t\t{cell}\nhttps://e.com/b\t\t\t\t\n")
        );
        // without the prefix (or with another), the run ends before the record
        assert_eq!(render(Format::Locs, b"", None), (0, false, String::new()));
        assert_eq!(render(Format::Locs, b"", Some(b"image")).0, 0);
    }

    #[test]
    fn index_records_render_as_urlset_read_writes_sitemap_refs() {
        let text = "<sitemap><loc>https://e.com/a,b.xml</loc><lastmod>2024-01-02T03:04:05.500+01:00</lastmod></sitemap>\n\
<sitemap>\n <loc>https://e.com/caf\u{e9}.xml</loc>\n</sitemap>\n<sitemap><loc>https://e.com/a,b.xml</loc></sitemap>"
            .as_bytes();
        let index = Limits {
            kind: Kind::Index,
            ..ALL
        };
        let render = |format: Format, tail: &[u8]| {
            let mut seen = Seen::default();
            seen.know(b"https://e.com/");
            let mut renderer = Renderer::new(format, tail).with_kind(Kind::Index);
            let (mut out, mut conversions) = (Vec::new(), Conversions::default());
            let done = render_run(
                text,
                (0, text.len()),
                1,
                index,
                &mut renderer,
                &mut seen,
                &mut out,
                &mut conversions,
            );
            // the third is a duplicate: the run stops at its start tag, on its line
            assert_eq!((done.count, done.line, conversions.listed.len()), (2, 5, 1));
            assert!(text[done.pos..].starts_with(b"<sitemap><loc>https://e.com/a,b"));
            String::from_utf8(out).unwrap()
        };
        assert_eq!(
            render(Format::JsonLines, b"}\n"),
            "{\"loc\":\"https://e.com/a,b.xml\",\"type\":\"sitemap\",\"lastmod\":\"2024-01-02T03:04:05.500000+01:00\"}\n\
{\"loc\":\"https://e.com/caf%C3%A9.xml\",\"type\":\"sitemap\"}\n"
        );
        assert_eq!(
            render(Format::Csv, b"\n"),
            "\"https://e.com/a,b.xml\",2024-01-02T03:04:05.500000+01:00\nhttps://e.com/caf%C3%A9.xml,\n"
        );
        assert_eq!(
            render(Format::Tsv, b"\n"),
            "https://e.com/a,b.xml\t2024-01-02T03:04:05.500000+01:00\nhttps://e.com/caf%C3%A9.xml\t\n"
        );
        assert_eq!(
            render(Format::Locs, b""),
            "https://e.com/a,b.xml\nhttps://e.com/caf%C3%A9.xml\n"
        );
    }

    /// Every run over `text` as the reader drives them (after each stop, the entry there
    /// taken the usual way: its origin known, its loc seen, or stepped over), rendered
    /// (JSON Lines, image prefix) and into columns: each text run stops where its column run
    /// does, with the same conversions, and the columns hold every record rendered.
    fn driven(text: &[u8], max_records: usize) {
        let limits = Limits { max_records, ..ALL };
        // images, and `o:r` of another namespace, reported once already (read here)
        let prefixes = Prefixes {
            scope: RootScope {
                bindings: vec![(b"o".to_vec(), "urn:o".into())],
                levels: 3,
                strays: vec![("urn:o".into(), "r".into())],
                raw_strays: true,
            },
            ..Prefixes::images(b"i")
        };
        let mut renderer =
            Renderer::new(Format::JsonLines, b"}\n").with_extensions(prefixes.clone());
        let (mut seen, mut seen_columns) = (Seen::default(), Seen::default());
        let (mut out, mut columns) = (Vec::new(), Columns::default());
        let (mut conversions, mut column_conversions) =
            (Conversions::default(), Conversions::default());
        let (mut pos, mut line, mut runs) = (0, 1, Vec::new());
        while pos < text.len() {
            let done = render_run(
                text,
                (pos, text.len()),
                line,
                limits,
                &mut renderer,
                &mut seen,
                &mut out,
                &mut conversions,
            );
            let in_columns = columns_run(
                text,
                (pos, text.len()),
                line,
                (limits, Some(&prefixes)),
                &mut seen_columns,
                &mut columns,
                &mut column_conversions,
            );
            assert_eq!(done, in_columns);
            runs.push(done);
            (pos, line) = (done.pos, done.line);
            // the entry there the usual way
            let next =
                memchr::memmem::find(&text[pos..], b"</url>").map_or(text.len(), |i| pos + i + 6);
            if let Some(at) = memchr::memmem::find(&text[pos..next], b"<loc>") {
                let loc = &text[pos + at + 5..];
                let loc = &loc[..memchr::memchr(b'<', loc).unwrap()];
                let origin_end = loc
                    .iter()
                    .skip(8)
                    .position(|&b| b == b'/')
                    .map_or(loc.len(), |i| i + 9);
                for s in [&mut seen, &mut seen_columns] {
                    s.know(&loc[..origin_end]);
                    s.first_seen(loc);
                }
            }
            line += text[pos..next].iter().filter(|&&b| b == b'\n').count() as u32;
            pos = next;
        }
        assert_eq!(conversions, column_conversions);
        assert_eq!(columns.len, runs.iter().map(|r| r.count).sum::<usize>());
    }

    #[test]
    fn text_runs_and_column_runs_stop_alike() {
        let entries = [
            "<url><loc>https://e.com/p{i}</loc><lastmod>2024-05-06</lastmod></url>\n",
            "<url>\n <loc>https://e.com/a?{i}&amp;b</loc><priority>0.5</priority></url>\n",
            "<url><loc>https://e.com/caf\u{e9}/{i}</loc></url>\n",
            "<url><loc>https://e.com/i{i}</loc><i:image><i:loc>https://e.com/{i}.png</i:loc></i:image></url>\n",
            "<url><loc>https://e.com/j{i}</loc><lastmod>2024-1-2</lastmod></url>\n",
            "<!-- c --><url><loc>https://e.com/g{i}</loc></url>\n",
            "<url><loc>https://f{i}.com/n</loc></url>\n",
            "<url><loc>https://e.com/p1</loc></url>\n",
            "<url><loc>https://e.com/x{i}</loc><other>1</other></url>\n",
            // an end tag inside CDATA: in a stray element between entries, and in an
            // element of an entry
            "<o:r><![CDATA[</url>\n]]></o:r>\n<url><loc>https://e.com/s{i}</loc></url>\n",
            "<url><loc>https://e.com/r{i}</loc><o:r><![CDATA[</url>]]></o:r></url>\n",
            // comments and instructions after an entry; and an end tag inside them
            "<url><loc>https://e.com/c{i}</loc></url>\n<!-- after {i} -->\n<?pi {i}?>\n",
            "<!-- </url> {i} -->\n<url><loc>https://e.com/k{i}</loc></url><?x </url>?>",
            "<url><loc>https://e.com/u{i}</loc></url><!-- unended",
        ];
        for seed in 0..24usize {
            // entries of a few kinds each, in an order the seed picks
            let mut text = String::new();
            let mut state = seed.wrapping_mul(2654435761) + 1;
            for i in 0..60 {
                state = state
                    .wrapping_mul(6364136223846793005)
                    .wrapping_add(1442695040888963407);
                let kind = if seed % 3 == 0 {
                    (state >> 33) % 4
                } else {
                    (state >> 33) % entries.len()
                };
                text += &entries[kind].replace("{i}", &i.to_string());
            }
            for max_records in [1, 5, 40, usize::MAX] {
                driven(text.as_bytes(), max_records);
            }
        }
    }

    #[test]
    fn priorities_read_as_python_writes_them() {
        let mut r = Renderer::new(Format::Locs, b"");
        for (value, text) in [
            (0.0, "0.0"),
            (1.0, "1.0"),
            (0.5, "0.5"),
            (0.0001, "0.0001"),
            (0.1234, "0.1234"),
            (0.3, "0.3"),
        ] {
            assert_eq!(r.priority_text(value), text.as_bytes());
        }
    }
}
