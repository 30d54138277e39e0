//! JSON text as Python's `json.dumps(..., ensure_ascii=False, separators=(",", ":"))` writes
//! it, for what the reader's output holds beyond the core fields: a record's plain images, as
//! `extensions.json_fields` gives them (urlset.reading.output, urlset.reading.arrow).

use std::cell::RefCell;
use std::io::Write;
use std::sync::Arc;

use super::images::ImageSpans;
use super::media::{Media, News, Video};
use super::raw::Raw;
use super::records::{Record, Span};
use crate::values::lastmod::Lastmod;
use crate::values::loc::ENTITY_VALUES;

/// A plain loc text's value (each entity of `ENTITY_VALUES` read as its character) appended
/// to `out`.
pub fn plain_loc_value(data: &[u8], (a, b): Span, has_entity: bool, out: &mut Vec<u8>) {
    let mut rest = &data[a..b];
    if has_entity {
        // by '&' (memmem built a searcher a call, twice a loc); a plain loc holds no other
        while let Some(i) = memchr::memchr(b'&', rest) {
            out.extend_from_slice(&rest[..i]);
            let (len, value) = ENTITY_VALUES
                .iter()
                .find(|(e, _)| rest[i..].starts_with(e))
                .map_or((1, b'&'), |(e, value)| (e.len(), *value));
            out.push(value);
            rest = &rest[i + len..];
        }
    }
    out.extend_from_slice(rest);
}

/// The image fields by their JSON names, in the order `Image`'s fields have.
const IMAGE_FIELDS: [&[u8]; 3] = [b"caption", b"geo_location", b"title"];

/// `"images":[...]` as `json.dumps(json_fields(...), ensure_ascii=False)` writes a record's
/// plain images (absent fields left out).
pub fn images_json(data: &[u8], images: &[ImageSpans], out: &mut Vec<u8>) {
    out.extend_from_slice(b"\"images\":[");
    for (i, image) in images.iter().enumerate() {
        if i > 0 {
            out.push(b',');
        }
        out.extend_from_slice(b"{\"loc\":\"");
        let from = out.len();
        plain_loc_value(data, image.loc, image.has_entity, out);
        // a plain loc needs no JSON escape; checked all the same, it costs one pass
        if out[from..]
            .iter()
            .any(|&b| b < 0x20 || b == b'"' || b == b'\\')
        {
            let loc = out.split_off(from);
            json_string(&loc, out);
        }
        out.push(b'"');
        for (name, text) in IMAGE_FIELDS.iter().zip(&image.texts) {
            if let Some(text) = text {
                out.extend_from_slice(b",\"");
                out.extend_from_slice(name);
                out.extend_from_slice(b"\":\"");
                json_string(text.as_bytes(), out);
                out.push(b'"');
            }
        }
        out.push(b'}');
    }
    out.push(b']');
}

/// UTF-8 text as the inside of a JSON string, escaped as Python's `json.dumps` escapes it
/// with `ensure_ascii=False`: `"`, `\` and the C0 controls only.
pub fn json_string(text: &[u8], out: &mut Vec<u8>) {
    const HEX: &[u8; 16] = b"0123456789abcdef";
    // most texts need no escape: one pass, sixteen bytes a block (a fold over the whole
    // text stayed a byte at a time; a block's is vector code), then one copy
    let flags =
        |seen: u8, &b: &u8| seen | u8::from(b < 0x20) << 1 | u8::from(b == b'"' || b == b'\\');
    let mut blocks = text.chunks_exact(16);
    let mut seen = 0u8;
    for block in blocks.by_ref() {
        seen |= block.iter().fold(0u8, flags);
    }
    seen |= blocks.remainder().iter().fold(0u8, flags);
    let (controls, quotes) = (seen & 2 != 0, seen & 1 != 0);
    if !controls {
        // quotes only (an element's XML): from one to the next, found by memchr
        let mut start = 0;
        if quotes {
            for i in memchr::memchr2_iter(b'"', b'\\', text) {
                out.extend_from_slice(&text[start..i]);
                out.push(b'\\');
                start = i;
            }
        }
        out.extend_from_slice(&text[start..]);
        return;
    }
    let mut start = 0;
    for (i, &b) in text.iter().enumerate() {
        let escaped: &[u8] = match b {
            b'"' => b"\\\"",
            b'\\' => b"\\\\",
            b'\n' => b"\\n",
            b'\r' => b"\\r",
            b'\t' => b"\\t",
            0x08 => b"\\b",
            0x0c => b"\\f",
            0..=0x1f => &[],
            _ => continue,
        };
        out.extend_from_slice(&text[start..i]);
        if escaped.is_empty() {
            out.extend_from_slice(b"\\u00");
            out.push(HEX[usize::from(b >> 4)]);
            out.push(HEX[usize::from(b & 15)]);
        } else {
            out.extend_from_slice(escaped);
        }
        start = i + 1;
    }
    out.extend_from_slice(&text[start..]);
}

/// `{"images":[...],"videos":[...],"news":...}`: the extensions object of a record's typed
/// extensions (the JSON Lines output's keys, the CSV cell's and the Parquet and Arrow
/// column's text).
pub fn extensions_object(data: &[u8], r: &Record, out: &mut Vec<u8>) {
    out.push(b'{');
    extensions_json(data, r, out);
    out.push(b'}');
}

/// The keys `json.dumps(json_fields(...))` writes for a record's typed extensions, without
/// the braces: `images`, `videos`, `news` (an object for one article, else a list),
/// `alternates`, in
/// `registry.JSON_KEYS`' order; nothing for a record without any.
pub fn extensions_json(data: &[u8], r: &Record, out: &mut Vec<u8>) {
    let mut first = true;
    if let Some(images) = &r.images {
        images_json(data, images, out);
        first = false;
    }
    let Some(media) = &r.media else {
        return;
    };
    media_json(media, first, out);
}

fn media_json(media: &Media, mut first: bool, out: &mut Vec<u8>) {
    if !media.videos.is_empty() {
        if !first {
            out.push(b',');
        }
        first = false;
        out.extend_from_slice(b"\"videos\":[");
        for (i, video) in media.videos.iter().enumerate() {
            if i > 0 {
                out.push(b',');
            }
            video_json(video, out);
        }
        out.push(b']');
    }
    if !media.news.is_empty() {
        if !first {
            out.push(b',');
        }
        first = false;
        out.extend_from_slice(b"\"news\":");
        let many = media.news.len() > 1;
        if many {
            out.push(b'[');
        }
        for (i, news) in media.news.iter().enumerate() {
            if i > 0 {
                out.push(b',');
            }
            news_json(news, out);
        }
        if many {
            out.push(b']');
        }
    }
    if !media.links.is_empty() {
        if !first {
            out.push(b',');
        }
        first = false;
        out.extend_from_slice(b"\"alternates\":[");
        for (i, link) in media.links.iter().enumerate() {
            if i > 0 {
                out.push(b',');
            }
            let mut o = Object::new(out);
            o.text("hreflang", &link.hreflang);
            o.text("href", &link.href);
            o.close();
        }
        out.push(b']');
    }
    if !media.raws.is_empty() {
        if !first {
            out.push(b',');
        }
        out.extend_from_slice(b"\"extensions\":[");
        for (i, raw) in media.raws.iter().enumerate() {
            if i > 0 {
                out.push(b',');
            }
            raw_json(raw, out);
        }
        out.push(b']');
    }
}

/// The JSON of a raw element up to its xml's first `>` (`{"namespace":...,"name":...,
/// "xml":"<p:x xmlns:p=\"...\"`), and what it was made of: most entries repeat the element,
/// its shared namespace and name (`Raw`'s) and its start tag.
struct RawHead {
    /// Kept, so that no other string takes their addresses while they are compared by them.
    names: (Arc<str>, Arc<str>),
    start_tag: Vec<u8>,
    json: Vec<u8>,
}

thread_local! {
    static LAST_RAW_HEAD: RefCell<Option<RawHead>> = const { RefCell::new(None) };
}

/// `{"namespace":...,"name":...,"xml":...}` of an element of another namespace.
fn raw_json(raw: &Raw, out: &mut Vec<u8>) {
    let xml = raw.xml.as_bytes();
    // JSON escapes byte by byte (none of '>'): the xml's two parts escape as it does whole
    let (start_tag, rest) = xml.split_at(memchr::memchr(b'>', xml).unwrap_or(xml.len()));
    LAST_RAW_HEAD.with_borrow_mut(|last| {
        let same = last.as_ref().is_some_and(|h| {
            Arc::ptr_eq(&h.names.0, &raw.namespace)
                && Arc::ptr_eq(&h.names.1, &raw.name)
                && h.start_tag == start_tag
        });
        if !same {
            let mut json = Vec::with_capacity(2 * xml.len());
            let mut o = Object::new(&mut json);
            o.text("namespace", &raw.namespace);
            o.text("name", &raw.name);
            o.key("xml").push(b'"');
            json_string(start_tag, &mut json);
            *last = Some(RawHead {
                names: (Arc::clone(&raw.namespace), Arc::clone(&raw.name)),
                start_tag: start_tag.to_vec(),
                json,
            });
        }
        if let Some(head) = last.as_ref() {
            out.extend_from_slice(&head.json);
        }
    });
    json_string(rest, out);
    out.extend_from_slice(b"\"}");
}

/// The fields of one JSON object, each `"name":value` after a comma but the first.
struct Object<'a> {
    out: &'a mut Vec<u8>,
    first: bool,
}

impl<'a> Object<'a> {
    fn new(out: &'a mut Vec<u8>) -> Object<'a> {
        out.push(b'{');
        Object { out, first: true }
    }

    fn key(&mut self, name: &str) -> &mut Vec<u8> {
        if !self.first {
            self.out.push(b',');
        }
        self.first = false;
        self.out.push(b'"');
        self.out.extend_from_slice(name.as_bytes());
        self.out.extend_from_slice(b"\":");
        self.out
    }

    fn text(&mut self, name: &str, value: &str) {
        let out = self.key(name);
        out.push(b'"');
        json_string(value.as_bytes(), out);
        out.push(b'"');
    }

    fn optional_text(&mut self, name: &str, value: Option<&str>) {
        if let Some(value) = value {
            self.text(name, value);
        }
    }

    /// A number as Rust's `Display` writes it (as Python's `repr` writes an int), written in
    /// place: no text made for it first.
    fn number(&mut self, name: &str, value: Option<impl std::fmt::Display>) {
        if let Some(value) = value {
            // writing into a Vec cannot fail
            let _ = write!(self.key(name), "{value}");
        }
    }

    /// A float as Python's `repr` writes it (the shortest text that reads back, `.0` on a
    /// whole number): Rust's `Debug`.
    fn float(&mut self, name: &str, value: Option<f64>) {
        if let Some(value) = value {
            let _ = write!(self.key(name), "{value:?}");
        }
    }

    fn date(&mut self, name: &str, value: Option<&Lastmod>) {
        if let Some(value) = value {
            let out = self.key(name);
            out.push(b'"');
            value.write(out);
            out.push(b'"');
        }
    }

    fn list<S: AsRef<str>>(&mut self, name: &str, values: &[S]) {
        if values.is_empty() {
            return; // an empty tuple is left out, as None is
        }
        let out = self.key(name);
        out.push(b'[');
        for (i, value) in values.iter().enumerate() {
            if i > 0 {
                out.push(b',');
            }
            out.push(b'"');
            json_string(value.as_ref().as_bytes(), out);
            out.push(b'"');
        }
        out.push(b']');
    }

    fn flag(&mut self, name: &str, value: Option<bool>) {
        if let Some(value) = value {
            let text: &[u8] = if value { b"true" } else { b"false" };
            self.key(name).extend_from_slice(text);
        }
    }

    fn close(self) {
        self.out.push(b'}');
    }
}

/// A video as `registry.to_json` gives it: its fields in `Video`'s order, absent ones left
/// out (a rating as Python's `repr` writes the float: the scanner takes short decimals only).
fn video_json(v: &Video, out: &mut Vec<u8>) {
    let mut o = Object::new(out);
    o.text("thumbnail_loc", &v.thumbnail_loc);
    o.text("title", &v.title);
    o.text("description", &v.description);
    o.optional_text("content_loc", v.content_loc.as_deref());
    o.optional_text("player_loc", v.player_loc.as_deref());
    o.number("duration", v.duration);
    o.date("expiration_date", v.expiration_date.as_ref());
    o.float("rating", v.rating);
    o.number("view_count", v.view_count);
    o.date("publication_date", v.publication_date.as_ref());
    o.list("tags", &v.tags);
    o.optional_text("category", v.category.as_deref());
    o.flag("family_friendly", v.family_friendly);
    o.flag("requires_subscription", v.requires_subscription);
    o.optional_text("uploader", v.uploader.as_deref());
    o.flag("live", v.live);
    o.close();
}

/// A news article as `registry.to_json` gives it.
fn news_json(n: &News, out: &mut Vec<u8>) {
    let mut o = Object::new(out);
    o.text("publication_name", &n.publication_name);
    o.text("language", &n.language);
    o.date("publication_date", Some(&n.publication_date));
    o.text("title", &n.title);
    o.optional_text("access", n.access);
    o.list("genres", &n.genres);
    o.list("keywords", &n.keywords);
    o.list("stock_tickers", &n.stock_tickers);
    o.close();
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_locs_amp_entities_are_read_as_ampersands() {
        for (text, want) in [
            (
                &b"https://a.test/?x=1&amp;y=2&amp;&amp;z"[..],
                &b"https://a.test/?x=1&y=2&&z"[..],
            ),
            (b"https://a.test/&amp;", b"https://a.test/&"),
            (b"&amp;amp;", b"&amp;"),
            (b"a&b&amp;c", b"a&b&c"),
            (b"it&apos;s&amp;&apos;", b"it's&'"),
            (b"&amp;apos;", b"&apos;"),
        ] {
            let mut out = Vec::new();
            plain_loc_value(text, (0, text.len()), true, &mut out);
            assert_eq!(out, want);
        }
    }

    #[test]
    fn raw_elements_write_as_their_fields_do_whatever_came_before() {
        let raw = |namespace: &Arc<str>, name: &Arc<str>, xml: &str| Raw {
            namespace: Arc::clone(namespace),
            name: Arc::clone(name),
            xml: xml.to_owned(),
        };
        let (ns, other_ns): (Arc<str>, Arc<str>) = ("urn:\"x".into(), "urn:y".into());
        let (r, r_again, s): (Arc<str>, Arc<str>, Arc<str>) = ("r".into(), "r".into(), "s".into());
        // each after the one before it: the same strings, equal ones at other addresses,
        // another start tag, no '>' at all
        for raw in [
            raw(&ns, &r, "<p:r xmlns:p=\"urn:&quot;x\">1\n</p:r>"),
            raw(&ns, &r, "<p:r xmlns:p=\"urn:&quot;x\">2</p:r>"),
            raw(&ns, &r_again, "<p:r xmlns:p=\"urn:&quot;x\">3</p:r>"),
            raw(&ns, &r, "<p:r xmlns:p=\"urn:&quot;x\" a=\"\t\"/>"),
            raw(&other_ns, &r, "<p:r xmlns:p=\"urn:y\"/>"),
            raw(&ns, &s, "<p:s xmlns:p=\"urn:&quot;x\">4</p:s>"),
            raw(&ns, &s, "no tag"),
            raw(&ns, &s, "<p:s xmlns:p=\"urn:&quot;x\">4</p:s>"),
        ] {
            let (mut got, mut want) = (Vec::new(), Vec::new());
            raw_json(&raw, &mut got);
            let mut o = Object::new(&mut want);
            o.text("namespace", &raw.namespace);
            o.text("name", &raw.name);
            o.text("xml", &raw.xml);
            o.close();
            assert_eq!(String::from_utf8(got), String::from_utf8(want));
        }
    }

    #[test]
    fn json_strings_escape_as_python_json_does() {
        let mut out = Vec::new();
        json_string(
            "a\"b\\c\n\r\t\u{8}\u{c}\u{1}\u{1f}\u{7f}\u{e9}\u{2028}".as_bytes(),
            &mut out,
        );
        assert_eq!(
            String::from_utf8(out).unwrap(),
            "a\\\"b\\\\c\\n\\r\\t\\b\\f\\u0001\\u001f\u{7f}\u{e9}\u{2028}"
        );
    }
}
