//! Which locs are plain: http(s) URIs that `urls.to_uri` returns unchanged. One scan of a
//! URI's characters serves both sides; the reader checks the origin itself (it takes any
//! site's locs, written as XML text), the writer checks that the loc is under the set's
//! directory (a prefix whose origin it checked once).

use std::cell::RefCell;

/// "must be less than 2,048 characters" (sitemaps.org 0.9; urlset.limits.MAX_LOC_LENGTH).
pub const MAX_LOC_LENGTH: usize = 2048;

/// How the loc is spelled: the reader's XML text (`&` only as `&amp;`, `'` as it is or as
/// `&apos;`) or the writer's URI as
/// `urls.is_plain_uri` takes it (`&` as it is; escaping is the writer's job). Both take a raw
/// `'`: `urls.to_uri` keeps it (is_plain_uri allows it; only its WHATWG parse would escape it
/// in a query).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Spelling {
    XmlText,
    Uri,
}

/// Whether a byte may stand in a plain URI: a character RFC 3986 allows as it is
/// (unreserved, sub-delims, `:`, `@`, `/`, `?`), `%` (each escape is checked on its own) and
/// `&` and `#` (the reader's only in a reference, checked on its own). Comparisons with ranges rather
/// than a table, so that a block of bytes is judged at once (the compiler makes vector code
/// of it).
#[inline(always)]
fn allowed(b: u8) -> bool {
    let within = |lo: u8, hi: u8| b.wrapping_sub(lo) <= hi - lo;
    // ! #$%&'()*+,-./0-9:;  =  ?@A-Z  _  a-z  ~
    (b == b'!')
        | within(b'#', b';')
        | (b == b'=')
        | within(b'?', b'Z')
        | (b == b'_')
        | within(b'a', b'z')
        | (b == b'~')
}

/// Bytes a plain URI holds that need a look at their neighbours: `.` (after `/`, a dot
/// segment), `%` (an escape), `&` and `#` (the reader's references); bits of [`block_bytes`].
const DOT: u8 = 1;
const PERCENT: u8 = 2;
const AMP: u8 = 4;
const HASH: u8 = 8;

/// Which of [`DOT`], [`PERCENT`] and [`AMP`] a block of bytes holds, or None when one of its
/// bytes is not [`allowed`]. Most blocks hold only `a-z`, `0-9`, `-` and `/`: one test of
/// three ranges says so; the others get the full one.
#[inline(always)]
fn block_bytes(block: &[u8; 16]) -> Option<u8> {
    let common = |b: u8| b.wrapping_sub(b'a') <= 25 || b.wrapping_sub(b'/') <= 10 || b == b'-';
    if block.iter().fold(true, |all, &b| all & common(b)) {
        return Some(0);
    }
    // a test per question, each a fold the compiler makes vector code of (one loop asking
    // all at once stays a byte at a time); a byte beyond ASCII (an IRI's) ends it at the first
    if !block.iter().fold(true, |all, &b| all & allowed(b)) {
        return None;
    }
    let holds = |byte: u8| block.iter().fold(false, |any, &b| any | (b == byte));
    Some(
        u8::from(holds(b'.'))
            | u8::from(holds(b'%')) << 1
            | u8::from(holds(b'&')) << 2
            | u8::from(holds(b'#')) << 3,
    )
}

/// [`block_bytes`] of the whole text, sixteen bytes at a time; the last bytes padded with
/// `a` to a whole block (a block of known length is judged in vector code).
fn text_bytes(text: &[u8]) -> Option<u8> {
    let mut blocks = text.chunks_exact(16);
    let mut seen = 0;
    for block in blocks.by_ref() {
        seen |= block_bytes(block.try_into().ok()?)?;
    }
    let rest = blocks.remainder();
    if rest.is_empty() {
        return Some(seen);
    }
    let mut last = [b'a'; 16];
    last[..rest.len()].copy_from_slice(rest);
    Some(seen | block_bytes(&last)?)
}

/// How many bytes longer than its value `text` is (its entities: `&amp;` and `&apos;`) when
/// all its characters are plain: only ones RFC 3986 allows as they are, `%XX` escapes other
/// than `%2E` (a dot to WHATWG), no dot segment (`/.`, which WHATWG would rewrite), `&` as
/// `spelling` allows it. None otherwise.
pub fn plain_characters(text: &[u8], spelling: Spelling) -> Option<usize> {
    let seen = text_bytes(text)?;
    // a fragment is no plain loc's; a '#' of a character reference is checked with its '&'
    let lone_hash = |at: usize| at == 0 || text[at - 1] != b'&';
    if seen & HASH != 0 && (spelling == Spelling::Uri || any_at(text, b'#', lone_hash)) {
        return None;
    }
    if seen & DOT != 0 && any_at(text, b'.', |at| at > 0 && text[at - 1] == b'/') {
        return None;
    }
    let bad_escape = |at: usize| match (text.get(at + 1), text.get(at + 2)) {
        (Some(&h), Some(&l)) => {
            !h.is_ascii_hexdigit() || !l.is_ascii_hexdigit() || (h == b'2' && l | 0x20 == b'e')
        }
        _ => true,
    };
    if seen & PERCENT != 0 && any_at(text, b'%', bad_escape) {
        return None;
    }
    if spelling == Spelling::Uri || seen & AMP == 0 {
        return Some(0);
    }
    let mut longer = 0usize;
    for at in memchr::memchr_iter(b'&', text) {
        longer += match ENTITY_VALUES
            .iter()
            .find(|(e, _)| text[at..].starts_with(e))
        {
            Some((entity, _)) => entity.len() - 1,
            None => return None,
        };
    }
    Some(longer)
}

/// The references a plain loc text may hold, and the characters they stand for: `'` too, as
/// `urls.to_uri` keeps it and the writer escapes it (`escape_into`); and each as the
/// character references PHP's `htmlspecialchars` and WordPress's `esc_url` write.
pub const ENTITY_VALUES: [(&[u8], u8); 8] = [
    (b"&amp;", b'&'),
    (b"&apos;", b'\''),
    (b"&#038;", b'&'),
    (b"&#38;", b'&'),
    (b"&#x26;", b'&'),
    (b"&#039;", b'\''),
    (b"&#39;", b'\''),
    (b"&#x27;", b'\''),
];

/// Whether `bad` holds at some place of `byte` in `text`: a byte at a time in a text as short
/// as most locs' (memchr's set-up, a call a place, costs more there), by memchr in a longer.
#[inline(always)]
fn any_at(text: &[u8], byte: u8, bad: impl Fn(usize) -> bool) -> bool {
    if text.len() <= 64 {
        text.iter().enumerate().any(|(at, &b)| b == byte && bad(at))
    } else {
        memchr::memchr_iter(byte, text).any(bad)
    }
}

/// A loc text that is a plain URI as written.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct PlainLoc {
    /// Bytes of `scheme://authority/` (the origin, with its slash; no entity in it).
    pub origin_len: usize,
    /// Whether the text holds an entity of [`ENTITY_VALUES`] (the loc is the text with each
    /// one as its character).
    pub has_entity: bool,
}

/// The reader's question: the loc text `text` (between `<loc>` and `</loc>`, not unescaped)
/// when it is an http(s) URI that urls.to_uri returns unchanged: a lower-case host name
/// whose last label starts with a letter, or a canonical dotted-quad address; a port of
/// 1-65535 without a leading zero, other than 80 and 443; then [`plain_characters`] as XML
/// text, at most 2,048 characters once unescaped. None sends the record to the careful lane.
pub fn plain_loc(text: &[u8]) -> Option<PlainLoc> {
    let origin_len = plain_origin(text)?;
    let longer = plain_characters(&text[origin_len - 1..], Spelling::XmlText)?;
    if text.len() - longer > MAX_LOC_LENGTH {
        return None;
    }
    Some(PlainLoc {
        origin_len,
        has_entity: longer > 0,
    })
}

/// A URI given as a value (an image's loc: any site's) that `urls.to_uri` returns unchanged:
/// the origin of [`plain_loc`], then [`plain_characters`] as a URI, at most `max_length` bytes.
pub fn plain_uri(text: &str, max_length: usize) -> bool {
    plain_uri_origin(text.as_bytes(), max_length).is_some()
}

/// The length of the origin (`scheme://authority/`) of `text` when [`plain_uri`] takes it (a
/// text sitemap's line: a URI as written, `&` and `'` as they are).
pub fn plain_uri_origin(text: &[u8], max_length: usize) -> Option<usize> {
    if text.len() > max_length {
        return None;
    }
    let len = plain_origin(text)?;
    plain_characters(&text[len - 1..], Spelling::Uri)?;
    Some(len)
}

thread_local! {
    /// The last origin [`plain_origin`] took, with its slash: a document's locs (and their
    /// images') share a few, and a prefix compare costs a tenth of the checks.
    static LAST_PLAIN_ORIGIN: RefCell<Vec<u8>> = const { RefCell::new(Vec::new()) };
}

/// The length of `scheme://host[:port]/` when it is as `urls.to_uri` writes it: a lower-case
/// host name whose last label starts with a letter or a canonical dotted quad, a port of
/// 1-65535 without a leading zero other than 80 and 443. The answer depends on those bytes
/// alone (up to the first '/' after the scheme's), so a text that starts with the last
/// origin taken has that origin.
fn plain_origin(text: &[u8]) -> Option<usize> {
    let known = LAST_PLAIN_ORIGIN
        .with_borrow(|last| (!last.is_empty() && text.starts_with(last)).then_some(last.len()));
    if known.is_some() {
        return known;
    }
    let len = checked_origin(text)?;
    LAST_PLAIN_ORIGIN.with_borrow_mut(|last| {
        last.clear();
        last.extend_from_slice(&text[..len]);
    });
    Some(len)
}

/// [`plain_origin`], checked byte by byte.
fn checked_origin(text: &[u8]) -> Option<usize> {
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
    }
    if rest.get(i) != Some(&b'/') {
        return None;
    }
    Some(scheme_len + i + 1)
}

/// The writer's question: true when `loc` starts with `prefix` (a directory URI whose origin
/// the caller checked), is at most `max_length` bytes and is [`plain_characters`] as a URI.
/// False only means "check this one the long way".
pub fn plain_loc_under(loc: &str, prefix: &str, max_length: usize) -> bool {
    loc.len() <= max_length
        && loc.starts_with(prefix)
        && plain_characters(loc.as_bytes(), Spelling::Uri).is_some()
}

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
pub(crate) fn ipv4(host: &[u8]) -> bool {
    let mut parts = 0;
    for part in host.split(|&b| b == b'.') {
        parts += 1;
        if parts > 4 || !small_number(part, 255) {
            return false;
        }
    }
    parts == 4
}

/// 1-65535 without a leading zero, other than the defaults 80 and 443 (WHATWG drops them).
fn port(digits: &[u8]) -> bool {
    small_number(digits, 65_535) && digits != b"80" && digits != b"443" && digits != b"0"
}

fn small_number(digits: &[u8], max: u32) -> bool {
    if digits.is_empty() || digits.len() > 5 || (digits.len() > 1 && digits[0] == b'0') {
        return false;
    }
    digits.iter().all(u8::is_ascii_digit)
        && digits
            .iter()
            .fold(0u32, |n, &d| n * 10 + u32::from(d - b'0'))
            <= max
}

#[cfg(test)]
mod tests {
    use super::*;

    fn plain_loc_w(loc: &str, prefix: &str, max: usize) -> bool {
        plain_loc_under(loc, prefix, max)
    }

    #[test]
    fn an_origin_taken_before_gives_the_same_answers() {
        // each text after the one before it: a known origin as a prefix must not make a
        // longer host, another port or a user part plain
        let texts = [
            "https://a.test/x",
            "https://a.test/y",
            "https://a.test.evil/",
            "https://a.test:8080/",
            "https://a.test/",
            "https://a.test:80/",
            "https://A.test/",
            "https://a.test",
            "http://a.test/",
            "https://a.test/x",
        ];
        for t in texts {
            assert_eq!(
                plain_origin(t.as_bytes()),
                checked_origin(t.as_bytes()),
                "{t}"
            );
        }
    }

    #[test]
    fn locs() {
        let ok = |t: &str| plain_loc(t.as_bytes()).is_some();
        assert!(ok("https://example.com/"));
        assert!(ok("http://a.b-c.example:8080/x?q=1&amp;r=%C3%A9"));
        assert!(ok("http://127.0.0.1:65535/"));
        assert!(ok("https://example.com/search?q=it's-1&amp;page=2"));
        assert!(ok("https://example.com/search?q=it&apos;s"));
        // character references as WordPress and PHP write them; a fragment stays careful
        assert_eq!(
            plain_loc(b"https://x.test/?a=1&#038;b=it&#039;s&#x26;&#39;&#38;&#x27;")
                .map(|p| p.has_entity),
            Some(true)
        );
        for careful in [
            "https://x.test/#top",
            "https://x.test/a#&amp;",
            "https://x.test/&#65;",
            "https://x.test/&#0038;",
            "https://x.test/&#x2F;",
        ] {
            assert!(!ok(careful), "{careful}");
        }
        assert!(!plain_uri("https://x.test/a#b", 99));
        assert!(!plain_uri("https://x.test/a&#038;b", 99));
        assert_eq!(
            plain_loc(b"https://x.test/&apos;"),
            Some(PlainLoc {
                origin_len: 15,
                has_entity: true
            })
        );
        let apos = format!("https://e.com/{}&apos;", "a".repeat(MAX_LOC_LENGTH - 15));
        assert!(ok(&apos));
        assert!(!ok(&format!("{apos}a")));
        assert!(ok("https://example.com:18080/p"));
        assert_eq!(
            plain_loc(b"https://x.test:81/a&amp;b"),
            Some(PlainLoc {
                origin_len: 18,
                has_entity: true
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
            "https://example.com/a&#40;b",
            "https://example.com/a&quot;b",
            "https://example.com/a&apos",
            "https://example.com/100%",
            "https://example.com/%2e",
            "https://example.com/%2E",
            "https://example.com/./",
            "https://example.com/a#f",
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

    const PREFIX: &str = "https://x.org/";

    #[test]
    fn plain_locs_pass_and_others_go_the_long_way() {
        for loc in [
            "https://x.org/",
            "https://x.org/a/b?c=1&d='2'",
            "https://x.org/caf%C3%a9",
            "https://x.org/a.b/c..d",
        ] {
            assert!(plain_loc_w(loc, PREFIX, 2048), "{loc}");
        }
        for loc in [
            "https://y.org/a",
            "https://x.org/a b",
            "https://x.org/ä",
            "https://x.org/a/./b",
            "https://x.org/a/../b",
            "https://x.org/a%2eb",
            "https://x.org/a%2Eb",
            "https://x.org/a%4",
            "https://x.org/a%",
            "https://x.org/a%zz",
            "https://x.org/a#frag",
            "https://x.org/a\nb",
            "https://x.org/a\"b",
        ] {
            assert!(!plain_loc_w(loc, PREFIX, 2048), "{loc}");
        }
        assert!(!plain_loc_w("https://x.org/abc", PREFIX, 16));
        assert!(plain_loc_w("https://x.org/ab", PREFIX, 16));
    }
}
