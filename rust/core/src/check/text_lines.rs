//! The lines of a text sitemap the checker must judge (Python's
//! `urlset.checking.raw_text.text_lines`): every line but the quiet ones, an absolute
//! http(s) URL of printable ASCII without a character a URI never holds, on which no rule
//! finds anything. Most text sitemaps are all quiet lines; this finds the others at memchr
//! speed where a regular expression tried each line in turn.

/// Whether `byte` may stand in a quiet line's URL: printable ASCII but the space and
/// `"` `\` `^` `` ` `` `{` `|` `}`.
const fn quiet_byte(byte: u8) -> bool {
    matches!(byte, b'!' | b'#'..=b'[' | b']' | b'_' | b'a'..=b'z' | b'~')
}

const QUIET: [bool; 256] = {
    let mut table = [false; 256];
    let mut byte = 0;
    while byte < 256 {
        table[byte] = quiet_byte(byte as u8);
        byte += 1;
    }
    table
};

/// Whether `line` (its line end not included; a CR of a CR LF may end it) is quiet: a
/// scheme `http` or `https` in any case, `://`, then only `QUIET` bytes.
pub fn is_quiet(line: &[u8]) -> bool {
    let line = line.strip_suffix(b"\r").unwrap_or(line);
    let rest = match line.get(..4) {
        Some(scheme) if scheme.eq_ignore_ascii_case(b"http") => &line[4..],
        _ => return false,
    };
    let rest = match rest.first() {
        Some(b's' | b'S') => &rest[1..],
        _ => rest,
    };
    match rest.strip_prefix(b"://") {
        Some(tail) => tail.iter().all(|&byte| QUIET[byte as usize]),
        None => false,
    }
}

/// The lines of `chunk` (split at each LF; the last runs to the end) that are not quiet,
/// each as (its number counted from 0, its start, its end) in `chunk`.
pub fn odd_lines(chunk: &[u8]) -> Vec<(usize, usize, usize)> {
    let mut odd = Vec::new();
    let mut start = 0;
    for (number, end) in memchr::memchr_iter(b'\n', chunk)
        .chain(std::iter::once(chunk.len()))
        .enumerate()
    {
        if !is_quiet(&chunk[start..end]) {
            odd.push((number, start, end));
        }
        start = end + 1;
    }
    odd
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn quiet_lines_are_plain_absolute_urls() {
        for line in [
            "https://example.com/a?b=1&c='2'",
            "HTTP://EXAMPLE.COM/",
            "hTtPs://x",
            "http://",
            "https://example.com/a\r",
            "https://example.com/%E2%82%AC~_[]",
        ] {
            assert!(is_quiet(line.as_bytes()), "{line}");
        }
        for line in [
            "",
            " https://example.com/",
            "https://example.com/ ",
            "https://example.com/a b",
            "https://example.com/\u{e9}",
            "https://example.com/{x}",
            "https://example.com/a\\b",
            "https://example.com/\r\r",
            "https://example.com/\ra",
            "https://example.com/\t",
            "ftp://example.com/",
            "httpss://example.com/",
            "http:/example.com/",
            "example.com/",
            "# a header",
        ] {
            assert!(!is_quiet(line.as_bytes()), "{line:?}");
        }
    }

    #[test]
    fn odd_lines_number_and_place_each_line() {
        let chunk = b"https://a.example/\n\nnot a url\nhttps://b.example/\r\nhttps://c.example/ x";
        assert_eq!(
            odd_lines(chunk),
            vec![(1, 19, 19), (2, 20, 29), (4, 50, 70)]
        );
        assert_eq!(odd_lines(b""), vec![(0, 0, 0)]);
        assert_eq!(odd_lines(b"https://a.example/\n"), vec![(1, 19, 19)]);
    }
}
