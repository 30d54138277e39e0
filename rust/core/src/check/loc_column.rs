//! What the checker's rules need of a run of the loc column the render lane wrote (the rows
//! of an Arrow string column: offsets and UTF-8 values), so that a run of plain records
//! makes no string per loc: the locs' hashes the set rules take (the reader's, made for its
//! duplicate test: the build's `loc_hash`, which hreflang's reciprocity compares), each
//! loc's authority, and whether every loc starts with a prefix (its authority, the scope),
//! the host and scope rules' fast path.

/// The rows of an Arrow string column: `offsets` (native-endian `i32`s, one more than the
/// rows) into `values`.
#[derive(Debug, Clone, Copy)]
pub struct StringColumn<'a> {
    offsets: &'a [u8],
    values: &'a [u8],
}

impl<'a> StringColumn<'a> {
    pub fn new(offsets: &'a [u8], values: &'a [u8]) -> StringColumn<'a> {
        StringColumn { offsets, values }
    }

    fn offset(&self, row: usize) -> Option<usize> {
        let bytes = self.offsets.get(4 * row..4 * row + 4)?;
        usize::try_from(i32::from_ne_bytes(bytes.try_into().ok()?)).ok()
    }

    /// Row `row`'s bytes; None past the column or for offsets that do not fit its values.
    pub fn row(&self, row: usize) -> Option<&'a [u8]> {
        let (start, end) = (self.offset(row)?, self.offset(row + 1)?);
        self.values.get(start..end)
    }

    /// Row `row`'s length in bytes; None past the column or for offsets out of order.
    pub fn length(&self, row: usize) -> Option<usize> {
        self.offset(row + 1)?.checked_sub(self.offset(row)?)
    }

    /// Rows `start..stop` as text, their values checked as UTF-8 in one pass (a row per call
    /// cost ~130 instructions a loc); None when the rows' values are outside the column or
    /// not UTF-8.
    pub fn texts(&self, start: usize, stop: usize) -> Option<Texts<'a>> {
        let from = self.offset(start)?;
        let values = self.values.get(from..self.offset(stop.max(start))?)?;
        Some(Texts {
            column: *self,
            from,
            text: std::str::from_utf8(values).ok()?,
        })
    }
}

/// Rows of a [`StringColumn`] whose values are text ([`StringColumn::texts`]).
#[derive(Debug, Clone, Copy)]
pub struct Texts<'a> {
    column: StringColumn<'a>,
    from: usize, // the first row's offset: where `text` starts in the values
    text: &'a str,
}

impl<'a> Texts<'a> {
    /// Row `row`'s text; None past the rows checked, or when its offsets do not fall on
    /// characters (so a row is text exactly when its own bytes are).
    pub fn row(&self, row: usize) -> Option<&'a str> {
        let start = self.column.offset(row)?.checked_sub(self.from)?;
        let end = self.column.offset(row + 1)?.checked_sub(self.from)?;
        self.text.get(start..end)
    }
}

/// The loc hashes (8 bytes each, the reader's: `read::seen::hash_of`) whose byte in `mask`
/// is not 0, in their order;
/// None when `mask` has not one byte a hash.
pub fn hashes_where(hashes: &[u8], mask: &[u8]) -> Option<Vec<u8>> {
    if hashes.len() != 8 * mask.len() {
        return None;
    }
    let kept = mask.iter().filter(|&&m| m != 0).count();
    if kept == mask.len() {
        return Some(hashes.to_vec());
    }
    let mut out = Vec::with_capacity(8 * kept);
    for (hash, &m) in hashes.chunks_exact(8).zip(mask) {
        if m != 0 {
            out.extend_from_slice(hash);
        }
    }
    Some(out)
}

/// Whether every loc of rows `start..stop` starts with `prefix`; None when a row is outside
/// the column.
pub fn all_start_with(
    column: StringColumn<'_>,
    start: usize,
    stop: usize,
    prefix: &[u8],
) -> Option<bool> {
    for row in start..stop {
        if !column.row(row)?.starts_with(prefix) {
            return Some(false);
        }
    }
    Some(true)
}

const FEW_AUTHORITIES: usize = 8;

/// Each distinct `scheme://authority` of rows `start..stop` (a loc cut at its first `/`
/// from its ninth byte on, all of it without one, as the checker's `Hosts.check` cuts it),
/// in the order first seen, with the row (from `start`) of its first loc and its number of
/// locs; None when a row is outside the column or a loc's first eight bytes are not ASCII
/// (the cut is by characters there).
pub fn authorities<'a>(
    column: StringColumn<'a>,
    start: usize,
    stop: usize,
) -> Option<Vec<(&'a [u8], usize, usize)>> {
    let mut found: Vec<(&'a [u8], usize, usize)> = Vec::new();
    let mut index: std::collections::HashMap<&'a [u8], usize> = std::collections::HashMap::new();
    let mut last: Option<usize> = None; // the usual run: the same authority as the row before
    for row in start..stop {
        let loc = column.row(row)?;
        // the authority of the row before, if this loc has it: its first eight bytes (ASCII,
        // checked then) and no `/` after them up to where a `/` or the loc's end cuts it
        if let Some(at) = last {
            let before = found[at].0;
            if before.len() >= 8
                && loc.starts_with(before)
                && loc.get(before.len()).is_none_or(|&b| b == b'/')
            {
                found[at].2 += 1;
                continue;
            }
        }
        if !loc.iter().take(8).all(u8::is_ascii) {
            return None;
        }
        let end = loc
            .get(8..)
            .and_then(|rest| memchr::memchr(b'/', rest))
            .map_or(loc.len(), |at| at + 8);
        let authority = &loc[..end];
        // a few authorities (a sitemap's usual): compared in turn, not hashed
        let known = if found.len() <= FEW_AUTHORITIES {
            found.iter().position(|f| f.0 == authority)
        } else {
            index.get(authority).copied()
        };
        let at = known.unwrap_or_else(|| {
            found.push((authority, row - start, 0));
            index.insert(authority, found.len() - 1);
            found.len() - 1
        });
        found[at].2 += 1;
        last = Some(at);
    }
    Some(found)
}

#[cfg(test)]
mod tests {
    use super::*;

    use crate::check::test_column as column;

    #[test]
    fn hashes_where_keeps_those_the_mask_marks() {
        let hashes: Vec<u8> = (0u64..4).flat_map(u64::to_ne_bytes).collect();
        let kept: Vec<u8> = [1u64, 3].into_iter().flat_map(u64::to_ne_bytes).collect();
        assert_eq!(hashes_where(&hashes, &[0, 1, 0, 1]), Some(kept));
        assert_eq!(hashes_where(&hashes, &[1; 4]), Some(hashes.clone()));
        assert_eq!(hashes_where(&hashes, &[0; 4]), Some(vec![]));
        assert_eq!(hashes_where(&hashes, &[1; 3]), None);
    }

    #[test]
    fn texts_are_the_rows_asked_checked_once() {
        let rows = ["https://a.org/x", "https://a.org/caf\u{e9}", ""];
        let (offsets, values) = column(&rows);
        let col = StringColumn::new(&offsets, &values);
        let texts = col.texts(1, 3).unwrap();
        assert_eq!(
            (texts.row(1), texts.row(2), texts.row(0)),
            (Some(rows[1]), Some(""), None)
        );
        // a row that cuts a character in two is not text, though the rows together are
        let (offsets, values) = column(&["a\u{e9}"]);
        let cut: Vec<u8> = [0i32, 2, 3].iter().flat_map(|o| o.to_ne_bytes()).collect();
        let col = StringColumn::new(&cut, &values);
        let texts = col.texts(0, 2).unwrap();
        assert_eq!((texts.row(0), texts.row(1)), (None, None));
        assert_eq!(
            StringColumn::new(&offsets, &values)
                .texts(0, 1)
                .unwrap()
                .row(0),
            Some("a\u{e9}")
        );
    }

    #[test]
    fn prefixes_are_judged_on_the_rows_asked_only() {
        let (offsets, values) = column(&["http://b.org/", "https://a.org/x", "https://a.org/"]);
        let col = StringColumn::new(&offsets, &values);
        assert_eq!(all_start_with(col, 1, 3, b"https://a.org/"), Some(true));
        assert_eq!(all_start_with(col, 0, 3, b"https://a.org/"), Some(false));
        assert_eq!(all_start_with(col, 1, 1, b"x"), Some(true));
    }

    #[test]
    fn authorities_in_the_order_first_seen_with_counts() {
        let rows = [
            "https://a.org/x",
            "https://a.org/y",
            "http://b.org:8080/",
            "https://a.org",
            "https://a.org/z",
            "https://c.org?q=1/2",
        ];
        let (offsets, values) = column(&rows);
        let got = authorities(StringColumn::new(&offsets, &values), 0, rows.len()).unwrap();
        let want: Vec<(&[u8], usize, usize)> = vec![
            (b"https://a.org", 0, 4),
            (b"http://b.org:8080", 2, 1),
            (b"https://c.org?q=1", 5, 1),
        ];
        assert_eq!(got, want);
        // more authorities than are compared in turn: hashed, the same counts
        let many: Vec<String> = (0..60)
            .map(|i| format!("https://h{}.org/{i}", i % 20))
            .collect();
        let rows: Vec<&str> = many.iter().map(String::as_str).collect();
        let (offsets, values) = column(&rows);
        let got = authorities(StringColumn::new(&offsets, &values), 0, rows.len()).unwrap();
        assert_eq!(got.len(), 20);
        for (k, (authority, first, count)) in got.into_iter().enumerate() {
            assert_eq!(
                (authority, first, count),
                (format!("https://h{k}.org").as_bytes(), k, 3)
            );
        }
        let (offsets, values) = column(&["h\u{e9}tp://x/"]);
        assert_eq!(
            authorities(StringColumn::new(&offsets, &values), 0, 1),
            None
        );
    }

    /// Each loc cut as the checker cuts it (at its first `/` from its ninth byte on).
    fn cut_one_by_one<'a>(rows: &[&'a str]) -> Vec<(&'a [u8], usize, usize)> {
        let mut found: Vec<(&[u8], usize, usize)> = Vec::new();
        for (row, loc) in rows.iter().enumerate() {
            let end = loc
                .get(8..)
                .and_then(|r| r.find('/'))
                .map_or(loc.len(), |at| at + 8);
            let authority = &loc.as_bytes()[..end];
            match found.iter_mut().find(|f| f.0 == authority) {
                Some(f) => f.2 += 1,
                None => found.push((authority, row, 1)),
            }
        }
        found
    }

    #[test]
    fn an_authority_like_the_row_before_s_is_cut_as_any_other() {
        // every sequence of three locs that share a prefix with the one before and differ
        // after it: the authority before, longer, shorter, with a query, at the end
        let locs = [
            "https://a.org/x",
            "https://a.org",
            "https://a.orgx/y",
            "https://a.or/g",
            "https://a.org?q=/",
            "https://a.org/",
            "http://a.org/x",
            "https:/",
        ];
        for a in locs {
            for b in locs {
                for c in locs {
                    let rows = [a, b, c, b];
                    let (offsets, values) = column(&rows);
                    let got = authorities(StringColumn::new(&offsets, &values), 0, rows.len());
                    assert_eq!(got.unwrap(), cut_one_by_one(&rows), "{rows:?}");
                }
            }
        }
    }

    #[test]
    fn rows_outside_the_buffers_are_refused_not_read() {
        let (offsets, values) = column(&["https://a.org/x"]);
        let col = StringColumn::new(&offsets, &values);
        assert!(col.texts(0, 2).is_none());
        assert_eq!(all_start_with(col, 0, 2, b"https://"), None);
        let short = StringColumn::new(&offsets, &values[..3]);
        assert_eq!(short.row(0), None);
        assert!(StringColumn::new(
            &offsets,
            b"\xff\xff\xff\xff\xff\xff\xff\xff\xff\xff\xff\xff\xff\xff\xff"
        )
        .texts(0, 1)
        .is_none());
    }
}
