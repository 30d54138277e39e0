//! Build inputs (`urlset build FILE`) parsed a block of bytes at a time, as Python's readers
//! read them (`urlset.writing.sources`): lines end at LF, CRLF or a lone CR (universal
//! newlines), cells are stripped of what `str.strip` strips, and each row keeps its line.
//! A batch of the core columns becomes `Rows` (texts in one buffer, no object per row).
pub mod delimited;
pub mod json_lines;
pub mod lines;
pub mod text;

/// One value of a row: absent (Python's None), a range of `Rows::text`, or a JSON scalar as
/// Python's `json` gives it (float, int, bool).
#[derive(Clone, Copy, Debug, PartialEq)]
pub enum Value {
    Absent,
    Text(usize, usize),
    Number(f64),
    Integer(i64),
    Bool(bool),
}

/// A line the source could not use: the rows of the batch before it, its line, and why.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Problem {
    pub before: usize,
    pub line: u64,
    pub reason: String,
}

/// A batch of (loc, lastmod, changefreq, priority) rows with the line of each, and the lines
/// that could not be read, in order. A row the core does not read itself (a table's row with
/// extension cells, a JSON line other than an object of the core keys with scalar values)
/// keeps its place among the rows, absent values, and its raw cells in `long`, for Python
/// to read on its own.
#[derive(Debug, Default)]
pub struct Rows {
    pub text: String,
    pub values: Vec<[Value; 4]>,
    pub lines: Vec<u64>,
    pub problems: Vec<Problem>,
    /// the rows read the long way: (row, where its cells are in `cells`), by row
    pub long: Vec<(usize, (usize, usize))>,
    /// the cells of the rows read the long way, one row's after another: ranges of `raw`
    /// (in one vector, not one a row: a file with an extension column has one such row a
    /// line)
    pub cells: Vec<(usize, usize)>,
    pub raw: Vec<u8>,
    /// whether a `section` column or key is read (`urlset build --section-by column:section`)
    pub read_sections: bool,
    /// the section of each row that names one: (row, its text), by row
    pub sections: Vec<(usize, Value)>,
}

impl Rows {
    /// Keep `text` in the buffer and give its value.
    pub fn keep(&mut self, text: &str) -> Value {
        let start = self.text.len();
        self.text.push_str(text);
        Value::Text(start, self.text.len())
    }

    pub fn push(&mut self, line: u64, values: [Value; 4]) {
        self.values.push(values);
        self.lines.push(line);
    }

    /// The next row's section (kept only when not blank).
    pub fn section(&mut self, text: &str) {
        if !text.is_empty() {
            let value = self.keep(text);
            self.sections.push((self.values.len(), value));
        }
    }

    pub fn problem(&mut self, line: u64, reason: String) {
        self.problems.push(Problem {
            before: self.values.len(),
            line,
            reason,
        });
    }

    /// A row for Python to read: its cells' bytes as the source has them.
    pub fn push_long<'a>(&mut self, line: u64, cells: impl Iterator<Item = &'a [u8]>) {
        let first = self.cells.len();
        for cell in cells {
            let start = self.raw.len();
            self.raw.extend_from_slice(cell);
            self.cells.push((start, self.raw.len()));
        }
        self.long
            .push((self.values.len(), (first, self.cells.len())));
        self.push(line, [Value::Absent; 4]);
    }

    /// The cells' ranges in `raw` of a row read the long way (`long`'s second).
    pub fn long_cells(&self, of: (usize, usize)) -> &[(usize, usize)] {
        &self.cells[of.0..of.1]
    }

    /// The text of a value (None when absent or a number).
    pub fn text_of(&self, value: Value) -> Option<&str> {
        match value {
            Value::Text(start, end) => Some(&self.text[start..end]),
            _ => None,
        }
    }

    /// Rows and problems together: what a batch is counted in.
    pub fn count(&self) -> usize {
        self.values.len() + self.problems.len()
    }

    pub fn clear(&mut self) {
        self.text.clear();
        self.values.clear();
        self.lines.clear();
        self.problems.clear();
        self.long.clear();
        self.cells.clear();
        self.raw.clear();
        self.sections.clear();
    }
}

/// Why a line or row is left out when its bytes are not UTF-8.
pub const NOT_UTF8: &str = "not valid UTF-8";
