//! Overlong stretches: where a run of bytes without a '>', or a comment, CDATA section or
//! processing instruction, grows past the reader's cap. The reader's guard stops reading
//! at that byte (urlset.reading.xml_guard), whoever reads and however the bytes arrive; the
//! compiled lane hands the document to the careful lane before it, so both stop alike.

const OPENERS: [(&[u8], &[u8]); 3] = [(b"<!--", b"-->"), (b"<![CDATA[", b"]]>"), (b"<?", b"?>")];

/// The first index in `data[start..end]` at which a run without '>' (counting `run_before`
/// bytes without one before `start`) reaches `cap + 1` bytes.
pub fn run_over(
    data: &[u8],
    start: usize,
    end: usize,
    run_before: usize,
    cap: usize,
) -> Option<usize> {
    let end = end.min(data.len());
    let mut last = start as isize - 1 - run_before as isize; // where the run's '>' stands
    let mut from = start.min(end);
    loop {
        let next = memchr::memchr(b'>', &data[from..end]).map_or(end, |at| from + at);
        let over = last + cap as isize + 1;
        if over < next as isize && over >= start as isize {
            return Some(over as usize);
        }
        if next >= end {
            return None;
        }
        last = next as isize;
        from = next + 1;
    }
}

/// The first index in `data[start..end]` (which starts after a '>') at which a run without
/// '>' or a section (comment, CDATA, processing instruction) reaches `cap + 1` bytes: the
/// byte where the guard stops reading. A section still open at `end` counts what it has.
pub fn overlong(data: &[u8], start: usize, end: usize, cap: usize) -> Option<usize> {
    let end = end.min(data.len());
    if end.saturating_sub(start) <= cap {
        return None;
    }
    let runs = run_over(data, start, end, 0, cap);
    let limit = runs.unwrap_or(end);
    let mut at = start;
    while let Some(found) = memchr::memchr(b'<', &data[at..limit]) {
        let open = at + found;
        let Some((opener, closer)) = OPENERS.iter().find(|(o, _)| data[open..end].starts_with(o))
        else {
            at = open + 1;
            continue;
        };
        let body = open + opener.len();
        let close =
            memchr::memmem::find(&data[body..end], closer).map_or(end, |c| body + c + closer.len());
        if close - open > cap + 1 {
            return Some((open + cap + 1).min(limit));
        }
        at = close;
        if at >= limit {
            break;
        }
    }
    runs
}

#[cfg(test)]
mod tests {
    use super::{overlong, run_over};

    #[test]
    fn runs() {
        assert_eq!(run_over(b"abcd>ab", 0, 7, 0, 3), Some(3));
        assert_eq!(run_over(b"abc>abc>", 0, 8, 0, 3), None);
        assert_eq!(run_over(b"ab>", 0, 3, 2, 3), Some(1));
        assert_eq!(run_over(b">abcd", 0, 5, 9, 3), Some(4));
        assert_eq!(run_over(b"xx>abcd", 2, 7, 0, 3), Some(6));
    }

    #[test]
    fn sections() {
        let text = b"<a>x</a><!-- >>>>>>>>>> --><b>";
        assert_eq!(overlong(text, 0, text.len(), 12), Some(8 + 13));
        assert_eq!(overlong(text, 0, text.len(), 30), None);
        let open = b"<a><?pi >>>>>>>>>>>>>>>>>";
        assert_eq!(overlong(open, 0, open.len(), 10), Some(3 + 11));
        let run = b"<a>xxxxxxxxxxxxxxxxxxx<!-- -->";
        assert_eq!(overlong(run, 0, run.len(), 10), Some(2 + 11));
    }
}
