//! Lines as Python's text files give them with `newline=""` (LF, CRLF or a lone CR ends one),
//! and the white space `str.strip` removes.
use memchr::{memchr, memchr2};

/// The line starting at `start`: (where its text ends, where the next line starts). None
/// when the data may still continue it: no line end yet, or a CR at the very end that a LF
/// may follow, unless `eof`; None too at the end of the data. Without `lone_cr` only a LF
/// ends a line (a CR before it is the line's text), as in an `io.StringIO`.
pub fn line_at(data: &[u8], start: usize, eof: bool, lone_cr: bool) -> Option<(usize, usize)> {
    let rest = data.get(start..)?;
    let found = if lone_cr {
        memchr2(b'\n', b'\r', rest)
    } else {
        memchr(b'\n', rest)
    };
    match found {
        Some(found) => {
            let at = start + found;
            if data[at] == b'\n' {
                Some((at, at + 1))
            } else if at + 1 < data.len() {
                Some((
                    at,
                    if data[at + 1] == b'\n' {
                        at + 2
                    } else {
                        at + 1
                    },
                ))
            } else if eof {
                Some((at, at + 1))
            } else {
                None
            }
        }
        None if eof && !rest.is_empty() => Some((data.len(), data.len())),
        None => None,
    }
}

/// Whether Python's `str.isspace` holds for `c` (Unicode white space and the ASCII
/// separators 0x1C to 0x1F).
pub fn is_space(c: char) -> bool {
    c.is_whitespace() || ('\x1c'..='\x1f').contains(&c)
}

/// `text.strip()` as Python strips it.
#[inline]
pub fn strip(text: &str) -> &str {
    let bytes = text.as_bytes();
    // a printable ASCII byte at each end: nothing to strip (any other goes the exact way)
    let plain = |b: Option<&u8>| b.is_some_and(|&b| b > b' ' && b < 0x7f);
    if plain(bytes.first()) && plain(bytes.last()) {
        return text; // the usual case: nothing to strip
    }
    text.trim_matches(is_space)
}

/// `bytes` (a line or a record of a source) as text, None when it is not UTF-8: the sources
/// decode with `surrogateescape`, so other bytes make it "not valid UTF-8".
pub fn utf8(bytes: &[u8]) -> Option<&str> {
    std::str::from_utf8(bytes).ok()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn lines_end_as_python_universal_newlines_end_them() {
        let data = b"a\nb\r\nc\rd";
        assert_eq!(line_at(data, 0, false, true), Some((1, 2)));
        assert_eq!(line_at(data, 2, false, true), Some((3, 5)));
        assert_eq!(line_at(data, 5, false, true), Some((6, 7)));
        assert_eq!(line_at(data, 7, false, true), None); // "d" may go on
        assert_eq!(line_at(data, 7, true, true), Some((8, 8)));
        assert_eq!(line_at(data, 8, true, true), None);
        assert_eq!(line_at(b"a\r", 0, false, true), None); // a LF may follow
        assert_eq!(line_at(b"a\r", 0, true, true), Some((1, 2)));
        assert_eq!(line_at(data, 2, false, false), Some((4, 5))); // the CR is text
        assert_eq!(line_at(data, 5, true, false), Some((8, 8)));
    }

    #[test]
    fn white_space_is_what_python_strips() {
        // every code point for which Python's str.isspace() holds (Python 3.11)
        let python: Vec<u32> = [
            0x9, 0xa, 0xb, 0xc, 0xd, 0x1c, 0x1d, 0x1e, 0x1f, 0x20, 0x85, 0xa0, 0x1680,
        ]
        .into_iter()
        .chain(0x2000..=0x200a)
        .chain([0x2028, 0x2029, 0x202f, 0x205f, 0x3000])
        .collect();
        let ours: Vec<u32> = (0..=0x10ffff_u32)
            .filter_map(char::from_u32)
            .filter(|&c| is_space(c))
            .map(u32::from)
            .collect();
        assert_eq!(ours, python);
        assert_eq!(strip("\u{a0} a b\x1f\u{3000}"), "a b");
        assert_eq!(strip("ab"), "ab");
        assert_eq!(strip(" \t"), "");
    }
}
