//! The per-URL extension rules' facts recorded by the render lane as it writes a record's
//! extensions into the columns check reads (`read::columns::Columns::judging`), from the
//! typed values it writes them from: what [`ext_json::judge`] reads back from that JSON
//! (each record's counts, its news items' dates), without reading it again.
//!
//! The tests hold the two equal on records read from XML (`tests` below).
use super::ext_json::{link_findings, Judged, CODES, COUNTS, FOUND, JUDGED, MAX_IMAGES, NONE};
use super::loc_column::StringColumn;
use crate::read::records::Record;
use crate::values::lastmod::Lastmod;

/// The facts of a column's records with extensions, in row order.
#[derive(Debug, Default, Clone, PartialEq, Eq)]
pub struct Recorded {
    /// The column rows of the records with extensions, ascending.
    pub rows: Vec<u32>,
    /// [`COUNTS`] numbers for each of `rows` (the codes', then the kinds').
    pub counts: Vec<u32>,
    /// Each news item's column row and date (an index into `dates`).
    pub news_rows: Vec<u32>,
    pub news_dates: Vec<u32>,
    /// The distinct publication dates, as the JSON writes them.
    pub dates: Vec<String>,
}

impl Recorded {
    /// Room for as many as `self` holds (the next run's are about as many).
    pub fn with_room_of(&self) -> Recorded {
        Recorded {
            rows: Vec::with_capacity(self.rows.len()),
            counts: Vec::with_capacity(self.counts.len()),
            ..Recorded::default()
        }
    }

    /// Record `r` (with extensions), the column's row `row`, whose loc's value is `loc`, as
    /// `ext_json::record` judges the JSON written of it.
    pub fn record(&mut self, row: usize, r: &Record, loc: &[u8]) {
        let mut counts = [0u32; COUNTS];
        let images = r.images.as_deref().unwrap_or_default();
        counts[0] = u32::from(images.len() > MAX_IMAGES);
        // an image's JSON has more keys than its loc when it has a text field
        counts[1] = u32::from(images.iter().any(|i| i.texts.iter().any(Option::is_some)));
        let mut kinds = [images.len(), 0, 0, 0];
        let row = u32::try_from(row).unwrap_or(u32::MAX);
        if let Some(media) = r.media.as_deref() {
            for video in &media.videos {
                let on_page =
                    |at: &Option<String>| u32::from(at.as_deref().map(str::as_bytes) == Some(loc));
                counts[2] += on_page(&video.content_loc) + on_page(&video.player_loc);
            }
            counts[3] = u32::from(media.news.len() > 1);
            if !media.links.is_empty() {
                [counts[4], counts[5]] = link_findings(&media.links, loc);
            }
            kinds[1..].copy_from_slice(&[media.videos.len(), media.news.len(), media.links.len()]);
            for item in &media.news {
                self.news_rows.push(row);
                let index = self.date_index(&item.publication_date);
                self.news_dates.push(index);
            }
        }
        for (at, n) in kinds.into_iter().enumerate() {
            counts[CODES.len() + at] = u32::try_from(n).unwrap_or(u32::MAX);
        }
        self.rows.push(row);
        self.counts.extend_from_slice(&counts);
    }

    /// The index of `date`'s text (as the JSON writes it) among the distinct dates.
    fn date_index(&mut self, date: &Lastmod) -> u32 {
        let mut text = Vec::with_capacity(32);
        date.write(&mut text);
        let text = String::from_utf8_lossy(&text);
        // a news sitemap repeats its dates: the last one first
        let index = match self.dates.iter().rposition(|d| *d == text) {
            Some(index) => index,
            None => {
                self.dates.push(text.into_owned());
                self.dates.len() - 1
            }
        };
        u32::try_from(index).unwrap_or(u32::MAX)
    }

    /// Rows `start..stop` judged as [`ext_json::judge`] judges their JSON (rows counted from
    /// `start`, the dates those of the run alone, first met first).
    pub fn judged(&self, start: usize, stop: usize) -> Judged {
        let rows = stop.saturating_sub(start);
        let mut out = Judged {
            status: vec![NONE; rows],
            counts: vec![0; rows * COUNTS],
            ..Judged::default()
        };
        let first = self.rows.partition_point(|&r| (r as usize) < start);
        let last = self.rows.partition_point(|&r| (r as usize) < stop);
        for (at, &row) in self.rows[first..last].iter().enumerate() {
            let i = row as usize - start;
            let counts = &self.counts[(first + at) * COUNTS..(first + at + 1) * COUNTS];
            out.counts[i * COUNTS..(i + 1) * COUNTS].copy_from_slice(counts);
            let found = counts[..CODES.len()].iter().any(|&n| n > 0);
            out.status[i] = if found { FOUND } else { JUDGED };
        }
        let first = self.news_rows.partition_point(|&r| (r as usize) < start);
        let last = self.news_rows.partition_point(|&r| (r as usize) < stop);
        // the run's own date numbers, as `judge` gives them: first met first
        let mut local: Vec<(u32, i32)> = Vec::new();
        for (&row, &date) in self.news_rows[first..last]
            .iter()
            .zip(&self.news_dates[first..last])
        {
            let index = match local.iter().find(|(d, _)| *d == date) {
                Some(&(_, index)) => index,
                None => {
                    let index = i32::try_from(out.dates.len()).unwrap_or(i32::MAX);
                    local.push((date, index));
                    out.dates.push(self.dates[date as usize].clone());
                    index
                }
            };
            out.news_records.push(row - start as u32);
            out.news_dates.push(index);
        }
        out
    }
}

/// Rows `start..stop` judged from `recorded` when it holds the records of `extensions`
/// (the column it was recorded beside: a record there exactly where a row has JSON); None
/// otherwise, or when a row is outside the column (the JSON is read then).
pub fn judged_from(
    recorded: &Recorded,
    extensions: StringColumn<'_>,
    start: usize,
    stop: usize,
) -> Option<Judged> {
    let judged = recorded.judged(start, stop);
    for (row, &status) in (start..stop).zip(&judged.status) {
        if extensions.row(row)?.is_empty() != (status == NONE) {
            return None;
        }
    }
    Some(judged)
}

#[cfg(test)]
mod tests {
    use super::super::ext_json::judge;
    use super::*;
    use crate::read::columns::Columns;
    use crate::read::media::Prefixes;
    use crate::read::raw::RootScope;
    use crate::read::records::{Kind, Limits};
    use crate::read::render::{columns_run, Conversions, Seen};

    /// The records of `entries` read into columns with the recording on, in runs of at most
    /// `per_run` records (each a fresh column, as `take` leaves it); every entry must be
    /// one the core reads.
    fn read(entries: &str, per_run: usize) -> Vec<Columns> {
        let text = entries.as_bytes();
        let prefixes = Prefixes {
            image: Some(b"image".to_vec()),
            video: Some(b"video".to_vec()),
            news: Some(b"news".to_vec()),
            xhtml: Some(b"xhtml".to_vec()),
            scope: RootScope {
                bindings: vec![(b"o".to_vec(), "https://o.example/ns".into())],
                levels: 3,
                strays: vec![("https://o.example/ns".into(), "r".into())],
                raw_strays: false,
            },
        };
        let limits = Limits {
            kind: Kind::Urlset,
            max_records: per_run,
            max_value: 1 << 20,
            max_judged: 0,
        };
        let mut columns = Columns::judging();
        let (mut seen, mut conversions) = (Seen::default(), Conversions::default());
        seen.know(b"https://a.test/"); // the sink judged the origin
        let (mut pos, mut line, mut runs) = (0, 1, Vec::new());
        while pos < text.len() {
            let done = columns_run(
                text,
                (pos, text.len()),
                line,
                (limits, Some(&prefixes)),
                &mut seen,
                &mut columns,
                &mut conversions,
            );
            assert!(
                done.count > 0,
                "an entry the core does not read at {}",
                done.pos
            );
            (pos, line) = (done.pos, done.line);
            runs.push(columns.take());
        }
        runs
    }

    /// Each run's recording judged in parts agrees with `ext_json::judge` on its JSON.
    fn agree(entries: &str, per_run: usize) -> usize {
        let mut judged = 0;
        for run in read(entries, per_run) {
            let recorded = run.judging.as_ref().expect("recorded");
            let (eo, lo) = (offsets(&run.extensions.offsets), offsets(&run.loc.offsets));
            let ext = StringColumn::new(&eo, &run.extensions.values);
            let locs = StringColumn::new(&lo, &run.loc.values);
            for (start, stop) in [(0, run.len), (0, run.len / 2), (run.len / 3, run.len)] {
                let parsed = judge(ext, locs, start, stop).expect("rows");
                assert!(!parsed.status.contains(&super::super::ext_json::FLAGGED));
                assert_eq!(judged_from(recorded, ext, start, stop), Some(parsed));
            }
            // a recording of other records is not taken for this column's
            if !recorded.rows.is_empty() && run.len > recorded.rows.len() {
                let mut other = recorded.clone();
                other.rows[0] = (0..).find(|r| !recorded.rows.contains(r)).unwrap();
                other.rows.sort_unstable();
                assert_eq!(judged_from(&other, ext, 0, run.len), None);
            }
            judged += recorded.rows.len();
        }
        judged
    }

    fn offsets(values: &[i32]) -> Vec<u8> {
        values.iter().flat_map(|v| v.to_ne_bytes()).collect()
    }

    const ENTRIES: [&str; 10] = [
        "<url><loc>https://a.test/p{i}</loc></url>\n",
        "<url><loc>https://a.test/i{i}</loc><image:image><image:loc>https://a.test/{i}.jpg</image:loc></image:image></url>\n",
        "<url><loc>https://a.test/t{i}</loc><image:image><image:loc>https://a.test/{i}.jpg</image:loc><image:title>T &amp; {i}</image:title><image:caption>C</image:caption></image:image><image:image><image:loc>https://a.test/b.jpg</image:loc></image:image></url>\n",
        "<url><loc>https://a.test/v{i}</loc><video:video><video:thumbnail_loc>https://a.test/t.jpg</video:thumbnail_loc><video:title>V</video:title><video:description>D</video:description><video:content_loc>https://a.test/v{i}</video:content_loc><video:player_loc>https://a.test/pl</video:player_loc><video:duration>60</video:duration><video:tag>a</video:tag></video:video></url>\n",
        "<url><loc>https://a.test/n{i}</loc><news:news><news:publication><news:name>N</news:name><news:language>en</news:language></news:publication><news:publication_date>2024-0{m}-06T10:00:00Z</news:publication_date><news:title>S</news:title></news:news></url>\n",
        "<url><loc>https://a.test/m{i}</loc><news:news><news:publication><news:name>N</news:name><news:language>en</news:language></news:publication><news:publication_date>2024-05-0{m}</news:publication_date><news:title>S</news:title></news:news><news:news><news:publication><news:name>N</news:name><news:language>de</news:language></news:publication><news:publication_date>2026-11-28T10:00:00+02:00</news:publication_date><news:title>T</news:title></news:news></url>\n",
        "<url><loc>https://a.test/h{i}</loc><xhtml:link rel=\"alternate\" hreflang=\"de\" href=\"https://a.test/de/{i}\"/><xhtml:link rel=\"alternate\" hreflang=\"en\" href=\"https://a.test/h{i}\"/></url>\n",
        "<url><loc>https://a.test/d{i}</loc><xhtml:link rel=\"alternate\" hreflang=\"en\" href=\"https://a.test/x\"/><xhtml:link rel=\"alternate\" hreflang=\"EN\" href=\"https://a.test/y\"/><xhtml:link rel=\"alternate\" hreflang=\"x-default\" href=\"https://a.test/x\"/></url>\n",
        "<url><loc>https://a.test/o{i}</loc><o:r>4</o:r></url>\n",
        "<url><loc>https://a.test/caf%C3%A9/{i}</loc><image:image><image:loc>https://a.test/e.jpg</image:loc><image:caption>caf\u{e9} \"{i}\"</image:caption></image:image><xhtml:link rel=\"alternate\" hreflang=\"fr\" href=\"https://a.test/caf%C3%A9/{i}\"/><video:video><video:thumbnail_loc>https://a.test/t.jpg</video:thumbnail_loc><video:title>V \u{e9}</video:title><video:description>D</video:description><video:player_loc>https://a.test/caf%C3%A9/{i}</video:player_loc></video:video></url>\n",
    ];

    #[test]
    fn the_recording_agrees_with_the_json_written() {
        for (kind, entry) in ENTRIES.iter().enumerate() {
            let text = entry.replace("{i}", "0").replace("{m}", "5");
            let judged = agree(&text, 10);
            assert_eq!(judged, usize::from(kind > 0), "{text}");
        }
    }

    #[test]
    fn the_recording_of_mixed_runs_agrees_with_the_json_written() {
        // a pseudo-random mix of the entries, read in runs of several sizes
        let mut state = 0x2545_f491_4f6c_dd1du64;
        let mut text = String::new();
        for i in 0..600 {
            state ^= state << 13;
            state ^= state >> 7;
            state ^= state << 17;
            let entry = ENTRIES[(state % ENTRIES.len() as u64) as usize];
            let m = (state >> 8) % 9 + 1;
            text.push_str(
                &entry
                    .replace("{i}", &i.to_string())
                    .replace("{m}", &m.to_string()),
            );
        }
        for per_run in [1, 7, 64, 1000] {
            assert!(agree(&text, per_run) > 400);
        }
    }

    #[test]
    fn many_images_are_counted() {
        let image = "<image:image><image:loc>https://a.test/i.jpg</image:loc></image:image>";
        let text = format!(
            "<url><loc>https://a.test/</loc>{}</url>\n",
            image.repeat(1001)
        );
        let runs = read(&text, 10);
        assert_eq!(runs[0].judging.as_ref().unwrap().counts[0], 1);
        agree(&text, 10);
    }
}
