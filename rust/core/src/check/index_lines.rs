//! The line of each entry's loc in a sitemap index, in one pass (Python's
//! `checking/index_lines.py`, whose findings about an index's children carry it): the nth
//! `<sitemap>` start tag's first `<loc>...</loc>` element holds the nth ref's loc, as the
//! Python pass ref by ref finds them, here only where each text is that loc as written.
use memchr::{memchr, memchr_iter, memmem};

const OPEN: &[u8] = b"<sitemap>";
const CLOSE: &[u8] = b"</sitemap>";
const LOC: &[u8] = b"<loc>";
const LOC_END: &[u8] = b"</loc>";

/// The first `<loc>([^<]*)</loc>` element from `from` (Python's `re.search` of it): its
/// start, the start and end of its text. `finder` finds `<loc>` (made once a pass).
fn loc_element(data: &[u8], from: usize, finder: &memmem::Finder) -> Option<(usize, usize, usize)> {
    let mut at = from;
    while let Some(k) = finder.find(&data[at..]) {
        let start = at + k;
        let text = start + LOC.len();
        let end = text + memchr(b'<', &data[text..])?;
        if data[end..].starts_with(LOC_END) {
            return Some((start, text, end));
        }
        at = start + 1;
    }
    None
}

/// Whether the loc element's text `raw` is the loc `loc` as the XML parse gives it: the same
/// bytes, plain ASCII with no entity and nothing stripped from its ends.
fn written_as(raw: &[u8], loc: &[u8]) -> bool {
    raw == loc
        && raw.is_ascii()
        && !raw.contains(&b'&')
        && raw.first().is_some_and(|&b| b > b' ')
        && raw.last().is_some_and(|&b| b > b' ')
}

/// The number of `<sitemap>` start tags in `data`.
pub fn entries(data: &[u8]) -> usize {
    memmem::find_iter(data, OPEN).count()
}

/// The line (from 1) of the loc element of each `<sitemap>` entry of `data`, one per loc of
/// `locs` (the index's refs, in order): None unless `data` holds as many `<sitemap>` start
/// tags, each followed, before its end tag, by a loc element whose text is the ref's loc
/// as written.
pub fn loc_lines<S: AsRef<str>>(data: &[u8], locs: &[S]) -> Option<Vec<usize>> {
    if entries(data) != locs.len() {
        return None;
    }
    lines_in_order(data, locs)
}

/// `loc_lines` of `data` whose start tags are known to be as many as `locs`.
pub fn lines_in_order<S: AsRef<str>>(data: &[u8], locs: &[S]) -> Option<Vec<usize>> {
    let open = memmem::Finder::new(OPEN);
    let close = memmem::Finder::new(CLOSE);
    let loc_start = memmem::Finder::new(LOC);
    let mut out = Vec::with_capacity(locs.len());
    let (mut cursor, mut counted, mut line) = (0, 0, 1);
    for loc in locs {
        let start = cursor + open.find(&data[cursor..])?;
        let (at, text, end) = loc_element(data, start, &loc_start)?;
        if close.find(&data[start..]).is_some_and(|k| start + k < at) {
            return None;
        }
        if !written_as(&data[text..end], loc.as_ref().as_bytes()) {
            return None;
        }
        line += memchr_iter(b'\n', &data[counted..at]).count();
        counted = at;
        out.push(line);
        cursor = end + LOC_END.len();
    }
    Some(out)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn each_entry_has_the_line_of_its_loc() {
        let data = b"<sitemapindex>\n<sitemap><loc>a</loc></sitemap>\n<sitemap>\n <lastmod>x</lastmod>\n <loc>b</loc>\n</sitemap>\n</sitemapindex>";
        assert_eq!(loc_lines(data, &["a", "b"]), Some(vec![2, 5]));
    }

    #[test]
    fn an_entry_not_written_as_its_ref_is_left_to_python() {
        let one = |entry: &str, loc: &str| {
            let data = format!("<sitemapindex>\n<sitemap>{entry}</sitemap>\n</sitemapindex>");
            loc_lines(data.as_bytes(), &[loc])
        };
        assert_eq!(one("<loc>a</loc>", "a"), Some(vec![2]));
        assert_eq!(one("<loc>a</loc>", "b"), None);
        assert_eq!(one("<loc> a</loc>", "a"), None);
        assert_eq!(one("<loc>a&amp;b</loc>", "a&amp;b"), None);
        assert_eq!(one("<loc>caf\u{e9}</loc>", "caf\u{e9}"), None);
        assert_eq!(one("<loc><![CDATA[a]]></loc>", "a"), None);
        assert_eq!(one("<loc>a<x/></loc><loc>a</loc>", "a"), Some(vec![2]));
        assert_eq!(one("", "a"), None);
        // the loc after the entry's end tag is not its loc
        let data = b"<sitemap></sitemap><loc>a</loc>";
        assert_eq!(loc_lines(data, &["a"]), None);
        // as many start tags as refs, or none is looked for
        assert_eq!(
            loc_lines(b"<sitemap><loc>a</loc></sitemap>", &["a", "a"]),
            None
        );
    }
}
