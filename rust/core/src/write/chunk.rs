//! Rows on their way from Python to be rendered: what the reading thread (which holds the GIL)
//! copies of each row, and nothing more. A value given as text is kept as text and checked
//! where the chunk is rendered (without the GIL, on another thread when a core is spare); a
//! value given as an object (a date, a float) is checked as it is read, since reading it needs
//! the GIL anyway.

use super::locs::plain_under;
use super::render::{Rendered, Values};
use crate::values::lastmod::{self, Lastmod};
use crate::values::scalars::{self, Priority};

/// A value as the writer takes it: `Some(None)` absent, `Some(Some(v))` a checked value, and
/// `None` when it is invalid or unusual: the batch then goes the per-entry way, which checks
/// each value the long way and reports the bad ones.
pub type Checked<T> = Option<Option<T>>;

/// A value given as text: blank is absent (`model._absent`), else `read` checks it.
pub fn from_text<T>(text: &str, read: impl Fn(&str) -> Option<T>) -> Checked<T> {
    let trimmed = scalars::trim_python_space(text)?;
    if trimmed.is_empty() {
        return Some(None);
    }
    Some(Some(read(trimmed)?))
}

/// One value of a row as read: checked already, or the span of its text in the chunk.
#[derive(Clone, Copy, Debug)]
pub enum Given<T> {
    Value(Option<T>),
    Text(usize, usize),
}

impl<T> Given<T> {
    fn checked(self, texts: &str, read: impl Fn(&str) -> Option<T>) -> Checked<T> {
        match self {
            Given::Value(value) => Some(value),
            Given::Text(start, end) => from_text(&texts[start..end], read),
        }
    }
}

/// A row's loc (its span in the chunk's text) and its values as given.
#[derive(Clone, Copy, Debug)]
struct ChunkRow {
    loc: (usize, usize),
    lastmod: Given<Lastmod>,
    changefreq: Given<&'static str>,
    priority: Given<Priority>,
}

/// Rows read but not yet checked nor rendered: their texts back to back, and each row's spans.
#[derive(Clone, Debug, Default)]
pub struct RowChunk {
    texts: String,
    rows: Vec<ChunkRow>,
}

impl RowChunk {
    pub fn with_capacity(rows: usize) -> RowChunk {
        RowChunk {
            texts: String::with_capacity(rows * 80),
            rows: Vec::with_capacity(rows),
        }
    }

    /// A text value of the row being read: its span, to give to [`RowChunk::push`].
    pub fn text<T>(&mut self, text: &str) -> Given<T> {
        let start = self.texts.len();
        self.texts.push_str(text);
        Given::Text(start, self.texts.len())
    }

    /// A row: its loc and its values (texts given by [`RowChunk::text`] first).
    pub fn push(
        &mut self,
        loc: &str,
        lastmod: Given<Lastmod>,
        changefreq: Given<&'static str>,
        priority: Given<Priority>,
    ) {
        let start = self.texts.len();
        self.texts.push_str(loc);
        self.rows.push(ChunkRow {
            loc: (start, self.texts.len()),
            lastmod,
            changefreq,
            priority,
        });
    }

    pub fn len(&self) -> usize {
        self.rows.len()
    }

    pub fn is_empty(&self) -> bool {
        self.rows.is_empty()
    }
}

impl Rendered {
    /// Check and render a chunk's rows: each loc, when there is a `prefix`, a plain URI under
    /// it of at most `max_length` bytes (`locs::plain_under`); each text value as
    /// [`from_text`] reads it. False, with the chunk rendered up to that row, when a loc or
    /// value is not: the batch then goes the long way.
    pub fn push_chunk(
        &mut self,
        chunk: &RowChunk,
        prefix: Option<&str>,
        max_length: usize,
        text: bool,
    ) -> bool {
        let texts = chunk.texts.as_str();
        for row in &chunk.rows {
            let loc = &texts[row.loc.0..row.loc.1];
            if prefix.is_some_and(|prefix| !plain_under(loc, prefix, max_length)) {
                return false;
            }
            let values = || -> Option<Values> {
                Some(Values {
                    lastmod: row.lastmod.checked(texts, lastmod::parse)?,
                    changefreq: row.changefreq.checked(texts, scalars::changefreq)?,
                    priority: row.priority.checked(texts, Priority::from_text)?,
                })
            };
            let Some(values) = values() else {
                return false;
            };
            self.push(loc, &values, text);
        }
        true
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn texts(chunk: &mut RowChunk, loc: &str, lastmod: &str, changefreq: &str, priority: &str) {
        let (l, c, p) = (
            chunk.text(lastmod),
            chunk.text(changefreq),
            chunk.text(priority),
        );
        chunk.push(loc, l, c, p);
    }

    #[test]
    fn a_chunk_renders_as_its_rows_checked_one_by_one() {
        let mut chunk = RowChunk::with_capacity(3);
        texts(
            &mut chunk,
            "https://x.org/a?b=1&c='2'",
            " 2024-01-02",
            "Daily ",
            "0.50",
        );
        chunk.push(
            "https://x.org/é",
            Given::Value(None),
            Given::Value(Some("weekly")),
            Given::Value(Priority::from_f64(0.25)),
        );
        texts(&mut chunk, "https://x.org/c", "", "\t", " ");
        assert_eq!(chunk.len(), 3);
        let mut whole = Rendered::with_capacity(3);
        assert!(whole.push_chunk(&chunk, None, 2048, false));
        let mut one_by_one = Rendered::with_capacity(3);
        let first = Values {
            lastmod: lastmod::parse("2024-01-02"),
            changefreq: Some("daily"),
            priority: Priority::from_text("0.5"),
        };
        one_by_one.push("https://x.org/a?b=1&c='2'", &first, false);
        let second = Values {
            lastmod: None,
            changefreq: Some("weekly"),
            priority: Priority::from_f64(0.25),
        };
        one_by_one.push("https://x.org/é", &second, false);
        one_by_one.push("https://x.org/c", &Values::default(), false);
        assert_eq!(whole.bytes(0, 3), one_by_one.bytes(0, 3));
        assert_eq!(whole.hashes(), one_by_one.hashes());
        assert_eq!(whole.loc(2), "https://x.org/c");
        let mut refused = Rendered::with_capacity(3);
        assert!(!refused.push_chunk(&chunk, Some("https://x.org/"), 2048, false));
        assert_eq!(refused.len(), 1); // é is not a plain URI
        assert!(!refused.push_chunk(&chunk, Some("https://y.org/"), 2048, false));
    }

    #[test]
    fn a_bad_text_value_refuses_the_chunk_at_its_row() {
        for (lastmod, changefreq, priority) in [
            ("2024-13-01", "daily", "0.5"),
            ("2024-01-01", "sometimes", "0.5"),
            ("2024-01-01", "daily", "1.5"),
            ("2024-01-01", "daily", "x"),
        ] {
            let mut chunk = RowChunk::with_capacity(2);
            texts(&mut chunk, "https://x.org/a", "2024-01-01", "daily", "0.5");
            texts(&mut chunk, "https://x.org/b", lastmod, changefreq, priority);
            let mut rendered = Rendered::with_capacity(2);
            assert!(!rendered.push_chunk(&chunk, None, 2048, false));
            assert_eq!(rendered.len(), 1, "{lastmod} {changefreq} {priority}");
        }
    }
}
