//! The writer's check of a row's loc, with a fast path for the usual loc: bytes that stand as
//! they are in a plain URI, no `%` escape and no dot segment, checked with one table load and
//! no branch a byte, and a SIMD scan for the slashes. Anything else (an escape, a byte outside the set) is decided by
//! [`plain_loc_under`], which this path agrees with (a property test below).

use std::borrow::Cow;

use crate::values::iri::iri_to_uri;
use crate::values::loc::plain_loc_under;

/// Bytes of a plain URI as the writer takes it (RFC 3986's unreserved and sub-delims, `:`,
/// `@`, `/`, `?`; `&` and `'` as they are, the writer escapes them): 0; any other byte, `%`
/// among them, 1.
const OTHER: [u8; 256] = {
    let mut table = [1u8; 256];
    let plain =
        b"ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-._~!$&'()*+,;=:@/?";
    let mut i = 0;
    while i < plain.len() {
        table[plain[i] as usize] = 0;
        i += 1;
    }
    table
};

/// True when `loc` starts with `prefix` (a directory URI whose origin the caller checked), is
/// at most `max_length` bytes and is a plain URI (`values::loc::plain_loc_under`).
pub fn plain_under(loc: &str, prefix: &str, max_length: usize) -> bool {
    let bytes = loc.as_bytes();
    if bytes.len() > max_length || !bytes.starts_with(prefix.as_bytes()) {
        return false;
    }
    let other = bytes
        .iter()
        .fold(0u8, |other, &byte| other | OTHER[usize::from(byte)]);
    // a dot segment starts with "/." (WHATWG would rewrite it); a loc has a few slashes
    let dot_segment =
        || memchr::memchr_iter(b'/', bytes).any(|at| bytes.get(at + 1) == Some(&b'.'));
    (other == 0 && !dot_segment()) || plain_loc_under(loc, prefix, max_length)
}

/// The loc the writer writes for a row's `loc` when the core can tell it: the text itself when
/// it is [`plain_under`] `prefix`, or the URI `values::iri` makes of an IRI (as `urls.to_uri`
/// would) when that is. None: the per-entry way decides (and reports what is wrong).
pub fn writable_loc<'a>(loc: &'a str, prefix: &str, max_length: usize) -> Option<Cow<'a, str>> {
    if plain_under(loc, prefix, max_length) {
        return Some(Cow::Borrowed(loc));
    }
    let uri = iri_to_uri(loc)?;
    plain_under(&uri, prefix, max_length).then_some(Cow::Owned(uri))
}

#[cfg(test)]
mod tests {
    use super::plain_under;
    use crate::values::loc::plain_loc_under;

    #[test]
    fn the_fast_path_agrees_with_the_full_check() {
        let prefix = "https://x.org/";
        let pieces = [
            "a", "Z", "0", "-", ".", "_", "~", "!", "$", "&", "'", "(", ")", "*", "+", ",", ";",
            "=", ":", "@", "/", "?", "%", "%2e", "%2E", "%41", "%4", "%zz", "#", " ", "\"", "<",
            ">", "\\", "^", "`", "{", "|", "}", "[", "]", "é", "\n", "\t", "..", "/.", "/..",
        ];
        let mut state = 1u64;
        for _ in 0..20_000 {
            let mut loc = String::from(prefix);
            for _ in 0..(state >> 60) {
                state = state
                    .wrapping_mul(6_364_136_223_846_793_005)
                    .wrapping_add(1_442_695_040_888_963_407);
                loc.push_str(pieces[(state >> 33) as usize % pieces.len()]);
            }
            state = state
                .wrapping_mul(6_364_136_223_846_793_005)
                .wrapping_add(1_442_695_040_888_963_407);
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
}
