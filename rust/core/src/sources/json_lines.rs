//! JSON Lines of the core keys, a chunk of lines at a time: a line that is an object of loc,
//! lastmod, changefreq, priority (and the ignored sitemap) with scalar values becomes a row
//! here, each value as Python's `json` and the Python path read it (an empty or false lastmod
//! or changefreq, an empty priority: absent); a blank line is skipped; any other line (a bad
//! line, an extension key, a list, an escaped key) keeps its place as a long row
//! (`Rows::long`), which Python reads alone with `json.loads` as before.
use std::borrow::Cow;

use memchr::{memchr, memchr2};

use super::lines::{line_at, utf8};
use super::{Rows, Value};
use crate::values::alternate::Alternate;
use crate::values::extensions::{Extension, Extensions};
use crate::values::image::{Image, FIELDS, MAX_IMAGES_PER_URL};
use crate::values::news::{self, News, Texts};
use crate::values::video::{self, Price, Relationship, Video};

const KEYS: [&[u8]; 7] = [
    b"loc",
    b"lastmod",
    b"changefreq",
    b"priority",
    b"sitemap",
    b"section",
    b"type",
];
const SITEMAP: usize = 4;
const SECTION: usize = 5;
const TYPE: usize = 6;

/// What a chunk of lines gave.
#[derive(Debug, PartialEq, Eq)]
pub enum Chunk {
    /// the rows of the chunk, in `rows`; it ends at this position
    Rows(usize),
    /// the data may go on: nothing was read
    More,
    /// the end of the data
    End,
}

/// Read the next chunk of `max_lines` lines (fewer at the end of the data) from `data[pos..]`;
/// `line` (the number of the last line read) moves past it unless the data may go on;
/// `lone_cr`: a CR alone ends a line (`line_at`).
pub fn read(
    data: &[u8],
    pos: usize,
    eof: bool,
    line: &mut u64,
    max_lines: usize,
    rows: &mut Rows,
    lone_cr: bool,
) -> Chunk {
    let mut ends = Vec::with_capacity(max_lines.min(1 << 16));
    let mut at = pos;
    while ends.len() < max_lines {
        match line_at(data, at, eof, lone_cr) {
            Some((end, next)) => {
                ends.push((at, end, next));
                at = next;
            }
            None if eof => break,
            None => return Chunk::More,
        }
    }
    if ends.is_empty() {
        return Chunk::End;
    }
    let first = *line;
    *line += ends.len() as u64;
    for (number, &(start, end, next)) in (first + 1..).zip(&ends) {
        let line = &data[start..end];
        match object(line, rows, None) {
            Some((values, section)) => {
                if let Some((start, end)) = section.filter(|(start, end)| start < end) {
                    rows.sections
                        .push((rows.values.len(), Value::Text(start, end)));
                }
                rows.push(number, values);
            }
            None if line.iter().all(u8::is_ascii_whitespace) => {} // a blank line: skipped
            // with its line break, as Python's reader gives a line to `json.loads`
            None => {
                if rows.read_sections {
                    // the long line's section now: the core may still render it (its extensions)
                    let mut scratch = Rows {
                        read_sections: true,
                        ..Rows::default()
                    };
                    let mut extensions = Extensions::default();
                    if let Some((_, Some((from, to)))) =
                        object(line, &mut scratch, Some(&mut extensions))
                    {
                        rows.section(&scratch.text[from..to]);
                    }
                }
                rows.push_long(number, std::iter::once(&data[start..next]));
            }
        }
    }
    Chunk::Rows(at)
}

/// A reader of JSON text; its pieces cut at ASCII bytes are UTF-8 without a second check.
struct Cursor<'a> {
    text: &'a str,
    at: usize,
}

impl<'a> Cursor<'a> {
    fn new(text: &'a str) -> Cursor<'a> {
        Cursor { text, at: 0 }
    }

    fn bytes(&self) -> &'a [u8] {
        self.text.as_bytes()
    }

    fn space(&mut self) {
        while matches!(
            self.bytes().get(self.at),
            Some(b' ' | b'\t' | b'\n' | b'\r')
        ) {
            self.at += 1;
        }
    }

    fn eat(&mut self, byte: u8) -> bool {
        let found = self.bytes().get(self.at) == Some(&byte);
        self.at += usize::from(found);
        found
    }

    fn word(&mut self, word: &[u8]) -> Option<()> {
        self.bytes()
            .get(self.at..)?
            .starts_with(word)
            .then(|| self.at += word.len())
    }

    fn hex4(&mut self) -> Option<u32> {
        let digits = self.text.get(self.at..self.at + 4)?;
        if !digits.bytes().all(|b| b.is_ascii_hexdigit()) {
            return None;
        }
        self.at += 4;
        u32::from_str_radix(digits, 16).ok()
    }

    /// A string's text after its opening quote, into `out`; None for what Python's `json`
    /// would refuse or turn into a lone surrogate.
    fn string(&mut self, out: &mut String) -> Option<()> {
        loop {
            let (piece, end) = self.piece()?;
            out.push_str(piece);
            match end {
                b'"' => return Some(()),
                _ => out.push(self.escape()?),
            }
        }
    }

    /// [`Cursor::string`] borrowed from the text when it has no escape (most have none).
    fn borrowed_string(&mut self) -> Option<Cow<'a, str>> {
        let (piece, end) = self.piece()?;
        if end == b'"' {
            return Some(Cow::Borrowed(piece));
        }
        let mut out = piece.to_string();
        out.push(self.escape()?);
        self.string(&mut out)?;
        Some(Cow::Owned(out))
    }

    /// The text up to the next quote or backslash (not a control character: None), and which ends it;
    /// the cursor moves past that.
    fn piece(&mut self) -> Option<(&'a str, u8)> {
        let rest = self.bytes().get(self.at..)?;
        let stop = memchr2(b'"', b'\\', rest)?;
        // no early exit: the loop is one of vector compares
        if rest[..stop].iter().fold(false, |any, &b| any | (b < 0x20)) {
            return None;
        }
        // cut at ASCII bytes of UTF-8 text: a whole piece of it
        let piece = self.text.get(self.at..self.at + stop)?;
        self.at += stop + 1;
        Some((piece, rest[stop]))
    }

    fn escape(&mut self) -> Option<char> {
        let byte = *self.bytes().get(self.at)?;
        self.at += 1;
        Some(match byte {
            b'"' => '"',
            b'\\' => '\\',
            b'/' => '/',
            b'b' => '\x08',
            b'f' => '\x0c',
            b'n' => '\n',
            b'r' => '\r',
            b't' => '\t',
            b'u' => {
                let unit = self.hex4()?;
                if (0xd800..0xdc00).contains(&unit) {
                    self.word(b"\\u")?;
                    let low = self.hex4()?;
                    if !(0xdc00..0xe000).contains(&low) {
                        return None;
                    }
                    char::from_u32(0x10000 + ((unit - 0xd800) << 10) + (low - 0xdc00))?
                } else {
                    char::from_u32(unit)? // None for a lone low surrogate
                }
            }
            _ => return None,
        })
    }

    /// A number as Python's `json` reads it (NaN and the infinities too); None for what it
    /// refuses, and for an integer past 64 bits (Python reads it; so does the Python path).
    fn number(&mut self) -> Option<Value> {
        for (word, value) in [
            (&b"NaN"[..], f64::NAN),
            (b"Infinity", f64::INFINITY),
            (b"-Infinity", f64::NEG_INFINITY),
        ] {
            if self.word(word).is_some() {
                return Some(Value::Number(value));
            }
        }
        let start = self.at;
        self.eat(b'-');
        let digits = |cursor: &mut Self| {
            let from = cursor.at;
            while cursor
                .bytes()
                .get(cursor.at)
                .is_some_and(u8::is_ascii_digit)
            {
                cursor.at += 1;
            }
            cursor.at - from
        };
        if self.eat(b'0') {
            // no digits may follow a leading zero: the next byte ends the number or fails
        } else if digits(self) == 0 {
            return None;
        }
        let mut float = false;
        if self.eat(b'.') {
            if digits(self) == 0 {
                return None;
            }
            float = true;
        }
        if self.eat(b'e') || self.eat(b'E') {
            if !self.eat(b'+') {
                self.eat(b'-');
            }
            if digits(self) == 0 {
                return None;
            }
            float = true;
        }
        let text = self.text.get(start..self.at)?;
        Some(if float {
            Value::Number(text.parse().ok()?)
        } else {
            Value::Integer(text.parse().ok()?)
        })
    }
}

/// Whether Python finds the value false (`value or None` is None): null, "", 0, 0.0, false.
fn falsy(value: Value) -> bool {
    match value {
        Value::Absent => true,
        Value::Text(start, end) => start == end,
        Value::Number(number) => number == 0.0,
        Value::Integer(number) => number == 0,
        Value::Bool(flag) => !flag,
    }
}

impl<'a> Cursor<'a> {
    /// An object at the cursor, each member given to `member` with its key (written without
    /// an escape: a key with one is left to Python) and the cursor at its value, which
    /// `member` reads; None when it is not such an object or `member` gives None.
    fn object(&mut self, mut member: impl FnMut(&mut Self, &'a [u8]) -> Option<()>) -> Option<()> {
        if !self.eat(b'{') {
            return None;
        }
        self.space();
        if self.eat(b'}') {
            return Some(());
        }
        loop {
            if !self.eat(b'"') {
                return None;
            }
            let bytes: &'a [u8] = self.bytes();
            let rest = bytes.get(self.at..)?;
            let key = &rest[..memchr(b'"', rest)?];
            self.at += key.len() + 1;
            self.space();
            if !self.eat(b':') {
                return None;
            }
            self.space();
            member(self, key)?;
            self.space();
            if self.eat(b'}') {
                return Some(());
            }
            if !self.eat(b',') {
                return None;
            }
            self.space();
        }
    }

    /// A list at the cursor (null: empty) of at most `most` items each read by `item`.
    fn list<T>(
        &mut self,
        most: usize,
        mut item: impl FnMut(&mut Self) -> Option<T>,
    ) -> Option<Vec<T>> {
        if self.word(b"null").is_some() {
            return Some(Vec::new());
        }
        if !self.eat(b'[') {
            return None;
        }
        let mut items = Vec::new();
        self.space();
        if self.eat(b']') {
            return Some(items);
        }
        loop {
            items.push(item(self)?);
            if items.len() > most {
                return None;
            }
            self.space();
            if self.eat(b']') {
                return Some(items);
            }
            if !self.eat(b',') {
                return None;
            }
            self.space();
        }
    }

    /// An object of members named in `names`, each at most once (any JSON value: see
    /// [`Cursor::field`]): for each name, None when not given. None for anything else
    /// (another key, a value nested too deep: Python says why).
    fn fields<const N: usize>(&mut self, names: [&[u8]; N]) -> Option<[Option<Field<'a>>; N]> {
        let mut given: [Option<Field<'a>>; N] = std::array::from_fn(|_| None);
        self.object(|cursor, key| {
            let slot = names.iter().position(|name| *name == key)?;
            if given[slot].is_some() {
                return None; // given twice: Python keeps the last
            }
            given[slot] = Some(cursor.field(2)?);
            Some(())
        })?;
        Some(given)
    }

    /// A member's value: null, a text, a bool, a number, a list (of texts: `Field::List`;
    /// else `Field::Items`) or, `depth` levels down at most, an object (its members in
    /// order, each key once).
    fn field(&mut self, depth: usize) -> Option<Field<'a>> {
        Some(if self.word(b"null").is_some() {
            Field::Null
        } else if self.eat(b'"') {
            Field::Text(self.borrowed_string()?)
        } else if self.word(b"true").is_some() {
            Field::Bool(true)
        } else if self.word(b"false").is_some() {
            Field::Bool(false)
        } else if self.bytes().get(self.at) == Some(&b'{') {
            let deeper = depth.checked_sub(1)?;
            let mut members: Vec<(&'a [u8], Field<'a>)> = Vec::new();
            self.object(|cursor, key| {
                if members.iter().any(|(known, _)| *known == key) {
                    return None; // given twice: Python keeps the last
                }
                members.push((key, cursor.field(deeper)?));
                Some(())
            })?;
            Field::Object(members)
        } else if self.bytes().get(self.at) == Some(&b'[') {
            let deeper = depth.checked_sub(1)?;
            let items = self.list(usize::MAX, |cursor| cursor.field(deeper))?;
            if items.iter().all(|item| matches!(item, Field::Text(_))) {
                let texts = items.into_iter().filter_map(|item| match item {
                    Field::Text(text) => Some(text),
                    _ => None,
                });
                Field::List(texts.collect())
            } else {
                Field::Items(items)
            }
        } else {
            match self.number()? {
                Value::Integer(number) => Field::Integer(number),
                Value::Number(number) => Field::Float(number),
                _ => return None,
            }
        })
    }
}

/// A member's value in an extension's object.
enum Field<'a> {
    Null,
    Text(Cow<'a, str>),
    List(Vec<Cow<'a, str>>),
    Integer(i64),
    Float(f64),
    Bool(bool),
    Items(Vec<Field<'a>>),
    Object(Vec<(&'a [u8], Field<'a>)>),
}

impl<'a> Field<'a> {
    /// A text field: Some(None) when null or not given, None when a list.
    fn text<'f>(field: &'f Option<Field<'_>>) -> Option<Option<&'f str>> {
        match field {
            None | Some(Field::Null) => Some(None),
            Some(Field::Text(text)) => Some(Some(text)),
            Some(_) => None,
        }
    }

    /// A whole number (`whole_number`): an integer, or its digits as text; None absent.
    fn number(field: &Option<Field<'_>>) -> Option<Option<u64>> {
        match field {
            None | Some(Field::Null) => Some(None),
            Some(Field::Integer(number)) => Some(Some(u64::try_from(*number).ok()?)),
            Some(Field::Text(text)) => Some(Some(video::whole_number(text)?)),
            Some(_) => None,
        }
    }

    /// A yes/no flag (`yes_no`): a bool, or yes or no as text; None absent.
    fn flag(field: &Option<Field<'_>>) -> Option<Option<bool>> {
        match field {
            None | Some(Field::Null) => Some(None),
            Some(Field::Bool(flag)) => Some(Some(*flag)),
            Some(Field::Text(text)) => Some(Some(video::yes_no(text)?)),
            Some(_) => None,
        }
    }

    /// A list field as `field_checks.text_list` takes it (None: absent).
    fn texts(field: Option<Field<'_>>) -> Option<Texts> {
        match field? {
            Field::Null => None,
            Field::Text(text) => Some(Texts::One(text.into_owned())),
            Field::List(texts) => Some(Texts::Many(
                texts.into_iter().map(Cow::into_owned).collect(),
            )),
            _ => Some(Texts::Many(vec![String::new()])), // a number: refused as a text
        }
    }
}

/// The extension keys of an entry, in the order `registry.from_json_fields` types them.
const KINDS: [&[u8]; 4] = [b"images", b"videos", b"news", b"alternates"];

/// The value of extension key `KINDS[kind]` after its colon, as `registry.from_json_fields`
/// types it when nothing is at fault: null (none), or a list of objects of the value's
/// fields with text (or null where the field is optional), each key once and the required
/// ones given, checked as `values::extensions` checks them (at most 1,000 images). None for
/// anything else (Python judges it).
fn kind_items(cursor: &mut Cursor<'_>, kind: usize) -> Option<Vec<Extension>> {
    match kind {
        0 => cursor.list(MAX_IMAGES_PER_URL, |cursor| {
            let given = cursor.fields([
                b"loc",
                FIELDS[0].as_bytes(),
                FIELDS[1].as_bytes(),
                FIELDS[2].as_bytes(),
                FIELDS[3].as_bytes(),
            ])?;
            let [loc, a, b, c, d] = [0, 1, 2, 3, 4].map(|at| Field::text(&given[at]));
            Image::checked(loc??, [a?, b?, c?, d?]).map(Extension::Image)
        }),
        1 => cursor.list(usize::MAX, video_object),
        2 if cursor.bytes().get(cursor.at) == Some(&b'{') => Some(vec![news_object(cursor)?]),
        2 => cursor.list(usize::MAX, news_object),
        _ => cursor.list(usize::MAX, |cursor| {
            let [hreflang, href] = cursor.fields([b"hreflang", b"href"])?;
            let (hreflang, href) = (Field::text(&hreflang)??, Field::text(&href)??);
            Alternate::checked(hreflang, href).map(Extension::Alternate)
        }),
    }
}

/// One video object as `Video(**fields)` takes it (every field the class has).
fn video_object(cursor: &mut Cursor<'_>) -> Option<Extension> {
    let given = cursor.fields([
        b"thumbnail_loc",
        b"title",
        b"description",
        b"content_loc",
        b"player_loc",
        b"duration",
        b"expiration_date",
        b"view_count",
        b"publication_date",
        b"tags",
        b"category",
        b"family_friendly",
        b"requires_subscription",
        b"uploader",
        b"live",
        b"player_allow_embed",
        b"player_autoplay",
        b"rating",
        b"restriction",
        b"gallery_loc",
        b"gallery_title",
        b"prices",
        b"uploader_info",
        b"platform",
    ])?;
    let text = |at: usize| Field::text(&given[at]);
    let mut video = Video::new(text(0)??, text(1)??, text(2)??)?;
    let loc = |at: usize| text(at)?.map_or(Some(None), Video::loc);
    video.content_loc = loc(3)?;
    video.player_loc = loc(4)?;
    video.duration = match Field::number(&given[5])? {
        Some(seconds) => Some(video::duration(seconds)?),
        None => None,
    };
    let date = |at: usize| text(at)?.map_or(Some(None), |t| news::published(t).map(Some));
    video.expiration_date = date(6)?;
    video.view_count = Field::number(&given[7])?;
    video.publication_date = date(8)?;
    match &given[9] {
        None | Some(Field::Null) => {}
        Some(Field::Text(tag)) => video.set_tags(vec![tag.to_string()])?,
        Some(Field::List(tags)) => {
            video.set_tags(tags.iter().map(|tag| tag.to_string()).collect())?
        }
        Some(_) => return None,
    }
    if let Some(category) = text(10)? {
        video.set_category(category)?;
    }
    video.family_friendly = Field::flag(&given[11])?;
    video.requires_subscription = Field::flag(&given[12])?;
    if let Some(uploader) = text(13)? {
        video.set_uploader(uploader)?;
    }
    video.live = Field::flag(&given[14])?;
    video.player_allow_embed = Field::flag(&given[15])?;
    if let Some(autoplay) = text(16)? {
        video.set_autoplay(autoplay)?;
    }
    video.rating = match &given[17] {
        None | Some(Field::Null) => None,
        Some(Field::Integer(number)) => Some(video::rating(*number as f64)?),
        Some(Field::Float(number)) => Some(video::rating(*number)?),
        Some(Field::Text(number)) => Some(video::rating_text(number)?),
        Some(_) => return None,
    };
    video.restriction = relationship(&given[18], Relationship::countries)?;
    video.gallery_loc = loc(19)?;
    if let Some(title) = text(20)? {
        video.set_gallery_title(title)?;
    }
    video.prices = match &given[21] {
        None | Some(Field::Null) => Vec::new(),
        Some(Field::List(empty)) if empty.is_empty() => Vec::new(),
        Some(Field::Items(items)) => items.iter().map(price).collect::<Option<Vec<_>>>()?,
        Some(_) => return None,
    };
    video.uploader_info = loc(22)?;
    video.platform = relationship(&given[23], Relationship::platforms)?;
    video
        .finished()
        .map(|video| Extension::Video(Box::new(video)))
}

/// The members of an object field named in `names` (each else absent), or None when it has
/// another.
fn members<'f, const N: usize>(
    members: &'f [(&[u8], Field<'_>)],
    names: [&[u8]; N],
) -> Option<[Option<&'f Field<'f>>; N]> {
    let mut out = [None; N];
    for (key, value) in members {
        out[names.iter().position(|name| name == key)?] = Some(value);
    }
    Some(out)
}

/// A restriction or platform (`video._relationship` of a mapping): Some(None) absent.
fn relationship(
    field: &Option<Field<'_>>,
    checked: fn(&str, &[&str]) -> Option<Relationship>,
) -> Option<Option<Relationship>> {
    let given = match field {
        None | Some(Field::Null) => return Some(None),
        Some(Field::Object(given)) => given,
        Some(_) => return None,
    };
    let [relationship, values] = members(given, [b"relationship", b"values"])?;
    let Some(Field::Text(relationship)) = relationship else {
        return None;
    };
    let values: Vec<&str> = match values {
        None | Some(Field::Null) => Vec::new(),
        Some(Field::Text(text)) => text.split_whitespace().collect(),
        Some(Field::List(texts)) => texts.iter().map(|text| &**text).collect(),
        Some(_) => return None,
    };
    Some(Some(checked(relationship, &values)?))
}

/// A price (`video._prices` of a mapping): its amount a text or a number.
fn price(item: &Field<'_>) -> Option<Price> {
    let Field::Object(given) = item else {
        return None;
    };
    let [amount, currency, kind, resolution] =
        members(given, [b"amount", b"currency", b"type", b"resolution"])?;
    let amount = match amount? {
        Field::Text(text) => text.to_string(),
        Field::Integer(number) => number.to_string(),
        Field::Float(number) => video::decimal(*number)?,
        _ => return None,
    };
    fn text<'f>(field: Option<&'f Field<'_>>) -> Option<Option<&'f str>> {
        match field {
            None | Some(Field::Null) => Some(None),
            Some(Field::Text(text)) => Some(Some(text)),
            Some(_) => None,
        }
    }
    let Some(Field::Text(currency)) = currency else {
        return None;
    };
    Price::checked(&amount, currency, text(kind)?, text(resolution)?)
}

/// One news object (`news` takes one, or a list of them).
fn news_object(cursor: &mut Cursor<'_>) -> Option<Extension> {
    let [name, language, date, title, access, genres, keywords, tickers] = cursor.fields([
        b"publication_name",
        b"language",
        b"publication_date",
        b"title",
        b"access",
        b"genres",
        b"keywords",
        b"stock_tickers",
    ])?;
    let text = Field::text;
    let published = news::published(text(&date)??)?;
    let lists = [genres, keywords, tickers].map(Field::texts);
    let lists = [lists[0].as_ref(), lists[1].as_ref(), lists[2].as_ref()];
    let optional = (text(&access)?, lists);
    let news = News::checked(
        text(&name)??,
        text(&language)??,
        published,
        text(&title)??,
        optional,
    );
    news.map(Extension::News)
}

/// Extension keys met in an object, each kind's items once, made [`Extensions`] in kind order.
#[derive(Default)]
struct Kinds([Option<Vec<Extension>>; KINDS.len()]);

impl Kinds {
    /// Read the value of `key` when it is an extension key: Some(true) read, Some(false) not
    /// such a key, None when the value is not one the core takes (or the key is repeated).
    fn member(&mut self, cursor: &mut Cursor<'_>, key: &[u8]) -> Option<bool> {
        let Some(kind) = KINDS.iter().position(|k| *k == key) else {
            return Some(false);
        };
        if self.0[kind].is_some() {
            return None; // a key given twice: Python keeps the last
        }
        self.0[kind] = Some(kind_items(cursor, kind)?);
        Some(true)
    }

    fn extensions(self) -> Extensions {
        let mut kinds = self.0.into_iter().flatten();
        // most rows give one kind: its list is the row's, with no copy
        let mut out = Extensions::from(kinds.next().unwrap_or_default());
        for items in kinds {
            out.extend(items);
        }
        out
    }
}

/// The row of one line when it is an object of the core keys (sitemap ignored) with scalar
/// values, loc among them; values as the Python path took them from `json.loads`: lastmod and
/// changefreq absent when false, priority absent when "", loc as it is. None for any other
/// line (a key written with an escape too: Python reads those). With `Rows::read_sections`,
/// a `section` key of text (null: none) gives the row's section too, a range of `rows.text`.
///
/// With `extensions`, the extension keys (`images`, `videos`, `news`, `alternates`) are taken too, checked by
/// the core ([`kind_items`]), into `extensions`.
#[allow(clippy::type_complexity)]
pub fn object(
    line: &[u8],
    rows: &mut Rows,
    extensions: Option<&mut Extensions>,
) -> Option<([Value; 4], Option<(usize, usize)>)> {
    let mut cursor = Cursor::new(utf8(line)?);
    let mut values: [Option<Value>; 4] = [None; 4];
    let mut section = None;
    let mut kinds = extensions.is_some().then(Kinds::default);
    cursor.space();
    cursor.object(|cursor, key| {
        let Some(key) = KEYS.iter().position(|k| *k == key) else {
            return kinds.as_mut()?.member(cursor, key)?.then_some(());
        };
        let value = match *cursor.bytes().get(cursor.at)? {
            b'"' => {
                cursor.at += 1;
                let start = rows.text.len();
                cursor.string(&mut rows.text)?;
                Value::Text(start, rows.text.len())
            }
            b'n' => cursor.word(b"null").map(|()| Value::Absent)?,
            b't' => cursor.word(b"true").map(|()| Value::Bool(true))?,
            b'f' => cursor.word(b"false").map(|()| Value::Bool(false))?,
            b'-' | b'0'..=b'9' | b'N' | b'I' => cursor.number()?,
            _ => return None, // an object or a list: Python reads it
        };
        if key < SITEMAP {
            values[key] = Some(value);
        } else if key == SECTION {
            match value {
                _ if !rows.read_sections => return None, // an unknown key: Python says so
                Value::Text(start, end) => section = Some((start, end)),
                Value::Absent => {}
                _ => return None, // not a name: Python says why
            }
        } else if key == TYPE {
            // "url", as a URL entry may say it is (`urlset read` writes "sitemap" for an
            // index's): any other type, Python says why the line is not a URL
            match value {
                Value::Text(start, end) if &rows.text[start..end] == "url" => {
                    rows.text.truncate(start)
                }
                _ => return None,
            }
        } else if let Value::Text(start, _) = value {
            rows.text.truncate(start);
        }
        Some(())
    })?;
    cursor.space();
    if cursor.at != line.len() {
        return None;
    }
    if let (Some(extensions), Some(kinds)) = (extensions, kinds) {
        *extensions = kinds.extensions();
    }
    let optional = |value: Option<Value>| match value {
        Some(value) if !falsy(value) => value,
        _ => Value::Absent,
    };
    let priority = match values[3] {
        Some(Value::Text(start, end)) if start == end => Value::Absent,
        value => value.unwrap_or(Value::Absent),
    };
    let values = [
        values[0]?,
        optional(values[1]),
        optional(values[2]),
        priority,
    ];
    Some((values, section))
}

/// The extensions of a table's `extensions` cell (stripped) as `source_tables` reads it when
/// nothing is at fault: a JSON object whose keys are extension keys only (or none). None for
/// anything else: Python reads the row.
pub fn extensions_cell(text: &str) -> Option<Extensions> {
    let mut cursor = Cursor::new(text);
    let mut kinds = Kinds::default();
    cursor.space();
    cursor.object(|cursor, key| kinds.member(cursor, key)?.then_some(()))?;
    cursor.space();
    (cursor.at == text.len()).then(|| kinds.extensions())
}

#[cfg(test)]
mod tests {
    use super::*;

    fn row(line: &str) -> Option<Vec<String>> {
        let mut rows = Rows::default();
        let (values, _) = object(line.as_bytes(), &mut rows, None)?;
        Some(
            values
                .iter()
                .map(|v| match *v {
                    Value::Absent => "-".to_string(),
                    Value::Number(n) => format!("{n:?}"),
                    Value::Integer(n) => format!("int {n}"),
                    Value::Bool(b) => format!("{b}"),
                    text => rows.text_of(text).unwrap().to_string(),
                })
                .collect(),
        )
    }

    #[test]
    fn plain_objects_give_rows() {
        let got = row(r#" {"loc": "a\u00e9\/\ud83d\ude00", "priority": 0.5, "lastmod": null} "#);
        assert_eq!(got.unwrap(), ["aé/😀", "-", "-", "0.5"]);
        let got = row(r#"{"loc":"a","loc":"b","changefreq":"","sitemap":{"x":1}}"#);
        assert_eq!(got, None); // an object under sitemap: Python reads it
        let got = row(r#"{"loc":"b","changefreq":"","sitemap":"s","priority":"","lastmod":"x"}"#);
        assert_eq!(got.unwrap(), ["b", "x", "-", "-"]);
        assert_eq!(
            row(r#"{"loc":"","sitemap":3,"priority":1e-1}"#).unwrap(),
            ["", "-", "-", "0.1"]
        );
        let got = row(r#"{"type":"url","loc":"c","type":"\u0075rl"}"#);
        assert_eq!(got.unwrap(), ["c", "-", "-", "-"]); // a URL entry saying so
        let got = row(r#"{"loc":1,"lastmod":0,"changefreq":false,"priority":0}"#);
        assert_eq!(got.unwrap(), ["int 1", "-", "-", "int 0"]);
        let got = row(r#"{"loc":null,"lastmod":NaN,"changefreq":true,"priority":-Infinity}"#);
        assert_eq!(got.unwrap(), ["-", "NaN", "true", "-inf"]);
    }

    #[test]
    fn anything_else_is_left_to_python() {
        for line in [
            "",
            "{}",
            "[1]",
            r#"{"lastmod": "2024-01-01"}"#,
            r#"{"loc": "a", "priority": 123456789012345678901234567890}"#,
            r#"{"loc": "a", "priority": nan}"#,
            r#"{"loc": "a", "priority": 01.5}"#,
            r#"{"loc": "a\ud800"}"#,
            "{\"loc\": \"a\tb\"}",
            r#"{"loc": "a", "type": "sitemap"}"#,
            r#"{"loc": "a", "type": null}"#,
            r#"{"lo\u0063": "a"}"#,
            r#"{"loc": "a"} x"#,
            r#"{"loc": "a",}"#,
            r#"{"loc": "a" "lastmod": "b"}"#,
        ] {
            assert_eq!(row(line), None, "{line}");
        }
    }

    #[test]
    fn a_section_key_is_read_only_when_asked_for() {
        let data = b"{\"section\":\"blog\",\"loc\":\"a\",\"lastmod\":\"d\"}\n{\"loc\":\"b\",\"section\":null}\n{\"loc\":\"c\",\"section\":1}\n";
        let mut rows = Rows::default();
        let mut line = 0;
        read(data, 0, true, &mut line, 9, &mut rows, true);
        assert_eq!(rows.long.len(), 3); // without sections asked for: an unknown key
        let mut rows = Rows {
            read_sections: true,
            ..Rows::default()
        };
        line = 0;
        read(data, 0, true, &mut line, 9, &mut rows, true);
        let long: Vec<usize> = rows.long.iter().map(|(at, _)| *at).collect();
        assert_eq!(long, [2]); // a section that is not text: Python says why
        assert_eq!(rows.sections.len(), 1);
        let (at, value) = rows.sections[0];
        assert_eq!((at, rows.text_of(value)), (0, Some("blog")));
        assert_eq!(rows.text_of(rows.values[0][1]), Some("d"));
    }

    #[test]
    fn a_line_python_reads_keeps_its_place_alone() {
        let mut rows = Rows::default();
        let mut line = 0;
        let data =
            b"{\"loc\":\"a\"}\n{\"loc\":\"b\"}\r\n\n{\"loc\":\"c\",\"images\":[]}\n{\"loc\":\"d\"}";
        assert_eq!(
            read(data, 0, true, &mut line, 2, &mut rows, true),
            Chunk::Rows(25)
        );
        assert_eq!((rows.lines.as_slice(), line), (&[1, 2][..], 2));
        rows.clear();
        assert_eq!(
            read(data, 25, false, &mut line, 3, &mut rows, true),
            Chunk::More
        );
        assert_eq!(
            read(data, 25, true, &mut line, 3, &mut rows, true),
            Chunk::Rows(data.len())
        );
        // the blank line is skipped; the line with images is the first row, read by Python
        assert_eq!((rows.lines.as_slice(), line), (&[4, 5][..], 5));
        let (at, of) = rows.long[0];
        let cells = rows.long_cells(of);
        assert_eq!((at, cells.len()), (0, 1));
        assert_eq!(
            &rows.raw[cells[0].0..cells[0].1],
            b"{\"loc\":\"c\",\"images\":[]}\n"
        );
        assert_eq!(rows.text_of(rows.values[1][0]), Some("d"));
        assert_eq!(
            read(data, data.len(), true, &mut line, 2, &mut rows, true),
            Chunk::End
        );
    }
}
