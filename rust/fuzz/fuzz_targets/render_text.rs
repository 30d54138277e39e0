//! A text sitemap's lines in the render lane on any bytes, driven as reading/text.py drives
//! them: a run into text and a run into Arrow columns stop at the same place, line and count
//! with the same locs made URIs of; after each stop the line there goes the reader's way
//! (its origin then known, its loc seen), always forward, to the end; one output line a
//! rendered line, and JSON Lines and CSV output that stays UTF-8.
#![no_main]

use libfuzzer_sys::fuzz_target;
use urlset_core::read::columns::Columns;
use urlset_core::read::render::{Format, Renderer, Seen};
use urlset_core::read::text::{columns_text_run, render_text_run};

fuzz_target!(|data: &[u8]| {
    let Some((&mode, text)) = data.split_first() else {
        return;
    };
    let format = [Format::JsonLines, Format::Csv, Format::Tsv, Format::Locs][usize::from(mode & 3)];
    let limits = (
        usize::from(mode >> 4) + 1,
        if mode & 4 == 0 { 1 << 20 } else { 24 },
    );
    let mut renderer = Renderer::new(format, b"\n");
    let (mut seen_text, mut seen_columns) = (Seen::default(), Seen::default());
    let (mut out, mut columns) = (Vec::new(), Columns::default());
    let (mut conversions_text, mut conversions_columns) = (Vec::new(), Vec::new());
    let end = text.len();
    let (mut pos, mut line, mut rendered, mut calls) = (0usize, 1u32, 0usize, 0usize);
    while pos < end {
        calls += 1;
        assert!(calls <= 3 * end + 3, "no progress");
        let r = render_text_run(
            text,
            (pos, end),
            line,
            limits,
            &mut renderer,
            &mut seen_text,
            (&mut out, &mut conversions_text),
        );
        let c = columns_text_run(
            text,
            (pos, end),
            line,
            limits,
            &mut seen_columns,
            (&mut columns, &mut conversions_columns),
        );
        assert_eq!(r, c);
        assert_eq!(conversions_text, conversions_columns);
        assert!(conversions_text.iter().all(|c| c.0 < r.count && c.2 != c.3));
        conversions_text.clear();
        conversions_columns.clear();
        assert!(r.pos >= pos && r.pos <= end && r.line >= line && r.count <= limits.0);
        rendered += r.count;
        if let Some((origin, _)) = &r.new_origin {
            // the reader judges the origin; the run goes on at the same line
            assert!(r.pos < end);
            seen_text.know(origin.as_bytes());
            seen_columns.know(origin.as_bytes());
            (pos, line) = (r.pos, r.line);
            continue;
        }
        if r.pos >= end {
            break;
        }
        if r.count == limits.0 && r.pos < end {
            (pos, line) = (r.pos, r.line);
            continue;
        }
        // the line there, the reader's way: its loc seen (a duplicate stays one)
        let next = text[r.pos..]
            .iter()
            .position(|&b| b == b'\n' || b == b'\r')
            .map_or(end, |i| r.pos + i + 1);
        let _ = seen_text.first_seen(&text[r.pos..next]);
        let _ = seen_columns.first_seen(&text[r.pos..next]);
        assert!(next > r.pos);
        (pos, line) = (next, r.line + 1);
    }
    assert_eq!(out.iter().filter(|&&b| b == b'\n').count(), rendered);
    assert_eq!(columns.len, rendered);
    if format != Format::Locs {
        assert!(std::str::from_utf8(&out).is_ok());
    }
});
