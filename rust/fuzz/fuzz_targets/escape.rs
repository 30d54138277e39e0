//! The writer's escaping: any text escapes to XML character data with no special left bare,
//! and the entities read back to the text; lastmods that parse are written back as parsed.
#![no_main]

use libfuzzer_sys::fuzz_target;
use urlset_core::values::lastmod;
use urlset_core::write::escape;

fuzz_target!(|data: &[u8]| {
    let Ok(text) = std::str::from_utf8(data) else {
        return;
    };
    let escaped = escape::escape(text);
    assert!(!escaped.contains(['<', '>', '"', '\'']));
    let back = escaped
        .replace("&lt;", "<")
        .replace("&gt;", ">")
        .replace("&quot;", "\"")
        .replace("&apos;", "'")
        .replace("&amp;", "&");
    assert_eq!(back, text);
    if let Some(parsed) = lastmod::parse(text) {
        let mut written = Vec::new();
        parsed.write(&mut written);
        let again = lastmod::parse(std::str::from_utf8(&written).unwrap()).unwrap();
        assert_eq!(again.newest_key(), parsed.newest_key());
    }
});
