//! Times the tokenizer alone on a file: `cargo run --release --example scan_file -- FILE`.
use std::time::Instant;

use urlset_core::read::records::{scan, Kind, Limits};

fn main() {
    let path = std::env::args().nth(1).expect("a file");
    let data = std::fs::read(path).expect("readable");
    let start = data
        .windows(8)
        .position(|w| w == b"<urlset ")
        .and_then(|i| data[i..].iter().position(|&b| b == b'>').map(|j| i + j + 1))
        .expect("a urlset");
    let limits = Limits {
        kind: Kind::Urlset,
        max_records: usize::MAX,
        max_value: 1 << 20,
        max_judged: 0,
    };
    let end = data
        .windows(6)
        .rposition(|w| w == b"</url>")
        .expect("records")
        + 6;
    for _ in 0..5 {
        let t = Instant::now();
        let s = scan(&data, start, end, 1, limits);
        println!(
            "{} records, {:?}, {:.1} ns/record",
            s.records.len(),
            t.elapsed(),
            t.elapsed().as_nanos() as f64 / s.records.len() as f64
        );
    }
}
