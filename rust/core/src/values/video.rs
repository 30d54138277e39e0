//! The video extension's values as a build takes them (`extensions/video.py` `Video`): the
//! fields typed here are those the read core types too (thumbnail, title, description,
//! content and player locs, duration, dates, view count, tags, category, the yes/no flags,
//! uploader). A video with a rating, a restriction, a platform, a gallery, prices, player
//! attributes or an uploader's info URL, or any value the Python class would refuse or change
//! in a way this module does not know, gives None: its row goes the per-entry way. What is
//! taken is written byte for byte as `Video.body` writes it.

use super::image::{image_license, image_text, image_uri};
use super::lastmod::Lastmod;
use super::scalars::trim_python_space;
use crate::write::escape::escape_into;

/// sitemap-video.xsd and Google's limits, as video.py holds them.
pub const MAX_TITLE: usize = 100;
pub const MAX_DESCRIPTION: usize = 2_048;
pub const MAX_DURATION: u64 = 28_800;
pub const MAX_TAGS: usize = 32;
pub const MAX_CATEGORY: usize = 256;
pub const MAX_UPLOADER: usize = 255;

/// One `<video:video>` of the fields typed here.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Video {
    pub thumbnail_loc: String,
    pub title: String,
    pub description: String,
    pub content_loc: Option<String>,
    pub player_loc: Option<String>,
    pub duration: Option<u64>,
    pub expiration_date: Option<Lastmod>,
    pub view_count: Option<u64>,
    pub publication_date: Option<Lastmod>,
    pub tags: Vec<String>,
    pub category: Option<String>,
    pub family_friendly: Option<bool>,
    pub requires_subscription: Option<bool>,
    pub uploader: Option<String>,
    pub live: Option<bool>,
}

/// `field_checks.required_text` with a limit, for the texts the core knows printable.
fn required(text: &str, limit: usize) -> Option<String> {
    image_text(text)?.filter(|text| text.chars().count() <= limit)
}

/// `field_checks.optional_text` with a limit: None blank, else a required text.
pub fn optional_text(text: &str, limit: usize) -> Option<Option<String>> {
    match image_text(text)? {
        None => Some(None),
        Some(text) => (text.chars().count() <= limit).then_some(Some(text)),
    }
}

/// `field_checks.yes_no` of a text.
pub fn yes_no(text: &str) -> Option<bool> {
    let word = trim_python_space(text)?;
    if word.eq_ignore_ascii_case("yes") {
        Some(true)
    } else if word.eq_ignore_ascii_case("no") {
        Some(false)
    } else {
        None
    }
}

/// `field_checks.whole_number` of a text (ASCII digits, stripped).
pub fn whole_number(text: &str) -> Option<u64> {
    let digits = trim_python_space(text)?;
    if digits.is_empty() || !digits.bytes().all(|b| b.is_ascii_digit()) {
        return None;
    }
    digits.parse().ok()
}

/// The duration's range (1 to 28,800 seconds) and the view count's (at least 0).
pub fn duration(seconds: u64) -> Option<u64> {
    (1..=MAX_DURATION).contains(&seconds).then_some(seconds)
}

impl Video {
    /// A video of its required fields, checked; the optional ones are set by the setters.
    pub fn new(thumbnail_loc: &str, title: &str, description: &str) -> Option<Video> {
        Some(Video {
            thumbnail_loc: image_uri(thumbnail_loc)?.into_owned(),
            title: required(title, MAX_TITLE)?,
            description: required(description, MAX_DESCRIPTION)?,
            ..Video::default()
        })
    }

    /// A content or player loc (`optional_uri`: blank is absent).
    pub fn loc(text: &str) -> Option<Option<String>> {
        image_license(text)
    }

    pub fn set_tags(&mut self, tags: Vec<String>) -> Option<()> {
        let tags = tags
            .iter()
            .map(|tag| required(tag, usize::MAX))
            .collect::<Option<Vec<_>>>()?;
        (tags.len() <= MAX_TAGS).then(|| self.tags = tags)
    }

    pub fn set_category(&mut self, text: &str) -> Option<()> {
        self.category = optional_text(text, MAX_CATEGORY)?;
        Some(())
    }

    pub fn set_uploader(&mut self, text: &str) -> Option<()> {
        self.uploader = optional_text(text, MAX_UPLOADER)?;
        Some(())
    }

    /// The video when it has a content or a player loc (the class requires one).
    pub fn finished(self) -> Option<Video> {
        (self.content_loc.is_some() || self.player_loc.is_some()).then_some(self)
    }

    /// Whether its content or player loc is the page `loc` (`video-loc-is-page`, an error a
    /// build repairs by leaving the video out: the per-entry way does that).
    pub fn on_page(&self, loc: &str) -> bool {
        self.content_loc.as_deref() == Some(loc) || self.player_loc.as_deref() == Some(loc)
    }

    /// The element as `Video.body` writes it (the root or the `<url>` declares video).
    pub fn write(&self, out: &mut Vec<u8>) {
        let text = |out: &mut Vec<u8>, name: &str, value: &str| {
            out.extend_from_slice(b"<video:");
            out.extend_from_slice(name.as_bytes());
            out.push(b'>');
            escape_into(out, value);
            out.extend_from_slice(b"</video:");
            out.extend_from_slice(name.as_bytes());
            out.push(b'>');
        };
        let yn = |flag: bool| if flag { "yes" } else { "no" };
        let date = |out: &mut Vec<u8>, name: &str, value: &Lastmod| {
            let mut written = Vec::with_capacity(32);
            value.write(&mut written);
            text(out, name, std::str::from_utf8(&written).unwrap_or_default());
        };
        out.extend_from_slice(b"<video:video>");
        text(out, "thumbnail_loc", &self.thumbnail_loc);
        text(out, "title", &self.title);
        text(out, "description", &self.description);
        if let Some(loc) = &self.content_loc {
            text(out, "content_loc", loc);
        }
        if let Some(loc) = &self.player_loc {
            text(out, "player_loc", loc);
        }
        if let Some(seconds) = self.duration {
            text(out, "duration", &seconds.to_string());
        }
        if let Some(when) = &self.expiration_date {
            date(out, "expiration_date", when);
        }
        if let Some(count) = self.view_count {
            text(out, "view_count", &count.to_string());
        }
        if let Some(when) = &self.publication_date {
            date(out, "publication_date", when);
        }
        for tag in &self.tags {
            text(out, "tag", tag);
        }
        if let Some(category) = &self.category {
            text(out, "category", category);
        }
        if let Some(flag) = self.family_friendly {
            text(out, "family_friendly", yn(flag));
        }
        if let Some(flag) = self.requires_subscription {
            text(out, "requires_subscription", yn(flag));
        }
        if let Some(uploader) = &self.uploader {
            text(out, "uploader", uploader);
        }
        if let Some(flag) = self.live {
            text(out, "live", yn(flag));
        }
        out.extend_from_slice(b"</video:video>");
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::values::lastmod::parse;

    #[test]
    fn a_video_is_written_as_the_python_class_writes_it() {
        let mut video = Video::new("https://x.org/t.jpg", " A & B ", "It's <new>").unwrap();
        video.content_loc = Video::loc("https://x.org/v.mp4?a=1&b=2").unwrap();
        video.duration = duration(whole_number(" 600 ").unwrap());
        video.publication_date = parse("2024-05-06T10:00:00+01:00");
        video.set_tags(vec!["a".into(), " b ".into()]).unwrap();
        video.family_friendly = yes_no("YES");
        video.live = yes_no(" no");
        let mut out = Vec::new();
        video.finished().unwrap().write(&mut out);
        assert_eq!(
            String::from_utf8(out).unwrap(),
            "<video:video><video:thumbnail_loc>https://x.org/t.jpg</video:thumbnail_loc>\
             <video:title>A &amp; B</video:title>\
             <video:description>It&apos;s &lt;new&gt;</video:description>\
             <video:content_loc>https://x.org/v.mp4?a=1&amp;b=2</video:content_loc>\
             <video:duration>600</video:duration>\
             <video:publication_date>2024-05-06T10:00:00+01:00</video:publication_date>\
             <video:tag>a</video:tag><video:tag>b</video:tag>\
             <video:family_friendly>yes</video:family_friendly><video:live>no</video:live>\
             </video:video>"
        );
    }

    #[test]
    fn what_python_would_judge_is_left_to_it() {
        assert!(Video::new("/t.jpg", "T", "D").is_none());
        assert!(Video::new("https://x.org/t", &"x".repeat(101), "D").is_none());
        assert!(Video::new("https://x.org/t", "T", "a\nb").is_none());
        let video = Video::new("https://x.org/t", "T", "D").unwrap();
        assert!(video.clone().finished().is_none());
        assert_eq!(duration(0), None);
        assert_eq!(whole_number("1.5"), None);
        assert_eq!(yes_no("true"), None);
        let mut many = video;
        assert!(many.set_tags(vec!["t".into(); 33]).is_none());
    }
}
