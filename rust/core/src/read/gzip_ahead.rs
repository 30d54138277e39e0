//! Gzip inflated ahead of its reader on a second thread: [`Inflater`] gives the pieces
//! [`Gunzip`] gives, in the same order with the same errors, but once a stream is large
//! enough to pay for a thread, a worker inflates the next pieces while the caller reads the
//! last one (the reader tokenizes a piece in about five times the time it takes to inflate).
//!
//! The [`Gunzip`] is shared: whoever inflates takes it out of the shared state and inflates
//! outside the lock (so taking a piece made never waits for the next one being made). The
//! worker inflates at most [`AHEAD`] pieces ahead of the caller into a queue, so a
//! decompression bomb costs at most that many pieces past the caller's size limit; a caller
//! that finds the queue empty inflates the next piece itself, or waits for the one the
//! worker is making. The worker inflates only input pushed, and ends when the caller's
//! [`Inflater`] is dropped. Input pushed before the move is decoded from where the caller
//! left it.

use std::collections::VecDeque;
use std::sync::{Arc, Condvar, Mutex, MutexGuard, OnceLock};
use std::thread::JoinHandle;

use super::gzip::{Corrupt, Gunzip};

/// Compressed bytes pushed in all from which inflation moves to its own thread (about a
/// megabyte of XML at sitemaps' usual ratio of 15-20): a thread costs some tens of
/// microseconds to start, as much as inflating a few hundred kilobytes.
pub const THREAD_FROM: usize = 65_536;
/// Pieces the worker may have made that the caller has not taken yet.
const AHEAD: usize = 2;
/// Pieces over which the caller judges the worker: when it made more of them itself than
/// it found made (the worker gets no core, or each input is too small to run ahead on),
/// the worker is let go and the caller inflates alone.
const JUDGED_OVER: u32 = 16;

/// What the worker made ahead, in stream order.
enum Made {
    Piece(Vec<u8>),
    /// The stream is damaged; the caller's next piece is this error.
    Failed(Corrupt),
}

/// The stream's state, shared by the caller and the worker.
struct State {
    /// None while one side inflates with it.
    gunzip: Option<Box<Gunzip>>,
    /// Input pushed and not yet handed to the `Gunzip` (it may be out).
    input: Vec<u8>,
    made: VecDeque<Made>,
    /// All input handed to the `Gunzip` is decoded (and its pieces queued).
    drained: bool,
    /// The caller is gone: the worker ends.
    closed: bool,
    /// Piece buffers the caller is done with (no fresh pages a piece).
    spares: Vec<Vec<u8>>,
}

struct Shared {
    state: Mutex<State>,
    /// The worker waits on it for input, room in the queue, the `Gunzip`, or the end.
    wake: Condvar,
    /// The caller waits on it for the piece the worker is making.
    ready: Condvar,
}

impl Shared {
    fn lock(&self) -> MutexGuard<'_, State> {
        // a panic while holding the lock leaves nothing half-done that matters here
        self.state.lock().unwrap_or_else(|e| e.into_inner())
    }

    /// Inflate the next piece into `out` with the `Gunzip` taken out of `s` (the lock let
    /// go meanwhile), then put it back: what `next_piece_into` says, and the lock again.
    fn inflate<'a>(
        &'a self,
        mut s: MutexGuard<'a, State>,
        out: &mut Vec<u8>,
        piece: usize,
    ) -> (Result<bool, Corrupt>, MutexGuard<'a, State>) {
        let Some(mut g) = s.gunzip.take() else {
            return (Ok(false), s);
        };
        let input = std::mem::take(&mut s.input);
        drop(s);
        if !input.is_empty() {
            g.push(&input);
        }
        let result = g.next_piece_into(out, piece);
        let mut s = self.lock();
        s.gunzip = Some(g);
        if matches!(result, Ok(false)) && s.input.is_empty() {
            s.drained = true;
        }
        (result, s)
    }
}

/// The caller's side of a worker.
struct Ahead {
    shared: Arc<Shared>,
    /// The last piece handed out.
    piece: Vec<u8>,
    /// Never joined (a caller that goes does not wait): the tests see it end.
    #[cfg_attr(not(test), allow(dead_code))]
    worker: Option<JoinHandle<()>>,
    /// Whether a worker was started (it may have been let go since).
    started: bool,
    /// Pieces taken from the queue, and made by the caller, since the worker was judged.
    taken: u32,
    own: u32,
}

enum Mode {
    Inline(Box<Gunzip>),
    Ahead(Ahead),
}

/// Incremental gzip inflation in pieces of at most `piece` bytes, inline at first, ahead on
/// a worker thread from `thread_from` compressed bytes on.
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

    /// Whether a worker thread was started to inflate the stream ahead.
    pub fn threaded(&self) -> bool {
        matches!(&self.mode, Mode::Ahead(a) if a.started)
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
                let mut s = a.shared.lock();
                s.input.extend_from_slice(data);
                s.drained = false;
                drop(s);
                a.shared.wake.notify_one();
            }
        }
    }

    /// As [`Gunzip::next_piece`]: the next piece, None when more input is needed, the error
    /// after the output before the damage.
    pub fn next_piece(&mut self) -> Result<Option<&[u8]>, Corrupt> {
        let piece = self.piece;
        match &mut self.mode {
            Mode::Inline(g) => g.next_piece(piece),
            Mode::Ahead(a) => a.next_piece(piece),
        }
    }

    /// Whether the last member ended and no partial member follows (as of the pieces made;
    /// the same as inline once the caller has taken every piece).
    pub fn complete(&self) -> bool {
        match &self.mode {
            Mode::Inline(g) => g.complete(),
            Mode::Ahead(a) => {
                let s = a.shared.lock();
                s.made.is_empty() && s.gunzip.as_ref().is_some_and(|g| g.complete())
            }
        }
    }

    /// Whether bytes other than zero padding follow the last member (as `complete`).
    pub fn trailing(&self) -> bool {
        match &self.mode {
            Mode::Inline(g) => g.trailing,
            Mode::Ahead(a) => {
                let s = a.shared.lock();
                s.made.is_empty() && s.gunzip.as_ref().is_some_and(|g| g.trailing)
            }
        }
    }

    /// The inline decoder, and what it holds, becomes shared with a new worker thread (or,
    /// if no thread can be started, with none: the caller inflates every piece).
    fn move_to_worker(&mut self) {
        let Mode::Inline(gunzip) = std::mem::replace(&mut self.mode, Mode::Inline(Box::default()))
        else {
            return;
        };
        let shared = Arc::new(Shared {
            state: Mutex::new(State {
                gunzip: Some(gunzip),
                input: Vec::new(),
                made: VecDeque::with_capacity(AHEAD),
                drained: false,
                closed: false,
                spares: Vec::new(),
            }),
            wake: Condvar::new(),
            ready: Condvar::new(),
        });
        let theirs = Arc::clone(&shared);
        let piece = self.piece;
        let worker = std::thread::Builder::new()
            .name("urlset-gunzip".into())
            .spawn(move || work(&theirs, piece))
            .ok();
        self.mode = Mode::Ahead(Ahead {
            shared,
            piece: Vec::new(),
            started: worker.is_some(),
            worker,
            taken: 0,
            own: 0,
        });
    }
}

impl Ahead {
    fn next_piece(&mut self, piece: usize) -> Result<Option<&[u8]>, Corrupt> {
        let shared = Arc::clone(&self.shared);
        let mut s = shared.lock();
        let done = std::mem::take(&mut self.piece);
        if done.capacity() == piece {
            s.spares.push(done);
        }
        let made = loop {
            if let Some(made) = s.made.pop_front() {
                drop(s);
                shared.wake.notify_one(); // room in the queue
                self.taken += 1;
                break made;
            }
            if s.drained && s.input.is_empty() {
                return Ok(None);
            }
            if s.gunzip.is_none() {
                // the worker is making the next piece
                s = shared.ready.wait(s).unwrap_or_else(|e| e.into_inner());
                continue;
            }
            // nothing made ahead: inflate here rather than wait for the worker
            self.judge(&mut s);
            let mut out = s.spares.pop().unwrap_or_default();
            let (result, again) = shared.inflate(s, &mut out, piece);
            s = again;
            shared.wake.notify_one(); // the Gunzip is back
            match result {
                Ok(true) => break Made::Piece(out),
                Ok(false) => continue, // drained, or more input came meanwhile
                Err(e) => break Made::Failed(e),
            }
        };
        match made {
            Made::Piece(p) => {
                self.piece = p;
                Ok(Some(&self.piece))
            }
            Made::Failed(e) => Err(e),
        }
    }

    /// Count a piece the caller makes itself; over each JUDGED_OVER pieces, let the worker
    /// go when the caller made more of them than it found made.
    fn judge(&mut self, s: &mut State) {
        self.own += 1;
        if self.taken + self.own >= JUDGED_OVER {
            if self.own > self.taken && self.worker.is_some() {
                s.closed = true;
                self.worker = None;
            }
            (self.taken, self.own) = (0, 0);
        }
    }
}

impl Drop for Ahead {
    fn drop(&mut self) {
        self.shared.lock().closed = true;
        self.shared.wake.notify_one();
    }
}

/// The worker: while the caller is there, inflate a piece whenever there is input left,
/// room in the queue and the `Gunzip` free, else wait.
fn work(shared: &Shared, piece: usize) {
    let mut s = shared.lock();
    loop {
        if s.closed {
            return;
        }
        let idle = s.drained && s.input.is_empty();
        let failed = s.gunzip.as_ref().is_none_or(|g| g.failed());
        if idle || failed || s.made.len() >= AHEAD {
            s = shared.wake.wait(s).unwrap_or_else(|e| e.into_inner());
            continue;
        }
        let mut out = s.spares.pop().unwrap_or_default();
        let (result, again) = shared.inflate(s, &mut out, piece);
        s = again;
        match result {
            Ok(true) => s.made.push_back(Made::Piece(out)),
            Ok(false) => {}
            Err(e) => s.made.push_back(Made::Failed(e)),
        }
        shared.ready.notify_one();
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::read::gzip::tests::gzip;

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
        let Mode::Ahead(a) = &mut g.mode else {
            panic!("not threaded")
        };
        let worker = a.worker.take().expect("a worker");
        drop(g);
        for _ in 0..500 {
            if worker.is_finished() {
                return;
            }
            std::thread::sleep(std::time::Duration::from_millis(10));
        }
        panic!("the worker runs on after its caller went");
    }
}
