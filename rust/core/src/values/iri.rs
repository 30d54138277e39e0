//! IRI -> URI for locs that are not plain: what `urls.full_uri` (the WHATWG parse of ada-url,
//! then RFC 3986's stricter escapes) gives, for the shapes sitemaps hold: an http(s) URL
//! whose host is a domain name (IDNA for non-ASCII and upper case), an optional port, a
//! path and query with raw non-ASCII, spaces, quotes or stray '%' to escape, a fragment to
//! drop. Anything rarer (user info, IP addresses other than a canonical dotted quad, dot
//! segments, backslashes, odd host characters, controls, whitespace around the text) gives
//! None: the caller hands exactly those to the Python function.

use std::cell::RefCell;

use super::bytes::any_flagged;
use super::loc::{ipv4, MAX_LOC_LENGTH};

/// Bytes escaped in the path and query: the WHATWG path set (space, '"', '<', '>', '`',
/// '{', '}', '^') and the query's, joined with the characters RFC 3986 never allows
/// (`urls._NOT_URI`: '\\', '|', '[', ']'); controls never get here.
const fn escaped_bytes() -> [bool; 128] {
    let mut t = [false; 128];
    let set = b" \"<>`{}^\\|[]";
    let mut i = 0;
    while i < set.len() {
        t[set[i] as usize] = true;
        i += 1;
    }
    t
}

pub(crate) const ESCAPED: [bool; 128] = escaped_bytes();

/// Characters the Python function may put in for "'" during the WHATWG parse (see
/// `urls._apostrophe_stand_in`): when a URL holds each of them, its query's "'" becomes %27
/// there; such a URL is handed back.
const STAND_INS: [char; 10] = ['!', '$', '(', ')', '*', ',', ';', '~', '+', '@'];

/// The URI `urls.to_uri` gives for `text` (stripped already), or None when the text is not
/// one of the shapes done here (the caller asks the Python function).
pub fn iri_to_uri(text: &str) -> Option<String> {
    let mut out = String::new();
    if push_usual_uri(text, &mut out) {
        return Some(out);
    }
    full_iri_to_uri(text)
}

/// [`iri_to_uri`] appended to `out` (a reader's string kept from loc to loc): the bytes of
/// its `scheme://authority/`, or None, `out` as it was, where that gives None.
pub fn iri_to_uri_into(text: &str, out: &mut String) -> Option<usize> {
    let start = out.len();
    if let Some(origin) = push_usual(text.as_bytes(), Some(text), out) {
        return Some(origin + 1);
    }
    let uri = full_iri_to_uri(text)?;
    out.push_str(&uri);
    Some(origin_len(&out[start..]))
}

/// Bytes of `scheme://authority/` in a URI from [`iri_to_uri`] (which always has a path).
pub(crate) fn origin_len(uri: &str) -> usize {
    // its scheme is written in lower case: no search for "://" (a searcher made per call)
    let after = match uri.as_bytes() {
        [b'h', b't', b't', b'p', b's', b':', b'/', b'/', ..] => 8,
        [b'h', b't', b't', b'p', b':', b'/', b'/', ..] => 7,
        _ => memchr::memmem::find(uri.as_bytes(), b"://").map_or(0, |i| i + 3),
    };
    memchr::memchr(b'/', &uri.as_bytes()[after..]).map_or(uri.len(), |i| after + i + 1)
}

/// How [`push_usual_uri`] takes each byte of a path: as it is (the bytes a plain URI holds:
/// RFC 3986's unreserved and sub-delims, `:`, `@`, `/`), escaped (non-ASCII, and what
/// [`ESCAPED`] names), or not at all (the full way decides: `%`, `?`, `#`, `\\`, controls,
/// and 0xEF, which may start U+FFFD); a dot as it is unless it follows a '/'.
const PATH_BYTES: [u8; 256] = {
    let mut table = [DECIDE; 256];
    let keep = b"ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-._~!$&'()*+,;=:@/";
    let mut i = 0;
    while i < keep.len() {
        table[keep[i] as usize] = KEEP;
        i += 1;
    }
    let mut byte = 0;
    while byte < 256 {
        if byte >= 0x80 || ESCAPED[byte] {
            table[byte] = ESCAPE;
        }
        byte += 1;
    }
    table[0xEF] = DECIDE;
    table[b'\\' as usize] = DECIDE;
    table[b'.' as usize] = DOT;
    table
};
const KEEP: u8 = 0;
const ESCAPE: u8 = 1;
const DECIDE: u8 = 2;
const DOT: u8 = 3;

/// [`PATH_BYTES`] for the bytes of an XML text: `&` (a reference) and `]` (`]]>`) left to
/// the full way.
const PATH_TEXT_BYTES: [u8; 256] = {
    let mut table = PATH_BYTES;
    table[b'&' as usize] = DECIDE;
    table[b']' as usize] = DECIDE;
    table
};

/// [`iri_to_uri`] for the usual IRI, appended to `out`: an `http://` or `https://` origin
/// seen on the call before (one comparison), then a path without a query, a fragment, a `%`,
/// a control or a "/." (a dot segment may start so), whose non-ASCII bytes and the
/// characters a URI cannot hold are escaped in one pass. False, `out` as it was: the full
/// way decides. Shared by the reader's locs and the build's (`write::locs`).
pub(crate) fn push_usual_uri(loc: &str, out: &mut String) -> bool {
    push_usual(loc.as_bytes(), Some(loc), out).is_some()
}

/// [`iri_to_uri_into`] for the usual IRI given as the bytes of an XML text, which are its
/// characters as they are: [`push_usual_uri`]'s shape, holding no reference (`&`), no `]`
/// (`]]>` is refused) and nothing else XML forbids; only its path checked as UTF-8 (its
/// origin is the one met before, a `str` then). None, `out` as it was: not that shape (the
/// caller reads the text, then asks [`iri_to_uri_into`]).
pub fn xml_text_to_uri_into(raw: &[u8], out: &mut String) -> Option<usize> {
    push_usual(raw, None, out).map(|origin| origin + 1)
}

/// [`push_usual_uri`] of `bytes`, giving the bytes of the origin it wrote
/// (`scheme://authority`): `text` is the loc as a `str` (its `bytes`), or None for the
/// bytes of an XML text ([`xml_text_to_uri_into`]).
fn push_usual(bytes: &[u8], text: Option<&str>, out: &mut String) -> Option<usize> {
    // white space at an end: the full way refuses it (ASCII's other than ' ' are controls,
    // which the path's table leaves to the full way; beyond ASCII, a character of White_Space
    // ends in one of these bytes)
    let last = *bytes.last()?;
    if last == b' ' || matches!(last, 0x80..=0x8A | 0x9F | 0xA0 | 0xA8 | 0xA9 | 0xAF) {
        let lead = (bytes.len().saturating_sub(4)..bytes.len())
            .rev()
            .find(|&at| bytes[at] & 0xC0 != 0x80)?;
        let last_char = std::str::from_utf8(&bytes[lead..])
            .ok()?
            .chars()
            .next_back();
        if last_char.is_none_or(char::is_whitespace) {
            return None;
        }
    }
    let start = out.len();
    let (slash, origin_written) = push_usual_origin(bytes, text.is_none(), out)?;
    let table = if text.is_some() {
        &PATH_BYTES
    } else {
        &PATH_TEXT_BYTES
    };
    let escaped = push_usual_path(&bytes[slash..], table, out);
    if escaped.is_none() || out.len() - start > MAX_LOC_LENGTH {
        out.truncate(start);
        return None;
    }
    Some(origin_written)
}

/// The origin of `bytes` (`scheme://authority`, up to the path's '/') as the full way writes
/// it, appended to `out` (room made for the path escaped); the path's offset and the bytes
/// written. None, `out` as it was: the full way decides; also for an origin a reader's XML
/// text (`xml_text`) would read otherwise (a reference, a byte XML forbids).
fn push_usual_origin(bytes: &[u8], xml_text: bool, out: &mut String) -> Option<(usize, usize)> {
    LAST_USUAL_ORIGIN.with_borrow_mut(|(from, to, as_text)| {
        // the origin of the call before, with a '/' after it: this loc's (that origin holds no
        // '/' after its scheme's), found without a search
        let slash = if !from.is_empty()
            && bytes.starts_with(from.as_bytes())
            && bytes.get(from.len()) == Some(&b'/')
        {
            from.len()
        } else {
            let after = if bytes.starts_with(b"https://") {
                8
            } else if bytes.starts_with(b"http://") {
                7
            } else {
                return None;
            };
            let slash = after + memchr::memchr(b'/', &bytes[after..])?;
            let origin = std::str::from_utf8(&bytes[..slash]).ok()?;
            from.clear();
            from.push_str(origin);
            // the origin as the full way writes it: the same for any path after it; the
            // authority ends at the first of these, so an origin that holds one is refused
            *to = match memchr::memchr3(b'?', b'#', b'\\', origin.as_bytes()) {
                Some(_) => None,
                None => full_iri_to_uri(&[origin, "/"].concat()).map(|mut uri| {
                    uri.pop();
                    uri
                }),
            };
            *as_text = !origin
                .bytes()
                .any(|b| b < 0x20 || matches!(b, b'&' | b']' | 0xEF));
            slash
        };
        let to = to.as_deref().filter(|_| *as_text || !xml_text)?;
        out.reserve(to.len() + 3 * (bytes.len() - slash));
        out.push_str(to);
        Some((slash, to.len()))
    })
}

/// The path of [`push_usual`] escaped onto `out` (bytes judged by `table`); None where the
/// full way decides (`out` then holds a part of it), and where the path is not UTF-8 (an XML
/// text's bytes, its origin one met before and checked then): each character beyond ASCII is
/// checked as it is escaped, so the path is read once.
fn push_usual_path(path: &[u8], table: &[u8; 256], out: &mut String) -> Option<()> {
    let mut at = 0;
    while let Some(&byte) = path.get(at) {
        match table[usize::from(byte)] {
            KEEP => out.push(char::from(byte)),
            // "/." may start a dot segment (the path starts with '/': a dot has a byte before)
            DOT if path[at - 1] != b'/' => out.push('.'),
            ESCAPE => {
                let width = if byte < 0x80 {
                    1
                } else {
                    utf8_width(&path[at..])?
                };
                for &b in &path[at..at + width] {
                    push_byte_escape(out, b);
                }
                at += width;
                continue;
            }
            _ => return None,
        }
        at += 1;
    }
    Some(())
}

/// The bytes of the UTF-8 character `bytes` starts with (the well-formed sequences of
/// Unicode's table 3-7, as `str::from_utf8` takes them), or None.
pub(crate) fn utf8_width(bytes: &[u8]) -> Option<usize> {
    match *bytes {
        [0xC2..=0xDF, 0x80..=0xBF, ..] => Some(2),
        [0xE0, 0xA0..=0xBF, 0x80..=0xBF, ..]
        | [0xE1..=0xEC | 0xEE..=0xEF, 0x80..=0xBF, 0x80..=0xBF, ..]
        | [0xED, 0x80..=0x9F, 0x80..=0xBF, ..] => Some(3),
        [0xF0, 0x90..=0xBF, 0x80..=0xBF, 0x80..=0xBF, ..]
        | [0xF1..=0xF3, 0x80..=0xBF, 0x80..=0xBF, 0x80..=0xBF, ..]
        | [0xF4, 0x80..=0x8F, 0x80..=0xBF, 0x80..=0xBF, ..] => Some(4),
        _ => None,
    }
}

/// [`iri_to_uri`] checked step by step (every shape it takes; [`push_usual_uri`] agrees with
/// it, tested below).
pub(crate) fn full_iri_to_uri(text: &str) -> Option<String> {
    let bytes = text.as_bytes();
    // controls, and U+FFFD (EF BF BD: a lead byte, so always a character of its own)
    let odd = |(i, &b): (usize, &u8)| {
        b < 0x20 || b == 0x7f || (b == 0xEF && bytes[i + 1..].starts_with(&[0xBF, 0xBD]))
    };
    let suspect = |b: u8| b < 0x20 || b == 0x7f || b == 0xEF;
    if any_flagged(bytes, suspect) && bytes.iter().enumerate().any(odd) {
        return None;
    }
    let (first, last) = (text.chars().next()?, text.chars().next_back()?);
    if first.is_whitespace() || last.is_whitespace() {
        return None;
    }
    // the scheme ends at the first "://", which must follow "http" or "https"
    let scheme = |len: usize, name: &[u8]| {
        bytes.len() >= len + 3
            && bytes[len..len + 3] == *b"://"
            && bytes[..len].eq_ignore_ascii_case(name)
    };
    let https = if scheme(4, b"http") {
        false
    } else if scheme(5, b"https") {
        true
    } else {
        return None;
    };
    let rest = &text[if https { 8 } else { 7 }..];
    let authority_len = rest
        .bytes()
        .position(|b| matches!(b, b'/' | b'?' | b'#' | b'\\'))
        .unwrap_or(rest.len());
    let (authority, tail) = rest.split_at(authority_len);
    let mut out = String::with_capacity(text.len() + text.len() / 2);
    // the origin is its text's alone: a sitemap's locs share a few, each made once
    LAST_ORIGIN.with_borrow_mut(|(from, to)| {
        let given = &text[..text.len() - tail.len()];
        if from != given {
            from.clear(); // first: an origin refused leaves no stale pair behind
            to.clear();
            push_origin(to, https, authority)?;
            from.push_str(given);
        }
        out.push_str(to);
        Some(())
    })?;
    // the path ends at the first `?` or `#`; a `\\` before it is done by the Python function
    let (path, query) = match memchr::memchr3(b'?', b'#', b'\\', tail.as_bytes()) {
        None => (tail, None),
        Some(i) if tail.as_bytes()[i] == b'\\' => return None,
        Some(i) if tail.as_bytes()[i] == b'#' => (&tail[..i], None),
        Some(i) => {
            let end = memchr::memchr(b'#', &tail.as_bytes()[i..]).map_or(tail.len(), |f| i + f);
            (&tail[..i], Some(&tail[i..end]))
        }
    };
    // a dot segment holds a '.' or a '%' (most paths have neither)
    if memchr::memchr2(b'.', b'%', path.as_bytes()).is_some()
        && path.as_bytes().split(|&b| b == b'/').any(dot_segment)
    {
        return None;
    }
    if query.is_some_and(|q| memchr::memchr(b'\'', q.as_bytes()).is_some()) && all_stand_ins(text) {
        return None;
    }
    if path.is_empty() {
        out.push('/');
    }
    push_escaped(&mut out, path);
    if let Some(q) = query {
        push_escaped(&mut out, q);
    }
    (out.len() <= MAX_LOC_LENGTH).then_some(out)
}

/// `scheme://authority` as WHATWG writes it: the scheme in lower case, the host as
/// [`push_host`] writes it, the port without leading zeros and left out when it is the
/// scheme's. None: a host or port done by the Python function.
fn push_origin(out: &mut String, https: bool, authority: &str) -> Option<()> {
    let (host_text, port_text) = match memchr::memrchr(b':', authority.as_bytes()) {
        Some(i) => (&authority[..i], Some(&authority[i + 1..])),
        None => (authority, None),
    };
    out.push_str(if https { "https://" } else { "http://" });
    push_host(out, host_text)?;
    if let Some(digits) = port_text {
        let port = port_number(digits)?;
        if port != if https { 443 } else { 80 } {
            out.push(':');
            push_number(out, port);
        }
    }
    Some(())
}

/// The host as WHATWG writes it: a domain name in lower case, punycode for its non-ASCII
/// labels (UTS 46 as the URL standard runs it), or a canonical dotted quad. None for any other
/// form (IP addresses WHATWG would rewrite, user info, percent-escapes, odd characters).
fn push_host(out: &mut String, host: &str) -> Option<()> {
    let plain = |b: u8| b.is_ascii_lowercase() || b.is_ascii_digit() || b == b'-' || b == b'.';
    let bytes = host.as_bytes();
    if bytes.iter().all(|&b| plain(b)) && !bytes.windows(4).any(|w| w == b"xn--") {
        if ipv4(bytes) {
            out.push_str(host);
            return Some(());
        }
        check_domain(host)?;
        out.push_str(host);
        return Some(());
    }
    // ASCII other than letters, digits, '-' and '.' (user info, '%', '_', ...) is left to the
    // Python function, and so are the labels IDNA would map to such characters
    if bytes
        .iter()
        .any(|&b| b.is_ascii() && !(b.is_ascii_alphanumeric() || b == b'-' || b == b'.'))
    {
        return None;
    }
    LAST_HOST.with_borrow_mut(|(from, to)| {
        if from != host {
            let ascii = idna::domain_to_ascii_cow(bytes, idna::AsciiDenyList::URL).ok()?;
            if !ascii.bytes().all(plain) {
                return None;
            }
            check_domain(&ascii)?;
            *to = ascii.into_owned();
            from.clear();
            from.push_str(host);
        }
        out.push_str(to);
        Some(())
    })
}

thread_local! {
    /// The last `scheme://authority` text [`push_origin`] took and what it wrote.
    static LAST_ORIGIN: RefCell<(String, String)> = const { RefCell::new((String::new(), String::new())) };
    /// The last `scheme://authority` [`push_usual_uri`] met and the origin the full way makes
    /// of it (None: one it refuses): a sitemap's locs share a few.
    /// Also whether that origin reads the same as an XML text's bytes (no reference, nothing
    /// XML forbids).
    static LAST_USUAL_ORIGIN: RefCell<(String, Option<String>, bool)> = const { RefCell::new((String::new(), None, false)) };
    /// The last host IDNA converted and its ASCII form: a sitemap's locs share a few hosts.
    static LAST_HOST: RefCell<(String, String)> = const { RefCell::new((String::new(), String::new())) };
}

/// A domain name WHATWG keeps as it is: no empty label, the last one not starting with a
/// digit (which would make WHATWG read it as an IPv4 address).
fn check_domain(host: &str) -> Option<()> {
    let b = host.as_bytes();
    let last = memchr::memrchr(b'.', b).map_or(0, |i| i + 1);
    let empty_label = b.first().is_none_or(|&c| c == b'.')
        || b.ends_with(b".")
        || b.windows(2).any(|w| w == b"..");
    (!empty_label && !b[last].is_ascii_digit()).then_some(())
}

/// A port as WHATWG reads it: decimal digits up to 65535 (leading zeros dropped); an empty
/// port or anything else gives None.
fn port_number(digits: &str) -> Option<u32> {
    if digits.is_empty() || digits.len() > 5 || !digits.bytes().all(|b| b.is_ascii_digit()) {
        return None;
    }
    let n: u32 = digits.parse().ok()?;
    (n <= 65_535).then_some(n)
}

/// A path segment WHATWG reads as `.` or `..` (`%2e` counts as a dot).
fn dot_segment(segment: &[u8]) -> bool {
    segment.len() <= 6
        && [&b"."[..], b"..", b"%2e", b".%2e", b"%2e.", b"%2e%2e"]
            .iter()
            .any(|dots| segment.eq_ignore_ascii_case(dots))
}

/// The URL holds U+E000 (raw or as its escape) and each of [`STAND_INS`]; the stand-ins
/// are asked first (a URL without '!' answers at once; a search for U+E000 makes a searcher).
fn all_stand_ins(text: &str) -> bool {
    let bytes = text.as_bytes();
    let escaped = |at: usize| {
        bytes
            .get(at..at + 9)
            .is_some_and(|w| w.eq_ignore_ascii_case(b"%EE%80%80"))
    };
    STAND_INS.iter().all(|&c| text.contains(c))
        && (memchr::memmem::find(bytes, "\u{E000}".as_bytes()).is_some()
            || memchr::memchr_iter(b'%', bytes).any(escaped))
}

/// Appends a number's decimal digits.
fn push_number(out: &mut String, n: u32) {
    let mut digits = [0u8; 10];
    let mut at = digits.len();
    let mut rest = n;
    loop {
        at -= 1;
        digits[at] = b'0' + (rest % 10) as u8;
        rest /= 10;
        if rest == 0 {
            break;
        }
    }
    out.extend(digits[at..].iter().map(|&d| char::from(d)));
}

/// `%00%01...%FF`: the escape of byte `b` at `3 * b`, pushed as one piece of text (three
/// `push`es of a char each cost a capacity check and an encoding).
const BYTE_ESCAPES: &str = {
    const HEX: &[u8; 16] = b"0123456789ABCDEF";
    const BYTES: [u8; 768] = {
        let mut t = [0u8; 768];
        let mut b = 0;
        while b < 256 {
            t[3 * b] = b'%';
            t[3 * b + 1] = HEX[b >> 4];
            t[3 * b + 2] = HEX[b & 15];
            b += 1;
        }
        t
    };
    match std::str::from_utf8(&BYTES) {
        Ok(text) => text,
        Err(_) => panic!("escapes are ASCII"),
    }
};

fn push_byte_escape(out: &mut String, b: u8) {
    let at = 3 * usize::from(b);
    out.push_str(&BYTE_ESCAPES[at..at + 3]);
}

/// `part` (a path or a query with its '?') with non-ASCII as UTF-8 escapes, the characters
/// of [`ESCAPED`] escaped, and a '%' that starts no `%XX` escape written `%25`.
fn push_escaped(out: &mut String, part: &str) {
    let bytes = part.as_bytes();
    let mut plain_from = 0;
    for (i, &b) in bytes.iter().enumerate() {
        let escape = if b >= 0x80 {
            true
        } else if b == b'%' {
            !(bytes.get(i + 1).is_some_and(u8::is_ascii_hexdigit)
                && bytes.get(i + 2).is_some_and(u8::is_ascii_hexdigit))
        } else {
            ESCAPED[usize::from(b)]
        };
        if escape {
            if i > plain_from {
                // ASCII only: every byte from `plain_from` stayed as it is
                out.push_str(&part[plain_from..i]);
            }
            push_byte_escape(out, b);
            plain_from = i + 1;
        }
    }
    // a multi-byte character's bytes were each escaped above; what is left is ASCII
    out.push_str(&part[plain_from..]);
}

#[cfg(test)]
mod tests {
    use super::{
        full_iri_to_uri, iri_to_uri, iri_to_uri_into, origin_len, push_usual_uri, utf8_width,
        xml_text_to_uri_into,
    };
    use crate::draws;
    use crate::read::values::value_str;

    fn uri(text: &str) -> Option<String> {
        iri_to_uri(text)
    }

    #[test]
    fn iris_become_uris() {
        for (iri, want) in [
            ("https://a.test/café", "https://a.test/caf%C3%A9"),
            (
                "https://bücher.example/menü?q=it's&x=1#frag",
                "https://xn--bcher-kva.example/men%C3%BC?q=it's&x=1",
            ),
            ("HTTP://A.Test:080/a b", "http://a.test/a%20b"),
            ("https://a.test:8443/100%", "https://a.test:8443/100%25"),
            ("https://a.test:443?q=<x>", "https://a.test/?q=%3Cx%3E"),
            (
                "https://a.test/%7e|[x]^`{}",
                "https://a.test/%7e%7C%5Bx%5D%5E%60%7B%7D",
            ),
            ("http://1.2.3.4:00081/\"", "http://1.2.3.4:81/%22"),
        ] {
            assert_eq!(uri(iri).as_deref(), Some(want), "{iri}");
        }
        for odd in [
            "https://a.test/a/../b",
            "https://a.test/a/%2E/b",
            "https://a.test\\b",
            "https://u@a.test/",
            "https://a_b.test/",
            "https://a.test:/",
            "https://a.test:99999/",
            "https://1.2.3/",
            "https://a..test/",
            "https://a.test./",
            "https://[::1]/",
            "https://a.test/\u{1}",
            " https://a.test/",
            "https://a.test/\u{3000}",
            "ftp://a.test/",
            "https://a.test/\u{FFFD}",
        ] {
            assert_eq!(uri(odd), None, "{odd}");
        }
        // each after the one before: an origin taken (or refused) before changes no answer
        for (iri, want) in [
            ("https://a.test/é", Some("https://a.test/%C3%A9")),
            ("https://a.test:99999/", None),
            ("https://a.test/x", Some("https://a.test/x")),
            ("https://a.test:99999/", None),
            ("https://a.test:99999/", None),
            ("https://a.test:8080/", Some("https://a.test:8080/")),
            ("https://a.test:8080/", Some("https://a.test:8080/")),
            ("https://a.test/", Some("https://a.test/")),
            ("HTTPS://a.test/", Some("https://a.test/")),
            ("https://A.test/", Some("https://a.test/")),
            ("https://a.test.evil/", Some("https://a.test.evil/")),
            (
                "https://bücher.example/",
                Some("https://xn--bcher-kva.example/"),
            ),
            (
                "https://bücher.example:443/",
                Some("https://xn--bcher-kva.example/"),
            ),
        ] {
            assert_eq!(uri(iri).as_deref(), want, "{iri}");
        }
        let long = format!("https://a.test/{}", "é".repeat(700));
        assert_eq!(uri(&long), None);
    }

    #[test]
    fn the_usual_way_gives_the_uri_of_the_full_way() {
        let starts = [
            "https://a.test",
            "http://a.test",
            "https://www.example.com",
            "HTTPS://A.test",
            "https://a.test:8443",
            "https://a.test:443",
            "http://a.test:080",
            "https://a.test:",
            "https://a.test:99999",
            "https://u:p@a.test",
            "https://bücher.example",
            "https://BÜCHER.example:443",
            "https://xn--bcher-kva.example",
            "https://1.2.3.4",
            "https://1.2.3",
            "https://a..test",
            "https://a.test.",
            "https://a_b.test",
            "https://[::1]",
            "https://a.test?",
            "https://a.test#",
            "https://a.test\\",
            "https://a.t\u{1}est",
            "ftp://a.test",
            " https://a.test",
        ];
        // every UTF-8 length, what a URI escapes, dot segments, '%' and escapes, a query and a
        // fragment, controls, U+FFFD and white space (at an end, the full way refuses it)
        let pieces = [
            "a",
            "Z",
            "0",
            "-",
            ".",
            "_",
            "~",
            "!",
            "$",
            "&",
            "'",
            "(",
            ")",
            "*",
            "+",
            ",",
            ";",
            "=",
            ":",
            "@",
            "/",
            "?",
            "?q=it's",
            "%",
            "%2e",
            "%2E",
            "%41",
            "%4",
            "%zz",
            "#",
            "#frag",
            " ",
            "\"",
            "<",
            ">",
            "\\",
            "^",
            "`",
            "{",
            "|",
            "}",
            "[",
            "]",
            "é",
            "€",
            "😀",
            "\u{7ff}",
            "\u{800}",
            "\u{ffff}",
            "\u{10000}",
            "\u{e000}",
            "\u{3000}",
            "\u{a0}",
            "\u{85}",
            "\u{1680}",
            "\u{200a}",
            "\u{2028}",
            "\u{202f}",
            "\u{205f}",
            "\u{200b}",
            "\u{fffd}",
            "\u{feff}",
            "\n",
            "\t",
            "\u{7f}",
            "..",
            "/.",
            "/..",
            "/./",
            "/../",
            "/.a",
            "/a.",
            "%e2%82%ac",
            "ë".repeat(700).leak(),
        ];
        let mut next = draws(26);
        let (mut usual, mut made) = (0, 0);
        for _ in 0..60_000 {
            let mut iri = String::from(starts[next(starts.len())]);
            if next(8) > 0 {
                iri.push('/');
            }
            for _ in 0..next(9) {
                iri.push_str(pieces[next(pieces.len())]);
            }
            let full = full_iri_to_uri(&iri);
            made += usize::from(full.is_some());
            let mut out = String::from("before");
            if push_usual_uri(&iri, &mut out) {
                usual += 1;
                assert_eq!(Some(&out[6..]), full.as_deref(), "{iri:?}");
            } else {
                assert_eq!(out, "before", "{iri:?}: refused, yet written");
            }
            assert_eq!(iri_to_uri(&iri), full, "{iri:?}");
            let mut into = String::from("x");
            let taken = iri_to_uri_into(&iri, &mut into);
            assert_eq!(taken.map(|_| &into[1..]), full.as_deref(), "{iri:?}");
            assert_eq!(taken, full.as_deref().map(origin_len), "{iri:?}");
            assert!(taken.is_some() || into == "x", "{iri:?}");
        }
        // most of the family goes the usual way, and the full way takes more of it
        assert!(usual > 4_000 && made > usual + 8_000, "{usual} {made}");
    }

    #[test]
    fn utf8_widths_are_the_characters_from_utf8_takes() {
        // each lead byte beyond ASCII, and after it the edges of every range table 3-7 names
        let edges = [
            0x00, 0x41, 0x7F, 0x80, 0x8F, 0x90, 0x9F, 0xA0, 0xBF, 0xC0, 0xC2, 0xF4, 0xFF,
        ];
        for lead in 0x80..=0xFF_u8 {
            for b1 in edges {
                for b2 in edges {
                    for b3 in edges {
                        let bytes = [lead, b1, b2, b3];
                        let valid = match std::str::from_utf8(&bytes) {
                            Ok(_) => bytes.len(),
                            Err(e) => e.valid_up_to(),
                        };
                        let want = std::str::from_utf8(&bytes[..valid])
                            .ok()
                            .and_then(|s| s.chars().next())
                            .map(char::len_utf8);
                        assert_eq!(utf8_width(&bytes), want, "{bytes:x?}");
                        assert_eq!(utf8_width(&bytes[..1]), None);
                    }
                }
            }
        }
    }

    /// The reader's way for a loc's text: [`xml_text_to_uri_into`] of its bytes, else the
    /// text read ([`value_str`]) and [`iri_to_uri_into`] of it.
    fn read_then_made(raw: &[u8]) -> Option<(usize, String)> {
        let text = value_str(raw, usize::MAX)?;
        let mut out = String::from("x");
        let origin = iri_to_uri_into(&text, &mut out)?;
        Some((origin, out))
    }

    #[test]
    fn the_bytes_of_a_text_give_the_uri_of_the_text_read() {
        let starts: [&[u8]; 9] = [
            b"https://a.test",
            b"https://www.example.com",
            b"HTTPS://A.test:443",
            b"https://b\xc3\xbccher.example",
            b"https://a&amp;b.test",
            b"https://a]b.test",
            b"https://a\x01b.test",
            b"https://a.test\xef\xbf\xbe",
            b"http://a.test:8080",
        ];
        // what XML text holds besides a str's characters: references, "]]>", CR, bytes that
        // are no UTF-8 (alone, cut short, overlong, a surrogate, beyond U+10FFFF), U+FFFE/F
        let pieces: [&[u8]; 38] = [
            b"a",
            b"item-0",
            b"/",
            b".",
            b"/.",
            b"%",
            b"%41",
            b"?q=1",
            b"#f",
            b" ",
            b"\"",
            b"[",
            b"]",
            b"]]>",
            b"&amp;",
            b"&apos;",
            b"&#233;",
            b"&",
            b"'",
            b"\t",
            b"\r",
            b"\x01",
            b"\x7f",
            "\u{e9}".as_bytes(),
            "\u{20ac}".as_bytes(),
            "\u{1f600}".as_bytes(),
            "\u{3000}".as_bytes(),
            "\u{a0}".as_bytes(),
            "\u{fffd}".as_bytes(),
            "\u{fffe}".as_bytes(),
            "\u{ffff}".as_bytes(),
            b"\xff",
            b"\x80",
            b"\xc3",
            b"\xe2\x82",
            b"\xed\xa0\x80",
            b"\xf4\x90\x80\x80",
            b"\xc0\x80",
        ];
        let mut next = draws(27);
        let mut taken = 0;
        for _ in 0..60_000 {
            let mut raw = starts[next(starts.len())].to_vec();
            if next(8) > 0 {
                raw.push(b'/');
            }
            for _ in 0..next(8) {
                raw.extend_from_slice(pieces[next(pieces.len())]);
            }
            // a str's loc between, now and then: its origin, taken or refused, is the one
            // the next call meets
            if next(4) == 0 {
                let loc = String::from_utf8_lossy(&raw).replace("&amp;", "&");
                iri_to_uri(&loc);
            }
            let mut out = String::from("x");
            match xml_text_to_uri_into(&raw, &mut out) {
                Some(origin) => {
                    taken += 1;
                    assert_eq!(Some((origin, out)), read_then_made(&raw), "{raw:?}");
                }
                None => assert_eq!(out, "x", "{raw:?}"),
            }
        }
        assert!(taken > 3_000, "{taken}");
    }
}
