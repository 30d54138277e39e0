//! Byte scans shared by the value checks: whether any byte of a text may need a closer look,
//! sixteen bytes at a time (the compiler makes vector code of the block's test), so that the
//! exact check, a byte at a time, runs only on the rare texts that hold such a byte.

/// Whether any byte of `text` passes `flag` (a cheap test without branches).
#[inline(always)]
pub fn any_flagged(text: &[u8], flag: impl Fn(u8) -> bool) -> bool {
    let mut blocks = text.chunks_exact(16);
    for block in blocks.by_ref() {
        if block.iter().fold(false, |any, &b| any | flag(b)) {
            return true;
        }
    }
    blocks.remainder().iter().any(|&b| flag(b))
}

/// `0x01` in each byte of a word, and `0x80`: the constants of the word-at-a-time tests below.
const ONES: u64 = u64::from_le_bytes([1; 8]);
const HIGHS: u64 = ONES << 7;

/// Bit 7 of each byte of `word` (eight bytes of text, the first lowest) set where the byte is
/// not printable ASCII (a control or not ASCII; DEL passes) or is `&` or `]`. Only the lowest
/// set bit is sure to be right: the subtractions' borrows may flag bytes above a flagged one.
#[inline(always)]
pub fn unplain_bits(word: u64) -> u64 {
    let zero = |x: u64| x.wrapping_sub(ONES) & !x;
    let control = word.wrapping_sub(ONES * 0x20) & !word;
    (word | control | zero(word ^ (ONES * u64::from(b'&'))) | zero(word ^ (ONES * u64::from(b']'))))
        & HIGHS
}

/// The first place at or after `from` of a byte of `text` that `bits` ([`unplain_bits`]'s
/// kind: the lowest set bit right) flags, eight bytes at a time; a text's last bytes are read
/// as the word that ends it, the bytes before `from` in it made `filler` (a byte never
/// flagged), so that no byte already passed flags another.
#[inline(always)]
pub fn next_flagged(
    text: &[u8],
    from: usize,
    bits: impl Fn(u64) -> u64,
    filler: u8,
) -> Option<usize> {
    let word = |at: usize| {
        let mut w = [0u8; 8];
        w.copy_from_slice(&text[at..at + 8]);
        u64::from_le_bytes(w)
    };
    let first = |flags: u64| (flags.trailing_zeros() / 8) as usize;
    let mut at = from;
    while at + 8 <= text.len() {
        let flags = bits(word(at));
        if flags != 0 {
            return Some(at + first(flags));
        }
        at += 8;
    }
    if at >= text.len() {
        return None;
    }
    let (start, w) = if text.len() >= 8 {
        (text.len() - 8, word(text.len() - 8))
    } else {
        // the text's bytes shifted in from its last, over the filler (a copy of a few bytes
        // into an array is a memcpy call, more than the text's own cost)
        let fillers = ONES * u64::from(filler);
        (
            0,
            text.iter()
                .rev()
                .fold(fillers, |w, &b| (w << 8) | u64::from(b)),
        )
    };
    // the bytes before `at` (already passed) as `filler`
    let passed = 8 * (at - start) as u32;
    let kept = u64::MAX.checked_shl(passed).unwrap_or(0);
    let flags = bits((w & kept) | ((ONES * u64::from(filler)) & !kept));
    (flags != 0)
        .then(|| start + first(flags))
        .filter(|&i| i < text.len())
}

/// Where `needle` (no newline in it) is first on the line `lines` lines past the one
/// `data[start..]` begins on: (where that line starts, where the needle is), or None when it
/// is not on that line in `data`. A value finding's column (src/urlset/reading/columns.py):
/// the search ends at the line's end, found a growing window at a time, so a line without
/// the needle costs its own length, not the rest of `data`, and a long line with it the
/// distance to it.
pub fn find_on_line(
    data: &[u8],
    start: usize,
    lines: usize,
    needle: &[u8],
) -> Option<(usize, usize)> {
    let mut from = start.min(data.len());
    if lines > 0 {
        from += memchr::memchr_iter(b'\n', &data[from..]).nth(lines - 1)? + 1;
    }
    let mut looked = from; // no newline in data[from..looked]
    let mut window = 4096;
    loop {
        let end = (from + window).min(data.len());
        let newline = memchr::memchr(b'\n', &data[looked..end]).map(|i| looked + i);
        // a needle starting before `end` on the line, whole
        let within = newline.unwrap_or((end + needle.len().saturating_sub(1)).min(data.len()));
        if let Some(at) = memchr::memmem::find(&data[from..within], needle) {
            return Some((from, from + at));
        }
        if newline.is_some() || end == data.len() {
            return None;
        }
        looked = end;
        window *= 2;
    }
}

#[cfg(test)]
mod tests {
    use super::{any_flagged, find_on_line, next_flagged, unplain_bits};

    #[test]
    fn finds_each_unplain_byte_in_turn() {
        let plain = |b: u8| (0x20..0x80).contains(&b) && b != b'&' && b != b']';
        let mut next = crate::draws(13);
        let bytes = [
            b'a', b' ', b'~', 0x7f, b'&', b']', b'\t', 0, 0x1f, 0x20, 0x80, 0xff, 0xEF,
        ];
        for _ in 0..20_000 {
            let len = next(40);
            let text: Vec<u8> = (0..len).map(|_| bytes[next(bytes.len())]).collect();
            let want: Vec<usize> = (0..len).filter(|&i| !plain(text[i])).collect();
            let mut got = Vec::new();
            let mut from = 0;
            while let Some(at) = next_flagged(&text, from, unplain_bits, b'a') {
                got.push(at);
                from = at + 1;
            }
            assert_eq!(got, want, "{text:?}");
        }
    }

    #[test]
    fn flags_anywhere() {
        let text = [b'a'; 40];
        assert!(!any_flagged(&text, |b| b == b'x'));
        for at in [0, 15, 16, 31, 32, 39] {
            let mut t = text;
            t[at] = b'x';
            assert!(any_flagged(&t, |b| b == b'x'), "{at}");
        }
        assert!(!any_flagged(b"", |_| true));
    }

    #[test]
    fn a_needle_is_found_on_its_line_only() {
        let data = b"ab\ncd>x\n>x ef>x";
        assert_eq!(find_on_line(data, 0, 0, b">x"), None);
        assert_eq!(find_on_line(data, 0, 1, b">x"), Some((3, 5)));
        assert_eq!(find_on_line(data, 1, 2, b">x"), Some((8, 8)));
        assert_eq!(find_on_line(data, 0, 3, b">x"), None);
        assert_eq!(find_on_line(data, 0, 1, b"ef"), None);
        // past every window: a long line, the needle at its end or cut by it
        let mut long = vec![b'a'; 100_000];
        long.extend_from_slice(b">x\n>x");
        assert_eq!(find_on_line(&long, 0, 0, b">x"), Some((0, 100_000)));
        assert_eq!(find_on_line(&long, 0, 0, b"x\n>"), None);
        for cut in [4095, 4096, 4097, 12_287] {
            let mut at_seam = vec![b'a'; cut];
            at_seam.extend_from_slice(b">xyz\nq");
            assert_eq!(
                find_on_line(&at_seam, 0, 0, b">xyz"),
                Some((0, cut)),
                "{cut}"
            );
            assert_eq!(find_on_line(&at_seam, 0, 0, b"q"), None, "{cut}");
        }
        assert_eq!(find_on_line(b"", 5, 0, b">"), None);
    }
}
