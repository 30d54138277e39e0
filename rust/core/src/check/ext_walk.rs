//! A record's extensions judged in one pass over its JSON, without a tree: what
//! `ext_json::record` gives of `ext_json::parse` (the reference: the tests hold the two
//! equal), for the JSON none of the render lane's usual shapes reads (several kinds on one
//! page, images with titles): the tree's allocations cost most of a check of such a urlset.
use std::borrow::Cow;

use super::ext_json::{link_findings, Judgement, Parser, CODES, COUNTS, MAX_IMAGES};

/// The last value of a list field: its items' findings, or `Bad` when it is neither null
/// nor a list of objects (nor, for news, one object), or an item lacks what its rule reads
/// (the record is then flagged).
enum Field<T> {
    Items(usize, T),
    Bad,
}

impl<T: Default> Default for Field<T> {
    fn default() -> Self {
        Field::Items(0, T::default()) // missing: no items
    }
}

/// `ext_json::record(&ext_json::parse(text)?, loc)`, read in one pass.
pub(super) fn walked_record(text: &str, loc: &str) -> Option<Judgement> {
    let mut parser = Parser::of(text);
    if parser.at(0)? != b'{' {
        return None; // no object: flagged, whatever it is
    }
    let mut images = Field::<bool>::default(); // an image with other keys than one
    let mut videos = Field::<u32>::default(); // their content and player locs on the page
    let mut alternates = Field::<Vec<(Cow<'_, str>, Cow<'_, str>)>>::default();
    let mut news = Field::<Vec<Option<String>>>::default();
    parser.object(0, |parser, key, depth| {
        match key.as_ref() {
            "images" => images = list(parser, depth, false, image)?,
            "videos" => videos = list(parser, depth, false, |p, d, n| video(p, d, loc, n))?,
            "alternates" => alternates = list(parser, depth, false, link)?,
            "news" => news = list(parser, depth, true, news_item)?,
            "extensions" => parser.skip(depth)?,
            _ => return None, // an unknown key: flagged
        }
        Some(())
    })?;
    if !parser.done() {
        return None;
    }
    let (Field::Items(n_images, odd_image), Field::Items(n_videos, on_page)) = (images, videos)
    else {
        return None;
    };
    let (Field::Items(n_links, links), Field::Items(n_news, dates)) = (alternates, news) else {
        return None;
    };
    let mut counts = [0u32; COUNTS];
    counts[0] = u32::from(n_images > MAX_IMAGES);
    counts[1] = u32::from(odd_image);
    counts[2] = on_page;
    counts[3] = u32::from(n_news > 1);
    if n_links > 0 {
        let links: Vec<(&str, &str)> = links.iter().map(|(h, c)| (&**h, &**c)).collect();
        [counts[4], counts[5]] = link_findings(&links, loc.as_bytes());
    }
    for (at, n) in [n_images, n_videos, n_news, n_links]
        .into_iter()
        .enumerate()
    {
        counts[CODES.len() + at] = u32::try_from(n).ok()?;
    }
    Some((counts, dates))
}

/// A list field's value at `depth`, each object item read into its findings by `item`
/// (false: the item lacks what its rule reads; an item that is no object: the same); null
/// is no items, and one object is one item where `one` (a news field).
fn list<'a, T: Default>(
    parser: &mut Parser<'a>,
    depth: usize,
    one: bool,
    mut item: impl FnMut(&mut Parser<'a>, usize, &mut T) -> Option<bool>,
) -> Option<Field<T>> {
    let (mut n, mut found, mut bad) = (0, T::default(), false);
    match parser.at(depth)? {
        b'[' => parser.array(depth, |parser, depth| {
            if parser.at(depth)? != b'{' {
                bad = true;
                return parser.skip(depth);
            }
            bad |= !item(parser, depth, &mut found)?;
            n += 1;
            Some(())
        })?,
        b'{' if one => {
            bad = !item(parser, depth, &mut found)?;
            n = 1;
        }
        b'n' => parser.skip(depth)?, // null (or invalid): no items
        _ => {
            parser.skip(depth)?;
            bad = true;
        }
    }
    Some(if bad {
        Field::Bad
    } else {
        Field::Items(n, found)
    })
}

/// The last value of each key of `wanted` in the object at `depth`, when a string (None
/// for another value or none), and whether it has exactly one distinct key.
fn strings<'a, const N: usize>(
    parser: &mut Parser<'a>,
    depth: usize,
    wanted: [&str; N],
) -> Option<([Option<Cow<'a, str>>; N], bool)> {
    let mut found: [Option<Cow<'a, str>>; N] = std::array::from_fn(|_| None);
    let (mut first, mut others): (Option<Cow<'a, str>>, bool) = (None, false);
    parser.object(depth, |parser, key, depth| {
        let at = wanted.iter().position(|w| *w == key);
        match &first {
            None => first = Some(key),
            Some(known) => others |= *known != key,
        }
        match (at, parser.at(depth)?) {
            (Some(at), b'"') => found[at] = Some(parser.string()?),
            (at, _) => {
                parser.skip(depth)?;
                if let Some(at) = at {
                    found[at] = None;
                }
            }
        }
        Some(())
    })?;
    Some((found, first.is_some() && !others))
}

fn image(parser: &mut Parser<'_>, depth: usize, odd: &mut bool) -> Option<bool> {
    let ([], one_key) = strings(parser, depth, [])?;
    *odd |= !one_key;
    Some(true)
}

fn video(parser: &mut Parser<'_>, depth: usize, loc: &str, on_page: &mut u32) -> Option<bool> {
    let ([content, player], _) = strings(parser, depth, ["content_loc", "player_loc"])?;
    let at = |place: Option<Cow<'_, str>>| u32::from(place.as_deref() == Some(loc));
    *on_page += at(content) + at(player);
    Some(true)
}

fn link<'a>(
    parser: &mut Parser<'a>,
    depth: usize,
    links: &mut Vec<(Cow<'a, str>, Cow<'a, str>)>,
) -> Option<bool> {
    let ([href, code], _) = strings(parser, depth, ["href", "hreflang"])?;
    let Some(link) = href.zip(code) else {
        return Some(false); // no string href or hreflang: flagged
    };
    links.push(link);
    Some(true)
}

fn news_item(
    parser: &mut Parser<'_>,
    depth: usize,
    dates: &mut Vec<Option<String>>,
) -> Option<bool> {
    let ([date], _) = strings(parser, depth, ["publication_date"])?;
    dates.push(date.map(Cow::into_owned));
    Some(true)
}

#[cfg(test)]
mod tests {
    use super::super::ext_json::reference_record;
    use super::*;

    /// A small deterministic generator (xorshift), so that the property runs the same always.
    struct Rng(u64);

    impl Rng {
        fn below(&mut self, n: usize) -> usize {
            self.0 ^= self.0 << 13;
            self.0 ^= self.0 >> 7;
            self.0 ^= self.0 << 17;
            (self.0 % n as u64) as usize
        }

        fn pick<'a>(&mut self, from: &[&'a str]) -> &'a str {
            from[self.below(from.len())]
        }
    }

    const LOC: &str = "https://a.test/p";
    const STRINGS: [&str; 9] = [
        r#""https://a.test/p""#,
        r#""https:\/\/a.test\/p""#,
        r#""https://a.test/x""#,
        r#""en""#,
        r#""EN""#,
        r#""2024-01-01""#,
        r#""a\"b\u0041""#,
        r#""\ud800""#,
        r#""""#,
    ];
    const KEYS: [&str; 12] = [
        "loc",
        "title",
        "content_loc",
        "player_loc",
        "href",
        "hreflang",
        "publication_date",
        "caption",
        "images",
        "news",
        "h\\u0072ef",
        "other",
    ];

    fn value(rng: &mut Rng, depth: usize, out: &mut String) {
        match rng.below(if depth > 3 { 4 } else { 7 }) {
            0 | 1 => out.push_str(rng.pick(&STRINGS)),
            2 => out.push_str(rng.pick(&["null", "1", "-2.5e3", "true"])),
            3 => out.push_str(rng.pick(&["[]", "{}"])),
            4 | 5 => object(rng, depth + 1, out),
            _ => {
                out.push('[');
                for k in 0..rng.below(4) {
                    if k > 0 {
                        out.push(',');
                    }
                    value(rng, depth + 1, out);
                }
                out.push(']');
            }
        }
    }

    fn object(rng: &mut Rng, depth: usize, out: &mut String) {
        out.push('{');
        for k in 0..rng.below(5) {
            if k > 0 {
                out.push_str(rng.pick(&[",", ",", ", "]));
            }
            out.push_str(&format!("\"{}\":", rng.pick(&KEYS)));
            value(rng, depth + 1, out);
        }
        out.push('}');
    }

    /// A record's JSON: mostly the known fields, each a list of objects (or null, one
    /// object, another value), sometimes broken by a byte taken out or put in.
    fn record_text(rng: &mut Rng) -> Vec<u8> {
        let mut out = String::from(rng.pick(&["{", "{", "{", " {", "[", "\"x\""]));
        for k in 0..rng.below(4) {
            if k > 0 {
                out.push(',');
            }
            let key = ["images", "videos", "alternates", "news", "extensions", "x"];
            out.push_str(&format!("\"{}\":", rng.pick(&key)));
            match rng.below(8) {
                0 => value(rng, 1, &mut out),
                1 => object(rng, 1, &mut out),
                _ => {
                    out.push('[');
                    for k in 0..rng.below(4) {
                        if k > 0 {
                            out.push(',');
                        }
                        if rng.below(12) == 0 {
                            value(rng, 2, &mut out);
                        } else {
                            object(rng, 2, &mut out);
                        }
                    }
                    out.push(']');
                }
            }
        }
        out.push_str(rng.pick(&["}", "}", "}", "} ", "}}", ""]));
        let mut bytes = out.into_bytes();
        if rng.below(6) == 0 && !bytes.is_empty() {
            let at = rng.below(bytes.len());
            match rng.below(3) {
                0 => {
                    bytes.remove(at);
                }
                1 => bytes.insert(at, b' '),
                _ => bytes.insert(at, b"\t\"{}[],:\\\x01\xff"[rng.below(11)]),
            }
        }
        bytes
    }

    #[test]
    fn walked_as_the_tree_judges() {
        let mut rng = Rng(26);
        let (mut judged, mut flagged) = (0, 0);
        for _ in 0..40_000 {
            let text = record_text(&mut rng);
            let expected = reference_record(&text, LOC);
            let walked = std::str::from_utf8(&text)
                .ok()
                .and_then(|t| walked_record(t, LOC));
            assert_eq!(walked, expected, "{}", String::from_utf8_lossy(&text));
            if expected.is_some() {
                judged += 1;
            } else {
                flagged += 1;
            }
        }
        assert!(judged > 5_000 && flagged > 5_000, "{judged} {flagged}");
    }

    #[test]
    fn nesting_past_the_limit_is_flagged_alike() {
        for depth in [60, 61, 62, 63, 64, 65, 66] {
            let text = format!(
                r#"{{"news":{{"title":{}1{}}}}}"#,
                "[".repeat(depth),
                "]".repeat(depth)
            );
            let expected = reference_record(text.as_bytes(), LOC);
            assert_eq!(walked_record(&text, LOC), expected, "{depth}");
        }
    }
}
