//! Gzip inflated ahead of its reader on a second thread: [`Inflater`] gives the pieces
//! [`Gunzip`] gives, in the same order with the same errors, but once a stream is large
//! enough to pay for a thread, a worker inflates the next pieces while the caller reads the
//! last one (the reader tokenizes a piece in about five times the time it takes to inflate).
//!
//! The worker owns the [`Gunzip`] and runs at most [`AHEAD`] pieces ahead of the caller
//! (a bounded channel), so a decompression bomb costs at most that many pieces past the
//! caller's size limit; it inflates only input pushed to it, and ends when the caller's
//! [`Inflater`] is dropped (its channels close). Input pushed before the move is decoded
//! by the worker from where the caller left it.

use std::sync::mpsc::{channel, sync_channel, Receiver, Sender, SyncSender};
use std::sync::{Mutex, OnceLock};

use super::gzip::{Corrupt, Gunzip};

/// Compressed bytes pushed in all from which inflation moves to its own thread (about a
/// megabyte of XML at sitemaps' usual ratio of 15-20): a thread costs some tens of
/// microseconds to start, as much as inflating a few hundred kilobytes.
pub const THREAD_FROM: usize = 65_536;
/// Pieces the worker may have made that the caller has not taken yet.
const AHEAD: usize = 2;

/// What the worker sends back, in stream order.
enum Made {
    Piece(Vec<u8>),
    /// All input pushed so far is decoded (the state of the stream then).
    Drained {
        complete: bool,
        trailing: bool,
    },
    /// The stream is damaged; nothing follows.
    Failed(Corrupt),
}

/// The caller's side of a worker.
struct Ahead {
    input: Sender<Vec<u8>>,
    /// Pieces the caller is done with, for the worker to fill again (no fresh pages).
    spent: Sender<Vec<u8>>,
    /// In a mutex only to be `Sync` (one caller at a time uses it).
    made: Mutex<Receiver<Made>>,
    /// Input pushes the worker has not yet reported decoded.
    pending: usize,
    piece: Vec<u8>,
    failed: Option<Corrupt>,
    complete: bool,
    trailing: bool,
    /// Never joined (a caller that goes does not wait): the tests see it end.
    #[cfg_attr(not(test), allow(dead_code))]
    worker: std::thread::JoinHandle<()>,
}

enum Mode {
    Inline(Box<Gunzip>),
    Ahead(Ahead),
}

/// Incremental gzip inflation in pieces of at most `piece` bytes, inline at first, on a
/// worker thread from `thread_from` compressed bytes on.
pub struct Inflater {
    mode: Mode,
    piece: usize,
    thread_from: usize,
    pushed: usize,
}

/// [`THREAD_FROM`] where a second core can run the worker, else never.
pub fn default_thread_from() -> usize {
    static CORES: OnceLock<usize> = OnceLock::new();
    let cores = *CORES.get_or_init(|| std::thread::available_parallelism().map_or(1, |n| n.get()));
    if cores > 1 {
        THREAD_FROM
    } else {
        usize::MAX
    }
}

impl Inflater {
    pub fn new(piece: usize, thread_from: usize) -> Self {
        Inflater {
            mode: Mode::Inline(Box::default()),
            piece: piece.max(1),
            thread_from,
            pushed: 0,
        }
    }

    /// Whether a worker thread inflates the stream now.
    pub fn threaded(&self) -> bool {
        matches!(self.mode, Mode::Ahead(_))
    }

    /// Take `data` in; it is decoded by the next pieces asked for (or ahead of them).
    pub fn push(&mut self, data: &[u8]) {
        self.pushed = self.pushed.saturating_add(data.len());
        match &mut self.mode {
            Mode::Inline(g) => {
                g.push(data);
                if self.pushed >= self.thread_from && !g.failed() {
                    self.move_to_worker();
                }
            }
            Mode::Ahead(a) => {
                if a.failed.is_none() {
                    // a worker that stopped shows as a closed channel in `next_piece`
                    let _ = a.input.send(data.to_vec());
                    a.pending += 1;
                }
            }
        }
    }

    /// As [`Gunzip::next_piece`]: the next piece, None when more input is needed, the error
    /// after the output before the damage. Threaded, it waits for the worker's piece.
    pub fn next_piece(&mut self) -> Result<Option<&[u8]>, Corrupt> {
        match &mut self.mode {
            Mode::Inline(g) => g.next_piece(self.piece),
            Mode::Ahead(a) => a.next_piece(),
        }
    }

    /// Whether the last member ended and no partial member follows; threaded, as of the
    /// last time all input pushed was decoded (false while pieces are still to be taken).
    pub fn complete(&self) -> bool {
        match &self.mode {
            Mode::Inline(g) => g.complete(),
            Mode::Ahead(a) => a.pending == 0 && a.complete,
        }
    }

    /// Whether bytes other than zero padding follow the last member (as `complete`).
    pub fn trailing(&self) -> bool {
        match &self.mode {
            Mode::Inline(g) => g.trailing,
            Mode::Ahead(a) => a.pending == 0 && a.trailing,
        }
    }

    /// The inline decoder, and what it holds, goes to a new worker thread; it stays inline
    /// if no thread can be started.
    fn move_to_worker(&mut self) {
        let (input, inputs) = channel::<Vec<u8>>();
        let (spent, spares) = channel::<Vec<u8>>();
        let (made_tx, made) = sync_channel::<Made>(AHEAD);
        let (ready, gunzip) = sync_channel::<Box<Gunzip>>(1);
        let piece = self.piece;
        let started = std::thread::Builder::new()
            .name("urlset-gunzip".into())
            .spawn(move || {
                if let Ok(g) = gunzip.recv() {
                    work(g, piece, &inputs, &spares, &made_tx);
                }
            });
        let Ok(worker) = started else {
            return;
        };
        let Mode::Inline(g) = std::mem::replace(
            &mut self.mode,
            Mode::Ahead(Ahead {
                input,
                spent,
                made: Mutex::new(made),
                pending: 1,
                piece: Vec::new(),
                failed: None,
                complete: false,
                trailing: false,
                worker,
            }),
        ) else {
            return;
        };
        // the worker waits for exactly this one message: the channel has room for it
        let _ = ready.send(g);
    }
}

impl Ahead {
    fn next_piece(&mut self) -> Result<Option<&[u8]>, Corrupt> {
        if let Some(e) = &self.failed {
            return Err(e.clone());
        }
        let made = self.made.get_mut().unwrap_or_else(|e| e.into_inner());
        while self.pending > 0 {
            match made.recv() {
                Ok(Made::Piece(p)) => {
                    let done = std::mem::replace(&mut self.piece, p);
                    if done.capacity() > 0 {
                        let _ = self.spent.send(done);
                    }
                    return Ok(Some(&self.piece));
                }
                Ok(Made::Drained { complete, trailing }) => {
                    self.pending -= 1;
                    self.complete = complete;
                    self.trailing = trailing;
                }
                Ok(Made::Failed(e)) => {
                    self.failed = Some(e.clone());
                    return Err(e);
                }
                Err(_) => {
                    let e = Corrupt("the inflating thread stopped".into());
                    self.failed = Some(e.clone());
                    return Err(e);
                }
            }
        }
        Ok(None)
    }
}

/// The worker: decode what `g` holds, then each input as it comes, sending the pieces, a
/// `Drained` after each input, or the error (then only waiting for the caller to go).
fn work(
    mut g: Box<Gunzip>,
    piece: usize,
    inputs: &Receiver<Vec<u8>>,
    spares: &Receiver<Vec<u8>>,
    made: &SyncSender<Made>,
) {
    loop {
        loop {
            let mut out = spares.try_recv().unwrap_or_default();
            let next = match g.next_piece_into(&mut out, piece) {
                Ok(true) => Made::Piece(out),
                Ok(false) => Made::Drained {
                    complete: g.complete(),
                    trailing: g.trailing,
                },
                Err(e) => Made::Failed(e),
            };
            let more = matches!(next, Made::Piece(_));
            if made.send(next).is_err() {
                return;
            }
            if !more {
                break;
            }
        }
        match inputs.recv() {
            Ok(data) => g.push(&data),
            Err(_) => return,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use flate2::write::GzEncoder;
    use flate2::Compression;
    use std::io::Write;

    fn gzip(data: &[u8]) -> Vec<u8> {
        let mut e = GzEncoder::new(Vec::new(), Compression::default());
        e.write_all(data).unwrap();
        e.finish().unwrap()
    }

    /// The output and the error of `data` fed in `size` chunks, each drained.
    fn inflate(
        data: &[u8],
        size: usize,
        piece: usize,
        thread_from: usize,
    ) -> (Vec<u8>, Option<Corrupt>, bool, bool) {
        let mut g = Inflater::new(piece, thread_from);
        let mut out = Vec::new();
        for c in data.chunks(size) {
            g.push(c);
            loop {
                match g.next_piece() {
                    Ok(Some(p)) => {
                        assert!(p.len() <= piece);
                        out.extend_from_slice(p)
                    }
                    Ok(None) => break,
                    Err(e) => return (out, Some(e), g.complete(), g.threaded()),
                }
            }
        }
        (out, None, g.complete(), g.threaded())
    }

    fn text(n: u32) -> Vec<u8> {
        (0..n)
            .flat_map(|i| {
                format!(
                    "<url><loc>https://example.com/{}</loc></url>\n",
                    i * 7919 % 100_003
                )
                .into_bytes()
            })
            .collect()
    }

    #[test]
    fn threaded_gives_what_inline_gives() {
        let plain = text(60_000);
        let mut data = gzip(&plain);
        data.extend(gzip(b"second"));
        for (size, piece) in [
            (1, 65_536),
            (4096, 262_144),
            (65_536, 100_000),
            (data.len(), 262_144),
        ] {
            let inline = inflate(&data, size, piece, usize::MAX);
            let threaded = inflate(&data, size, piece, 0);
            assert!(!inline.3 && threaded.3);
            assert_eq!(inline.0.len(), plain.len() + 6);
            assert_eq!(
                (&inline.0, &inline.1, inline.2),
                (&threaded.0, &threaded.1, threaded.2)
            );
            assert!(threaded.2);
        }
    }

    #[test]
    fn moves_to_the_worker_mid_stream() {
        let plain = text(60_000);
        let data = gzip(&plain);
        let (out, err, complete, threaded) = inflate(&data, 10_000, 262_144, 50_000);
        assert!(threaded && complete && err.is_none());
        assert_eq!(out, plain);
    }

    #[test]
    fn damage_anywhere_gives_the_same_output_and_error() {
        let plain = text(20_000);
        let data = gzip(&plain);
        for at in (0..data.len())
            .step_by(data.len() / 97 + 1)
            .chain([data.len() - 1])
        {
            let mut bad = data.clone();
            bad[at] ^= 0x55;
            let inline = inflate(&bad, 4096, 65_536, usize::MAX);
            for thread_from in [0, 8192] {
                let threaded = inflate(&bad, 4096, 65_536, thread_from);
                assert_eq!(
                    (&inline.0, &inline.1),
                    (&threaded.0, &threaded.1),
                    "at {at}"
                );
            }
        }
        // cut short: no error, not complete
        let cut = inflate(&data[..data.len() - 5], 4096, 65_536, 0);
        assert!(cut.1.is_none() && !cut.2 && cut.3);
    }

    #[test]
    fn a_caller_that_stops_taking_pieces_stops_the_worker() {
        // a bomb: the caller takes two pieces and drops the inflater; the worker ends
        let data = gzip(&vec![b' '; 50_000_000]);
        let mut g = Inflater::new(65_536, 0);
        g.push(&data);
        for _ in 0..2 {
            assert_eq!(g.next_piece().unwrap().map(<[u8]>::len), Some(65_536));
        }
        let Mode::Ahead(a) = g.mode else {
            panic!("not threaded")
        };
        let worker = a.worker;
        drop(a.made);
        for _ in 0..500 {
            if worker.is_finished() {
                return;
            }
            std::thread::sleep(std::time::Duration::from_millis(10));
        }
        panic!("the worker runs on after its caller went");
    }
}
