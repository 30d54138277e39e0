//! The video extension's values as a build takes them (`extensions/video.py` `Video`): every
//! field the Python class writes (thumbnail, title, description, content and player locs
//! with the player's attributes, duration, dates, rating, view count, tags, category, the
//! yes/no flags, restriction, gallery, prices, uploader with its info URL, platform). A value
//! the Python class would refuse or change in a way this module does not know gives None:
//! its row goes the per-entry way, which explains it. What is taken is written byte for byte
//! as `Video.body` writes it.

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
#[derive(Clone, Debug, Default, PartialEq)]
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
    pub player_allow_embed: Option<bool>,
    pub player_autoplay: Option<String>,
    pub rating: Option<f64>,
    pub restriction: Option<Relationship>,
    pub gallery_loc: Option<String>,
    pub gallery_title: Option<String>,
    pub prices: Vec<Price>,
    pub uploader_info: Option<String>,
    pub platform: Option<Relationship>,
}

// a rating is a finite float from 0 to 5: equal to itself
impl Eq for Video {}

/// `<video:restriction>` (country codes) or `<video:platform>` (web, mobile, tv): allow or
/// deny, and its values (`video.Relationship`).
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Relationship {
    pub allow: bool,
    pub values: Vec<String>,
}

impl Relationship {
    /// `relationship` ("allow" or "deny", any case, stripped) and its values (a text is split
    /// at white space), each of which `value` must accept; None when Python must judge.
    fn checked(
        relationship: &str,
        values: &[&str],
        value: impl Fn(&str) -> bool,
    ) -> Option<Relationship> {
        let word = ascii_word(relationship)?;
        let allow = match word.as_str() {
            "allow" => true,
            "deny" => false,
            _ => return None,
        };
        let values: Vec<String> = values.iter().map(|v| (*v).to_owned()).collect();
        values
            .iter()
            .all(|v| value(v))
            .then_some(Relationship { allow, values })
    }

    /// A restriction: ISO 3166 country codes as `video._COUNTRY` takes them (two capitals).
    pub fn countries(relationship: &str, values: &[&str]) -> Option<Relationship> {
        Relationship::checked(relationship, values, |code| {
            code.len() == 2 && code.bytes().all(|b| b.is_ascii_uppercase())
        })
    }

    /// A platform: web, mobile or tv.
    pub fn platforms(relationship: &str, values: &[&str]) -> Option<Relationship> {
        Relationship::checked(relationship, values, |word| {
            matches!(word, "web" | "mobile" | "tv")
        })
    }

    fn write(&self, out: &mut Vec<u8>, name: &str) {
        out.extend_from_slice(b"<video:");
        out.extend_from_slice(name.as_bytes());
        out.extend_from_slice(b" relationship=\"");
        out.extend_from_slice(if self.allow { b"allow" } else { b"deny" });
        out.extend_from_slice(b"\">");
        out.extend_from_slice(self.values.join(" ").as_bytes());
        out.extend_from_slice(b"</video:");
        out.extend_from_slice(name.as_bytes());
        out.push(b'>');
    }
}

/// `<video:price>`: an amount (its decimal text), a currency, rent or purchase, sd or hd
/// (`video.Price`).
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Price {
    pub amount: String,
    pub currency: String,
    pub kind: Option<&'static str>,
    pub resolution: Option<&'static str>,
}

impl Price {
    /// A price of its texts (an amount given as a number: [`decimal`] first) as the Python
    /// class checks them; None when it must judge.
    pub fn checked(
        amount: &str,
        currency: &str,
        kind: Option<&str>,
        resolution: Option<&str>,
    ) -> Option<Price> {
        let amount = trim_python_space(amount)?;
        let (whole, fraction) = amount.split_once('.').unwrap_or((amount, "0"));
        let digits = |s: &str| !s.is_empty() && s.bytes().all(|b| b.is_ascii_digit());
        if !digits(whole) || !digits(fraction) {
            return None;
        }
        let currency = trim_python_space(currency)?.to_ascii_uppercase();
        if currency.len() != 3 || !currency.bytes().all(|b| b.is_ascii_uppercase()) {
            return None;
        }
        let one_of = |given: Option<&str>, allowed: [&'static str; 2]| match given {
            None => Some(None),
            Some(text) => {
                let word = ascii_word(text)?;
                Some(Some(*allowed.iter().find(|a| **a == word)?))
            }
        };
        Some(Price {
            amount: amount.to_owned(),
            currency,
            kind: one_of(kind, ["rent", "purchase"])?,
            resolution: one_of(resolution, ["sd", "hd"])?,
        })
    }

    fn write(&self, out: &mut Vec<u8>) {
        out.extend_from_slice(b"<video:price currency=\"");
        out.extend_from_slice(self.currency.as_bytes());
        out.push(b'"');
        if let Some(kind) = self.kind {
            out.extend_from_slice(b" type=\"");
            out.extend_from_slice(kind.as_bytes());
            out.push(b'"');
        }
        if let Some(resolution) = self.resolution {
            out.extend_from_slice(b" resolution=\"");
            out.extend_from_slice(resolution.as_bytes());
            out.push(b'"');
        }
        out.push(b'>');
        out.extend_from_slice(self.amount.as_bytes());
        out.extend_from_slice(b"</video:price>");
    }
}

/// A text stripped and lowered when it is ASCII (Python's `strip().lower()` of it); None
/// for any other (Unicode case rules are Python's).
fn ascii_word(text: &str) -> Option<String> {
    let word = trim_python_space(text)?;
    word.is_ascii().then(|| word.to_ascii_lowercase())
}

/// `field_checks.format_decimal`: a float as an xsd:decimal, never in exponent form, with a
/// point (the shortest digits that read back as it, as Python's `repr` gives them).
pub fn decimal(number: f64) -> Option<String> {
    if !number.is_finite() {
        return None;
    }
    let text = format!("{number}");
    Some(if text.contains('.') {
        text
    } else {
        text + ".0"
    })
}

/// `video._rating` of a number: from 0.0 to 5.0.
pub fn rating(number: f64) -> Option<f64> {
    (0.0..=5.0).contains(&number).then_some(number)
}

/// `video._rating` of a text as `float()` reads it, for the decimal texts the core knows
/// (digits, a point and digits, stripped).
pub fn rating_text(text: &str) -> Option<f64> {
    let text = trim_python_space(text)?;
    let (whole, fraction) = text.split_once('.').unwrap_or((text, "0"));
    let digits = |s: &str| !s.is_empty() && s.bytes().all(|b| b.is_ascii_digit());
    if !digits(whole) || !digits(fraction) {
        return None;
    }
    rating(text.parse().ok()?)
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

    /// The player's autoplay attribute (`optional_text`, an attribute).
    pub fn set_autoplay(&mut self, text: &str) -> Option<()> {
        self.player_autoplay = image_text(text)?;
        Some(())
    }

    /// The gallery's title attribute (`optional_text`, an attribute).
    pub fn set_gallery_title(&mut self, text: &str) -> Option<()> {
        self.gallery_title = image_text(text)?;
        Some(())
    }

    /// The video when it has a content or a player loc (the class requires one), and each
    /// attribute its element (player, gallery and uploader attributes without theirs are
    /// refused by the class).
    pub fn finished(self) -> Option<Video> {
        let located = self.content_loc.is_some() || self.player_loc.is_some();
        let player = self.player_loc.is_some()
            || (self.player_allow_embed.is_none() && self.player_autoplay.is_none());
        let gallery = self.gallery_loc.is_some() || self.gallery_title.is_none();
        let uploader = self.uploader.is_some() || self.uploader_info.is_none();
        (located && player && gallery && uploader).then_some(self)
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
            out.extend_from_slice(b"<video:player_loc");
            if let Some(flag) = self.player_allow_embed {
                out.extend_from_slice(b" allow_embed=\"");
                out.extend_from_slice(yn(flag).as_bytes());
                out.push(b'"');
            }
            if let Some(autoplay) = &self.player_autoplay {
                out.extend_from_slice(b" autoplay=\"");
                escape_into(out, autoplay);
                out.push(b'"');
            }
            out.push(b'>');
            escape_into(out, loc);
            out.extend_from_slice(b"</video:player_loc>");
        }
        if let Some(seconds) = self.duration {
            text(out, "duration", &seconds.to_string());
        }
        if let Some(when) = &self.expiration_date {
            date(out, "expiration_date", when);
        }
        if let Some(rating) = self.rating.and_then(decimal) {
            text(out, "rating", &rating);
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
        if let Some(restriction) = &self.restriction {
            restriction.write(out, "restriction");
        }
        if let Some(gallery) = &self.gallery_loc {
            out.extend_from_slice(b"<video:gallery_loc");
            if let Some(title) = &self.gallery_title {
                out.extend_from_slice(b" title=\"");
                escape_into(out, title);
                out.push(b'"');
            }
            out.push(b'>');
            escape_into(out, gallery);
            out.extend_from_slice(b"</video:gallery_loc>");
        }
        for price in &self.prices {
            price.write(out);
        }
        if let Some(flag) = self.requires_subscription {
            text(out, "requires_subscription", yn(flag));
        }
        if let Some(uploader) = &self.uploader {
            out.extend_from_slice(b"<video:uploader");
            if let Some(info) = &self.uploader_info {
                out.extend_from_slice(b" info=\"");
                escape_into(out, info);
                out.push(b'"');
            }
            out.push(b'>');
            escape_into(out, uploader);
            out.extend_from_slice(b"</video:uploader>");
        }
        if let Some(platform) = &self.platform {
            platform.write(out, "platform");
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
    fn every_other_field_is_written_in_the_class_order() {
        let mut video = Video::new("https://x.org/t.jpg", "T", "D").unwrap();
        video.player_loc = Video::loc("https://x.org/p").unwrap();
        video.player_allow_embed = yes_no("No");
        video.set_autoplay(" a&b ").unwrap();
        video.rating = rating_text(" 5 ");
        video.restriction = Relationship::countries(" Deny ", &["US", "GB"]);
        video.gallery_loc = Video::loc("https://x.org/g").unwrap();
        video.set_gallery_title("G").unwrap();
        video.prices = vec![
            Price::checked(" 1.50 ", "eur", Some("RENT"), None).unwrap(),
            Price::checked("2", "USD", None, Some(" hd")).unwrap(),
        ];
        video.set_uploader("U").unwrap();
        video.uploader_info = Video::loc("https://x.org/u?a=1&b=2").unwrap();
        video.platform = Relationship::platforms("allow", &["web", "tv"]);
        let mut out = Vec::new();
        video.finished().unwrap().write(&mut out);
        assert_eq!(
            String::from_utf8(out).unwrap(),
            "<video:video><video:thumbnail_loc>https://x.org/t.jpg</video:thumbnail_loc>\
             <video:title>T</video:title><video:description>D</video:description>\
             <video:player_loc allow_embed=\"no\" autoplay=\"a&amp;b\">https://x.org/p</video:player_loc>\
             <video:rating>5.0</video:rating>\
             <video:restriction relationship=\"deny\">US GB</video:restriction>\
             <video:gallery_loc title=\"G\">https://x.org/g</video:gallery_loc>\
             <video:price currency=\"EUR\" type=\"rent\">1.50</video:price>\
             <video:price currency=\"USD\" resolution=\"hd\">2</video:price>\
             <video:uploader info=\"https://x.org/u?a=1&amp;b=2\">U</video:uploader>\
             <video:platform relationship=\"allow\">web tv</video:platform></video:video>"
        );
        assert_eq!(decimal(0.1).as_deref(), Some("0.1"));
        assert_eq!(decimal(1e-5).as_deref(), Some("0.00001"));
        assert_eq!(decimal(f64::NAN), None);
    }

    #[test]
    fn extras_python_would_judge_are_left_to_it() {
        assert_eq!(rating_text("5.5"), None);
        assert_eq!(rating_text("4.5e0"), None);
        assert!(Relationship::countries("allow", &["us"]).is_none());
        assert!(Relationship::countries("maybe", &["US"]).is_none());
        assert!(Relationship::platforms("allow", &["desktop"]).is_none());
        assert!(Price::checked("1,99", "EUR", None, None).is_none());
        assert!(Price::checked("1", "EURO", None, None).is_none());
        assert!(Price::checked("1", "\u{131}NR", None, None).is_none()); // Python's upper
        assert!(Price::checked("1", "EUR", Some("lend"), None).is_none());
        let mut orphan = Video::new("https://x.org/t", "T", "D").unwrap();
        orphan.content_loc = Some("https://x.org/v".into());
        orphan.player_allow_embed = Some(true);
        assert!(orphan.clone().finished().is_none());
        orphan.player_allow_embed = None;
        orphan.uploader_info = Some("https://x.org/u".into());
        assert!(orphan.finished().is_none());
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
