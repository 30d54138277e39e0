//! Runs of plain `<image:image>` elements after a urlset entry's core values, typed by the
//! compiled scanner so that an image sitemap's entries stay in the scanner's runs instead of
//! stopping it once per entry (see src/urlset/reading/xml_compiled.py).
//!
//! Plain is what the image extension's readers type without dropping anything: images
//! (the prefix the root binds to the image namespace) with XML whitespace between and around
//! them, each `<p:image>`, `<p:loc>` then optionally `<p:caption>`, `<p:geo_location>`,
//! `<p:title>` once each, in any order (Shopify and WordPress plugins write the title first:
//! an image out of the schema's order says so in [`ImageSpans::late`], for the reader's
//! `extension-order`), no attributes, comments or license; the loc a plain loc as the reader
//! takes an entry's loc ([`plain_loc`]); the other texts, the five predefined entities
//! replaced ([`super::values::value_text`]) or one CDATA section taken as it is, printable
//! ([`printable`]) and within the value-length limit. Anything else is left to the extension
//! readers as before.

use super::printable::printable;
use super::records::{Span, CDATA_END};
use super::values::value_str;
use crate::values::loc::plain_loc;

/// Where one plain image's values are in the scanned text.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ImageSpans {
    /// The loc text as written (its entities still escaped when `has_entity`).
    pub loc: Span,
    pub has_entity: bool,
    /// caption, geo_location, title: the text (entities replaced) without surrounding
    /// spaces; None when the element is absent or holds only spaces (as the image
    /// extension's readers give them).
    pub texts: [Option<String>; 3],
    /// The first child out of the schema's order, when one is.
    pub late: Option<Late>,
}

/// A child of an extension element that comes after one the schema puts after it: the
/// element's start tag (a byte offset), its kind ([`LATE_IMAGE`] ...), and the two children's
/// places in the schema's order (for an image loc 0, caption 1, geo_location 2, title 3,
/// license 4: as src/urlset/extensions/image.py, video.py and news.py number them): the
/// child's and that of the latest-placed child before it.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Late {
    pub at: usize,
    pub kind: u8,
    pub child: u8,
    pub after: u8,
}

/// The kinds of [`Late`]: an image's children, a video's, a news article's, and those of a
/// news article's publication (the reader notes a news article's before its publication's).
pub const LATE_IMAGE: u8 = 0;
pub const LATE_VIDEO: u8 = 1;
pub const LATE_NEWS: u8 = 2;
pub const LATE_PUBLICATION: u8 = 3;

const CHILDREN: [&[u8]; 3] = [b"caption", b"geo_location", b"title"];

fn is_space(b: u8) -> bool {
    matches!(b, b' ' | b'\t' | b'\r' | b'\n')
}

/// A cursor over `text[..end]` that matches tags with one prefix.
pub(crate) struct Tags<'a> {
    pub(crate) text: &'a [u8],
    pub(crate) pos: usize,
    pub(crate) end: usize,
    pub(crate) prefix: &'a [u8],
}

impl Tags<'_> {
    pub(crate) fn spaces(&mut self) {
        while self.pos < self.end && is_space(self.text[self.pos]) {
            self.pos += 1;
        }
    }

    /// `<p:name>` (`close`: `</p:name>`) at the cursor: moves past it.
    pub(crate) fn tag(&mut self, name: &[u8], close: bool) -> bool {
        let rest = &self.text[self.pos..self.end];
        let opener: &[u8] = if close { b"</" } else { b"<" };
        let (p, n) = (opener.len(), self.prefix.len());
        let len = p + n + 2 + name.len();
        // the single bytes first: most tags tried and not there fail on one of them
        let found = rest.len() >= len
            && rest[len - 1] == b'>'
            && rest[p + n] == b':'
            && rest[p - 1] == opener[p - 1]
            && rest[0] == b'<'
            && rest[p..p + n] == *self.prefix
            && rest[p + n + 1..len - 1] == *name;
        if found {
            self.pos += len;
        }
        found
    }

    /// A CDATA section, then `</p:name>`: the section's content; the cursor is past the tag.
    /// None (the cursor unmoved) when the text is not one section alone.
    pub(crate) fn cdata_then_close(&mut self, name: &[u8]) -> Option<Span> {
        const OPEN: &[u8] = b"<![CDATA[";
        let start = self.pos + OPEN.len();
        if !self.text[self.pos..self.end].starts_with(OPEN) {
            return None;
        }
        let len = CDATA_END.find(&self.text[start..self.end])?;
        let was = self.pos;
        self.pos = start + len + 3;
        if self.tag(name, true) {
            Some((start, start + len))
        } else {
            self.pos = was;
            None
        }
    }

    /// A CDATA section that reads as the same text would (`records::literal_cdata`), then
    /// `</p:name>`: the section's content; the cursor is past the tag. None (the cursor
    /// unmoved) otherwise.
    pub(crate) fn literal_cdata_then_close(&mut self, name: &[u8]) -> Option<Span> {
        let (a, b, after) = super::records::literal_cdata(&self.text[self.pos..self.end])?;
        let was = self.pos;
        self.pos += after;
        if self.tag(name, true) {
            Some((was + a, was + b))
        } else {
            self.pos = was;
            None
        }
    }

    /// The text up to the next '<', then `</p:name>`: its span; the cursor is past the tag.
    pub(crate) fn text_then_close(&mut self, name: &[u8]) -> Option<Span> {
        let start = self.pos;
        let len = memchr::memchr(b'<', &self.text[start..self.end])?;
        self.pos = start + len;
        self.tag(name, true).then_some((start, start + len))
    }
}

/// The content of a CDATA section that is a caption's, geo_location's or title's whole text
/// (as WordPress plugins write them), taken as it is: printable, spaces around it dropped.
fn cdata_text(text: &[u8], (start, end): Span, max_value: usize) -> Option<Option<String>> {
    let raw = &text[start..end];
    let value = std::str::from_utf8(raw)
        .ok()
        .filter(|_| raw.len() <= max_value)?;
    kept(value)
}

/// A printable text without the spaces around it (None when nothing else is left), the one
/// text made for it; None when a character is not printable.
fn kept(value: &str) -> Option<Option<String>> {
    if !value.chars().all(printable) {
        return None;
    }
    let trimmed = value.trim_matches(' ');
    Some((!trimmed.is_empty()).then(|| trimmed.to_owned()))
}

/// A caption, geo_location or title text as the image extension's readers type it, or None
/// to leave the images to them: entities replaced, printable, spaces around it dropped (all
/// spaces: absent, `Some(None)`).
fn plain_text(text: &[u8], (start, end): Span, max_value: usize) -> Option<Option<String>> {
    kept(&value_str(&text[start..end], max_value)?)
}

/// The plain images of `text[start..end]` (all of it: one image at least, whitespace around
/// them) with image prefix `prefix`, or None when anything there is not plain.
pub fn plain_images(
    text: &[u8],
    (start, end): Span,
    prefix: &[u8],
    max_value: usize,
) -> Option<Vec<ImageSpans>> {
    let mut t = Tags {
        text,
        pos: start,
        end,
        prefix,
    };
    let mut images = Vec::new();
    t.spaces();
    while t.pos < end {
        if !(t.tag(b"image", false)) {
            return None;
        }
        images.push(image_at(&mut t, max_value)?);
    }
    (!images.is_empty()).then_some(images)
}

/// The plain image whose start tag the cursor has just passed; the cursor then stands past
/// the whitespace after its end tag. None when it is not plain.
pub(crate) fn image_at(t: &mut Tags<'_>, max_value: usize) -> Option<ImageSpans> {
    let text = t.text;
    // the start tag, just passed: `<p:image>`
    let at = t.pos - (t.prefix.len() + 8);
    t.spaces();
    if !t.tag(b"loc", false) {
        return None;
    }
    let loc = match t.literal_cdata_then_close(b"loc") {
        Some(span) => span,
        None => t.text_then_close(b"loc")?,
    };
    let plain = plain_loc(&text[loc.0..loc.1])?;
    t.spaces();
    let mut texts: [Option<String>; 3] = Default::default();
    let (mut met, mut after, mut late) = (0u8, 0u8, None);
    // the schema's order tried first: one pass over the children for most images
    let mut next = 0;
    while met != 0b111 {
        let Some(i) = (next..3)
            .chain(0..next)
            .find(|&i| met & (1 << i) == 0 && t.tag(CHILDREN[i], false))
        else {
            break;
        };
        let name = CHILDREN[i];
        texts[i] = match t.cdata_then_close(name) {
            Some(span) => cdata_text(text, span, max_value)?,
            None => plain_text(text, t.text_then_close(name)?, max_value)?,
        };
        t.spaces();
        met |= 1 << i;
        let place = i as u8 + 1;
        if place < after {
            late = late.or(Some(Late {
                at,
                kind: LATE_IMAGE,
                child: place,
                after,
            }));
        } else {
            after = place;
        }
        next = i + 1;
    }
    if !t.tag(b"image", true) {
        return None; // a child twice, or anything else: the extension readers say what
    }
    t.spaces();
    Some(ImageSpans {
        loc,
        has_entity: plain.has_entity,
        texts,
        late,
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    fn images(text: &str) -> Option<Vec<ImageSpans>> {
        plain_images(text.as_bytes(), (0, text.len()), b"image", 1 << 20)
    }

    fn at(text: &str, s: Span) -> &str {
        &text[s.0..s.1]
    }

    #[test]
    fn runs_of_plain_images() {
        let text = "\n  <image:image>\n <image:loc>https://a.test/i?a&amp;b</image:loc><image:caption>  A &lt;cap&gt; </image:caption><image:title> </image:title></image:image><image:image><image:loc>https://a.test/j</image:loc><image:geo_location>Caf\u{e9} \u{2013} \u{201c}Paris\u{201d}</image:geo_location></image:image>\n";
        let found = images(text).unwrap();
        assert_eq!(found.len(), 2);
        assert_eq!(at(text, found[0].loc), "https://a.test/i?a&amp;b");
        assert!(found[0].has_entity && !found[1].has_entity);
        // references as WordPress writes them, read as their characters
        let refs = "<image:image><image:loc>https://a.test/i?a&#038;b</image:loc><image:caption>it&#8217;s &#38; more</image:caption></image:image>";
        let with_refs = images(refs).unwrap();
        assert!(with_refs[0].has_entity);
        assert_eq!(with_refs[0].texts[0].as_deref(), Some("it\u{2019}s & more"));
        assert_eq!(found[0].texts[0].as_deref(), Some("A <cap>"));
        assert_eq!(found[0].texts[1], None);
        assert_eq!(found[0].texts[2], None); // only spaces
        let cdata = "<image:image><image:loc>https://a.test/i</image:loc><image:caption><![CDATA[ a <b> &amp; c ]]></image:caption><image:title><![CDATA[]]></image:title></image:image>";
        let sections = images(cdata).unwrap();
        assert_eq!(sections[0].texts[0].as_deref(), Some("a <b> &amp; c"));
        assert_eq!(sections[0].texts[2], None);
        assert_eq!(
            found[1].texts[1].as_deref(),
            Some("Caf\u{e9} \u{2013} \u{201c}Paris\u{201d}")
        );
    }

    #[test]
    fn children_out_of_the_schemas_order_are_typed_and_noted() {
        // (children as written, the texts typed, the first child out of order and the one
        // it comes after, by their places: caption 1, geo_location 2, title 3)
        type Case<'a> = (&'a str, [Option<&'a str>; 3], Option<(u8, u8)>);
        let cases: [Case<'_>; 7] = [
            (
                "<i:title>t</i:title><i:caption>c</i:caption>",
                [Some("c"), None, Some("t")],
                Some((1, 3)),
            ),
            (
                "<i:geo_location>g</i:geo_location><i:caption><![CDATA[c & d]]></i:caption>",
                [Some("c & d"), Some("g"), None],
                Some((1, 2)),
            ),
            (
                "<i:title>t</i:title><i:geo_location>g</i:geo_location><i:caption></i:caption>",
                [None, Some("g"), Some("t")],
                Some((2, 3)),
            ),
            (
                "<i:caption>c</i:caption><i:title>t</i:title><i:geo_location>g</i:geo_location>",
                [Some("c"), Some("g"), Some("t")],
                Some((2, 3)),
            ),
            (
                "<i:caption>c</i:caption><i:geo_location>g</i:geo_location><i:title>t</i:title>",
                [Some("c"), Some("g"), Some("t")],
                None,
            ),
            (
                "<i:caption>c</i:caption><i:title>t</i:title>",
                [Some("c"), None, Some("t")],
                None,
            ),
            ("", [None, None, None], None),
        ];
        for (children, texts, late) in cases {
            let text = format!(
                "<i:image><i:loc>https://a.test/1</i:loc></i:image>\n<i:image><i:loc>https://a.test/2</i:loc>{children}</i:image>"
            );
            let found = plain_images(text.as_bytes(), (0, text.len()), b"i", 1 << 20).unwrap();
            assert_eq!(found[0].late, None, "{children}");
            let image = &found[1];
            assert_eq!(
                image.texts.each_ref().map(|t| t.as_deref()),
                texts,
                "{children}"
            );
            let start = text.rfind("<i:image>").unwrap();
            assert_eq!(
                image.late.map(|l| (l.at, l.kind, l.child, l.after)),
                late.map(|(child, after)| (start, LATE_IMAGE, child, after)),
                "{children}"
            );
        }
    }

    #[test]
    fn anything_else_is_left_to_the_extension_readers() {
        for odd in [
            "",
            " \n ",
            "<image:image><image:loc>https://a.test/i</image:loc></image:image>x",
            "<image:image ><image:loc>https://a.test/i</image:loc></image:image>",
            "<img:image><img:loc>https://a.test/i</img:loc></img:image>",
            "<image:image><image:loc>https://A.test/i</image:loc></image:image>",
            "<image:image><image:loc>https://a.test/caf\u{e9}</image:loc></image:image>",
            "<image:image><image:loc> https://a.test/i</image:loc></image:image>",
            "<image:image><image:loc>https://a.test/&#105;</image:loc></image:image>",
            "<image:image><image:loc>https://a.test/i</image:loc><image:license>https://a.test/l</image:license></image:image>",
            "<image:image><image:loc>https://a.test/i</image:loc><image:title>t</image:title><image:title>t</image:title></image:image>",
            "<image:image><image:title>t</image:title><image:loc>https://a.test/i</image:loc></image:image>",
            "<image:image><image:loc>https://a.test/i</image:loc><image:caption>a &#9; b</image:caption></image:image>",
            "<image:image><image:loc>https://a.test/i</image:loc><image:caption>a & b</image:caption></image:image>",
            "<image:image><image:loc>https://a.test/i</image:loc><image:caption>nbsp\u{a0}</image:caption></image:image>",
            "<image:image><image:loc>https://a.test/i</image:loc><image:caption>soft\u{ad}hyphen</image:caption></image:image>",
            "<image:image><image:loc>https://a.test/i</image:loc><image:caption>\u{2028}</image:caption></image:image>",
            "<image:image><image:loc>https://a.test/i</image:loc><image:caption>a\tb</image:caption></image:image>",
            "<image:image><image:loc>https://a.test/i</image:loc><image:caption>\u{E000}</image:caption></image:image>",
            "<image:image><image:loc>https://a.test/i</image:loc><!-- c --></image:image>",
            "<image:image><image:loc>https://a.test/i</image:loc><image:title><![CDATA[a]]>b</image:title></image:image>",
            "<image:image><image:loc>https://a.test/i</image:loc><image:title><![CDATA[a\nb]]></image:title></image:image>",
            "<image:image><image:loc>https://a.test/i</image:loc><image:title><![CDATA[a]]></image:image>",
            "<image:image><image:loc><![CDATA[https://a.test/i?a&b]]></image:loc></image:image>",
            "<image:image><image:loc><![CDATA[https://a.test/i]]> </image:loc></image:image>",
            "<image:image><image:loc>https://a.test/i</image:loc></image:image><xhtml:link rel=\"alternate\" hreflang=\"de\" href=\"https://a.test/de\"/>",
            "<image:image><image:loc>https://a.test/i</image:loc>",
            "<image:image></image:image>",
        ] {
            assert_eq!(images(odd), None, "{odd}");
        }
        let long = "<image:image><image:loc>https://a.test/i</image:loc><image:title>0123456789</image:title></image:image>";
        assert!(plain_images(long.as_bytes(), (0, long.len()), b"image", 10).is_some());
        assert!(plain_images(long.as_bytes(), (0, long.len()), b"image", 9).is_none());
    }
}
