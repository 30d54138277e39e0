//! JSON text as Python's `json.dumps(..., ensure_ascii=False, separators=(",", ":"))` writes
//! it, for what the reader's output holds beyond the core fields: a record's plain images, as
//! `extensions.json_fields` gives them (urlset.reading.output, urlset.reading.arrow).

use super::images::ImageSpans;
use super::records::Span;

/// A plain loc text's value (each `&amp;` read as `&`) appended to `out`.
pub fn plain_loc_value(data: &[u8], (a, b): Span, has_amp: bool, out: &mut Vec<u8>) {
    let mut rest = &data[a..b];
    if has_amp {
        while let Some(i) = memchr::memmem::find(rest, b"&amp;") {
            out.extend_from_slice(&rest[..=i]);
            rest = &rest[i + 5..];
        }
    }
    out.extend_from_slice(rest);
}

/// The image fields by their JSON names, in the order `Image`'s fields have.
const IMAGE_FIELDS: [&[u8]; 3] = [b"caption", b"geo_location", b"title"];

/// `"images":[...]` as `json.dumps(json_fields(...), ensure_ascii=False)` writes a record's
/// plain images (absent fields left out).
pub fn images_json(data: &[u8], images: &[ImageSpans], out: &mut Vec<u8>) {
    out.extend_from_slice(b"\"images\":[");
    for (i, image) in images.iter().enumerate() {
        if i > 0 {
            out.push(b',');
        }
        out.extend_from_slice(b"{\"loc\":\"");
        let from = out.len();
        plain_loc_value(data, image.loc, image.has_amp, out);
        // a plain loc needs no JSON escape; checked all the same, it costs one pass
        if out[from..]
            .iter()
            .any(|&b| b < 0x20 || b == b'"' || b == b'\\')
        {
            let loc = out.split_off(from);
            json_string(&loc, out);
        }
        out.push(b'"');
        for (name, text) in IMAGE_FIELDS.iter().zip(&image.texts) {
            if let Some(text) = text {
                out.extend_from_slice(b",\"");
                out.extend_from_slice(name);
                out.extend_from_slice(b"\":\"");
                json_string(text.as_bytes(), out);
                out.push(b'"');
            }
        }
        out.push(b'}');
    }
    out.push(b']');
}

/// UTF-8 text as the inside of a JSON string, escaped as Python's `json.dumps` escapes it
/// with `ensure_ascii=False`: `"`, `\` and the C0 controls only.
pub fn json_string(text: &[u8], out: &mut Vec<u8>) {
    const HEX: &[u8; 16] = b"0123456789abcdef";
    let mut start = 0;
    for (i, &b) in text.iter().enumerate() {
        let escaped: &[u8] = match b {
            b'"' => b"\\\"",
            b'\\' => b"\\\\",
            b'\n' => b"\\n",
            b'\r' => b"\\r",
            b'\t' => b"\\t",
            0x08 => b"\\b",
            0x0c => b"\\f",
            0..=0x1f => &[],
            _ => continue,
        };
        out.extend_from_slice(&text[start..i]);
        if escaped.is_empty() {
            out.extend_from_slice(b"\\u00");
            out.push(HEX[usize::from(b >> 4)]);
            out.push(HEX[usize::from(b & 15)]);
        } else {
            out.extend_from_slice(escaped);
        }
        start = i + 1;
    }
    out.extend_from_slice(&text[start..]);
}

/// `{"images":[...]}`: the extensions object of a record's plain images (the JSON Lines
/// output's keys, the CSV cell's and the Parquet and Arrow column's text).
pub fn images_object(data: &[u8], images: &[ImageSpans], out: &mut Vec<u8>) {
    out.push(b'{');
    images_json(data, images, out);
    out.push(b'}');
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn json_strings_escape_as_python_json_does() {
        let mut out = Vec::new();
        json_string(
            "a\"b\\c\n\r\t\u{8}\u{c}\u{1}\u{1f}\u{7f}\u{e9}\u{2028}".as_bytes(),
            &mut out,
        );
        assert_eq!(
            String::from_utf8(out).unwrap(),
            "a\\\"b\\\\c\\n\\r\\t\\b\\f\\u0001\\u001f\u{7f}\u{e9}\u{2028}"
        );
    }
}
