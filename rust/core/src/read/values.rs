//! The values of a canonical `<url>` record, checked as written: a text passes only when it is
//! already what the careful lane's rules (urls.to_uri, dates.parse_lenient, the changefreq and
//! priority rules) would give, so the record needs no correction and no report. The checks
//! themselves are the shared ones in [`crate::values`]; here is what only the reader needs.

use std::borrow::Cow;

use crate::values::bytes::{next_flagged, unplain_bits};
use crate::values::entities::reference_at;

/// A value's text as an XML parser gives it, its references replaced; None when the parser
/// must read it: longer than `max` bytes, not UTF-8, a reference `reference_at` does not read,
/// a character XML forbids, a carriage return (the parser rewrites line ends), or `]]>`.
pub fn value_text(raw: &[u8], max: usize) -> Option<String> {
    value_str(raw, max).map(Cow::into_owned)
}

/// [`value_text`], borrowed from `raw` when it holds no reference (most texts): a caller that
/// trims or checks it before keeping it makes no text it drops.
pub fn value_str(raw: &[u8], max: usize) -> Option<Cow<'_, str>> {
    if raw.len() > max {
        return None;
    }
    // one pass, eight bytes at a time, stops only at a byte other than printable ASCII, `&`
    // and `]` (most texts: none, or a few characters beyond ASCII); the UTF-8 check after it
    // is the one a `str` needs
    let mut first_reference = None;
    let mut from = 0;
    while let Some(at) = next_flagged(raw, from, unplain_bits, b'a') {
        from = at + 1;
        match raw[at] {
            b'\t' | b'\n' => {}
            0..=0x1f => return None,
            b'&' => {
                first_reference.get_or_insert(at);
            }
            b']' if raw[at + 1..].starts_with(b"]>") => return None,
            // U+FFFE and U+FFFF (EF BF BE, EF BF BF): XML forbids them
            0xEF if matches!(raw[at + 1..], [0xBF, 0xBE | 0xBF, ..]) => return None,
            // a character's lead byte: its other bytes are skipped (from_utf8 checks them)
            0xC0..=0xFF => from = at + (raw[at].leading_ones() as usize).min(4),
            _ => {}
        }
    }
    let s = std::str::from_utf8(raw).ok()?;
    let Some(first) = first_reference else {
        return Some(Cow::Borrowed(s));
    };
    Some(Cow::Owned(replaced_references(s, first)?))
}

/// `s` with each reference replaced by its character, the first at byte `first`; None when
/// one of them is not one `reference_at` reads.
fn replaced_references(s: &str, first: usize) -> Option<String> {
    let mut out = String::with_capacity(s.len());
    let mut rest = s;
    let mut at = first;
    loop {
        out.push_str(&rest[..at]);
        let (ch, len) = reference_at(&rest.as_bytes()[at..])?;
        out.push(ch);
        rest = &rest[at + len..];
        match memchr::memchr(b'&', rest.as_bytes()) {
            Some(next) => at = next,
            None => break,
        }
    }
    out.push_str(rest);
    Some(out)
}

#[cfg(test)]
mod text_tests {
    use super::{value_str, value_text};
    use crate::values::entities::reference_at;

    /// What [`value_str`] gives, the plain way: the UTF-8 check, then a look at each
    /// character, then each reference replaced.
    fn straightforward(raw: &[u8], max: usize) -> Option<String> {
        let s = std::str::from_utf8(raw).ok().filter(|_| raw.len() <= max)?;
        let forbidden =
            |c: char| (c < ' ' && c != '\t' && c != '\n') || c == '\u{FFFE}' || c == '\u{FFFF}';
        if s.chars().any(forbidden) || s.contains("]]>") {
            return None;
        }
        let mut out = String::new();
        let mut rest = s;
        while let Some(at) = rest.find('&') {
            out.push_str(&rest[..at]);
            let (ch, len) = reference_at(&rest.as_bytes()[at..])?;
            out.push(ch);
            rest = &rest[at + len..];
        }
        out.push_str(rest);
        Some(out)
    }

    #[test]
    fn the_one_pass_gives_what_the_straightforward_way_gives() {
        // every UTF-8 length, bytes that are no UTF-8 (alone, cut short, overlong, a
        // surrogate, beyond U+10FFFF), what XML forbids, references good and bad
        let pieces: [&[u8]; 37] = [
            b"a",
            b"Zz09",
            b" ",
            b"~",
            b"\x7f",
            b"&amp;",
            b"&lt;",
            b"&#38;",
            b"&#x41;",
            b"&#8217;",
            b"&#1;",
            b"&",
            b"&am",
            b"]",
            b"]]>",
            b"]]",
            b">",
            b"\t",
            b"\n",
            b"\r",
            b"\x01",
            b"\x1f",
            "\u{e9}".as_bytes(),
            "\u{20ac}".as_bytes(),
            "\u{1f600}".as_bytes(),
            "\u{fffd}".as_bytes(),
            "\u{fffe}".as_bytes(),
            "\u{ffff}".as_bytes(),
            "\u{efbf}".as_bytes(),
            b"\xff",
            b"\x80",
            b"\xc3",
            b"\xe2\x82",
            b"\xed\xa0\x80",
            b"\xf4\x90\x80\x80",
            b"\xc0\x80",
            b"\xef\xbf",
        ];
        let mut next = crate::draws(17);
        let mut taken = 0;
        for _ in 0..100_000 {
            let mut raw = Vec::new();
            for _ in 0..next(12) {
                raw.extend_from_slice(pieces[next(pieces.len())]);
            }
            let max = if next(8) == 0 { next(40) } else { usize::MAX };
            let want = straightforward(&raw, max);
            taken += usize::from(want.is_some());
            assert_eq!(value_str(&raw, max).as_deref(), want.as_deref(), "{raw:?}");
        }
        assert!(taken > 5_000, "{taken}");
    }

    #[test]
    fn each_boundary() {
        let refused: [&[u8]; 12] = [
            b"abcdefgh\x01",
            b"\x01abcdefgh",
            b"abcdefg]]>",
            b"]]>abcdefghij",
            b"abcdefghi\xef\xbf\xbe",
            b"\xef\xbf\xbfabcdefghi",
            b"abcdefghij\xc3",
            b"\xc3abcdefghij",
            b"abcdefg\xe2\x82abcdefgh",
            b"&#0;abcdefghij",
            b"abcdefghij&x;",
            b"\rabc",
        ];
        for raw in refused {
            assert_eq!(value_str(raw, 99), None, "{raw:?}");
        }
        for (raw, want) in [
            (&b"abcdefgh]]abcdefgh"[..], "abcdefgh]]abcdefgh"),
            (b"abcdefg\xef\xbf\xbd]>", "abcdefg\u{fffd}]>"),
            (b"abcdefghijkl&amp;", "abcdefghijkl&"),
            (b"&lt;abcdefghijkl", "<abcdefghijkl"),
            (b"caf\xc3\xa9/0-\xe2\x82\xac", "caf\u{e9}/0-\u{20ac}"),
        ] {
            assert_eq!(value_str(raw, 99).as_deref(), Some(want), "{raw:?}");
        }
    }

    #[test]
    fn texts() {
        assert_eq!(
            value_text(b"a&amp;b&lt;&apos;", 99).as_deref(),
            Some("a&b<'")
        );
        assert_eq!(
            value_text(b"it&#8217;s &#038; &#x41;", 99).as_deref(),
            Some("it\u{2019}s & A")
        );
        assert_eq!(value_text("é\t\n".as_bytes(), 99).as_deref(), Some("é\t\n"));
        for bad in [
            &b"a&b"[..],
            b"&#1;",
            b"\r",
            b"\x01",
            b"]]>",
            b"\xff",
            b"toolong",
        ] {
            assert_eq!(value_text(bad, 6), None, "{bad:?}");
        }
    }
}
