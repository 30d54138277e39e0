//! The build inputs' scanners (urlset-core `sources`) against the `csv` crate and `serde_json`
//! doing the same work: a file's bytes to rows of the four core columns, stripped, with their
//! lines (ARCHITECTURE.md, "Build inputs"). Not part of the workspace in rust/.
//!
//!     cargo build --release
//!     target/release/crates-sources own-csv|crate-csv|own-json|serde-json FILE [ROUNDS]
//!
//! prints the best time of ROUNDS (5); under `valgrind --tool=callgrind` with ROUNDS 1, the
//! instructions.
use std::time::Instant;
use urlset_core::sources::delimited::{read_rows, Columns, Reader, Record};
use urlset_core::sources::lines::strip;
use urlset_core::sources::{json_lines, Rows, Value};

fn own_csv(data: &[u8]) -> usize {
    let reader = Reader::new(b',');
    let (mut pos, mut line, mut record) = (0, 0, Record::default());
    // header
    let _ = reader.next(data, &mut pos, true, &mut line, &mut record);
    let columns = Columns {
        positions: [Some(0), Some(1), Some(2), Some(3)],
        width: 4,
    };
    let mut total = 0;
    let mut rows = Rows::default();
    loop {
        rows.clear();
        pos = read_rows(
            &reader,
            &columns,
            data,
            pos,
            true,
            &mut line,
            4096,
            &mut record,
            &mut rows,
        );
        if rows.count() == 0 {
            return total;
        }
        total += rows.values.len();
    }
}

fn crate_csv(data: &[u8]) -> usize {
    let mut reader = csv::ReaderBuilder::new()
        .has_headers(true)
        .flexible(true)
        .from_reader(data);
    let mut record = csv::ByteRecord::new();
    let mut rows = Rows::default();
    let mut total = 0;
    while reader.read_byte_record(&mut record).unwrap() {
        let line = record.position().map_or(0, |p| p.line());
        let mut values = [Value::Absent; 4];
        for (i, v) in values.iter_mut().enumerate() {
            let text = strip(std::str::from_utf8(&record[i]).unwrap());
            if !text.is_empty() {
                *v = rows.keep(text);
            }
        }
        rows.push(line, values);
        if rows.values.len() == 4096 {
            total += rows.values.len();
            rows.clear();
        }
    }
    total + rows.values.len()
}

fn own_json(data: &[u8]) -> usize {
    let (mut pos, mut line, mut rows, mut total) = (0, 0, Rows::default(), 0);
    loop {
        rows.clear();
        match json_lines::read(data, pos, true, &mut line, 4096, &mut rows, true) {
            json_lines::Chunk::Rows(end) => {
                pos = end;
                total += rows.values.len();
            }
            json_lines::Chunk::Lines(_) => panic!("not plain"),
            _ => return total,
        }
    }
}

fn serde_json_lines(data: &[u8]) -> usize {
    let mut rows = Rows::default();
    let mut total = 0;
    for (number, line) in data.split(|&b| b == b'\n').enumerate() {
        if line.is_empty() {
            continue;
        }
        let map: serde_json::Map<String, serde_json::Value> = serde_json::from_slice(line).unwrap();
        let mut values = [Value::Absent; 4];
        for (i, key) in ["loc", "lastmod", "changefreq", "priority"]
            .iter()
            .enumerate()
        {
            match map.get(*key) {
                Some(serde_json::Value::String(s)) if !s.is_empty() || i == 0 => {
                    values[i] = rows.keep(s)
                }
                Some(serde_json::Value::Number(n)) => {
                    values[i] = Value::Number(n.as_f64().unwrap())
                }
                _ => {}
            }
        }
        rows.push(number as u64 + 1, values);
        if rows.values.len() == 4096 {
            total += rows.values.len();
            rows.clear();
        }
    }
    total + rows.values.len()
}

fn main() {
    let args: Vec<String> = std::env::args().collect();
    let data = std::fs::read(&args[2]).unwrap();
    let rounds: usize = args.get(3).map_or(5, |r| r.parse().unwrap());
    let run: fn(&[u8]) -> usize = match args[1].as_str() {
        "own-csv" => own_csv,
        "crate-csv" => crate_csv,
        "own-json" => own_json,
        "serde-json" => serde_json_lines,
        _ => panic!(),
    };
    let mut best = f64::MAX;
    let mut n = 0;
    for _ in 0..rounds {
        let start = Instant::now();
        n = run(&data);
        best = best.min(start.elapsed().as_secs_f64());
    }
    println!(
        "{} {}: {} rows, best {:.3} s, {:.0} ns/row",
        args[1],
        args[2],
        n,
        best,
        best * 1e9 / n as f64
    );
}
