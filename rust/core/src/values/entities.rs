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

/// The bytes `entity` replaces, as a table: the scan for them is one load a byte.
pub const SPECIAL: [bool; 256] = {
    let mut table = [false; 256];
    let mut i = 0;
    while i < ENTITIES.len() {
        table[ENTITIES[i].0 as usize] = true;
        i += 1;
    }
    table
};
