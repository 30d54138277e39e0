//! The compiled lane's tokenizer for the body of a plain `<urlset>`: runs of canonical
//! `<url>` records become typed records with their line; anything else is handed back as a
//! stretch for the careful lane, up to and with the next `</url>`.
//!
//! A canonical record is `<url>`, then `<loc>`, `<lastmod>`, `<changefreq>`, `<priority>` in
//! protocol order (all but loc optional), no attributes, comments or entities but `&amp;` in
//! a loc, XML whitespace between elements, and values that need no correction
//! ([`super::values`]). A record whose core values are followed by an element with a prefix
//! comes back as [`Stop::Extension`], for the extension readers to type or hand on.

use super::values::{plain_changefreq, plain_lastmod, plain_loc, plain_priority};

/// Byte offsets `start..end` into the scanned buffer.
pub type Span = (usize, usize);

/// One canonical record: where its values are, what they mean, and its line.
#[derive(Debug, Clone, PartialEq)]
pub struct Record {
    /// The line of its `<url>` (1-based, counted in line feeds).
    pub line: u32,
    /// The loc text as written (`&amp;` still escaped when `has_amp`).
    pub loc: Span,
    /// Bytes of the loc's `scheme://authority/`.
    pub origin_len: usize,
    pub has_amp: bool,
    /// The lastmod text, a form Python's `fromisoformat` reads.
    pub lastmod: Option<Span>,
    /// An index into `values::CHANGEFREQS`.
    pub changefreq: Option<u8>,
    pub priority: Option<f64>,
}

/// Why a scan stopped.
#[derive(Debug, Clone, PartialEq)]
pub enum Stop {
    /// The end of the text given (or the record limit).
    End,
    /// A stretch the careful lane must read, from `start` to `end` (just after the next
    /// `</url>`, or the end of the text).
    Gap { start: usize, end: usize },
    /// A canonical record head followed by extension elements (`fragment`, up to the record's
    /// `</url>`, which ends at `end`).
    Extension {
        record: Record,
        start: usize,
        fragment: Span,
        end: usize,
    },
}

/// What one call of [`scan`] read.
#[derive(Debug, Clone, PartialEq)]
pub struct Scan {
    pub records: Vec<Record>,
    /// Where reading stopped: the end of the last record or whitespace read.
    pub pos: usize,
    /// The line at `pos`.
    pub line: u32,
    pub stop: Stop,
}

fn is_space(b: u8) -> bool {
    matches!(b, b' ' | b'\t' | b'\r' | b'\n')
}

/// A cursor over the text with the line it stands on.
struct Cursor<'a> {
    text: &'a [u8],
    pos: usize,
    line: u32,
}

impl Cursor<'_> {
    fn spaces(&mut self) {
        while let Some(&b) = self.text.get(self.pos) {
            if !is_space(b) {
                break;
            }
            if b == b'\n' {
                self.line += 1;
            }
            self.pos += 1;
        }
    }

    fn tag(&mut self, tag: &[u8]) -> bool {
        if self.text[self.pos..].starts_with(tag) {
            self.pos += tag.len();
            return true;
        }
        false
    }

    /// `<name>` text `</name>` then whitespace: the text's span; the cursor does not move
    /// when the element is not there or its text holds a '<' that is not its end tag.
    fn element(&mut self, open: &[u8], close: &[u8]) -> Option<Span> {
        if !self.text[self.pos..].starts_with(open) {
            return None;
        }
        let start = self.pos + open.len();
        let len = memchr_lt(&self.text[start..])?;
        let end = start + len;
        if !self.text[end..].starts_with(close) {
            return None;
        }
        self.pos = end + close.len();
        self.spaces();
        Some((start, end))
    }
}

fn memchr_lt(text: &[u8]) -> Option<usize> {
    text.iter().position(|&b| b == b'<')
}

fn find(text: &[u8], needle: &[u8], from: usize) -> Option<usize> {
    text.get(from..)?
        .windows(needle.len())
        .position(|w| w == needle)
        .map(|i| i + from)
}

/// What follows a record's core values: its end, extension elements, or anything else.
enum Tail {
    End,
    Extension,
    Other,
}

/// The canonical record at the cursor (which stands on `<url>`), or None; on None the cursor
/// is left anywhere (the caller keeps its own position).
fn record(c: &mut Cursor<'_>) -> Option<(Record, Tail)> {
    let line = c.line;
    c.pos += b"<url>".len();
    c.spaces();
    let loc = c.element(b"<loc>", b"</loc>")?;
    let plain = plain_loc(&c.text[loc.0..loc.1])?;
    let lastmod = match c.element(b"<lastmod>", b"</lastmod>") {
        Some(s) if plain_lastmod(&c.text[s.0..s.1]) => Some(s),
        Some(_) => return None,
        None => None,
    };
    let changefreq = match c.element(b"<changefreq>", b"</changefreq>") {
        Some(s) => Some(plain_changefreq(&c.text[s.0..s.1])?),
        None => None,
    };
    let priority = match c.element(b"<priority>", b"</priority>") {
        Some(s) => Some(plain_priority(&c.text[s.0..s.1])?),
        None => None,
    };
    let rec = Record {
        line,
        loc,
        origin_len: plain.origin_len,
        has_amp: plain.has_amp,
        lastmod,
        changefreq,
        priority,
    };
    let tail = if c.tag(b"</url>") {
        Tail::End
    } else if extension_start(&c.text[c.pos..]) {
        Tail::Extension
    } else {
        Tail::Other
    };
    Some((rec, tail))
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

/// Read `text[pos..end]` (which must end just after a `</url>`, or be whitespace) starting on
/// `line`, taking at most `max_records` records.
pub fn scan(text: &[u8], pos: usize, end: usize, line: u32, max_records: usize) -> Scan {
    let text = &text[..end];
    let mut c = Cursor { text, pos, line };
    let mut records = Vec::new();
    loop {
        c.spaces();
        if c.pos >= end || records.len() >= max_records {
            return Scan {
                records,
                pos: c.pos,
                line: c.line,
                stop: Stop::End,
            };
        }
        let (start, line) = (c.pos, c.line);
        let found = if c.text[start..].starts_with(b"<url>") {
            record(&mut c)
        } else {
            None
        };
        let piece_end = |from: usize| find(text, b"</url>", from).map_or(end, |i| i + 6);
        let stop = match found {
            Some((rec, Tail::End)) => {
                records.push(rec);
                continue;
            }
            Some((record, Tail::Extension)) => {
                let stop = piece_end(c.pos);
                if stop == end && !text.ends_with(b"</url>") || stop - 6 < c.pos {
                    Stop::Gap {
                        start,
                        end: piece_end(start),
                    }
                } else {
                    Stop::Extension {
                        record,
                        start,
                        fragment: (c.pos, stop - 6),
                        end: stop,
                    }
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

    fn scan_all(text: &str) -> Scan {
        scan(text.as_bytes(), 0, text.len(), 1, usize::MAX)
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
        assert!(b.has_amp && !a.has_amp);
        assert_eq!(b.origin_len, "https://a.test/".len());
        let lm = b.lastmod.unwrap();
        assert_eq!(&text[lm.0..lm.1], "2024-01-02");
        assert_eq!((b.changefreq, b.priority), (Some(2), Some(0.5)));
    }

    #[test]
    fn anything_else_is_a_gap_up_to_the_next_url_end() {
        let text = "<url><loc>https://a.test/x</loc></url> <!-- c --><url><loc>https://a.test/y</loc></url><url><loc>https://A.test/</loc></url>";
        let s = scan_all(text);
        assert_eq!(s.records.len(), 1);
        let start = text.find("<!--").unwrap();
        let end = text.find("/y</loc></url>").unwrap() + 14;
        assert_eq!(s.stop, Stop::Gap { start, end });
        assert_eq!(s.pos, start);
        let s2 = scan(text.as_bytes(), end, text.len(), 1, usize::MAX);
        assert_eq!(
            s2.stop,
            Stop::Gap {
                start: end,
                end: text.len()
            }
        );
        for odd in [
            "<url><loc>https://a.test/</loc><priority>2</priority></url>",
            "<url><lastmod>2024-01-01</lastmod><loc>https://a.test/</loc></url>",
            "<url ><loc>https://a.test/</loc></url>",
            "<url><loc>https://a.test/</loc><unknown/></url>",
            "<url><loc>https://a.test/</loc><lastmod>2024-02-30</lastmod></url>",
            "<url><loc>https://a.test/</loc><changefreq>Daily</changefreq></url>",
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
    fn the_record_limit_stops_reading() {
        let text = "<url><loc>https://a.test/x</loc></url><url><loc>https://a.test/y</loc></url>";
        let s = scan(text.as_bytes(), 0, text.len(), 1, 1);
        assert_eq!((s.records.len(), s.stop), (1, Stop::End));
        assert_eq!(s.pos, text.find("</url>").unwrap() + 6);
    }
}
