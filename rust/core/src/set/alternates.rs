//! A record's hreflang links from the JSON the core's reader writes for it: the shape that
//! writer gives (`read/json.rs`: `"alternates":[{"hreflang":"..","href":".."},...]`, no
//! space, no escape in a URI or a code) read here without building a JSON value; any other
//! text goes through the JSON reader (`check::ext_json::alternates`).
use std::borrow::Cow;

use crate::check::ext_json;

/// A record's links: (href, hreflang) each.
pub type Links<'a> = Vec<(Cow<'a, str>, Cow<'a, str>)>;

/// The (href, hreflang) of each alternate, in order; None when the JSON is not the core's.
pub fn alternates(text: &[u8]) -> Option<Links<'_>> {
    let mut links = Vec::new();
    alternates_into(text, &mut links).then_some(links)
}

/// [`alternates`] into `links` (emptied first: one vector for a run of records, not one a
/// record); false when the JSON is not the core's.
pub fn alternates_into<'a>(text: &'a [u8], links: &mut Links<'a>) -> bool {
    // the text checked as UTF-8 once (its strings are then slices of it), not each string
    match std::str::from_utf8(text) {
        Ok(src) => alternates_in(src, links),
        Err(_) => {
            links.clear();
            written(text, |a, b| std::str::from_utf8(&text[a..b]).ok(), links).is_some()
                || read_fully(text, links)
        }
    }
}

/// [`alternates_into`] for a text known to be UTF-8.
pub fn alternates_in<'a>(src: &'a str, links: &mut Links<'a>) -> bool {
    links.clear();
    written(src.as_bytes(), |a, b| src.get(a..b), links).is_some()
        || read_fully(src.as_bytes(), links)
}

/// The links of JSON not in the shape the core writes, by the JSON reader.
fn read_fully(text: &[u8], links: &mut Links<'_>) -> bool {
    links.clear();
    let Some(read) = ext_json::alternates(text) else {
        return false;
    };
    links.extend(
        read.into_iter()
            .map(|(h, c)| (Cow::Owned(h), Cow::Owned(c))),
    );
    true
}

const KEY: &[u8] = b"\"alternates\":[";

/// The links of JSON as the reader writes it (the key found after `{` or `,`: an unescaped
/// quote there opens a key, and no other object the reader writes has this one), each
/// string `text[a..b]` given by `string`; None for anything else.
fn written<'a>(
    text: &'a [u8],
    string: impl Fn(usize, usize) -> Option<&'a str>,
    links: &mut Links<'a>,
) -> Option<()> {
    // most records hold links alone: their key is first (no searcher built for them)
    static FINDER: std::sync::LazyLock<memchr::memmem::Finder<'static>> =
        std::sync::LazyLock::new(|| memchr::memmem::Finder::new(KEY));
    let at = if text.get(1..=KEY.len()) == Some(KEY) {
        1
    } else {
        FINDER.find(text)? // built once: a searcher a record cost ~600 instructions
    };
    if at == 0 || !matches!(text[at - 1], b'{' | b',') {
        return None;
    }
    let mut pos = at + KEY.len();
    loop {
        pos = after(text, pos, b"{\"hreflang\":\"")?;
        let end = short_string(text, pos)?;
        let code = string(pos, end)?;
        pos = after(text, end + 1, b",\"href\":\"")?;
        let end = plain_string(text, pos)?;
        let href = string(pos, end)?;
        pos = after(text, end + 1, b"}")?;
        links.push((Cow::Borrowed(href), Cow::Borrowed(code)));
        match text.get(pos)? {
            b',' => pos += 1,
            b']' => break,
            _ => return None,
        }
    }
    Some(())
}

/// The place after `word` when `text` holds it at `pos`.
fn after(text: &[u8], pos: usize, word: &[u8]) -> Option<usize> {
    (text.get(pos..pos + word.len())? == word).then_some(pos + word.len())
}

/// The end (its closing quote) of a string from `pos`, when it holds no escape.
fn plain_string(text: &[u8], pos: usize) -> Option<usize> {
    let end = pos + memchr::memchr2(b'"', b'\\', text.get(pos..)?)?;
    (text[end] == b'"').then_some(end)
}

/// `plain_string` for a string of a few bytes (an hreflang code): looked at in place, for
/// less than a memchr call costs.
fn short_string(text: &[u8], pos: usize) -> Option<usize> {
    let rest = text.get(pos..)?;
    let near = rest.len().min(16);
    match rest[..near].iter().position(|&b| b == b'"' || b == b'\\') {
        Some(end) => (rest[end] == b'"').then_some(pos + end),
        None => plain_string(text, pos + near),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn pairs(text: &str) -> Option<Vec<(String, String)>> {
        alternates(text.as_bytes()).map(|links| {
            links
                .into_iter()
                .map(|(h, c)| (h.into_owned(), c.into_owned()))
                .collect()
        })
    }

    #[test]
    fn the_written_shape_and_every_other_read_alike() {
        let cases = [
            r#"{"alternates":[{"hreflang":"en","href":"https://a.org/"},{"hreflang":"de","href":"https://a.org/de"}]}"#,
            r#"{"images":[{"loc":"https://a.org/\"alternates\":[x.png"}],"alternates":[{"hreflang":"x-default","href":"https://a.org/"}],"extensions":[{"namespace":"n","name":"m","xml":"<m/>"}]}"#,
            r#"{"alternates":[{"hreflang":"en","href":"https://a.org/\u00e9"}]}"#,
            r#"{ "alternates" : [ { "href":"https://a.org/", "hreflang":"en" } ] }"#,
            r#"{"alternates":[{"hreflang":"en","href":"https://a.org/"}"#,
            r#"{"images":[{"title":"\",\"alternates\":[{\"hreflang\":\"en\",\"href\":\"x\"}]"}]}"#,
        ];
        for case in cases {
            let full = ext_json::alternates(case.as_bytes());
            assert_eq!(pairs(case), full, "{case}");
        }
        assert_eq!(pairs(cases[0]).unwrap().len(), 2);
        assert_eq!(pairs(cases[2]).unwrap()[0].0, "https://a.org/\u{e9}");
        assert!(pairs(cases[4]).is_none());
        assert_eq!(pairs(cases[5]), Some(vec![]));
        // bytes that are not UTF-8 outside the links: read as before, each string checked
        let mut odd = b"{\"images\":[{\"loc\":\"\xff\"}],".to_vec();
        odd.extend_from_slice(&cases[0].as_bytes()[1..]);
        assert_eq!(alternates(&odd).unwrap().len(), 2);
        assert!(alternates(b"{\"alternates\":[{\"hreflang\":\"\xff\",\"href\":\"x\"}]}").is_none());
    }
}
