//! Lines as Python's text files give them with `newline=""` (LF, CRLF or a lone CR ends one),
//! and the white space `str.strip` removes.
use memchr::{memchr, memchr2};

/// A byte of each of a word's eight bytes.
pub const ONES: u64 = 0x0101_0101_0101_0101;
/// The top bit of each byte of a word.
pub const HIGH: u64 = 0x8080_8080_8080_8080;

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

/// Where the first `byte` of `bytes` is: a word of eight bytes at a time over the first 64,
/// then by `memchr`. The pieces between a JSON cell's doubled quotes are short, where a
/// `memchr` call costs more than it saves.
#[inline]
pub fn find_near(byte: u8, bytes: &[u8]) -> Option<usize> {
    let near = bytes.len().min(64);
    let mut at = 0;
    while at + 8 <= near {
        let word = u64::from_le_bytes(bytes[at..at + 8].try_into().unwrap_or_default());
        // a zero byte where `byte` is; the lowest mark is the first zero byte's (a false
        // mark only above a true one)
        let zeroed = word ^ (ONES * u64::from(byte));
        let marks = zeroed.wrapping_sub(ONES) & !zeroed & HIGH;
        if marks != 0 {
            return Some(at + marks.trailing_zeros() as usize / 8);
        }
        at += 8;
    }
    match bytes[at..near].iter().position(|&b| b == byte) {
        Some(found) => Some(at + found),
        None => memchr(byte, &bytes[near..]).map(|found| near + found),
    }
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

    #[test]
    fn find_near_finds_the_first_as_a_scan_does() {
        // every length to past the word loop and memchr's part, the byte anywhere or absent,
        // with bytes that differ from it by one bit (the word test's near misses)
        for len in 0..150 {
            let filler: Vec<u8> = (0..len)
                .map(|i| [b'a', b'#', 0xa2, b'"' ^ 0x80][i % 4])
                .collect();
            for place in (0..len).step_by(3).map(Some).chain([None]) {
                let mut bytes = filler.clone();
                if let Some(place) = place {
                    bytes[place] = b'"';
                    if place + 1 < len {
                        bytes[place + 1] = b'"';
                    }
                }
                let expected = bytes.iter().position(|&b| b == b'"');
                assert_eq!(find_near(b'"', &bytes), expected, "{len} {place:?}");
            }
        }
    }
}
