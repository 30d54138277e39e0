//! URL lists: one URL a line, blank lines and `#` comments skipped.
use super::lines::{is_space, line_at, strip, utf8};
use super::{Rows, Value, NOT_UTF8};

/// Read lines from `data[pos..]` into `rows` until it holds `max_rows` rows or the data ends
/// (a line the data may still continue is left unread unless `eof`); `line` is the number of
/// the last line read and moves on; `lone_cr`: a CR alone ends a line (`line_at`). Returns
/// where reading stopped.
pub fn read(
    data: &[u8],
    mut pos: usize,
    eof: bool,
    line: &mut u64,
    max_rows: usize,
    rows: &mut Rows,
    lone_cr: bool,
) -> usize {
    while rows.values.len() < max_rows {
        let Some((end, next)) = line_at(data, pos, eof, lone_cr) else {
            break;
        };
        *line += 1;
        let bytes = &data[pos..end];
        pos = next;
        match utf8(bytes) {
            Some(text) => {
                let text = strip(text);
                if !text.is_empty() && !text.starts_with('#') {
                    let loc = rows.keep(text);
                    rows.push(*line, [loc, Value::Absent, Value::Absent, Value::Absent]);
                }
            }
            None if !comment(bytes) => rows.problem(*line, NOT_UTF8.to_string()),
            None => {}
        }
    }
    pos
}

/// Whether a line that is not UTF-8 is a comment all the same: its first character after
/// white space is `#` (the bytes Python cannot decode are characters that are not space).
fn comment(bytes: &[u8]) -> bool {
    let valid = bytes.utf8_chunks().next().map_or("", |chunk| chunk.valid());
    valid.trim_start_matches(is_space).starts_with('#')
}

#[cfg(test)]
mod tests {
    use super::*;

    type Read = (Vec<(u64, String)>, Vec<(usize, u64)>, usize);

    fn locs(data: &[u8], max_rows: usize) -> Read {
        let mut rows = Rows::default();
        let mut line = 0;
        let end = read(data, 0, true, &mut line, max_rows, &mut rows, true);
        let found = rows
            .values
            .iter()
            .zip(&rows.lines)
            .map(|(v, &l)| (l, rows.text_of(v[0]).unwrap().to_string()))
            .collect();
        let problems = rows.problems.iter().map(|p| (p.before, p.line)).collect();
        (found, problems, end)
    }

    #[test]
    fn lines_comments_blanks_and_bad_bytes() {
        let data = b"# c\n a \r\n\n\xff\r \xc2\x85#x\xff\nb\rc";
        let (found, problems, end) = locs(data, 10);
        let want = [(2, "a"), (6, "b"), (7, "c")].map(|(l, t)| (l, t.to_string()));
        assert_eq!(found, want);
        assert_eq!(problems, [(1, 4)]);
        assert_eq!(end, data.len());
        let (found, _, end) = locs(data, 1);
        assert_eq!(found.len(), 1);
        assert_eq!(end, 9);
    }
}
