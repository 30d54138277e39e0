//! A text sitemap's lines (one URL a line, sitemaps.org "Text file") in the render lane: the
//! lines whose URL needs no word from the reader are rendered as [`super::render`] renders a
//! urlset's record that has a loc only, or put in Arrow columns, so a large text sitemap
//! makes no Python object per URL (src/urlset/reading/text.py drives it).
//!
//! A line is taken when it is at most the value limit long, has no white space around it and
//! is a URI as written ([`plain_uri_origin`]) or one the core makes a URI of
//! ([`iri_to_uri`], reported by the reader as the careful path reports it); blank lines are
//! passed over as the reader passes them. A run stops at any other line, at one whose loc
//! `Seen` holds, and at one whose origin it does not know (saying which origin, so that the
//! reader judges it and the run goes on): the reader reads that line its own way.

use super::columns::Columns;
use super::records::{Converted, Record};
use super::render::{Conversion, Renderer, Seen};
use super::seen::{hash_of, WARMED};
use crate::values::iri::iri_to_uri;
use crate::values::iri::origin_len;
use crate::values::loc::{plain_uri_origin, MAX_LOC_LENGTH};

/// Where a run of lines stopped: `pos` (the start of the line it stopped at, or the end),
/// that line's number, how many lines it rendered, whether the core made any of their locs
/// a URI, and for a line it stopped at only because its origin is new, that origin and
/// whether its loc was made a URI.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct TextRun {
    pub pos: usize,
    pub line: u32,
    pub count: usize,
    pub made: bool,
    pub new_origin: Option<(String, bool)>,
}

/// The bytes Python's `bytes.strip()` takes away.
fn is_strip_space(b: u8) -> bool {
    matches!(b, b' ' | b'\t' | b'\n' | b'\r' | 0x0b | 0x0c)
}

/// The end of the line starting at `pos` (before its line break: LF, CR LF or CR) and where
/// the next line starts; a line without a break ends at `end`.
fn line_end(text: &[u8], pos: usize, end: usize) -> (usize, usize) {
    match memchr::memchr2(b'\n', b'\r', &text[pos..end]) {
        None => (end, end),
        Some(i) => {
            let at = pos + i;
            let crlf = text[at] == b'\r' && text.get(at + 1) == Some(&b'\n') && at + 1 < end;
            (at, at + 1 + usize::from(crlf))
        }
    }
}

/// The record of a line `text[a..b]` taken as it is (no white space around, at most
/// `max_value` bytes): its loc a URI as written or made one; None for the reader.
fn line_record(text: &[u8], (a, b): (usize, usize), line: u32, max_value: usize) -> Option<Record> {
    let raw = &text[a..b];
    if raw.len() > max_value {
        return None;
    }
    let (origin, uri) = match plain_uri_origin(raw, MAX_LOC_LENGTH) {
        Some(origin) => (origin, None),
        None => {
            let written = std::str::from_utf8(raw).ok()?;
            let uri = iri_to_uri(written)?;
            let converted = Converted {
                line,
                text: written.to_owned(),
                differs: uri != written,
                uri,
            };
            (origin_len(&converted.uri), Some(Box::new(converted)))
        }
    };
    Some(Record {
        line,
        loc: (a, b),
        origin_len: origin,
        uri,
        has_entity: false,
        lastmod: None,
        lastmod_value: None,
        noted: None,
        changefreq: None,
        priority: None,
        images: None,
        media: None,
        reordered: false,
    })
}

/// The lines of `text[pos..end]` (the first is line `line`) the core takes, at most
/// `max_records`, each given to `each` with its loc (the URI made of it, if any, noted in
/// `conversions` when it differs from the line); where the run stopped.
pub fn text_run(
    text: &[u8],
    (mut pos, end): (usize, usize),
    mut line: u32,
    (max_records, max_value): (usize, usize),
    seen: &mut Seen,
    conversions: &mut Vec<Conversion>,
    mut each: impl FnMut((&[u8], u64), &Record),
) -> TextRun {
    let (mut count, mut made) = (0, false);
    let stop = |pos, line, count, made, new_origin| TextRun {
        pos,
        line,
        count,
        made,
        new_origin,
    };
    let mut warmed_to = pos;
    while pos < end && count < max_records {
        if pos >= warmed_to {
            warmed_to = warm_lines(text, (pos, end), seen);
        }
        let (line_stop, next) = line_end(text, pos, end);
        let raw = &text[pos..line_stop];
        if raw.len() > max_value {
            return stop(pos, line, count, made, None); // reported by the reader
        }
        if raw.iter().all(|&b| is_strip_space(b)) {
            (pos, line) = (next, line + 1); // a blank line
            continue;
        }
        if is_strip_space(raw[0]) || is_strip_space(raw[raw.len() - 1]) {
            return stop(pos, line, count, made, None);
        }
        let Some(r) = line_record(text, (pos, line_stop), line, max_value) else {
            return stop(pos, line, count, made, None);
        };
        let loc: &[u8] = match &r.uri {
            Some(c) => c.uri.as_bytes(),
            None => raw,
        };
        let origin = &loc[..r.origin_len];
        if !seen.known(origin) {
            let origin = String::from_utf8_lossy(origin).into_owned();
            return stop(pos, line, count, made, Some((origin, r.uri.is_some())));
        }
        let hash = hash_of(loc);
        if !seen.first_seen_hash(hash) {
            return stop(pos, line, count, made, None); // a duplicate: the reader reports it
        }
        each((loc, hash), &r);
        // its strings move into the conversion, not copied
        if let Some(c) = r.uri {
            made = true;
            if c.uri != c.text {
                conversions.push((count, c.line, c.text, c.uri));
            }
        }
        count += 1;
        (pos, line) = (next, line + 1);
    }
    stop(pos, line, count, made, None)
}

/// Read in the duplicate set's slots of the next [`WARMED`] lines' hashes, each line taken
/// as its loc (a line the run converts or stops at only warms a slot for nothing); where
/// those lines end.
fn warm_lines(text: &[u8], (mut pos, end): (usize, usize), seen: &Seen) -> usize {
    let mut hashes = Vec::with_capacity(WARMED);
    while pos < end && hashes.len() < WARMED {
        let (line_stop, next) = line_end(text, pos, end);
        hashes.push(hash_of(&text[pos..line_stop]));
        pos = next;
    }
    seen.warm(&hashes);
    pos
}

/// [`text_run`] rendered as output text into `out`.
pub fn render_text_run(
    text: &[u8],
    span: (usize, usize),
    line: u32,
    limits: (usize, usize),
    renderer: &mut Renderer,
    seen: &mut Seen,
    (out, conversions): (&mut Vec<u8>, &mut Vec<Conversion>),
) -> TextRun {
    text_run(
        text,
        span,
        line,
        limits,
        seen,
        conversions,
        |(loc, _), r| {
            renderer.line(text, r, loc, out);
        },
    )
}

/// [`text_run`] into Arrow columns.
pub fn columns_text_run(
    text: &[u8],
    span: (usize, usize),
    line: u32,
    limits: (usize, usize),
    seen: &mut Seen,
    (columns, conversions): (&mut Columns, &mut Vec<Conversion>),
) -> TextRun {
    text_run(text, span, line, limits, seen, conversions, |loc, r| {
        columns.push_valued(text, r, loc);
    })
}

#[cfg(test)]
mod tests {
    use super::super::render::Format;
    use super::*;

    fn rendered(text: &[u8], format: Format, known: &[&[u8]]) -> (TextRun, String, usize) {
        let mut seen = Seen::default();
        for origin in known {
            seen.know(origin);
        }
        let mut renderer = Renderer::new(
            format,
            if format == Format::JsonLines {
                b"}\n"
            } else {
                b"\n"
            },
        );
        let (mut out, mut conversions) = (Vec::new(), Vec::new());
        let done = render_text_run(
            text,
            (0, text.len()),
            1,
            (usize::MAX, 1 << 20),
            &mut renderer,
            &mut seen,
            (&mut out, &mut conversions),
        );
        (done, String::from_utf8(out).unwrap(), conversions.len())
    }

    #[test]
    fn lines_render_as_a_urlset_record_with_a_loc() {
        let text = "https://e.com/a?b=1&c='2'\r\n\n \t\rhttps://e.com/caf\u{e9}\rhttps://e.com/z"
            .as_bytes();
        let (done, out, conversions) = rendered(text, Format::JsonLines, &[b"https://e.com/"]);
        assert_eq!(
            (done.count, done.pos, done.line, done.made),
            (3, text.len(), 6, true)
        );
        assert_eq!(conversions, 1);
        assert_eq!(
            out,
            "{\"loc\":\"https://e.com/a?b=1&c='2'\"}\n{\"loc\":\"https://e.com/caf%C3%A9\"}\n{\"loc\":\"https://e.com/z\"}\n"
        );
        let (_, csv, _) = rendered(text, Format::Csv, &[b"https://e.com/"]);
        assert!(csv.starts_with("https://e.com/a?b=1&c='2',,,,\n"));
    }

    #[test]
    fn runs_stop_at_what_the_reader_reads() {
        let e: &[&[u8]] = &[b"https://e.com/"];
        for (text, line) in [
            (&b"https://e.com/a\n https://e.com/b\n"[..], 2), // white space around
            (b"https://e.com/a\nhttps://e.com/a\n", 2),       // a duplicate
            (b"https://e.com/a\n\nnot a url\n", 3),
            (b"https://e.com/a\nhttps://e.com/\xff\n", 2), // not UTF-8
            (b"https://e.com/a\nhttps://e.com/\x00\n", 2),
        ] {
            let (done, _, _) = rendered(text, Format::Locs, e);
            assert_eq!((done.count, done.line, done.new_origin), (1, line, None));
            assert_eq!(
                done.pos,
                text.iter().position(|&b| b == b'\n').unwrap() + 1 + usize::from(line == 3)
            );
        }
        let (done, out, _) = rendered(b"https://e.com/a\nhttps://f.com:8080/b\n", Format::Locs, e);
        assert_eq!((done.count, out.as_str()), (1, "https://e.com/a\n"));
        assert_eq!(
            done.new_origin,
            Some(("https://f.com:8080/".to_owned(), false))
        );
        let (done, _, _) = rendered("https://G.com/\u{e9}\n".as_bytes(), Format::Locs, e);
        assert_eq!(done.new_origin, Some(("https://g.com/".to_owned(), true)));
    }

    #[test]
    fn long_lines_are_the_readers() {
        let mut seen = Seen::default();
        seen.know(b"https://e.com/");
        let text = b"https://e.com/aaaa\nhttps://e.com/b\n";
        let mut columns = Columns::default();
        let done = columns_text_run(
            text,
            (0, text.len()),
            1,
            (usize::MAX, 16),
            &mut seen,
            (&mut columns, &mut Vec::new()),
        );
        assert_eq!((done.count, done.pos, columns.len), (0, 0, 0));
        let done = columns_text_run(
            text,
            (19, text.len()),
            2,
            (usize::MAX, 16),
            &mut seen,
            (&mut columns, &mut Vec::new()),
        );
        assert_eq!((done.count, done.pos, columns.len), (1, text.len(), 1));
        assert_eq!(columns.loc.values, b"https://e.com/b");
    }
}
