//! The build inputs' readers (text, CSV/TSV records, JSON Lines chunks) on any bytes: no panic,
//! and the same rows, records, problems and lines whether the bytes come whole or in two
//! blocks (the second arriving when the first runs out), as Python feeds them; a table's rows
//! (`read_rows`, which cuts a plain line at its delimiters at once) the same as when every line
//! goes through the states (`read_rows_by_states`).
#![no_main]

use libfuzzer_sys::fuzz_target;
use urlset_core::sources::delimited::{
    read_rows, read_rows_by_states, Columns, Reader, Record, Step,
};
use urlset_core::sources::{json_lines, text, Rows};

/// Every row (a long one with its cells) and problem of `rows` as text, in order; `rows`
/// emptied.
fn drained(rows: &mut Rows, out: &mut Vec<String>) {
    let mut problems = rows.problems.iter().peekable();
    let mut long = rows.long.iter().peekable();
    for (index, (values, line)) in rows.values.iter().zip(&rows.lines).enumerate() {
        while let Some(p) = problems.next_if(|p| p.before == index) {
            out.push(format!("{} {}", p.line, p.reason));
        }
        let texts: Vec<_> = values
            .iter()
            .map(|&v| match rows.text_of(v) {
                Some(text) => format!("{text:?}"),
                None => format!("{v:?}"),
            })
            .collect();
        out.push(format!("{line} {texts:?}"));
        if let Some(&(_, of)) = long.next_if(|(at, _)| *at == index) {
            let cells = rows.long_cells(of).iter();
            let cells: Vec<_> = cells.map(|&(a, b)| &rows.raw[a..b]).collect();
            out.push(format!("long {cells:?}"));
        }
    }
    out.extend(problems.map(|p| format!("{} {}", p.line, p.reason)));
    assert!(long.next().is_none(), "a long row is one of the rows");
    rows.clear();
}

fn read(data: &[u8], first: usize, format: u8, max: usize, lone_cr: bool) -> Vec<String> {
    let (mut available, mut pos, mut line) = (first, 0, 0);
    let (mut rows, mut record, mut out) = (Rows::default(), Record::default(), Vec::new());
    let mut reader = Reader::new(if format == 1 { b',' } else { b'\t' });
    reader.lone_cr = lone_cr;
    loop {
        let eof = available == data.len();
        let bytes = &data[..available];
        let more = match format {
            0 => {
                pos = text::read(bytes, pos, eof, &mut line, max, &mut rows, lone_cr);
                let full = rows.values.len() >= max;
                drained(&mut rows, &mut out);
                !full
            }
            1 | 2 => match reader.next(bytes, &mut pos, eof, &mut line, &mut record) {
                Step::Record(number) => {
                    let cells: Vec<_> = (0..record.len()).map(|i| record.cell(i)).collect();
                    out.push(format!("{number} {} {cells:?}", record.utf8));
                    false
                }
                Step::Unreadable(number, reason) => {
                    out.push(format!("{number} {reason}"));
                    false
                }
                Step::More | Step::End => true,
            },
            _ => match json_lines::read(bytes, pos, eof, &mut line, max, &mut rows, lone_cr) {
                json_lines::Chunk::Rows(end) => {
                    pos = end;
                    drained(&mut rows, &mut out);
                    false
                }
                json_lines::Chunk::More | json_lines::Chunk::End => true,
            },
        };
        if more {
            if eof {
                return out;
            }
            available = data.len();
        }
    }
}

/// A table's rows (loc, lastmod, priority; the third an extension column when `extra`) as
/// `read_rows` gives them (`plain`) or as the states alone read them, the bytes in two blocks.
fn table(
    data: &[u8],
    first: usize,
    reader: &Reader,
    max: usize,
    extra: bool,
    plain: bool,
) -> Vec<String> {
    let columns = Columns {
        positions: [Some(0), Some(1), None, Some(2)],
        width: 3,
        extra: if extra { vec![2] } else { vec![] },
        section: None,
        json: None,
    };
    let (mut available, mut pos, mut line) = (first, 0, 0);
    let (mut rows, mut record, mut out) = (Rows::default(), Record::default(), Vec::new());
    let read = if plain {
        read_rows
    } else {
        read_rows_by_states
    };
    loop {
        let eof = available == data.len();
        let bytes = &data[..available];
        pos = read(
            reader,
            &columns,
            bytes,
            pos,
            eof,
            &mut line,
            max,
            &mut record,
            &mut rows,
        );
        let full = rows.count() >= max;
        drained(&mut rows, &mut out);
        if !full {
            if eof {
                out.push(format!("end {pos} line {line}"));
                return out;
            }
            available = data.len();
        }
    }
}

fuzz_target!(|input: &[u8]| {
    let Some((&choice, data)) = input.split_first() else {
        return;
    };
    let format = choice % 4;
    let max = usize::from(choice / 4 % 5) + 1;
    let lone_cr = choice / 4 % 2 == 0;
    let cut = usize::from(choice) * data.len() / 255;
    let whole = read(data, data.len(), format, max, lone_cr);
    assert_eq!(whole, read(data, cut, format, max, lone_cr));
    if format == 1 || format == 2 {
        let mut reader = Reader::new(if format == 1 { b',' } else { b'\t' });
        reader.lone_cr = lone_cr;
        let extra = choice / 40 % 2 == 1;
        let rows = table(data, data.len(), &reader, max, extra, true);
        assert_eq!(rows, table(data, cut, &reader, max, extra, false));
    }
});
