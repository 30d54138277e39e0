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

#[cfg(test)]
mod tests {
    use super::any_flagged;

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
}
