//! check's loc-text pass on any bytes: it never panics; every text it flags is one the
//! pattern `loc>([^<]*)</` finds (Python's `finditer`, left to right), at its line and
//! column (in bytes, from 1); its verdicts are those of the rules as the module states them,
//! worked out here the plain way; and the document cut into windows right after entries'
//! end tags (as `windows_of` cuts it, its lines carried as `positions.Lines` does) gives
//! what the whole gives. The first byte sets the limit (and whether the rest are bytes or
//! pieces to build a document of), the second which end tags the windows are cut after.
#![no_main]

use libfuzzer_sys::fuzz_target;
use urlset_core::check::loc_texts::{loc_texts, Flagged, JUDGE, NON_ASCII, TOO_LONG};

/// The end tags a window is cut after (Python's `positions._CUTS`, of which check's
/// `scan._ENDS` is a part).
const CUTS: [&[u8]; 4] = [b"</url>", b"</sitemap>", b"</item>", b"</entry>"];

/// What loc texts and their surroundings are made of: tags (a loc's, an image's, the end
/// tags windows are cut after, a truncated one, CDATA), URI bytes, the two entities and the
/// others, a raw `&`, spaces of every kind, controls, bytes a URI forbids, non-ASCII
/// characters, a byte that is not UTF-8, line ends.
const PIECES: [&[u8]; 32] = [
    b"<url><loc>",
    b"</loc></url>",
    b"<image:loc>",
    b"</image:loc>",
    b"</sitemap>",
    b"loc>",
    b"</",
    b"<",
    b"<![CDATA[",
    b"]]>",
    b"https://a.test/",
    b"p",
    b"%C3%A9",
    b"&amp;",
    b"&apos;",
    b"&quot;",
    b"&lt;",
    b"&#39;",
    b"&",
    b"amp;",
    b"apos;",
    "é".as_bytes(),
    "日本".as_bytes(),
    b" ",
    b"\t",
    b"\x1c",
    "\u{a0}".as_bytes(),
    "\u{3000}".as_bytes(),
    b"{",
    b"\xc3",
    b"\xff",
    b"\n",
];

fuzz_target!(|data: &[u8]| {
    let Some((&mode, rest)) = data.split_first() else {
        return;
    };
    let Some((&cut_bits, doc)) = rest.split_first() else {
        return;
    };
    // mode bit 0x40: the bytes pick the pieces a document is made of (a byte each), so that
    // the pieces meet in every order without libFuzzer having to find their spellings
    let built: Vec<u8>;
    let doc = if mode & 0x40 == 0 {
        doc
    } else {
        built = doc
            .iter()
            .flat_map(|&b| PIECES[usize::from(b) % PIECES.len()].iter().copied())
            .collect();
        &built
    };
    // small limits make TOO_LONG and the bytes-but-not-characters case reachable
    let longest = if mode & 0x80 == 0 {
        usize::from(mode & 0x3f)
    } else {
        2048
    };
    let whole = loc_texts(doc, longest, 1, 0, &[]);
    assert_eq!(whole.newlines, count(doc, b'\n') as u64);
    assert_eq!(whole.last_newline, doc.iter().rposition(|&b| b == b'\n'));
    let expected = plain_flagged(doc, longest);
    assert_eq!(whole.flagged, expected);
    for f in &whole.flagged {
        // on char boundaries: the text is whole between the tags, so a UTF-8 text decodes
        assert!(doc[f.start - 4..f.start] == *b"loc>" && doc[f.end..f.end + 2] == *b"</");
    }
    // a foreign prefix's elements passed over: the others flagged as before, in order
    let kept = loc_texts(doc, longest, 1, 0, &[b"o"]).flagged;
    let mut rest = whole.flagged.iter();
    for f in &kept {
        assert!(rest.any(|w| w == f));
    }
    for f in whole.flagged.iter().filter(|w| !kept.contains(w)) {
        assert!(in_start_tag_of(&doc[..f.start - 4], b"o"));
    }

    // the same document in windows, cut after some of its entries' end tags
    let mut cuts: Vec<usize> = CUTS.iter().flat_map(|tag| ends_of(doc, tag)).collect();
    cuts.sort_unstable();
    cuts.dedup();
    let chosen: Vec<usize> = cuts
        .into_iter()
        .enumerate()
        .filter(|(k, _)| cut_bits == 0xff || (cut_bits >> (k % 8)) & 1 == 1)
        .map(|(_, at)| at)
        .collect();
    let (mut base, mut lines, mut last_nl) = (0usize, 1u64, None::<usize>);
    let mut windowed = Vec::new();
    for end in chosen.into_iter().chain([doc.len()]) {
        if end <= base {
            continue;
        }
        let window = &doc[base..end];
        let carry = match last_nl {
            Some(nl) => base - nl - 1,
            None => base,
        } as u64;
        let s = loc_texts(window, longest, lines, carry, &[]);
        windowed.extend(s.flagged.into_iter().map(|f| Flagged {
            start: f.start + base,
            end: f.end + base,
            ..f
        }));
        lines += s.newlines;
        if let Some(nl) = s.last_newline {
            last_nl = Some(base + nl);
        }
        base = end;
    }
    assert_eq!(windowed, expected);
    assert_eq!(lines, 1 + whole.newlines);
});

fn count(text: &[u8], byte: u8) -> usize {
    text.iter().filter(|&&b| b == byte).count()
}

/// Whether `before` ends inside the name of a start tag of `prefix` (`<o:` then a name
/// part: `<o:loc>`, `<o:content_loc>`, `<o:a:loc>`), the name at most 128 bytes long.
fn in_start_tag_of(before: &[u8], prefix: &[u8]) -> bool {
    let Some(lt) = before.iter().rposition(|&b| b == b'<') else {
        return false;
    };
    let name = &before[lt + 1..];
    name.len() <= 128
        && name.starts_with(prefix)
        && name.get(prefix.len()) == Some(&b':')
        && !name.iter().any(|b| b"/> \t\n\r".contains(b))
}

/// The offsets just after each occurrence of `tag`.
fn ends_of<'a>(doc: &'a [u8], tag: &'a [u8]) -> impl Iterator<Item = usize> + 'a {
    doc.windows(tag.len())
        .enumerate()
        .filter(move |(_, w)| *w == tag)
        .map(move |(k, _)| k + tag.len())
}

/// The flagged texts of `doc`, found and judged byte by byte.
fn plain_flagged(doc: &[u8], longest: usize) -> Vec<Flagged> {
    let mut out = Vec::new();
    let mut pos = 0;
    // lines counted up to `counted`: its line, and the offset after the last line end
    let (mut counted, mut line, mut line_start) = (0, 1u64, 0);
    while pos + 4 <= doc.len() {
        if doc[pos..pos + 4] != *b"loc>" {
            pos += 1;
            continue;
        }
        let start = pos + 4;
        let end = doc[start..]
            .iter()
            .position(|&b| b == b'<')
            .map(|k| start + k);
        match end {
            Some(end) if doc.get(end + 1) == Some(&b'/') => {
                let flags = plain_verdict(&doc[start..end], longest);
                if flags != 0 {
                    for (k, &b) in doc[counted..start].iter().enumerate() {
                        if b == b'\n' {
                            line += 1;
                            line_start = counted + k + 1;
                        }
                    }
                    counted = start;
                    out.push(Flagged {
                        start,
                        end,
                        line,
                        column: (start - line_start + 1) as u64,
                        flags,
                    });
                }
                pos = end + 2;
            }
            _ => pos += 1,
        }
    }
    out
}

/// A URI byte as written: printable ASCII but what RFC 3986 never allows and `&`.
fn uri_byte(b: u8) -> bool {
    (0x21..0x7f).contains(&b) && !b"&`^{}|\\\"".contains(&b)
}

fn occurrences(text: &[u8], what: &[u8]) -> usize {
    text.windows(what.len()).filter(|w| *w == what).count()
}

/// The module's contract on one text: 0 when it needs no closer look (URI bytes and the
/// two entities only, no longer than the limit in characters), JUDGE when anything but URI
/// bytes, those entities and non-ASCII characters that are no spaces is in it, else
/// NON_ASCII and TOO_LONG as they hold.
fn plain_verdict(text: &[u8], longest: usize) -> u8 {
    let (amp, apos) = (occurrences(text, b"&amp;"), occurrences(text, b"&apos;"));
    // the two entities start with different bytes after '&': no two overlap
    let raw_amp = count(text, b'&') != amp + apos;
    let Ok(decoded) = std::str::from_utf8(text) else {
        return JUDGE;
    };
    let odd_ascii = text.iter().any(|&b| b < 0x80 && b != b'&' && !uri_byte(b));
    // Rust's White_Space beyond ASCII is Python's str.isspace beyond ASCII
    if raw_amp || odd_ascii || decoded.chars().any(|c| !c.is_ascii() && c.is_whitespace()) {
        return JUDGE;
    }
    let mut flags = 0;
    if !text.is_ascii() {
        flags |= NON_ASCII;
    }
    if decoded.chars().count() - 4 * amp - 5 * apos > longest {
        flags |= TOO_LONG;
    }
    flags
}
