//! The build's row parsing with extensions on any bytes: a JSON line with an `images` key
//! (`json_lines::object`) and a table's `extensions` cell (`json_lines::extensions_cell`)
//! never panic; what the core takes is what it promises (at most 1,000 images, each loc and
//! license a plain URI, texts stripped and without a control character, the core keys read as
//! without images), and an entry rendered with them is counted and declared consistently.
#![no_main]

use libfuzzer_sys::fuzz_target;
use urlset_core::sources::{json_lines, Rows, Value};
use urlset_core::values::image::{Image, MAX_IMAGES_PER_URL};
use urlset_core::values::loc::{plain_uri, MAX_LOC_LENGTH};
use urlset_core::write::render::{Rendered, Values, IMAGE_BIT};

fn check(images: &[Image]) {
    assert!(images.len() <= MAX_IMAGES_PER_URL);
    for image in images {
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
    // rendered: the document's byte counts agree with the bytes, declared or not
    let mut rendered = Rendered::with_capacity(2);
    rendered.push_with("https://x.org/a", &Values::default(), false, images);
    rendered.push("https://x.org/b", &Values::default(), false);
    for declared in [0, IMAGE_BIT] {
        let bytes = rendered.bytes_declared(0, 2, declared);
        let sizes = rendered.size_declared(0, declared) + rendered.size_declared(1, declared);
        assert_eq!(bytes.len(), sizes);
        assert_eq!(rendered.fit_declared(0, 2, bytes.len(), declared), 2);
        assert_eq!(rendered.fit_declared(0, 2, bytes.len() - 1, declared), 1);
        let text = std::str::from_utf8(&bytes).expect("entries are UTF-8");
        assert_eq!(text.matches("<image:image>").count(), images.len());
    }
    let uses = rendered.namespaces(0, 1) == IMAGE_BIT;
    assert_eq!(uses, !images.is_empty());
}

fn texts(rows: &Rows, values: &[Value; 4]) -> Vec<String> {
    let shown = |&v: &Value| {
        rows.text_of(v)
            .map_or_else(|| format!("{v:?}"), str::to_string)
    };
    values.iter().map(shown).collect()
}

fuzz_target!(|data: &[u8]| {
    let mut images = Vec::new();
    let mut rows = Rows::default();
    if let Some((values, _)) = json_lines::object(data, &mut rows, Some(&mut images)) {
        check(&images);
        let with = texts(&rows, &values);
        if images.is_empty() {
            // a line the core reads without images reads the same with them allowed
            let mut plain = Rows::default();
            if let Some((again, _)) = json_lines::object(data, &mut plain, None) {
                assert_eq!(texts(&plain, &again), with);
            }
        }
    } else {
        assert!(json_lines::object(data, &mut Rows::default(), None).is_none());
    }
    if let Ok(text) = std::str::from_utf8(data) {
        if let Some(images) = json_lines::extensions_cell(text) {
            check(&images);
        }
    }
});
