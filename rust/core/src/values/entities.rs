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

/// The character a reference at the start of `text` stands for, and the reference's length:
/// one of the five predefined entities, or a character reference (`&#8217;`, `&#x26;`: PHP's
/// `htmlspecialchars` and WordPress's `esc_url` write them) to a character XML allows other
/// than a control (a reference keeps a tab or line end the parser would have rewritten).
pub fn reference_at(text: &[u8]) -> Option<(char, usize)> {
    if let Some((special, len)) = unescape_at(text) {
        return Some((char::from(special), len));
    }
    let rest = text.strip_prefix(b"&#")?;
    let (digits, radix, head) = match rest {
        [b'x', hex @ ..] => (hex, 16, 3),
        _ => (rest, 10, 2),
    };
    let len = digits.iter().take(9).position(|&b| b == b';')?;
    let digits = &digits[..len];
    let ok = |b: &u8| match radix {
        16 => b.is_ascii_hexdigit(),
        _ => b.is_ascii_digit(),
    };
    if digits.is_empty() || !digits.iter().all(ok) {
        return None;
    }
    let code = u32::from_str_radix(std::str::from_utf8(digits).ok()?, radix).ok()?;
    if code < 0x20 || code == 0xFFFE || code == 0xFFFF {
        return None;
    }
    Some((char::from_u32(code)?, head + len + 1))
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
    fn references_read_as_a_parser_reads_them() {
        use super::reference_at;
        for (text, want) in [
            ("&amp;x", Some(('&', 5))),
            ("&#038;", Some(('&', 6))),
            ("&#x26;", Some(('&', 6))),
            ("&#x2019;", Some(('\u{2019}', 8))),
            ("&#8217;s", Some(('\u{2019}', 7))),
            ("&#x1F600;", Some(('\u{1F600}', 9))),
            ("&#00000000038;", None),
            ("&#9;", None),
            ("&#13;", None),
            ("&#xD800;", None),
            ("&#xFFFE;", None),
            ("&#x110000;", None),
            ("&#X26;", None),
            ("&#;", None),
            ("&#x;", None),
            ("&#38", None),
            ("&#3a;", None),
            ("&nbsp;", None),
        ] {
            assert_eq!(reference_at(text.as_bytes()), want, "{text}");
        }
    }

    #[test]
    fn entity_delta_counts_what_the_guard_changes() {
        let text = b"a&lt;b&gt;&quot;&apos;&apos;&amp;&#60;&lt";
        assert_eq!(super::entity_delta(text), -1);
        assert_eq!(super::entity_delta(b""), 0);
    }
}
