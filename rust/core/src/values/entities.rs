//! The five predefined XML entities: "All data values in a Sitemap must be entity-escaped"
//! (sitemaps.org 0.9). The writer escapes with them, the reader replaces them.

/// Each special character and its entity.
pub const ENTITIES: [(u8, &[u8]); 5] = [
    (b'&', b"&amp;"),
    (b'<', b"&lt;"),
    (b'>', b"&gt;"),
    (b'"', b"&quot;"),
    (b'\'', b"&apos;"),
];

/// The entity of an XML special byte, or None for any other byte.
#[inline]
pub fn entity(byte: u8) -> Option<&'static [u8]> {
    ENTITIES
        .iter()
        .find(|(special, _)| *special == byte)
        .map(|(_, name)| *name)
}

/// The character an entity at the start of `text` stands for, and the entity's length.
pub fn unescape_at(text: &[u8]) -> Option<(u8, usize)> {
    ENTITIES
        .iter()
        .find(|(_, name)| text.starts_with(name))
        .map(|(special, name)| (*special, name.len()))
}

/// How much longer the reader's guard makes `text` (urlset.reading.xml_guard): one byte for
/// each `&lt;` and `&gt;`, one less for each `&quot;` and `&apos;`; the other entities and
/// references count nothing. One pass over the '&'s instead of a search per entity.
pub fn entity_delta(text: &[u8]) -> i64 {
    let mut delta = 0i64;
    for at in memchr::memchr_iter(b'&', text) {
        let rest = &text[at + 1..];
        if rest.starts_with(b"lt;") || rest.starts_with(b"gt;") {
            delta += 1;
        } else if rest.starts_with(b"quot;") || rest.starts_with(b"apos;") {
            delta -= 1;
        }
    }
    delta
}

#[cfg(test)]
mod tests {
    #[test]
    fn entity_delta_counts_what_the_guard_changes() {
        let text = b"a&lt;b&gt;&quot;&apos;&apos;&amp;&#60;&lt";
        assert_eq!(super::entity_delta(text), -1);
        assert_eq!(super::entity_delta(b""), 0);
    }
}
