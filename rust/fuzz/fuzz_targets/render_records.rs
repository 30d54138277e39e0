//! The render lane on any bytes, driven as reading/rendered.py drives it: a run into text and
//! a run into Arrow columns stop at the same place with the same count, every rendered
//! record is one output line, and after each stop one entry goes the usual way (its origin
//! then known, its loc seen), always forward, to the end. Both runs hand back the same locs
//! made URIs of, in order, each differing from its text (the text run lists up to two, and
//! counts the rest). With the image prefix (a mode bit),
//! both take records with plain images too: as many `images` keys in JSON Lines as extension
//! texts in the columns, and text output that stays UTF-8. With the index bit, a sitemap
//! index's records the same way (no image is read there).
#![no_main]

use libfuzzer_sys::fuzz_target;
use urlset_core::read::columns::Columns;
use urlset_core::read::media::Prefixes;
use urlset_core::read::records::{scan_converting, scan_with_images, Kind, Limits, Scan, Stop};
use urlset_core::read::render::{columns_run, render_run, Conversions, Format, Renderer, Seen};

fuzz_target!(|data: &[u8]| {
    let Some((&mode, text)) = data.split_first() else {
        return;
    };
    let format = [Format::JsonLines, Format::Csv, Format::Tsv, Format::Locs][usize::from(mode & 3)];
    let kind = if mode & 0x80 != 0 {
        Kind::Index
    } else {
        Kind::Urlset
    };
    let limits = Limits {
        kind,
        max_records: usize::from((mode >> 4) & 7) + 1,
        max_value: if mode & 4 == 0 { 1 << 20 } else { 16 },
        max_judged: 0,
    };
    let end = text.len();
    let prefix: Option<&[u8]> = if mode & 8 != 0 { Some(b"image") } else { None };
    let prefixes = prefix.map(Prefixes::images);
    let mut renderer = Renderer::new(format, b"\n").with_kind(kind);
    if let Some(prefix) = prefix {
        renderer = renderer.with_images(prefix);
    }
    let (mut seen_text, mut seen_columns) = (Seen::default(), Seen::default());
    let (mut out, mut columns) = (Vec::new(), Columns::default());
    let mut conversions_columns = Conversions::default();
    let (mut pos, mut line, mut calls, mut rendered) = (0usize, 1u32, 0usize, 0usize);
    while pos < end {
        calls += 1;
        assert!(calls <= 2 * end + 2, "no progress");
        let mut conversions_text = Conversions::listing(calls % 3);
        let r = render_run(
            text,
            (pos, end),
            line,
            limits,
            &mut renderer,
            &mut seen_text,
            &mut out,
            &mut conversions_text,
        );
        let c = columns_run(
            text,
            (pos, end),
            line,
            (limits, prefixes.as_ref()),
            &mut seen_columns,
            &mut columns,
            &mut conversions_columns,
        );
        assert_eq!((r.pos, r.line, r.count), (c.pos, c.line, c.count));
        let all = std::mem::take(&mut conversions_columns).listed;
        let listed = all.len().min(calls % 3);
        assert_eq!(conversions_text.listed, all[..listed]);
        assert_eq!(conversions_text.more, all.len() - listed);
        assert!(all.windows(2).all(|w| w[0].0 < w[1].0));
        assert!(all.iter().all(|c| c.0 < r.count && c.2 != c.3));
        assert!(r.made || all.is_empty());
        assert!(r.pos >= pos && r.pos <= end && r.line >= line && r.count <= limits.max_records);
        rendered += r.count;
        (pos, line) = (r.pos, r.line);
        if pos >= end {
            break;
        }
        let s = match prefix {
            Some(prefix) => scan_with_images(text, (pos, end), line, one(limits), prefix),
            None => scan_converting(text, pos, end, line, one(limits)),
        };
        match usual_way(text, pos, &s, &mut [&mut seen_text, &mut seen_columns]) {
            Some(next) => (pos, line) = next,
            None => break,
        }
    }
    let lines = out.iter().filter(|&&b| b == b'\n').count();
    assert_eq!(lines, rendered);
    assert_eq!(columns.len, rendered);
    let with_images = rendered - columns.extensions.validity.nulls;
    assert!(prefix.is_some() || with_images == 0);
    if format == Format::JsonLines {
        // a text's quotes are escaped, so the key's `"images":[` is the only one a line
        let keys = out.windows(10).filter(|w| w == b"\"images\":[").count();
        assert_eq!(keys, with_images);
    }
    if format != Format::Locs {
        assert!(std::str::from_utf8(&out).is_ok());
    }
});

fn one(limits: Limits) -> Limits {
    Limits {
        max_records: 1,
        ..limits
    }
}

/// One entry the usual way (its origin then known, its loc seen): where reading goes on, or
/// None at the end.
fn usual_way(text: &[u8], pos: usize, s: &Scan, seens: &mut [&mut Seen]) -> Option<(usize, u32)> {
    if let Some(record) = s.records.first() {
        let raw = &text[record.loc.0..record.loc.1];
        let loc = match &record.uri {
            Some(c) => c.uri.clone(),
            None => String::from_utf8_lossy(raw).replace("&amp;", "&"),
        };
        let origin = match &record.uri {
            Some(c) => &c.uri.as_bytes()[..record.origin_len],
            None => &raw[..record.origin_len],
        };
        for seen in seens.iter_mut() {
            seen.know(origin);
            let _ = seen.first_seen(loc.as_bytes());
        }
        assert!(s.pos > pos);
        return Some((s.pos, s.line));
    }
    match s.stop {
        Stop::End => None,
        Stop::Gap { end: stop, .. } | Stop::Extension { end: stop, .. } => Some((stop, s.line)),
        Stop::Judged(_) => Some((s.pos, s.line)),
    }
}
