//! Times the render lane alone on an uncompressed urlset whose root binds the image, video,
//! news and XHTML namespaces to their usual prefixes and `other` to the element of another
//! namespace of bench/read_shapes.py's mix:
//! `cargo run --release --example render_file -- FILE [jsonl|arrow]`. For instruction
//! counts under callgrind, build with `CARGO_PROFILE_RELEASE_DEBUG=line-tables-only`.
use std::time::Instant;

use urlset_core::read::columns::Columns;
use urlset_core::read::media::Prefixes;
use urlset_core::read::raw::RootScope;
use urlset_core::read::records::{Kind, Limits};
use urlset_core::read::render::{columns_run, render_run, Conversions, Format, Renderer, Seen};

/// The reader's gzip piece (urlset.reading.sniff.GZIP_PIECE).
const PIECE: usize = 262_144;

fn main() {
    let path = std::env::args().nth(1).expect("a file");
    let arrow = std::env::args().nth(2).as_deref() == Some("arrow");
    let data = std::fs::read(path).expect("readable");
    let start = data
        .windows(8)
        .position(|w| w == b"<urlset ")
        .and_then(|i| data[i..].iter().position(|&b| b == b'>').map(|j| i + j + 1))
        .expect("a urlset");
    let end = data
        .windows(6)
        .rposition(|w| w == b"</url>")
        .expect("records")
        + 6;
    let prefixes = Prefixes {
        image: Some(b"image".to_vec()),
        video: Some(b"video".to_vec()),
        news: Some(b"news".to_vec()),
        xhtml: Some(b"xhtml".to_vec()),
        scope: RootScope {
            // the mix's element of another namespace, reported once by the reader and from
            // then on read by the core
            bindings: vec![(b"other".to_vec(), "https://other.example/ns".to_owned())],
            levels: 30,
            strays: vec![("https://other.example/ns".to_owned(), "rating".to_owned())],
            raw_strays: !arrow,
        },
    };
    for _ in 0..3 {
        let t = Instant::now();
        let mut seen = Seen::default();
        let mut renderer =
            Renderer::new(Format::JsonLines, b"}\n").with_extensions(prefixes.clone());
        let mut columns = Columns::default();
        let mut conversions = Conversions::default();
        let (mut pos, mut line, mut records, mut out_bytes) = (start, 1, 0, 0);
        // a run stops at each new origin or entry the reader must see: known, then on
        let mut out = Vec::new();
        while pos < end {
            // a piece as the reader hands it over: 256 KiB, up to its last entry end tag
            let cut = (pos + PIECE).min(end);
            let stop = data[pos..cut]
                .windows(6)
                .rposition(|w| w == b"</url>")
                .map_or(end, |i| pos + i + 6);
            let limits = Limits {
                kind: Kind::Urlset,
                max_records: usize::MAX,
                max_value: 1 << 20,
                max_judged: 0,
            };
            let done = if arrow {
                columns_run(
                    &data,
                    (pos, stop),
                    line,
                    (limits, Some(&prefixes)),
                    &mut seen,
                    &mut columns,
                    &mut conversions,
                )
            } else {
                out.clear();
                let done = render_run(
                    &data,
                    (pos, stop),
                    line,
                    limits,
                    &mut renderer,
                    &mut seen,
                    &mut out,
                    &mut conversions,
                );
                out_bytes += out.len();
                done
            };
            records += done.count;
            if done.pos == pos && done.count == 0 {
                // the next entry is not the run's: know its origin, or step past it
                let next = data[pos + 1..end]
                    .windows(6)
                    .position(|w| w == b"</url>")
                    .map_or(end, |i| pos + 1 + i + 6);
                let text = &data[pos..next];
                if let Some(at) = text
                    .windows(8)
                    .position(|w| w == b"https://" || w[..7] == *b"http://")
                {
                    let rest = &text[at..];
                    let slash = rest[8..]
                        .iter()
                        .position(|&b| b == b'/')
                        .map_or(rest.len(), |i| i + 9);
                    seen.know(&rest[..slash]);
                    if done.count == 0 && !seen_once(&mut seen, pos) {
                        pos = next;
                    }
                } else {
                    pos = next;
                }
                continue;
            }
            (pos, line) = (done.pos, done.line);
        }
        println!(
            "{records} records, {out_bytes} bytes out, {:?}, {:.1} ns/record, {:.0} MB/s",
            t.elapsed(),
            t.elapsed().as_nanos() as f64 / records.max(1) as f64,
            (end - start) as f64 / t.elapsed().as_secs_f64() / 1e6
        );
    }
}

/// Whether the entry at `pos` was met already (a second stop there steps past it).
fn seen_once(seen: &mut Seen, pos: usize) -> bool {
    seen.first_seen(&pos.to_ne_bytes())
}
