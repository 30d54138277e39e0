//! A record's hreflang links from the JSON the core's reader writes for it: the shape that
//! writer gives (`read/json.rs`: `"alternates":[{"hreflang":"..","href":".."},...]`, no
//! space, no escape in a URI or a code) read here without building a JSON value; any other
//! text goes through the JSON reader (`check::ext_json::alternates`).
use std::borrow::Cow;

use crate::check::ext_json;

/// The (href, hreflang) of each alternate, in order; None when the JSON is not the core's.
pub fn alternates(text: &[u8]) -> Option<Vec<(Cow<'_, str>, Cow<'_, str>)>> {
    if let Some(links) = written(text) {
        return Some(links);
    }
    let links = ext_json::alternates(text)?;
    Some(
        links
            .into_iter()
            .map(|(h, c)| (Cow::Owned(h), Cow::Owned(c)))
            .collect(),
    )
}

const KEY: &[u8] = b"\"alternates\":[";

/// The links of JSON as the reader writes it (the key found after `{` or `,`: an unescaped
/// quote there opens a key, and no other object the reader writes has this one); None
/// for anything else.
fn written(text: &[u8]) -> Option<Vec<(Cow<'_, str>, Cow<'_, str>)>> {
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
    let mut rest = &text[at + KEY.len()..];
    let mut links = Vec::with_capacity(4);
    loop {
        rest = rest.strip_prefix(b"{\"hreflang\":\"")?;
        let (code, after) = plain_string(rest)?;
        rest = after.strip_prefix(b",\"href\":\"")?;
        let (href, after) = plain_string(rest)?;
        rest = after.strip_prefix(b"}")?;
        links.push((Cow::Borrowed(href), Cow::Borrowed(code)));
        match rest.first()? {
            b',' => rest = &rest[1..],
            b']' => break,
            _ => return None,
        }
    }
    Some(links)
}

/// A string's text up to its closing quote, when it holds no escape; and what follows.
fn plain_string(text: &[u8]) -> Option<(&str, &[u8])> {
    let end = memchr::memchr2(b'"', b'\\', text)?;
    if text[end] != b'"' {
        return None;
    }
    Some((std::str::from_utf8(&text[..end]).ok()?, &text[end + 1..]))
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
    }
}
