//! Whether a window of an XML sitemap breaks the protocol's order of elements, as Python's
//! `checking/structure.py` patterns (`_SHAPES`) find it: one pass over the window's end
//! tags and entry start tags instead of three patterns stopping at every `</`.
//!
//! For a urlset (an index likewise, with its two children): a protocol end tag followed,
//! after white space, by a tag other than the ones the protocol allows next (`after`); an
//! entry whose first child is not its loc (`entry`); and where prefixes are declared, a
//! protocol element right after an extension element's end tag (`after_extension`).
use memchr::memmem;

/// Python's `\s` in a bytes pattern.
fn space(b: u8) -> bool {
    matches!(b, b' ' | b'\t' | b'\n' | b'\r' | 0x0b | 0x0c)
}

/// Python's `\w` in a bytes pattern.
fn word(b: u8) -> bool {
    b.is_ascii_alphanumeric() || b == b'_'
}

/// Whether `text` starts with a prefixed name's prefix (`[A-Za-z_][\w.\-]*:`).
fn prefixed(text: &[u8]) -> bool {
    match text.first() {
        Some(&b) if b.is_ascii_alphabetic() || b == b'_' => {}
        _ => return false,
    }
    let end = text[1..]
        .iter()
        .position(|&b| !(word(b) || b == b'.' || b == b'-'))
        .map(|k| k + 1);
    end.is_some_and(|k| text[k] == b':')
}

/// What follows `at` past white space, when it starts with `<`: the bytes after the `<`.
fn next_tag(window: &[u8], at: usize) -> Option<&[u8]> {
    let rest = &window[at..];
    let k = rest.iter().position(|&b| !space(b))?;
    (rest[k] == b'<').then(|| &rest[k + 1..])
}

/// The protocol's children of an entry, in order, and the entry's name.
fn shape(index: bool) -> (&'static [&'static [u8]], &'static [u8]) {
    if index {
        (&[b"loc", b"lastmod"], b"sitemap")
    } else {
        (&[b"loc", b"lastmod", b"changefreq", b"priority"], b"url")
    }
}

/// Whether `window` from `start` holds a break of the order (see the module doc); `index`
/// for a sitemap index, `prefixes` when a prefix is declared.
pub fn breaks_order(window: &[u8], start: usize, index: bool, prefixes: bool) -> bool {
    let window = window.get(start..).unwrap_or_default();
    let (children, entry) = shape(index);
    for at in memmem::find_iter(window, b"</") {
        let tag = &window[at + 2..];
        if let Some(rank) = children
            .iter()
            .position(|name| tag.starts_with(name) && tag.get(name.len()) == Some(&b'>'))
        {
            let Some(next) = next_tag(window, at + 2 + children[rank].len() + 1) else {
                continue;
            };
            let allowed = children[rank + 1..]
                .iter()
                .any(|name| next.starts_with(name) && next.get(name.len()) == Some(&b'>'))
                || (next.first() == Some(&b'/')
                    && next[1..].starts_with(entry)
                    && next.get(1 + entry.len()) == Some(&b'>'))
                || prefixed(next);
            if !allowed {
                return true;
            }
        } else if prefixes && prefixed(tag) {
            let Some(close) = memchr::memchr(b'>', tag) else {
                continue;
            };
            if let Some(next) = next_tag(tag, close + 1) {
                if children
                    .iter()
                    .any(|name| next.starts_with(name) && next.get(name.len()) == Some(&b'>'))
                {
                    return true;
                }
            }
        }
    }
    let open = [b"<", entry, b">"].concat();
    memmem::find_iter(window, &open)
        .any(|at| next_tag(window, at + open.len()).is_some_and(|next| !next.starts_with(b"loc>")))
}

/// Whether `window` holds `xmlns` (a namespace declaration may follow: the prover reads
/// it by its pattern; most windows after the root's have none).
pub fn declares_namespace(window: &[u8]) -> bool {
    memmem::find(window, b"xmlns").is_some()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_namespace_declaration_is_found_by_its_attribute_name() {
        assert!(declares_namespace(b"<urlset xmlns=\"x\">"));
        assert!(!declares_namespace(b"<url>xmln</url>"));
    }

    #[test]
    fn the_protocol_order_holds_and_each_break_is_found() {
        let urlset: &[u8] = b"<url>\n <loc>a</loc> <lastmod>b</lastmod><x:y/></url>";
        assert!(!breaks_order(urlset, 0, false, true));
        assert!(breaks_order(
            b"<url><lastmod>b</lastmod></url>",
            0,
            false,
            false
        ));
        assert!(breaks_order(b"<loc>a</loc><loc>b</loc>", 0, false, false));
        assert!(breaks_order(b"</priority>\t<lastmod>", 0, false, false));
        // a protocol element after an extension's end tag, only where a prefix is declared
        let after: &[u8] = b"<url><loc>a</loc><x:y>1</x:y> <lastmod>b</lastmod></url>";
        assert!(breaks_order(after, 0, false, true));
        assert!(!breaks_order(after, 0, false, false));
        // an index has two children; a break before `start` is not looked at
        assert!(breaks_order(b"</lastmod><loc>", 0, true, false));
        assert!(!breaks_order(b"</lastmod><loc>", 3, true, false));
        assert!(!breaks_order(
            b"<sitemap><loc>a</loc><lastmod>b</lastmod></sitemap>",
            0,
            true,
            false
        ));
    }
}
