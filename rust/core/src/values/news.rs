//! The news extension's values as a build takes them (`extensions/news.py` `News`): an
//! article's publication (name, language), publication date, title and the optional access,
//! genres, keywords and stock tickers. A value the Python class would refuse or change in a
//! way this module does not know gives None: the row then goes the per-entry way, which
//! explains it. What is taken is written byte for byte as `News.body` writes it.

use super::alternate::LANGUAGES;
use super::image::image_text;
use super::lastmod::{self, Lastmod};
use super::scalars::trim_python_space;
use crate::write::escape::escape_into;

/// sitemap-news.xsd: up to 5 tickers.
pub const MAX_STOCK_TICKERS: usize = 5;
/// news.py's GENRES and ACCESS, as the class spells them whatever case was given.
pub const GENRES: [&str; 6] = [
    "PressRelease",
    "Satire",
    "Blog",
    "OpEd",
    "Opinion",
    "UserGenerated",
];
pub const ACCESS: [&str; 2] = ["Subscription", "Registration"];

/// A list field as given (`field_checks.text_list`): one comma-separated text, or texts.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Texts {
    One(String),
    Many(Vec<String>),
}

/// The items of a list field, each a required text; None when one needs the Python check.
fn text_list(given: Option<&Texts>) -> Option<Vec<String>> {
    let items: Vec<&str> = match given {
        None => return Some(Vec::new()),
        Some(Texts::One(text)) => text
            .split(',')
            .filter(|item| !trim_python_space(item).is_some_and(str::is_empty))
            .collect(),
        Some(Texts::Many(items)) => items.iter().map(String::as_str).collect(),
    };
    items.into_iter().map(required_text).collect()
}

/// `field_checks.required_text` for the texts the core knows printable: stripped, not empty.
pub fn required_text(text: &str) -> Option<String> {
    image_text(text)?
}

/// A news language as `news.news_language` gives it: an ISO 639 code (two letters from
/// ISO 639-1, or three), zh-cn or zh-tw, in lower case.
pub fn news_language(value: &str) -> Option<String> {
    let code = trim_python_space(value)?.to_ascii_lowercase();
    let letters = code.bytes().all(|b| b.is_ascii_lowercase());
    let known = match code.len() {
        2 => letters && LANGUAGES.holds(&code),
        3 => letters,
        _ => code == "zh-cn" || code == "zh-tw",
    };
    known.then_some(code)
}

/// One of `known` in any case, as the class names it.
pub fn known(word: &str, known: &[&'static str]) -> Option<&'static str> {
    known.iter().copied().find(|k| k.eq_ignore_ascii_case(word))
}

/// A stock ticker as `_TICKER` takes it (`EXCHANGE:SYMBOL`, ASCII word characters here).
pub fn ticker(value: &str) -> bool {
    let word = |s: &str| !s.is_empty() && s.bytes().all(|b| b.is_ascii_alphanumeric() || b == b'_');
    value
        .split_once(':')
        .is_some_and(|(a, b)| word(a) && word(b))
}

/// A publication date given as text: a W3C Datetime as `check_lastmod` reads it (the core's
/// parse of the text as written: one with space around it is Python's to judge).
pub fn published(text: &str) -> Option<Lastmod> {
    (trim_python_space(text)? == text)
        .then(|| lastmod::parse(text))
        .flatten()
}

/// One `<news:news>`.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct News {
    pub publication_name: String,
    pub language: String,
    pub publication_date: Lastmod,
    pub title: String,
    pub access: Option<&'static str>,
    pub genres: Vec<&'static str>,
    pub keywords: Vec<String>,
    pub stock_tickers: Vec<String>,
}

/// The optional fields as given: access, genres, keywords, stock tickers.
pub type Optional<'a> = (Option<&'a str>, [Option<&'a Texts>; 3]);

impl News {
    /// The article of these values, checked as the Python class checks them; None when one
    /// needs the Python check.
    pub fn checked(
        publication_name: &str,
        language: &str,
        publication_date: Lastmod,
        title: &str,
        (access, [genres, keywords, tickers]): Optional<'_>,
    ) -> Option<News> {
        let access = match access {
            None => None,
            Some(text) => Some(known(trim_python_space(text)?, &ACCESS)?),
        };
        let genres = text_list(genres)?
            .iter()
            .map(|genre| known(genre, &GENRES))
            .collect::<Option<Vec<_>>>()?;
        let keywords = text_list(keywords)?;
        if keywords.iter().any(|word| word.contains(',')) {
            return None;
        }
        let stock_tickers = text_list(tickers)?;
        if stock_tickers.len() > MAX_STOCK_TICKERS || !stock_tickers.iter().all(|t| ticker(t)) {
            return None;
        }
        Some(News {
            publication_name: required_text(publication_name)?,
            language: news_language(language)?,
            publication_date,
            title: required_text(title)?,
            access,
            genres,
            keywords,
            stock_tickers,
        })
    }

    /// The element as `News.body` writes it (the root or the `<url>` declares news).
    pub fn write(&self, out: &mut Vec<u8>) {
        out.extend_from_slice(b"<news:news><news:publication><news:name>");
        escape_into(out, &self.publication_name);
        out.extend_from_slice(b"</news:name><news:language>");
        out.extend_from_slice(self.language.as_bytes());
        out.extend_from_slice(b"</news:language></news:publication>");
        if let Some(access) = self.access {
            out.extend_from_slice(b"<news:access>");
            out.extend_from_slice(access.as_bytes());
            out.extend_from_slice(b"</news:access>");
        }
        if !self.genres.is_empty() {
            out.extend_from_slice(b"<news:genres>");
            out.extend_from_slice(self.genres.join(", ").as_bytes());
            out.extend_from_slice(b"</news:genres>");
        }
        out.extend_from_slice(b"<news:publication_date>");
        self.publication_date.write(out);
        out.extend_from_slice(b"</news:publication_date><news:title>");
        escape_into(out, &self.title);
        out.extend_from_slice(b"</news:title>");
        if !self.keywords.is_empty() {
            out.extend_from_slice(b"<news:keywords>");
            escape_into(out, &self.keywords.join(", "));
            out.extend_from_slice(b"</news:keywords>");
        }
        if !self.stock_tickers.is_empty() {
            out.extend_from_slice(b"<news:stock_tickers>");
            out.extend_from_slice(self.stock_tickers.join(", ").as_bytes());
            out.extend_from_slice(b"</news:stock_tickers>");
        }
        out.extend_from_slice(b"</news:news>");
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn date(text: &str) -> Lastmod {
        published(text).unwrap()
    }

    #[test]
    fn an_article_is_written_as_the_python_class_writes_it() {
        let genres = Texts::One("blog, OPINION ,".into());
        let keywords = Texts::Many(vec![" a & b ".into(), "c".into()]);
        let tickers = Texts::One("NASDAQ:A".into());
        let news = News::checked(
            " The <Times> ",
            "EN",
            date("2024-05-06T10:00:00+01:00"),
            "It's",
            (
                Some(" subscription"),
                [Some(&genres), Some(&keywords), Some(&tickers)],
            ),
        )
        .unwrap();
        let mut out = Vec::new();
        news.write(&mut out);
        assert_eq!(
            String::from_utf8(out).unwrap(),
            "<news:news><news:publication><news:name>The &lt;Times&gt;</news:name>\
             <news:language>en</news:language></news:publication>\
             <news:access>Subscription</news:access><news:genres>Blog, Opinion</news:genres>\
             <news:publication_date>2024-05-06T10:00:00+01:00</news:publication_date>\
             <news:title>It&apos;s</news:title><news:keywords>a &amp; b, c</news:keywords>\
             <news:stock_tickers>NASDAQ:A</news:stock_tickers></news:news>"
        );
    }

    #[test]
    fn what_python_would_judge_is_left_to_it() {
        let when = date("2024-05-06");
        let plain = |name: &str, language: &str, title: &str| {
            News::checked(name, language, when, title, (None, [None; 3]))
        };
        assert!(plain("N", "zh-CN", "T").is_some());
        assert!(plain("N", "fil", "T").is_some());
        assert!(plain("N", "xx", "T").is_none());
        assert!(plain("N", "en-US", "T").is_none());
        assert!(plain(" ", "en", "T").is_none());
        assert!(plain("N", "en", "a\tb").is_none());
        let bad = [
            (Some(""), None, None),
            (Some("free"), None, None),
            (None, Some(Texts::One("News".into())), None),
            (None, None, Some(Texts::Many(vec!["a,b".into()]))),
        ];
        for (access, genres, keywords) in &bad {
            let optional = (*access, [genres.as_ref(), keywords.as_ref(), None]);
            assert!(News::checked("N", "en", when, "T", optional).is_none());
        }
        let six = Texts::One("A:B,".repeat(6));
        assert!(News::checked("N", "en", when, "T", (None, [None, None, Some(&six)])).is_none());
        assert!(published(" 2024-05-06").is_none() && published("2024-13-01").is_none());
    }
}
