//! The build's row parsing with extensions on any bytes: a JSON line with extension keys
//! (`images`, `videos`, `news`, `alternates`: `json_lines::object`) and a table's `extensions` cell
//! (`json_lines::extensions_cell`) never panic; what the core takes is what it promises (at
//! most 1,000 images, each loc, license and href a plain URI, texts stripped and without a
//! control character, hreflang codes canonical, news tickers and keywords as the schema
//! has them, every video field as the class promises it, the core keys read as without
//! extensions),
//! and an entry rendered with them is counted, declared and judged consistently.
#![no_main]

use libfuzzer_sys::fuzz_target;
use urlset_core::sources::{json_lines, Rows, Value};
use urlset_core::values::alternate::hreflang_code;
use urlset_core::values::extensions::{Extension, Extensions};
use urlset_core::values::image::MAX_IMAGES_PER_URL;
use urlset_core::values::loc::{plain_uri, MAX_LOC_LENGTH};
use urlset_core::values::news::MAX_STOCK_TICKERS;
use urlset_core::values::video::{self, Video};
use urlset_core::write::render::{Rendered, Values, TYPED_NAMESPACES};

fn check(extensions: &Extensions) {
    let mut images = 0;
    let mut links = 0;
    let mut articles = 0;
    let mut videos = 0;
    for item in extensions.items() {
        match item {
            Extension::Image(image) => {
                images += 1;
                assert!(plain_uri(&image.loc, MAX_LOC_LENGTH), "{:?}", image.loc);
                for (index, field) in image.fields.iter().enumerate() {
                    let Some(text) = field else { continue };
                    assert!(!text.is_empty() && text.trim() == text, "{text:?}");
                    assert!(!text.chars().any(char::is_control), "{text:?}");
                    if index == 3 {
                        assert!(plain_uri(text, MAX_LOC_LENGTH), "{text:?}");
                    }
                }
            }
            Extension::Video(video) => {
                videos += 1;
                assert!(plain_uri(&video.thumbnail_loc, MAX_LOC_LENGTH));
                assert!(video.content_loc.is_some() || video.player_loc.is_some());
                assert!(video.title.chars().count() <= 100 && video.tags.len() <= 32);
                check_video_extras(video);
            }
            Extension::News(news) => {
                articles += 1;
                for text in [&news.publication_name, &news.title] {
                    assert!(!text.is_empty() && text.trim() == text, "{text:?}");
                    assert!(!text.chars().any(char::is_control), "{text:?}");
                }
                assert!(news.stock_tickers.len() <= MAX_STOCK_TICKERS);
                assert!(news.keywords.iter().all(|word| !word.contains(',')));
            }
            Extension::Alternate(link) => {
                links += 1;
                assert!(plain_uri(link.href(), MAX_LOC_LENGTH), "{:?}", link.href());
                // canonical: the check gives it back unchanged
                assert_eq!(
                    hreflang_code(link.hreflang()).as_deref(),
                    Some(link.hreflang())
                );
            }
        }
    }
    assert!(images <= MAX_IMAGES_PER_URL);
    // rendered: the document's byte counts agree with the bytes, declared or not
    let mut rendered = Rendered::with_capacity(2);
    rendered.push_with("https://x.org/a", &Values::default(), false, extensions);
    rendered.push("https://x.org/b", &Values::default(), false);
    if rendered.refused().first().is_some_and(|(at, _)| *at == 0) {
        // refused (an hreflang naming two hrefs, a video on the page): nothing written or found
        assert_eq!(rendered.len(), 1);
        assert!(rendered.findings().next().is_none() && rendered.linked_entries() == 0);
        return;
    }
    let all = (1u8 << TYPED_NAMESPACES.len()) - 1;
    for declared in [0, extensions.namespaces(), all] {
        let bytes = rendered.bytes_declared(0, 2, declared);
        let sizes = rendered.size_declared(0, declared) + rendered.size_declared(1, declared);
        assert_eq!(bytes.len(), sizes);
        assert_eq!(rendered.fit_declared(0, 2, bytes.len(), declared), 2);
        assert_eq!(rendered.fit_declared(0, 2, bytes.len() - 1, declared), 1);
        let text = std::str::from_utf8(&bytes).expect("entries are UTF-8");
        assert_eq!(text.matches("<image:image>").count(), images);
        assert_eq!(text.matches("<xhtml:link ").count(), links);
        assert_eq!(text.matches("<news:news>").count(), articles);
        assert_eq!(text.matches("<video:video>").count(), videos);
    }
    assert_eq!(rendered.namespaces(0, 1), extensions.namespaces());
    assert_eq!(rendered.namespaces(0, 1) == 0, extensions.is_empty());
    assert!(rendered.findings().all(|(at, _, _)| at == 0));
    let written: usize = rendered.links().map(|(_, links)| links.len()).sum();
    assert_eq!(written, links);
}

/// The fields of a video the reader's core does not type, as the class promises them: each
/// attribute with its element, a rating from 0 to 5, restriction and platform values of the
/// schema's kinds, prices of a decimal amount and a currency code, URIs plain.
fn check_video_extras(video: &Video) {
    let player = video.player_allow_embed.is_some() || video.player_autoplay.is_some();
    assert!(!player || video.player_loc.is_some());
    assert!(video.gallery_title.is_none() || video.gallery_loc.is_some());
    assert!(video.uploader_info.is_none() || video.uploader.is_some());
    for uri in [&video.gallery_loc, &video.uploader_info]
        .into_iter()
        .flatten()
    {
        assert!(plain_uri(uri, MAX_LOC_LENGTH), "{uri:?}");
    }
    for text in [&video.player_autoplay, &video.gallery_title]
        .into_iter()
        .flatten()
    {
        assert!(!text.is_empty() && text.trim() == text, "{text:?}");
        assert!(!text.chars().any(char::is_control), "{text:?}");
    }
    if let Some(rating) = video.rating {
        assert!((0.0..=5.0).contains(&rating));
        let written = video::decimal(rating).expect("a finite rating");
        assert_eq!(written.parse::<f64>().ok(), Some(rating), "{written}");
        assert!(written.contains('.') && !written.contains('e'), "{written}");
    }
    if let Some(restriction) = &video.restriction {
        let code = |v: &String| v.len() == 2 && v.bytes().all(|b| b.is_ascii_uppercase());
        assert!(restriction.values.iter().all(code));
    }
    if let Some(platform) = &video.platform {
        let known = |v: &String| ["web", "mobile", "tv"].contains(&v.as_str());
        assert!(platform.values.iter().all(known));
    }
    for price in &video.prices {
        let (whole, fraction) = price.amount.split_once('.').unwrap_or((&price.amount, "0"));
        for digits in [whole, fraction] {
            assert!(!digits.is_empty() && digits.bytes().all(|b| b.is_ascii_digit()));
        }
        assert!(
            price.currency.len() == 3 && price.currency.bytes().all(|b| b.is_ascii_uppercase())
        );
    }
}

fn texts(rows: &Rows, values: &[Value; 4]) -> Vec<String> {
    let shown = |&v: &Value| {
        rows.text_of(v)
            .map_or_else(|| format!("{v:?}"), str::to_string)
    };
    values.iter().map(shown).collect()
}

fuzz_target!(|data: &[u8]| {
    let mut extensions = Extensions::default();
    let mut rows = Rows::default();
    if let Some((values, _)) = json_lines::object(data, &mut rows, Some(&mut extensions)) {
        check(&extensions);
        let with = texts(&rows, &values);
        if extensions.is_empty() {
            // a line the core reads without extensions reads the same with them allowed
            let mut plain = Rows::default();
            if let Some((again, _)) = json_lines::object(data, &mut plain, None) {
                assert_eq!(texts(&plain, &again), with);
            }
        }
    } else {
        assert!(json_lines::object(data, &mut Rows::default(), None).is_none());
    }
    if let Ok(text) = std::str::from_utf8(data) {
        if let Some(extensions) = json_lines::extensions_cell(text) {
            check(&extensions);
        }
    }
});
