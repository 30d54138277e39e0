//! The lastmod rules' facts of a run of the render lane's lastmod columns (the W3C text as
//! `format_w3c` writes it, whose length tells its kind, and each lastmod's instant), so that
//! the checker makes no Python value per lastmod: the newest date and the newest time, the
//! records a rule may flag (a date after the latest day, a time after now) and the years and
//! months (each a `lastmod-without-day` finding, judged by their text in Python).
use std::collections::HashMap;

use crate::check::loc_column::StringColumn;

/// What [`judge`] finds in a run; rows are counted from the run's first.
#[derive(Debug, Default, PartialEq, Eq)]
pub struct Lastmods {
    /// The first of the newest dates (`YYYY-MM-DD`), by instant.
    pub newest_date: Option<usize>,
    /// The first of the newest times (longer than a date), by instant.
    pub newest_time: Option<usize>,
    /// The dates whose instant is after the latest day's, then the times after now, each in
    /// document order.
    pub flagged: Vec<u32>,
    /// The years and months (texts of 4 or 7 bytes), in document order.
    pub reduced: Vec<u32>,
    /// Each distinct text among them, first seen first, with its first row and its number
    /// of rows.
    pub groups: Vec<(Vec<u8>, u32, u32)>,
    /// The group of each of `reduced`.
    pub group_of: Vec<u32>,
}

/// The lastmods of rows `start..stop`: `texts`, the lastmod text column (a text's length is
/// its kind, 0 for none; only the years' and months' are read), `instants`, native-endian `i64`
/// microseconds since 1970 UTC a row; `latest_day`, the instant of the latest day a date may
/// name (a date after it is flagged); `now`, the instant a time may not pass (None: no time
/// is flagged). None when a row is outside the buffers.
pub fn judge(
    texts: StringColumn<'_>,
    instants: &[u8],
    start: usize,
    stop: usize,
    latest_day: i64,
    now: Option<i64>,
) -> Option<Lastmods> {
    let mut out = Lastmods::default();
    let mut newest_date = (i64::MIN, None);
    let mut newest_time = (i64::MIN, None);
    let mut later_times = Vec::new();
    let mut groups: HashMap<&[u8], u32> = HashMap::new();
    for row in start..stop {
        let length = texts.length(row)?;
        if length == 0 {
            continue;
        }
        let at = u32::try_from(row - start).ok()?;
        if length == 4 || length == 7 {
            let text = texts.row(row)?;
            let group = *groups.entry(text).or_insert_with(|| {
                out.groups.push((text.to_vec(), at, 0));
                (out.groups.len() - 1) as u32
            });
            out.groups[group as usize].2 += 1;
            out.reduced.push(at);
            out.group_of.push(group);
            continue;
        }
        let bytes = instants.get(8 * row..8 * row + 8)?;
        let instant = i64::from_ne_bytes(bytes.try_into().ok()?);
        if length == 10 {
            if newest_date.1.is_none() || instant > newest_date.0 {
                newest_date = (instant, Some(row - start));
            }
            if instant > latest_day {
                out.flagged.push(at);
            }
        } else if length > 10 {
            if newest_time.1.is_none() || instant > newest_time.0 {
                newest_time = (instant, Some(row - start));
            }
            if now.is_some_and(|now| instant > now) {
                later_times.push(at);
            }
        }
    }
    out.flagged.extend(later_times);
    out.newest_date = newest_date.1;
    out.newest_time = newest_time.1;
    Some(out)
}

#[cfg(test)]
mod tests {
    use super::*;

    use crate::check::test_column as column;

    fn instants(values: &[i64]) -> Vec<u8> {
        values.iter().flat_map(|v| v.to_ne_bytes()).collect()
    }

    #[test]
    fn kinds_by_length_newest_first_of_equals_and_flagged_past_limits() {
        let rows = [
            "2024-01-02",
            "",
            "2024",
            "2024-01-02T00:00:00Z",
            "2024-01-03",
            "2024-05",
            "2024-01-03",
            "2024-01-02T10:00:00+01:00",
        ];
        let (offsets, values) = column(&rows);
        let at = instants(&[10, 0, 0, 10, 30, 0, 30, 20]);
        let col = StringColumn::new(&offsets, &values);
        let got = judge(col, &at, 0, rows.len(), 20, Some(15)).unwrap();
        assert_eq!(got.newest_date, Some(4));
        assert_eq!(got.newest_time, Some(7));
        assert_eq!(got.flagged, vec![4, 6, 7]);
        assert_eq!(got.reduced, vec![2, 5]);
        assert_eq!(
            got.groups,
            vec![(b"2024".to_vec(), 2, 1), (b"2024-05".to_vec(), 5, 1)]
        );
        assert_eq!(got.group_of, vec![0, 1]);
        // without now no time is flagged; rows counted from the run's first
        let got = judge(col, &at, 3, rows.len(), i64::MAX, None).unwrap();
        assert_eq!(got.newest_date, Some(1));
        assert_eq!(got.newest_time, Some(4));
        assert!(got.flagged.is_empty());
        assert_eq!(got.reduced, vec![2]);
    }

    #[test]
    fn years_and_months_grouped_by_text_first_seen_first() {
        let rows = ["2024", "2023-01", "2024", "2024-01-01", "2023-01", "2024"];
        let (offsets, values) = column(&rows);
        let at = instants(&[0; 6]);
        let col = StringColumn::new(&offsets, &values);
        let got = judge(col, &at, 0, rows.len(), 0, None).unwrap();
        assert_eq!(got.reduced, vec![0, 1, 2, 4, 5]);
        assert_eq!(
            got.groups,
            vec![(b"2024".to_vec(), 0, 3), (b"2023-01".to_vec(), 1, 2)]
        );
        assert_eq!(got.group_of, vec![0, 1, 0, 1, 0]);
    }

    #[test]
    fn a_run_without_lastmods_has_no_newest_and_rows_outside_are_refused() {
        let (offsets, values) = column(&["", ""]);
        let col = StringColumn::new(&offsets, &values);
        assert_eq!(
            judge(col, &instants(&[0, 0]), 0, 2, 0, Some(0)),
            Some(Lastmods::default())
        );
        let (offsets, values) = column(&["2024-01-02"]);
        let col = StringColumn::new(&offsets, &values);
        assert_eq!(judge(col, &instants(&[0]), 0, 2, 0, None), None);
        assert_eq!(judge(col, &[0u8; 4], 0, 1, 0, None), None);
    }
}
