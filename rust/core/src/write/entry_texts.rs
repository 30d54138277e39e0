//! Texts some entries of a rendered batch have, each with a value, kept in one buffer: the
//! news articles (publication instant, title) for the document's 1,000-article limit and
//! the build's age rule, and what the per-URL rules found (code, text). No allocation a
//! text: they are made on the reading thread and dropped on the writing one, where each
//! freed block made the reader's next allocation a slow one.

use super::render::room_as_so_far;

/// (entry, value, text) rows in entry order, their texts back to back.
#[derive(Clone, Debug)]
pub struct EntryTexts<T> {
    texts: String,
    /// (entry, value, where its text ends in `texts`)
    rows: Vec<(usize, T, usize)>,
}

impl<T> Default for EntryTexts<T> {
    fn default() -> Self {
        EntryTexts {
            texts: String::new(),
            rows: Vec::new(),
        }
    }
}

impl<T: Copy> EntryTexts<T> {
    pub fn is_empty(&self) -> bool {
        self.rows.is_empty()
    }

    /// Entry `entry`'s (value, text) rows, after those of the entries before it.
    pub fn push<'t>(&mut self, entry: usize, rows: impl Iterator<Item = (T, &'t str)>) {
        for (value, text) in rows {
            self.texts.push_str(text);
            self.rows.push((entry, value, self.texts.len()));
        }
    }

    /// Room for `more` entries like the `done` entries before (`Rendered::reserve_as_so_far`).
    pub fn reserve_as_so_far(&mut self, done: usize, more: usize) {
        let room = |len: usize| room_as_so_far(len, done, more);
        self.texts.reserve_exact(room(self.texts.len()));
        self.rows.reserve_exact(room(self.rows.len()));
    }

    /// (entry, value, text) of each row, in order.
    pub fn iter(&self) -> impl Iterator<Item = (usize, T, &str)> {
        (0..self.rows.len()).map(|at| self.row(at))
    }

    /// Row `at`: (entry, value, text).
    fn row(&self, at: usize) -> (usize, T, &str) {
        let start = at.checked_sub(1).map_or(0, |before| self.rows[before].2);
        let (entry, value, end) = self.rows[at];
        (entry, value, &self.texts[start..end])
    }

    /// The position of the first row of an entry from `entry` on.
    fn first_from(&self, entry: usize) -> usize {
        self.rows.partition_point(|&(at, _, _)| at < entry)
    }

    /// How many rows the entries from `start` to `end` hold.
    pub fn count_in(&self, start: usize, end: usize) -> usize {
        self.first_from(end).saturating_sub(self.first_from(start))
    }

    /// How many of the entries from `start` (at most `limit`) hold at most `room` rows
    /// together: the entries before the first that passes it (`Rendered::news_fit`); None
    /// when none in the limit does.
    pub fn entries_within(&self, start: usize, limit: usize, room: usize) -> Option<usize> {
        let passing = self.first_from(start).checked_add(room)?;
        let &(entry, _, _) = self.rows.get(passing)?;
        (entry < start.saturating_add(limit)).then(|| entry - start)
    }

    /// Add `other`'s after these, its entries counted from `entries`.
    pub fn append(&mut self, other: &EntryTexts<T>, entries: usize) {
        let texts = self.texts.len();
        self.texts.push_str(&other.texts);
        let moved = other
            .rows
            .iter()
            .map(|&(at, value, end)| (entries + at, value, texts + end));
        self.rows.extend(moved);
    }

    /// Copy entry `index`'s rows of `from` as those of entry `entry`.
    pub fn copy(&mut self, from: &EntryTexts<T>, index: usize, entry: usize) {
        let rows = from.first_from(index)..from.first_from(index + 1);
        let of_index = rows.map(|at| from.row(at));
        self.push(entry, of_index.map(|(_, value, text)| (value, text)));
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn entries_keep_their_texts_through_append_and_copy() {
        let mut first = EntryTexts::default();
        first.push(0, [(5, "A"), (6, "Bé")].into_iter());
        first.push(2, [(7, "")].into_iter());
        let mut second = EntryTexts::default();
        second.push(1, [(8, "C")].into_iter());
        first.append(&second, 3);
        let listed: Vec<_> = first.iter().collect();
        assert_eq!(listed, [(0, 5, "A"), (0, 6, "Bé"), (2, 7, ""), (4, 8, "C")]);
        assert_eq!(first.count_in(0, 1), 2);
        assert_eq!(first.count_in(1, 4), 1);
        assert_eq!(first.count_in(3, 9), 1);
        let mut copied = EntryTexts::default();
        copied.copy(&first, 0, 0);
        copied.copy(&first, 1, 1);
        copied.copy(&first, 4, 2);
        let listed: Vec<_> = copied.iter().collect();
        assert_eq!(listed, [(0, 5, "A"), (0, 6, "Bé"), (2, 8, "C")]);
    }

    #[test]
    fn entries_within_stop_before_the_entry_that_passes_the_room() {
        let mut articles = EntryTexts::default();
        articles.push(1, [(0, "a"), (0, "b")].into_iter());
        articles.push(3, [(0, "c")].into_iter());
        // entries 0..: entry 1 holds two, entry 3 one
        assert_eq!(articles.entries_within(0, 10, 3), None);
        assert_eq!(articles.entries_within(0, 10, 2), Some(3));
        assert_eq!(articles.entries_within(0, 10, 1), Some(1));
        assert_eq!(articles.entries_within(0, 10, 0), Some(1));
        assert_eq!(articles.entries_within(0, 3, 2), None);
        assert_eq!(articles.entries_within(2, 10, 0), Some(1));
    }
}
