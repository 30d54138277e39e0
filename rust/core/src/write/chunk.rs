//! Rows on their way from Python to be rendered: what the reading thread (which holds the GIL)
//! copies of each row, and nothing more. A value given as text is kept as text and checked
//! where the chunk is rendered (without the GIL, on another thread when a core is spare); a
//! value given as an object (a date, a float) is checked as it is read, since reading it needs
//! the GIL anyway.

use super::locs::writable_loc;
use super::render::{Refusal, Rendered, Values};
use crate::values::extensions::Extensions;
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
    /// None: a row read as one the core cannot take (it goes the per-entry way)
    loc: Option<(usize, usize)>,
    lastmod: Given<Lastmod>,
    changefreq: Given<&'static str>,
    priority: Given<Priority>,
}

/// Rows read but not yet checked nor rendered: their texts back to back, each row's spans,
/// and the extensions of the rows that have some (by row, in order).
#[derive(Clone, Debug, Default)]
pub struct RowChunk {
    texts: String,
    rows: Vec<ChunkRow>,
    extensions: Vec<(usize, Extensions)>,
}

impl RowChunk {
    pub fn with_capacity(rows: usize) -> RowChunk {
        RowChunk {
            texts: String::with_capacity(rows * 80),
            rows: Vec::with_capacity(rows),
            extensions: Vec::new(),
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
            loc: Some((start, self.texts.len())),
            lastmod,
            changefreq,
            priority,
        });
    }

    /// The extensions of the row pushed next (checked: `values::extensions`).
    pub fn extensions(&mut self, extensions: Extensions) {
        if !extensions.is_empty() {
            self.extensions.push((self.rows.len(), extensions));
        }
    }

    /// A row the reader cannot take: it keeps its place, refused.
    pub fn refuse(&mut self) {
        self.rows.push(ChunkRow {
            loc: None,
            lastmod: Given::Value(None),
            changefreq: Given::Value(None),
            priority: Given::Value(None),
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
    /// Check and render a chunk's rows: each loc, when there is a `prefix`, one the core
    /// writes under it in at most `max_length` bytes (`locs::writable_loc`: plain, or an IRI
    /// made a URI); each text value as [`from_text`] reads it. A row that is not is refused
    /// (`Rendered::refuse`) and keeps its place: it alone goes the long way.
    pub fn push_chunk(
        &mut self,
        chunk: &RowChunk,
        prefix: Option<&str>,
        max_length: usize,
        text: bool,
    ) {
        let texts = chunk.texts.as_str();
        let none = Extensions::default();
        let mut extensions = chunk.extensions.iter().peekable();
        for (index, row) in chunk.rows.iter().enumerate() {
            let row_extensions = extensions.next_if(|(at, _)| *at == index);
            let row_extensions = row_extensions.map_or(&none, |(_, extensions)| extensions);
            let Some((start, end)) = row.loc else {
                self.refuse(Refusal::Row);
                continue;
            };
            let given = &texts[start..end];
            let loc = match prefix {
                None => Some(std::borrow::Cow::Borrowed(given)),
                Some(prefix) => writable_loc(given, prefix, max_length),
            };
            let Some(loc) = loc else {
                self.refuse(Refusal::Loc);
                continue;
            };
            let values = || -> Option<Values> {
                Some(Values {
                    lastmod: row.lastmod.checked(texts, lastmod::parse)?,
                    changefreq: row.changefreq.checked(texts, scalars::changefreq)?,
                    priority: row.priority.checked(texts, Priority::from_text)?,
                })
            };
            match values() {
                Some(values) => self.push_with(&loc, &values, text, row_extensions),
                None => self.refuse(Refusal::Value),
            }
        }
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
        whole.push_chunk(&chunk, None, 2048, false);
        assert!(whole.refused().is_empty());
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
        let mut under = Rendered::with_capacity(3);
        under.push_chunk(&chunk, Some("https://x.org/"), 2048, false);
        assert!(under.refused().is_empty());
        assert_eq!(under.loc(1), "https://x.org/%C3%A9"); // the IRI made a URI
        let mut elsewhere = Rendered::with_capacity(3);
        elsewhere.push_chunk(&chunk, Some("https://y.org/"), 2048, false);
        assert_eq!(elsewhere.len(), 0);
        let all = [(0, Refusal::Loc), (1, Refusal::Loc), (2, Refusal::Loc)];
        assert_eq!(elsewhere.refused(), all);
    }

    #[test]
    fn a_refused_row_keeps_its_place() {
        let mut chunk = RowChunk::with_capacity(3);
        texts(&mut chunk, "https://x.org/a", "", "", "");
        chunk.refuse();
        texts(&mut chunk, "https://x.org/b", "", "", "");
        let mut rendered = Rendered::with_capacity(3);
        rendered.push_chunk(&chunk, Some("https://x.org/"), 2048, false);
        assert_eq!(rendered.refused(), [(1, Refusal::Row)]);
        assert_eq!(
            (rendered.loc(0), rendered.loc(1)),
            ("https://x.org/a", "https://x.org/b")
        );
        let mut twice = rendered.clone();
        twice.append(&rendered);
        assert_eq!(twice.refused(), [(1, Refusal::Row), (4, Refusal::Row)]);
        assert_eq!(rendered.range(1, 2).loc(0), "https://x.org/b");
    }

    #[test]
    fn a_bad_text_value_refuses_its_row_alone() {
        for (lastmod, changefreq, priority) in [
            ("2024-13-01", "daily", "0.5"),
            ("2024-01-01", "sometimes", "0.5"),
            ("2024-01-01", "daily", "1.5"),
            ("2024-01-01", "daily", "x"),
        ] {
            let mut chunk = RowChunk::with_capacity(2);
            texts(&mut chunk, "https://x.org/a", "2024-01-01", "daily", "0.5");
            texts(&mut chunk, "https://x.org/b", lastmod, changefreq, priority);
            texts(&mut chunk, "https://x.org/c", "", "", "");
            let mut rendered = Rendered::with_capacity(3);
            rendered.push_chunk(&chunk, None, 2048, false);
            assert_eq!(rendered.len(), 2, "{lastmod} {changefreq} {priority}");
            assert_eq!(rendered.refused(), [(1, Refusal::Value)]);
        }
    }
}
