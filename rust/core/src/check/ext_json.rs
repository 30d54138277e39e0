//! The per-URL extension rules on the JSON the render lane wrote for a run's records (Python's
//! `checking/ext_columns.py` words and counts the findings): each record's extensions read
//! once here, so that no record becomes a Python object unless a rule flags it.
//!
//! For each record: whether it has extensions, whether its JSON is what the core writes (an
//! object of the known keys, each of the shape the core gives it: anything else is flagged
//! for the careful way), the number of findings of each per-URL code ([`CODES`]), the typed
//! extensions by kind ([`KINDS`]), and its news items' publication dates (the window is
//! judged in Python, once per distinct text).
use std::borrow::Cow;

use super::ext_walk::walked_record;
use super::loc_column::StringColumn;
use crate::read::media::Alternate;

/// The per-URL codes counted, in the order of a record's counts.
pub const CODES: [&str; 6] = [
    "too-many-images",
    "image-deprecated-field",
    "video-loc-is-page",
    "news-repeated",
    "hreflang-missing-self",
    "hreflang-duplicate",
];
/// The kinds counted after the codes.
pub const KINDS: [&str; 4] = ["images", "videos", "news", "alternates"];
/// Numbers per record: the codes', then the kinds'.
pub const COUNTS: usize = CODES.len() + KINDS.len();
const KNOWN: [&str; 5] = ["images", "videos", "news", "alternates", "extensions"];
pub(super) const MAX_IMAGES: usize = 1_000;
const MAX_DEPTH: usize = 64;

/// A record without extensions.
pub const NONE: u8 = 0;
/// A record judged here, without findings.
pub const JUDGED: u8 = 1;
/// A record judged here, with findings (its counts say which).
pub const FOUND: u8 = 3;
/// A record whose JSON is not the core's usual shape: the careful way judges it.
pub const FLAGGED: u8 = 2;

/// What [`judge`] found: per record its status and [`COUNTS`] numbers; each news item's
/// record and publication date (an index into `dates`, -1 when it has none as a string).
#[derive(Debug, Default, PartialEq, Eq)]
pub struct Judged {
    pub status: Vec<u8>,
    pub counts: Vec<u32>,
    pub news_records: Vec<u32>,
    pub news_dates: Vec<i32>,
    pub dates: Vec<String>,
}

#[derive(Debug)]
enum Json<'a> {
    Null,
    Scalar,
    Str(Cow<'a, str>),
    Arr(Vec<Json<'a>>),
    Obj(Vec<(Cow<'a, str>, Json<'a>)>),
}

impl<'a> Json<'a> {
    /// A key's value (the last of equal keys, as Python's `json` keeps it).
    fn get(&self, key: &str) -> Option<&Json<'a>> {
        match self {
            Json::Obj(fields) => fields.iter().rev().find(|(k, _)| k == key).map(|(_, v)| v),
            _ => None,
        }
    }

    fn str(&self) -> Option<&str> {
        match self {
            Json::Str(text) => Some(text),
            _ => None,
        }
    }

    /// The distinct keys of an object.
    fn keys(&self) -> usize {
        match self {
            Json::Obj(fields) => {
                let mut seen: Vec<&str> = Vec::with_capacity(fields.len());
                for (key, _) in fields {
                    if !seen.contains(&key.as_ref()) {
                        seen.push(key);
                    }
                }
                seen.len()
            }
            _ => 0,
        }
    }
}

/// A record's JSON, checked as UTF-8 once (`src`), read as bytes (`text`): a string
/// without escapes is a slice of `src` between two quotes (no check of its own).
pub(super) struct Parser<'a> {
    src: &'a str,
    text: &'a [u8],
    pos: usize,
}

impl<'a> Parser<'a> {
    /// A parser of `text` (None when it is not UTF-8).
    pub(super) fn new(text: &'a [u8]) -> Option<Parser<'a>> {
        Some(Parser::of(std::str::from_utf8(text).ok()?))
    }

    pub(super) fn of(src: &'a str) -> Parser<'a> {
        Parser {
            src,
            text: src.as_bytes(),
            pos: 0,
        }
    }

    /// Whether only spaces are left.
    pub(super) fn done(&mut self) -> bool {
        self.space();
        self.pos == self.text.len()
    }

    fn space(&mut self) {
        while matches!(self.text.get(self.pos), Some(b' ' | b'\t' | b'\n' | b'\r')) {
            self.pos += 1;
        }
    }

    pub(super) fn eat(&mut self, byte: u8) -> bool {
        self.space();
        if self.text.get(self.pos) == Some(&byte) {
            self.pos += 1;
            true
        } else {
            false
        }
    }

    /// The first byte of the value at `depth` (spaces passed over); None past the nesting
    /// limit or at the end.
    pub(super) fn at(&mut self, depth: usize) -> Option<u8> {
        if depth > MAX_DEPTH {
            return None;
        }
        self.space();
        self.text.get(self.pos).copied()
    }

    fn value(&mut self, depth: usize) -> Option<Json<'a>> {
        match self.at(depth)? {
            b'{' => {
                let mut fields = Vec::new();
                self.object(depth, |parser, key, depth| {
                    fields.push((key, parser.value(depth)?));
                    Some(())
                })?;
                Some(Json::Obj(fields))
            }
            b'[' => {
                let mut items = Vec::new();
                self.array(depth, |parser, depth| {
                    items.push(parser.value(depth)?);
                    Some(())
                })?;
                Some(Json::Arr(items))
            }
            b'"' => self.string().map(Json::Str),
            _ => self.scalar(),
        }
    }

    /// A valid value at `depth`, passed over.
    pub(super) fn skip(&mut self, depth: usize) -> Option<()> {
        match self.at(depth)? {
            b'{' => self.object(depth, |parser, _key, depth| parser.skip(depth)),
            b'[' => self.array(depth, Parser::skip),
            b'"' => self.string().map(drop),
            _ => self.scalar().map(drop),
        }
    }

    /// The object at `pos` (its '{'), each key given to `field` with the depth of its value,
    /// which `field` reads.
    pub(super) fn object(
        &mut self,
        depth: usize,
        mut field: impl FnMut(&mut Self, Cow<'a, str>, usize) -> Option<()>,
    ) -> Option<()> {
        self.pos += 1;
        if self.eat(b'}') {
            return Some(());
        }
        loop {
            self.space();
            let key = self.string()?;
            if !self.eat(b':') {
                return None;
            }
            field(self, key, depth + 1)?;
            if self.eat(b'}') {
                return Some(());
            }
            if !self.eat(b',') {
                return None;
            }
        }
    }

    /// The list at `pos` (its '['), each item read by `item` at its depth.
    pub(super) fn array(
        &mut self,
        depth: usize,
        mut item: impl FnMut(&mut Self, usize) -> Option<()>,
    ) -> Option<()> {
        self.pos += 1;
        if self.eat(b']') {
            return Some(());
        }
        loop {
            item(self, depth + 1)?;
            if self.eat(b']') {
                return Some(());
            }
            if !self.eat(b',') {
                return None;
            }
        }
    }

    /// A null, true, false or number at `pos`.
    fn scalar(&mut self) -> Option<Json<'a>> {
        match *self.text.get(self.pos)? {
            b'n' => self.word(b"null").map(|_| Json::Null),
            b't' => self.word(b"true").map(|_| Json::Scalar),
            b'f' => self.word(b"false").map(|_| Json::Scalar),
            b'-' | b'0'..=b'9' => {
                let start = self.pos;
                while matches!(
                    self.text.get(self.pos),
                    Some(b'-' | b'+' | b'.' | b'e' | b'E' | b'0'..=b'9')
                ) {
                    self.pos += 1;
                }
                std::str::from_utf8(&self.text[start..self.pos])
                    .ok()?
                    .parse::<f64>()
                    .ok()?;
                Some(Json::Scalar)
            }
            _ => None,
        }
    }

    fn word(&mut self, word: &[u8]) -> Option<()> {
        if self.text.get(self.pos..self.pos + word.len())? == word {
            self.pos += word.len();
            Some(())
        } else {
            None
        }
    }

    pub(super) fn string(&mut self) -> Option<Cow<'a, str>> {
        if self.text.get(self.pos) != Some(&b'"') {
            return None;
        }
        let start = self.pos + 1;
        // the closing quote or the first escape, then no control character before it (a
        // search, not a byte at a time: the strings are most of a record's JSON)
        let end = start + memchr::memchr2(b'"', b'\\', &self.text[start..])?;
        if self.text[start..end]
            .iter()
            .fold(false, |any, &b| any | (b < 0x20))
        {
            return None;
        }
        if self.text[end] == b'\\' {
            return self.escaped(start);
        }
        self.pos = end + 1;
        // both ends are at ASCII quotes: character boundaries of `src`
        Some(Cow::Borrowed(&self.src[start..end]))
    }

    /// A string with escapes, from its first byte `start`.
    fn escaped(&mut self, start: usize) -> Option<Cow<'a, str>> {
        let mut out: Vec<u8> = Vec::new();
        let mut at = start;
        loop {
            let byte = *self.text.get(at)?;
            at += 1;
            match byte {
                b'"' => break,
                b'\\' => {
                    let kind = *self.text.get(at)?;
                    at += 1;
                    let plain = match kind {
                        b'"' => b'"',
                        b'\\' => b'\\',
                        b'/' => b'/',
                        b'b' => 8,
                        b'f' => 12,
                        b'n' => b'\n',
                        b'r' => b'\r',
                        b't' => b'\t',
                        b'u' => {
                            let mut code = self.hex4(at)?;
                            at += 4;
                            if (0xD800..0xDC00).contains(&code)
                                && self.text.get(at..at + 2) == Some(b"\\u")
                            {
                                let low = self.hex4(at + 2)?;
                                if (0xDC00..0xE000).contains(&low) {
                                    code = 0x10000 + ((code - 0xD800) << 10) + (low - 0xDC00);
                                    at += 6;
                                }
                            }
                            // a lone surrogate: Python keeps it; no URL or code holds one
                            let ch = char::from_u32(code).unwrap_or('\u{FFFD}');
                            out.extend_from_slice(ch.encode_utf8(&mut [0; 4]).as_bytes());
                            continue;
                        }
                        _ => return None,
                    };
                    out.push(plain);
                }
                byte if byte < 0x20 => return None,
                byte => out.push(byte),
            }
        }
        self.pos = at;
        String::from_utf8(out).ok().map(Cow::Owned)
    }

    fn hex4(&self, at: usize) -> Option<u32> {
        let digits = std::str::from_utf8(self.text.get(at..at + 4)?).ok()?;
        u32::from_str_radix(digits, 16).ok()
    }
}

fn parse(text: &[u8]) -> Option<Json<'_>> {
    let mut parser = Parser::new(text)?;
    let value = parser.value(0)?;
    parser.done().then_some(value)
}

/// The items of an optional list field: missing or null is none; anything but a list of
/// objects is None (flagged).
fn objects<'j, 'a>(fields: &'j Json<'a>, key: &str) -> Option<&'j [Json<'a>]> {
    match fields.get(key) {
        None | Some(Json::Null) => Some(&[]),
        Some(Json::Arr(items)) if items.iter().all(|i| matches!(i, Json::Obj(_))) => Some(items),
        _ => None,
    }
}

/// What the tree gives of a record's JSON (`ext_walk`'s reference).
#[cfg(test)]
pub(super) fn reference_record(text: &[u8], loc: &str) -> Option<Judgement> {
    record(&parse(text)?, loc)
}

/// A record's counts ([`COUNTS`]) and its news items' publication dates.
pub(super) type Judgement = ([u32; COUNTS], Vec<Option<String>>);

/// One record's counts ([`COUNTS`]) and news dates (None: flagged); `ext_walk` gives the
/// same without the tree (the tests hold the two equal).
#[cfg_attr(not(test), allow(dead_code))]
fn record<'a>(fields: &Json<'a>, loc: &str) -> Option<Judgement> {
    let Json::Obj(pairs) = fields else {
        return None;
    };
    if !pairs.iter().all(|(key, _)| KNOWN.contains(&key.as_ref())) {
        return None;
    }
    let images = objects(fields, "images")?;
    let videos = objects(fields, "videos")?;
    let alternates = objects(fields, "alternates")?;
    let news: &[Json<'a>] = match fields.get("news") {
        Some(one @ Json::Obj(_)) => std::slice::from_ref(one),
        _ => objects(fields, "news")?,
    };
    let mut counts = [0u32; COUNTS];
    counts[0] = u32::from(images.len() > MAX_IMAGES);
    counts[1] = u32::from(images.iter().any(|image| image.keys() != 1));
    for video in videos {
        let on_page = |key| video.get(key).and_then(Json::str) == Some(loc);
        counts[2] += u32::from(on_page("content_loc")) + u32::from(on_page("player_loc"));
    }
    counts[3] = u32::from(news.len() > 1);
    if !alternates.is_empty() {
        let mut links: Vec<(&str, &str)> = Vec::with_capacity(alternates.len());
        for link in alternates {
            links.push((link.get("href")?.str()?, link.get("hreflang")?.str()?));
        }
        [counts[4], counts[5]] = link_findings(&links, loc.as_bytes());
    }
    let kinds = [images.len(), videos.len(), news.len(), alternates.len()];
    for (at, n) in kinds.into_iter().enumerate() {
        counts[CODES.len() + at] = u32::try_from(n).ok()?;
    }
    let dates = news
        .iter()
        .map(|item| {
            item.get("publication_date")
                .and_then(Json::str)
                .map(str::to_owned)
        })
        .collect();
    Some((counts, dates))
}

/// An hreflang link: its href and its code.
pub(super) trait Link {
    fn href(&self) -> &str;
    fn code(&self) -> &str;
}

/// (href, hreflang), as read from the JSON.
impl Link for (&str, &str) {
    fn href(&self) -> &str {
        self.0
    }
    fn code(&self) -> &str {
        self.1
    }
}

/// As the render lane typed it (`ext_typed`).
impl Link for Alternate {
    fn href(&self) -> &str {
        &self.href
    }
    fn code(&self) -> &str {
        &self.hreflang
    }
}

/// A page's `hreflang-missing-self` (no link to `loc`) and `hreflang-duplicate` (a code given
/// again, in any case, for another href) findings from its links.
pub(super) fn link_findings(links: &[impl Link], loc: &[u8]) -> [u32; 2] {
    let missing_self = u32::from(!links.iter().any(|link| link.href().as_bytes() == loc));
    let mut duplicates = 0;
    for (at, link) in links.iter().enumerate() {
        // the code's first link, if an earlier one has it (a page's links are few)
        let code = link.code();
        if let Some(first) = links[..at]
            .iter()
            .find(|known| same_code(known.code(), code))
        {
            duplicates += u32::from(first.href() != link.href());
        }
    }
    [missing_self, duplicates]
}

/// Two codes equal once lower-cased (ASCII ones compared in place: a code is ASCII).
fn same_code(one: &str, other: &str) -> bool {
    if one.is_ascii() && other.is_ascii() {
        one.eq_ignore_ascii_case(other)
    } else {
        one.to_lowercase() == other.to_lowercase()
    }
}

/// The records `start..stop` of a run judged from their extensions' JSON (`extensions`, a
/// null or empty row for none) and their locs; None when a row is outside its buffers.
pub fn judge(
    extensions: StringColumn<'_>,
    locs: StringColumn<'_>,
    start: usize,
    stop: usize,
) -> Option<Judged> {
    let rows = stop.saturating_sub(start);
    let mut out = Judged {
        status: Vec::with_capacity(rows),
        counts: Vec::with_capacity(rows * COUNTS),
        ..Judged::default()
    };
    let mut known_dates: Vec<(String, i32)> = Vec::new();
    // the rows' JSON and locs checked as UTF-8 once, not a row at a time (a row of a column
    // that is not all text is checked alone, as before)
    let (texts, loc_texts) = (extensions.texts(start, stop), locs.texts(start, stop));
    for row in start..stop {
        let text = extensions.row(row)?;
        let mut counts = [0u32; COUNTS];
        let status = if text.is_empty() {
            NONE
        } else {
            let loc = match loc_texts {
                Some(checked) => checked.row(row),
                None => std::str::from_utf8(locs.row(row)?).ok(),
            }?;
            let judged = match texts.and_then(|texts| texts.row(row)) {
                Some(src) => judged_text(src, loc),
                None => judged_record(text, loc),
            };
            match judged {
                None => FLAGGED,
                Some((found, dates)) => {
                    counts = found;
                    let any = counts[..CODES.len()].iter().any(|&n| n > 0);
                    for date in dates {
                        let index = match date {
                            None => -1,
                            Some(date) => match known_dates.iter().find(|(d, _)| *d == date) {
                                Some((_, index)) => *index,
                                None => {
                                    let index = i32::try_from(out.dates.len()).ok()?;
                                    known_dates.push((date.clone(), index));
                                    out.dates.push(date);
                                    index
                                }
                            },
                        };
                        out.news_records.push(u32::try_from(row - start).ok()?);
                        out.news_dates.push(index);
                    }
                    if any {
                        FOUND
                    } else {
                        JUDGED
                    }
                }
            }
        };
        out.status.push(status);
        out.counts.extend_from_slice(&counts);
    }
    Some(out)
}

/// The number of images of a record whose JSON is the render lane's for images with a loc
/// alone, `{"images":[{"loc":"…"},…]}` (each loc UTF-8 without escapes or control
/// characters), read without a tree; None for any other JSON (the parser reads it).
fn plain_images(text: &[u8]) -> Option<usize> {
    let mut rest = text.strip_prefix(b"{\"images\":[")?;
    let mut images = 0;
    loop {
        rest = rest.strip_prefix(b"{\"loc\":\"")?;
        let end = rest
            .iter()
            .position(|&b| b == b'"' || b == b'\\' || b < 0x20)?;
        let loc = &rest[..end];
        if rest[end] != b'"' || (!loc.is_ascii() && std::str::from_utf8(loc).is_err()) {
            return None;
        }
        rest = rest[end + 1..].strip_prefix(b"}")?;
        images += 1;
        match rest {
            [b',', tail @ ..] => rest = tail,
            b"]}" => return Some(images),
            _ => return None,
        }
    }
}

/// A record's counts ([`COUNTS`]) when it has `images` images with a loc alone, as
/// [`record`] counts them.
fn images_only(images: usize) -> Option<[u32; COUNTS]> {
    let mut counts = [0u32; COUNTS];
    counts[0] = u32::from(images > MAX_IMAGES);
    counts[CODES.len()] = u32::try_from(images).ok()?;
    Some(counts)
}

/// The string pairs of a flat JSON object at the start of `text` (`{"key":"value",...}`,
/// no spaces, escapes or control characters: as the render lane writes a news item or a
/// video of text fields), each given to `each`; what follows the object, or None for any
/// other shape (the parser reads it).
fn flat_pairs<'a>(text: &'a str, mut each: impl FnMut(&'a str, &'a str)) -> Option<&'a str> {
    let mut rest = text.strip_prefix('{')?;
    if let Some(after) = rest.strip_prefix('}') {
        return Some(after);
    }
    loop {
        let (key, after) = plain_string(rest)?;
        let (value, after) = plain_string(after.strip_prefix(':')?)?;
        each(key, value);
        if let Some(after) = after.strip_prefix('}') {
            return Some(after);
        }
        rest = after.strip_prefix(',')?;
    }
}

/// A JSON string without escapes or control characters at the start of `text`, and what
/// follows it.
fn plain_string(text: &str) -> Option<(&str, &str)> {
    let body = text.strip_prefix('"')?;
    let end = body
        .bytes()
        .position(|b| b == b'"' || b == b'\\' || b < 0x20)?;
    // `end` is at an ASCII byte: a character boundary
    (body.as_bytes()[end] == b'"').then(|| (&body[..end], &body[end + 1..]))
}

/// A record whose JSON is one news item of text fields (`{"news":{...}}`), counted as
/// [`record`] counts it, without a tree: its counts and publication date.
fn plain_news(text: &str) -> Option<([u32; COUNTS], Vec<Option<String>>)> {
    let mut date = None;
    let rest = flat_pairs(text.strip_prefix("{\"news\":")?, |key, value| {
        if key == "publication_date" {
            date = Some(value);
        }
    })?;
    if rest != "}" {
        return None;
    }
    let mut counts = [0u32; COUNTS];
    counts[CODES.len() + 2] = 1;
    Some((counts, vec![date.map(str::to_owned)]))
}

/// A record whose JSON is videos of text fields (`{"videos":[{...},...]}`), counted as
/// [`record`] counts them, without a tree.
fn plain_videos(text: &str, loc: &str) -> Option<[u32; COUNTS]> {
    let mut rest = text.strip_prefix("{\"videos\":[")?;
    let mut counts = [0u32; COUNTS];
    loop {
        let (mut content, mut player) = (None, None);
        rest = flat_pairs(rest, |key, value| match key {
            "content_loc" => content = Some(value),
            "player_loc" => player = Some(value),
            _ => {}
        })?;
        counts[2] += u32::from(content == Some(loc)) + u32::from(player == Some(loc));
        counts[CODES.len() + 1] += 1;
        if rest == "]}" {
            return Some(counts);
        }
        rest = rest.strip_prefix(',')?;
    }
}

/// A record whose JSON is hreflang links as the render lane writes them
/// (`{"alternates":[{"hreflang":"…","href":"…"},…]}`, no escape or control character),
/// counted as [`record`] counts them, without a tree; None for any other layout (the parser
/// reads it).
fn plain_alternates(text: &str, loc: &str) -> Option<[u32; COUNTS]> {
    // a control character anywhere: the parser's (no loop exit: the check is vectorised)
    if text.bytes().fold(false, |any, b| any | (b < 0x20)) {
        return None;
    }
    let mut rest = text.strip_prefix("{\"alternates\":[")?;
    let mut links: Vec<(&str, &str)> = Vec::with_capacity(4);
    loop {
        let (code, after) = quoted(rest.strip_prefix("{\"hreflang\":\"")?)?;
        let (href, after) = quoted(after.strip_prefix(",\"href\":\"")?)?;
        links.push((href, code));
        rest = after.strip_prefix('}')?;
        if rest == "]}" {
            break;
        }
        rest = rest.strip_prefix(',')?;
    }
    let mut counts = [0u32; COUNTS];
    [counts[4], counts[5]] = link_findings(&links, loc.as_bytes());
    counts[CODES.len() + 3] = u32::try_from(links.len()).ok()?;
    Some(counts)
}

/// A string's text up to its closing quote, when it holds no escape, and what follows.
fn quoted(text: &str) -> Option<(&str, &str)> {
    let end = memchr::memchr2(b'"', b'\\', text.as_bytes())?;
    // `end` is at an ASCII byte: a character boundary
    (text.as_bytes()[end] == b'"').then(|| (&text[..end], &text[end + 1..]))
}

/// A record's counts and news dates (None: flagged): its JSON read as one of the render
/// lane's usual shapes, else walked (`ext_walk`), its UTF-8 checked once.
fn judged_record(text: &[u8], loc: &str) -> Option<Judgement> {
    judged_text(std::str::from_utf8(text).ok()?, loc)
}

/// [`judged_record`] of a JSON text.
fn judged_text(src: &str, loc: &str) -> Option<Judgement> {
    if let Some(counts) = plain_images(src.as_bytes()).and_then(images_only) {
        return Some((counts, Vec::new()));
    }
    plain_shapes(src, loc).or_else(|| walked_record(src, loc))
}

/// A record's counts and news dates read without a tree when its JSON is one of the render
/// lane's usual shapes (images with a loc alone, one news item, videos or hreflang links of
/// text fields); None for any other (the parser reads it).
#[cfg(test)]
fn plain_record(text: &[u8], loc: &str) -> Option<([u32; COUNTS], Vec<Option<String>>)> {
    if let Some(counts) = plain_images(text).and_then(images_only) {
        return Some((counts, Vec::new()));
    }
    plain_shapes(std::str::from_utf8(text).ok()?, loc)
}

/// `plain_record` of the shapes other than images with a loc alone.
fn plain_shapes(text: &str, loc: &str) -> Option<Judgement> {
    match text.as_bytes().get(2) {
        Some(b'n') => plain_news(text),
        Some(b'v') => plain_videos(text, loc).map(|counts| (counts, Vec::new())),
        Some(b'a') => plain_alternates(text, loc).map(|counts| (counts, Vec::new())),
        Some(b'e') => plain_raws(text.as_bytes()).map(|()| ([0; COUNTS], Vec::new())),
        _ => None,
    }
}

/// A record's elements of other namespaces alone, as the render lane writes them,
/// `{"extensions":[{"namespace":"…","name":"…","xml":"…"},…]}` (strings whose escapes
/// the parser reads, no control characters, no spaces between tokens), read without a tree:
/// no rule reads them, so the record counts nothing (as [`record`] counts it); None for any
/// other JSON (the parser reads it). `text` is UTF-8.
fn plain_raws(text: &[u8]) -> Option<()> {
    let mut rest = text.strip_prefix(b"{\"extensions\":[")?;
    if text.iter().any(|&b| b < 0x20) {
        return None; // the parser refuses one inside a string; the core writes none outside
    }
    loop {
        rest = rest.strip_prefix(b"{")?;
        loop {
            rest = after_string(rest)?.strip_prefix(b":")?;
            rest = after_string(rest)?;
            match rest.split_first()? {
                (b',', more) => rest = more,
                (b'}', more) => {
                    rest = more;
                    break;
                }
                _ => return None,
            }
        }
        match rest.split_first()? {
            (b',', more) => rest = more,
            (b']', more) => return (more == b"}").then_some(()),
            _ => return None,
        }
    }
}

/// What follows the JSON string `text` starts with, when each of its escapes is one the
/// parser reads (`\uXXXX`: four hex digits); None for anything else.
fn after_string(text: &[u8]) -> Option<&[u8]> {
    let mut rest = text.strip_prefix(b"\"")?;
    loop {
        let at = memchr::memchr2(b'"', b'\\', rest)?;
        if rest[at] == b'"' {
            return Some(&rest[at + 1..]);
        }
        let next = match *rest.get(at + 1)? {
            b'"' | b'\\' | b'/' | b'b' | b'f' | b'n' | b'r' | b't' => at + 2,
            b'u' if rest.get(at + 2..at + 6)?.iter().all(u8::is_ascii_hexdigit) => at + 6,
            _ => return None,
        };
        rest = &rest[next..];
    }
}

/// A run's records sorted by what [`Judged::status`] and [`Judged::counts`] say, so that the
/// checker walks none of them in Python: rows counted from the run's first.
#[derive(Debug, Default, PartialEq, Eq)]
pub struct Rows {
    /// The records [`FLAGGED`] for the careful way.
    pub flagged: Vec<u32>,
    /// The records judged here [`FOUND`] with findings.
    pub found: Vec<u32>,
    /// The records judged here that have alternates (hreflang links).
    pub linked: Vec<u32>,
    /// A byte a record: 1 for one judged here without alternates (a plain page to the set
    /// rules), else 0.
    pub plain: Vec<u8>,
    /// A byte a record: 1 for one without extensions, else 0.
    pub without: Vec<u8>,
    /// The typed extensions of each kind ([`KINDS`]) over the records judged here.
    pub kinds: [u64; KINDS.len()],
    /// For each code ([`CODES`]), the records judged here with findings of it.
    pub with_code: [Vec<u32>; CODES.len()],
    /// For each code, its findings over the records judged here.
    pub codes: [u64; CODES.len()],
}

impl Judged {
    /// The records by status and by whether they have alternates (see [`Rows`]).
    pub fn rows(&self) -> Rows {
        let mut out = Rows {
            plain: vec![0; self.status.len()],
            without: vec![0; self.status.len()],
            ..Rows::default()
        };
        for (row, (&status, counts)) in self
            .status
            .iter()
            .zip(self.counts.chunks_exact(COUNTS))
            .enumerate()
        {
            let at = row as u32;
            match status {
                NONE => out.without[row] = 1,
                FLAGGED => out.flagged.push(at),
                _ => {
                    if status == FOUND {
                        out.found.push(at);
                        for (code, &n) in counts[..CODES.len()].iter().enumerate() {
                            if n > 0 {
                                out.with_code[code].push(at);
                                out.codes[code] += u64::from(n);
                            }
                        }
                    }
                    let kinds = &counts[CODES.len()..];
                    for (total, &n) in out.kinds.iter_mut().zip(kinds) {
                        *total += u64::from(n);
                    }
                    if kinds[KINDS.len() - 1] > 0 {
                        out.linked.push(at);
                    } else {
                        out.plain[row] = 1;
                    }
                }
            }
        }
        out
    }
}

/// The (href, hreflang) of each alternate in a record's JSON, in order (the set rule's
/// input, `crate::set`); None when the JSON is not the core's shape.
pub fn alternates(text: &[u8]) -> Option<Vec<(String, String)>> {
    let fields = parse(text)?;
    objects(&fields, "alternates")?
        .iter()
        .map(|link| {
            let href = link.get("href")?.str()?;
            Some((href.to_owned(), link.get("hreflang")?.str()?.to_owned()))
        })
        .collect()
}

/// The news items older than the window, by record: `records` and `dates`, each item's
/// record and date (an index into `old`, -1 for none: old, its value's rule says why), as
/// [`Judged`] gives them; `old`, whether each distinct date is older than the window. The
/// records with old items, in order, and how many each has; None for a date out of `old`.
pub fn old_by_record(records: &[u32], dates: &[i32], old: &[bool]) -> Option<(Vec<u32>, Vec<u32>)> {
    let (mut rows, mut counts): (Vec<u32>, Vec<u32>) = (Vec::new(), Vec::new());
    for (&record, &date) in records.iter().zip(dates) {
        let is_old = match usize::try_from(date) {
            Ok(date) => *old.get(date)?,
            Err(_) => true,
        };
        if !is_old {
            continue;
        }
        match (rows.last(), counts.last_mut()) {
            (Some(&last), Some(count)) if last == record => *count += 1,
            _ => {
                rows.push(record);
                counts.push(1);
            }
        }
    }
    Some((rows, counts))
}

#[cfg(test)]
mod tests {
    use super::*;

    use crate::check::test_column as column;

    #[test]
    fn news_and_videos_of_text_fields_are_counted_as_the_parser_counts_them() {
        let loc = "https://a.test/p";
        let same = [
            r#"{"news":{"publication_name":"N","language":"en","publication_date":"2024-05-06T10:00:00Z","title":"S"}}"#,
            r#"{"news":{"title":"S"}}"#,
            r#"{"news":{}}"#,
            r#"{"news":{"publication_date":"2024","publication_date":"2025"}}"#,
            r#"{"videos":[{"thumbnail_loc":"t","title":"V","description":"D","content_loc":"https://a.test/v.mp4"}]}"#,
            r#"{"videos":[{"content_loc":"https://a.test/p"},{"player_loc":"https://a.test/p","content_loc":"https://a.test/p"}]}"#,
            r#"{"videos":[{"content_loc":"https://a.test/p","content_loc":"x"}]}"#,
        ];
        for text in same {
            let fast = plain_record(text.as_bytes(), loc).expect(text);
            let parsed = record(&parse(text.as_bytes()).unwrap(), loc).unwrap();
            assert_eq!(fast, parsed, "{text}");
        }
        // numbers, lists, escapes, spaces, a list of news, a second field: the parser's
        for text in [
            r#"{"videos":[{"duration":60}]}"#,
            r#"{"videos":[{"tags":["a"]}]}"#,
            r#"{"news":{"title":"a\"b"}}"#,
            r#"{"news": {"title":"S"}}"#,
            r#"{"news":[{"title":"S"}]}"#,
            r#"{"news":{"title":"S"},"videos":[]}"#,
            r#"{"videos":[]}"#,
        ] {
            assert_eq!(plain_record(text.as_bytes(), loc), None, "{text}");
        }
    }

    #[test]
    fn hreflang_links_of_text_fields_are_counted_as_the_parser_counts_them() {
        let loc = "https://a.test/p";
        let same = [
            r#"{"alternates":[{"hreflang":"de","href":"https://a.test/de"},{"hreflang":"en","href":"https://a.test/p"}]}"#,
            r#"{"alternates":[{"hreflang":"en","href":"https://a.test/x"},{"hreflang":"EN","href":"https://a.test/y"},{"hreflang":"en","href":"https://a.test/x"}]}"#,
            r#"{"alternates":[{"hreflang":"x-default","href":"https://a.test/p"},{"hreflang":"X-Default","href":"https://a.test/p"}]}"#,
            "{\"alternates\":[{\"hreflang\":\"\u{130}\",\"href\":\"a\"},{\"hreflang\":\"i\u{307}\",\"href\":\"b\"}]}",
        ];
        for text in same {
            let fast = plain_record(text.as_bytes(), loc).expect(text);
            let parsed = record(&parse(text.as_bytes()).unwrap(), loc).unwrap();
            assert_eq!(fast, parsed, "{text}");
        }
        let counts = plain_record(same[1].as_bytes(), loc).unwrap().0;
        assert_eq!((counts[4], counts[5], counts[COUNTS - 1]), (1, 1, 3));
        // no link, a link without a code, escapes, spaces, a second field, another order or
        // field, a control character: the parser's
        for text in [
            r#"{"alternates":[]}"#,
            r#"{"alternates":[{"href":"https://a.test/p"}]}"#,
            r#"{"alternates":[{"hreflang":"en","href":"https:\/\/a.test\/p"}]}"#,
            r#"{"alternates": [{"hreflang":"en","href":"https://a.test/p"}]}"#,
            r#"{"alternates":[{"hreflang":"en","href":"https://a.test/p"}],"images":[]}"#,
            r#"{"alternates":[{"href":"https://a.test/p","hreflang":"de"}]}"#,
            r#"{"alternates":[{"hreflang":"de","href":"https://a.test/p","rel":"alternate"}]}"#,
            "{\"alternates\":[{\"hreflang\":\"en\",\"href\":\"https://a.test/\tp\"}]}",
        ] {
            assert_eq!(plain_record(text.as_bytes(), loc), None, "{text}");
        }
    }

    #[test]
    fn images_with_a_loc_alone_are_counted_as_the_parser_counts_them() {
        let many = format!(
            "{{\"images\":[{}]}}",
            vec![r#"{"loc":"x"}"#; 1001].join(",")
        );
        for text in [
            r#"{"images":[{"loc":"https://a.test/1.jpg"}]}"#,
            "{\"images\":[{\"loc\":\"https://a.test/\u{e9}.jpg\"},{\"loc\":\"\"}]}",
            many.as_str(),
        ] {
            let images = plain_images(text.as_bytes()).expect(text);
            let parsed = record(&parse(text.as_bytes()).unwrap(), "https://a.test/").unwrap();
            assert_eq!(parsed, (images_only(images).unwrap(), vec![]), "{text}");
        }
        // escapes, spaces, other keys, a second field, bytes that are not UTF-8: the parser's
        for text in [
            &br#"{"images":[{"loc":"https://a.test/\"x"}]}"#[..],
            b"{\"images\":[{\"loc\":\"a\tb\"}]}",
            b"{\"images\":[{\"loc\":\"a\x01b\"}]}",
            br#"{"images": [{"loc":"a"}]}"#,
            br#"{"images":[{"loc":"a","title":"t"}]}"#,
            br#"{"images":[{"loc":"a"}],"news":[]}"#,
            br#"{"images":[]}"#,
            b"{\"images\":[{\"loc\":\"\xff\"}]}",
        ] {
            assert_eq!(
                plain_images(text),
                None,
                "{}",
                String::from_utf8_lossy(text)
            );
        }
    }

    #[test]
    fn rows_by_status_and_alternates() {
        let mut counts = vec![0u32; 4 * COUNTS];
        counts[COUNTS + CODES.len()] = 2; // two images, a finding too
        counts[COUNTS] = 1;
        counts[2 * COUNTS + COUNTS - 1] = 3; // three alternates
        counts[3 * COUNTS + CODES.len()] = 5; // flagged: not counted here
        let judged = Judged {
            status: vec![NONE, FOUND, JUDGED, FLAGGED],
            counts,
            ..Judged::default()
        };
        let rows = judged.rows();
        assert_eq!(rows.flagged, vec![3]);
        assert_eq!(rows.found, vec![1]);
        assert_eq!(rows.linked, vec![2]);
        assert_eq!(rows.plain, vec![0, 1, 0, 0]);
        assert_eq!(rows.without, vec![1, 0, 0, 0]);
        assert_eq!(rows.kinds, [2, 0, 0, 3]);
        assert_eq!(rows.with_code[0], vec![1]);
        assert!(rows.with_code[1..].iter().all(Vec::is_empty));
        assert_eq!(rows.codes, [1, 0, 0, 0, 0, 0]);
    }

    #[test]
    fn old_news_counted_by_record_in_order() {
        // items of records 0, 0, 2, 5: dates 0 (old), none, 1 (recent), 0
        let got = old_by_record(&[0, 0, 2, 5], &[0, -1, 1, 0], &[true, false]);
        assert_eq!(got, Some((vec![0, 5], vec![2, 1])));
        assert_eq!(old_by_record(&[0], &[3], &[true]), None);
    }

    fn judged(exts: &[&str], locs: &[&str]) -> Judged {
        let (eo, ev) = column(exts);
        let (lo, lv) = column(locs);
        judge(
            StringColumn::new(&eo, &ev),
            StringColumn::new(&lo, &lv),
            0,
            exts.len(),
        )
        .unwrap()
    }

    #[test]
    fn each_rule_is_counted() {
        let loc = "https://a.org/p";
        let exts = [
            "",
            r#"{"images":[{"loc":"https://a.org/i.jpg","title":"t"},{"loc":"https://a.org/j.jpg"}]}"#,
            r#"{"videos":[{"content_loc":"https://a.org/p","player_loc":"https:\/\/a.org\/p"}]}"#,
            r#"{"news":[{"publication_date":"2024-01-01"},{"title":"x"}]}"#,
            r#"{"alternates":[{"hreflang":"en","href":"https://a.org/x"},{"hreflang":"EN","href":"https://a.org/y"},{"hreflang":"de","href":"https://a.org/x"}]}"#,
            r#"{"news":{"publication_date":"2024-01-01"},"extensions":[{"x":1}]}"#,
        ];
        let got = judged(&exts, &[loc; 6]);
        assert_eq!(got.status, vec![NONE, FOUND, FOUND, FOUND, FOUND, JUDGED]);
        let row = |i: usize| &got.counts[i * COUNTS..(i + 1) * COUNTS];
        assert_eq!(row(0), &[0; COUNTS]);
        assert_eq!(row(1), &[0, 1, 0, 0, 0, 0, 2, 0, 0, 0]);
        assert_eq!(row(2), &[0, 0, 2, 0, 0, 0, 0, 1, 0, 0]);
        assert_eq!(row(3), &[0, 0, 0, 1, 0, 0, 0, 0, 2, 0]);
        assert_eq!(row(4), &[0, 0, 0, 0, 1, 1, 0, 0, 0, 3]);
        assert_eq!(row(5), &[0, 0, 0, 0, 0, 0, 0, 0, 1, 0]);
        assert_eq!(got.news_records, vec![3, 3, 5]);
        assert_eq!(got.news_dates, vec![0, -1, 0]);
        assert_eq!(got.dates, vec!["2024-01-01".to_string()]);
    }

    #[test]
    fn elements_of_other_namespaces_are_counted_as_the_parser_counts_them() {
        let loc = "https://a.test/p";
        let same = [
            r#"{"extensions":[{"namespace":"https://o.example/ns","name":"rating","xml":"<o:rating xmlns:o=\"https://o.example/ns\">4</o:rating>"}]}"#,
            r#"{"extensions":[{"namespace":"n","name":"a","xml":"x"},{"namespace":"n","name":"b","xml":"caf\u00e9 \\ \/ \b\f\n\r\t \ud800"}]}"#,
            r#"{"extensions":[{"xml":"x","xml":"y"}]}"#,
        ];
        for text in same {
            let fast = plain_record(text.as_bytes(), loc).expect(text);
            let parsed = record(&parse(text.as_bytes()).unwrap(), loc).unwrap();
            assert_eq!(fast, parsed, "{text}");
        }
        // what the render lane does not write goes to the parser, whatever it makes of it
        for text in [
            r#"{"extensions":[]}"#,
            r#"{"extensions":[{}]}"#,
            r#"{"extensions":[{"xml":1}]}"#,
            r#"{"extensions":[{"xml":"x"}], "images":[]}"#,
            r#"{"extensions":[{"xml":"x"}]} "#,
            r#"{"extensions":[{"xml":"\x"}]}"#,
            r#"{"extensions":[{"xml":"\u12"}]}"#,
            r#"{"extensions":[{"xml":"\u+123"}]}"#,
            "{\"extensions\":[{\"xml\":\"a\tb\"}]}",
            r#"{"extensions":[{"xml":"x"}"#,
            r#"{"extensions":[{"xml":"x}]}"#,
        ] {
            assert_eq!(plain_raws(text.as_bytes()), None, "{text}");
        }
    }

    #[test]
    fn what_the_core_does_not_write_is_flagged() {
        let exts = [
            "[1]",
            r#"{"other":[]}"#,
            r#"{"images":"x"}"#,
            r#"{"alternates":[{"href":"https://a.org/"}]}"#,
            r#"{"images":[]"#,
            r#"{"images":[]} x"#,
            "\"\\ud800\"",
        ];
        let got = judged(&exts, &["https://a.org/"; 7]);
        assert_eq!(got.status, vec![FLAGGED; 7]);
    }

    #[test]
    fn escapes_and_deep_nesting() {
        let deep = "[".repeat(200) + &"]".repeat(200);
        let exts = [
            r#"{"videos":[{"content_loc":"https://a.org/caf\u00e9"}]}"#,
            &format!(r#"{{"extensions":{deep}}}"#),
        ];
        let got = judged(&exts, &["https://a.org/café", "https://a.org/"]);
        assert_eq!(got.status, vec![FOUND, FLAGGED]);
        assert_eq!(got.counts[2], 1);
    }
}
