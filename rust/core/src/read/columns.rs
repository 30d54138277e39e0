//! Records as Arrow-compatible columns (offsets, values, validity bitmaps), so a table of a
//! plain sitemap is built without a Python object per entry (urlset.reading.arrow).
//!
//! The values are the reader's: the loc with its entities replaced, the lastmod as
//! `dates.format_w3c` writes the value read and its instant (`dates.instant`), the
//! changefreq's index in [`CHANGEFREQS`](crate::values::scalars::CHANGEFREQS), the priority,
//! and the extensions object of a record's plain images as JSON text (null for none).

use super::json::extensions_object;
use super::records::Record;
use crate::check::ext_typed::Recorded;
use crate::values::lastmod::{parse_bytes, Lastmod};

/// A validity bitmap as Arrow lays it out: bit `i % 8` of byte `i / 8`, set when valid.
#[derive(Debug, Default, Clone)]
pub struct Validity {
    pub bits: Vec<u8>,
    pub nulls: usize,
    len: usize,
}

impl Validity {
    fn push(&mut self, valid: bool) {
        if self.len.is_multiple_of(8) {
            self.bits.push(0);
        }
        if valid {
            self.bits[self.len / 8] |= 1 << (self.len % 8);
        } else {
            self.nulls += 1;
        }
        self.len += 1;
    }
}

/// A column of UTF-8 texts: Arrow's `string` layout (i32 offsets).
#[derive(Debug, Clone)]
pub struct Texts {
    pub offsets: Vec<i32>,
    pub values: Vec<u8>,
    pub validity: Validity,
}

impl Default for Texts {
    fn default() -> Texts {
        Texts {
            offsets: vec![0],
            values: Vec::new(),
            validity: Validity::default(),
        }
    }
}

impl Validity {
    fn with_room_of(&self) -> Validity {
        Validity {
            bits: Vec::with_capacity(self.bits.len()),
            ..Validity::default()
        }
    }
}

impl Texts {
    fn with_room_of(&self) -> Texts {
        let mut offsets = Vec::with_capacity(self.offsets.len());
        offsets.push(0);
        Texts {
            offsets,
            values: Vec::with_capacity(self.values.len()),
            validity: self.validity.with_room_of(),
        }
    }

    fn close(&mut self, valid: bool) {
        // Arrow's string offsets are i32; a column stops taking records before 2 GiB
        self.offsets
            .push(i32::try_from(self.values.len()).unwrap_or(i32::MAX));
        self.validity.push(valid);
    }
}

/// A column of fixed-width values with its validity.
#[derive(Debug, Default, Clone)]
pub struct Fixed<T> {
    pub values: Vec<T>,
    pub validity: Validity,
}

impl<T: Default> Fixed<T> {
    fn with_room_of(&self) -> Fixed<T> {
        Fixed {
            values: Vec::with_capacity(self.values.len()),
            validity: self.validity.with_room_of(),
        }
    }

    fn push(&mut self, value: Option<T>) {
        self.validity.push(value.is_some());
        self.values.push(value.unwrap_or_default());
    }
}

/// Records of a urlset, a column each.
#[derive(Debug, Default, Clone)]
pub struct Columns {
    pub len: usize,
    pub loc: Texts,
    pub lastmod: Texts,
    /// Microseconds since 1970 UTC.
    pub lastmod_at: Fixed<i64>,
    pub changefreq: Fixed<i8>,
    pub priority: Fixed<f64>,
    /// `{"images":[...]}`, as `json.dumps(extensions.json_fields(...))` writes it.
    pub extensions: Texts,
    /// Each loc's hash ([`hash_of`](super::seen::hash_of)): the check's set rules take the
    /// reader's, not their own.
    pub loc_hashes: Vec<u64>,
    /// Check's columns: the per-URL extension rules' facts of each record with extensions,
    /// recorded from its typed values as its JSON is written (None: not recorded, the
    /// readers' columns).
    pub judging: Option<Recorded>,
    /// The last lastmod text and its value: a file's lastmods repeat.
    last: Option<(Vec<u8>, Lastmod)>,
}

/// How many bytes a column's values may hold (Arrow's i32 offsets).
pub const MAX_COLUMN_BYTES: usize = i32::MAX as usize;

impl Columns {
    /// Columns with room for the records of `bytes` bytes of text, so that they are not
    /// copied as they grow (what is reserved and not written costs no memory).
    pub fn for_text(bytes: usize) -> Columns {
        // a record takes 30 bytes at the least (`<url><loc>http://a.b/</loc></url>`)
        let records = bytes / 30 + 1;
        let texts = |values: usize| Texts {
            offsets: Vec::with_capacity(records + 1),
            values: Vec::with_capacity(values),
            validity: Validity::default(),
        };
        let mut columns = Columns {
            loc: texts(bytes),
            lastmod: texts(records * 32),
            ..Columns::default()
        };
        columns.loc.offsets.push(0);
        columns.lastmod.offsets.push(0);
        columns
    }

    /// Empty columns that record the per-URL extension rules' facts (check's: [`Recorded`]).
    pub fn judging() -> Columns {
        Columns {
            judging: Some(Recorded::default()),
            ..Columns::default()
        }
    }

    /// The columns so far, taken; left in their place are empty ones with room for as many
    /// records and bytes (the next run's are about as many: grown from nothing, each
    /// vector was copied over a few times a run).
    pub fn take(&mut self) -> Columns {
        let room = Columns {
            len: 0,
            loc: self.loc.with_room_of(),
            lastmod: self.lastmod.with_room_of(),
            lastmod_at: self.lastmod_at.with_room_of(),
            changefreq: self.changefreq.with_room_of(),
            priority: self.priority.with_room_of(),
            extensions: self.extensions.with_room_of(),
            loc_hashes: Vec::with_capacity(self.loc_hashes.len()),
            judging: self.judging.as_ref().map(Recorded::with_room_of),
            last: self.last.clone(),
        };
        std::mem::replace(self, room)
    }

    /// Whether `more` bytes still fit in the text columns.
    pub fn has_room(&self, more: usize) -> bool {
        [&self.loc, &self.lastmod, &self.extensions]
            .iter()
            .all(|column| column.values.len() + more < MAX_COLUMN_BYTES)
    }

    /// Append a record read from `data`, its loc's value and hash made here (the lanes
    /// pass the ones their duplicate test made: [`Columns::push_valued`]).
    #[cfg(test)]
    pub fn push(&mut self, data: &[u8], r: &Record) {
        let mut loc = Vec::new();
        match &r.uri {
            Some(c) => loc.extend_from_slice(c.uri.as_bytes()),
            None => super::json::plain_loc_value(data, r.loc, r.has_entity, &mut loc),
        }
        self.push_valued(data, r, (&loc, super::seen::hash_of(&loc)));
    }

    /// Append a record read from `data` whose loc's value is `loc` and its hash `hash`, as
    /// the render lane made them for its duplicate test.
    pub fn push_valued(&mut self, data: &[u8], r: &Record, (loc, hash): (&[u8], u64)) {
        self.loc.values.extend_from_slice(loc);
        self.loc.close(true);
        self.loc_hashes.push(hash);
        let lastmod = r
            .lastmod
            .and_then(|(a, b)| r.lastmod_value.or_else(|| self.lastmod_of(&data[a..b])));
        if let Some(value) = lastmod {
            value.write(&mut self.lastmod.values);
        }
        self.lastmod.close(lastmod.is_some());
        self.lastmod_at.push(lastmod.map(|v| v.instant()));
        self.changefreq
            .push(r.changefreq.map(|i| i8::try_from(i).unwrap_or_default()));
        self.priority.push(r.priority);
        if r.extended() {
            extensions_object(data, r, &mut self.extensions.values);
            if let Some(judging) = self.judging.as_mut() {
                judging.record(self.len, r, loc);
            }
        }
        self.extensions.close(r.extended());
        self.len += 1;
    }

    fn lastmod_of(&mut self, text: &[u8]) -> Option<Lastmod> {
        if let Some((last, value)) = &self.last {
            if last.as_slice() == text {
                return Some(*value);
            }
        }
        // the scanner took the text as plain, so it parses
        let value = parse_bytes(text)?;
        self.last = Some((text.to_vec(), value));
        Some(value)
    }
}

#[cfg(test)]
mod tests {
    use super::super::records::{scan, Kind, Limits, Stop};
    use super::*;

    #[test]
    fn records_become_arrow_columns() {
        let text = b"<url><loc>https://e.com/a?x=1&amp;y=2</loc><lastmod>2024-01-02T03:04:05+00:00</lastmod>\
<changefreq>daily</changefreq><priority>0.5</priority></url>\n<url><loc>https://e.com/b</loc></url>";
        let limits = Limits {
            kind: Kind::Urlset,
            max_records: 10,
            max_value: 4096,
            max_judged: 0,
        };
        let found = scan(text, 0, text.len(), 1, limits);
        assert_eq!(found.stop, Stop::End);
        let mut c = Columns::default();
        for r in &found.records {
            c.push(text, r);
        }
        assert_eq!(c.len, 2);
        assert_eq!(c.loc.offsets, [0, 23, 38]);
        assert_eq!(&c.loc.values[..23], b"https://e.com/a?x=1&y=2");
        assert_eq!(c.lastmod.values, b"2024-01-02T03:04:05Z");
        assert_eq!(c.lastmod.validity.bits, [0b01]);
        assert_eq!(c.lastmod.validity.nulls, 1);
        assert_eq!(c.lastmod_at.values[0], 1_704_164_645_000_000);
        assert_eq!(c.changefreq.values, [2, 0]);
        assert_eq!(c.priority.values[0], 0.5);
        assert_eq!(c.priority.validity.bits, [0b01]);
        assert_eq!(
            (c.extensions.offsets.as_slice(), c.extensions.validity.nulls),
            (&[0, 0, 0][..], 2)
        );
    }

    #[test]
    fn plain_images_become_the_extensions_text() {
        let text = b"<url><loc>https://e.com/a</loc></url>\n<url><loc>https://e.com/b</loc>\
<image:image><image:loc>https://e.com/i.png?a&amp;b</image:loc><image:title>T &amp; &quot;U&quot;</image:title></image:image></url>";
        let limits = Limits {
            kind: Kind::Urlset,
            max_records: 10,
            max_value: 4096,
            max_judged: 0,
        };
        let found =
            super::super::records::scan_with_images(text, (0, text.len()), 1, limits, b"image");
        let mut c = Columns::default();
        for r in &found.records {
            c.push(text, r);
        }
        assert_eq!(c.len, 2);
        assert_eq!(c.extensions.validity.bits, [0b10]);
        assert_eq!(
            String::from_utf8(c.extensions.values.clone()).unwrap(),
            r#"{"images":[{"loc":"https://e.com/i.png?a&b","title":"T & \"U\""}]}"#
        );
    }

    #[test]
    fn validity_fills_bytes_bit_by_bit() {
        let mut v = Validity::default();
        for i in 0..10 {
            v.push(i % 3 != 0);
        }
        assert_eq!(v.bits, [0b1011_0110, 0b01]);
        assert_eq!(v.nulls, 4);
    }
}
