//! The loc texts of an XML sitemap as written, judged a window at a time (Python's
//! `checking/raw_text.py` names the findings): every text of an element named `loc`,
//! prefixed or not (`image:loc` too), as the pattern `loc>([^<]*)</` finds them.
//!
//! A text is flagged when it holds a byte a URI never holds as written, beyond `&amp;` and
//! `&apos;` (the protocol's escaping of `&` and `'`), or is longer than the limit in bytes.
//! Of the flagged texts, the usual ones (an IRI: non-ASCII characters that are no spaces,
//! the rest URI bytes) get their verdicts here ([`NON_ASCII`], [`TOO_LONG`]); any other
//! (spaces, control characters, other entities or a raw `&`, characters a URI forbids, bytes
//! that are not UTF-8) is marked [`JUDGE`], for the Python rules to judge whole.
use memchr::{memchr, memchr_iter, memmem};

/// The text holds characters beyond ASCII (check's `normalized-url`).
pub const NON_ASCII: u8 = 1;
/// The text, its entities decoded, is longer than the limit in characters (`url-too-long`).
pub const TOO_LONG: u8 = 2;
/// The text needs the Python rules (its verdicts are not given here).
pub const JUDGE: u8 = 4;

/// A flagged loc text: its bytes `start..end` in the window, its line and column (of the
/// text's first byte, from 1), what was found ([`NON_ASCII`], [`TOO_LONG`], [`JUDGE`]). A text
/// longer than the limit in bytes only, not in characters, is not flagged.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Flagged {
    pub start: usize,
    pub end: usize,
    pub line: u64,
    pub column: u64,
    pub flags: u8,
}

/// The flagged loc texts of a window, and what the next window's lines and columns start
/// from: its line end count and the offset of its last line end.
#[derive(Debug, Default)]
pub struct Scanned {
    pub flagged: Vec<Flagged>,
    pub newlines: u64,
    pub last_newline: Option<usize>,
}

/// The bytes a URI holds as written (Python's `_URI_BYTES`): printable ASCII but the ones
/// RFC 3986 never allows and `&`.
const fn uri_bytes() -> [bool; 256] {
    let mut table = [false; 256];
    let mut b = 0x21;
    while b < 0x7f {
        table[b] = !matches!(
            b as u8,
            b'&' | b'`' | b'^' | b'{' | b'}' | b'|' | b'\\' | b'"'
        );
        b += 1;
    }
    table
}

const URI_BYTE: [bool; 256] = uri_bytes();

/// The flagged loc texts of `window` (cut after an entry's end tag: no text is split);
/// `line` is the line the window starts on, `carry` the column of its first byte minus one
/// (what the line it starts in held before it). An element whose prefix is one of `foreign`
/// (the root's prefixes of namespaces whose `loc` is no URL a search engine reads:
/// `<other:loc>`) is passed over.
pub fn loc_texts(
    window: &[u8],
    longest: usize,
    line: u64,
    carry: u64,
    foreign: &[&[u8]],
) -> Scanned {
    let mut out = Scanned::default();
    let finder = memmem::Finder::new(b"loc>");
    let mut pos = 0;
    let mut counted = 0; // the lines below are counted up to here
    let mut line = line;
    let mut line_start: Option<usize> = None; // just after the last line end before `counted`
    while let Some(found) = finder.find(&window[pos..]) {
        if !foreign.is_empty() && foreign.contains(&prefix_before(window, pos + found)) {
            // on from its text's end, as from a loc's (no "loc>" in it starts a text)
            let text_start = pos + found + 4;
            pos = memchr(b'<', &window[text_start..]).map_or(window.len(), |k| text_start + k);
            continue;
        }
        let text_start = pos + found + 4;
        // [^<]* then "</": else no match starts at this "loc>"
        let Some(lt) = memchr(b'<', &window[text_start..]).map(|k| text_start + k) else {
            break;
        };
        if window.get(lt + 1) != Some(&b'/') {
            // no "loc>" before this '<' matches either (its text would end here too): on
            // from it, so that a run of "loc>" costs one pass, not one per "loc>"
            pos = lt + 1;
            continue;
        }
        let text = &window[text_start..lt];
        pos = lt + 2;
        let flags = match judged(text, longest) {
            None | Some(0) => continue,
            Some(flags) => flags,
        };
        for nl in memchr_iter(b'\n', &window[counted..text_start]) {
            line += 1;
            line_start = Some(counted + nl + 1);
        }
        counted = text_start;
        let column = match line_start {
            Some(begins) => (text_start - begins + 1) as u64,
            None => text_start as u64 + carry + 1,
        };
        out.flagged.push(Flagged {
            start: text_start,
            end: lt,
            line,
            column,
            flags,
        });
    }
    out.newlines = memchr_iter(b'\n', window).count() as u64;
    out.last_newline = memchr::memrchr(b'\n', window);
    out
}

/// The prefix of the start tag whose name ends just before `at` (`<p:loc>`: `p`); empty for
/// an unprefixed name, an end tag or a name longer than any prefix is written.
fn prefix_before(window: &[u8], at: usize) -> &[u8] {
    const LONGEST_NAME: usize = 128;
    let from = at.saturating_sub(LONGEST_NAME);
    let Some(lt) = memchr::memrchr(b'<', &window[from..at]).map(|k| from + k) else {
        return b"";
    };
    let name = &window[lt + 1..at];
    match memchr(b':', name) {
        Some(colon)
            if !name
                .iter()
                .any(|b| matches!(b, b'/' | b'>' | b' ' | b'\t' | b'\n' | b'\r')) =>
        {
            &name[..colon]
        }
        _ => b"",
    }
}

/// None for a text that needs no closer look (URI bytes, `&amp;` and `&apos;` only, no longer
/// than the limit), else its flags.
fn judged(text: &[u8], longest: usize) -> Option<u8> {
    if text.len() <= longest && text.iter().all(|&b| URI_BYTE[b as usize]) {
        return None;
    }
    let (amp, apos) = entity_counts(text);
    if text.len() <= longest && !suspect_beyond_entities(text, amp, apos) {
        return None;
    }
    Some(verdicts(text, longest, amp, apos))
}

/// Whether a byte worth a closer look (not a URI byte) is in `text` beyond its `amp`
/// `&amp;` and `apos` `&apos;`: a `&` that starts neither counts. (Taking the entities out
/// first, as Python's `bytes.replace` did, hid a raw `&` that the removal joined into an
/// entity: `&&amp;apos;`.) The two never overlap: they differ in the byte after `&`.
fn suspect_beyond_entities(text: &[u8], amp: usize, apos: usize) -> bool {
    let mut ampersands = 0;
    for &b in text {
        if b == b'&' {
            ampersands += 1;
        } else if !URI_BYTE[b as usize] {
            return true;
        }
    }
    ampersands != amp + apos
}

/// How many `&amp;` and `&apos;` `text` holds, found at its `&`s (a text without one, as an
/// IRI's, costs one `memchr`: no substring searcher is built per text).
fn entity_counts(text: &[u8]) -> (usize, usize) {
    let (mut amp, mut apos) = (0, 0);
    for at in memchr_iter(b'&', text) {
        let rest = &text[at..];
        if rest.starts_with(b"&amp;") {
            amp += 1;
        } else if rest.starts_with(b"&apos;") {
            apos += 1;
        }
    }
    (amp, apos)
}

/// The verdicts on a flagged text: [`NON_ASCII`] and [`TOO_LONG`] for a text of URI bytes,
/// `&amp;`, `&apos;` and non-ASCII characters that are no spaces; [`JUDGE`] for any other.
fn verdicts(text: &[u8], longest: usize, amp: usize, apos: usize) -> u8 {
    let Ok(decoded) = std::str::from_utf8(text) else {
        return JUDGE;
    };
    // every '&' starts one of the two entities (else a raw '&' or another entity)
    if memchr_iter(b'&', text).count() != amp + apos {
        return JUDGE;
    }
    let mut flags = 0;
    let mut chars = 0;
    for c in decoded.chars() {
        chars += 1;
        if c.is_ascii() {
            if c != '&' && !URI_BYTE[c as usize] {
                return JUDGE; // a space, a control character, a character a URI forbids
            }
        } else if python_space(c) {
            return JUDGE; // stripped, or a space inside: Python's rules decide
        } else {
            flags |= NON_ASCII;
        }
    }
    // the text as the rules measure it: each entity one character
    if chars - 4 * amp - 5 * apos > longest {
        flags |= TOO_LONG;
    }
    flags
}

/// Whether a loc text as the reader reads it (stripped, the five entities replaced by their
/// characters: `read::values::value_text`) holds nothing the loc-text rules find beyond
/// what the reader says of it (its `normalized-url`, when it is made a URI): URI bytes, `&`
/// (an `&amp;` as written: a raw one is no text the reader takes), characters beyond ASCII
/// but spaces, at most `longest` characters. Its text as written then gives none of
/// [`JUDGE`]'s findings nor [`TOO_LONG`] (`&lt;` and `&gt;` are marked [`JUDGE`], and the
/// rules find nothing in them), so that check need not read it again.
pub fn read_iri_only(text: &str, longest: usize) -> bool {
    let mut chars = 0;
    for c in text.chars() {
        chars += 1;
        let fine = if c.is_ascii() {
            c == '&' || URI_BYTE[c as usize]
        } else {
            !python_space(c)
        };
        if !fine {
            return false;
        }
    }
    chars <= longest
}

/// The characters beyond ASCII that Python's `str.isspace` (and `\s`) take for spaces.
fn python_space(c: char) -> bool {
    matches!(
        c,
        '\u{85}' | '\u{a0}' | '\u{1680}' | '\u{2000}'
            ..='\u{200a}' | '\u{2028}' | '\u{2029}' | '\u{202f}' | '\u{205f}' | '\u{3000}'
    )
}

#[cfg(test)]
mod tests {
    use super::*;

    fn flags(window: &str, longest: usize) -> Vec<(u64, u64, u8)> {
        let s = loc_texts(window.as_bytes(), longest, 1, 0, &[]);
        s.flagged
            .iter()
            .map(|f| (f.line, f.column, f.flags))
            .collect()
    }

    #[test]
    fn a_text_read_as_an_iri_only_holds_nothing_else() {
        for fine in [
            "https://a.test/café/€",
            "https://a.test/?a=1&b='2'",
            "https://a.test/<>",
        ] {
            assert!(read_iri_only(fine, 40), "{fine}");
        }
        for odd in [
            "https://a.test/a b",
            "https://a.test/é\u{a0}",
            "https://a.test/\"",
            "https://a.test/{x}",
            "https://a.test/\t",
            "https://a.test/ééééééééééééééééééééééééééééé",
        ] {
            assert!(!read_iri_only(odd, 40), "{odd}");
        }
    }

    #[test]
    fn plain_texts_and_the_two_entities_are_not_flagged() {
        let doc = "<url><loc>https://a.test/?a=1&amp;b=it&apos;s</loc></url>\n";
        assert!(flags(doc, 2048).is_empty());
    }

    #[test]
    fn an_iri_is_non_ascii_at_its_line_and_column() {
        let doc = "<urlset>\n<url>\n  <loc>https://a.test/caf\u{e9}</loc></url>\n<url><image:image><image:loc>https://a.test/\u{fc}</image:loc></image:image></url>";
        assert_eq!(
            flags(doc, 2048),
            vec![(3, 8, NON_ASCII), (4, 30, NON_ASCII)]
        );
    }

    #[test]
    fn what_python_judges_is_marked() {
        for text in [
            "https://a.test/a b",
            "https://a.test/a&b",
            "https://a.test/&lt;",
            "https://a.test/{",
            "https://a.test/\u{a0}\u{e9}",
        ] {
            let doc = format!("<loc>{text}</loc>");
            assert_eq!(flags(&doc, 2048), vec![(1, 6, JUDGE)], "{text}");
        }
        let bad = b"<loc>https://a.test/\xff</loc>";
        assert_eq!(loc_texts(bad, 2048, 1, 0, &[]).flagged[0].flags, JUDGE);
    }

    #[test]
    fn a_raw_ampersand_joined_into_an_entity_by_removal_is_judged() {
        // taking "&amp;" out of these leaves "&apos;": their raw '&' was missed
        for text in ["https://a.test/&&amp;apos;", "https://a.test/&ap&amp;os;x"] {
            let doc = format!("<loc>{text}</loc>");
            assert_eq!(flags(&doc, 2048), vec![(1, 6, JUDGE)], "{text}");
        }
    }

    #[test]
    fn a_run_of_unmatched_loc_tags_is_one_pass() {
        // each "loc>" used to search on to the same '<': quadratic (tens of seconds at this size)
        let mut doc = b"loc>".repeat(1 << 19);
        doc.extend_from_slice(b"<x><loc>https://a.test/\xc3\xa9</loc>");
        let started = std::time::Instant::now();
        let s = loc_texts(&doc, 2048, 1, 0, &[]);
        assert!(started.elapsed() < std::time::Duration::from_millis(500));
        assert_eq!(s.flagged.len(), 1);
        assert_eq!(s.flagged[0].start, (1 << 21) + 8);
    }

    #[test]
    fn entities_are_counted_at_their_ampersands() {
        assert_eq!(entity_counts(b"https://a.test/"), (0, 0));
        assert_eq!(entity_counts(b"a&amp;b&apos;c&amp;&apos;"), (2, 2));
        // each '&' starts one entity at most; a cut one or another is neither
        assert_eq!(entity_counts(b"&amp;apos; &&apos;amp; &lt; &amp"), (1, 1));
    }

    #[test]
    fn length_counts_characters_with_entities_as_one() {
        let doc = "<loc>https://a.test/&amp;\u{e9}</loc>";
        // 15 + 1 + 1 characters, 23 bytes
        assert_eq!(flags(doc, 17), vec![(1, 6, NON_ASCII)]);
        assert_eq!(flags(doc, 16), vec![(1, 6, NON_ASCII | TOO_LONG)]);
        let ascii = "<loc>https://a.test/&amp;</loc>";
        assert!(flags(ascii, 16).is_empty());
        assert_eq!(flags(ascii, 15), vec![(1, 6, TOO_LONG)]);
    }

    #[test]
    fn the_pattern_needs_an_end_tag_after_the_text() {
        let doc = "<loc><![CDATA[https://a.test/\u{e9}]]></loc><loc>https://a.test/\u{e9}</loc>";
        assert_eq!(flags(doc, 2048), vec![(1, 46, NON_ASCII)]);
    }

    #[test]
    fn columns_and_lines_carry_over_from_the_window_before() {
        let s = loc_texts("<loc>\u{e9}</loc>\n".as_bytes(), 2048, 7, 10, &[]);
        assert_eq!((s.flagged[0].line, s.flagged[0].column), (7, 16));
        assert_eq!((s.newlines, s.last_newline), (1, Some(13)));
    }

    #[test]
    fn a_loc_of_a_foreign_prefix_is_passed_over_and_no_other() {
        let doc =
            "<url><loc>https://a.test/\u{e9}</loc><other:loc>https://a.test/\u{e9}</other:loc>\
                   <image:image><image:loc>https://a.test/\u{e9}</image:loc></image:image>\
                   <other:x><loc>https://a.test/\u{e9}</loc></other:x></url>";
        let columns = |foreign: &[&[u8]]| -> Vec<u64> {
            let s = loc_texts(doc.as_bytes(), 2048, 1, 0, foreign);
            s.flagged.iter().map(|f| f.column).collect()
        };
        let every = columns(&[]);
        assert_eq!(every.len(), 4);
        let kept = columns(&[b"other", b"news"]);
        assert_eq!(kept, [every[0], every[2], every[3]]);
        assert_eq!(columns(&[b"image"]), [every[0], every[1], every[3]]);
        // any name of the prefix the pattern finds is passed over (a video's content_loc)
        let named = "<o:content_loc>https://a.test/\u{e9}</o:content_loc>";
        assert_eq!(
            loc_texts(named.as_bytes(), 2048, 1, 0, &[]).flagged.len(),
            1
        );
        assert!(loc_texts(named.as_bytes(), 2048, 1, 0, &[b"o"])
            .flagged
            .is_empty());
    }
}
