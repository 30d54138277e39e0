//! The values of a canonical `<url>` record, checked as written: a text passes only when it is
//! already what the careful lane's rules (urls.to_uri, dates.parse_lenient, the changefreq and
//! priority rules) would give, so the record needs no correction and no report.

/// "must be less than 2,048 characters" (sitemaps.org 0.9; urlset.limits.MAX_LOC_LENGTH).
pub const MAX_LOC_LENGTH: usize = 2048;

/// The protocol's changefreq values, in urlset.model.ChangeFreq's order.
pub const CHANGEFREQS: [&[u8]; 7] = [
    b"always", b"hourly", b"daily", b"weekly", b"monthly", b"yearly", b"never",
];

/// A loc text that is a plain URI as written.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct PlainLoc {
    /// Bytes of `scheme://authority/` (the origin, with its slash; no entity in it).
    pub origin_len: usize,
    /// Whether the text holds `&amp;` (the loc is the text with each one as `&`).
    pub has_amp: bool,
}

/// The loc text `text` (between `<loc>` and `</loc>`, not unescaped) when it is an http(s)
/// URI that urls.to_uri returns unchanged: a lower-case host name whose last label starts
/// with a letter, or a canonical dotted-quad address; a port of 1-65535 without a leading
/// zero, other than 80 and 443; then only characters RFC 3986 allows, `%XX` escapes other
/// than `%2E` (a dot to WHATWG), `&` only as `&amp;`, no dot segment, at most 2,048
/// characters once unescaped. None sends the record to the careful lane.
pub fn plain_loc(text: &[u8]) -> Option<PlainLoc> {
    let rest = if let Some(r) = text.strip_prefix(b"https://") {
        r
    } else {
        text.strip_prefix(b"http://")?
    };
    let scheme_len = text.len() - rest.len();
    let host_len = rest.iter().position(|&b| b == b':' || b == b'/')?;
    let host = &rest[..host_len];
    if !(host_name(host) || ipv4(host)) {
        return None;
    }
    let mut i = host_len;
    if rest[i] == b':' {
        let digits = rest[i + 1..]
            .iter()
            .take_while(|b| b.is_ascii_digit())
            .count();
        if !port(&rest[i + 1..i + 1 + digits]) {
            return None;
        }
        i += 1 + digits;
        if rest.get(i) != Some(&b'/') {
            return None;
        }
    }
    let origin_len = scheme_len + i + 1;
    let path = &rest[i..];
    let mut amps = 0usize;
    let mut j = 0;
    while j < path.len() {
        let b = path[j];
        match URI_BYTE[usize::from(b)] {
            PLAIN => {
                // "/." starts a dot segment (WHATWG would rewrite the path)
                if b == b'/' && path.get(j + 1) == Some(&b'.') {
                    return None;
                }
                j += 1;
            }
            PERCENT => {
                let (h, l) = (*path.get(j + 1)?, *path.get(j + 2)?);
                if !h.is_ascii_hexdigit()
                    || !l.is_ascii_hexdigit()
                    || (h == b'2' && l | 0x20 == b'e')
                {
                    return None;
                }
                j += 3;
            }
            AMP => {
                if !path[j..].starts_with(b"&amp;") {
                    return None;
                }
                amps += 1;
                j += 5;
            }
            _ => return None,
        }
    }
    if text.len() - 4 * amps > MAX_LOC_LENGTH {
        return None;
    }
    Some(PlainLoc {
        origin_len,
        has_amp: amps > 0,
    })
}

const OTHER: u8 = 0;
const PLAIN: u8 = 1;
const PERCENT: u8 = 2;
const AMP: u8 = 3;

/// What each byte is in a plain loc's path: a character RFC 3986 allows as it is
/// (unreserved, sub-delims but `&` and `'`, `:`, `@`, `/`, `?`), the start of an escape or
/// of `&amp;`, or anything else.
const URI_BYTE: [u8; 256] = {
    let mut t = [OTHER; 256];
    let plain = b"ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-._~!$()*+,;=:@/?";
    let mut i = 0;
    while i < plain.len() {
        t[plain[i] as usize] = PLAIN;
        i += 1;
    }
    t[b'%' as usize] = PERCENT;
    t[b'&' as usize] = AMP;
    t
};

/// urls.PLAIN_HOST's name form: labels of `a-z0-9-` (no hyphen at either end), the last one
/// starting with a letter.
fn host_name(host: &[u8]) -> bool {
    let mut labels = host.split(|&b| b == b'.');
    let last = labels.next_back().unwrap_or_default();
    label(last) && last[0].is_ascii_lowercase() && labels.all(label)
}

fn label(l: &[u8]) -> bool {
    !l.is_empty()
        && l[0] != b'-'
        && l[l.len() - 1] != b'-'
        && l.iter()
            .all(|&b| b.is_ascii_lowercase() || b.is_ascii_digit() || b == b'-')
}

/// A dotted quad without leading zeros, each part 0-255.
fn ipv4(host: &[u8]) -> bool {
    let parts: Vec<&[u8]> = host.split(|&b| b == b'.').collect();
    parts.len() == 4 && parts.iter().all(|p| small_number(p, 255))
}

/// 1-65535 without a leading zero, other than the defaults 80 and 443 (WHATWG drops them).
fn port(digits: &[u8]) -> bool {
    small_number(digits, 65_535) && digits != b"80" && digits != b"443" && digits != b"0"
}

fn small_number(digits: &[u8], max: u32) -> bool {
    if digits.is_empty() || digits.len() > 5 || (digits.len() > 1 && digits[0] == b'0') {
        return false;
    }
    if !digits.iter().all(u8::is_ascii_digit) {
        return false;
    }
    number(digits) <= max
}

fn number(digits: &[u8]) -> u32 {
    digits
        .iter()
        .fold(0u32, |n, &d| n * 10 + u32::from(d - b'0'))
}

fn two(d: &[u8]) -> Option<u32> {
    (d.len() == 2 && d.iter().all(u8::is_ascii_digit)).then(|| number(d))
}

/// A lastmod text that Python's `date.fromisoformat` (`YYYY-MM-DD`) or
/// `datetime.fromisoformat` (`YYYY-MM-DDThh:mm:ss`, a fraction of 1-6 digits, then `Z` or
/// `±hh:mm`) reads as dates.parse_lenient reads it, with no problem to report; the calendar
/// is checked here so the conversion cannot fail.
pub fn plain_lastmod(text: &[u8]) -> bool {
    if text.len() < 10 || !plain_date(&text[..10]) {
        return false;
    }
    if text.len() == 10 {
        return true;
    }
    if text.len() < 20 || text[10] != b'T' || text[13] != b':' || text[16] != b':' {
        return false;
    }
    let ok_time = matches!(two(&text[11..13]), Some(h) if h < 24)
        && matches!(two(&text[14..16]), Some(m) if m < 60)
        && matches!(two(&text[17..19]), Some(s) if s < 60);
    let mut zone = &text[19..];
    if let [b'.', rest @ ..] = zone {
        let digits = rest.iter().take_while(|b| b.is_ascii_digit()).count();
        if !(1..=6).contains(&digits) {
            return false;
        }
        zone = &rest[digits..];
    }
    ok_time
        && match zone {
            b"Z" => true,
            [b'+' | b'-', h1, h2, b':', m1, m2] => {
                matches!(two(&[*h1, *h2]), Some(h) if h < 24)
                    && matches!(two(&[*m1, *m2]), Some(m) if m < 60)
            }
            _ => false,
        }
}

fn plain_date(d: &[u8]) -> bool {
    if d[4] != b'-' || d[7] != b'-' || !d[..4].iter().all(u8::is_ascii_digit) {
        return false;
    }
    let year = number(&d[..4]);
    let (Some(month), Some(day)) = (two(&d[5..7]), two(&d[8..10])) else {
        return false;
    };
    let leap = year.is_multiple_of(4) && (!year.is_multiple_of(100) || year.is_multiple_of(400));
    let days = match month {
        1 | 3 | 5 | 7 | 8 | 10 | 12 => 31,
        4 | 6 | 9 | 11 => 30,
        2 if leap => 29,
        2 => 28,
        _ => return false,
    };
    year >= 1 && (1..=days).contains(&day)
}

/// A priority written `0`, `0.d` to `0.dddd`, `1` or `1.0` to `1.0000`: its value.
pub fn plain_priority(text: &[u8]) -> Option<f64> {
    let (head, frac) = match text {
        [h] => (*h, &b""[..]),
        [h, b'.', frac @ ..] if (1..=4).contains(&frac.len()) => (*h, frac),
        _ => return None,
    };
    let ok = match head {
        b'0' => frac.iter().all(u8::is_ascii_digit),
        b'1' => frac.iter().all(|&b| b == b'0'),
        _ => false,
    };
    if !ok {
        return None;
    }
    // digits / 10^k: both exact in an f64, so one correctly rounded division gives what
    // Python's float() gives for the text
    let scale = [1.0, 10.0, 100.0, 1000.0, 10000.0][frac.len()];
    let digits = frac
        .iter()
        .fold(u32::from(head - b'0'), |n, &d| n * 10 + u32::from(d - b'0'));
    Some(f64::from(digits) / scale)
}

/// The index in CHANGEFREQS of an exact changefreq spelling.
pub fn plain_changefreq(text: &[u8]) -> Option<u8> {
    CHANGEFREQS
        .iter()
        .position(|c| *c == text)
        .and_then(|i| u8::try_from(i).ok())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn locs() {
        let ok = |t: &str| plain_loc(t.as_bytes()).is_some();
        assert!(ok("https://example.com/"));
        assert!(ok("http://a.b-c.example:8080/x?q=1&amp;r=%C3%A9"));
        assert!(ok("http://127.0.0.1:65535/"));
        assert!(ok("https://example.com:18080/p"));
        assert_eq!(
            plain_loc(b"https://x.test:81/a&amp;b"),
            Some(PlainLoc {
                origin_len: 18,
                has_amp: true
            })
        );
        for bad in [
            "https://Example.com/",
            "https://example.com",
            "https://example.com:80/",
            "https://example.com:443/",
            "https://example.com:0/",
            "https://example.com:08080/",
            "https://example.com:65536/",
            "https://example.com./",
            "https://-a.com/",
            "https://1.2.3/",
            "https://1.2.3.256/",
            "https://01.2.3.4/",
            "https://123/",
            "https://example.com/a b",
            "https://example.com/a&b",
            "https://example.com/100%",
            "https://example.com/%2e",
            "https://example.com/%2E",
            "https://example.com/./",
            "https://example.com/a#f",
            "https://example.com/'",
            "https://u@example.com/",
            "ftp://example.com/",
            "https://example.com/é",
        ] {
            assert!(!ok(bad), "{bad}");
        }
        let long = format!("https://e.com/{}", "a".repeat(MAX_LOC_LENGTH - 14));
        assert!(ok(&long));
        assert!(!ok(&format!("{long}a")));
        let amps = format!("https://e.com/{}&amp;", "a".repeat(MAX_LOC_LENGTH - 15));
        assert!(ok(&amps));
    }

    #[test]
    fn lastmods() {
        for good in [
            "2024-01-02",
            "2024-02-29",
            "2000-02-29",
            "0001-01-01",
            "2024-01-02T03:04:05Z",
            "2024-01-02T23:59:59+23:59",
            "2024-01-02T00:00:00-07:30",
            "2024-01-02T03:04:05.1Z",
            "2024-01-02T03:04:05.123456+01:00",
        ] {
            assert!(plain_lastmod(good.as_bytes()), "{good}");
        }
        for bad in [
            "2023-02-29",
            "1900-02-29",
            "0000-01-01",
            "2024-13-01",
            "2024-00-01",
            "2024-1-2",
            "2024-01-02T03:04Z",
            "2024-01-02T24:00:00Z",
            "2024-01-02T03:60:00Z",
            "2024-01-02T03:04:60Z",
            "2024-01-02T03:04:05",
            "2024-01-02t03:04:05z",
            "2024-01-02T03:04:05+24:00",
            "2024-01-02T03:04:05+0100",
            "2024-01-02T03:04:05.Z",
            "2024-01-02T03:04:05.1234567Z",
            "2024-01-02 03:04:05Z",
            "",
        ] {
            assert!(!plain_lastmod(bad.as_bytes()), "{bad}");
        }
    }

    #[test]
    fn priorities_and_changefreqs() {
        assert_eq!(plain_priority(b"0.5"), Some(0.5));
        assert_eq!(plain_priority(b"1"), Some(1.0));
        assert_eq!(plain_priority(b"0.1234"), Some(0.1234));
        for i in 0..10_000 {
            let text = format!("0.{i:04}");
            let parsed: f64 = text.parse().unwrap();
            assert_eq!(plain_priority(text.as_bytes()), Some(parsed), "{text}");
        }
        for bad in ["1.5", "0.12345", "0.", ".5", "-0", " 0.5", "1.01", "01"] {
            assert_eq!(plain_priority(bad.as_bytes()), None, "{bad}");
        }
        assert_eq!(plain_changefreq(b"daily"), Some(2));
        assert_eq!(plain_changefreq(b"Daily"), None);
    }
}

/// A value's text as an XML parser gives it, the five predefined entities replaced; None when
/// the parser must read it: longer than `max` bytes, not UTF-8, a reference of another kind,
/// a character XML forbids, a carriage return (the parser rewrites line ends), or `]]>`.
pub fn value_text(raw: &[u8], max: usize) -> Option<String> {
    if raw.len() > max {
        return None;
    }
    let s = std::str::from_utf8(raw).ok()?;
    let forbidden =
        |ch: char| (ch < ' ' && ch != '\t' && ch != '\n') || ch == '\u{FFFE}' || ch == '\u{FFFF}';
    if s.chars().any(forbidden) || s.contains("]]>") {
        return None;
    }
    if !s.contains('&') {
        return Some(s.to_owned());
    }
    let mut out = String::with_capacity(s.len());
    let mut rest = s;
    while let Some(i) = rest.find('&') {
        out.push_str(&rest[..i]);
        rest = &rest[i..];
        let (ch, len) = [
            ("&amp;", '&'),
            ("&lt;", '<'),
            ("&gt;", '>'),
            ("&quot;", '"'),
            ("&apos;", '\''),
        ]
        .iter()
        .find(|(name, _)| rest.starts_with(name))
        .map(|(name, ch)| (*ch, name.len()))?;
        out.push(ch);
        rest = &rest[len..];
    }
    out.push_str(rest);
    Some(out)
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
        assert_eq!(value_text("é\t\n".as_bytes(), 99).as_deref(), Some("é\t\n"));
        for bad in [
            &b"a&b"[..],
            b"&#65;",
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
