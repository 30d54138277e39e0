//! Plain `<video:video>` and `<news:news>` elements after a urlset entry's core values (and its
//! plain images, [`super::images`]), typed by the compiled scanner so that video and news
//! sitemaps stay in the scanner's runs instead of sending each entry to lxml.
//!
//! Plain is what the extension readers (src/urlset/extensions/video.py, news.py) type
//! without dropping anything and give the same values for: no attributes, comments or
//! processing instructions, each child at most once (a video's tags excepted) in any order
//! (one out of the schema's order is noted, [`super::images::Late`], for the reader's
//! `extension-order`, as CMS plugins write some), XML whitespace between them, and each
//! value already valid as written. A value's text is the five predefined entities replaced
//! or one CDATA section taken as it is, then stripped of Unicode whitespace as Python's
//! `str.strip` strips it. Anything else, among it every value a reader would drop with a
//! warning (`video-field-dropped`, `news-field-dropped`, `news-language`), and the children
//! not typed here (a video's `player_loc` attributes, restriction, platform, gallery_loc,
//! price, uploader info), is left to the extension readers as before.

use super::images::{image_at, ImageSpans, Late, Tags, LATE_NEWS, LATE_PUBLICATION, LATE_VIDEO};
use super::raw::{raw_at, ElementName, Raws, RootScope};
use super::records::Span;
use std::borrow::Cow;
use std::sync::Arc;

use super::values::value_str;
use crate::values::lastmod::{plain_lastmod_value, Lastmod};
use crate::values::loc::plain_loc;
use crate::values::scalars::trim_python_space;
use crate::values::{alternate, news, video};

/// limits.MAX_LOC_LENGTH: a longer URI is one the extension readers convert.
const MAX_URI: usize = 2_048;

/// One `<video:video>` as video.py's `Video` holds it (the fields typed here).
#[derive(Debug, Clone, PartialEq, Default)]
pub struct Video {
    pub thumbnail_loc: String,
    pub title: String,
    pub description: String,
    pub content_loc: Option<String>,
    pub player_loc: Option<String>,
    pub duration: Option<u32>,
    pub expiration_date: Option<Lastmod>,
    pub rating: Option<f64>,
    pub view_count: Option<u64>,
    pub publication_date: Option<Lastmod>,
    pub tags: Vec<String>,
    pub category: Option<String>,
    pub family_friendly: Option<bool>,
    pub requires_subscription: Option<bool>,
    pub uploader: Option<String>,
    pub live: Option<bool>,
}

/// One `<news:news>` as news.py's `News` holds it: the build's value, read alike.
pub use crate::values::news::News;

/// One `<xhtml:link rel="alternate" hreflang=".." href=".."/>` as hreflang.py's
/// `Alternate` holds it.
#[derive(Debug, Clone, PartialEq)]
pub struct Alternate {
    pub hreflang: String,
    pub href: String,
}

/// The kinds of typed extension, in the order the reader's JSON groups them.
pub const IMAGE: u8 = 0;
pub const VIDEO: u8 = 1;
pub const NEWS: u8 = 2;
pub const LINK: u8 = 3;
pub const RAW: u8 = 4;

/// A record's videos, news articles and hreflang links, in document order each.
#[derive(Debug, Clone, PartialEq, Default)]
pub struct Media {
    pub videos: Vec<Video>,
    pub news: Vec<News>,
    pub links: Vec<Alternate>,
    /// Elements of namespaces urlset does not type, kept as written ([`super::raw`]).
    pub raws: Raws,
    /// The kind of each element (images included) in document order, when it is not the
    /// JSON's order (images, videos, news, links, raw): a value's extensions keep the
    /// document's.
    pub order: Option<Vec<u8>>,
    /// The videos and news articles whose children are out of the schema's order, in
    /// document order (an image's is its own: `ImageSpans::late`).
    pub lates: Vec<Late>,
}

impl Media {
    /// Emptied, its vectors' memory kept (a scan fills it again: `records::Spares`).
    pub fn clear(&mut self) {
        let Media {
            videos,
            news,
            links,
            raws,
            order,
            lates,
        } = self;
        videos.clear();
        news.clear();
        links.clear();
        raws.clear();
        *order = None;
        lates.clear();
    }

    /// Whether it holds anything beyond images.
    pub fn any(&self) -> bool {
        !self.videos.is_empty()
            || !self.news.is_empty()
            || !self.links.is_empty()
            || !self.raws.is_empty()
            || self.order.is_some()
    }
}

/// The prefixes the root binds to the image, video, news and XHTML namespaces.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Prefixes {
    pub image: Option<Vec<u8>>,
    pub video: Option<Vec<u8>>,
    pub news: Option<Vec<u8>>,
    pub xhtml: Option<Vec<u8>>,
    /// Every prefix the root declares, for elements of other namespaces ([`super::raw`]).
    pub scope: RootScope,
}

impl Prefixes {
    /// Only the image prefix (what the scanner took before videos and news).
    pub fn images(prefix: &[u8]) -> Prefixes {
        Prefixes {
            image: Some(prefix.to_vec()),
            ..Prefixes::default()
        }
    }

    pub fn any(&self) -> bool {
        self.image.is_some()
            || self.video.is_some()
            || self.news.is_some()
            || self.xhtml.is_some()
            || self.scope.levels > 0
    }
}

/// The typed extensions of `text[start..end]` (all of it, whitespace around the elements):
/// plain images, videos, news and hreflang links, and plain elements of other namespaces, in
/// any order (`Media::order` says which when it is not the JSON's); None when anything there
/// is not plain or there is nothing. The media are made in their box (none for images alone):
/// a record keeps them so, and moving them there cost two copies a record; the box is one of
/// `spare` (empty) when it holds one.
pub(crate) fn plain_extensions<'a>(
    text: &'a [u8],
    (start, end): Span,
    (prefixes, spare): (&'a Prefixes, &mut SpareMedia),
    max_value: usize,
) -> Option<(Vec<ImageSpans>, Option<Box<Media>>)> {
    let mut t = Tags {
        text,
        pos: start,
        end,
        prefix: b"",
    };
    let mut images = Vec::new();
    let mut boxed: Option<Box<Media>> = None;
    let mut order = Order::default();
    t.spaces();
    while t.pos < end {
        let at = |t: &mut Tags<'a>, p: &'a Option<Vec<u8>>, name: &[u8]| match p {
            // the prefix's first byte first: an element of another prefix, tried for each
            // kind, fails there without the call
            Some(p) if t.text.get(t.pos + 1) == p.first() => {
                t.prefix = p;
                t.tag(name, false)
            }
            _ => false,
        };
        if at(&mut t, &prefixes.image, b"image") {
            let image = image_at(&mut t, max_value)?;
            if images.is_empty() {
                // most records have one: its slice then needs no copy to fit (into_boxed_slice)
                images.reserve_exact(1);
            }
            images.push(image);
            order.push(IMAGE, &images, boxed.as_deref());
            continue;
        }
        let kind = if at(&mut t, &prefixes.video, b"video") {
            let (video, late) = video_at(&mut t, max_value)?;
            let media = media_in(&mut boxed, spare);
            media.videos.reserve_exact(1); // as images: most records have one
            media.videos.push(video);
            media.lates.extend(late);
            VIDEO
        } else if at(&mut t, &prefixes.news, b"news") {
            let (news, lates) = news_at(&mut t, max_value)?;
            let media = media_in(&mut boxed, spare);
            media.news.reserve_exact(1);
            media.news.push(news);
            media.lates.extend(lates.into_iter().flatten());
            NEWS
        } else if let Some(link) = prefixes
            .xhtml
            .as_ref()
            .filter(|p| t.text.get(t.pos + 1) == p.first())
            .and_then(|p| {
                t.prefix = p;
                link_at(&mut t)
            })
        {
            media_in(&mut boxed, spare).links.push(link);
            LINK
        } else {
            let scope = (&prefixes.scope, &mut spare.raw_name);
            let (raw, after) = raw_at(text, (t.pos, end), scope, max_value)?;
            t.pos = after;
            t.spaces();
            media_in(&mut boxed, spare).raws.push(raw);
            RAW
        };
        order.push(kind, &images, boxed.as_deref());
    }
    order.last?; // nothing there
    if let Some(kinds) = order.kinds {
        media_in(&mut boxed, spare).order = Some(kinds);
    }
    Some((images, boxed))
}

/// What a scan keeps from record to record for their extensions: emptied media boxes for
/// records to fill again (boxed, as a record holds its media: the box is what is kept), and
/// the name of the element of another namespace read last, which the next records most
/// likely hold too ([`raw_at`]; a scan empties it: its names are one root scope's).
#[derive(Default)]
pub(crate) struct SpareMedia {
    pub(crate) boxes: MediaBoxes,
    pub(crate) raw_name: Option<Arc<ElementName>>,
}

/// Boxes, as records hold them: the box is what is kept.
type MediaBoxes = Vec<Box<Media>>;

/// The media in `boxed`, put there first when there are none (in a box of `spare` if any).
fn media_in<'m>(boxed: &'m mut Option<Box<Media>>, spare: &mut SpareMedia) -> &'m mut Media {
    boxed.get_or_insert_with(|| spare.boxes.pop().unwrap_or_default())
}

/// The kinds of a record's extensions in document order, kept only once they leave the
/// JSON's order (most records: none made).
#[derive(Default)]
struct Order {
    last: Option<u8>,
    kinds: Option<Vec<u8>>,
}

impl Order {
    /// An element of `kind` was just added to `images` or `media` (which hold it and those
    /// before it).
    // inlined (the order left, rarely, is not): a call an element weighed on every record
    #[inline(always)]
    fn push(&mut self, kind: u8, images: &[ImageSpans], media: Option<&Media>) {
        if let Some(kinds) = self.kinds.as_mut() {
            kinds.push(kind);
        } else if self.last.is_some_and(|last| last > kind) {
            self.leave(kind, images, media);
        }
        self.last = Some(kind);
    }

    /// The kinds so far, the order before `kind` being the JSON's: each as often as met.
    #[cold]
    fn leave(&mut self, kind: u8, images: &[ImageSpans], media: Option<&Media>) {
        let mut counts = [images.len(), 0, 0, 0, 0];
        if let Some(media) = media {
            counts[1..].copy_from_slice(&[
                media.videos.len(),
                media.news.len(),
                media.links.len(),
                media.raws.len(),
            ]);
        }
        counts[usize::from(kind)] -= 1;
        let mut kinds: Vec<u8> = (IMAGE..=RAW)
            .zip(counts)
            .flat_map(|(k, n)| std::iter::repeat_n(k, n))
            .collect();
        kinds.push(kind);
        self.kinds = Some(kinds);
    }
}

/// An hreflang link at the cursor (`<p:link` with `rel="alternate"`, `hreflang` and `href`,
/// in any order, in double or single quotes, then `/>` or `>` and its end tag with only
/// whitespace between), whose values the reader takes as they are: the cursor then past it
/// and the whitespace after. XML gives attributes no order, and writers use each of these.
fn link_at(t: &mut Tags<'_>) -> Option<Alternate> {
    let text = &t.text[..t.end];
    let mut pos = t.pos;
    let expect =
        |pos: &mut usize, what: &[u8]| text[*pos..].starts_with(what).then(|| *pos += what.len());
    let spaces = |pos: &mut usize| {
        let from = *pos;
        while text
            .get(*pos)
            .is_some_and(|&b| matches!(b, b' ' | b'\t' | b'\r' | b'\n'))
        {
            *pos += 1;
        }
        *pos > from
    };
    expect(&mut pos, b"<")?;
    expect(&mut pos, t.prefix)?;
    expect(&mut pos, b":link")?;
    let (mut rel, mut hreflang, mut href): (bool, Option<Span>, Option<Span>) = (false, None, None);
    loop {
        let spaced = spaces(&mut pos);
        if expect(&mut pos, b"/>").is_some() {
            break;
        }
        if expect(&mut pos, b">").is_some() {
            spaces(&mut pos);
            expect(&mut pos, b"</")?;
            expect(&mut pos, t.prefix)?;
            expect(&mut pos, b":link>")?;
            break;
        }
        spaced.then_some(())?;
        // name = 'value' or "value": the value up to its quote, holding no '<'
        let name_len = text[pos..].iter().position(|&b| !b.is_ascii_alphabetic())?;
        let name = &text[pos..pos + name_len];
        pos += name_len;
        spaces(&mut pos);
        expect(&mut pos, b"=")?;
        spaces(&mut pos);
        let quote = *text.get(pos).filter(|&&q| q == b'"' || q == b'\'')?;
        let from = pos + 1;
        let len = memchr::memchr2(quote, b'<', &text[from..])?;
        (text[from + len] == quote).then_some(())?;
        pos = from + len + 1;
        let value = (from, from + len);
        let slot = match name {
            b"rel" if !rel => {
                rel = text[from..from + len].eq_ignore_ascii_case(b"alternate");
                rel.then_some(())?;
                continue;
            }
            b"hreflang" => &mut hreflang,
            b"href" => &mut href,
            _ => return None, // another attribute, or one twice: the extension reader says
        };
        slot.is_none().then_some(())?;
        *slot = Some(value);
    }
    let ((a, b), (c, d)) = (hreflang.filter(|_| rel)?, href?);
    let hreflang = hreflang_code(std::str::from_utf8(&text[a..b]).ok()?)?;
    let plain = plain_loc(&text[c..d])?;
    let mut href = Vec::with_capacity(d - c);
    super::json::plain_loc_value(text, (c, d), plain.has_entity, &mut href);
    t.pos = pos;
    t.spaces();
    (href.len() <= MAX_URI).then_some(())?;
    Some(Alternate {
        hreflang,
        href: String::from_utf8(href).ok()?,
    })
}

/// A value as written when it needs no stripping (the reader explains spaces around a
/// code); the values' checks then give the reader's canonical form.
fn unstripped(value: &str) -> Option<&str> {
    (trim_python_space(value)? == value).then_some(value)
}

/// An hreflang value in the canonical case hreflang.py's `hreflang_code` gives it; None for
/// anything it rejects or changes otherwise (spaces around it, `_`).
fn hreflang_code(value: &str) -> Option<String> {
    alternate::hreflang_code(unstripped(value)?)
}

/// The text of the element whose start tag the cursor has passed, up to its end tag (the
/// cursor then past it and the whitespace after), as the extension readers take it: entities
/// replaced (or one CDATA section as it is), stripped as Python strips; None when a parser
/// must read it.
fn content(t: &mut Tags<'_>, name: &[u8], max_value: usize) -> Option<String> {
    let text = t.text;
    // borrowed from the input unless an entity was replaced: the one text made is the value
    let value = match t.cdata_then_close(name) {
        Some((a, b)) => Cow::Borrowed(cdata(&text[a..b], max_value)?),
        None => {
            let (a, b) = t.text_then_close(name)?;
            value_str(&text[a..b], max_value)?
        }
    };
    t.spaces();
    Some(value.trim().to_owned())
}

/// A CDATA section's content as a parser gives it, when it is that as written (no carriage
/// return, which a parser rewrites, nor a character XML forbids).
fn cdata(raw: &[u8], max_value: usize) -> Option<&str> {
    if raw.len() > max_value {
        return None;
    }
    let s = std::str::from_utf8(raw).ok()?;
    let forbidden =
        |c: char| (c < ' ' && c != '\t' && c != '\n') || c == '\u{FFFE}' || c == '\u{FFFF}';
    (!s.contains(forbidden)).then_some(s)
}

/// A required text: not empty after stripping, at most `limit` characters (0: no limit).
fn required(value: String, limit: usize) -> Option<String> {
    let fits = limit == 0 || value.len() <= limit || value.chars().count() <= limit;
    (!value.is_empty() && fits).then_some(value)
}

/// A URI element's text: a plain URI as written (its entities read as their characters), no
/// longer than `limits.MAX_LOC_LENGTH`.
fn uri(t: &mut Tags<'_>, name: &[u8]) -> Option<String> {
    let (a, b) = t.text_then_close(name)?;
    let raw = &t.text[a..b];
    let plain = plain_loc(raw)?;
    let mut value = Vec::with_capacity(raw.len());
    super::json::plain_loc_value(t.text, (a, b), plain.has_entity, &mut value);
    t.spaces();
    (value.len() <= MAX_URI)
        .then(|| String::from_utf8(value).ok())
        .flatten()
}

/// A date element's text: a lastmod form the scanner takes as plain (no spaces around it).
fn date(t: &mut Tags<'_>, name: &[u8]) -> Option<Lastmod> {
    let (a, b) = t.text_then_close(name)?;
    let value = plain_lastmod_value(&t.text[a..b])?;
    t.spaces();
    Some(value)
}

/// ASCII digits only, at most `most` of them.
fn digits(value: &str, most: usize) -> Option<u64> {
    let ok = !value.is_empty() && value.len() <= most && value.bytes().all(|b| b.is_ascii_digit());
    ok.then(|| value.parse().ok()).flatten()
}

fn yes_no(value: &str) -> Option<bool> {
    if value.eq_ignore_ascii_case("yes") {
        Some(true)
    } else if value.eq_ignore_ascii_case("no") {
        Some(false)
    } else {
        None
    }
}

/// A rating the reader takes as the same float and `json.dumps` writes as Rust does: up to
/// three digits after the point, from 0.0 to 5.0.
fn rating(value: &str) -> Option<f64> {
    let (whole, fraction) = value.split_once('.').unwrap_or((value, "0"));
    let digits = |s: &str, most: usize| {
        !s.is_empty() && s.len() <= most && s.bytes().all(|b| b.is_ascii_digit())
    };
    if !digits(whole, 3) || !digits(fraction, 3) {
        return None;
    }
    let number: f64 = value.parse().ok()?;
    (0.0..=5.0).contains(&number).then_some(number)
}

/// The children of an extension element as met, against the schema's order: a child placed
/// before one met earlier is late (the first such child is noted, as the extension readers
/// note it: `extension-order`); a child met twice is not plain unless it may repeat.
#[derive(Default)]
struct Placed {
    /// The latest place met so far.
    after: u8,
    late: Option<(u8, u8)>,
    met: u32,
}

impl Placed {
    /// The child of schema place `place` was met: None when it was met before and may not
    /// repeat.
    fn met(&mut self, place: u8, repeats: bool) -> Option<()> {
        let bit = 1u32 << place;
        if self.met & bit != 0 && !repeats {
            return None;
        }
        self.met |= bit;
        if place < self.after {
            self.late = self.late.or(Some((place, self.after)));
        } else {
            self.after = place;
        }
        Some(())
    }

    fn has(&self, place: u8) -> bool {
        self.met & (1u32 << place) != 0
    }

    /// The [`Late`] of the element whose start tag is at `at`, of `kind` ([`LATE_KINDS`]).
    fn late(&self, at: usize, kind: u8) -> Option<Late> {
        self.late.map(|(child, after)| Late {
            at,
            kind,
            child,
            after,
        })
    }
}

/// Which of `names` (each with its place in the schema's order) starts at the cursor, tried
/// from `from` on first (the child after the last one met, in the usual order); the cursor
/// then past its start tag.
fn child_at(t: &mut Tags<'_>, names: &[(&[u8], u8)], from: usize) -> Option<usize> {
    let from = from.min(names.len());
    (from..names.len())
        .chain(0..from)
        .find(|&i| t.tag(names[i].0, false))
}

/// A video's children typed here, with their places in the schema's order (video.py's
/// `_VIDEO_ORDER`; the others are left to the extension reader).
const VIDEO_CHILDREN: [(&[u8], u8); 16] = [
    (b"thumbnail_loc", 0),
    (b"title", 1),
    (b"description", 2),
    (b"content_loc", 3),
    (b"player_loc", 4),
    (b"duration", 5),
    (b"expiration_date", 6),
    (b"rating", 7),
    (b"view_count", 9),
    (b"publication_date", 10),
    (b"tag", 11),
    (b"category", 12),
    (b"family_friendly", 13),
    (b"requires_subscription", 17),
    (b"uploader", 18),
    (b"live", 21),
];

/// The video whose start tag the cursor has passed, when it is plain, and its first child
/// out of the schema's order.
fn video_at(t: &mut Tags<'_>, max_value: usize) -> Option<(Video, Option<Late>)> {
    let at = t.pos - (t.prefix.len() + 8); // `<p:video>`
    t.spaces();
    let text =
        |t: &mut Tags<'_>, name: &[u8], limit: usize| required(content(t, name, max_value)?, limit);
    let flag = |t: &mut Tags<'_>, name: &[u8]| yes_no(&content(t, name, max_value)?);
    let mut v = Video::default();
    let (mut placed, mut next) = (Placed::default(), 0);
    while let Some(i) = child_at(t, &VIDEO_CHILDREN, next) {
        let (name, place) = VIDEO_CHILDREN[i];
        placed.met(place, name == b"tag")?;
        match name {
            b"thumbnail_loc" => v.thumbnail_loc = uri(t, name)?,
            b"title" => v.title = text(t, name, video::MAX_TITLE)?,
            b"description" => v.description = text(t, name, video::MAX_DESCRIPTION)?,
            b"content_loc" => v.content_loc = Some(uri(t, name)?),
            b"player_loc" => v.player_loc = Some(uri(t, name)?),
            b"duration" => {
                let n = digits(&content(t, name, max_value)?, 9)?;
                let n = u32::try_from(n).ok()?;
                (1..=video::MAX_DURATION)
                    .contains(&u64::from(n))
                    .then_some(())?;
                v.duration = Some(n);
            }
            b"expiration_date" => v.expiration_date = Some(date(t, name)?),
            b"rating" => v.rating = Some(rating(&content(t, name, max_value)?)?),
            b"view_count" => v.view_count = Some(digits(&content(t, name, max_value)?, 18)?),
            b"publication_date" => v.publication_date = Some(date(t, name)?),
            b"tag" => v.tags.push(text(t, name, 0)?),
            b"category" => {
                let value = content(t, name, max_value)?;
                (value.chars().count() <= video::MAX_CATEGORY).then_some(())?;
                v.category = (!value.is_empty()).then_some(value);
            }
            b"family_friendly" => v.family_friendly = Some(flag(t, name)?),
            b"requires_subscription" => v.requires_subscription = Some(flag(t, name)?),
            b"uploader" => v.uploader = Some(text(t, name, video::MAX_UPLOADER)?),
            _ => v.live = Some(flag(t, name)?),
        }
        next = i + usize::from(name != b"tag");
    }
    let required = [0, 1, 2].iter().all(|&p| placed.has(p));
    let playable = v.content_loc.is_some() || v.player_loc.is_some();
    if !required || !playable || v.tags.len() > video::MAX_TAGS || !t.tag(b"video", true) {
        return None;
    }
    t.spaces();
    Some((v, placed.late(at, LATE_VIDEO)))
}

/// A news language as news.py reads it without a word (read in lower case).
fn news_language(value: &str) -> Option<String> {
    news::news_language(unstripped(value)?)
}

/// A comma-separated list as `field_checks.text_list` splits it: each item stripped, empty
/// ones left out.
fn items(value: &str) -> impl Iterator<Item = &str> {
    value.split(',').map(str::trim).filter(|s| !s.is_empty())
}

/// A news article's children, with their places in the schema's order (news.py's
/// `_NEWS_ORDER`), and its publication's.
const NEWS_CHILDREN: [(&[u8], u8); 7] = [
    (b"publication", 0),
    (b"access", 1),
    (b"genres", 2),
    (b"publication_date", 3),
    (b"title", 4),
    (b"keywords", 5),
    (b"stock_tickers", 6),
];
const PUBLICATION_CHILDREN: [(&[u8], u8); 2] = [(b"name", 0), (b"language", 1)];

/// The news article whose start tag the cursor has passed, when it is plain, and its first
/// child out of the schema's order and its publication's (the order the reader notes them).
fn news_at(t: &mut Tags<'_>, max_value: usize) -> Option<(News, [Option<Late>; 2])> {
    let at = t.pos - (t.prefix.len() + 7); // `<p:news>`
    t.spaces();
    let (mut publication_name, mut language, mut publication_date, mut title) =
        (None, None, None, None);
    let (mut access, mut genres, mut keywords, mut stock_tickers) = (None, vec![], vec![], vec![]);
    let (mut placed, mut next) = (Placed::default(), 0);
    let mut in_publication = Placed::default();
    while let Some(i) = child_at(t, &NEWS_CHILDREN, next) {
        let (name, place) = NEWS_CHILDREN[i];
        placed.met(place, false)?;
        match name {
            b"publication" => {
                t.spaces();
                let mut next = 0;
                while let Some(i) = child_at(t, &PUBLICATION_CHILDREN, next) {
                    let (name, place) = PUBLICATION_CHILDREN[i];
                    in_publication.met(place, false)?;
                    let value = content(t, name, max_value)?;
                    if place == 0 {
                        publication_name = Some(required(value, 0)?);
                    } else {
                        language = Some(news_language(&value)?);
                    }
                    next = i + 1;
                }
                if !(in_publication.has(0) && in_publication.has(1) && t.tag(name, true)) {
                    return None;
                }
                t.spaces();
            }
            b"access" => {
                let value = content(t, name, max_value)?;
                if !value.is_empty() {
                    access = Some(news::known(&value, &news::ACCESS)?);
                }
            }
            b"genres" => {
                let value = content(t, name, max_value)?;
                genres = items(&value)
                    .map(|g| news::known(g, &news::GENRES))
                    .collect::<Option<Vec<_>>>()?;
            }
            b"publication_date" => publication_date = Some(date(t, name)?),
            b"title" => title = Some(required(content(t, name, max_value)?, 0)?),
            b"keywords" => {
                let value = content(t, name, max_value)?;
                keywords = items(&value).map(str::to_owned).collect();
            }
            _ => {
                let value = content(t, name, max_value)?;
                let found: Vec<String> = items(&value).map(str::to_owned).collect();
                let known = found.iter().all(|s| news::ticker(s));
                (found.len() <= news::MAX_STOCK_TICKERS && known).then_some(())?;
                stock_tickers = found;
            }
        }
        next = i + 1;
    }
    if !t.tag(b"news", true) {
        return None;
    }
    t.spaces();
    let news = News {
        publication_name: publication_name?,
        language: language?,
        publication_date: publication_date?,
        title: title?,
        access,
        genres,
        keywords,
        stock_tickers,
    };
    let lates = [
        placed.late(at, LATE_NEWS),
        in_publication.late(at, LATE_PUBLICATION),
    ];
    Some((news, lates))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn prefixes() -> Prefixes {
        Prefixes {
            image: Some(b"image".to_vec()),
            video: Some(b"video".to_vec()),
            news: Some(b"news".to_vec()),
            xhtml: Some(b"xhtml".to_vec()),
            scope: RootScope::default(),
        }
    }

    fn typed(text: &str) -> Option<(Vec<ImageSpans>, Media)> {
        let (images, media) = plain_extensions(
            text.as_bytes(),
            (0, text.len()),
            (&prefixes(), &mut SpareMedia::default()),
            1 << 20,
        )?;
        // made only for what is not an image, and then holding something
        assert_eq!(
            media.as_ref().map(|m| m.any()),
            media.as_ref().map(|_| true)
        );
        Some((images, media.map(|m| *m).unwrap_or_default()))
    }

    const VIDEO: &str = "<video:video><video:thumbnail_loc>https://a.test/t.jpg</video:thumbnail_loc><video:title>A &amp; B</video:title><video:description><![CDATA[ line one\nline <two> ]]></video:description><video:content_loc>https://a.test/v.mp4?a&amp;b</video:content_loc><video:duration>600</video:duration><video:rating>4.25</video:rating><video:view_count>12</video:view_count><video:publication_date>2024-05-06T10:00:00+01:00</video:publication_date><video:tag>a</video:tag><video:tag> b </video:tag><video:family_friendly>YES</video:family_friendly><video:live>no</video:live></video:video>";
    const NEWS: &str = "<news:news><news:publication><news:name>Example News</news:name><news:language>EN</news:language></news:publication><news:access>subscription</news:access><news:genres>Blog, opinion</news:genres><news:publication_date>2024-05-06</news:publication_date><news:title>Story</news:title><news:keywords>a, b ,,c</news:keywords><news:stock_tickers>NASDAQ:A</news:stock_tickers></news:news>";

    #[test]
    fn a_spare_box_emptied_types_as_a_new_one() {
        // every kind in a box (raw elements, links, news before videos: an order kept),
        // emptied as a scan keeps it (`records::Spares`), then filled again
        let prefixes = Prefixes {
            scope: RootScope {
                bindings: vec![(b"o".to_vec(), "urn:o".into())],
                levels: 3,
                ..RootScope::default()
            },
            ..prefixes()
        };
        let link = r#"<xhtml:link rel="alternate" hreflang="de" href="https://a.test/de"/>"#;
        let image = "<image:image><image:loc>https://a.test/i</image:loc></image:image>";
        let texts = [
            format!("{NEWS}<o:r>1</o:r><o:r>&amp;</o:r>{link}{link}{VIDEO}{VIDEO}{image}"),
            format!("{image}{VIDEO}"),
            "<o:r>2</o:r>".to_string(),
            link.to_string(),
            format!("{VIDEO}{NEWS}{image}"),
        ];
        let typed_with = |text: &str, spare: &mut SpareMedia| {
            let span = (0, text.len());
            plain_extensions(text.as_bytes(), span, (&prefixes, spare), 1 << 20)
        };
        let mut kept = None;
        for (i, text) in texts.iter().enumerate() {
            let new = typed_with(text, &mut SpareMedia::default());
            assert!(new.as_ref().is_some_and(|(_, m)| m.is_some()), "{i}");
            let mut spare = SpareMedia {
                boxes: kept.take().into_iter().collect(),
                raw_name: None,
            };
            let again = typed_with(text, &mut spare);
            assert_eq!(again, new, "{i}");
            assert!(spare.boxes.is_empty() || i == 0, "{i}: the spare box taken");
            // this one's box, emptied, for the next text
            let mut media = again.and_then(|(_, m)| m).unwrap();
            media.clear();
            assert_eq!(*media, Media::default());
            kept = Some(media);
        }
    }

    #[test]
    fn plain_videos_and_news_are_typed() {
        let text = format!(
            "\n<image:image><image:loc>https://a.test/i</image:loc></image:image>{VIDEO}\n{NEWS}\n"
        );
        let (images, media) = typed(&text).unwrap();
        assert_eq!(images.len(), 1);
        let v = &media.videos[0];
        assert_eq!(v.title, "A & B");
        assert_eq!(v.description, "line one\nline <two>");
        assert_eq!(v.content_loc.as_deref(), Some("https://a.test/v.mp4?a&b"));
        assert_eq!(
            (v.duration, v.rating, v.view_count),
            (Some(600), Some(4.25), Some(12))
        );
        assert_eq!(v.tags, ["a", "b"]);
        assert_eq!((v.family_friendly, v.live), (Some(true), Some(false)));
        let n = &media.news[0];
        assert_eq!(
            (n.language.as_str(), n.access),
            ("en", Some("Subscription"))
        );
        assert_eq!(n.genres, ["Blog", "Opinion"]);
        assert_eq!(n.keywords, ["a", "b", "c"]);
    }

    #[test]
    fn children_out_of_the_schemas_order_are_typed_and_noted() {
        let (_, ordered) = typed(&format!("{VIDEO}{NEWS}")).unwrap();
        assert!(ordered.lates.is_empty());
        let title = "<video:title>A &amp; B</video:title>";
        let thumbnail = "<video:thumbnail_loc>https://a.test/t.jpg</video:thumbnail_loc>";
        let date = "<news:publication_date>2024-05-06</news:publication_date>";
        let (name, language) = (
            "<news:name>Example News</news:name>",
            "<news:language>EN</news:language>",
        );
        // (the video, the news article, the lates' kinds and places)
        let cases = [
            // the title first: the thumbnail (place 0) comes after it (1)
            (
                VIDEO.replace(thumbnail, "").replace(title, &format!("{title}{thumbnail}")),
                NEWS.to_owned(),
                vec![(LATE_VIDEO, 0, 1)],
            ),
            // a tag after the category comes after it; tags in a row do not
            (
                VIDEO.replace(
                    "<video:family_friendly>",
                    "<video:category>c</video:category><video:tag>z</video:tag><video:family_friendly>",
                ),
                NEWS.replace(date, "").replace(
                    "<news:keywords>",
                    &format!("{date}<news:keywords>"),
                ),
                vec![(LATE_VIDEO, 11, 12), (LATE_NEWS, 3, 4)],
            ),
            // the news article's order first, then its publication's
            (
                VIDEO.to_owned(),
                NEWS.replace(&format!("{name}{language}"), &format!("{language}{name}"))
                    .replace("<news:publication>", "<news:title>Story</news:title><news:publication>")
                    .replacen("</news:publication_date><news:title>Story</news:title>", "</news:publication_date>", 1),
                vec![(LATE_NEWS, 0, 4), (LATE_PUBLICATION, 0, 1)],
            ),
        ];
        for (video, news, expected) in cases {
            let text = format!("{video}\n{news}");
            let (_, media) = typed(&text).unwrap_or_else(|| panic!("{text}"));
            let (at_video, at_news) = (0, video.len() + 1);
            let lates: Vec<_> = media
                .lates
                .iter()
                .map(|l| (l.at, l.kind, l.child, l.after))
                .collect();
            let expected: Vec<_> = expected
                .into_iter()
                .map(|(kind, child, after)| {
                    let at = if kind == LATE_VIDEO {
                        at_video
                    } else {
                        at_news
                    };
                    (at, kind, child, after)
                })
                .collect();
            assert_eq!(lates, expected, "{text}");
            // the same values as the schema's order gives, the tags in document order
            let v = &media.videos[0];
            assert_eq!(
                (v.title.as_str(), v.thumbnail_loc.as_str()),
                ("A & B", "https://a.test/t.jpg")
            );
            assert_eq!(&media.news[0].title, "Story");
            assert_eq!(media.news[0].publication_name, "Example News");
        }
        // a child twice (tags excepted) is left to the extension readers
        assert_eq!(
            typed(&VIDEO.replace(title, &format!("{title}{title}"))),
            None
        );
        assert_eq!(typed(&NEWS.replace(name, &format!("{name}{name}"))), None);
    }

    #[test]
    fn anything_else_is_left_to_the_extension_readers() {
        let swaps = [
            ("<video:title>A &amp; B</video:title>", ""),
            ("<video:video>", "<video:video id=\"1\">"),
            ("<video:duration>600", "<video:duration>0"),
            ("<video:duration>600", "<video:duration>28801"),
            ("<video:rating>4.25", "<video:rating>5.5"),
            ("<video:rating>4.25", "<video:rating>1e0"),
            ("<video:live>no", "<video:live>maybe"),
            (
                "<video:content_loc>https://a.test/v.mp4?a&amp;b</video:content_loc>",
                "",
            ),
            ("<video:tag>a</video:tag>", "<video:tag> </video:tag>"),
            (
                "<video:live>no</video:live>",
                "<video:live>no</video:live><video:id>1</video:id>",
            ),
            ("<video:rating>4.25</video:rating>", ""),
        ];
        for (from, to) in swaps {
            let text = VIDEO.replace(from, to);
            let expected = from == "<video:rating>4.25</video:rating>";
            assert_eq!(typed(&text).is_some(), expected, "{text}");
        }
        for (from, to) in [
            ("<news:language>EN", "<news:language>en-US"),
            ("<news:language>EN", "<news:language>xx"),
            ("<news:genres>Blog", "<news:genres>Gossip"),
            ("<news:access>subscription", "<news:access>free"),
            ("NASDAQ:A", "NASDAQ"),
            ("<news:title>Story</news:title>", ""),
            (
                "<news:title>Story</news:title>",
                "<news:title> </news:title>",
            ),
            (
                "<news:publication_date>2024-05-06",
                "<news:publication_date> 2024-05-06",
            ),
        ] {
            let text = NEWS.replace(from, to);
            assert_eq!(typed(&text), None, "{text}");
        }
        assert_eq!(typed(" "), None);
    }

    #[test]
    fn another_order_than_the_jsons_is_kept() {
        let image = "<image:image><image:loc>https://a.test/i</image:loc></image:image>";
        let link = r#"<xhtml:link rel="alternate" hreflang="de" href="https://a.test/de"/>"#;
        let (_, media) = typed(&format!("{VIDEO}{VIDEO}{NEWS}{NEWS}{link}")).unwrap();
        assert_eq!(media.order, None);
        let (images, media) = typed(&format!("{link}\n{NEWS}{image}{VIDEO}")).unwrap();
        assert_eq!(images.len(), 1);
        assert_eq!(
            media.order,
            Some(vec![super::LINK, super::NEWS, super::IMAGE, super::VIDEO])
        );
        let (images, media) = typed(&format!("{image}{image}{VIDEO}{image}{link}")).unwrap();
        assert_eq!((images.len(), media.videos.len()), (3, 1));
        assert_eq!(
            media.order,
            Some(vec![
                super::IMAGE,
                super::IMAGE,
                super::VIDEO,
                super::IMAGE,
                super::LINK
            ])
        );
    }

    #[test]
    fn plain_links_and_their_codes() {
        let link = |code: &str, href: &str| {
            format!("<xhtml:link rel=\"alternate\"\n hreflang=\"{code}\" href=\"{href}\" />")
        };
        let code = |written: &str| {
            let (_, media) = typed(&link(written, "https://a.test/x?a&amp;b"))?;
            assert_eq!(media.links[0].href, "https://a.test/x?a&b");
            Some(media.links[0].hreflang.clone())
        };
        for (written, canonical) in [
            ("de", "de"),
            ("EN-gb", "en-GB"),
            ("zh-hant-tw", "zh-Hant-TW"),
            ("es-419", "es-419"),
            ("X-Default", "x-default"),
            ("fil", "fil"),
        ] {
            assert_eq!(code(written).as_deref(), Some(canonical), "{written}");
        }
        for odd in [
            "xx",
            "en-UK",
            "en_GB",
            " de",
            "de-",
            "en-GB-x",
            "e",
            "zh-Hant-1",
        ] {
            assert_eq!(code(odd), None, "{odd}");
        }
        // every way writers write one link: attributes in any order and either quote, an
        // end tag, spaces around '=' and before '/>'
        for written in [
            r#"<xhtml:link hreflang="de" rel="alternate" href="https://a.test/de"/>"#,
            r#"<xhtml:link rel="alternate" href="https://a.test/de" hreflang="de" />"#,
            r#"<xhtml:link href="https://a.test/de" hreflang="de" rel="Alternate"/>"#,
            r#"<xhtml:link rel="alternate" hreflang="de" href="https://a.test/de"></xhtml:link>"#,
            "<xhtml:link rel='alternate' hreflang='de' href='https://a.test/de'>\n </xhtml:link>",
            "<xhtml:link\trel = \"alternate\"\nhreflang='de'  href=\"https://a.test/de\"/>",
        ] {
            let (_, media) = typed(written).unwrap_or_else(|| panic!("{written}"));
            assert_eq!(
                media.links,
                [Alternate {
                    hreflang: "de".into(),
                    href: "https://a.test/de".into()
                }],
                "{written}"
            );
        }
        for odd in [
            r#"<xhtml:link rel="alternate" hreflang="de" href=" https://a.test/de"/>"#,
            r#"<xhtml:link rel="canonical" hreflang="de" href="https://a.test/de"/>"#,
            r#"<xhtml:link rel="alternate" hreflang="de" href="https://a.test/de" media="x"/>"#,
            r#"<xhtml:link rel="alternate" hreflang="de" href="https://a.test/de" href="https://a.test/e"/>"#,
            r#"<xhtml:link rel="alternate" rel="alternate" hreflang="de" href="https://a.test/de"/>"#,
            r#"<xhtml:link rel="alternate" href="https://a.test/de"/>"#,
            r#"<xhtml:link hreflang="de" href="https://a.test/de"/>"#,
            r#"<xhtml:link rel="alternate"hreflang="de" href="https://a.test/de"/>"#,
            r#"<xhtml:link rel="alternate" hreflang="de" href="https://a.test/de'/>"#,
            r#"<xhtml:link rel="alternate" hreflang="de" href="https://a.test/de">x</xhtml:link>"#,
            r#"<xhtml:link rel="alternate" hreflang="de" href="https://a.test/de"></xhtml:lnk>"#,
            r#"<xhtml:link rel="alternate" hreflang="de" xml:lang="de" href="https://a.test/de"/>"#,
        ] {
            assert_eq!(typed(odd), None, "{odd}");
        }
    }
}
