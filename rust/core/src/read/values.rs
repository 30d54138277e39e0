//! The values of a canonical `<url>` record, checked as written: a text passes only when it is
//! already what the careful lane's rules (urls.to_uri, dates.parse_lenient, the changefreq and
//! priority rules) would give, so the record needs no correction and no report. The checks
//! themselves are the shared ones in [`crate::values`]; here is what only the reader needs.

use std::borrow::Cow;

use crate::values::bytes::any_flagged;
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
    // printable ASCII without a reference or `]` (most titles, names, codes): as it is, in
    // one pass the compiler vectorises, without the UTF-8 check and the searches below
    let plain = |b: u8| (0x20..0x7f).contains(&b) && b != b'&' && b != b']';
    if !any_flagged(raw, |b| !plain(b)) {
        return std::str::from_utf8(raw).ok().map(Cow::Borrowed);
    }
    let s = std::str::from_utf8(raw).ok()?;
    // in UTF-8 a byte below 0x80 is that character, and 0xEF only starts one (U+FFFE and
    // U+FFFF are EF BF BE and EF BF BF)
    let forbidden = |(i, &b): (usize, &u8)| match b {
        b'\t' | b'\n' => false,
        0..=0x1f => true,
        b']' => raw[i + 1..].starts_with(b"]>"),
        0xEF => matches!(raw[i + 1..], [0xBF, 0xBE | 0xBF, ..]),
        _ => false,
    };
    let suspect = |b: u8| b < 0x20 || b == b']' || b == 0xEF;
    if any_flagged(raw, suspect) && raw.iter().enumerate().any(forbidden) {
        return None;
    }
    let Some(first) = memchr::memchr(b'&', raw) else {
        return Some(Cow::Borrowed(s));
    };
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
    Some(Cow::Owned(out))
}

#[cfg(test)]
mod text_tests {
    use super::value_text;

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
