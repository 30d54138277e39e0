//! Which locs the writer may take as they are: URIs that `urls.to_uri` would return unchanged,
//! under the set's directory (`urls.is_plain_uri` and the scope rule, for one loc at a time).

/// Bytes RFC 3986 allows in a URI as they are (`urls._LOC_ALLOWED`), as a table.
const ALLOWED: [bool; 256] = {
    let mut table = [false; 256];
    let mut byte = 0;
    while byte < 256 {
        let b = byte as u8;
        table[byte] = b.is_ascii_alphanumeric();
        byte += 1;
    }
    let others = b"-._~!$&'()*+,;=:@/?%";
    let mut i = 0;
    while i < others.len() {
        table[others[i] as usize] = true;
        i += 1;
    }
    table
};

fn allowed(byte: u8) -> bool {
    ALLOWED[usize::from(byte)]
}

/// True when `loc` starts with `prefix` (a directory URI whose origin the caller checked),
/// is at most `max_length` long, holds only bytes a URI allows as they are, no dot segment
/// ("/."), and '%' only in an escape of two hex digits other than %2E. False only means
/// "check this one the long way".
pub fn plain_loc(loc: &str, prefix: &str, max_length: usize) -> bool {
    let bytes = loc.as_bytes();
    if bytes.len() > max_length || !loc.starts_with(prefix) {
        return false;
    }
    let mut previous = 0u8;
    for (at, &byte) in bytes.iter().enumerate() {
        if !allowed(byte) || (previous == b'/' && byte == b'.') {
            return false;
        }
        if byte == b'%' {
            let hex = |i: usize| bytes.get(at + i).is_some_and(u8::is_ascii_hexdigit);
            if !hex(1) || !hex(2) || (bytes[at + 1] == b'2' && bytes[at + 2] | 0x20 == b'e') {
                return false;
            }
        }
        previous = byte;
    }
    true
}

#[cfg(test)]
mod tests {
    use super::plain_loc;

    const PREFIX: &str = "https://x.org/";

    #[test]
    fn plain_locs_pass_and_others_go_the_long_way() {
        for loc in [
            "https://x.org/",
            "https://x.org/a/b?c=1&d='2'",
            "https://x.org/caf%C3%a9",
            "https://x.org/a.b/c..d",
        ] {
            assert!(plain_loc(loc, PREFIX, 2048), "{loc}");
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
            assert!(!plain_loc(loc, PREFIX, 2048), "{loc}");
        }
        assert!(!plain_loc("https://x.org/abc", PREFIX, 16));
        assert!(plain_loc("https://x.org/ab", PREFIX, 16));
    }
}
