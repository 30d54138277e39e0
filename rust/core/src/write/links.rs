//! The hreflang links of a batch's rendered entries, kept for the set's reciprocity: every
//! text in one buffer, so that a batch of linked rows makes no allocation a link (they are
//! made on the reading thread and dropped on the writing one).

use super::render::room_as_so_far;

/// (entry, its links) of the entries that have some, in entry order.
#[derive(Clone, Debug, Default)]
pub struct Links {
    /// each link's hreflang then its href, back to back
    texts: String,
    /// where each link's hreflang and href end in `texts`
    ends: Vec<(usize, usize)>,
    /// (entry, where its links end in `ends`)
    entries: Vec<(usize, usize)>,
}

/// One entry's links, as (hreflang, href).
#[derive(Clone, Copy, Debug)]
pub struct EntryLinks<'a> {
    links: &'a Links,
    start: usize,
    end: usize,
}

impl<'a> EntryLinks<'a> {
    pub fn len(&self) -> usize {
        self.end - self.start
    }

    pub fn is_empty(&self) -> bool {
        self.end == self.start
    }

    pub fn iter(&self) -> impl Iterator<Item = (&'a str, &'a str)> + 'a {
        let links = self.links;
        (self.start..self.end).map(move |at| links.link(at))
    }
}

impl Links {
    /// Entries with links.
    pub fn len(&self) -> usize {
        self.entries.len()
    }

    pub fn is_empty(&self) -> bool {
        self.entries.is_empty()
    }

    fn link(&self, at: usize) -> (&str, &str) {
        let start = if at == 0 { 0 } else { self.ends[at - 1].1 };
        let (hreflang, href) = self.ends[at];
        (&self.texts[start..hreflang], &self.texts[hreflang..href])
    }

    /// Room for `more` entries like the `done` entries before (`Rendered::reserve_as_so_far`).
    pub fn reserve_as_so_far(&mut self, done: usize, more: usize) {
        let room = |len: usize| room_as_so_far(len, done, more);
        self.texts.reserve_exact(room(self.texts.len()));
        self.ends.reserve_exact(room(self.ends.len()));
        self.entries.reserve_exact(room(self.entries.len()));
    }

    /// Entry `entry`'s links (none: nothing kept), after those of the entries before it.
    pub fn push<'t>(&mut self, entry: usize, links: impl Iterator<Item = (&'t str, &'t str)>) {
        let before = self.ends.len();
        for (hreflang, href) in links {
            self.texts.push_str(hreflang);
            let middle = self.texts.len();
            self.texts.push_str(href);
            self.ends.push((middle, self.texts.len()));
        }
        if self.ends.len() > before {
            self.entries.push((entry, self.ends.len()));
        }
    }

    /// (entry, its links) of each entry with some, in order.
    pub fn iter(&self) -> impl Iterator<Item = (usize, EntryLinks<'_>)> {
        let starts = std::iter::once(0).chain(self.entries.iter().map(|&(_, end)| end));
        self.entries
            .iter()
            .zip(starts)
            .map(move |(&(entry, end), start)| {
                (
                    entry,
                    EntryLinks {
                        links: self,
                        start,
                        end,
                    },
                )
            })
    }

    /// Add `other`'s after these, its entries counted from `entries`.
    pub fn append(&mut self, other: &Links, entries: usize) {
        let (texts, ends) = (self.texts.len(), self.ends.len());
        self.texts.push_str(&other.texts);
        let moved = other.ends.iter().map(|&(a, b)| (texts + a, texts + b));
        self.ends.extend(moved);
        let moved = other
            .entries
            .iter()
            .map(|&(at, end)| (entries + at, ends + end));
        self.entries.extend(moved);
    }

    /// Copy entry `index`'s links of `from` as those of entry `entry`.
    pub fn copy(&mut self, from: &Links, index: usize, entry: usize) {
        let found = from.entries.binary_search_by_key(&index, |&(at, _)| at);
        if let Ok(position) = found {
            let start = position
                .checked_sub(1)
                .map_or(0, |before| from.entries[before].1);
            let (_, end) = from.entries[position];
            self.push(entry, (start..end).map(|at| from.link(at)));
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn listed(links: &Links) -> Vec<(usize, Vec<(String, String)>)> {
        let pairs = |l: EntryLinks<'_>| l.iter().map(|(a, b)| (a.into(), b.into())).collect();
        links.iter().map(|(at, l)| (at, pairs(l))).collect()
    }

    #[test]
    fn entries_keep_their_links_through_append_and_copy() {
        let mut first = Links::default();
        first.push(
            0,
            [("en", "https://a/"), ("de", "https://a/de")].into_iter(),
        );
        first.push(1, std::iter::empty());
        first.push(3, [("x-default", "https://b/")].into_iter());
        let mut second = Links::default();
        second.push(1, [("fr", "https://c/fr")].into_iter());
        first.append(&second, 5);
        let expected = vec![
            (
                0,
                vec![
                    ("en".into(), "https://a/".into()),
                    ("de".into(), "https://a/de".into()),
                ],
            ),
            (3, vec![("x-default".into(), "https://b/".into())]),
            (6, vec![("fr".into(), "https://c/fr".into())]),
        ];
        assert_eq!(listed(&first), expected);
        let mut copied = Links::default();
        for (entry, index) in [(0, 3), (1, 2), (2, 0), (3, 6)] {
            copied.copy(&first, index, entry);
        }
        let expected = vec![
            (0, expected[1].1.clone()),
            (2, expected[0].1.clone()),
            (3, expected[2].1.clone()),
        ];
        assert_eq!(listed(&copied), expected);
    }
}
