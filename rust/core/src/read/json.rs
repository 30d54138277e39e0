//! JSON text as Python's `json.dumps(..., ensure_ascii=False, separators=(",", ":"))` writes
//! it, for what the reader's output holds beyond the core fields: a record's plain images, as
//! `extensions.json_fields` gives them (urlset.reading.output, urlset.reading.arrow).

use std::io::Write;

use super::images::ImageSpans;
use super::media::{Media, News, Video};
use super::raw::{Raw, RawJson, Xml};
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
    media_json(data, media, first, out);
}

fn media_json(data: &[u8], media: &Media, mut first: bool, out: &mut Vec<u8>) {
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
            raw_json(data, raw, out);
        }
        out.push(b']');
    }
}

/// `{"namespace":...,"name":...,"xml":...}` of an element of another namespace (`data`: the
/// text it was read from). What its name gives, the keys and the start tag of the simplest
/// form, and that form's end, is written once a name (`ElementName::json`) and copied after.
fn raw_json(data: &[u8], raw: &Raw, out: &mut Vec<u8>) {
    let e = &raw.element;
    let made = e.json.get_or_init(|| {
        let mut head = Vec::with_capacity(2 * (e.namespace.len() + e.open.len()) + 32);
        let mut o = Object::new(&mut head);
        o.text("namespace", &e.namespace);
        o.text("name", &e.name);
        o.key("xml").push(b'"');
        let keys = head.len();
        json_string(e.open.as_bytes(), &mut head);
        head.push(b'>');
        // a qname is ASCII name characters: nothing JSON escapes
        let end = format!("</{}>\"}}", e.qname).into_bytes();
        RawJson { head, keys, end }
    });
    // JSON escapes byte by byte: the xml's parts escape as it does whole
    match raw.xml {
        Xml::Text(a, b) if a == b => {
            out.extend_from_slice(&made.head[..made.head.len() - 1]);
            out.extend_from_slice(b"/>\"}");
        }
        Xml::Text(a, b) => {
            out.extend_from_slice(&made.head);
            json_string(&data[a..b], out);
            out.extend_from_slice(&made.end);
        }
        Xml::Written(ref xml) => {
            out.extend_from_slice(&made.head[..made.keys]);
            json_string(xml.as_bytes(), out);
            out.extend_from_slice(b"\"}");
        }
    }
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
    use super::super::raw::ElementName;
    use super::*;
    use std::sync::Arc;

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
    fn raw_elements_write_as_their_fields_do() {
        let name = |namespace: &str, qname: &str| {
            let (prefix, name) = qname.split_once(':').unwrap_or(("", qname));
            let colon = if prefix.is_empty() { "" } else { ":" };
            Arc::new(ElementName {
                namespace: namespace.to_owned(),
                name: name.to_owned(),
                qname: qname.to_owned(),
                open: format!("<{qname} xmlns{colon}{prefix}=\"{namespace}\""),
                json: std::sync::OnceLock::new(),
            })
        };
        // a name JSON escapes, and one it does not; each written more than once (its JSON
        // made the first time), in both forms
        let (odd, plain) = (name("urn:\\x\"", "p:r"), name("urn:y", "s"));
        let data = "1\n\t\"\\\u{e9}";
        for element in [&odd, &plain, &odd, &plain] {
            for xml in [
                Xml::Text(0, data.len()),
                Xml::Text(0, 1),
                Xml::Text(2, 2),
                Xml::Written(format!("{} a=\"&quot;\">\"</p:r>", element.open)),
                Xml::Written("no tag".to_owned()),
            ] {
                let raw = Raw {
                    element: Arc::clone(element),
                    xml,
                };
                let (mut got, mut want) = (Vec::new(), Vec::new());
                raw_json(data.as_bytes(), &raw, &mut got);
                let mut o = Object::new(&mut want);
                o.text("namespace", &element.namespace);
                o.text("name", &element.name);
                o.text("xml", &raw.xml(data.as_bytes()));
                o.close();
                assert_eq!(String::from_utf8(got), String::from_utf8(want));
            }
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
