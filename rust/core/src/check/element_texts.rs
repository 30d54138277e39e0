//! Where given texts (the locs check placed findings on) are written as an element's text
//! (Python's `checking/positions.py:_occurrences` past a few needles): the texts the pattern
//! `>([^<]+)<` finds (or, a few needle prefixes, `>((?:p1|p2|...)[^<]*)<`), as `re.finditer`
//! finds them, each looked up among the needles by its xxh3 hash, so that the hundreds of
//! thousands of texts of a large urlset cost no Python object each.
use std::collections::HashMap;
use std::hash::BuildHasherDefault;

use memchr::{memchr, memmem};
use xxhash_rust::xxh3::xxh3_64;

use crate::read::seen::PassThrough;

/// The texts `>([^<]+)<` matches in `window` (`starts` None), or `>((?:p1|p2|...)[^<]*)<`
/// (the prefixes of `starts`), as `(start, end)` of each text (after its '>', before its
/// '<'), in order, as Python's `re.finditer` finds them: a match starts at the first '>'
/// where its text can start (not empty; with a prefix: one of them), takes every byte up to
/// the next '<' (after the prefix: a '>' among them too), and the next one is looked for
/// after that '<'. A '>' inside a text a match took starts none; with prefixes, one inside
/// a text starting with none of them may.
pub fn element_texts<'a>(
    window: &'a [u8],
    starts: Option<&'a Prefixes>,
) -> impl Iterator<Item = (usize, usize)> + 'a {
    let mut pos = 0;
    // a few prefixes: the next '>' followed by each (usize::MAX: none left), so that the '>'
    // where none starts cost nothing
    let mut marked: Vec<Option<usize>> = vec![None; starts.map_or(0, |s| s.marked.len())];
    std::iter::from_fn(move || loop {
        let start = match starts {
            Some(starts) if !marked.is_empty() => starts.next_marked(window, pos, &mut marked)?,
            _ => pos + memchr(b'>', &window[pos..])?,
        } + 1;
        let end = match starts {
            None => {
                let lt = start + memchr(b'<', &window[start..])?;
                Some(lt).filter(|&lt| lt > start)
            }
            Some(starts) => starts.text_end(window, start),
        };
        match end {
            Some(lt) => {
                pos = lt + 1;
                return Some((start, lt));
            }
            None => pos = start, // no match at this '>': on from the next one
        }
    })
}

/// Past this many prefixes, each '>' is looked at (a search a prefix costs more).
const MARKED: usize = 4;

/// The alternation of prefixes a text starts with (Python's ``(?:p1|p2|...)``).
pub struct Prefixes {
    /// longest first, as the alternation tries them (two of one length that both match are
    /// the same bytes)
    prefixes: Vec<Box<[u8]>>,
    /// the bytes a prefix starts with (every byte when one is empty)
    first_byte: [bool; 256],
    /// a few prefixes (none empty): a search for each after a '>'
    marked: Vec<memmem::Finder<'static>>,
}

impl Prefixes {
    pub fn new<'a>(prefixes: impl IntoIterator<Item = &'a [u8]>) -> Prefixes {
        let mut prefixes: Vec<Box<[u8]>> = prefixes.into_iter().map(Into::into).collect();
        prefixes.sort_by_key(|p| std::cmp::Reverse(p.len()));
        let mut first_byte = [false; 256];
        for prefix in &prefixes {
            match prefix.first() {
                Some(&b) => first_byte[b as usize] = true,
                None => first_byte = [true; 256], // an empty one matches anywhere
            }
        }
        let marked = if prefixes.len() <= MARKED && prefixes.iter().all(|p| !p.is_empty()) {
            let marked = |p: &[u8]| memmem::Finder::new(&[b">", p].concat()).into_owned();
            prefixes.iter().map(|p| marked(p)).collect()
        } else {
            Vec::new()
        };
        Prefixes {
            prefixes,
            first_byte,
            marked,
        }
    }

    /// The first '>' at `pos` or after that a prefix follows (`next`: each prefix's next one
    /// found so far, None before the first search).
    fn next_marked(&self, window: &[u8], pos: usize, next: &mut [Option<usize>]) -> Option<usize> {
        for (finder, at) in self.marked.iter().zip(next.iter_mut()) {
            if at.is_none_or(|at| at < pos) {
                *at = Some(finder.find(&window[pos..]).map_or(usize::MAX, |k| pos + k));
            }
        }
        next.iter()
            .flatten()
            .copied()
            .min()
            .filter(|&at| at != usize::MAX)
    }

    /// The end of the text starting at `start` as `(?:p1|...)[^<]*<` matches there: the
    /// first '<' after the longest prefix at `start` that a '<' comes after.
    fn text_end(&self, window: &[u8], start: usize) -> Option<usize> {
        let rest = &window[start..];
        if !rest.first().is_some_and(|&b| self.first_byte[b as usize]) {
            return None; // at the window's end too: even an empty prefix needs a '<' after it
        }
        self.prefixes
            .iter()
            .filter(|prefix| rest.starts_with(prefix))
            .find_map(|prefix| {
                memchr(b'<', &rest[prefix.len()..]).map(|k| start + prefix.len() + k)
            })
    }
}

const NONE: u32 = u32::MAX;

/// A set of needles, each found by the hash of a text and compared whole (two needles of
/// one hash are chained).
#[derive(Default)]
pub struct Needles {
    texts: Vec<Box<[u8]>>,
    first: HashMap<u64, u32, BuildHasherDefault<PassThrough>>,
    next: Vec<u32>,
}

impl Needles {
    /// The needles of `texts`, numbered in their order (one given again keeps its number).
    pub fn new<'a>(texts: impl IntoIterator<Item = &'a [u8]>) -> Needles {
        let mut needles = Needles::default();
        for text in texts {
            needles.insert(text);
        }
        needles
    }

    /// Add `text` (unless it is one already): its number.
    pub fn insert(&mut self, text: &[u8]) -> u32 {
        let number = self.texts.len() as u32;
        let hash = xxh3_64(text);
        match self.first.get(&hash) {
            None => {
                self.first.insert(hash, number);
            }
            Some(&head) => {
                let mut last = head;
                loop {
                    if *self.texts[last as usize] == *text {
                        return last;
                    }
                    match self.next[last as usize] {
                        NONE => break,
                        next => last = next,
                    }
                }
                self.next[last as usize] = number; // another text of the same hash
            }
        }
        self.texts.push(text.into());
        self.next.push(NONE);
        number
    }

    fn chain(&self, head: u32) -> impl Iterator<Item = u32> + '_ {
        std::iter::successors(Some(head), |&k| {
            Some(self.next[k as usize]).filter(|&n| n != NONE)
        })
    }

    /// The number of the needle `text` is, if any.
    pub fn find(&self, text: &[u8]) -> Option<u32> {
        let head = *self.first.get(&xxh3_64(text))?;
        self.chain(head).find(|&k| *self.texts[k as usize] == *text)
    }

    /// How many distinct needles there are.
    pub fn len(&self) -> usize {
        self.texts.len()
    }

    pub fn is_empty(&self) -> bool {
        self.texts.is_empty()
    }

    /// Each text of `window` (`element_texts`, of `starts`) that is a needle: (its number, the offset of
    /// the text), in document order.
    pub fn occurrences(&self, window: &[u8], starts: Option<&Prefixes>) -> Vec<(u32, usize)> {
        element_texts(window, starts)
            .filter_map(|(start, end)| Some((self.find(&window[start..end])?, start)))
            .collect()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn texts(window: &[u8]) -> Vec<&[u8]> {
        element_texts(window, None)
            .map(|(s, e)| &window[s..e])
            .collect()
    }

    #[test]
    fn texts_as_the_pattern_finds_them() {
        assert_eq!(
            texts(b"<a><b>x</b>\n<c>y z</c></a>"),
            [&b"x"[..], b"\n", b"y z"]
        );
        // a '>' in a text: the text starts at the first one
        assert_eq!(texts(b"<a>1>2</a>"), [&b"1>2"[..]]);
        // no '<' after: no match
        assert_eq!(texts(b"<a>tail"), Vec::<&[u8]>::new());
        assert_eq!(texts(b">>"), Vec::<&[u8]>::new());
        // the '<' ending a text is taken: a '>' right after it starts the next
        assert_eq!(texts(b">a<>b<"), [&b"a"[..], b"b"]);
        assert_eq!(texts(b"><><x>"), Vec::<&[u8]>::new());
        assert_eq!(texts(b""), Vec::<&[u8]>::new());
    }

    #[test]
    fn needles_found_whole_by_number() {
        let needles = Needles::new([&b"a"[..], b"b&amp;c", b"a", b""]);
        assert_eq!(needles.len(), 3);
        assert_eq!(needles.find(b"a"), Some(0));
        assert_eq!(needles.find(b"b&amp;c"), Some(1));
        assert_eq!(needles.find(b""), Some(2));
        assert_eq!(needles.find(b"ab"), None);
        let window = b"<u><l>a</l><l>ab</l><l>b&amp;c</l><l>x>a</l><l>a</l></u>";
        let at = |s: &str| {
            window
                .windows(s.len())
                .position(|w| w == s.as_bytes())
                .unwrap()
        };
        assert_eq!(
            needles.occurrences(window, None),
            [
                (0, at("a</l><l>ab")),
                (1, at("b&amp;")),
                (0, at("a</l></u>"))
            ]
        );
    }

    #[test]
    fn texts_starting_with_a_prefix() {
        let starts = Prefixes::new([&b"ab"[..], b"a", b"x<"]);
        let texts = |window: &'static [u8]| -> Vec<&[u8]> {
            element_texts(window, Some(&starts))
                .map(|(s, e)| &window[s..e])
                .collect()
        };
        assert_eq!(texts(b"<l>abc</l><l>b</l><l>a</l>"), [&b"abc"[..], b"a"]);
        // a '>' inside a text that starts with no prefix starts one
        assert_eq!(texts(b"<l>b>ab</l>"), [&b"ab"[..]]);
        // but not inside one that does
        assert_eq!(texts(b"<l>ab>ab</l>"), [&b"ab>ab"[..]]);
        // a prefix holding '<' takes it in
        assert_eq!(texts(b"<l>x<y</l>"), [&b"x<y"[..]]);
        assert_eq!(texts(b"<l>ab"), Vec::<&[u8]>::new());
        assert_eq!(texts(b"ab<>a<"), [&b"a"[..]]); // not at the window's start
        let any = Prefixes::new([&b""[..]]);
        let window = b"<a><b>x</b></a>";
        let found: Vec<_> = element_texts(window, Some(&any)).collect();
        assert_eq!(found, [(3, 3), (6, 7), (11, 11)]);
    }
}
