//! W3C Datetime lastmods for the writer: the strict spellings parsed, checked and written back
//! exactly as `urlset.dates` does (`parse_w3c` then `format_w3c`), and the two orderings the
//! build needs as integers: the newest for the index, the future check.
//!
//! The reader asks the same parse a narrower question ([`plain_lastmod`]), and of a text
//! outside the strict forms what the reader makes of it ([`judged_lastmod`]): a lenient
//! form's value, or invalid. Anything else (spaces around, other digits) is `None` there; the
//! reader then checks that value the long way, which explains the problem.

/// How much of a lastmod was given; a year or a month is written as it was read.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Precision {
    Year,
    Month,
    Day,
    Time,
}

/// A checked lastmod. `offset_minutes` is the zone of a time (0 is written `Z`).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Lastmod {
    pub precision: Precision,
    pub year: u16,
    pub month: u8,
    pub day: u8,
    pub hour: u8,
    pub minute: u8,
    pub second: u8,
    pub micro: u32,
    pub offset_minutes: i16,
}

const MICROS_PER_DAY: i64 = 86_400_000_000;
const MICROS_PER_MINUTE: i64 = 60_000_000;
/// A date without a time is the whole day somewhere on Earth: at most UTC+14 runs ahead.
const DATE_AHEAD: i64 = 14 * 60 * MICROS_PER_MINUTE;

fn is_leap(year: u16) -> bool {
    year.is_multiple_of(4) && (!year.is_multiple_of(100) || year.is_multiple_of(400))
}

fn days_in_month(year: u16, month: u8) -> u8 {
    match month {
        4 | 6 | 9 | 11 => 30,
        2 if is_leap(year) => 29,
        2 => 28,
        _ => 31,
    }
}

/// Days from 1970-01-01 to a civil date (proleptic Gregorian).
fn days_from_civil(year: u16, month: u8, day: u8) -> i64 {
    let y = i64::from(year) - i64::from(month <= 2);
    let era = y.div_euclid(400);
    let yoe = y - era * 400;
    let m = i64::from(month);
    let doy = (153 * (if m > 2 { m - 3 } else { m + 9 }) + 2) / 5 + i64::from(day) - 1;
    let doe = yoe * 365 + yoe / 4 - yoe / 100 + doy;
    era * 146_097 + doe - 719_468
}

/// The civil date of a day counted from 1970-01-01 (proleptic Gregorian).
fn civil_from_days(days: i64) -> (i64, u8, u8) {
    let z = days + 719_468;
    let era = z.div_euclid(146_097);
    let doe = z - era * 146_097;
    let yoe = (doe - doe / 1460 + doe / 36_524 - doe / 146_096) / 365;
    let doy = doe - (365 * yoe + yoe / 4 - yoe / 100);
    let mp = (5 * doy + 2) / 153;
    let day = (doy - (153 * mp + 2) / 5 + 1) as u8;
    let month = if mp < 10 { mp + 3 } else { mp - 9 } as u8;
    (yoe + era * 400 + i64::from(month <= 2), month, day)
}

impl Lastmod {
    /// The date `days` after 1970-01-01 (an Arrow date32).
    pub fn from_days(days: i64) -> Option<Lastmod> {
        let (year, month, day) = civil_from_days(days);
        Lastmod::date(Precision::Day, u16::try_from(year).ok()?, month, day)
    }

    /// The time `micros` after 1970-01-01T00:00:00Z, written in a zone `offset_minutes` ahead
    /// of UTC (an Arrow timestamp with its zone's offset at that instant).
    pub fn from_instant(micros: i64, offset_minutes: i16) -> Option<Lastmod> {
        let local = micros.checked_add(i64::from(offset_minutes) * MICROS_PER_MINUTE)?;
        let (year, month, day) = civil_from_days(local.div_euclid(MICROS_PER_DAY));
        let of_day = local.rem_euclid(MICROS_PER_DAY);
        let seconds = of_day / 1_000_000;
        Lastmod::time(
            u16::try_from(year).ok()?,
            month,
            day,
            (seconds / 3600) as u8,
            (seconds / 60 % 60) as u8,
            (seconds % 60) as u8,
            (of_day % 1_000_000) as u32,
            offset_minutes,
        )
    }

    /// A date (or a year or month, as their first day), checked as Python's `date` does.
    pub fn date(precision: Precision, year: u16, month: u8, day: u8) -> Option<Lastmod> {
        let valid = (1..=9999).contains(&year)
            && (1..=12).contains(&month)
            && day >= 1
            && day <= days_in_month(year, month);
        valid.then_some(Lastmod {
            precision,
            year,
            month,
            day,
            hour: 0,
            minute: 0,
            second: 0,
            micro: 0,
            offset_minutes: 0,
        })
    }

    /// A time in a zone, checked as Python's `datetime` and `timezone` do.
    #[allow(clippy::too_many_arguments)]
    pub fn time(
        year: u16,
        month: u8,
        day: u8,
        hour: u8,
        minute: u8,
        second: u8,
        micro: u32,
        offset_minutes: i16,
    ) -> Option<Lastmod> {
        let valid = hour < 24
            && minute < 60
            && second < 60
            && micro < 1_000_000
            && offset_minutes.unsigned_abs() < 24 * 60;
        let date = Lastmod::date(Precision::Time, year, month, day)?;
        valid.then_some(Lastmod {
            hour,
            minute,
            second,
            micro,
            offset_minutes,
            ..date
        })
    }

    fn day_start_utc(&self) -> i64 {
        days_from_civil(self.year, self.month, self.day) * MICROS_PER_DAY
    }

    /// Its instant in microseconds since 1970 UTC (`dates.instant`): a date counts as its
    /// start in UTC.
    pub fn instant(&self) -> i64 {
        let local = self.day_start_utc()
            + (i64::from(self.hour) * 60 + i64::from(self.minute)) * MICROS_PER_MINUTE
            + i64::from(self.second) * 1_000_000
            + i64::from(self.micro);
        local - i64::from(self.offset_minutes) * MICROS_PER_MINUTE
    }

    /// The latest instant it may stand for, in microseconds since 1970 UTC (`dates.latest_moment`):
    /// a time is itself; a date is the end of that day anywhere on Earth.
    pub fn newest_key(&self) -> i64 {
        match self.precision {
            Precision::Time => self.instant(),
            _ => self.day_start_utc() + MICROS_PER_DAY - 1_000_000 + DATE_AHEAD,
        }
    }

    /// The instant past which it is in the future (`dates.future_lastmod`): a time is itself;
    /// a date is in the future only once it has begun nowhere on Earth.
    pub fn future_key(&self) -> i64 {
        match self.precision {
            Precision::Time => self.instant(),
            _ => self.day_start_utc() - DATE_AHEAD,
        }
    }

    /// Append its W3C text, as `dates.format_w3c` writes it.
    pub fn write(&self, out: &mut Vec<u8>) {
        let (text, len) = self.text();
        out.extend_from_slice(&text[..len]);
    }

    /// Whether `text`, the text it was parsed from ([`parse_bytes`]), is its W3C text
    /// already ([`Lastmod::text`]): a year, a month or a day; or a time with seconds, a
    /// fraction of six digits not all zero or none, and `Z` or an offset other than zero.
    /// Most sitemaps' lastmods are: the writer copies them instead of writing the value.
    pub fn written_as(&self, text: &[u8]) -> bool {
        if matches!(text.len(), 4 | 7 | 10) {
            return true;
        }
        if text.len() < 20 || text[16] != b':' {
            return false; // no seconds: written with them
        }
        let zone = if text[19] == b'.' {
            if text.len() < 27 || text[26].is_ascii_digit() || self.micro == 0 {
                return false; // a fraction other than six digits, or zero: written otherwise
            }
            &text[26..]
        } else {
            &text[19..]
        };
        zone == b"Z" || (zone.len() == 6 && self.offset_minutes != 0)
    }

    /// Its W3C text ([`Lastmod::write`]) in the first bytes of an array (the longest,
    /// `2024-05-06T10:30:00.123456+05:30`, fills it), and how many: made with no call and
    /// no division loop, as each entry's lastmod is.
    pub fn text(&self) -> ([u8; 32], usize) {
        let mut text = [0u8; 32];
        let two = |value: u8| [b'0' + value / 10, b'0' + value % 10];
        let year = self.year; // 1 to 9999 (`Lastmod::date`)
        let ([a, b], [c, d]) = (two((year / 100) as u8), two((year % 100) as u8));
        text[..4].copy_from_slice(&[a, b, c, d]);
        if self.precision == Precision::Year {
            return (text, 4);
        }
        text[4] = b'-';
        text[5..7].copy_from_slice(&two(self.month));
        if self.precision == Precision::Month {
            return (text, 7);
        }
        text[7] = b'-';
        text[8..10].copy_from_slice(&two(self.day));
        if self.precision == Precision::Day {
            return (text, 10);
        }
        text[10] = b'T';
        text[11..13].copy_from_slice(&two(self.hour));
        text[13] = b':';
        text[14..16].copy_from_slice(&two(self.minute));
        text[16] = b':';
        text[17..19].copy_from_slice(&two(self.second));
        let mut len = 19;
        if self.micro != 0 {
            text[19] = b'.';
            let mut rest = self.micro; // below 1,000,000: six digits
            for slot in text[20..26].iter_mut().rev() {
                *slot = b'0' + (rest % 10) as u8;
                rest /= 10;
            }
            len = 26;
        }
        if self.offset_minutes == 0 {
            text[len] = b'Z';
            return (text, len + 1);
        }
        text[len] = if self.offset_minutes < 0 { b'-' } else { b'+' };
        let offset = self.offset_minutes.unsigned_abs(); // under 24 hours
        text[len + 1..len + 3].copy_from_slice(&two((offset / 60) as u8));
        text[len + 3] = b':';
        text[len + 4..len + 6].copy_from_slice(&two((offset % 60) as u8));
        (text, len + 6)
    }
}

/// The value of `count` ASCII digits at `at`, or None.
fn number(text: &[u8], at: usize, count: usize) -> Option<u32> {
    let digits = text.get(at..at + count)?;
    digits.iter().try_fold(0u32, |value, &byte| {
        byte.is_ascii_digit()
            .then(|| value * 10 + u32::from(byte - b'0'))
    })
}

fn expect(text: &[u8], at: usize, byte: u8) -> Option<()> {
    (text.get(at) == Some(&byte)).then_some(())
}

/// Parse a strict W3C Datetime (`dates._W3C`, a zone required with a time) and check it:
/// the writer's question (it writes the value back as `dates.format_w3c` does).
pub fn parse(text: &str) -> Option<Lastmod> {
    parse_bytes(text.as_bytes())
}

/// [`parse`] of bytes (anything but ASCII is refused).
pub fn parse_bytes(text: &[u8]) -> Option<Lastmod> {
    parse_fields(text)
}

/// The reader's question: a lastmod text that `dates.parse_lenient` reads with no problem to
/// report, its value the one that gives: every W3C Datetime form [`parse`] takes (a year, a
/// month, a day, a time to the minute or the second, a fraction of any length cut to
/// microseconds, `Z` or `±hh:mm`). Python's `\d` also takes other scripts' digits: the core
/// leaves those to the reader.
pub fn plain_lastmod(text: &[u8]) -> bool {
    plain_lastmod_value(text).is_some()
}

/// The value of a lastmod text [`plain_lastmod`] takes, for the reader to make the Python
/// value of without parsing again.
pub fn plain_lastmod_value(text: &[u8]) -> Option<Lastmod> {
    parse_bytes(text)
}

/// What the reader makes of a lastmod text outside the W3C forms that the core judges as it
/// does ([`judged_lastmod`]).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Judgement {
    /// Read, with a `lenient-lastmod` issue: its value.
    Lenient(Lastmod),
    /// Dropped, with an `invalid-lastmod` issue.
    Invalid,
}

/// The reader's second question, for a text [`plain_lastmod_value`] refuses (None for one
/// it takes): what `dates.parse_lenient` (through `Sink.lastmod`) makes of it, for the texts
/// whose answer the core knows:
/// - the ASCII forms of `dates._LENIENT` without whitespace around them (a year and an
///   unpadded month and day, a space or `T`, an unpadded time to the minute or the second
///   with a fraction after `.` or `,`, spaces, and `Z`, `z`, `UTC`, `GMT`, `±h`, `±hh`,
///   `±hmm`, `±hhmm`, `±h:mm` or `±hh:mm`; a time without one is UTC): their value, or
///   invalid when it is no real date, time or zone;
/// - an empty text, and a text of printable ASCII in no such form, without whitespace
///   around it, `&`, `<` or a `t` (which the reader may read again in upper case): invalid.
///
/// None for anything else (other whitespace, other digits, references): the reader judges
/// it the long way.
pub fn judged_lastmod(text: &[u8]) -> Option<Judgement> {
    if parse_fields(text).is_some() {
        return None; // W3C: the reader reports nothing
    }
    judged_refused_lastmod(text)
}

/// [`judged_lastmod`] of a text [`plain_lastmod_value`] refused (the scan asked it first:
/// not parsed twice).
pub fn judged_refused_lastmod(text: &[u8]) -> Option<Judgement> {
    if text.is_empty() {
        return Some(Judgement::Invalid);
    }
    match lenient_fields(text) {
        Ok(Some(value)) => Some(Judgement::Lenient(value)),
        Ok(None) => Some(Judgement::Invalid),
        Err(NoForm) => {
            let plain =
                |&b: &u8| (b' '..=b'~').contains(&b) && !matches!(b, b'&' | b'<' | b't' | b'T');
            let around = |b: Option<&u8>| b != Some(&b' ');
            let no_form = text.iter().all(plain) && around(text.first()) && around(text.last());
            no_form.then_some(Judgement::Invalid)
        }
    }
}

/// A text in none of the lenient forms ([`lenient_fields`]).
struct NoForm;

fn form(holds: bool) -> Result<(), NoForm> {
    holds.then_some(()).ok_or(NoForm)
}

/// The value of a text in the ASCII lenient forms ([`judged_lastmod`]), None when its fields
/// are out of range (a day, time or zone that does not exist).
fn lenient_fields(text: &[u8]) -> Result<Option<Lastmod>, NoForm> {
    let mut at = 0;
    let year = digits(text, &mut at, 4, 4)? as u16;
    if at == text.len() {
        return Ok(Lastmod::date(Precision::Year, year, 1, 1));
    }
    form(text[at] == b'-')?;
    at += 1;
    let month = digits(text, &mut at, 1, 2)? as u8;
    if at == text.len() {
        return Ok(Lastmod::date(Precision::Month, year, month, 1));
    }
    form(text[at] == b'-')?;
    at += 1;
    let day = digits(text, &mut at, 1, 2)? as u8;
    if at == text.len() {
        return Ok(Lastmod::date(Precision::Day, year, month, day));
    }
    form(matches!(text[at], b'T' | b' '))?;
    at += 1;
    let hour = digits(text, &mut at, 1, 2)? as u8;
    form(text.get(at) == Some(&b':'))?;
    at += 1;
    let minute = digits(text, &mut at, 1, 2)? as u8;
    let (mut second, mut micro) = (0, 0);
    if text.get(at) == Some(&b':') {
        at += 1;
        second = digits(text, &mut at, 1, 2)? as u8;
        if matches!(text.get(at), Some(b'.' | b',')) {
            let start = at + 1;
            let count = text[start..]
                .iter()
                .take_while(|b| b.is_ascii_digit())
                .count();
            form(count > 0)?;
            // the first six digits, padded (dates._build)
            for place in 0..6 {
                micro *= 10;
                if place < count {
                    micro += u32::from(text[start + place] - b'0');
                }
            }
            at = start + count;
        }
    }
    let spaces = text[at..].iter().take_while(|&&b| b == b' ').count();
    at += spaces;
    let offset_minutes = match &text[at..] {
        // whitespace at the end: the reader strips it and says so
        [] if spaces == 0 => Some(0),
        b"Z" | b"z" | b"UTC" | b"GMT" => Some(0),
        [sign @ (b'+' | b'-'), zone @ ..] => {
            lenient_offset(zone)?.map(|offset| if *sign == b'-' { -offset } else { offset })
        }
        _ => return Err(NoForm),
    };
    let time = |offset| Lastmod::time(year, month, day, hour, minute, second, micro, offset);
    Ok(offset_minutes.and_then(time))
}

/// The minutes of a lenient zone from its digits after the sign (`dates._zone`): `h`, `hh`,
/// `hmm`, `hhmm`, `h:mm`, `hh:mm`; None when out of range.
fn lenient_offset(zone: &[u8]) -> Result<Option<i16>, NoForm> {
    let all = |t: &[u8]| !t.is_empty() && t.iter().all(u8::is_ascii_digit);
    let value = |t: &[u8]| t.iter().fold(0u32, |v, &b| v * 10 + u32::from(b - b'0'));
    let (hours, minutes) = match zone {
        [h @ .., b':', m1, m2] if (1..=2).contains(&h.len()) => (h, &[*m1, *m2][..]),
        _ if (1..=2).contains(&zone.len()) => (zone, &[][..]),
        _ if (3..=4).contains(&zone.len()) => zone.split_at(zone.len() - 2),
        _ => return Err(NoForm),
    };
    form(all(hours) && (minutes.is_empty() || all(minutes)))?;
    let (hours, minutes) = (value(hours), value(minutes));
    Ok((hours <= 23 && minutes <= 59).then_some((hours * 60 + minutes) as i16))
}

/// The value of `min..=max` ASCII digits at `*at` (as many as there are, and no more
/// after them), `*at` moved past them.
fn digits(text: &[u8], at: &mut usize, min: usize, max: usize) -> Result<u32, NoForm> {
    let run = text[*at..]
        .iter()
        .take(max)
        .take_while(|b| b.is_ascii_digit())
        .count();
    form(run >= min && !text.get(*at + run).is_some_and(u8::is_ascii_digit))?;
    let value = number(text, *at, run).ok_or(NoForm)?;
    *at += run;
    Ok(value)
}

fn parse_fields(text: &[u8]) -> Option<Lastmod> {
    let year = number(text, 0, 4)? as u16;
    if text.len() == 4 {
        return Lastmod::date(Precision::Year, year, 1, 1);
    }
    expect(text, 4, b'-')?;
    let month = number(text, 5, 2)? as u8;
    if text.len() == 7 {
        return Lastmod::date(Precision::Month, year, month, 1);
    }
    expect(text, 7, b'-')?;
    let day = number(text, 8, 2)? as u8;
    if text.len() == 10 {
        return Lastmod::date(Precision::Day, year, month, day);
    }
    expect(text, 10, b'T')?;
    let hour = number(text, 11, 2)? as u8;
    expect(text, 13, b':')?;
    let minute = number(text, 14, 2)? as u8;
    let mut at = 16;
    let mut second = 0;
    let mut micro = 0;
    if text.get(at) == Some(&b':') {
        second = number(text, at + 1, 2)? as u8;
        at += 3;
        if text.get(at) == Some(&b'.') {
            let digits = text[at + 1..]
                .iter()
                .take_while(|b| b.is_ascii_digit())
                .count();
            if digits == 0 {
                return None;
            }
            // the first six digits, padded: the rest is below a microsecond (dates._build)
            for place in 0..6 {
                micro *= 10;
                if place < digits {
                    micro += u32::from(text[at + 1 + place] - b'0');
                }
            }
            at += 1 + digits;
        }
    }
    let offset_minutes = match text.get(at..)? {
        b"Z" => 0,
        [sign @ (b'+' | b'-'), ..] if text.len() == at + 6 => {
            expect(text, at + 3, b':')?;
            let hours = number(text, at + 1, 2)?;
            let minutes = number(text, at + 4, 2)?;
            if hours > 23 || minutes > 59 {
                return None;
            }
            let offset = (hours * 60 + minutes) as i16;
            if *sign == b'-' {
                -offset
            } else {
                offset
            }
        }
        _ => return None,
    };
    Lastmod::time(
        year,
        month,
        day,
        hour,
        minute,
        second,
        micro,
        offset_minutes,
    )
}

#[cfg(test)]
mod tests {
    #[test]
    fn texts_taken_as_written_are_what_the_value_writes() {
        let (mut taken, mut all) = (0, 0);
        for date in ["2024", "2024-05", "0999-12-31", "2024-02-29"] {
            for time in ["", "T10:30", "T10:30:59", "T00:00:00"] {
                for fraction in [
                    "", ".1", ".123", ".000000", ".123456", ".0000001", ".1234567",
                ] {
                    for zone in ["", "Z", "+05:30", "-00:00", "+00:00", "-23:59", "z"] {
                        let text = format!("{date}{time}{fraction}{zone}");
                        let Some(value) = super::parse_bytes(text.as_bytes()) else {
                            continue;
                        };
                        let (written, len) = value.text();
                        let same = written[..len] == *text.as_bytes();
                        assert_eq!(value.written_as(text.as_bytes()), same, "{text}");
                        taken += usize::from(same);
                        all += 1;
                    }
                }
            }
        }
        assert!(taken >= 10 && all > taken, "{taken} of {all}");
    }

    use super::*;

    #[test]
    fn judged_forms_read_as_the_reader_reads_them() {
        let written = |text: &str| match judged_lastmod(text.as_bytes())? {
            Judgement::Lenient(value) => {
                let mut out = Vec::new();
                value.write(&mut out);
                Some(String::from_utf8(out).unwrap())
            }
            Judgement::Invalid => Some("invalid".to_string()),
        };
        for (text, value) in [
            ("2024-05-06 10:00:00", "2024-05-06T10:00:00Z"),
            ("2024-5-6T1:2", "2024-05-06T01:02:00Z"),
            ("2024-5", "2024-05"),
            ("2024-05-6", "2024-05-06"),
            ("2024-05-06T10:00:00+0530", "2024-05-06T10:00:00+05:30"),
            ("2024-05-06T10:00:00+530", "2024-05-06T10:00:00+05:30"),
            ("2024-05-06T10:00:00-5:30", "2024-05-06T10:00:00-05:30"),
            ("2024-05-06T10:00:00+5", "2024-05-06T10:00:00+05:00"),
            ("2024-05-06T10:00:00-0000", "2024-05-06T10:00:00Z"),
            ("2024-05-06 10:00:00  GMT", "2024-05-06T10:00:00Z"),
            ("2024-05-06T10:00:00z", "2024-05-06T10:00:00Z"),
            (
                "2024-05-06T10:00:00,1234567 UTC",
                "2024-05-06T10:00:00.123456Z",
            ),
            ("", "invalid"),
            ("N/A", "invalid"),
            ("0000-00-00 00:00:00", "invalid"),
            ("2024-13-01", "invalid"),
            ("2024-02-30 10:00", "invalid"),
            ("2024-05-06T24:00", "invalid"),
            ("2024-05-06T10:00:00+24:00", "invalid"),
            ("2024-05-06 10:00:00Zulu", "invalid"),
            ("20245-05-06", "invalid"),
        ] {
            assert_eq!(written(text).as_deref(), Some(value), "{text}");
        }
        for left in [
            "2024-05-06",           // W3C
            "2024-05-06T10:00:00Z", // W3C
            "2024-05-06 10:00:00 ", // whitespace around: the reader says so
            " N/A",
            "2024-05-06\t10:00",    // other whitespace
            "2024-05-06t10:00:00z", // read as upper case by the reader, with its own words
            "yesterday",            // a 't'
            "&#50;024",             // a reference
            "2024-05-06 10:00:00 +05:30 ",
            "2024-05-06T10:00:00+05:300", // in no form, with a 'T'
        ] {
            assert_eq!(written(left), None, "{left}");
        }
    }

    fn round(text: &str) -> Option<String> {
        let mut out = Vec::new();
        parse(text)?.write(&mut out);
        Some(String::from_utf8(out).unwrap())
    }

    #[test]
    fn every_field_is_written_with_its_digits() {
        let expected = |l: &Lastmod| {
            let date = format!("{:04}-{:02}-{:02}", l.year, l.month, l.day);
            let micro = if l.micro == 0 {
                String::new()
            } else {
                format!(".{:06}", l.micro)
            };
            let (sign, offset) = (
                if l.offset_minutes < 0 { '-' } else { '+' },
                l.offset_minutes.unsigned_abs(),
            );
            let zone = if offset == 0 {
                "Z".to_string()
            } else {
                format!("{sign}{:02}:{:02}", offset / 60, offset % 60)
            };
            let time = format!(
                "T{:02}:{:02}:{:02}{micro}{zone}",
                l.hour, l.minute, l.second
            );
            match l.precision {
                Precision::Year => date[..4].to_string(),
                Precision::Month => date[..7].to_string(),
                Precision::Day => date,
                Precision::Time => date + &time,
            }
        };
        let years = [1, 9, 10, 99, 100, 999, 1000, 1969, 2024, 9999];
        let micros = [0, 1, 10, 999_999, 500_000, 123_456];
        let offsets = [0, 1, -1, 59, -60, 330, -570, 23 * 60 + 59, -(23 * 60 + 59)];
        let mut written = 0;
        for (i, &year) in years.iter().enumerate() {
            for precision in [Precision::Year, Precision::Month, Precision::Day] {
                let lastmod = Lastmod::date(precision, year, 12 - i as u8, 28).unwrap();
                let mut out = Vec::new();
                lastmod.write(&mut out);
                assert_eq!(String::from_utf8(out).unwrap(), expected(&lastmod));
                written += 1;
            }
            for (&micro, &offset) in micros.iter().cycle().zip(&offsets) {
                let (hour, minute, second) = (i as u8 * 2 + 1, 59 - i as u8, i as u8 * 6);
                let lastmod = Lastmod::time(
                    year,
                    1 + i as u8,
                    9 + i as u8,
                    hour,
                    minute,
                    second,
                    micro,
                    offset,
                )
                .unwrap();
                let (text, len) = lastmod.text();
                assert_eq!(
                    std::str::from_utf8(&text[..len]).unwrap(),
                    expected(&lastmod)
                );
                written += 1;
            }
        }
        assert_eq!(written, 120);
    }

    #[test]
    fn spellings_are_written_as_format_w3c_does() {
        assert_eq!(round("2024").as_deref(), Some("2024"));
        assert_eq!(round("2024-02").as_deref(), Some("2024-02"));
        assert_eq!(round("2024-02-29").as_deref(), Some("2024-02-29"));
        assert_eq!(
            round("2024-02-29T10:30Z").as_deref(),
            Some("2024-02-29T10:30:00Z")
        );
        assert_eq!(
            round("2024-02-29T10:30:05+00:00").as_deref(),
            Some("2024-02-29T10:30:05Z")
        );
        assert_eq!(
            round("2024-02-29T10:30:05-00:00").as_deref(),
            Some("2024-02-29T10:30:05Z")
        );
        assert_eq!(
            round("2024-02-29T10:30:05.5-05:30").as_deref(),
            Some("2024-02-29T10:30:05.500000-05:30")
        );
        assert_eq!(
            round("2024-02-29T10:30:05.1234567+02:00").as_deref(),
            Some("2024-02-29T10:30:05.123456+02:00")
        );
        assert_eq!(
            round("2024-02-29T10:30:05.000+02:00").as_deref(),
            Some("2024-02-29T10:30:05+02:00")
        );
    }

    #[test]
    fn what_python_refuses_is_refused() {
        for text in [
            "0000",
            "2023-02-29",
            "2024-13",
            "2024-00-10",
            "2024-01-32",
            "2024-1-01",
            "2024-01-01T10:30",
            "2024-01-01T24:00Z",
            "2024-01-01T10:60Z",
            "2024-01-01T10:30:60Z",
            "2024-01-01T10:30+24:00",
            "2024-01-01T10:30+01:60",
            "2024-01-01T10:30:00.Z",
            "2024-01-01 10:30Z",
            " 2024",
            "2024-01-01T10:30z",
            "2024-01-01T10:30+0100",
            "",
        ] {
            assert_eq!(parse(text), None, "{text}");
        }
    }

    #[test]
    fn days_and_instants_are_civil_dates() {
        assert_eq!(Lastmod::from_days(0), parse("1970-01-01"));
        assert_eq!(Lastmod::from_days(19_782), parse("2024-02-29"));
        assert_eq!(Lastmod::from_days(-1), parse("1969-12-31"));
        assert_eq!(Lastmod::from_days(-719_162), parse("0001-01-01"));
        assert_eq!(Lastmod::from_days(-719_163), None);
        let instant = parse("2024-03-31T03:30:00.000001+02:00").unwrap();
        assert_eq!(
            Lastmod::from_instant(instant.future_key(), 120),
            Some(instant)
        );
        assert_eq!(
            Lastmod::from_instant(-1, 0),
            parse("1969-12-31T23:59:59.999999Z")
        );
    }

    #[test]
    fn orderings_match_the_python_ones() {
        let day = parse("2024-01-02").unwrap();
        let time = parse("2024-01-02T23:00:00-10:00").unwrap();
        // a date counts to the end of its day anywhere: 2024-01-03T13:59:59Z
        assert_eq!(
            day.newest_key(),
            parse("2024-01-03T13:59:59Z").unwrap().newest_key()
        );
        assert!(time.newest_key() < day.newest_key());
        // a date is future once it has begun nowhere: 2024-01-01T10:00:00Z
        assert_eq!(
            day.future_key(),
            parse("2024-01-01T10:00:00Z").unwrap().future_key()
        );
        assert_eq!(parse("1970-01-01T00:00:00Z").unwrap().future_key(), 0);
        assert_eq!(
            parse("1969-12-31T23:59:59Z").unwrap().future_key(),
            -1_000_000
        );
    }

    #[test]
    fn lastmods() {
        for good in [
            "2024-01-02",
            "2024-02-29",
            "2000-02-29",
            "0001-01-01",
            "2024-01-02T03:04:05Z",
            "2024-01-02T23:59:59+23:59",
            "2024-01-02T00:00:00-07:30",
            "2024-01-02T03:04:05.1Z",
            "2024-01-02T03:04:05.123456+01:00",
            "2024",
            "2024-05",
            "2024-01-02T03:04Z",
            "2024-01-02T03:04-05:00",
            "2024-01-02T03:04:05.1234567Z",
        ] {
            assert!(plain_lastmod(good.as_bytes()), "{good}");
        }
        for bad in [
            "2023-02-29",
            "1900-02-29",
            "0000-01-01",
            "2024-13-01",
            "2024-00-01",
            "2024-1-2",
            "2024-01-02T24:00:00Z",
            "2024-01-02T03:60:00Z",
            "2024-01-02T03:04:60Z",
            "2024-01-02T03:04:05",
            "2024-01-02t03:04:05z",
            "2024-01-02T03:04:05+24:00",
            "2024-01-02T03:04:05+0100",
            "2024-01-02T03:04:05.Z",
            "2024-01-02 03:04:05Z",
            "0000",
            "2024-13",
            "2024-01-02T03Z",
            "",
        ] {
            assert!(!plain_lastmod(bad.as_bytes()), "{bad}");
        }
    }
}
