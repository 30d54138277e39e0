//! The build inputs' bindings: `SourceReader` parses a file's bytes, fed a block at a time, as
//! `urlset.writing.sources` reads them, into `SourceBatch` values (rows of the core columns
//! with their lines, and the lines it could not use) that render without a Python object per
//! row. The GIL is released while bytes are parsed and rows rendered.
use std::borrow::Cow;
use std::sync::{Arc, Mutex};

use pyo3::exceptions::PyValueError;
use pyo3::prelude::*;
use pyo3::types::{PyBool, PyBytes, PyFloat, PyList, PyString, PyTuple};
use urlset_core::sources::delimited::{self, Columns, Record, Step};
use urlset_core::sources::lines::strip;
use urlset_core::sources::{json_lines, text, Rows, Value};
use urlset_core::values::extensions::Extensions;
use urlset_core::values::lastmod::{self, Lastmod};
use urlset_core::values::scalars::{self, Priority};
use urlset_core::write::locs::writable_loc;
use urlset_core::write::render::{Refusal, Rendered, Values};

use crate::write::{from_text, Checked, PriorityMemo, RenderedRows};

const BOM: &[u8] = b"\xef\xbb\xbf";

/// A batch of a source's rows (loc, lastmod, changefreq, priority), not yet checked, with the
/// line of each and the lines the source could not use.
#[pyclass(frozen, module = "urlset._core")]
pub struct SourceBatch {
    rows: Rows,
    /// why a long row (`Rows::long`) leaves the core: extension cells, or a JSON line
    long: Refusal,
    /// a table's columns (None: JSON Lines or text), for the long rows the core reads itself
    columns: Option<Columns>,
    /// how the last batch of its reader was rendered (shared by the reader's batches)
    hint: RenderHint,
    /// the batch rendered on the reading thread, as `hint` said when it was read
    ahead: Mutex<Option<(RenderKey, Rendered)>>,
}

/// What `SourceBatch.render` is asked: the prefix, the longest loc, the text flag.
#[derive(Clone, PartialEq, Eq)]
struct RenderKey {
    prefix: String,
    max_length: usize,
    text: bool,
}

/// How a reader's batches were last rendered: its next batches are rendered so as they are
/// read (on the thread that reads ahead, `sources.ahead`), off the thread that writes them.
/// Unset until the first `render`, so a batch nobody renders is never rendered.
type RenderHint = Arc<Mutex<Option<RenderKey>>>;

/// A long row's values and extensions when the core reads it itself (`scratch`: its texts;
/// `columns`: a table's, or why its long rows are long): a JSON line of the core keys and
/// extension keys (`json_lines::object`), or a table's record whose only extension cell not
/// blank is `extensions` with extension keys alone in it. None: Python reads the row.
fn long_entry(
    columns: Result<&Columns, Refusal>,
    rows: &Rows,
    cells: &[(usize, usize)],
    scratch: &mut Rows,
) -> Option<([Value; 4], Extensions)> {
    scratch.clear();
    // the cells lie one after another in `raw`: checked as UTF-8 together, once; a cell is
    // UTF-8 alone when the whole is and its ends fall between characters (`str::get`)
    let first = cells.first().map_or(0, |cell| cell.0);
    let whole = std::str::from_utf8(&rows.raw[first..cells.last().map_or(first, |cell| cell.1)]);
    let cell = |index: usize| {
        let &(start, end) = cells.get(index)?;
        whole.ok()?.get(start - first..end - first)
    };
    let Ok(columns) = columns else {
        if !matches!(columns, Err(Refusal::JsonLine)) {
            return None;
        }
        let mut extensions = Extensions::default();
        scratch.read_sections = rows.read_sections; // its section was read with the line
        let line = cell(0)?.as_bytes();
        let (values, _) = json_lines::object(line, scratch, Some(&mut extensions))?;
        return Some((values, extensions));
    };
    let json = columns.json?;
    if cells.len() != columns.width || (0..cells.len()).any(|index| cell(index).is_none()) {
        return None; // Python says which cell is not UTF-8
    }
    let text = |index: usize| cell(index).unwrap_or_default();
    let others = columns.extra.iter().filter(|&&index| index != json);
    if others
        .into_iter()
        .any(|&index| !strip(text(index)).is_empty())
    {
        return None;
    }
    let extensions = json_lines::extensions_cell(strip(text(json)))?;
    Some((columns.core_values(text, scratch), extensions))
}

/// A row's loc and values as the core writes them (`rows`: the row's texts), or why not. A
/// loc written as it is stays borrowed from the row (no allocation a row).
fn checked_row<'a>(
    rows: &'a Rows,
    values: &[Value; 4],
    prefix: &str,
    max_length: usize,
    memos: &mut Memos,
) -> Result<(Cow<'a, str>, Values), Refusal> {
    let loc = rows.text_of(values[0]);
    let Some(loc) = loc.and_then(|loc| writable_loc(loc, prefix, max_length)) else {
        return Err(Refusal::Loc);
    };
    let mut checked = || {
        let priority = match values[3] {
            Value::Number(number) => memos.priorities.checked(number)?,
            // Python's float of the int: 0 and 1 as JSON writes them (past 2**53 still out
            // of range)
            Value::Integer(number) => memos.priorities.checked(number as f64)?,
            Value::Bool(_) => return None,
            value => memos
                .priority_texts
                .value(rows, value, Priority::from_text)?,
        };
        Some(Values {
            lastmod: memos.lastmods.checked(rows, values[1])?,
            changefreq: memos
                .changefreqs
                .value(rows, values[2], scalars::changefreq)?,
            priority,
        })
    };
    checked().map(|values| (loc, values)).ok_or(Refusal::Value)
}

/// What a batch's rows were checked against already: its values repeat (a few dates,
/// changefreqs and priorities), so most are read by a comparison or two.
struct Memos {
    priorities: PriorityMemo,
    lastmods: LastmodMemo,
    changefreqs: ShortTexts<&'static str>,
    priority_texts: ShortTexts<Priority>,
}

impl Memos {
    fn new() -> Memos {
        Memos {
            priorities: PriorityMemo::new(),
            lastmods: LastmodMemo::default(),
            changefreqs: ShortTexts::new(),
            priority_texts: ShortTexts::new(),
        }
    }
}

/// [`text_value`] of the last short texts read (at most 8 bytes, a changefreq's or a
/// priority's): 64 slots, each a text's bytes as its key, by a hash of them (no two of the
/// changefreqs, nor of the priorities with one decimal, share a slot).
struct ShortTexts<T> {
    /// (the text's bytes, zero after its end; its length plus one, 0 in an empty slot;
    /// what `from_text` gave)
    slots: [(u64, u8, Checked<T>); 64],
}

impl<T: Copy> ShortTexts<T> {
    fn new() -> ShortTexts<T> {
        ShortTexts {
            slots: [(0, 0, None); 64],
        }
    }

    fn value(&mut self, rows: &Rows, value: Value, read: impl Fn(&str) -> Option<T>) -> Checked<T> {
        let Some(text) = rows.text_of(value).filter(|text| text.len() <= 8) else {
            return text_value(rows, value, read);
        };
        let mut word = [0u8; 8];
        word[..text.len()].copy_from_slice(text.as_bytes());
        let key = u64::from_le_bytes(word);
        let length = text.len() as u8 + 1;
        // the bytes folded first: texts that differ in one byte differ in the top bits
        let folded = key ^ (key >> 23) ^ (key >> 41);
        let at = (folded.wrapping_mul(0x9E37_79B9_7F4A_7C15) >> 58) as usize;
        let slot = &mut self.slots[at];
        if slot.0 != key || slot.1 != length {
            *slot = (key, length, from_text(text, read));
        }
        slot.2
    }
}

/// The last lastmod text read and what it gave: a source's rows share a few lastmods, so
/// most are read by one comparison.
#[derive(Default)]
struct LastmodMemo {
    text: String,
    checked: Option<Checked<Lastmod>>,
}

impl LastmodMemo {
    /// [`text_value`] of a lastmod.
    fn checked(&mut self, rows: &Rows, value: Value) -> Checked<Lastmod> {
        let Some(text) = rows.text_of(value) else {
            return text_value(rows, value, lastmod::parse);
        };
        match self.checked {
            Some(checked) if self.text == text => checked,
            _ => {
                self.text.clear();
                self.text.push_str(text);
                *self.checked.insert(from_text(text, lastmod::parse))
            }
        }
    }
}

/// A lastmod or changefreq as `render_rows` takes the Python value: None or a NaN absent,
/// text read by `read`, any other value refused.
fn text_value<T>(rows: &Rows, value: Value, read: impl Fn(&str) -> Option<T>) -> Checked<T> {
    match value {
        Value::Absent => Some(None),
        Value::Number(number) if number.is_nan() => Some(None),
        Value::Text(..) => from_text(rows.text_of(value)?, read),
        _ => None,
    }
}

#[pymethods]
impl SourceBatch {
    fn __len__(&self) -> usize {
        self.rows.values.len()
    }

    /// Rows and problems: none at the end of a source.
    fn count(&self) -> usize {
        self.rows.count()
    }

    /// The line of each row.
    fn lines(&self) -> Vec<u64> {
        self.rows.lines.clone()
    }

    /// The rows Python reads alone, by position among the rows: (row, its cells' bytes; a
    /// JSON line is one cell), in order, from `start` to `end`.
    fn long_rows<'py>(
        &self,
        py: Python<'py>,
        start: usize,
        end: usize,
    ) -> Vec<(usize, Vec<Bound<'py, PyBytes>>)> {
        let rows = &self.rows;
        let first = rows.long.partition_point(|(at, _)| *at < start);
        let long = rows.long[first..].iter().take_while(|(at, _)| *at < end);
        long.map(|&(at, of)| {
            let cell = |&(a, b): &(usize, usize)| PyBytes::new(py, &rows.raw[a..b]);
            (at, rows.long_cells(of).iter().map(cell).collect())
        })
        .collect()
    }

    /// The sections a `section` column or key names: (the names, each once; for each row, the
    /// place of its name in them plus one, 0 for none, as u32 bytes in native order); None
    /// when no row names one.
    fn sections<'py>(&self, py: Python<'py>) -> Option<(Vec<String>, Bound<'py, PyBytes>)> {
        let rows = &self.rows;
        if rows.sections.is_empty() {
            return None;
        }
        let mut names: Vec<String> = Vec::new();
        let mut codes = vec![0u32; rows.values.len()];
        for &(at, value) in &rows.sections {
            let name = rows.text_of(value).unwrap_or_default();
            let code = match names.iter().position(|known| known == name) {
                Some(found) => found,
                None => {
                    names.push(name.to_string());
                    names.len() - 1
                }
            };
            codes[at] = u32::try_from(code + 1).unwrap_or(u32::MAX);
        }
        let bytes: Vec<u8> = codes.iter().flat_map(|code| code.to_ne_bytes()).collect();
        Some((names, PyBytes::new(py, &bytes)))
    }

    /// The lines not used: (rows before it, its line, why), in order.
    fn problems(&self) -> Vec<(usize, u64, String)> {
        let problems = self.rows.problems.iter();
        problems
            .map(|p| (p.before, p.line, p.reason.clone()))
            .collect()
    }

    /// The rows as tuples of str or None (and from JSON Lines float, int or bool), for the
    /// checks row by row of the rows the core refuses: those at the positions `at` (in
    /// order), or all of them.
    #[pyo3(signature = (at = None))]
    fn rows<'py>(&self, py: Python<'py>, at: Option<Vec<usize>>) -> PyResult<Bound<'py, PyList>> {
        let rows = &self.rows;
        let value = |value: Value| -> Bound<'py, PyAny> {
            match value {
                Value::Absent => py.None().into_bound(py),
                Value::Number(number) => PyFloat::new(py, number).into_any(),
                Value::Integer(number) => number
                    .into_pyobject(py)
                    .map_or_else(|e| match e {}, |n| n.into_any()),
                Value::Bool(flag) => PyBool::new(py, flag).to_owned().into_any(),
                text => PyString::new(py, rows.text_of(text).unwrap_or_default()).into_any(),
            }
        };
        let tuple = |values: &[Value; 4]| PyTuple::new(py, values.map(value));
        let tuples = match at {
            None => rows
                .values
                .iter()
                .map(tuple)
                .collect::<PyResult<Vec<_>>>()?,
            Some(at) => {
                let picked = at.iter().filter_map(|&i| rows.values.get(i));
                picked.map(tuple).collect::<PyResult<Vec<_>>>()?
            }
        };
        PyList::new(py, tuples)
    }

    /// The rows rendered, with the checks of `render_rows` (locs under `prefix`, plain or
    /// IRIs made URIs; every value valid); a row that needs the long way is refused in its
    /// place (`RenderedRows.refused`). None when there are no rows. Rendered already when
    /// the reader read it after a batch rendered alike (`SourceReader.rows`).
    fn render(
        &self,
        py: Python<'_>,
        prefix: &str,
        max_length: usize,
        text: bool,
    ) -> Option<RenderedRows> {
        if self.rows.values.is_empty() {
            return None;
        }
        let key = RenderKey {
            prefix: prefix.to_owned(),
            max_length,
            text,
        };
        let done = lock(&self.ahead).take();
        if let Some((_, rendered)) = done.filter(|(done, _)| *done == key) {
            return Some(RenderedRows { rendered });
        }
        let rendered = py.detach(|| self.rendered(&key));
        let mut hint = lock(&self.hint);
        if hint.as_ref() != Some(&key) {
            *hint = Some(key);
        }
        Some(RenderedRows { rendered })
    }
}

/// The value behind `mutex`, even when a thread panicked holding it (the value is whole:
/// every writer replaces it at once).
fn lock<T>(mutex: &Mutex<T>) -> std::sync::MutexGuard<'_, T> {
    mutex
        .lock()
        .unwrap_or_else(std::sync::PoisonError::into_inner)
}

/// The rows of a batch rendered before its buffers are sized by them (`reserve_as_so_far`).
const SHAPE_ROWS: usize = 256;

impl SourceBatch {
    /// The rows rendered as `key` says (`render`), without the GIL.
    fn rendered(&self, key: &RenderKey) -> Rendered {
        let (prefix, max_length, text) = (key.prefix.as_str(), key.max_length, key.text);
        let rows = &self.rows;
        let mut memos = Memos::new();
        let mut rendered = Rendered::with_capacity(rows.values.len());
        rendered.reserve_text(rows.raw.len());
        let mut long = rows.long.iter().peekable();
        let mut scratch = Rows::default();
        let none = Extensions::default(); // a row's without extensions, made once
        for (index, values) in rows.values.iter().enumerate() {
            let checked = match long.next_if(|(at, _)| *at == index) {
                None => checked_row(rows, values, prefix, max_length, &mut memos)
                    .map(|(loc, values)| (loc, values, None)),
                Some(&(_, of)) => {
                    let columns = self.columns.as_ref().ok_or(self.long);
                    match long_entry(columns, rows, rows.long_cells(of), &mut scratch) {
                        // the row's values are checked as any row's; its extensions were
                        Some((values, extensions)) => {
                            let scratch = &scratch;
                            checked_row(scratch, &values, prefix, max_length, &mut memos)
                                .map(|(loc, values)| (loc, values, Some(extensions)))
                        }
                        None => Err(self.long),
                    }
                }
            };
            if index == SHAPE_ROWS {
                rendered.reserve_as_so_far(rows.values.len());
            }
            match checked {
                Ok((loc, values, extensions)) => {
                    let extensions = extensions.as_ref().unwrap_or(&none);
                    rendered.push_with(&loc, &values, text, extensions)
                }
                Err(why) => rendered.refuse(why),
            }
        }
        rendered
    }

    /// Render the batch now, as the reader's last batch was (nothing before the first
    /// `render`), so that `render` finds it done.
    fn render_ahead(self, py: Python<'_>) -> Self {
        let key = lock(&self.hint).clone();
        if let Some(key) = key.filter(|_| !self.rows.values.is_empty()) {
            let rendered = py.detach(|| self.rendered(&key));
            *lock(&self.ahead) = Some((key, rendered));
        }
        self
    }
}

#[derive(Clone, Copy)]
enum Format {
    Text,
    Table(delimited::Reader),
    JsonLines,
}

/// A source's bytes, fed a block at a time (`feed`, then `finish` at the end), parsed as
/// `format` ("text", "csv", "tsv" or "jsonl"). Each read returns None when it needs more
/// bytes; a UTF-8 byte order mark at the start is skipped when `bom` (a file's `utf-8-sig`).
#[pyclass(module = "urlset._core")]
pub struct SourceReader {
    format: Format,
    lone_cr: bool,
    data: Vec<u8>,
    pos: usize,
    eof: bool,
    bom: bool,
    line: u64,
    columns: Option<Columns>,
    record: Record,
    rows: Rows,
    hint: RenderHint,
}

impl SourceReader {
    /// Whether the start is settled (a byte order mark skipped); false while too few bytes came.
    fn started(&mut self) -> bool {
        if self.bom {
            if self.data.len() < BOM.len() && !self.eof && BOM.starts_with(&self.data) {
                return false;
            }
            if self.data.starts_with(BOM) {
                self.pos = BOM.len();
            }
            self.bom = false;
        }
        true
    }

    fn at_end(&self) -> bool {
        self.eof && self.pos >= self.data.len()
    }

    fn batch(&mut self) -> SourceBatch {
        let long = match self.format {
            Format::JsonLines => Refusal::JsonLine,
            _ => Refusal::Extensions,
        };
        let read_sections = self.rows.read_sections;
        let rows = std::mem::take(&mut self.rows);
        self.rows.read_sections = read_sections;
        // the next batch is about as large: its buffers made so at once, not grown by
        // doubling (every realloc copied what was read: ~7% of the reading thread)
        self.rows.text.reserve(rows.text.len());
        self.rows.values.reserve(rows.values.len());
        self.rows.lines.reserve(rows.lines.len());
        self.rows.raw.reserve(rows.raw.len());
        self.rows.long.reserve(rows.long.len());
        self.rows.cells.reserve(rows.cells.len());
        SourceBatch {
            rows,
            long,
            columns: self.columns.clone(),
            hint: Arc::clone(&self.hint),
            ahead: Mutex::new(None),
        }
    }
}

/// A record's cells: str each when it is UTF-8, else bytes for Python to decode.
fn cells<'py>(py: Python<'py>, record: &Record) -> PyResult<Bound<'py, PyList>> {
    let cells = (0..record.len()).map(|i| record.cell(i));
    if record.utf8 {
        let texts = cells.map(|cell| std::str::from_utf8(cell).unwrap_or_default());
        PyList::new(py, texts.map(|t| PyString::new(py, t)))
    } else {
        PyList::new(py, cells.map(|cell| PyBytes::new(py, cell)))
    }
}

/// A record as `SourceReader.records` gives it: (line, cells or None, why it is unreadable or None).
type RecordItem<'py> = (u64, Option<Bound<'py, PyList>>, Option<String>);

#[pymethods]
impl SourceReader {
    /// `field_limit`: the characters a CSV or TSV cell may hold (`csv.field_size_limit()`);
    /// `lone_cr`: a CR alone ends a line (a file's universal newlines; not an `io.StringIO`'s).
    #[new]
    #[pyo3(signature = (format, bom, field_limit = delimited::FIELD_LIMIT, lone_cr = true))]
    fn new(format: &str, bom: bool, field_limit: usize, lone_cr: bool) -> PyResult<Self> {
        let table = |delimiter| delimited::Reader {
            delimiter,
            field_limit,
            lone_cr,
        };
        let format = match format {
            "text" => Format::Text,
            "csv" => Format::Table(table(b',')),
            "tsv" => Format::Table(table(b'\t')),
            "jsonl" => Format::JsonLines,
            _ => return Err(PyValueError::new_err(format!("unknown format {format:?}"))),
        };
        Ok(SourceReader {
            format,
            lone_cr,
            data: Vec::new(),
            pos: 0,
            eof: false,
            bom,
            line: 0,
            columns: None,
            record: Record::default(),
            rows: Rows::default(),
            hint: RenderHint::default(),
        })
    }

    /// More bytes of the source.
    fn feed(&mut self, block: &[u8]) {
        if self.pos > 0 && self.pos * 2 >= self.data.len() {
            self.data.drain(..self.pos); // what was read goes, so memory holds a block or two
            self.pos = 0;
        }
        self.data.extend_from_slice(block);
    }

    /// The source has no more bytes.
    fn finish(&mut self) {
        self.eof = true;
    }

    /// A table's first record: (cells as bytes, None), (None, why it is unreadable), or
    /// (None, None) when the source is empty; None when more bytes are needed.
    #[allow(clippy::type_complexity)]
    fn header<'py>(
        &mut self,
        py: Python<'py>,
    ) -> PyResult<Option<(Option<Vec<Bound<'py, PyBytes>>>, Option<String>)>> {
        let Format::Table(reader) = self.format else {
            return Err(PyValueError::new_err("only a table has a header"));
        };
        if !self.started() {
            return Ok(None);
        }
        let step = reader.next(
            &self.data,
            &mut self.pos,
            self.eof,
            &mut self.line,
            &mut self.record,
        );
        Ok(match step {
            Step::More => None,
            Step::End => Some((None, None)),
            Step::Unreadable(_, reason) => Some((None, Some(reason))),
            Step::Record(_) => {
                let record = &self.record;
                let cells = (0..record.len()).map(|i| PyBytes::new(py, record.cell(i)));
                Some((Some(cells.collect()), None))
            }
        })
    }

    /// Where a table's core columns are (-1: not there), how many cells a record has, and
    /// where its extension columns are (a record with any of them not blank is a long row).
    /// `section`: where the `section` column is (`SourceBatch.sections`); `json`: the
    /// `extensions` column's place among them, when the table has it.
    #[pyo3(signature = (positions, width, extra = Vec::new(), section = None, json = None))]
    fn set_columns(
        &mut self,
        positions: [i64; 4],
        width: usize,
        extra: Vec<usize>,
        section: Option<usize>,
        json: Option<usize>,
    ) {
        self.columns = Some(Columns {
            positions: positions.map(|p| usize::try_from(p).ok()),
            width,
            extra,
            section,
            json,
        });
    }

    /// Read each JSON line's `section` key (`SourceBatch.sections`); without it, the key is
    /// unknown.
    fn read_sections(&mut self) {
        self.rows.read_sections = true;
    }

    /// The next batch of `max` rows (text: rows; a table of the core columns: rows and
    /// problems); an empty batch at the end; None when more bytes are needed.
    fn rows(&mut self, py: Python<'_>, max: usize) -> PyResult<Option<SourceBatch>> {
        if !self.started() {
            return Ok(None);
        }
        let (format, lone_cr) = (self.format, self.lone_cr);
        let columns = self.columns.clone();
        let Self {
            data,
            pos,
            eof,
            line,
            record,
            rows,
            ..
        } = self;
        let full = py
            .detach(|| match format {
                Format::Text => {
                    *pos = text::read(data, *pos, *eof, line, max, rows, lone_cr);
                    Ok(rows.values.len() >= max)
                }
                Format::Table(reader) => {
                    let Some(columns) = &columns else {
                        return Err("set_columns first");
                    };
                    *pos = delimited::read_rows(
                        &reader, columns, data, *pos, *eof, line, max, record, rows,
                    );
                    Ok(rows.count() >= max)
                }
                Format::JsonLines => Err("JSON Lines come a chunk at a time"),
            })
            .map_err(PyValueError::new_err)?;
        Ok((full || self.at_end()).then(|| self.batch().render_ahead(py)))
    }

    /// The next batch of `max` lines of JSON Lines (a line the core does not read is a long
    /// row, `SourceBatch.long_rows`); an empty batch at the end; None when more bytes are needed.
    fn json_chunk(&mut self, py: Python<'_>, max: usize) -> PyResult<Option<SourceBatch>> {
        if !matches!(self.format, Format::JsonLines) {
            return Err(PyValueError::new_err(
                "only JSON Lines come a chunk at a time",
            ));
        }
        if !self.started() {
            return Ok(None);
        }
        loop {
            let start = self.pos;
            let Self {
                data,
                eof,
                line,
                rows,
                ..
            } = self;
            let lone_cr = self.lone_cr;
            let chunk = py.detach(|| json_lines::read(data, start, *eof, line, max, rows, lone_cr));
            match chunk {
                json_lines::Chunk::More => return Ok(None),
                json_lines::Chunk::End => return Ok(Some(self.batch().render_ahead(py))),
                json_lines::Chunk::Rows(end) => {
                    self.pos = end;
                    if self.rows.count() > 0 {
                        return Ok(Some(self.batch().render_ahead(py)));
                    } // blank lines alone: read on
                }
            }
        }
    }

    /// The next records of a table, at most `max`: (line, cells, None) for a record (cells
    /// str when it is UTF-8, else bytes), (line, None, why) for a line `csv.reader` refuses;
    /// an empty list at the end; None when more bytes are needed.
    fn records<'py>(
        &mut self,
        py: Python<'py>,
        max: usize,
    ) -> PyResult<Option<Vec<RecordItem<'py>>>> {
        let Format::Table(reader) = self.format else {
            return Err(PyValueError::new_err("only a table has records"));
        };
        if !self.started() {
            return Ok(None);
        }
        let mut out = Vec::new();
        while out.len() < max {
            match reader.next(
                &self.data,
                &mut self.pos,
                self.eof,
                &mut self.line,
                &mut self.record,
            ) {
                Step::Record(line) => out.push((line, Some(cells(py, &self.record)?), None)),
                Step::Unreadable(line, reason) => out.push((line, None, Some(reason))),
                Step::More if out.is_empty() => return Ok(None),
                Step::More | Step::End => break,
            }
        }
        Ok(Some(out))
    }
}

pub fn register(module: &Bound<'_, PyModule>) -> PyResult<()> {
    module.add_class::<SourceReader>()?;
    module.add_class::<SourceBatch>()?;
    Ok(())
}
