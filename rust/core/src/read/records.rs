//! The compiled lane's tokenizer for the body of a plain `<urlset>` or `<sitemapindex>`: runs
//! of canonical entries become typed records with their line; entries whose values need the
//! reader's judgement come back as their texts; anything else is handed back as a piece for
//! the careful lane, up to and with the next entry end tag.
//!
//! An entry is read here when it is `<url>` (`<sitemap>`), then `<loc>`, `<lastmod>`,
//! `<changefreq>`, `<priority>` (an index entry: loc, lastmod) in protocol order, all but loc
//! optional (in another order, each once, when every value is plain: [`Record::reordered`]),
//! with no attributes, a value's text as written or one CDATA section that reads as it
//! (`literal_cdata`), references a parser reads as characters (the five predefined
//! entities; character references, `reference_at`), XML whitespace and the comments and
//! processing instructions a parser passes over between elements and entries
//! (`unsaid_len`), and values within the value-length limit. It is
//! canonical when its values need no correction ([`super::values`]). A canonical urlset entry
//! whose core values are followed by an element with a prefix comes back as
//! [`Stop::Extension`], for the extension readers to type or hand on, unless the scan was given
//! the image prefix and they are plain images ([`super::images`]): then the record carries
//! them and stays in the run ([`Record::images`]).

use std::sync::LazyLock;

use memchr::memmem::Finder;

use super::images::{ImageSpans, Late};
use super::media::{plain_extensions, Media, Prefixes, SpareMedia};
use super::raw::stray_at;
use super::values::{value_str, value_text};
use crate::values::iri::{iri_to_uri, iri_to_uri_into, xml_text_to_uri_into};
use crate::values::lastmod::{
    judged_refused_lastmod, plain_lastmod, plain_lastmod_value, Judgement, Lastmod,
};
use crate::values::loc::{plain_loc, plain_uri_origin, PlainLoc, MAX_LOC_LENGTH};
use crate::values::scalars::{
    judged_changefreq, judged_priority, plain_changefreq, plain_priority,
};

/// Byte offsets `start..end` into the scanned buffer.
pub type Span = (usize, usize);

/// The document's kind: which entry element and which values.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Kind {
    Urlset,
    Index,
}

impl Kind {
    /// The entry's start tag.
    pub fn open(self) -> &'static [u8] {
        match self {
            Kind::Urlset => b"<url>",
            Kind::Index => b"<sitemap>",
        }
    }

    /// The entry's end tag, which also ends a piece handed to the careful lane.
    pub fn close(self) -> &'static [u8] {
        match self {
            Kind::Urlset => b"</url>",
            Kind::Index => b"</sitemap>",
        }
    }
}

/// One canonical entry: where its values are, what they mean, and its line.
#[derive(Debug, Clone, PartialEq)]
pub struct Record {
    /// The line of its start tag (1-based, counted in line feeds).
    pub line: u32,
    /// The loc text as written (its entities still escaped when `has_entity`).
    pub loc: Span,
    /// Bytes of the loc's `scheme://authority/` (of `uri` when there is one).
    pub origin_len: usize,
    /// The URI the core made of a loc that is not one as written (`crate::values::iri`);
    /// only when the scan was asked to ([`scan_converting`]).
    pub uri: Option<Box<Converted>>,
    pub has_entity: bool,
    /// The lastmod text, a form Python's `fromisoformat` reads.
    pub lastmod: Option<Span>,
    /// Its value, as the scan parsed it.
    pub lastmod_value: Option<Lastmod>,
    /// What the reader reports of its values, as the core judged them (rare: boxed apart).
    pub noted: Option<Box<Noted>>,
    /// An index into `crate::values::scalars::CHANGEFREQS`.
    pub changefreq: Option<u8>,
    pub priority: Option<f64>,
    /// The plain images after the core values (only from [`scan_with_images`] and
    /// [`scan_with_extensions`]).
    pub images: Option<Box<[ImageSpans]>>,
    /// The plain videos and news after them (only from [`scan_with_extensions`]).
    pub media: Option<Box<Media>>,
    /// Whether its core elements are written in another order than the protocol's (the
    /// checker, which trusts a run's structure, reports it: `element-order`).
    pub reordered: bool,
}

/// What the reader reports of a record's values, in document order.
#[derive(Debug, Clone, PartialEq, Default)]
pub struct Noted {
    /// Its values the reader reports ([`crate::values::lastmod::judged_lastmod`],
    /// [`judged_changefreq`], [`judged_priority`]): read (a lenient lastmod's value, a
    /// changefreq in another case: the text is not written as it is) or invalid (the entry
    /// has none of it); [`ValueNote`].
    pub judged: Vec<JudgedValue>,
    /// Its values written with whitespace around them (a pretty printer's, on lines of
    /// their own): read stripped (the record's spans are), each reported. Check's rules on
    /// loc texts as written find nothing more in such a loc than the reader's
    /// `whitespace-in-value` (XML whitespace around a loc plain as written).
    pub padded: Vec<Padded>,
}

impl Record {
    /// Whether the record carries typed extensions.
    pub fn extended(&self) -> bool {
        self.images.is_some() || self.media.is_some()
    }

    /// Its values the reader reports ([`Noted::judged`]).
    pub fn judged(&self) -> &[JudgedValue] {
        self.noted.as_deref().map_or(&[], |n| &n.judged)
    }

    /// Its values written padded ([`Noted::padded`]).
    pub fn padded(&self) -> &[Padded] {
        self.noted.as_deref().map_or(&[], |n| &n.padded)
    }

    /// Whether its lastmod is one the reader reports (its text is not written as it is).
    pub fn lastmod_judged(&self) -> bool {
        self.judged().first().is_some_and(|j| j.element == 1)
    }
}

/// A value written with whitespace around it: which (0 loc, 1 lastmod, 2 changefreq, 3
/// priority), its element's line, and its text stripped.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Padded {
    pub element: u8,
    pub line: u32,
    pub text: Span,
}

/// A run's value written with whitespace around it, for the reader's `whitespace-in-value`:
/// the record's index in the run, the element's line, which element ([`Padded`]), and its
/// text stripped, its references read.
pub type PadNote = (usize, u32, u8, String);

/// The [`PadNote`] of `p`, a value of the run's record `index`.
pub fn pad_note(text: &[u8], p: &Padded, index: usize) -> PadNote {
    // the scan took it as a value's text
    let written = value_text(&text[p.text.0..p.text.1], usize::MAX).unwrap_or_default();
    (index, p.line, p.element, written)
}

/// Whether the value at `span` of `text` has XML whitespace at either end.
#[inline(always)]
fn padding(text: &[u8], (a, b): Span) -> bool {
    b > a && (is_space(text[a]) || is_space(text[b - 1]))
}

/// `span` of `text` without the XML whitespace around it, when there was some, something is
/// left, and no carriage return in it stands alone (a parser reads one as a line's end;
/// lines are counted in line feeds).
fn stripped(text: &[u8], (a, b): Span) -> Option<Span> {
    let value = &text[a..b];
    let (first, last) = (*value.first()?, *value.last()?);
    if !is_space(first) && !is_space(last) {
        return None;
    }
    let start = value.iter().position(|&b| !is_space(b))?;
    let end = value.iter().rposition(|&b| !is_space(b))? + 1;
    let lone_cr = |from: usize, to: usize| {
        (from..to).any(|i| value[i] == b'\r' && value.get(i + 1) != Some(&b'\n'))
    };
    (!lone_cr(0, start) && !lone_cr(end, value.len())).then_some((a + start, a + end))
}

/// A value the reader reports: which (1 lastmod, 2 changefreq, 3 priority), its element's
/// line, its text, and whether it is invalid (else read: a lenient lastmod, a changefreq in
/// another case).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct JudgedValue {
    pub element: u8,
    pub line: u32,
    pub text: Span,
    pub invalid: bool,
}

impl JudgedValue {
    /// Its code's place among the reader's (`sink._JUDGED_CODES`): lenient-lastmod,
    /// invalid-lastmod, changefreq-case, invalid-changefreq, -, invalid-priority.
    pub fn code(&self) -> usize {
        usize::from(self.element - 1) * 2 + usize::from(self.invalid)
    }
}

/// A run's value the reader reports (`Sink.lastmod`, `Sink.changefreq`, `Sink.priority`
/// word them): the record's index in the run, the element's line, which element, its text,
/// and whether it is invalid.
pub type ValueNote = (usize, u32, u8, String, bool);

/// The [`ValueNote`] of `v`, a value of the run's record `index`.
pub fn value_note(text: &[u8], v: &JudgedValue, index: usize) -> ValueNote {
    // the scan took the text as ASCII
    let written = String::from_utf8_lossy(&text[v.text.0..v.text.1]).into_owned();
    (index, v.line, v.element, written, v.invalid)
}

/// A loc text (entities replaced) and the URI made of it, on the loc element's line.
#[derive(Debug, Clone, PartialEq, Default)]
pub struct Converted {
    pub line: u32,
    /// Empty from a scan that keeps URIs only ([`scan_until`]: the render lane lists the
    /// texts of a few and makes those again, [`Converted::take_text`]).
    pub text: String,
    pub uri: String,
    /// Whether the URI differs from the text.
    pub differs: bool,
}

impl Converted {
    /// The loc's text, taken: the one kept, or made again from the record's loc span
    /// `raw` when the scan kept URIs only (the scan took it, so it is a value text).
    pub fn take_text(&mut self, raw: &[u8]) -> String {
        if self.text.is_empty() {
            return value_text(raw, usize::MAX).unwrap_or_default();
        }
        std::mem::take(&mut self.text)
    }
}

/// What a scan fills again rather than allocating: the conversions' boxes (and their URIs'
/// memory) of records a caller took before, handed back, so that a run of IRIs allocates
/// nothing per loc; and the media boxes of the records of the scan before, emptied, so that
/// a run of records with videos, news, links or raw elements allocates none per record.
#[derive(Default)]
pub(crate) struct Spares {
    pub(crate) uris: SpareUris,
    media: SpareMedia,
    /// The notes' boxes of the records of the scan before, emptied: a file whose every
    /// entry the reader reports (a lenient lastmod each, values written padded) allocates
    /// none per record.
    noted: SpareNoted,
}

/// Boxes, as records hold them: the box is what is kept.
type SpareUris = Vec<Box<Converted>>;
type SpareNoted = Vec<Box<Noted>>;

/// The most media boxes [`Spares`] keeps (a scan's worth).
const KEPT_MEDIA: usize = 1 << 12;

impl Spares {
    /// `records`' media and notes' boxes, emptied, kept for the next records (`records` is
    /// cleared next).
    fn keep_boxes(&mut self, records: &mut [Record]) {
        for r in records {
            if let Some(mut media) = r.media.take() {
                if self.media.boxes.len() < KEPT_MEDIA {
                    media.clear();
                    self.media.boxes.push(media);
                }
            }
            if let Some(noted) = r.noted.take() {
                keep_noted(&mut self.noted, noted);
            }
        }
    }
}

/// `noted`, emptied, kept for the next records.
fn keep_noted(spare: &mut SpareNoted, mut noted: Box<Noted>) {
    if spare.len() < KEPT_MEDIA {
        noted.judged.clear();
        noted.padded.clear();
        spare.push(noted);
    }
}

/// A record's notes, a spare box taken for them at the first.
fn noted_box<'a>(noted: &'a mut Option<Box<Noted>>, spare: &mut SpareNoted) -> &'a mut Noted {
    noted.get_or_insert_with(|| spare.pop().unwrap_or_default())
}

/// Whether a scan makes URIs of locs that are not ones as written ([`Record::uri`]), and
/// whether it keeps their texts.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Converting {
    No,
    WithTexts,
    UrisOnly,
}

/// A value's text as an XML parser gives it, and the line of its element.
#[derive(Debug, Clone, PartialEq)]
pub struct Text {
    pub line: u32,
    pub text: String,
}

/// A value of an entry to judge: typed when it is plain, else its text.
#[derive(Debug, Clone, PartialEq)]
pub enum Value {
    Loc {
        span: Span,
        has_entity: bool,
    },
    Lastmod(Span),
    Changefreq(u8),
    Priority(f64),
    Text(Text),
    /// A loc text the core made a URI of (`values::iri`): the reader reports it when the
    /// two differ.
    Uri {
        text: Text,
        uri: String,
    },
}

/// An entry some of whose values the reader judges (they may need correction or a report):
/// its line and its loc, lastmod, changefreq, priority.
#[derive(Debug, Clone, PartialEq)]
pub struct Judged {
    pub line: u32,
    pub values: [Option<Value>; 4],
}

/// Why a scan stopped.
#[derive(Debug, Clone, PartialEq)]
pub enum Stop {
    /// The end of the text given (or the record limit).
    End,
    /// A piece the careful lane must read, from `start` to `end` (just after the next entry
    /// end tag, or the end of the text).
    Gap { start: usize, end: usize },
    /// A canonical urlset entry's core values followed by extension elements (`fragment`, up
    /// to the entry's `</url>`, which ends at `end`).
    Extension {
        record: Record,
        start: usize,
        fragment: Span,
        end: usize,
    },
    /// A run of entries whose values need judgement; reading goes on at `Scan::pos`.
    Judged(Vec<Judged>),
}

/// What one call of [`scan`] read.
#[derive(Debug, Clone, PartialEq)]
pub struct Scan {
    pub records: Vec<Record>,
    /// Where reading goes on (for `Gap` and `Extension`: their start).
    pub pos: usize,
    /// The line at `pos`.
    pub line: u32,
    pub stop: Stop,
}

/// What a scan may take: the document's kind, the most entries, the longest value (bytes).
#[derive(Debug, Clone, Copy)]
pub struct Limits {
    pub kind: Kind,
    pub max_records: usize,
    pub max_value: usize,
    /// how many entries a run to judge may take when that is more than `max_records` (0:
    /// none more): the render lane scans one record past a run it rendered, and the entries
    /// after a first one to judge (a site whose every lastmod is lenient) join its run
    pub max_judged: usize,
}

impl Limits {
    /// How many canonical records in a row end a run to judge (they join it until then, as
    /// typed entries). A reader that renders canonical records in the core (`max_judged`
    /// set: the render lane) ends a run at the first: the core renders it, and an entry to
    /// judge costs that entry only, never the canonical ones around it.
    fn run_break(&self) -> usize {
        if self.max_judged > 0 {
            RENDERED_RUN_BREAK
        } else {
            RUN_BREAK
        }
    }
}

fn is_space(b: u8) -> bool {
    matches!(b, b' ' | b'\t' | b'\r' | b'\n')
}

fn count_lines(text: &[u8]) -> u32 {
    // most texts counted (an entry's extension elements) hold none: one search, where
    // memchr's count sets up for ~140 instructions
    let Some(first) = memchr::memchr(b'\n', text) else {
        return 0;
    };
    let n = 1 + memchr::memchr_iter(b'\n', &text[first + 1..]).count();
    u32::try_from(n).unwrap_or(u32::MAX)
}

/// A cursor over the text with the line it stands on.
struct Cursor<'a> {
    text: &'a [u8],
    pos: usize,
    line: u32,
    /// Whether a value read since it was last cleared has whitespace around it.
    padded: bool,
}

impl Cursor<'_> {
    /// `<loc>` holding one CDATA section whose '&' are as they are (a URL with a query,
    /// wrapped so that it needs no escape), then `</loc>` and whitespace: the content's span
    /// (the loc as written) and the element's line; the cursor does not move otherwise.
    fn literal_loc(&mut self) -> Option<(Span, u32)> {
        const OPEN: &[u8] = b"<loc>";
        let start = self.pos + OPEN.len();
        let (a, b, after) = cdata_section(self.text.get(start..)?)?;
        let end = start + after;
        if !self.at(OPEN) || !self.text[end..].starts_with(b"</loc>") {
            return None;
        }
        let line = self.line;
        self.pos = end + b"</loc>".len();
        self.spaces();
        Some(((start + a, start + b), line))
    }

    /// XML whitespace, and the comments and processing instructions between elements that
    /// a parser passes over without a word ([`unsaid_len`]).
    #[inline(always)]
    fn spaces(&mut self) {
        // inline: five a record, most passing over nothing or a line feed; the call is for a
        // comment or processing instruction
        loop {
            while let Some(&b) = self.text.get(self.pos) {
                if !is_space(b) {
                    break;
                }
                if b == b'\n' {
                    self.line += 1;
                }
                self.pos += 1;
            }
            if !matches!(
                self.text.get(self.pos..self.pos + 2),
                Some([b'<', b'!' | b'?'])
            ) || !self.unsaid()
            {
                return;
            }
        }
    }

    /// Past the comment or processing instruction at the cursor when a parser passes over
    /// it without a word ([`unsaid_len`]): whether it was one.
    #[inline(never)]
    fn unsaid(&mut self) -> bool {
        let rest = &self.text[self.pos..];
        let Some(len) = unsaid_len(rest) else {
            return false;
        };
        self.line += count_lines(&rest[..len]);
        self.pos += len;
        true
    }

    #[inline(always)]
    fn at(&self, tag: &[u8]) -> bool {
        self.text[self.pos..].starts_with(tag)
    }

    /// `<name>` text `</name>` then whitespace: the text's span and the element's line; the
    /// cursor does not move when the element is not there or its text holds a '<' that is not
    /// its end tag. Line feeds inside the text are not counted (no plain value holds one;
    /// `entry` counts them again for values it judges). The text may be one CDATA section
    /// alone that reads as the same text would ([`literal_cdata`]): its content's span.
    #[inline(always)]
    fn element(&mut self, open: &[u8], close: &[u8]) -> Option<(Span, u32)> {
        if !self.at(open) {
            return None;
        }
        let start = self.pos + open.len();
        let len = memchr::memchr(b'<', &self.text[start..])?;
        // a CDATA section only where the text starts (most texts: none looked for)
        let cdata = if len == 0 {
            literal_cdata(&self.text[start..])
        } else {
            None
        };
        let (span, end) = match cdata {
            Some((a, b, after)) => ((start + a, start + b), start + after),
            None => ((start, start + len), start + len),
        };
        if !self.text[end..].starts_with(close) {
            return None;
        }
        let line = self.line;
        // a value on lines of its own (whitespace around it): those lines counted
        if padding(self.text, span) {
            self.line += count_lines(&self.text[span.0..span.1]);
            self.padded = true;
        }
        self.pos = end + close.len();
        self.spaces();
        Some((span, line))
    }
}

/// The length of the comment or processing instruction at the start of `text` when a parser
/// reads it without a word (CMSs write a comment before each entry, or inside it): not one it
/// reports (`--` in a comment, a target `xml...`, not a name, bytes XML forbids), nor one
/// holding a '<' (entries are found by their tags in the text, from anywhere before them) or
/// a carriage return not before a line feed (lines are counted in line feeds).
fn unsaid_len(text: &[u8]) -> Option<usize> {
    let (body, len) = if let Some(rest) = text.strip_prefix(b"<!--") {
        // the first "--" must end the comment
        let at = COMMENT_DASHES.find(rest)?;
        (rest.get(at + 2) == Some(&b'>')).then_some(())?;
        (&rest[..at], 4 + at + 3)
    } else {
        let rest = text.strip_prefix(b"<?")?;
        let at = PI_END.find(rest)?;
        let inner = &rest[..at];
        let name = inner.iter().position(|&b| is_space(b)).unwrap_or(at);
        let target = &inner[..name];
        let named = matches!(target, [first, ..] if first.is_ascii_alphabetic() || *first == b'_')
            && target
                .iter()
                .all(|&b| b.is_ascii_alphanumeric() || matches!(b, b'_' | b'-' | b'.'));
        if !named || target.len() >= 3 && target[..3].eq_ignore_ascii_case(b"xml") {
            return None;
        }
        (inner, 2 + at + 2)
    };
    let odd = |(i, &b): (usize, &u8)| match b {
        b'<' => true,
        b'\r' => body.get(i + 1) != Some(&b'\n'),
        b'\t' | b'\n' => false,
        0..=0x1f => true,
        0xEF => matches!(body[i + 1..], [0xBF, 0xBE | 0xBF, ..]),
        _ => false,
    };
    let plain = body.iter().all(|&b| (0x20..0x7f).contains(&b) && b != b'<');
    (plain || (std::str::from_utf8(body).is_ok() && !body.iter().enumerate().any(odd)))
        .then_some(len)
}

/// A CDATA section at the start of `text` whose content reads as the same text written
/// plainly would (no '&' or '<': generators wrap plain URLs in one): the content's span and
/// the offset past the section.
pub(crate) fn literal_cdata(text: &[u8]) -> Option<(usize, usize, usize)> {
    cdata_section(text).filter(|&(a, b, _)| memchr::memchr(b'&', &text[a..b]).is_none())
}

/// A CDATA section at the start of `text` holding no '<': the content's span and the offset
/// past the section.
fn cdata_section(text: &[u8]) -> Option<(usize, usize, usize)> {
    const OPEN: &[u8] = b"<![CDATA[";
    let rest = text.strip_prefix(OPEN)?;
    // no '<' inside: the section ends just before the next '<' (searched no further)
    let next = memchr::memchr(b'<', rest)?;
    let len = CDATA_END.find(&rest[..next])?;
    (len + 3 == next).then_some((OPEN.len(), OPEN.len() + len, OPEN.len() + next))
}

/// Whether `rest` (what follows a document's last entry) is the root's end tag `tail`, with
/// only whitespace and what [`unsaid_len`] passes over around it (Yoast writes a comment
/// after the root).
pub fn plain_end(rest: &[u8], tail: &[u8]) -> bool {
    let skip = |pos: usize| {
        let mut c = Cursor {
            text: rest,
            pos,
            line: 0,
            padded: false,
        };
        c.spaces();
        c.pos
    };
    let at = skip(0);
    rest[at..].starts_with(tail) && skip(at + tail.len()) == rest.len()
}

/// Where the markup a scan skips ends, each searcher built once: one made per call cost
/// ~280 instructions, as much as the search (a CMS writes a comment or a CDATA section in
/// every entry).
pub(crate) static CDATA_END: LazyLock<Finder<'static>> = LazyLock::new(|| Finder::new(b"]]>"));
pub(crate) static COMMENT_DASHES: LazyLock<Finder<'static>> = LazyLock::new(|| Finder::new(b"--"));
static PI_END: LazyLock<Finder<'static>> = LazyLock::new(|| Finder::new(b"?>"));

/// The first entry end tag of `kind` in `text` at or after `from`.
fn find_close(text: &[u8], kind: Kind, from: usize) -> Option<usize> {
    static URL: LazyLock<Finder<'static>> = LazyLock::new(|| Finder::new(Kind::Urlset.close()));
    static SITEMAP: LazyLock<Finder<'static>> = LazyLock::new(|| Finder::new(Kind::Index.close()));
    let finder = match kind {
        Kind::Urlset => &*URL,
        Kind::Index => &*SITEMAP,
    };
    finder.find(text.get(from..)?).map(|i| i + from)
}

/// An entry read at the cursor, with what follows its values.
enum Entry {
    Canonical(Record),
    Extension(Record),
    Judged(Judged),
}

const ELEMENTS: [(&[u8], &[u8]); 4] = [
    (b"<loc>", b"</loc>"),
    (b"<lastmod>", b"</lastmod>"),
    (b"<changefreq>", b"</changefreq>"),
    (b"<priority>", b"</priority>"),
];

/// The entry at the cursor (which stands on its start tag), or None for the careful lane; on
/// None the cursor is left anywhere (the caller keeps its own position).
fn entry(
    c: &mut Cursor<'_>,
    limits: Limits,
    (convert, spare): (Converting, &mut Spares),
    prefixes: Option<&Prefixes>,
) -> Option<Entry> {
    let (line, start) = (c.line, c.pos);
    c.pos += limits.kind.open().len();
    c.padded = false;
    c.spaces();
    // one call per element, each with its tags as constants: compared in place, not by a
    // memcmp call per tag
    let [loc, lastmod, changefreq, priority] = ELEMENTS;
    let mut spans: [Option<(Span, u32)>; 4] = [None; 4];
    spans[0] = c.element(loc.0, loc.1);
    // a loc in CDATA with its '&' as they are: read only as a plain URI as written
    let literal = spans[0].is_none() && {
        spans[0] = c.literal_loc();
        spans[0].is_some()
    };
    spans[1] = c.element(lastmod.0, lastmod.1);
    if limits.kind == Kind::Urlset {
        spans[2] = c.element(changefreq.0, changefreq.1);
        spans[3] = c.element(priority.0, priority.1);
    }
    let close = limits.kind.close();
    // the core elements in another order: a record when its values are plain (the sink's
    // findings of one entry come in the protocol's order, so one with any is lxml's)
    let moved = !c.at(close) && !literal && reordered(c, &mut spans, limits.kind);
    // values with whitespace around them, read stripped (in protocol order only: each
    // reported before the value's own issues)
    // (the spans as written kept only then: an entry judged reports that whitespace)
    let mut noted: Option<Box<Noted>> = None;
    let mut written = None;
    if !moved && c.padded {
        written = Some(spans);
        for (i, slot) in spans.iter_mut().enumerate() {
            if let Some((span, line)) = slot {
                if let Some(inner) = stripped(c.text, *span) {
                    *span = inner;
                    noted_box(&mut noted, &mut spare.noted).padded.push(Padded {
                        element: i as u8,
                        line: *line,
                        text: inner,
                    });
                }
            }
        }
    }
    let written = written.unwrap_or(spans);
    let Some((loc, loc_line)) = spans[0] else {
        // an entry without a loc (empty, or other values only): judged, the reader reports it
        return if c.at(close) {
            judged(c, written, line, start, limits)
        } else {
            None
        };
    };
    let src = c.text;
    let text = |s: Span| &src[s.0..s.1];
    let mut plain = (|| {
        let (
            PlainLoc {
                origin_len,
                has_entity,
            },
            uri,
        ) = match plain_loc(text(loc)) {
            _ if literal => {
                let origin_len = plain_uri_origin(text(loc), MAX_LOC_LENGTH)?;
                let plain = PlainLoc {
                    origin_len,
                    has_entity: false,
                };
                (plain, None)
            }
            Some(p) => (p, None),
            None if convert != Converting::No => {
                let texts = convert == Converting::WithTexts;
                let (converted, origin_len) = converted(
                    text(loc),
                    loc_line,
                    (limits.max_value, texts),
                    &mut spare.uris,
                )?;
                let plain = PlainLoc {
                    origin_len,
                    has_entity: false,
                };
                (plain, Some(converted))
            }
            None => return None,
        };
        // the values the reader reports, judged here as it judges them (in protocol order
        // only: each reported after the loc's issue)
        let mut judge = |element: u8, (s, line): (Span, u32), invalid: bool| {
            let text = s;
            noted_box(&mut noted, &mut spare.noted)
                .judged
                .push(JudgedValue {
                    element,
                    line,
                    text,
                    invalid,
                });
        };
        let judging = !moved;
        let (lastmod, lastmod_value) = match spans[1] {
            Some((s, line)) => match plain_lastmod_value(text(s)) {
                Some(value) => (Some(s), Some(value)),
                None if judging && s.1 - s.0 <= limits.max_value => {
                    match judged_refused_lastmod(text(s))? {
                        Judgement::Lenient(value) => {
                            judge(1, (s, line), false);
                            (Some(s), Some(value))
                        }
                        Judgement::Invalid => {
                            judge(1, (s, line), true);
                            (None, None)
                        }
                    }
                }
                None => return None,
            },
            None => (None, None),
        };
        let changefreq = match spans[2] {
            Some((s, line)) => match plain_changefreq(text(s)) {
                Some(i) => Some(i),
                None if judging && s.1 - s.0 <= limits.max_value => {
                    let found = judged_changefreq(text(s))?;
                    judge(2, (s, line), found.is_none());
                    found
                }
                None => return None,
            },
            None => None,
        };
        let priority = match spans[3] {
            Some((s, line)) => match plain_priority(text(s)) {
                Some(p) => Some(p),
                None if judging && s.1 - s.0 <= limits.max_value => {
                    let found = judged_priority(text(s))?;
                    if found.is_none() {
                        judge(3, (s, line), true);
                    }
                    found
                }
                None => return None,
            },
            None => None,
        };
        Some(Record {
            line,
            loc,
            origin_len,
            uri,
            has_entity,
            lastmod,
            lastmod_value,
            noted: noted.take(),
            changefreq,
            priority,
            images: None,
            media: None,
            reordered: moved,
        })
    })();
    if let Some(unused) = noted.take() {
        keep_noted(&mut spare.noted, unused); // an entry that is not a record after all
    }
    if let (Some(record), Some(prefixes)) = (plain.as_mut(), prefixes) {
        if limits.kind == Kind::Urlset && element_start(&c.text[c.pos..]) {
            with_extensions(c, record, (prefixes, &mut spare.media), limits);
        }
    }
    match plain {
        Some(record) if c.at(close) => Some(Entry::Canonical(record)),
        // a converted loc before extensions is left to the careful lane
        // and so is a lastmod the reader reports (its issue would come after theirs)
        Some(record)
            if record.uri.is_none()
                && record.noted.is_none()
                && limits.kind == Kind::Urlset
                && extension_start(&c.text[c.pos..]) =>
        {
            Some(Entry::Extension(record))
        }
        _ if c.at(close) && !literal && !moved => judged(c, written, line, start, limits),
        _ => None,
    }
}

/// The core elements at the cursor not read yet, in any order (a generator's, each once):
/// whether there was one.
fn reordered(c: &mut Cursor<'_>, spans: &mut [Option<(Span, u32)>; 4], kind: Kind) -> bool {
    let names = if kind == Kind::Urlset { 4 } else { 2 };
    let mut found = false;
    while let Some(i) = (0..names).find(|&i| spans[i].is_none() && c.at(ELEMENTS[i].0)) {
        let Some(element) = c.element(ELEMENTS[i].0, ELEMENTS[i].1) else {
            break;
        };
        spans[i] = Some(element);
        found = true;
    }
    found
}

/// An entry standing on its end tag whose values (`spans`, loc maybe absent) the reader
/// judges: the plain ones typed, the others as texts; None when one needs the careful lane.
fn judged(
    c: &mut Cursor<'_>,
    spans: [Option<(Span, u32)>; 4],
    line: u32,
    start: usize,
    limits: Limits,
) -> Option<Entry> {
    let src = c.text;
    let text = |s: Span| &src[s.0..s.1];
    let mut values: [Option<Value>; 4] = Default::default();
    for (i, (value, span)) in values.iter_mut().zip(spans).enumerate() {
        if let Some((s, _)) = span {
            let raw = text(s);
            let plain = match i {
                0 => plain_loc(raw).map(|p| Value::Loc {
                    span: s,
                    has_entity: p.has_entity,
                }),
                1 => plain_lastmod(raw).then_some(Value::Lastmod(s)),
                2 => plain_changefreq(raw).map(Value::Changefreq),
                _ => plain_priority(raw).map(Value::Priority),
            };
            if plain.is_some() {
                *value = plain;
                continue;
            }
            let text = value_text(raw, limits.max_value)?;
            // the element's line, line feeds inside earlier values counted
            let open = c.text[..s.0]
                .iter()
                .rposition(|&b| b == b'<')
                .unwrap_or(s.0);
            let line = line + count_lines(&c.text[start..open]);
            let text = Text { line, text };
            *value = Some(match (i, iri_to_uri(&text.text)) {
                (0, Some(uri)) => Value::Uri { text, uri },
                _ => Value::Text(text),
            });
        }
    }
    c.line = line + count_lines(&c.text[start..c.pos]);
    Some(Entry::Judged(Judged { line, values }))
}

/// Types the extension elements at the cursor as plain images, videos and news of
/// `record`, the cursor then standing on the entry end tag; when they are not plain,
/// nothing changes.
fn with_extensions(
    c: &mut Cursor<'_>,
    record: &mut Record,
    (prefixes, spare): (&Prefixes, &mut SpareMedia),
    limits: Limits,
) {
    let Some(end) = find_close(c.text, limits.kind, c.pos) else {
        return;
    };
    if let Some((images, media)) =
        plain_extensions(c.text, (c.pos, end), (prefixes, spare), limits.max_value)
    {
        c.line += count_lines(&c.text[c.pos..end]);
        c.pos = end;
        record.images = (!images.is_empty()).then(|| images.into_boxed_slice());
        record.media = media;
    }
}

/// Canonical records in a row that end a run of entries to judge.
const RUN_BREAK: usize = 32;
/// [`Limits::run_break`] of the render lane.
const RENDERED_RUN_BREAK: usize = 1;

/// A canonical record of `src` as an entry of a run to judge, every value typed.
fn typed(src: &[u8], r: Record) -> Judged {
    let loc = match r.uri {
        Some(mut c) => Value::Uri {
            text: Text {
                line: c.line,
                text: c.take_text(&src[r.loc.0..r.loc.1]),
            },
            uri: c.uri,
        },
        None => Value::Loc {
            span: r.loc,
            has_entity: r.has_entity,
        },
    };
    let mut values = [
        Some(loc),
        r.lastmod.map(Value::Lastmod),
        r.changefreq.map(Value::Changefreq),
        r.priority.map(Value::Priority),
    ];
    // the values the reader reports, judged as the run's other entries' texts are (the scan
    // took them as ASCII)
    for v in r.noted.iter().flat_map(|n| &n.judged) {
        values[usize::from(v.element)] = Some(Value::Text(Text {
            line: v.line,
            text: String::from_utf8_lossy(&src[v.text.0..v.text.1]).into_owned(),
        }));
    }
    Judged {
        line: r.line,
        values,
    }
}

/// `<` then a name start character, then a ':' before any '<' or '>': a prefixed element.
fn extension_start(text: &[u8]) -> bool {
    match text {
        [b'<', first, rest @ ..] if first.is_ascii_alphabetic() || *first == b'_' => rest
            .iter()
            .take_while(|&&b| b != b'<' && b != b'>')
            .any(|&b| b == b':'),
        _ => false,
    }
}

/// `<` then a name start character: an element's start tag.
fn element_start(text: &[u8]) -> bool {
    matches!(text, [b'<', first, ..] if first.is_ascii_alphabetic() || *first == b'_')
}

/// A loc text that is not a URI as written but that the core makes one of, on `line` (in a
/// box of `spare` when there is one), and the bytes of the URI's `scheme://authority/`; its
/// text kept when `texts` (else only whether the URI differs from it).
fn converted(
    raw: &[u8],
    line: u32,
    (max, texts): (usize, bool),
    spare: &mut SpareUris,
) -> Option<(Box<Converted>, usize)> {
    if raw.len() > max {
        return None;
    }
    let mut c = spare.pop().unwrap_or_default();
    c.uri.clear();
    // the usual IRI made a URI from the text's bytes as they are (no reference in them);
    // any other text read first
    let made = match xml_text_to_uri_into(raw, &mut c.uri) {
        Some(origin_len) => Some((origin_len, None)),
        None => value_str(raw, max)
            .and_then(|text| Some((iri_to_uri_into(&text, &mut c.uri)?, Some(text)))),
    };
    let Some((origin_len, text)) = made else {
        spare.push(c);
        return None;
    };
    c.line = line;
    c.differs = c.uri.as_bytes() != text.as_deref().map_or(raw, str::as_bytes);
    c.text = match text {
        _ if !texts => String::new(),
        Some(text) => text.into_owned(),
        // UTF-8: the usual way checked each character beyond ASCII
        None => String::from_utf8_lossy(raw).into_owned(),
    };
    Some((c, origin_len))
}

/// Read `text[pos..end]` (which must end just after an entry end tag, or be whitespace)
/// starting on `line`, taking at most `limits.max_records` canonical records.
pub fn scan(text: &[u8], pos: usize, end: usize, line: u32, limits: Limits) -> Scan {
    scan_records(
        text,
        (pos, end),
        line,
        limits,
        (Converting::No, None),
        (Vec::new(), &mut Spares::default()),
    )
}

/// An extension element of a run's record whose children are out of the schema's order: the
/// record's index in the run, the line of the element's start tag, and its [`Late`]'s kind
/// and places. The reader reports each (`extension-order`), as the extension readers would.
pub type OrderNote = (usize, u32, u8, u8, u8);

/// The [`OrderNote`]s of `r`, the run's record `index`, into `notes`, in document order
/// (most records: none).
pub fn note_late(text: &[u8], r: &Record, index: usize, kind: Kind, notes: &mut Vec<OrderNote>) {
    let images = r.images.iter().flatten().filter_map(|i| i.late);
    let mut lates: Vec<Late> = match r.media.as_deref() {
        Some(media) if !media.lates.is_empty() => {
            images.chain(media.lates.iter().copied()).collect()
        }
        _ => images.collect(),
    };
    if lates.is_empty() {
        return;
    }
    lates.sort_by_key(|l| (l.at, l.kind));
    // the record's start tag: only whitespace lies between it and <loc>
    let start = memchr::memmem::rfind(&text[..r.loc.0], kind.open()).unwrap_or(r.loc.0);
    let (mut counted, mut line) = (start, r.line);
    for l in lates {
        line += count_lines(&text[counted..l.at]);
        counted = l.at;
        notes.push((index, line, l.kind, l.child, l.after));
    }
}

/// [`scan`], with locs that the core makes URIs of (`crate::values::iri`) taken as canonical
/// records carrying their URI ([`Record::uri`]) rather than judged one at a time.
pub fn scan_converting(text: &[u8], pos: usize, end: usize, line: u32, limits: Limits) -> Scan {
    scan_records(
        text,
        (pos, end),
        line,
        limits,
        (Converting::WithTexts, None),
        (Vec::new(), &mut Spares::default()),
    )
}

/// [`scan_converting`], with canonical records followed by plain images (`prefix`: the one the
/// root binds to the image namespace) taken with them ([`Record::images`]).
pub fn scan_with_images(
    text: &[u8],
    (pos, end): Span,
    line: u32,
    limits: Limits,
    prefix: &[u8],
) -> Scan {
    scan_records(
        text,
        (pos, end),
        line,
        limits,
        (Converting::WithTexts, Some(&Prefixes::images(prefix))),
        (Vec::new(), &mut Spares::default()),
    )
}

/// [`scan_converting`], with canonical records followed by plain images, videos and news
/// (in the namespaces the root binds to `prefixes`) taken with them ([`Record::images`],
/// [`Record::media`]).
pub fn scan_with_extensions(
    text: &[u8],
    (pos, end): Span,
    line: u32,
    limits: Limits,
    prefixes: &Prefixes,
) -> Scan {
    scan_records(
        text,
        (pos, end),
        line,
        limits,
        (Converting::WithTexts, Some(prefixes)),
        (Vec::new(), &mut Spares::default()),
    )
}

/// [`scan_converting`] (with `prefixes`, [`scan_with_extensions`]) into `room` (emptied
/// first), whose memory a caller scanning again hands back, with the boxes of the
/// conversions it took. A loc made a URI keeps its URI only (the render lane's:
/// [`Converted::take_text`] makes the few texts it lists).
pub(crate) fn scan_until(
    text: &[u8],
    (pos, end): Span,
    line: u32,
    (limits, prefixes): (Limits, Option<&Prefixes>),
    room: (Vec<Record>, &mut Spares),
) -> Scan {
    scan_records(
        text,
        (pos, end),
        line,
        limits,
        (Converting::UrisOnly, prefixes),
        room,
    )
}

fn scan_records(
    text: &[u8],
    (pos, end): (usize, usize),
    line: u32,
    limits: Limits,
    (convert, prefixes): (Converting, Option<&Prefixes>),
    (mut records, spare): (Vec<Record>, &mut Spares),
) -> Scan {
    let text = &text[..end];
    let close = limits.kind.close();
    let piece_end =
        |from: usize| find_close(text, limits.kind, from).map_or(end, |i| i + close.len());
    let mut c = Cursor {
        text,
        pos,
        line,
        padded: false,
    };
    // room for the records the text can hold (one in ~100 bytes at the most of a real
    // sitemap's), so that a long run is not copied as it grows
    spare.keep_boxes(&mut records);
    // the names of raw elements are this scan's root scope's (`prefixes`)
    spare.media.raw_name = None;
    records.clear();
    records.reserve(limits.max_records.min((end - pos.min(end)) / 100 + 1));
    let mut judged = Vec::new();
    // canonical records met inside a run of entries to judge join it (one call for a file
    // that mixes both), until RUN_BREAK in a row end the run where they started
    let (mut streak, mut streak_at) = (0usize, (pos, line));
    loop {
        c.spaces();
        let (start, line) = (c.pos, c.line);
        let room = match judged.is_empty() {
            true => limits.max_records,
            false => limits.max_records.max(limits.max_judged),
        };
        let full = records.len() + judged.len() >= room;
        if let Some(after) = prefixes
            .filter(|_| start < end && !c.at(limits.kind.open()) && element_start(&text[start..]))
            .and_then(|p| stray_at(text, (start, end), &p.scope, limits.max_value))
        {
            // an element the reader reported once already: dropped, as it drops it
            c.line += count_lines(&text[start..after]);
            c.pos = after;
            continue;
        }
        let found = if start < end && !full && c.at(limits.kind.open()) {
            entry(&mut c, limits, (convert, &mut *spare), prefixes)
        } else {
            None
        };
        let stop = match found {
            Some(Entry::Canonical(record)) if judged.is_empty() => {
                c.pos += close.len();
                records.push(record);
                continue;
            }
            // a run to judge ends before a record with extensions (a run's entries have none)
            // and before one with values written padded (their texts are not kept)
            Some(Entry::Canonical(record)) if record.extended() || !record.padded().is_empty() => {
                return Scan {
                    records,
                    pos: start,
                    line,
                    stop: Stop::Judged(judged),
                };
            }
            Some(Entry::Canonical(record)) => {
                if streak == 0 {
                    streak_at = (start, line);
                }
                streak += 1;
                c.pos += close.len();
                judged.push(typed(text, record));
                if streak < limits.run_break() {
                    continue;
                }
                judged.truncate(judged.len() - streak);
                return Scan {
                    records,
                    pos: streak_at.0,
                    line: streak_at.1,
                    stop: Stop::Judged(judged),
                };
            }
            Some(Entry::Judged(j)) => {
                streak = 0;
                c.pos += close.len();
                judged.push(j);
                continue;
            }
            _ if !judged.is_empty() => Stop::Judged(judged),
            _ if start >= end || full => Stop::End,
            Some(Entry::Extension(record)) => {
                let stop = piece_end(c.pos);
                if text[..stop].ends_with(close) {
                    Stop::Extension {
                        record,
                        start,
                        fragment: (c.pos, stop - close.len()),
                        end: stop,
                    }
                } else {
                    Stop::Gap { start, end: stop }
                }
            }
            _ => Stop::Gap {
                start,
                end: piece_end(start),
            },
        };
        return Scan {
            records,
            pos: start,
            line,
            stop,
        };
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    const ALL: Limits = Limits {
        kind: Kind::Urlset,
        max_records: usize::MAX,
        max_value: 1 << 20,
        max_judged: 0,
    };

    fn scan_all(text: &str) -> Scan {
        scan(text.as_bytes(), 0, text.len(), 1, ALL)
    }

    #[test]
    fn canonical_records_with_lines() {
        let text = "\n<url><loc>https://a.test/x</loc></url>\n  <url>\n <loc>https://a.test/y?a&amp;b</loc>\n<lastmod>2024-01-02</lastmod><changefreq>daily</changefreq><priority>0.5</priority></url>\n";
        let s = scan_all(text);
        assert_eq!(s.stop, Stop::End);
        assert_eq!(s.pos, text.len());
        assert_eq!(s.line, 6);
        assert_eq!(s.records.len(), 2);
        let (a, b) = (&s.records[0], &s.records[1]);
        assert_eq!((a.line, b.line), (2, 3));
        assert_eq!(&text[b.loc.0..b.loc.1], "https://a.test/y?a&amp;b");
        assert!(b.has_entity && !a.has_entity);
        assert_eq!(b.origin_len, "https://a.test/".len());
        let lm = b.lastmod.unwrap();
        assert_eq!(&text[lm.0..lm.1], "2024-01-02");
        assert_eq!((b.changefreq, b.priority), (Some(2), Some(0.5)));
    }

    #[test]
    fn notes_boxes_are_kept_for_the_next_scan_and_carry_nothing_over() {
        let noted = "<url><loc> https://a.test/a</loc><lastmod>2024-5-6</lastmod></url>\n<url><loc>https://a.test/b</loc><priority>2</priority></url>\n";
        let plain = "<url><loc>https://a.test/c</loc><lastmod>2024-05-06</lastmod></url>\n<url><loc>https://a.test/d</loc><lastmod>2024-5-7</lastmod></url>\n";
        let mut spare = Spares::default();
        let scanned = |text: &str, room: Vec<Record>, spare: &mut Spares| {
            let (pos, end) = (0, text.len());
            scan_until(text.as_bytes(), (pos, end), 1, (ALL, None), (room, spare))
        };
        let first = scanned(noted, Vec::new(), &mut spare);
        assert_eq!(first.records.len(), 2);
        let judged: Vec<usize> = first.records.iter().map(|r| r.judged().len()).collect();
        assert_eq!((judged, first.records[0].padded().len()), (vec![1, 1], 1));
        // the next scan fills the boxes again: a record with notes has only its own
        let next = scanned(plain, first.records, &mut spare);
        assert_eq!(next.records, scan_all(plain).records);
        assert!(next.records[0].noted.is_none());
        assert_eq!(next.records[1].judged().len(), 1);
        assert!(next.records[1].padded().is_empty());
        assert_eq!(spare.noted.len(), 1); // two kept, one taken again
    }

    #[test]
    fn values_written_padded_are_read_stripped_and_noted() {
        let text = "<url>\n  <loc>\n    https://a.test/x?a&amp;b\n  </loc>\n  <lastmod> 2024-01-02 </lastmod>\n  <changefreq>\tdaily</changefreq><priority>0.5\r\n</priority>\n</url>\n<url><loc>https://a.test/y</loc></url>\n<url><loc>  </loc></url>";
        let s = scan_all(text);
        assert_eq!(s.records.len(), 2);
        let (a, b) = (&s.records[0], &s.records[1]);
        assert_eq!(&text[a.loc.0..a.loc.1], "https://a.test/x?a&amp;b");
        assert!(a.has_entity && a.padded()[0].element == 0 && b.noted.is_none());
        let lastmod = a.lastmod.unwrap();
        assert_eq!(&text[lastmod.0..lastmod.1], "2024-01-02");
        assert_eq!((a.changefreq, a.priority), (Some(2), Some(0.5)));
        // each element's line, and the lines inside the values counted for what follows
        let padded: Vec<(u8, u32)> = a.padded().iter().map(|p| (p.element, p.line)).collect();
        assert_eq!(padded, [(0, 2), (1, 5), (2, 6), (3, 6)]);
        assert_eq!(b.line, 9);
        let mut notes = Vec::new();
        for p in a.padded() {
            notes.push(pad_note(text.as_bytes(), p, 0));
        }
        assert_eq!(notes[0], (0, 2, 0, "https://a.test/x?a&b".to_string()));
        assert_eq!(notes[3].3, "0.5");
        // a value of whitespace only is the reader's to judge
        let Stop::Judged(run) = &s.stop else {
            panic!("{:?}", s.stop)
        };
        assert_eq!(run[0].line, 10);
    }

    #[test]
    fn values_to_judge_come_back_as_texts_in_runs() {
        let text = "<url><loc>https://a.test/x</loc></url>\n<url><loc> https://A.test/caf\u{e9}?a=&apos;1&apos;</loc>\n<priority>2</priority></url><url><loc>x</loc><lastmod>\n2024</lastmod></url>\n<url><loc>https://a.test/y</loc><changefreq>Daily</changefreq><priority>0.5</priority></url>\n<url><loc>https://a.test/z</loc></url>";
        let s = scan_all(text);
        assert_eq!(s.records.len(), 1);
        let Stop::Judged(run) = &s.stop else {
            panic!("{:?}", s.stop)
        };
        assert_eq!(run.len(), 4); // the last, canonical, joins the run
        let judged = |j: usize, i: usize| match &run[j].values[i] {
            Some(Value::Text(t)) => (t.line, t.text.clone()),
            v => panic!("{v:?}"),
        };
        assert_eq!(run[0].line, 2);
        assert_eq!(
            judged(0, 0),
            (2, " https://A.test/caf\u{e9}?a='1'".to_owned())
        );
        assert_eq!(judged(0, 3).0, 3);
        assert_eq!(judged(1, 1).1, "\n2024");
        assert!(matches!(run[2].values[0], Some(Value::Loc { .. })));
        assert_eq!(run[2].values[3], Some(Value::Priority(0.5)));
        assert_eq!((s.line, s.pos), (6, text.len()));
        assert_eq!(run[3].line, 6);
    }

    #[test]
    fn runs_to_judge_take_canonical_records_in_until_a_long_streak() {
        let plain = "<url><loc>https://a.test/p</loc></url>\n";
        let odd = "<url><loc>https://A.test/</loc></url>\n";
        let text = format!("{odd}{plain}{odd}{}", plain.repeat(RUN_BREAK + 3));
        let s = scan_all(&text);
        let Stop::Judged(run) = &s.stop else {
            panic!("{:?}", s.stop)
        };
        assert_eq!(run.len(), 3);
        assert_eq!((s.pos, s.line), (2 * odd.len() + plain.len(), 4));
        let rest = scan(text.as_bytes(), s.pos, text.len(), s.line, ALL);
        assert_eq!((rest.records.len(), rest.stop), (RUN_BREAK + 3, Stop::End));
    }

    #[test]
    fn entries_without_a_loc_are_judged() {
        let text = "<url></url>\n<url>\n</url><url><lastmod>2024-01-01</lastmod><priority>x</priority></url>";
        let s = scan_all(text);
        let Stop::Judged(run) = s.stop else {
            panic!("{:?}", s.stop)
        };
        assert_eq!(run.len(), 3);
        assert_eq!(run.iter().map(|j| j.line).collect::<Vec<_>>(), [1, 2, 3]);
        assert!(run.iter().all(|j| j.values[0].is_none()));
        assert!(matches!(run[2].values[1], Some(Value::Lastmod(_))));
        assert!(matches!(&run[2].values[3], Some(Value::Text(t)) if t.text == "x"));
    }

    #[test]
    fn comments_and_processing_instructions_are_passed_over_where_a_parser_says_nothing() {
        let text = "<!-- a\n b --><?php x?>\n<url><!----><loc>https://a.test/x</loc><?t\r\n?>\n<lastmod>2024-01-02</lastmod><!-- c --></url>\n<?t?><url><loc>https://a.test/y</loc></url>";
        let s = scan_all(text);
        assert_eq!((s.records.len(), &s.stop), (2, &Stop::End));
        assert_eq!((s.records[0].line, s.records[1].line), (3, 6));
        assert!(s.records[0].lastmod.is_some());
        for said in [
            "<!-- a -- b -->",
            "<!-- a --->",
            "<!-- <url> -->",
            "<!-- \r -->",
            "<!-- \u{1} -->",
            "<!-- a",
            "<?xml version=\"1.0\"?>",
            "<?XML-stylesheet x?>",
            "<? x?>",
            "<?a:b x?>",
            "<?t <url> ?>",
        ] {
            let text = format!("{said}<url><loc>https://a.test/x</loc></url>");
            let s = scan_all(&text);
            assert!(matches!(s.stop, Stop::Gap { start: 0, .. }), "{said}");
        }
        // a CDATA section alone that reads as its text would
        let text = "<url><loc><![CDATA[https://a.test/x]]></loc><lastmod><![CDATA[2024-01-02]]></lastmod></url>";
        let s = scan_all(text);
        assert_eq!((s.records.len(), &s.stop), (1, &Stop::End));
        assert_eq!(
            &text[s.records[0].loc.0..s.records[0].loc.1],
            "https://a.test/x"
        );
        // a loc's '&' as they are, when it is a plain URI so written
        let text = "<url><loc><![CDATA[https://a.test/?a=1&b=2]]></loc></url>";
        let s = scan_all(text);
        assert_eq!((s.records.len(), &s.stop), (1, &Stop::End));
        let r = &s.records[0];
        assert_eq!(&text[r.loc.0..r.loc.1], "https://a.test/?a=1&b=2");
        assert!(!r.has_entity);
        for said in [
            "https://a.test/caf\u{e9}?a&b",
            "https://a.test/<",
            "x]]>y",
            "x]]> ",
        ] {
            let text = format!("<url><loc><![CDATA[{said}]]></loc></url>");
            assert!(
                matches!(scan_all(&text).stop, Stop::Gap { start: 0, .. }),
                "{said}"
            );
        }
        let tail = b"</urlset>";
        assert!(plain_end(
            b" <!-- a -->\n</urlset>\n<!-- Yoast --><?t?>\n",
            tail
        ));
        assert!(plain_end(b"</urlset>", tail));
        assert!(!plain_end(b"<!-- a -- b --></urlset>", tail));
        assert!(!plain_end(b"</urlset>x", tail));
        assert!(!plain_end(b"<url/></urlset>", tail));
    }

    #[test]
    fn core_elements_in_another_order_are_records_when_plain() {
        let text = "<url><lastmod>2024-01-02</lastmod><loc>https://a.test/x</loc></url>\n<url><loc>https://a.test/y</loc><priority>0.5</priority><changefreq>daily</changefreq></url><url><loc>https://a.test/z</loc></url>";
        let s = scan_all(text);
        assert_eq!((s.records.len(), &s.stop), (3, &Stop::End));
        let r = &s.records;
        assert!(r[0].reordered && r[1].reordered && !r[2].reordered);
        assert!(r[0].lastmod.is_some());
        assert_eq!(
            (r[1].priority, r[1].changefreq.is_some(), r[1].line),
            (Some(0.5), true, 2)
        );
        for odd in [
            "<url><lastmod>2024-1-2</lastmod><loc>https://a.test/x</loc></url>",
            "<url><lastmod>2024-01-02</lastmod><loc>https://A.test/x</loc></url>",
            "<url><loc>https://a.test/x</loc><priority>1</priority><lastmod>2024-01-02</lastmod><priority>1</priority></url>",
        ] {
            assert!(
                matches!(scan_all(odd).stop, Stop::Gap { start: 0, .. }),
                "{odd}"
            );
        }
    }

    #[test]
    fn anything_else_is_a_gap_up_to_the_next_url_end() {
        let text = "<url><loc>https://a.test/x</loc></url> <!-- c -- d --><url><loc>https://a.test/y</loc></url><url><loc>https://a.test/&#x9;</loc></url>";
        let s = scan_all(text);
        assert_eq!(s.records.len(), 1);
        let start = text.find("<!--").unwrap();
        let end = text.find("/y</loc></url>").unwrap() + 14;
        assert_eq!(s.stop, Stop::Gap { start, end });
        assert_eq!(s.pos, start);
        let s2 = scan(text.as_bytes(), end, text.len(), 1, ALL);
        assert_eq!(
            s2.stop,
            Stop::Gap {
                start: end,
                end: text.len()
            }
        );
        for odd in [
            "<url><lastmod>2024-1-1</lastmod><loc>https://a.test/</loc></url>",
            "<url ><loc>https://a.test/</loc></url>",
            "<url><loc>https://a.test/</loc><unknown/></url>",
            "<url><loc>https://a.test/</loc><lastmod>2024-01-01</lastmod><lastmod>2024-01-01</lastmod></url>",
            "<url><loc>https://a.test/\r</loc></url>",
            "<url><loc>https://a.test/\u{1}</loc></url>",
            "<url><loc>https://a.test/]]></loc></url>",
            "<url><loc>https://a.test/&nbsp;</loc></url>",
            "<url><loc/></url>",
        ] {
            assert_eq!(
                scan_all(odd).stop,
                Stop::Gap {
                    start: 0,
                    end: odd.len()
                },
                "{odd}"
            );
        }
    }

    #[test]
    fn records_with_prefixed_elements_stop_as_extensions() {
        let text = "<url><loc>https://a.test/</loc>\n<image:image><image:loc>https://a.test/i</image:loc></image:image></url>";
        let s = scan_all(text);
        let Stop::Extension {
            record,
            start,
            fragment,
            end,
        } = s.stop
        else {
            panic!("{:?}", s.stop)
        };
        assert_eq!((start, end, record.line), (0, text.len(), 1));
        assert!(text[fragment.0..fragment.1].starts_with("<image:image>"));
        assert!(text[fragment.0..fragment.1].ends_with("</image:image>"));
    }

    #[test]
    fn plain_images_stay_in_the_run_with_their_record() {
        let plain = "<url><loc>https://a.test/p</loc></url>\n";
        let image = "<url><loc>https://a.test/i</loc>\n <image:image>\n<image:loc>https://a.test/i.jpg</image:loc></image:image>\n</url>\n";
        let odd = "<url><loc>https://a.test/o</loc><priority>0_5</priority></url>\n";
        let text = format!("{plain}{image}{plain}");
        let s = scan_with_images(text.as_bytes(), (0, text.len()), 1, ALL, b"image");
        assert_eq!((s.records.len(), s.stop, s.line), (3, Stop::End, 7));
        let found = s.records[1].images.as_deref().unwrap();
        assert_eq!(found.len(), 1);
        assert_eq!(
            &text[found[0].loc.0..found[0].loc.1],
            "https://a.test/i.jpg"
        );
        assert_eq!((s.records[1].line, s.records[2].line), (2, 6));
        // without the prefix, or with another, the record stops the scan as before
        let other = scan_with_images(text.as_bytes(), (0, text.len()), 1, ALL, b"img");
        assert!(matches!(other.stop, Stop::Extension { .. }));
        assert!(matches!(scan_all(&text).stop, Stop::Extension { .. }));
        // a run to judge ends before a record with images, which the next scan takes
        let text = format!("{odd}{plain}{image}");
        let s = scan_with_images(text.as_bytes(), (0, text.len()), 1, ALL, b"image");
        let Stop::Judged(run) = &s.stop else {
            panic!("{:?}", s.stop)
        };
        assert_eq!((run.len(), s.pos, s.line), (2, odd.len() + plain.len(), 3));
        let rest = scan_with_images(text.as_bytes(), (s.pos, text.len()), s.line, ALL, b"image");
        assert_eq!((rest.records.len(), rest.stop), (1, Stop::End));
        // a loc the core makes a URI of keeps its images
        let text = image.replace("a.test/i<", "a.test/caf\u{e9}<");
        let s = scan_with_images(text.as_bytes(), (0, text.len()), 1, ALL, b"image");
        assert_eq!(s.records.len(), 1);
        assert!(s.records[0].uri.is_some() && s.records[0].images.is_some());
    }

    #[test]
    fn index_entries() {
        let text = "<sitemap><loc>https://a.test/s1.xml</loc><lastmod>2024-01-02</lastmod></sitemap>\n<sitemap><loc>https://a.test/s2.xml</loc><changefreq>daily</changefreq></sitemap>";
        let limits = Limits {
            kind: Kind::Index,
            ..ALL
        };
        let s = scan(text.as_bytes(), 0, text.len(), 1, limits);
        assert_eq!(s.records.len(), 1);
        assert!(matches!(s.stop, Stop::Gap { .. }));
    }

    #[test]
    fn limits_stop_reading() {
        let text = "<url><loc>https://a.test/x</loc></url><url><loc>https://a.test/y</loc></url>";
        let one = Limits {
            max_records: 1,
            ..ALL
        };
        let s = scan(text.as_bytes(), 0, text.len(), 1, one);
        assert_eq!((s.records.len(), s.stop), (1, Stop::End));
        assert_eq!(s.pos, text.find("</url>").unwrap() + 6);
        let long = format!("<url><loc>{}</loc></url>", "x".repeat(40));
        let short = Limits {
            max_value: 39,
            ..ALL
        };
        let s = scan(long.as_bytes(), 0, long.len(), 1, short);
        assert!(matches!(s.stop, Stop::Gap { .. }));
    }
}
