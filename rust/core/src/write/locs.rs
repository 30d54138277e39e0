//! The writer's check of a row's loc, with a fast path for the usual loc: bytes that stand as
//! they are in a plain URI, no `%` escape and no dot segment, checked with one table load and
//! no branch a byte, and a SIMD scan for the slashes. Anything else (an escape, a byte outside the set) is decided by
//! [`plain_loc_under`], which this path agrees with (a property test below).

use std::borrow::Cow;
use std::cell::RefCell;

use crate::values::iri::{iri_to_uri, push_usual_uri};
use crate::values::loc::plain_loc_under;

/// Bytes of a plain URI as the writer takes it (RFC 3986's unreserved and sub-delims, `:`,
/// `@`, `/`, `?`; `&` and `'` as they are, the writer escapes them): 0; `%` (plain when it
/// starts an escape): [`PERCENT`]; any other byte (never plain): [`NEVER`].
const OTHER: [u8; 256] = {
    let mut table = [NEVER; 256];
    table[b'%' as usize] = PERCENT;
    let plain =
        b"ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-._~!$&'()*+,;=:@/?";
    let mut i = 0;
    while i < plain.len() {
        table[plain[i] as usize] = 0;
        i += 1;
    }
    table
};
const PERCENT: u8 = 1;
const NEVER: u8 = 2;

/// True when `loc` starts with `prefix` (a directory URI whose origin the caller checked), is
/// at most `max_length` bytes and is a plain URI (`values::loc::plain_loc_under`).
pub fn plain_under(loc: &str, prefix: &str, max_length: usize) -> bool {
    let bytes = loc.as_bytes();
    if bytes.len() > max_length || !bytes.starts_with(prefix.as_bytes()) {
        return false;
    }
    // a plain prefix leaves its bytes nothing to add: only the rest is looked at, from the
    // prefix's last byte on (a dot segment may start there)
    let from = if plain_prefix(prefix) {
        prefix.len().saturating_sub(1)
    } else {
        0
    };
    let rest = &bytes[from..];
    let other = others(rest);
    if other & NEVER != 0 {
        return false; // a byte no plain URI holds (an IRI's, a space): the full check agrees
    }
    if from == 0 {
        return (other == 0 && !dot_segment(rest)) || plain_loc_under(loc, prefix, max_length);
    }
    // a plain prefix holds no '%': each escape is in `rest`, which the full check of the
    // whole loc would read again from its scheme on (a third of pct's reading thread)
    let plain = !dot_segment(rest) && (other == 0 || escapes_plain(rest));
    debug_assert_eq!(plain, plain_loc_under(loc, prefix, max_length), "{loc:?}");
    plain
}

/// Whether each `%` of `bytes` starts an escape `%XX` other than `%2E` (a dot to WHATWG).
fn escapes_plain(bytes: &[u8]) -> bool {
    bytes.iter().enumerate().all(|(at, &byte)| {
        byte != b'%'
            || matches!(bytes.get(at + 1..at + 3), Some(&[high, low])
                if high.is_ascii_hexdigit() && low.is_ascii_hexdigit()
                    && !(high == b'2' && low | 0x20 == b'e'))
    })
}

/// The [`OTHER`] classes of `bytes` together.
fn others(bytes: &[u8]) -> u8 {
    bytes
        .iter()
        .fold(0u8, |other, &byte| other | OTHER[usize::from(byte)])
}

thread_local! {
    /// The last prefix judged, and whether it is plain: every row of a batch has one.
    static PLAIN_PREFIX: RefCell<(String, bool)> = const { RefCell::new((String::new(), false)) };
}

/// Whether `prefix` holds only bytes a plain URI takes as they are, and no dot segment.
fn plain_prefix(prefix: &str) -> bool {
    PLAIN_PREFIX.with_borrow_mut(|(last, plain)| {
        if last != prefix {
            last.clear();
            last.push_str(prefix);
            *plain = others(prefix.as_bytes()) == 0 && !dot_segment(prefix.as_bytes());
        }
        *plain
    })
}

/// Whether `bytes` holds "/." (a dot segment starts so, and WHATWG would rewrite it): from
/// the first dot on, every pair of neighbours looked at without a branch (vector code).
fn dot_segment(bytes: &[u8]) -> bool {
    let Some(first) = memchr::memchr(b'.', bytes) else {
        return false; // most paths hold no dot at all (the host's are in the prefix)
    };
    let from = first.saturating_sub(1);
    let pairs = bytes[from..].iter().zip(&bytes[from + 1..]);
    pairs.fold(false, |found, (&a, &b)| found | ((a == b'/') & (b == b'.')))
}

/// Whether `bytes` holds `%2E` or `%2e` (a dot to WHATWG), looked at as [`dot_segment`].
fn dot_escape(bytes: &[u8]) -> bool {
    let triples = bytes
        .iter()
        .zip(bytes.iter().skip(1))
        .zip(bytes.iter().skip(2));
    triples.fold(false, |found, ((&a, &b), &c)| {
        found | ((a == b'%') & (b == b'2') & (c | 0x20 == b'e'))
    })
}

/// [`plain_under`] of a URI [`iri_to_uri`] made: its bytes are all ones a plain URI holds
/// and each `%` starts an escape (it escapes every other byte), so what is left to check is
/// the length, the prefix, a dot segment and a `%2E` (a dot to WHATWG).
fn made_uri_under(uri: &str, prefix: &str, max_length: usize) -> bool {
    let bytes = uri.as_bytes();
    let under = bytes.len() <= max_length
        && bytes.starts_with(prefix.as_bytes())
        && !dot_segment(bytes)
        && !dot_escape(bytes);
    debug_assert_eq!(under, plain_under(uri, prefix, max_length), "{uri:?}");
    under
}

/// The loc the writer writes for a row's `loc` when the core can tell it: the text itself when
/// it is [`plain_under`] `prefix`, or the URI `values::iri` makes of an IRI (as `urls.to_uri`
/// would) when that is; a relative reference ([`resolved`]) first made absolute against
/// `prefix`. None: the per-entry way decides (and reports what is wrong).
pub fn writable_loc<'a>(loc: &'a str, prefix: &str, max_length: usize) -> Option<Cow<'a, str>> {
    if plain_under(loc, prefix, max_length) {
        return Some(Cow::Borrowed(loc));
    }
    if let Some(uri) = escaped_path(loc, prefix, max_length) {
        return Some(Cow::Owned(uri));
    }
    let loc = resolved(loc, prefix)?;
    // an absolute loc was just found not plain: only a resolved one is tried again
    if matches!(loc, Cow::Owned(_)) && plain_under(&loc, prefix, max_length) {
        return Some(loc);
    }
    let uri = iri_to_uri(&loc)?;
    made_uri_under(&uri, prefix, max_length).then_some(Cow::Owned(uri))
}

/// [`iri_to_uri`] and [`made_uri_under`] at once for the usual IRI ([`push_usual_uri`]: an
/// origin seen before, a path escaped in one pass). Some only when it is the URI those give
/// (debug builds check); None: the full way decides.
fn escaped_path(loc: &str, prefix: &str, max_length: usize) -> Option<String> {
    // room for the usual URI at once (each byte past ASCII escaped as three), not grown
    // by doubling a row
    let mut uri = String::with_capacity(3 * loc.len());
    if !push_usual_uri(loc, &mut uri) || uri.len() > max_length || !uri.starts_with(prefix) {
        return None;
    }
    debug_assert_eq!(
        Some(&uri),
        crate::values::iri::full_iri_to_uri(loc)
            .filter(|uri| made_uri_under(uri, prefix, max_length))
            .as_ref(),
        "{loc:?}"
    );
    Some(uri)
}

/// `loc` made absolute against `prefix` (a directory URI, `scheme://authority/path/`, as the
/// build's base URL is) when it is a relative reference (RFC 3986 section 4.2: no scheme),
/// as a browser resolves a link and sitemap.js resolves a path against its `hostname`:
/// `//host/x` takes the base's scheme, `/x` its origin, anything else (`x`, `?q`, `../x`)
/// its directory. Dot segments stay as they are: the writer's check refuses them and the
/// per-entry way (`urls.resolved_loc`, which calls this, then `urls.to_uri`) removes them,
/// so both ways give one URI. A loc with a scheme is itself. None: a text the core does not
/// resolve: empty, holding whitespace or a control character (the per-entry way strips the
/// ends first; RFC 3986 allows none inside), a first segment with a colon (RFC 3986 section 4.2 allows none: `\u{feff}https://x`
/// is a damaged URL, not a path), or a host written without its scheme (its first segment is
/// the base's host, with or without `www.`: `example.com/a` against `https://example.com/`).
pub fn resolved<'a>(loc: &'a str, prefix: &str) -> Option<Cow<'a, str>> {
    let bytes = loc.as_bytes();
    let first = *bytes.first()?;
    if first <= b' ' || first == 0x7f {
        return None;
    }
    if has_scheme(bytes) {
        return Some(Cow::Borrowed(loc));
    }
    if bytes.iter().any(|&byte| byte <= b' ' || byte == 0x7f) {
        return None; // no reference holds a space: a line of words, not a path
    }
    let after_scheme = prefix.find("://")? + 3;
    let path_at = prefix[after_scheme..]
        .find('/')
        .map_or(prefix.len(), |at| after_scheme + at);
    let joined = if loc.starts_with("//") {
        [&prefix[..after_scheme - 2], loc].concat()
    } else if first == b'/' {
        [&prefix[..path_at], loc].concat()
    } else {
        let segment = loc.split(['/', '?', '#']).next().unwrap_or_default();
        let host = prefix[after_scheme..path_at]
            .split(':')
            .next()
            .unwrap_or_default();
        let bare = |name: &str| {
            let name = name.to_ascii_lowercase();
            name.strip_prefix("www.").map(str::to_owned).unwrap_or(name)
        };
        if segment.contains(':') || (!segment.is_empty() && bare(segment) == bare(host)) {
            return None;
        }
        [prefix, loc].concat()
    };
    Some(Cow::Owned(joined))
}

/// Whether a reference starts with a scheme (RFC 3986 section 3.1: a letter, then letters,
/// digits, `+`, `-` or `.`, then `:`).
fn has_scheme(bytes: &[u8]) -> bool {
    let Some(colon) = bytes.iter().position(|&byte| byte == b':') else {
        return false;
    };
    bytes[0].is_ascii_alphabetic()
        && bytes[1..colon]
            .iter()
            .all(|&byte| byte.is_ascii_alphanumeric() || matches!(byte, b'+' | b'-' | b'.'))
}

#[cfg(test)]
mod tests {
    use super::{escaped_path, made_uri_under, plain_under, resolved, writable_loc};
    use crate::draws;
    use crate::values::iri::{full_iri_to_uri, iri_to_uri};
    use crate::values::loc::plain_loc_under;

    #[test]
    fn relative_references_resolve_against_the_base_directory() {
        let prefix = "https://x.org/shop/";
        let cases = [
            ("https://y.org/a", Some("https://y.org/a")),
            ("/blog/post-1", Some("https://x.org/blog/post-1")),
            ("blog/post-1", Some("https://x.org/shop/blog/post-1")),
            ("?page=2", Some("https://x.org/shop/?page=2")),
            ("//y.org/a", Some("https://y.org/a")),
            ("../a", Some("https://x.org/shop/../a")),
            ("x.org/a", None),
            ("WWW.X.org", None),
            (" /a", None),
            ("/a b", None),
            ("not a url", None),
            ("", None),
            ("mailto:a@x.org", Some("mailto:a@x.org")),
            ("a:b/c", Some("a:b/c")),
            ("1a:b", None), // RFC 3986 4.2: no colon in a relative path's first segment
            ("\u{feff}https://x.org/a", None),
            ("a/b:c", Some("https://x.org/shop/a/b:c")),
        ];
        for (loc, want) in cases {
            assert_eq!(resolved(loc, prefix).as_deref(), want, "{loc:?}");
        }
        let port = "http://x.org:8080/";
        assert_eq!(resolved("/a", port).as_deref(), Some("http://x.org:8080/a"));
        assert_eq!(resolved("x.org/a", port), None);
    }

    #[test]
    fn a_relative_loc_is_written_as_its_uri_under_the_base() {
        let prefix = "https://x.org/shop/";
        let written = |loc| writable_loc(loc, prefix, 2048).map(|loc| loc.into_owned());
        assert_eq!(written("a/b").as_deref(), Some("https://x.org/shop/a/b"));
        assert_eq!(
            written("caf\u{e9}").as_deref(),
            Some("https://x.org/shop/caf%C3%A9")
        );
        assert_eq!(written("/a"), None); // outside the directory: the per-entry way says so
        assert_eq!(written("../shop/a"), None); // dot segments: the per-entry way
        assert_eq!(
            written("https://x.org/shop/a").as_deref(),
            Some("https://x.org/shop/a")
        );
    }

    #[test]
    fn a_made_uri_is_judged_as_the_full_check_judges_it() {
        let prefixes = [
            "https://x.org/",
            "https://x.org/a/",
            "https://xn--bcher-kva.example/",
        ];
        let pieces = [
            "a", "Z", "0", "-", ".", "_", "~", "!", "$", "&", "'", "(", ")", "*", "+", ",", ";",
            "=", ":", "@", "/", "?", "%", "%2e", "%2E", "%41", "%4", "%zz", "#", " ", "\"", "<",
            ">", "\\", "^", "`", "{", "|", "}", "[", "]", "é", "€", "..", "/.", "/..", "%e2",
        ];
        let starts = [
            "https://x.org/",
            "HTTPS://X.org",
            "https://bücher.example/",
            "http://x.org:80/",
        ];
        let mut next = draws(7);
        let mut made = 0;
        for _ in 0..20_000 {
            let mut loc = String::from(starts[next(starts.len())]);
            for _ in 0..next(12) {
                loc.push_str(pieces[next(pieces.len())]);
            }
            let Some(uri) = iri_to_uri(&loc) else {
                continue;
            };
            made += 1;
            for prefix in prefixes {
                for max in [2048, 24] {
                    assert_eq!(
                        made_uri_under(&uri, prefix, max),
                        plain_under(&uri, prefix, max),
                        "{loc:?} -> {uri:?} under {prefix} ({max})"
                    );
                }
            }
        }
        assert!(made > 5_000, "{made}");
    }

    #[test]
    fn the_fast_path_agrees_with_the_full_check() {
        // plain prefixes, and ones whose own bytes decide (an escape, a dot segment, a space)
        let prefixes = [
            "https://x.org/",
            "https://x.org/a%41/",
            "https://x.org/.",
            "https://x.org/a b/",
            "",
        ];
        let pieces = [
            "a", "Z", "0", "-", ".", "_", "~", "!", "$", "&", "'", "(", ")", "*", "+", ",", ";",
            "=", ":", "@", "/", "?", "%", "%2e", "%2E", "%41", "%4", "%zz", "#", " ", "\"", "<",
            ">", "\\", "^", "`", "{", "|", "}", "[", "]", "é", "\n", "\t", "..", "/.", "/..",
        ];
        let mut next = draws(1);
        for round in 0..20_000 {
            // a prefix for a few rows, as a batch has one: the judged prefix is kept
            let prefix = prefixes[round / 7 % prefixes.len()];
            let mut loc = String::from(prefix);
            for _ in 0..next(16) {
                loc.push_str(pieces[next(pieces.len())]);
            }
            for max in [2048, 20] {
                assert_eq!(
                    plain_under(&loc, prefix, max),
                    plain_loc_under(&loc, prefix, max),
                    "{loc:?} {max}"
                );
            }
            assert!(!plain_under(&loc, "https://y.org/", 2048));
        }
    }

    #[test]
    fn an_escaped_path_is_the_uri_of_the_full_way() {
        // the full way: the IRI made a URI, then judged under the prefix
        let full = |loc: &str, prefix: &str, max: usize| {
            full_iri_to_uri(loc).filter(|uri| made_uri_under(uri, prefix, max))
        };
        let prefixes = [
            "https://x.org/",
            "https://x.org/a/",
            "https://xn--bcher-kva.example/",
            "http://x.org:8080/",
        ];
        let starts = [
            "https://x.org",
            "https://x.org/a",
            "HTTPS://X.org",
            "https://bücher.example",
            "https://BÜCHER.example:443",
            "http://x.org:8080",
            "http://x.org:08080",
            "http://x.org:80",
            "https://u@x.org",
            "https://x.org?",
            "https://x.org#",
            "https://x..org",
            "https://x.org\\",
        ];
        let pieces = [
            "a", "Z", "0", "-", ".", "_", "~", "!", "$", "&", "'", "(", ")", "*", "+", ",", ";",
            "=", ":", "@", "/", "?", "%", "%2e", "%41", "#", " ", "\"", "<", ">", "\\", "^", "`",
            "{", "|", "}", "[", "]", "é", "€", "\u{3000}", "\u{a0}", "\u{fffd}", "\u{feff}", "\n",
            "\u{7f}", "..", "/.", "/..", "/a",
        ];
        let mut next = draws(11);
        let mut taken = 0;
        for _ in 0..40_000 {
            let mut loc = String::from(starts[next(starts.len())]);
            loc.push('/');
            for _ in 0..next(10) {
                loc.push_str(pieces[next(pieces.len())]);
            }
            let prefix = prefixes[next(prefixes.len())];
            for max in [2048, 30] {
                if let Some(uri) = escaped_path(&loc, prefix, max) {
                    taken += 1;
                    assert_eq!(Some(uri), full(&loc, prefix, max), "{loc:?} under {prefix}");
                }
            }
        }
        assert!(taken > 3_000, "{taken}");
        // an origin refused, then one taken, then the refused one again: no stale answer
        let prefix = "https://x.org/";
        for (loc, want) in [
            ("https://x.org:99999/é", None),
            ("https://x.org/é", Some("https://x.org/%C3%A9")),
            ("https://x.org:99999/é", None),
            ("https://X.org/é", Some("https://x.org/%C3%A9")), // the origin as WHATWG writes it
            ("https://x.org/é ", None), // white space at an end: the full way refuses it
            ("https://x.org/é a", Some("https://x.org/%C3%A9%20a")),
            ("https://x.org/é\u{3000}", None),
        ] {
            assert_eq!(escaped_path(loc, prefix, 2048).as_deref(), want, "{loc:?}");
        }
    }
}
