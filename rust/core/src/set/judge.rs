//! One judgement of a set: the four joins on hashes, a bucket at a time (see the module doc
//! of `set`).
use std::io;

use super::strings::Strings;
use super::table::{Row, SpillDir, Table};
use super::{Known, LAST};

/// splitmix64's finaliser, so that a sum of hashes tells sets apart.
pub fn mixed(value: u64) -> u64 {
    let z = value.wrapping_mul(0x9E37_79B9_7F4A_7C15);
    let z = (z ^ (z >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
    let z = (z ^ (z >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
    z ^ (z >> 31)
}

/// What a judgement finds, as places and hashes: the missing links (variant, target, the
/// naming page's record, the link numbers of the variant and the target), in order, and
/// the variants without alternates (variant, record, link number, in the set), in order;
/// the first `cap` of each code (of the unlisted, `cap` in the set and `cap` outside).
#[derive(Debug, Default)]
pub struct Places {
    pub missing: Vec<Row<5>>,
    pub missing_count: u64,
    pub unlisted: Vec<Row<4>>,
    pub in_set: u64,
    pub outside: u64,
    pub pages: u64,
}

/// The tables of one judgement (rows of `u64`s; see each join).
pub struct Judgement<'s, 'k> {
    pub own: &'s Table<4>, // page, target, record, link number
    pub plain: &'s mut Table<1>,
    pub strings: &'s Strings,
    pub spill: &'s mut SpillDir,
    pub known: Option<&'s mut Known<'k>>,
    pub cap: Option<usize>,
    pub include_self: bool,
    pub bits: u32,
    pub spill_bytes: usize,
}

struct Tables {
    claims: Table<5>, // variant, naming page's fingerprint, its record, link number, page
    mismatch: Table<5>, // the same, by the naming page
    cands: Table<5>,  // variant, target, record, variant's link number, target's
    pages: Table<4>,  // page, record, fingerprint, lists itself
}

/// What join 1 makes of some buckets of the pages' links: the pages, their claims, and
/// (with `include_self`) the pages lacking their own link; frozen.
struct Joined {
    claims: Table<5>,
    pages: Table<4>,
    cands: Table<5>,
    count: u64,
}

impl Joined {
    fn new(spill_bytes: usize) -> Joined {
        Joined {
            claims: Table::new(0, spill_bytes),
            pages: Table::new(0, spill_bytes),
            cands: Table::new(0, spill_bytes),
            count: 0,
        }
    }

    /// `other`'s pages (of the buckets after these) after these.
    fn append(&mut self, other: Joined) {
        self.claims.append(other.claims);
        self.pages.append(other.pages);
        self.cands.append(other.cands);
        self.count += other.count;
    }
}

impl Judgement<'_, '_> {
    pub fn run(mut self) -> io::Result<Places> {
        let buckets = 1usize << self.bits;
        // join 1, the judgement's longest, on two threads (it runs when the build has
        // nothing else to do): the upper half of the buckets beside the lower, its runs in
        // a spill directory of its own that lives as long as this judgement
        let mut upper_spill = SpillDir::default();
        let half = if buckets > 1 { buckets / 2 } else { buckets };
        let (own, bits, include_self, n) =
            (self.own, self.bits, self.include_self, self.spill_bytes);
        let spill = &mut *self.spill;
        let (lower, upper) = std::thread::scope(|scope| {
            let upper = (half < buckets).then(|| {
                let spill = &mut upper_spill;
                scope.spawn(move || join_pages(own, half..buckets, bits, include_self, n, spill))
            });
            let lower = join_pages(own, 0..half, bits, include_self, n, spill);
            let upper = upper.map(|thread| {
                thread
                    .join()
                    .unwrap_or_else(|panic| std::panic::resume_unwind(panic))
            });
            (lower, upper)
        });
        let mut joined = lower?;
        if let Some(upper) = upper {
            joined.append(upper?);
        }
        let mut out = Places {
            pages: joined.count,
            ..Places::default()
        };
        let mut t = Tables {
            claims: joined.claims,
            mismatch: Table::new(4, self.spill_bytes),
            cands: joined.cands,
            pages: joined.pages,
        };
        for b in 0..buckets {
            self.claims(b, &mut t, &mut out)?;
        }
        t.mismatch.freeze(self.spill)?;
        for b in 0..buckets {
            self.members(b, &mut t)?;
        }
        t.cands.freeze(self.spill)?;
        for b in 0..buckets {
            self.missing(b, &t, &mut out)?;
        }
        if self.cap.is_none() {
            out.missing.sort_unstable_by_key(|c| (c[2], c[3], c[4]));
            out.unlisted.sort_unstable_by_key(|u| (u[1], u[2]));
        }
        Ok(out)
    }

    /// Join 2: each claim against the variant's own page.
    fn claims(&mut self, b: usize, t: &mut Tables, out: &mut Places) -> io::Result<()> {
        let claims = t.claims.bucket(b, self.bits)?;
        if claims.is_empty() {
            return Ok(());
        }
        let pages = t.pages.bucket(b, self.bits)?;
        debug_assert!(pages.is_sorted_by_key(|p| p[0])); // written in order by join 1
        let mut unlisted = Vec::with_capacity(claims.len());
        for claim in claims {
            match pages.binary_search_by_key(&claim[0], |p| p[0]) {
                Err(_) => unlisted.push(claim),
                Ok(at) => {
                    let theirs = pages[at];
                    if theirs[2] != claim[1] || (self.include_self && theirs[3] == 0) {
                        t.mismatch.push(claim, self.spill)?;
                    }
                }
            }
        }
        self.unlisted(b, unlisted, out)
    }

    /// Variants without alternates, each once at its first place; in the set or not.
    fn unlisted(&mut self, b: usize, mut claims: Vec<Row<5>>, out: &mut Places) -> io::Result<()> {
        if claims.is_empty() {
            return Ok(());
        }
        sort_by_hash(&mut claims, 0);
        let claims: Vec<Row<5>> = claims
            .chunk_by(|a, b| a[0] == b[0])
            .map(|same| *same.iter().min_by_key(|c| (c[2], c[3])).expect("a run"))
            .collect();
        let mut plain = self.plain.bucket(b, self.bits)?;
        sort_by_hash(&mut plain, 0);
        let plain: Vec<u64> = plain.into_iter().map(|h| h[0]).collect();
        let mut in_set: Vec<bool> = claims
            .iter()
            .map(|c| plain.binary_search(&c[0]).is_ok())
            .collect();
        if let Some(known) = self.known.as_deref_mut() {
            let asked: Vec<usize> = (0..claims.len()).filter(|&i| !in_set[i]).collect();
            if !asked.is_empty() {
                let hashes: Vec<u64> = asked.iter().map(|&i| claims[i][0]).collect();
                let numbers: Vec<u64> = asked.iter().map(|&i| claims[i][3]).collect();
                let strings = self.strings;
                let mut hrefs = || -> io::Result<Vec<String>> {
                    let (_, found) =
                        strings.look_up(&Default::default(), &numbers.iter().copied().collect())?;
                    Ok(numbers.iter().map(|g| found[g].0.clone()).collect())
                };
                let answer = known(&hashes, &mut hrefs)?;
                for (&i, yes) in asked.iter().zip(answer) {
                    in_set[i] = yes;
                    if yes {
                        self.plain.push([claims[i][0]], self.spill)?;
                    }
                }
            }
        }
        for (claim, &yes) in claims.iter().zip(&in_set) {
            if yes {
                out.in_set += 1;
            } else {
                out.outside += 1;
            }
            out.unlisted
                .push([claim[0], claim[2], claim[3], u64::from(yes)]);
        }
        if let Some(cap) = self.cap {
            // the first `cap` in the set and the first `cap` outside it (each place is one
            // link's: no two equal), each found by selection, not by sorting all of them
            let (mut inside, mut outside): (Vec<Row<4>>, Vec<Row<4>>) =
                out.unlisted.drain(..).partition(|u| u[3] != 0);
            for kept in [&mut inside, &mut outside] {
                if kept.len() > cap {
                    if cap > 0 {
                        kept.select_nth_unstable_by_key(cap - 1, |u| (u[1], u[2]));
                    }
                    kept.truncate(cap);
                }
            }
            out.unlisted = inside;
            out.unlisted.append(&mut outside);
            out.unlisted.sort_unstable_by_key(|u| (u[1], u[2]));
        }
        Ok(())
    }

    /// Join 3: a claim whose groups differ made one candidate a member of the naming
    /// page's group (the naming page itself last when it does not list itself).
    fn members(&mut self, b: usize, t: &mut Tables) -> io::Result<()> {
        let claims = t.mismatch.bucket(b, self.bits)?;
        if claims.is_empty() {
            return Ok(());
        }
        // the pages' links merged again (as join 1 did), where a claim needs them: most
        // sets have no claim here, and keep no second copy of their links for it
        let merged = merged(self.own.bucket(b, self.bits)?);
        debug_assert!(merged.is_sorted_by_key(|r| (r[0], r[3])));
        let pages = t.pages.bucket(b, self.bits)?;
        for [q, _, rec, g, page] in claims {
            let lo = merged.partition_point(|r| r[0] < page);
            let hi = merged.partition_point(|r| r[0] <= page);
            for r in &merged[lo..hi] {
                if self.include_self || q != r[1] {
                    t.cands.push([q, r[1], rec, g, r[3]], self.spill)?;
                }
            }
            let at = pages
                .binary_search_by_key(&page, |p| p[0])
                .expect("the naming page's own row");
            if pages[at][3] == 0 && (self.include_self || q != page) {
                t.cands.push([q, page, rec, g, LAST], self.spill)?;
            }
        }
        Ok(())
    }

    /// Join 4: each candidate the variant does not link to, once a (page, target).
    fn missing(&mut self, b: usize, t: &Tables, out: &mut Places) -> io::Result<()> {
        let cands = t.cands.bucket(b, self.bits)?;
        if cands.is_empty() {
            return Ok(());
        }
        // every (page, target) the pages link to (a pair given twice found all the same)
        let mut linked: Vec<(u64, u64)> = self
            .own
            .bucket(b, self.bits)?
            .iter()
            .map(|r| (r[0], r[1]))
            .collect();
        linked.sort_unstable();
        let mut missing: Vec<Row<5>> = cands
            .into_iter()
            .filter(|c| linked.binary_search(&(c[0], c[1])).is_err())
            .collect();
        missing.sort_unstable();
        missing.dedup_by_key(|c| (c[0], c[1]));
        out.missing_count += missing.len() as u64;
        out.missing.extend(missing);
        if let Some(cap) = self.cap {
            out.missing.sort_unstable_by_key(|c| (c[2], c[3], c[4]));
            out.missing.truncate(cap);
        }
        Ok(())
    }
}

/// Join 1 over `buckets` of `own`: each page's links merged (first place kept), its
/// fingerprint, a claim on each variant it names; with `include_self`, each page lacking
/// its own link as a candidate.
fn join_pages(
    own: &Table<4>,
    buckets: std::ops::Range<usize>,
    bits: u32,
    include_self: bool,
    spill_bytes: usize,
    spill: &mut SpillDir,
) -> io::Result<Joined> {
    let mut t = Joined::new(spill_bytes);
    for b in buckets {
        for group in merged(own.bucket(b, bits)?).chunk_by(|a, b| a[0] == b[0]) {
            let (page, rec) = (group[0][0], group[0][2]);
            let listed = group.iter().any(|r| r[1] == page);
            let mut fp = group
                .iter()
                .fold(0u64, |sum, r| sum.wrapping_add(mixed(r[1])));
            if !listed {
                fp = fp.wrapping_add(mixed(page));
            }
            t.pages.push([page, rec, fp, u64::from(listed)], spill)?;
            t.count += 1;
            for r in group.iter().filter(|r| r[1] != page) {
                t.claims.push([r[1], fp, rec, r[3], page], spill)?;
            }
            if include_self && !listed {
                // a page lacking its own link, placed after its group
                t.cands.push([page, page, rec, LAST, LAST], spill)?;
            }
        }
    }
    t.claims.freeze(spill)?;
    t.pages.freeze(spill)?;
    t.cands.freeze(spill)?;
    Ok(t)
}

/// A bucket's links by page, a page's links by their first place, each (page, target) once
/// (the first place kept): a page's links are few, so the one big sort is by page alone.
fn merged(mut own: Vec<Row<4>>) -> Vec<Row<4>> {
    sort_by_hash(&mut own, 0);
    for group in own.chunk_by_mut(|a, b| a[0] == b[0]) {
        small_sort(group, |r| (r[1], r[3]));
    }
    own.dedup_by_key(|r| (r[0], r[1]));
    for group in own.chunk_by_mut(|a, b| a[0] == b[0]) {
        small_sort(group, |r| (r[3], 0));
    }
    own
}

/// Sort `rows` by column `col`, a hash (uniform, so each of its bits splits the rows about
/// in half): a counting pass on the bits after the prefix every row shares puts each row in
/// a group of about four, then each group is sorted. Two passes over the rows, not the
/// n log n compares of a comparison sort; rows with equal keys come in any order, as with
/// `sort_unstable_by_key`.
pub fn sort_by_hash<const W: usize>(rows: &mut Vec<Row<W>>, col: usize) {
    let n = rows.len();
    if n < 256 {
        rows.sort_unstable_by_key(|r| r[col]);
        return;
    }
    let bits = (n / 4).ilog2().min(16); // about four rows a group; at most 65,536 groups
    let (any, all) = rows.iter().fold((0u64, u64::MAX), |(any, all), r| {
        (any | r[col], all & r[col])
    });
    // the bits above `shared` are the same in every key: the next `bits` order the groups
    let shared = (any ^ all).leading_zeros().min(64 - bits);
    let group = |r: &Row<W>| ((r[col] << shared) >> (64 - bits)) as usize;
    let mut bounds = vec![0u32; (1 << bits) + 1];
    for r in rows.iter() {
        bounds[group(r) + 1] += 1;
    }
    for g in 0..1usize << bits {
        bounds[g + 1] += bounds[g];
    }
    let mut next = bounds.clone();
    let mut order = vec![0u32; n];
    for (i, r) in rows.iter().enumerate() {
        let g = group(r);
        order[next[g] as usize] = i as u32;
        next[g] += 1;
    }
    let mut sorted: Vec<Row<W>> = order.iter().map(|&i| rows[i as usize]).collect();
    for span in bounds.windows(2) {
        small_sort(&mut sorted[span[0] as usize..span[1] as usize], |r| {
            (r[col], 0)
        });
    }
    *rows = sorted;
}

/// Sort a page's few rows by `key`: insertion for a handful, else the library's sort.
fn small_sort<const W: usize>(rows: &mut [Row<W>], key: impl Fn(&Row<W>) -> (u64, u64)) {
    if rows.len() > 16 {
        rows.sort_unstable_by_key(key);
        return;
    }
    for i in 1..rows.len() {
        let mut j = i;
        while j > 0 && key(&rows[j - 1]) > key(&rows[j]) {
            rows.swap(j - 1, j);
            j -= 1;
        }
    }
}

#[cfg(test)]
mod sort_tests {
    use super::*;

    fn keys<const W: usize>(rows: &[Row<W>]) -> Vec<u64> {
        rows.iter().map(|r| r[1]).collect()
    }

    #[test]
    fn sort_by_hash_orders_as_the_library_sort() {
        let mut state = 0x1234_5678_9abc_def0u64;
        let mut random = || {
            state = mixed(state.wrapping_add(1));
            state
        };
        // uniform hashes, a shared prefix (a bucket), few distinct keys, every key equal,
        // keys that differ in their low bits only, sizes about the threshold
        let shapes: [&dyn Fn(u64, u64) -> u64; 5] = [
            &|r, _| r,
            &|r, _| (r >> 8) | (0xAB << 56),
            &|r, _| r % 5,
            &|_, _| 42,
            &|_, i| i.wrapping_mul(7) % 1000,
        ];
        for (s, shape) in shapes.iter().enumerate() {
            for n in [0usize, 1, 255, 256, 257, 1000, 5000, 70_000] {
                let mut rows: Vec<Row<3>> = (0..n as u64)
                    .map(|i| [i, shape(random(), i), random()])
                    .collect();
                let mut expected = rows.clone();
                expected.sort_unstable_by_key(|r| r[1]);
                sort_by_hash(&mut rows, 1);
                assert_eq!(keys(&rows), keys(&expected), "shape {s}, {n} rows");
                let mut same = rows.clone();
                same.sort_unstable();
                expected.sort_unstable();
                assert_eq!(same, expected, "shape {s}, {n} rows: the same rows");
            }
        }
    }
}
