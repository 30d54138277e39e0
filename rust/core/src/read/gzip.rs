//! Incremental gzip inflation (RFC 1952, members one after another) in bounded pieces, for
//! `urlset.reading.sniff.Gunzip`: compressed bytes are pushed as they come, decompressed ones
//! taken a piece of at most `max` bytes at a time, so a decompression bomb is stopped by the
//! caller's size limit after one piece. Damage gives the output before it, then the error,
//! whatever the chunking: deflate data is decoded symbol by symbol, so what comes out before
//! the bad symbol does not depend on where the input was cut.

use flate2::{Decompress, FlushDecompress, Status};

const MAGIC: [u8; 2] = [0x1f, 0x8b];
const FHCRC: u8 = 0x02;
const FEXTRA: u8 = 0x04;
const FNAME: u8 = 0x08;
const FCOMMENT: u8 = 0x10;
const RESERVED: u8 = 0xe0;
/// Output room below which a piece is handed out rather than decoded into further: a
/// decoder may hold up to its 32 KiB window of output that did not fit.
const MIN_ROOM: usize = 32_768 + 1024;

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Part {
    Header,
    Body,
    Trailer,
    /// After a member's trailer: another member, zero padding or other trailing bytes.
    Between,
}

/// Why a gzip stream cannot be read on (the text follows "gzip data is corrupt: ").
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Corrupt(pub String);

pub struct Gunzip {
    input: Vec<u8>,
    /// Bytes of `input` already consumed.
    at: usize,
    part: Part,
    inflate: Decompress,
    crc: crc32fast::Hasher,
    size: u32,
    /// Damage found after output that was handed out first.
    failed: Option<Corrupt>,
    /// Bytes after the last member that are not zero padding.
    pub trailing: bool,
    /// Whether any member was begun.
    pub started: bool,
    /// The last piece given out: its buffer serves every piece (no allocation, no page
    /// faults of a fresh buffer a piece).
    piece: Vec<u8>,
}

impl Default for Gunzip {
    fn default() -> Self {
        Self::new()
    }
}

impl Gunzip {
    pub fn new() -> Self {
        Gunzip {
            input: Vec::new(),
            at: 0,
            part: Part::Header,
            inflate: Decompress::new(false),
            crc: crc32fast::Hasher::new(),
            size: 0,
            failed: None,
            trailing: false,
            started: false,
            piece: Vec::new(),
        }
    }

    /// Take `data` in (nothing is decoded yet).
    pub fn push(&mut self, data: &[u8]) {
        if self.at > 0 && self.at >= self.input.len() / 2 {
            self.input.drain(..self.at);
            self.at = 0;
        }
        self.input.extend_from_slice(data);
    }

    fn rest(&self) -> &[u8] {
        &self.input[self.at..]
    }

    /// Whether damage was found (every piece asked for from now on is the error).
    pub fn failed(&self) -> bool {
        self.failed.is_some()
    }

    /// Whether the last member ended and no partial member follows.
    pub fn complete(&self) -> bool {
        self.part == Part::Between && self.rest() != &MAGIC[..1]
    }

    /// The next piece of output, at most `max` bytes (best over 64 KiB); Ok(None)
    /// when more input is needed (or the stream ended). An error comes after the output
    /// before the damage, on the call after it.
    pub fn next_piece(&mut self, max: usize) -> Result<Option<&[u8]>, Corrupt> {
        let mut out = std::mem::take(&mut self.piece);
        let given = self.next_piece_into(&mut out, max);
        self.piece = out;
        Ok(given?.then_some(&self.piece[..]))
    }

    /// As [`Gunzip::next_piece`], the piece into `out` (its buffer reused): true when a
    /// piece was made, false when more input is needed.
    pub fn next_piece_into(&mut self, out: &mut Vec<u8>, max: usize) -> Result<bool, Corrupt> {
        if let Some(e) = &self.failed {
            return Err(e.clone());
        }
        out.clear();
        // exactly `max` bytes of room: the decoder fills what it is given
        out.shrink_to(max.max(1));
        out.reserve_exact(max.max(1));
        let result = self.decode(out);
        match result {
            Ok(()) => Ok(!out.is_empty()),
            Err(e) => {
                self.failed = Some(e.clone());
                if out.is_empty() {
                    Err(e)
                } else {
                    Ok(true)
                }
            }
        }
    }

    fn decode(&mut self, out: &mut Vec<u8>) -> Result<(), Corrupt> {
        loop {
            match self.part {
                Part::Header => {
                    let Some(len) = header_len(self.rest())? else {
                        return Ok(());
                    };
                    self.started = true;
                    self.at += len;
                    self.part = Part::Body;
                }
                Part::Body => {
                    if out.capacity() - out.len() < MIN_ROOM.min(out.capacity()) {
                        return Ok(());
                    }
                    let before = (self.inflate.total_in(), out.len());
                    let status = self.inflate.decompress_vec(
                        &self.input[self.at..],
                        out,
                        FlushDecompress::None,
                    );
                    let used = usize::try_from(self.inflate.total_in() - before.0).unwrap_or(0);
                    self.at += used;
                    let new = &out[before.1..];
                    self.crc.update(new);
                    // ISIZE is the size modulo 2^32
                    self.size = self.size.wrapping_add(new.len() as u32);
                    match status {
                        Err(e) => return Err(Corrupt(deflate_error(&e))),
                        Ok(Status::StreamEnd) => self.part = Part::Trailer,
                        Ok(_) if used == 0 && out.len() == before.1 => return Ok(()),
                        Ok(_) => {}
                    }
                }
                Part::Trailer => {
                    let Some(trailer) = self.rest().get(..8) else {
                        return Ok(());
                    };
                    let crc = u32::from_le_bytes([trailer[0], trailer[1], trailer[2], trailer[3]]);
                    let size = u32::from_le_bytes([trailer[4], trailer[5], trailer[6], trailer[7]]);
                    if crc != self.crc.clone().finalize() {
                        return Err(Corrupt("incorrect data check".into()));
                    }
                    if size != self.size {
                        return Err(Corrupt("incorrect length check".into()));
                    }
                    self.at += 8;
                    self.part = Part::Between;
                }
                Part::Between => {
                    self.between();
                    if self.part == Part::Between {
                        return Ok(());
                    }
                }
            }
        }
    }

    /// After a member: start the next one when its magic follows, else drop what follows
    /// (noting bytes other than zero padding); a lone first magic byte waits for more.
    fn between(&mut self) {
        let rest = self.rest();
        if rest.is_empty() || rest == &MAGIC[..1] {
            return;
        }
        if rest.starts_with(&MAGIC) {
            self.inflate.reset(false);
            self.crc = crc32fast::Hasher::new();
            self.size = 0;
            self.part = Part::Header;
            return;
        }
        self.trailing |= rest.iter().any(|&b| b != 0);
        self.at = self.input.len();
    }
}

/// The error's text without the decoder's detail: zlib-rs may find the damage in one call
/// and name it in the next ("repeated call with bad state"), so the detail would depend on
/// the chunking.
fn deflate_error(_: &flate2::DecompressError) -> String {
    "invalid deflate data".into()
}

/// The length of the member header at the start of `data`, None while it is incomplete.
fn header_len(data: &[u8]) -> Result<Option<usize>, Corrupt> {
    let fail = |m: &str| Err(Corrupt(m.into()));
    if data.len() < 10 {
        return match data {
            [a, ..] if *a != MAGIC[0] => fail("incorrect header check"),
            [_, b, ..] if *b != MAGIC[1] => fail("incorrect header check"),
            [_, _, m, ..] if *m != 8 => fail("unknown compression method"),
            [_, _, _, f, ..] if f & RESERVED != 0 => fail("unknown header flags set"),
            _ => Ok(None),
        };
    }
    if data[..2] != MAGIC {
        return fail("incorrect header check");
    }
    if data[2] != 8 {
        return fail("unknown compression method");
    }
    let flags = data[3];
    if flags & RESERVED != 0 {
        return fail("unknown header flags set");
    }
    let mut at = 10;
    if flags & FEXTRA != 0 {
        let Some(n) = data.get(at..at + 2) else {
            return Ok(None);
        };
        at += 2 + usize::from(u16::from_le_bytes([n[0], n[1]]));
        if data.len() < at {
            return Ok(None);
        }
    }
    for flag in [FNAME, FCOMMENT] {
        if flags & flag != 0 {
            let Some(zero) = memchr::memchr(0, &data[at..]) else {
                return Ok(None);
            };
            at += zero + 1;
        }
    }
    if flags & FHCRC != 0 {
        let Some(c) = data.get(at..at + 2) else {
            return Ok(None);
        };
        let want = u16::from_le_bytes([c[0], c[1]]);
        if (crc32fast::hash(&data[..at]) & 0xffff) as u16 != want {
            return fail("header crc mismatch");
        }
        at += 2;
    }
    Ok(Some(at))
}

#[cfg(test)]
pub(crate) mod tests {
    use super::*;
    use flate2::write::GzEncoder;
    use flate2::Compression;
    use std::io::Write;

    pub(crate) fn gzip(data: &[u8]) -> Vec<u8> {
        let mut e = GzEncoder::new(Vec::new(), Compression::default());
        e.write_all(data).unwrap();
        e.finish().unwrap()
    }

    fn inflate_in(chunks: &[&[u8]]) -> (Vec<u8>, Result<(), Corrupt>, Gunzip) {
        let mut g = Gunzip::new();
        let mut out = Vec::new();
        for c in chunks {
            g.push(c);
            loop {
                match g.next_piece(262_144) {
                    Ok(Some(p)) => {
                        assert!(p.len() <= 262_144);
                        out.extend_from_slice(p)
                    }
                    Ok(None) => break,
                    Err(e) => return (out, Err(e), g),
                }
            }
        }
        (out, Ok(()), g)
    }

    #[test]
    fn members_in_any_chunking() {
        let text: Vec<u8> = (0..200_000u32).flat_map(|i| i.to_le_bytes()).collect();
        let mut data = gzip(&text);
        data.extend(gzip(b"second"));
        data.extend([0, 0, 0]);
        for size in [1, 7, 4096, data.len()] {
            let chunks: Vec<&[u8]> = data.chunks(size).collect();
            let (out, r, g) = inflate_in(&chunks);
            assert_eq!(r, Ok(()));
            assert_eq!(out.len(), text.len() + 6);
            assert!(out.ends_with(b"second") && out.starts_with(&text[..100]));
            assert!(g.complete() && !g.trailing);
        }
        let (_, _, g) = inflate_in(&[&data[..data.len() - 20]]);
        assert!(!g.complete());
    }

    #[test]
    fn damage_gives_the_output_before_it_however_fed() {
        let text: Vec<u8> = (0..100_000u32)
            .flat_map(|i| format!("<url>{}</url>", i * 7919 % 100_003).into_bytes())
            .collect();
        let mut data = gzip(&text);
        let n = data.len();
        data[n / 2] ^= 0xff;
        let (whole, r, _) = inflate_in(&[&data]);
        assert!(r.is_err());
        for size in [1, 13, 4096] {
            let chunks: Vec<&[u8]> = data.chunks(size).collect();
            let (out, r2, _) = inflate_in(&chunks);
            assert_eq!((out.len(), &r2), (whole.len(), &r));
        }
        // what comes before the damage is the text (a flipped bit may decode wrongly a while)
        assert!(whole.len() > 10_000 && whole.len() < text.len());
        assert_eq!(whole[..10_000], text[..10_000]);
        let mut bad = gzip(b"x");
        bad[3] = 0xff;
        assert_eq!(
            inflate_in(&[&bad]).1,
            Err(Corrupt("unknown header flags set".into()))
        );
        let mut crc = gzip(b"hello");
        let m = crc.len();
        crc[m - 8] ^= 1;
        assert_eq!(
            inflate_in(&[&crc]).1,
            Err(Corrupt("incorrect data check".into()))
        );
    }

    #[test]
    fn trailing_bytes_are_noted() {
        let mut data = gzip(b"abc");
        data.extend(b"junk");
        let (out, r, g) = inflate_in(&[&data, b"more"]);
        assert_eq!((out.as_slice(), r), (&b"abc"[..], Ok(())));
        assert!(g.trailing && g.complete());
    }
}
