//! The compiled lane's tokenizer on any bytes: it never panics, every span it gives lies in
//! the text, and reading goes on from where each call stopped as the Python driver does
//! (xml_compiled.py), always forward, to the end.
#![no_main]

use libfuzzer_sys::fuzz_target;
use urlset_core::read::records::{scan, scan_with_images, Kind, Limits, Stop, Value};
use urlset_core::read::values::value_text;
use urlset_core::values::lastmod::{judged_lastmod, plain_lastmod, Judgement};
use urlset_core::values::loc::plain_loc;
use urlset_core::values::scalars::{judged_changefreq, judged_priority};

fuzz_target!(|data: &[u8]| {
    let Some((&mode, text)) = data.split_first() else {
        return;
    };
    let limits = Limits {
        kind: if mode & 1 == 0 {
            Kind::Urlset
        } else {
            Kind::Index
        },
        max_records: usize::from(mode >> 4) + 1,
        max_value: if mode & 2 == 0 { 1 << 20 } else { 16 },
        max_judged: 0,
    };
    let end = text.len();
    let (mut pos, mut line, mut calls) = (0usize, 1u32, 0usize);
    while pos < end {
        calls += 1;
        assert!(calls <= end + 1, "no progress");
        // with the image prefix (mode bit 2): plain images read with their records
        let s = if mode & 4 == 0 {
            scan(text, pos, end, line, limits)
        } else {
            scan_with_images(text, (pos, end), line, limits, b"image")
        };
        assert!(s.pos >= pos && s.pos <= end && s.line >= line);
        assert!(s.records.len() <= limits.max_records);
        for r in &s.records {
            assert!(r.loc.0 <= r.loc.1 && r.loc.1 <= end);
            // (scan_with_images converts: a loc it made a URI of carries the URI)
            assert!(r.uri.is_some() || plain_loc(&text[r.loc.0..r.loc.1]).is_some());
            // plain, or judged as the reader judges it (invalid: none)
            let judged = |element| r.judged().iter().find(|v| v.element == element);
            match (judged(1), r.lastmod) {
                (None, Some((a, b))) => assert!(plain_lastmod(&text[a..b])),
                (None, None) => {}
                (Some(v), lastmod) => {
                    assert!(v.line >= r.line);
                    let expected = match judged_lastmod(&text[v.text.0..v.text.1]) {
                        Some(Judgement::Lenient(value)) => Some(value),
                        Some(Judgement::Invalid) => None,
                        None => panic!("a lastmod the core does not judge"),
                    };
                    assert_eq!(r.lastmod_value, expected);
                    assert_eq!(lastmod.is_some(), !v.invalid);
                }
            }
            if let Some(v) = judged(2) {
                let found = judged_changefreq(&text[v.text.0..v.text.1]);
                assert_eq!(found, Some(r.changefreq));
                assert_eq!(v.invalid, r.changefreq.is_none());
            }
            if let Some(v) = judged(3) {
                assert_eq!(judged_priority(&text[v.text.0..v.text.1]), Some(None));
                assert!(v.invalid && r.priority.is_none());
            }
            // values read stripped: each a span of the text with no whitespace around it
            for p in r.padded().iter() {
                assert!(p.line >= r.line && p.element < 4 && p.text.0 < p.text.1);
                let value = &text[p.text.0..p.text.1];
                assert!(
                    !value[0].is_ascii_whitespace()
                        && !value[value.len() - 1].is_ascii_whitespace()
                );
            }
            for image in r.images.iter().flat_map(|i| i.iter()) {
                assert!(image.loc.0 <= image.loc.1 && image.loc.1 <= end);
                assert!(plain_loc(&text[image.loc.0..image.loc.1]).is_some());
                // an image out of the schema's order: its start tag, a text child (caption 1,
                // geo_location 2, title 3) after one placed later
                if let Some(late) = image.late {
                    assert!(text[late.at..image.loc.0].starts_with(b"<image:image>"));
                    assert!(1 <= late.child && late.child < late.after && late.after <= 3);
                }
            }
        }
        (pos, line) = match s.stop {
            Stop::End if s.pos == pos && s.records.is_empty() => break,
            Stop::End => (s.pos, s.line),
            Stop::Gap { start, end: stop }
            | Stop::Extension {
                start, end: stop, ..
            } => {
                assert!(start == s.pos && start < stop && stop <= end);
                (stop, s.line)
            }
            Stop::Judged(run) => {
                assert!(!run.is_empty() && s.pos > pos);
                for j in &run {
                    for v in j.values.iter().flatten() {
                        if let Value::Text(t) = v {
                            assert!(t.line >= j.line && t.text.len() <= end);
                        }
                    }
                }
                (s.pos, s.line)
            }
        };
    }
    // the value checks alone, on the whole input
    let _ = plain_loc(text);
    let _ = plain_lastmod(text);
    let _ = judged_lastmod(text);
    let _ = value_text(text, 64);
});
