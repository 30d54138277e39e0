//! A build row's typed extensions as the core takes them, in the order they are written (a
//! value's extensions keep theirs; JSON gives them by kind, as `registry.from_json_fields`
//! does): each checked by its module here, the namespaces they need, and what the per-URL
//! rules of `extensions.rules.check_url` find in them. A row whose rules would change what
//! is written (an error a build repairs) is not judged here: it goes the per-entry way.

use super::alternate::{self, Alternate, XHTML_NS};
use super::image::{deprecated_fields, Image, IMAGE_NS, MAX_IMAGES_PER_URL};
use super::news::News;
use super::video::Video;

/// The video and news namespaces: declared in their order among the typed ones.
pub const VIDEO_NS: &str = "http://www.google.com/schemas/sitemap-video/1.1";
pub const NEWS_NS: &str = "http://www.google.com/schemas/sitemap-news/0.9";

/// The typed namespaces an entry may use, by bit, in the order the writer declares them
/// (`extensions.registry.DECLARED_BY`): (prefix, namespace).
pub const TYPED_NAMESPACES: [(&str, &str); 4] = [
    ("image", IMAGE_NS),
    ("video", VIDEO_NS),
    ("news", NEWS_NS),
    ("xhtml", XHTML_NS),
];
pub const IMAGE_BIT: u8 = 1;
pub const VIDEO_BIT: u8 = 1 << 1;
pub const NEWS_BIT: u8 = 1 << 2;
pub const XHTML_BIT: u8 = 1 << 3;

/// One typed extension value.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Extension {
    Image(Image),
    Video(Box<Video>), // every field: the largest by far
    News(News),
    Alternate(Alternate),
}

/// A row's extensions, in order.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Extensions {
    items: Vec<Extension>,
}

/// What a per-URL rule found in an entry the core writes as given: (code, the text the
/// Python rule's message is made of).
pub type Finding = (&'static str, String);

impl From<Vec<Extension>> for Extensions {
    fn from(items: Vec<Extension>) -> Extensions {
        Extensions { items }
    }
}

impl Extensions {
    pub fn push(&mut self, item: Extension) {
        self.items.push(item);
    }

    pub fn extend(&mut self, items: impl IntoIterator<Item = Extension>) {
        self.items.extend(items);
    }

    /// The values, in the order they are written.
    pub fn items(&self) -> &[Extension] {
        &self.items
    }

    pub fn is_empty(&self) -> bool {
        self.items.is_empty()
    }

    pub fn len(&self) -> usize {
        self.items.len()
    }

    fn images(&self) -> impl Iterator<Item = &Image> + Clone {
        self.items.iter().filter_map(|item| match item {
            Extension::Image(image) => Some(image),
            _ => None,
        })
    }

    fn news(&self) -> impl Iterator<Item = &News> {
        self.items.iter().filter_map(|item| match item {
            Extension::News(news) => Some(news),
            _ => None,
        })
    }

    /// Each news article's publication instant (microseconds since 1970 UTC:
    /// `dates.instant`) and title: the document counts them, and the build's rules judge
    /// their age at its `now`.
    pub fn news_published(&self) -> impl Iterator<Item = (i64, &str)> {
        self.news()
            .map(|news| (news.publication_date.instant(), news.title.as_str()))
    }

    /// The hreflang links, in order.
    pub fn links(&self) -> impl Iterator<Item = &Alternate> + Clone {
        self.items.iter().filter_map(|item| match item {
            Extension::Alternate(link) => Some(link),
            _ => None,
        })
    }

    /// Whether the Python class's limits hold (at most 1,000 images a `<url>`).
    pub fn within_limits(&self) -> bool {
        self.images().count() <= MAX_IMAGES_PER_URL
    }

    /// The typed namespaces they use (bits of [`TYPED_NAMESPACES`]).
    pub fn namespaces(&self) -> u8 {
        self.items.iter().fold(0, |bits, item| {
            bits | match item {
                Extension::Image(_) => IMAGE_BIT,
                Extension::Video(_) => VIDEO_BIT,
                Extension::News(_) => NEWS_BIT,
                Extension::Alternate(_) => XHTML_BIT,
            }
        })
    }

    /// The elements as `document._xml_entries_ext` writes them after the priority.
    pub fn write(&self, out: &mut Vec<u8>) {
        for item in &self.items {
            match item {
                Extension::Image(image) => image.write(out),
                Extension::Video(video) => video.write(out),
                Extension::News(news) => news.write(out),
                Extension::Alternate(link) => link.write(out),
            }
        }
    }

    /// What the per-URL rules find for the page `loc` (written as given), in the order
    /// `check_url` reports it; None when a rule would have the build repair the entry (an
    /// hreflang naming two hrefs): the per-entry way does that and says so.
    pub fn findings(&self, loc: &str) -> Option<Vec<Finding>> {
        if self.is_empty() {
            return Some(Vec::new());
        }
        if alternate::duplicate(self.links()) {
            return None;
        }
        let videos = self.items.iter().filter_map(|item| match item {
            Extension::Video(video) => Some(&**video),
            _ => None,
        });
        if videos.into_iter().any(|video| video.on_page(loc)) {
            return None;
        }
        let found = [
            deprecated_fields(self.images()).map(|text| ("image-deprecated-field", text)),
            Some(self.news().count())
                .filter(|&count| count > 1)
                .map(|count| ("news-repeated", count.to_string())),
            alternate::missing_self(loc, self.links()).map(|text| ("hreflang-missing-self", text)),
        ];
        Some(found.into_iter().flatten().collect())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn written_in_order_with_their_namespaces_and_findings() {
        let mut given = Extensions::default();
        let link = |code: &str, href: &str| Alternate::checked(code, href).unwrap();
        given.push(Extension::Alternate(link("en", "https://x.org/")));
        given.push(Extension::Image(
            Image::checked("https://x.org/a.jpg", [None, None, Some("T"), None]).unwrap(),
        ));
        assert_eq!(given.namespaces(), IMAGE_BIT | XHTML_BIT);
        let mut out = Vec::new();
        given.write(&mut out);
        let text = String::from_utf8(out).unwrap();
        assert!(text.starts_with("<xhtml:link rel=\"alternate\" hreflang=\"en\""));
        assert!(text.ends_with("</image:title></image:image>"));
        assert_eq!(
            given.findings("https://x.org/b").unwrap(),
            [
                ("image-deprecated-field", "title (1)".to_string()),
                ("hreflang-missing-self", "en".to_string())
            ]
        );
        assert_eq!(given.findings("https://x.org/").unwrap().len(), 1);
        given.push(Extension::Alternate(link("EN", "https://x.org/other")));
        assert_eq!(given.findings("https://x.org/"), None);
    }
}
