//! The build inputs' readers (text, CSV/TSV records, JSON Lines chunks) on any bytes: no panic,
//! and the same rows, records, problems and lines whether the bytes come whole or in two
//! blocks (the second arriving when the first runs out), as Python feeds them.
#![no_main]

use libfuzzer_sys::fuzz_target;
use urlset_core::sources::delimited::{Reader, Record, Step};
use urlset_core::sources::{json_lines, text, Rows};

/// Every row and problem of `rows` as text, in order; `rows` emptied.
fn drained(rows: &mut Rows, out: &mut Vec<String>) {
    let mut problems = rows.problems.iter().peekable();
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
    }
    out.extend(problems.map(|p| format!("{} {}", p.line, p.reason)));
    for (at, cells) in &rows.long {
        let cells: Vec<_> = cells.iter().map(|&(a, b)| &rows.raw[a..b]).collect();
        out.push(format!("long {} {cells:?}", rows.lines[*at]));
    }
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
});
