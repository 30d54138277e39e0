//! The image extension's values as a build takes them (`extensions/image.py` `Image`): the
//! shapes the core checks and writes itself. A value the Python class would change, report or
//! refuse (a loc that is no URI, a text with a control character or a character this module
//! does not know to be printable, more than 1,000 images) gives None here: the row then goes
//! the per-entry way, which explains it. What is taken is written byte for byte as
//! `Image.body` writes it.

use std::borrow::Cow;

use super::iri::iri_to_uri;
use super::loc::{plain_uri, MAX_LOC_LENGTH};
use crate::write::escape::escape_into;

/// "up to 1,000 images" per `<url>` (image.MAX_IMAGES_PER_URL): more is the Python rule's.
pub const MAX_IMAGES_PER_URL: usize = 1_000;

/// The image namespace, as the root or a `<url>` declares it.
pub const IMAGE_NS: &str = "http://www.google.com/schemas/sitemap-image/1.1";

/// The optional fields, in the order `Image.body` writes them.
pub const FIELDS: [&str; 4] = ["caption", "geo_location", "title", "license"];
/// The order `image_deprecated_fields` counts them in (its loop over each image).
const DEPRECATED_ORDER: [usize; 4] = [0, 2, 1, 3];

/// One `<image:image>`: its loc (a URI) and its optional fields (checked texts; the license a
/// URI), in [`FIELDS`] order.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Image {
    pub loc: String,
    pub fields: [Option<String>; 4],
}

/// An image's loc or license as `field_checks.required_uri` gives it: a plain URI as it is,
/// an IRI made the URI `urls.to_uri` gives; None for anything else (the Python check
/// explains it).
pub fn image_uri(text: &str) -> Option<Cow<'_, str>> {
    if plain_uri(text, MAX_LOC_LENGTH) {
        return Some(Cow::Borrowed(text));
    }
    let uri = iri_to_uri(text)?;
    plain_uri(&uri, MAX_LOC_LENGTH).then_some(Cow::Owned(uri))
}

/// What Python's `str.strip()` strips: Unicode white space and the separators \x1c-\x1f.
fn python_space(c: char) -> bool {
    c.is_whitespace() || ('\x1c'..='\x1f').contains(&c)
}

/// Whether Python's `str.isprintable()` certainly holds for `c` (a character of a stripped
/// text), for the scripts image texts are written in: ASCII but its controls, Latin-1's
/// letters and signs but its no-break space and soft hyphen, general punctuation but its
/// separators and format characters, and letters and digits of the blocks below U+D800 that
/// every Unicode since Python 3.11's (14.0) has had whole. Anything else: not known here.
fn printable(c: char) -> bool {
    match u32::from(c) {
        0x20..=0x7e => true,
        0xa1..=0xff => c != '\u{ad}',
        0x2010..=0x2027 | 0x2030..=0x205e => true,
        // Latin, Greek, Cyrillic, Armenian, Hebrew, Arabic; CJK, kana, Hangul syllables
        0x100..=0x6ff | 0x3040..=0x30ff | 0x4e00..=0x9fff | 0xac00..=0xd7a3 => c.is_alphanumeric(),
        _ => false,
    }
}

/// An optional text field as `field_checks.optional_text` gives it: `Some(None)` absent (blank),
/// `Some(Some(text))` stripped and printable; None when the Python check must judge it.
pub fn image_text(text: &str) -> Option<Option<String>> {
    let stripped = text.trim_matches(python_space);
    if stripped.is_empty() {
        return Some(None);
    }
    stripped
        .chars()
        .all(printable)
        .then(|| Some(stripped.to_string()))
}

/// A license as `field_checks.optional_uri` gives it.
pub fn image_license(text: &str) -> Option<Option<String>> {
    if text.trim_matches(python_space).is_empty() {
        return Some(None);
    }
    Some(Some(image_uri(text)?.into_owned()))
}

impl Image {
    /// The image of a loc and optional field texts (None: absent), checked as the Python
    /// class checks them; None when one needs the Python check.
    pub fn checked(loc: &str, fields: [Option<&str>; 4]) -> Option<Image> {
        let loc = image_uri(loc)?.into_owned();
        let mut out = Image {
            loc,
            fields: Default::default(),
        };
        for (index, value) in fields.into_iter().enumerate() {
            let Some(value) = value else { continue };
            out.fields[index] = if index == 3 {
                image_license(value)?
            } else {
                image_text(value)?
            };
        }
        Some(out)
    }

    /// The element as `Image.body` writes it (no declaration: the root or the `<url>` has it).
    pub fn write(&self, out: &mut Vec<u8>) {
        out.extend_from_slice(b"<image:image><image:loc>");
        escape_into(out, &self.loc);
        out.extend_from_slice(b"</image:loc>");
        for (name, value) in FIELDS.iter().zip(&self.fields) {
            let Some(value) = value else { continue };
            out.extend_from_slice(b"<image:");
            out.extend_from_slice(name.as_bytes());
            out.push(b'>');
            escape_into(out, value);
            out.extend_from_slice(b"</image:");
            out.extend_from_slice(name.as_bytes());
            out.push(b'>');
        }
        out.extend_from_slice(b"</image:image>");
    }
}

/// The fields `image.image_deprecated_fields` names for these images ("caption (2), title
/// (1)": each field in the order first met, image by image), or None when none is used.
pub fn deprecated_fields<'a>(images: impl IntoIterator<Item = &'a Image>) -> Option<String> {
    let mut counts: Vec<(usize, usize)> = Vec::new(); // (field, count) in the order first met
    for image in images {
        for field in DEPRECATED_ORDER {
            if image.fields[field].is_none() {
                continue;
            }
            match counts.iter_mut().find(|(f, _)| *f == field) {
                Some((_, count)) => *count += 1,
                None => counts.push((field, 1)),
            }
        }
    }
    if counts.is_empty() {
        return None;
    }
    // written out, not formatted: most entries of a shop's export name one field
    let mut text = String::with_capacity(24 * counts.len());
    for (at, &(field, count)) in counts.iter().enumerate() {
        if at > 0 {
            text.push_str(", ");
        }
        text.push_str(FIELDS[field]);
        text.push_str(" (");
        match u8::try_from(count) {
            Ok(digit @ 0..=9) => text.push(char::from(b'0' + digit)),
            _ => text.push_str(&count.to_string()),
        }
        text.push(')');
    }
    Some(text)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn body(image: &Image) -> String {
        let mut out = Vec::new();
        image.write(&mut out);
        String::from_utf8(out).unwrap()
    }

    #[test]
    fn an_image_is_written_as_the_python_class_writes_it() {
        let image = Image::checked(
            "https://x.org/a.jpg?b=1&c='d'",
            [Some(" A & B "), None, Some("Café <1>"), Some("")],
        )
        .unwrap();
        assert_eq!(
            body(&image),
            "<image:image><image:loc>https://x.org/a.jpg?b=1&amp;c=&apos;d&apos;</image:loc>\
             <image:caption>A &amp; B</image:caption><image:title>Café &lt;1&gt;</image:title>\
             </image:image>"
        );
        let iri = Image::checked("https://x.org/é.jpg", [None; 4]).unwrap();
        assert_eq!(iri.loc, "https://x.org/%C3%A9.jpg");
    }

    #[test]
    fn what_python_would_judge_is_left_to_it() {
        assert!(Image::checked("/a.jpg", [None; 4]).is_none());
        assert!(Image::checked(" https://x.org/a.jpg", [None; 4]).is_none());
        assert!(Image::checked("https://x.org/a", [Some("a\tb"), None, None, None]).is_none());
        assert!(Image::checked("https://x.org/a", [Some("a\u{a0}b"), None, None, None]).is_none());
        assert!(Image::checked("https://x.org/a", [None, None, None, Some("x")]).is_none());
        assert_eq!(image_text(" \u{3000} "), Some(None));
        assert_eq!(image_text("\u{1c}a\u{85}"), Some(Some("a".into())));
    }

    #[test]
    fn deprecated_fields_are_counted_in_the_order_met() {
        let with = |fields: [Option<&str>; 4]| Image::checked("https://x.org/a", fields).unwrap();
        let images = [
            with([None, None, Some("t"), None]),
            with([Some("c"), Some("g"), Some("t"), None]),
        ];
        assert_eq!(
            deprecated_fields(&images).as_deref(),
            Some("title (2), caption (1), geo_location (1)")
        );
        assert_eq!(deprecated_fields(&[with([None; 4])]), None);
        let many = vec![with([Some("c"), None, None, None]); 1234];
        assert_eq!(deprecated_fields(&many).as_deref(), Some("caption (1234)"));
    }
}
