//! CSV and TSV records as Python's `csv.reader` reads them (its default dialect: `"` quotes,
//! doubled quotes inside them, no escape character, not strict) from a text file opened with
//! `newline=""`: a record may go on over lines inside quotes, text after a closing quote joins
//! the cell, a quote inside an unquoted cell is kept, a cell longer than the field limit makes
//! its line unreadable (the rest of that line is skipped), an open quote at the end of the
//! data ends the record, and each record has the number of its last line (`reader.line_num`).
use memchr::{memchr, memchr2, memchr3, memchr_iter};

use super::lines::{find_near, line_at, strip, utf8, HIGH, ONES};
use super::{Rows, Value, NOT_UTF8};

/// `csv.field_size_limit()`: the characters a cell may hold.
pub const FIELD_LIMIT: usize = 131_072;

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum State {
    StartRecord,
    StartField,
    InField,
    InQuoted,
    QuoteInQuoted,
    EatLineEnd,
}

/// One record's cells, their bytes in one buffer.
#[derive(Debug, Default)]
pub struct Record {
    bytes: Vec<u8>,
    ends: Vec<usize>,
    /// whether every line of the record is UTF-8
    pub utf8: bool,
    /// where the cell being read starts in `bytes`
    cell_start: usize,
    /// its characters in `bytes[cell_start..counted]`: counted only once the cell has more
    /// bytes than the limit allows characters (a character is one byte or more)
    cell_chars: usize,
    counted: usize,
}

impl Record {
    pub fn len(&self) -> usize {
        self.ends.len()
    }

    pub fn is_empty(&self) -> bool {
        self.ends.is_empty()
    }

    /// The bytes of cell `index`.
    pub fn cell(&self, index: usize) -> &[u8] {
        let start = if index == 0 { 0 } else { self.ends[index - 1] };
        &self.bytes[start..self.ends[index]]
    }

    fn clear(&mut self) {
        self.bytes.clear();
        self.ends.clear();
        self.utf8 = true;
        (self.cell_start, self.cell_chars, self.counted) = (0, 0, 0);
    }

    fn save(&mut self) {
        self.ends.push(self.bytes.len());
        (self.cell_start, self.cell_chars, self.counted) = (self.bytes.len(), 0, self.bytes.len());
    }

    /// Count the characters of the cell's bytes not counted yet, all from UTF-8 lines.
    fn count_utf8(&mut self) {
        let fresh = &self.bytes[self.counted..];
        self.cell_chars += fresh.iter().filter(|&&b| (b as i8) >= -0x40).count();
        self.counted = self.bytes.len();
    }
}

/// What reading the next record gave.
#[derive(Debug, PartialEq, Eq)]
pub enum Step {
    /// a record (in the `Record` given), ending on this line
    Record(u64),
    /// a line `csv.reader` refuses, and its error's text
    Unreadable(u64, String),
    /// the data may go on: nothing was read
    More,
    /// the end of the data
    End,
}

/// The characters Python decodes `bytes` into (`surrogateescape`: a byte it cannot decode is
/// one); `utf8`: the line they come from is UTF-8. Cells are cut at ASCII bytes only, which
/// never fall inside a character, so counting a piece alone counts as the whole line does.
fn chars(bytes: &[u8], utf8: bool) -> usize {
    if utf8 {
        return bytes.iter().filter(|&&b| (b as i8) >= -0x40).count();
    }
    bytes
        .utf8_chunks()
        .map(|chunk| chunk.valid().chars().count() + chunk.invalid().len())
        .sum()
}

/// A CSV (`,`) or TSV (`\t`) reader.
#[derive(Clone, Copy, Debug)]
pub struct Reader {
    pub delimiter: u8,
    pub field_limit: usize,
    /// a CR alone ends a line (`line_at`)
    pub lone_cr: bool,
}

impl Reader {
    pub fn new(delimiter: u8) -> Reader {
        Reader {
            delimiter,
            field_limit: FIELD_LIMIT,
            lone_cr: true,
        }
    }

    /// Read the next record from `data[*pos..]` into `record`; on `Record` and `Unreadable`,
    /// `pos` and `line` (the number of the last line read) move past it. A record the data
    /// may still continue is left unread (`More`) unless `eof`.
    pub fn next(
        &self,
        data: &[u8],
        pos: &mut usize,
        eof: bool,
        line: &mut u64,
        record: &mut Record,
    ) -> Step {
        record.clear();
        let (mut at, mut number) = (*pos, *line);
        let mut state = State::StartRecord;
        loop {
            let Some((end, next)) = line_at(data, at, eof, self.lone_cr) else {
                if !eof {
                    return Step::More;
                }
                if number == *line {
                    return Step::End;
                }
                record.save(); // an open quote to the end of the data: the record ends there
                (*pos, *line) = (at, number);
                return Step::Record(number);
            };
            number += 1;
            let text = &data[at..end];
            let valid = text.is_ascii() || utf8(text).is_some();
            record.utf8 &= valid;
            let raw = &data[at..next];
            at = next;
            if let Err(reason) = self.line(raw, valid, &mut state, record) {
                (*pos, *line) = (at, number);
                return Step::Unreadable(number, reason);
            }
            if state == State::StartRecord {
                (*pos, *line) = (at, number);
                return Step::Record(number);
            }
        }
    }

    /// Add `bytes` (from a line that is UTF-8 or not) to the cell; an error when the cell then
    /// holds more characters than the field limit, as `csv.reader` counts them.
    fn add(&self, record: &mut Record, bytes: &[u8], utf8: bool) -> Result<(), String> {
        if !utf8 {
            // counted now: where a character starts depends on the bytes around it
            record.count_utf8();
            record.cell_chars += chars(bytes, false);
            record.bytes.extend_from_slice(bytes);
            record.counted = record.bytes.len();
        } else {
            record.bytes.extend_from_slice(bytes);
            if record.bytes.len() - record.cell_start <= self.field_limit {
                return Ok(()); // the usual case: fewer bytes than the limit, so fewer characters
            }
            record.count_utf8();
        }
        if record.cell_chars > self.field_limit {
            return Err(format!(
                "field larger than field limit ({})",
                self.field_limit
            ));
        }
        Ok(())
    }

    /// One line (with its line end) through `csv.reader`'s states. One piece because the
    /// states hand characters to each other, as the C reader's switch does.
    fn line(
        &self,
        raw: &[u8],
        utf8: bool,
        state: &mut State,
        record: &mut Record,
    ) -> Result<(), String> {
        let (delimiter, quote) = (self.delimiter, b'"');
        let line_end = |c: u8| c == b'\n' || c == b'\r';
        let mut i = 0;
        while i < raw.len() {
            let c = raw[i];
            match *state {
                State::StartRecord if line_end(c) => {
                    *state = State::EatLineEnd;
                    i += 1;
                }
                State::StartRecord => *state = State::StartField,
                State::StartField if c != quote && c != delimiter && !line_end(c) => {
                    *state = State::InField;
                }
                State::StartField => {
                    if c == quote {
                        *state = State::InQuoted;
                    } else {
                        record.save();
                        if c != delimiter {
                            *state = State::EatLineEnd;
                        }
                    }
                    i += 1;
                }
                State::InField => {
                    let stop =
                        memchr3(delimiter, b'\n', b'\r', &raw[i..]).map_or(raw.len(), |f| i + f);
                    self.add(record, &raw[i..stop], utf8)?;
                    i = stop;
                    if let Some(&end) = raw.get(i) {
                        record.save();
                        *state = if end == delimiter {
                            State::StartField
                        } else {
                            State::EatLineEnd
                        };
                        i += 1;
                    }
                }
                State::InQuoted => {
                    // to the closing quote, each "" on the way one " kept with the text
                    // before it (a JSON cell has dozens of pairs, a few bytes apart)
                    let mut close = find_near(quote, &raw[i..]).map(|at| i + at);
                    while let Some(at) = close.filter(|&at| raw.get(at + 1) == Some(&quote)) {
                        self.add(record, &raw[i..=at], utf8)?;
                        i = at + 2;
                        close = find_near(quote, &raw[i..]).map(|at| i + at);
                    }
                    let stop = close.unwrap_or(raw.len());
                    self.add(record, &raw[i..stop], utf8)?;
                    i = stop;
                    if close.is_some() {
                        *state = State::QuoteInQuoted;
                        i += 1;
                    }
                }
                State::QuoteInQuoted if c == quote => {
                    self.add(record, b"\"", true)?; // "" inside quotes is one "
                    *state = State::InQuoted;
                    i += 1;
                }
                State::QuoteInQuoted if c == delimiter || line_end(c) => {
                    record.save();
                    *state = if c == delimiter {
                        State::StartField
                    } else {
                        State::EatLineEnd
                    };
                    i += 1;
                }
                State::QuoteInQuoted => *state = State::InField, // text after the quote
                State::EatLineEnd if line_end(c) => i += 1,
                State::EatLineEnd => {
                    // only where a CR alone does not end a line; csv.reader's words (3.11)
                    return Err(
                        "new-line character seen in unquoted field - do you need to \
                                open the file in universal-newline mode?"
                            .to_string(),
                    );
                }
            }
        }
        match *state {
            State::StartField | State::InField | State::QuoteInQuoted => {
                record.save();
                *state = State::StartRecord;
            }
            State::EatLineEnd => *state = State::StartRecord,
            State::StartRecord | State::InQuoted => {}
        }
        Ok(())
    }
}

/// Where a table's core columns (loc, lastmod, changefreq, priority) are, its width, and
/// where its extension columns are.
#[derive(Clone, Debug)]
pub struct Columns {
    pub positions: [Option<usize>; 4],
    pub width: usize,
    /// the extension columns: a record with any of them not blank is read the long way
    pub extra: Vec<usize>,
    /// the `section` column (`Rows::sections`)
    pub section: Option<usize>,
    /// the `extensions` column among them (JSON of extension fields), which the core reads
    /// when it is the only one not blank (`json_lines::extensions_cell`)
    pub json: Option<usize>,
}

impl Columns {
    /// A record's core values as `read_rows` keeps them (`cell_at`: its cells' texts): each
    /// stripped, a blank one absent, a blank loc empty.
    pub fn core_values<'a>(
        &self,
        cell_at: impl Fn(usize) -> &'a str,
        rows: &mut Rows,
    ) -> [Value; 4] {
        self.values_kept(cell_at, |cell| rows.keep(cell))
    }

    /// [`Columns::core_values`] of a record whose cells are `spans` of `text`: the text kept
    /// once and each value a span of it (one copy a record, not one a cell).
    pub fn record_values(
        &self,
        text: &str,
        spans: &[(usize, usize)],
        rows: &mut Rows,
    ) -> [Value; 4] {
        let base = rows.text.len();
        rows.text.push_str(text);
        let origin = text.as_ptr() as usize;
        let cell_at = |index: usize| {
            let (start, end) = spans[index];
            text.get(start..end).unwrap_or_default()
        };
        self.values_kept(cell_at, |cell| {
            // a cell is a piece of `text`: where it starts in it (an empty one anywhere)
            let at = base
                + (cell.as_ptr() as usize)
                    .saturating_sub(origin)
                    .min(text.len());
            Value::Text(at, at + cell.len())
        })
    }

    /// The core values, each cell stripped and given to `keep` (a blank one absent; a blank
    /// loc given as "").
    fn values_kept<'a>(
        &self,
        cell_at: impl Fn(usize) -> &'a str,
        mut keep: impl FnMut(&'a str) -> Value,
    ) -> [Value; 4] {
        let mut values = [Value::Absent; 4];
        for (value, position) in values.iter_mut().zip(self.positions) {
            let Some(index) = position else { continue };
            let cell = strip(cell_at(index));
            if !cell.is_empty() {
                *value = keep(cell);
            }
        }
        if values[0] == Value::Absent {
            values[0] = keep("");
        }
        values
    }
}

/// Read a table's records from `data[pos..]` as rows of its core columns, stripped (a blank
/// cell is absent, a blank loc empty), until `rows` holds `max` rows and problems or the data
/// ends; blank records are skipped, and a record of the wrong width, not UTF-8 or unreadable
/// is a problem on its line. Returns where reading stopped; `line` moves on.
#[allow(clippy::too_many_arguments)]
pub fn read_rows(
    reader: &Reader,
    columns: &Columns,
    data: &[u8],
    pos: usize,
    eof: bool,
    line: &mut u64,
    max: usize,
    record: &mut Record,
    rows: &mut Rows,
) -> usize {
    let lines = Lines { data, eof };
    read_rows_from(reader, columns, lines, pos, line, max, record, rows, true)
}

/// [`read_rows`] with every line fed through the states (no plain-line cut), for the fuzz
/// target that holds the two ways equal on any bytes.
#[allow(clippy::too_many_arguments)]
pub fn read_rows_by_states(
    reader: &Reader,
    columns: &Columns,
    data: &[u8],
    pos: usize,
    eof: bool,
    line: &mut u64,
    max: usize,
    record: &mut Record,
    rows: &mut Rows,
) -> usize {
    let lines = Lines { data, eof };
    read_rows_from(reader, columns, lines, pos, line, max, record, rows, false)
}

/// The bytes `read_rows` reads, and whether they are all there is.
#[derive(Clone, Copy)]
struct Lines<'a> {
    data: &'a [u8],
    eof: bool,
}

/// [`read_rows`]; `plain`: a line without a quote is cut at its delimiters at once
/// ([`Reader::plain_line`]), not fed through the states (false in tests, which hold the two
/// ways equal).
#[allow(clippy::too_many_arguments)]
fn read_rows_from(
    reader: &Reader,
    columns: &Columns,
    Lines { data, eof }: Lines<'_>,
    mut pos: usize,
    line: &mut u64,
    max: usize,
    record: &mut Record,
    rows: &mut Rows,
    plain: bool,
) -> usize {
    let mut spans: Vec<(usize, usize)> = Vec::with_capacity(columns.width);
    while rows.count() < max {
        if let Some((next, text)) = plain
            .then(|| reader.usual_line(data, pos, &mut spans))
            .flatten()
        {
            pos = next;
            *line += 1;
            take_record(columns, *line, text, &spans, rows);
            continue;
        }
        if let Some((next, text)) = plain.then(|| reader.plain_line(data, pos, eof)).flatten() {
            spans.clear();
            if !text.is_empty() {
                let mut start = 0;
                for at in memchr_iter(reader.delimiter, text.as_bytes()) {
                    spans.push((start, at));
                    start = at + 1;
                }
                spans.push((start, text.len()));
            }
            pos = next;
            *line += 1;
            take_record(columns, *line, text, &spans, rows);
            continue;
        }
        let number = if let Some(next) = plain
            .then(|| reader.one_line_record(data, pos, eof, record))
            .flatten()
        {
            pos = next;
            *line += 1;
            *line
        } else {
            match reader.next(data, &mut pos, eof, line, record) {
                Step::More | Step::End => break,
                Step::Unreadable(number, reason) => {
                    rows.problem(number, format!("unreadable row ({reason})"));
                    continue;
                }
                Step::Record(number) => number,
            }
        };
        // the cells are cut at ASCII bytes, so each of a UTF-8 record is UTF-8
        let Some(text) = record.utf8.then(|| utf8(&record.bytes)).flatten() else {
            let count = record.len(); // a line's bytes: one cell at least, and not blank
            if count != columns.width {
                let reason = format!("has {count} fields; the header has {}", columns.width);
                rows.problem(number, reason);
            } else if columns.extra.is_empty() {
                rows.problem(number, NOT_UTF8.to_string());
            } else {
                // with extension columns Python judges which cells must be UTF-8
                rows.push_long(number, (0..count).map(|i| record.cell(i)));
            }
            continue;
        };
        spans.clear();
        let starts = std::iter::once(0).chain(record.ends.iter().copied());
        spans.extend(starts.zip(record.ends.iter().copied()));
        take_record(columns, number, text, &spans, rows);
    }
    pos
}

/// A UTF-8 record's row (its cells: `spans` of `text`), a problem, or nothing for a blank one.
fn take_record(
    columns: &Columns,
    number: u64,
    text: &str,
    spans: &[(usize, usize)],
    rows: &mut Rows,
) {
    let cell_at = |index: usize| {
        let (start, end) = spans[index];
        text.get(start..end).unwrap_or_default()
    };
    let count = spans.len();
    if count == 0 || (count == 1 && strip(cell_at(0)).is_empty()) {
        return;
    }
    if count != columns.width {
        let reason = format!("has {count} fields; the header has {}", columns.width);
        rows.problem(number, reason);
        return;
    }
    if let Some(index) = columns.section {
        rows.section(strip(cell_at(index))); // a long row's too: the core may render it
    }
    if columns.extra.iter().any(|&i| !strip(cell_at(i)).is_empty()) {
        rows.push_long(number, (0..count).map(|i| cell_at(i).as_bytes()));
        return;
    }
    let values = columns.record_values(text, spans, rows);
    rows.push(number, values);
}

/// One past the highest byte [`Reader::usual_line`] stops at: `-`, so a plain URL's `-./:`,
/// letters and digits never stop it; the delimiters, `"`, CR and LF all lie below.
const STOP_BELOW: u8 = b'-';

impl Reader {
    /// [`Reader::plain_line`] and its cuts at the delimiter in one pass, for the usual line:
    /// UTF-8, without a quote or a CR, ended by a LF within the field limit (`spans`: its
    /// cells, none for an empty line). None for any other line: `plain_line` decides. The
    /// cuts are at ASCII bytes, which no byte of a longer UTF-8 character equals.
    ///
    /// A word of eight bytes at a time: `word - STOP_BELOW` sets the top bit of each byte
    /// below `STOP_BELOW` (and of some others: a byte from 0x80 on, the byte after one a
    /// borrow left; each byte so marked is looked at, so none is missed and none is wrong).
    fn usual_line<'a>(
        &self,
        data: &'a [u8],
        pos: usize,
        spans: &mut Vec<(usize, usize)>,
    ) -> Option<(usize, &'a str)> {
        if self.delimiter >= STOP_BELOW {
            return None;
        }
        let rest = data.get(pos..)?;
        let rest = &rest[..rest.len().min(self.field_limit.saturating_add(1))];
        spans.clear();
        let mut start = 0;
        let mut words = rest.chunks_exact(8);
        let mut at = 0;
        for word in &mut words {
            let word = u64::from_le_bytes(word.try_into().expect("8 bytes"));
            let mut marked = word.wrapping_sub(ONES * u64::from(STOP_BELOW)) & HIGH;
            while marked != 0 {
                let index = at + (marked.trailing_zeros() / 8) as usize;
                marked &= marked - 1;
                if let Some(end) = self.usual_stop(rest, index, &mut start, spans)? {
                    return Some((pos + end + 1, std::str::from_utf8(&rest[..end]).ok()?));
                }
            }
            at += 8;
        }
        for (offset, &byte) in words.remainder().iter().enumerate() {
            if byte < STOP_BELOW {
                if let Some(end) = self.usual_stop(rest, at + offset, &mut start, spans)? {
                    return Some((pos + end + 1, std::str::from_utf8(&rest[..end]).ok()?));
                }
            }
        }
        None
    }

    /// The byte at `index` of a line [`Reader::usual_line`] reads: a delimiter cuts a cell
    /// (`Some(None)`), the LF ends the line (`Some(Some(index))`), a quote or a CR sends it
    /// the usual way (None); any other byte is text.
    #[inline(always)]
    fn usual_stop(
        &self,
        line: &[u8],
        index: usize,
        start: &mut usize,
        spans: &mut Vec<(usize, usize)>,
    ) -> Option<Option<usize>> {
        let byte = line[index];
        if byte == self.delimiter {
            spans.push((*start, index));
            *start = index + 1;
        } else if byte == b'\n' {
            if index > 0 {
                spans.push((*start, index)); // an empty line has no cell
            }
            return Some(Some(index));
        } else if byte == b'"' || byte == b'\r' {
            return None;
        }
        Some(None)
    }

    /// The line at `pos` when `csv.reader` would read it as its own record of unquoted cells:
    /// (where the next line starts, its text), or None for the states to read it. Such a line
    /// holds no quote (none opens a cell), no CR inside (where a CR alone does not end a line,
    /// `csv.reader` refuses one), no more bytes than a cell may hold characters, and is UTF-8
    /// (checked once here: the cells are cut at ASCII bytes).
    fn plain_line<'a>(&self, data: &'a [u8], pos: usize, eof: bool) -> Option<(usize, &'a str)> {
        let (end, next) = line_at(data, pos, eof, self.lone_cr)?;
        let text = &data[pos..end];
        if text.len() > self.field_limit || memchr2(b'"', b'\r', text).is_some() {
            return None;
        }
        Some((next, utf8(text)?))
    }

    /// The record on the line at `pos` when it ends on that line (its quoted cells close on
    /// it: a JSON cell's, say), read as the states read it but a cell at a time: its cells
    /// into `record`, each `""` in quotes one `"`, and where the next line starts. None for
    /// any other line (a quoted cell going on past the line, text after a closing quote, a
    /// CR inside, more bytes than a cell may hold characters, the data going on): the states
    /// read it. The line is UTF-8 or not as a whole (`record.utf8`), as in [`Reader::next`].
    fn one_line_record(
        &self,
        data: &[u8],
        pos: usize,
        eof: bool,
        record: &mut Record,
    ) -> Option<usize> {
        let (end, next) = line_at(data, pos, eof, self.lone_cr)?;
        let line = &data[pos..end];
        if line.len() > self.field_limit || (!self.lone_cr && memchr(b'\r', line).is_some()) {
            return None;
        }
        record.clear();
        record.utf8 = line.is_ascii() || utf8(line).is_some();
        if line.is_empty() {
            return Some(next); // no cell
        }
        let mut at = 0;
        loop {
            let stop = if line.get(at) == Some(&b'"') {
                let close = at + 1 + unquote_into(&line[at + 1..], &mut record.bytes)?;
                if close + 1 < line.len() && line[close + 1] != self.delimiter {
                    return None; // text after the closing quote
                }
                close + 1
            } else {
                let stop = memchr(self.delimiter, &line[at..]).map_or(line.len(), |k| at + k);
                record.bytes.extend_from_slice(&line[at..stop]);
                stop
            };
            record.save();
            if stop == line.len() {
                return Some(next);
            }
            at = stop + 1;
        }
    }
}

/// A quoted cell's text (`text` starts just after its opening quote) added to `out`, each
/// `""` one `"`: where its closing quote is in `text`, None when `text` ends first (`out`
/// then holds what it may: the caller reads the line again another way).
fn unquote_into(text: &[u8], out: &mut Vec<u8>) -> Option<usize> {
    if text.len() > SHORT_REST {
        return unquote_pieces(text, out);
    }
    // eight bytes copied at a time and kept up to the first quote among them: the pieces
    // between a JSON cell's doubled quotes are a few bytes long, where a copy call each
    // costs more
    let base = out.len();
    out.resize(base + text.len() + 8, 0);
    let kept = &mut out[base..];
    let (mut at, mut to) = (0, 0);
    loop {
        while at + 8 <= text.len() {
            let word: [u8; 8] = text[at..at + 8].try_into().unwrap_or_default();
            kept[to..to + 8].copy_from_slice(&word);
            // a zero byte where a quote is; the lowest mark is the first quote's
            let zeroed = u64::from_le_bytes(word) ^ (ONES * u64::from(b'"'));
            let marks = zeroed.wrapping_sub(ONES) & !zeroed & HIGH;
            let ahead = if marks == 0 {
                8
            } else {
                marks.trailing_zeros() as usize / 8
            };
            (at, to) = (at + ahead, to + ahead);
            if ahead < 8 {
                break;
            }
        }
        while at < text.len() && text[at] != b'"' {
            kept[to] = text[at];
            (at, to) = (at + 1, to + 1);
        }
        if at == text.len() {
            return None;
        }
        if text.get(at + 1) != Some(&b'"') {
            out.truncate(base + to);
            return Some(at);
        }
        kept[to] = b'"';
        (at, to) = (at + 2, to + 1);
    }
}

/// The rest of a line up to which [`unquote_into`] makes room for all of it at once (past
/// it, a line of many quoted cells would have its rest filled again for each).
const SHORT_REST: usize = 4096;

/// [`unquote_into`] a piece between quotes at a time.
fn unquote_pieces(text: &[u8], out: &mut Vec<u8>) -> Option<usize> {
    let mut at = 0;
    loop {
        let quote = at + find_near(b'"', &text[at..])?;
        if text.get(quote + 1) == Some(&b'"') {
            out.extend_from_slice(&text[at..=quote]);
            at = quote + 2;
        } else {
            out.extend_from_slice(&text[at..quote]);
            return Some(quote);
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn records(
        data: &[u8],
        delimiter: u8,
        limit: usize,
    ) -> Vec<(u64, Result<Vec<String>, String>)> {
        let reader = Reader {
            delimiter,
            field_limit: limit,
            lone_cr: true,
        };
        let (mut pos, mut line, mut record) = (0, 0, Record::default());
        let mut out = Vec::new();
        loop {
            match reader.next(data, &mut pos, true, &mut line, &mut record) {
                Step::Record(number) => {
                    let cells = (0..record.len())
                        .map(|i| String::from_utf8_lossy(record.cell(i)).into_owned())
                        .collect();
                    out.push((number, Ok(cells)));
                }
                Step::Unreadable(number, reason) => out.push((number, Err(reason))),
                Step::End => return out,
                Step::More => unreachable!("at the end of the data"),
            }
        }
    }

    fn ok(number: u64, cells: &[&str]) -> (u64, Result<Vec<String>, String>) {
        (number, Ok(cells.iter().map(|c| c.to_string()).collect()))
    }

    #[test]
    fn records_as_python_reads_them() {
        let data = b"a,\"b\"\"c\",d\r\n\n\"x\ny\"z,q\"r\rlast,\"open\n";
        assert_eq!(
            records(data, b',', FIELD_LIMIT),
            [
                ok(1, &["a", "b\"c", "d"]),
                ok(2, &[]),
                ok(4, &["x\nyz", "q\"r"]),
                ok(5, &["last", "open\n"]),
            ]
        );
        assert_eq!(
            records(b"a\t\"b\tc\"\t\n", b'\t', 9),
            [ok(1, &["a", "b\tc", ""])]
        );
    }

    #[test]
    fn a_cell_past_the_limit_makes_its_line_unreadable() {
        let data = "ab,\"cdéxy\nfg\",h\nij\n".as_bytes();
        let got = records(data, b',', 4);
        let limit = "field larger than field limit (4)".to_string();
        assert_eq!(
            got,
            [
                (1, Err(limit.clone())),
                ok(2, &["fg\"", "h"]),
                ok(3, &["ij"])
            ]
        );
        assert_eq!(
            records(b"abcd,\"\"\"\"\n", b',', 4),
            [ok(1, &["abcd", "\""])]
        );
        assert_eq!(records(b"abcde\n", b',', 4), [(1, Err(limit))]);
    }

    #[test]
    fn a_record_the_data_may_continue_waits_for_more() {
        let reader = Reader::new(b',');
        let (mut pos, mut line, mut record) = (0, 0, Record::default());
        let data = b"a,b\n\"c\nd";
        assert_eq!(
            reader.next(data, &mut pos, false, &mut line, &mut record),
            Step::Record(1)
        );
        assert_eq!(
            reader.next(data, &mut pos, false, &mut line, &mut record),
            Step::More
        );
        assert_eq!((pos, line), (4, 1));
        assert_eq!(
            reader.next(data, &mut pos, true, &mut line, &mut record),
            Step::Record(3)
        );
        assert_eq!(record.cell(0), b"c\nd");
    }

    #[test]
    fn a_section_column_names_its_rows_section() {
        let columns = Columns {
            positions: [Some(0), None, None, None],
            width: 2,
            extra: Vec::new(),
            section: Some(1),
            json: None,
        };
        let data = b"https://e.com/a, blog \nhttps://e.com/b,\n";
        let (mut line, mut record, mut rows) = (0, Record::default(), Rows::default());
        let reader = Reader {
            delimiter: b',',
            field_limit: FIELD_LIMIT,
            lone_cr: true,
        };
        read_rows(
            &reader,
            &columns,
            data,
            0,
            true,
            &mut line,
            9,
            &mut record,
            &mut rows,
        );
        assert_eq!(rows.values.len(), 2);
        let sections: Vec<_> = rows
            .sections
            .iter()
            .map(|&(at, v)| (at, rows.text_of(v)))
            .collect();
        assert_eq!(sections, [(0, Some("blog"))]);
    }

    #[test]
    fn rows_of_the_core_columns() {
        let columns = Columns {
            positions: [Some(1), None, None, Some(0)],
            width: 2,
            extra: Vec::new(),
            section: None,
            json: None,
        };
        let data = b" 0.5 , https://e.com/a\n\n , \nx\n1,https://e.com/\xff\n";
        let (mut line, mut record, mut rows) = (0, Record::default(), Rows::default());
        let reader = Reader::new(b',');
        let end = read_rows(
            &reader,
            &columns,
            data,
            0,
            true,
            &mut line,
            10,
            &mut record,
            &mut rows,
        );
        assert_eq!(end, data.len());
        assert_eq!(rows.lines, [1, 3]);
        assert_eq!(rows.text_of(rows.values[0][0]), Some("https://e.com/a"));
        assert_eq!(rows.text_of(rows.values[0][3]), Some("0.5"));
        assert_eq!(rows.text_of(rows.values[1][0]), Some(""));
        assert_eq!(rows.values[1][3], Value::Absent);
        let problems: Vec<_> = rows
            .problems
            .iter()
            .map(|p| (p.before, p.line, p.reason.as_str()))
            .collect();
        assert_eq!(
            problems,
            [(2, 4, "has 1 fields; the header has 2"), (2, 5, NOT_UTF8)]
        );
    }

    /// Every row, problem and line as read with the plain-line cut and without it, and
    /// where reading stopped.
    fn both_ways(reader: &Reader, columns: &Columns, data: &[u8], eof: bool) -> [String; 2] {
        [true, false].map(|plain| {
            let (mut line, mut record, mut rows) = (0, Record::default(), Rows::default());
            let lines = Lines { data, eof };
            let mut pos = 0;
            let mut steps = Vec::new();
            loop {
                let at = read_rows_from(
                    reader,
                    columns,
                    lines,
                    pos,
                    &mut line,
                    3,
                    &mut record,
                    &mut rows,
                    plain,
                );
                steps.push(at);
                if at == pos && rows.count() == 0 {
                    break;
                }
                pos = at;
                let values: Vec<_> = rows
                    .values
                    .iter()
                    .map(|v| v.map(|v| rows.text_of(v).map(str::to_owned)))
                    .collect();
                steps.push(values.len());
                steps.extend(rows.lines.iter().map(|&n| n as usize));
                steps.push(rows.long.len());
                steps.push(rows.sections.len());
                let problems = format!("{:?}{values:?}", rows.problems);
                steps.push(problems.len());
                steps.extend(problems.bytes().map(usize::from));
                rows.clear();
            }
            format!("{steps:?} line {line}")
        })
    }

    #[test]
    fn a_plain_line_is_read_as_the_states_read_it() {
        // lines of these pieces: quotes, both line ends, blanks, non-UTF-8, the delimiters
        let pieces: [&[u8]; 17] = [
            b"a",
            b",",
            b"\t",
            b"\"",
            b"\n",
            b"\r",
            b"\r\n",
            b" ",
            b"\xc3\xa9",
            b"\xff",
            b"https://e.com/x",
            b"2024-01-02",
            b"\x1f",
            b"\xe2\x80\x83",
            b"-",
            b"&q=1-2",
            b"0123456789abcdef",
        ];
        let mut state = 0x2545_f491_4f6c_dd1d_u64;
        let mut random = |below: usize| {
            state ^= state << 13;
            state ^= state >> 7;
            state ^= state << 17;
            (state % below as u64) as usize
        };
        let columns = |extra: Vec<usize>, section| Columns {
            positions: [Some(0), Some(1), None, Some(2)],
            width: 3,
            extra,
            section,
            json: None,
        };
        for case in 0..3000 {
            let data: Vec<u8> = (0..random(40))
                .flat_map(|_| pieces[random(pieces.len())].iter().copied())
                .collect();
            let reader = Reader {
                delimiter: if case % 5 == 0 { b'\t' } else { b',' },
                field_limit: [4, 30, FIELD_LIMIT][case % 3],
                lone_cr: case % 4 != 0,
            };
            let columns = columns(if case % 7 == 0 { vec![2] } else { vec![] }, None);
            for eof in [true, false] {
                let [plain, states] = both_ways(&reader, &columns, &data, eof);
                assert_eq!(plain, states, "{:?} {eof}", String::from_utf8_lossy(&data));
            }
        }
        // lines longer than unquote_into's room at once: a long quoted cell with doubled
        // quotes, and many quoted cells
        let long = [
            format!("\"{}\",\"{}\"\n", "a\"\"bc".repeat(1500), "x".repeat(9)),
            format!("{}\"z\"\r\n", "\"q\"\"\",".repeat(2000)),
        ];
        for (data, width) in long.iter().zip([2, 2001]) {
            let wide = Columns {
                positions: [Some(0), Some(width - 1), None, None],
                width,
                ..columns(vec![], None)
            };
            let [plain, states] = both_ways(&Reader::new(b','), &wide, data.as_bytes(), true);
            assert_eq!(plain, states);
        }
        let sections = columns(vec![], Some(1));
        let data = b"https://e.com/a, blog ,1\n\nhttps://e.com/b,,\n";
        let [plain, states] = both_ways(&Reader::new(b','), &sections, data, true);
        assert_eq!(plain, states);
    }
}
