//! The news articles of a batch's rendered entries, kept for the document's 1,000-article
//! limit and the build's age rule: every title in one buffer, so that a batch of news rows
//! makes no allocation an article (they are made on the reading thread and dropped on the
//! writing one, where each freed block made the reader's next allocation a slow one).

use super::render::room_as_so_far;

/// The articles of the entries that have some, in entry order.
#[derive(Clone, Debug, Default)]
pub struct Articles {
    /// the titles, back to back
    titles: String,
    /// (entry, publication instant, where its title ends in `titles`), one an article
    articles: Vec<(usize, i64, usize)>,
}

impl Articles {
    pub fn is_empty(&self) -> bool {
        self.articles.is_empty()
    }

    /// Entry `entry`'s articles as (publication instant, title), after those of the
    /// entries before it.
    pub fn push<'t>(&mut self, entry: usize, articles: impl Iterator<Item = (i64, &'t str)>) {
        for (published, title) in articles {
            self.titles.push_str(title);
            self.articles.push((entry, published, self.titles.len()));
        }
    }

    /// Room for `more` entries like the `done` entries before (`Rendered::reserve_as_so_far`).
    pub fn reserve_as_so_far(&mut self, done: usize, more: usize) {
        let room = |len: usize| room_as_so_far(len, done, more);
        self.titles.reserve_exact(room(self.titles.len()));
        self.articles.reserve_exact(room(self.articles.len()));
    }

    /// (entry, title, publication instant) of each article, in order.
    pub fn iter(&self) -> impl Iterator<Item = (usize, &str, i64)> {
        let starts = std::iter::once(0).chain(self.articles.iter().map(|&(_, _, end)| end));
        self.articles
            .iter()
            .zip(starts)
            .map(|(&(entry, published, end), start)| (entry, &self.titles[start..end], published))
    }

    /// The position of the first article of an entry from `entry` on.
    fn first_from(&self, entry: usize) -> usize {
        self.articles.partition_point(|&(at, _, _)| at < entry)
    }

    /// How many articles the entries from `start` to `end` hold.
    pub fn count_in(&self, start: usize, end: usize) -> usize {
        self.first_from(end).saturating_sub(self.first_from(start))
    }

    /// How many of the entries from `start` (at most `limit`) hold at most `room` articles
    /// together: the entries before the first that passes it (`Rendered::news_fit`).
    pub fn entries_within(&self, start: usize, limit: usize, room: usize) -> Option<usize> {
        let passing = self.first_from(start).checked_add(room)?;
        let &(entry, _, _) = self.articles.get(passing)?;
        (entry < start.saturating_add(limit)).then(|| entry - start)
    }

    /// Add `other`'s after these, its entries counted from `entries`.
    pub fn append(&mut self, other: &Articles, entries: usize) {
        let titles = self.titles.len();
        self.titles.push_str(&other.titles);
        let moved = other
            .articles
            .iter()
            .map(|&(at, published, end)| (entries + at, published, titles + end));
        self.articles.extend(moved);
    }

    /// Copy entry `index`'s articles of `from` as those of entry `entry`.
    pub fn copy(&mut self, from: &Articles, index: usize, entry: usize) {
        let start = from.first_from(index);
        let end = from.first_from(index + 1);
        let of_index = from.iter().skip(start).take(end - start);
        self.push(
            entry,
            of_index.map(|(_, title, published)| (published, title)),
        );
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn entries_keep_their_articles_through_append_and_copy() {
        let mut first = Articles::default();
        first.push(0, [(5, "A"), (6, "Bé")].into_iter());
        first.push(2, [(7, "")].into_iter());
        let mut second = Articles::default();
        second.push(1, [(8, "C")].into_iter());
        first.append(&second, 3);
        let listed: Vec<_> = first.iter().collect();
        assert_eq!(listed, [(0, "A", 5), (0, "Bé", 6), (2, "", 7), (4, "C", 8)]);
        assert_eq!(first.count_in(0, 1), 2);
        assert_eq!(first.count_in(1, 4), 1);
        assert_eq!(first.count_in(3, 9), 1);
        let mut copied = Articles::default();
        copied.copy(&first, 0, 0);
        copied.copy(&first, 1, 1);
        copied.copy(&first, 4, 2);
        let listed: Vec<_> = copied.iter().collect();
        assert_eq!(listed, [(0, "A", 5), (0, "Bé", 6), (2, "C", 8)]);
    }

    #[test]
    fn entries_within_stop_before_the_entry_that_passes_the_room() {
        let mut articles = Articles::default();
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
