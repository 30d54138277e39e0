//! The gzip inflater ahead on a thread against the inline one, on any bytes as a gzip stream
//! (the corpus's .gz files among the seeds, mutated): the same output, error, `complete` and
//! `trailing` however the stream is pushed, and nothing past a piece's bound.
#![no_main]

use libfuzzer_sys::fuzz_target;
use urlset_core::read::gzip::Corrupt;
use urlset_core::read::gzip_ahead::Inflater;

type Outcome = (Vec<u8>, Option<Corrupt>, bool, bool);

fn inflate(stream: &[u8], chunk: usize, piece: usize, thread_from: usize) -> Outcome {
    let mut g = Inflater::new(piece, thread_from);
    let mut out = Vec::new();
    for part in stream.chunks(chunk) {
        g.push(part);
        loop {
            match g.next_piece() {
                Ok(Some(p)) => {
                    assert!(!p.is_empty() && p.len() <= piece);
                    out.extend_from_slice(p);
                    // a bomb: stop taking pieces (the worker must not run on unbounded)
                    if out.len() > 64 << 20 {
                        return (out, None, false, false);
                    }
                }
                Ok(None) => break,
                Err(e) => return (out, Some(e), g.complete(), g.trailing()),
            }
        }
    }
    (out, None, g.complete(), g.trailing())
}

fuzz_target!(|data: &[u8]| {
    let Some((&mode, stream)) = data.split_first() else {
        return;
    };
    let chunk = 1 + usize::from(mode & 0x0f) * 4099;
    let piece = if mode & 0x10 == 0 { 65_536 } else { 262_144 };
    let thread_from = usize::from(mode >> 5) * 1024;
    assert_eq!(
        inflate(stream, chunk, piece, usize::MAX),
        inflate(stream, chunk, piece, thread_from)
    );
});
