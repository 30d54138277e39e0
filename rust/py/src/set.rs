//! The set rule's engine (`urlset_core::set`): hreflang reciprocity across a sitemap set on
//! hashes, fed by check (its records' JSON, straight from the column buffers) and by build
//! (the rows the core rendered), judged without numpy.
use std::io;

use pyo3::exceptions::PyValueError;
use pyo3::prelude::*;
use pyo3::types::{PyBytes, PyString};
use urlset_core::check::loc_column::StringColumn;
use urlset_core::set::{alternates_in, alternates_into, LinkSet, SPILL_BYTES, STRING_BATCH};

use crate::write::RenderedRows;

/// (page, target, hreflang, named_by) of each missing link listed, how many there are;
/// (variant, hreflang, named_by, in_set) of each unlisted variant listed, how many are in
/// the set and outside it; the pages with alternates.
type Judged = (
    Vec<(String, String, String, String)>,
    u64,
    Vec<(String, String, String, bool)>,
    u64,
    u64,
    u64,
);

fn hashes_from(bytes: &[u8]) -> Vec<u64> {
    bytes
        .chunks_exact(8)
        .map(|w| u64::from_ne_bytes(w.try_into().expect("8 bytes")))
        .collect()
}

/// A set's hreflang links as hashes, spilled to a temporary directory past a megabyte a
/// table (`urlset_core::set`; `close` removes it, and so does the engine's collection).
#[pyclass(name = "LinkSet", module = "urlset._core")]
pub struct PyLinkSet {
    inner: LinkSet,
}

#[pymethods]
impl PyLinkSet {
    #[new]
    #[pyo3(signature = (spill_bytes = SPILL_BYTES, string_batch = STRING_BATCH))]
    fn new(spill_bytes: usize, string_batch: usize) -> Self {
        PyLinkSet {
            inner: LinkSet::new(spill_bytes, string_batch),
        }
    }

    /// A page and its links, (href, hreflang) each as written (one an href: the first place,
    /// the last code). A text that is not UTF-8 (a lone surrogate) is taken with U+FFFD, as
    /// the set's hashes take it.
    fn add_page(
        &mut self,
        loc: &Bound<'_, PyString>,
        links: Vec<(Bound<'_, PyString>, Bound<'_, PyString>)>,
    ) -> PyResult<()> {
        let links: Vec<(String, String)> = links
            .iter()
            .map(|(href, code)| {
                (
                    href.to_string_lossy().into_owned(),
                    code.to_string_lossy().into_owned(),
                )
            })
            .collect();
        Ok(self.inner.add_page(&loc.to_string_lossy(), &links)?)
    }

    /// Pages without alternates as their locs' hashes (native-endian u64s, as
    /// `loc_hashes` packs them).
    fn add_plain(&mut self, hashes: &[u8]) -> PyResult<()> {
        Ok(self.inner.add_plain(&hashes_from(hashes))?)
    }

    /// The records `rows` (native-endian u32s, counted from `start`) of a run of the render
    /// lane's columns: each one's alternates read from its extensions' JSON, its loc from
    /// the loc column, in order.
    #[allow(clippy::too_many_arguments)]
    fn add_json_rows(
        &mut self,
        py: Python<'_>,
        ext_offsets: &[u8],
        ext_values: &[u8],
        loc_offsets: &[u8],
        loc_values: &[u8],
        start: usize,
        rows: &[u8],
    ) -> PyResult<()> {
        let extensions = StringColumn::new(ext_offsets, ext_values);
        let locs = StringColumn::new(loc_offsets, loc_values);
        let inner = &mut self.inner;
        py.detach(|| -> io::Result<Option<()>> {
            let numbers: Vec<usize> = rows
                .chunks_exact(4)
                .map(|word| start + u32::from_ne_bytes(word.try_into().expect("4 bytes")) as usize)
                .collect();
            let (lo, hi) = numbers.iter().fold((usize::MAX, 0), |(lo, hi), &row| {
                (lo.min(row), hi.max(row + 1))
            });
            // the rows' values checked as UTF-8 in one pass each (a row per call cost ~150
            // instructions); a row that is not text on its own is read as before
            let (ext_texts, loc_texts) = if lo < hi {
                (extensions.texts(lo, hi), locs.texts(lo, hi))
            } else {
                (None, None)
            };
            let mut links = Vec::new();
            for &row in &numbers {
                let linked = match ext_texts.and_then(|texts| texts.row(row)) {
                    Some(text) => alternates_in(text, &mut links),
                    None => extensions
                        .row(row)
                        .is_some_and(|text| alternates_into(text, &mut links)),
                };
                if !linked {
                    return Ok(None);
                }
                let loc = match loc_texts.and_then(|texts| texts.row(row)) {
                    Some(loc) => loc,
                    None => match locs.row(row).and_then(|l| std::str::from_utf8(l).ok()) {
                        Some(loc) => loc,
                        None => return Ok(None),
                    },
                };
                inner.add_page(loc, &links)?;
            }
            Ok(Some(()))
        })?
        .ok_or_else(|| PyValueError::new_err("a row outside the columns, or not the core's JSON"))
    }

    /// A batch the build wrote, as the core rendered it: the entries with hreflang links,
    /// and with `plain` the hashes of the others.
    fn add_rendered(
        &mut self,
        py: Python<'_>,
        written: PyRef<'_, RenderedRows>,
        plain: bool,
    ) -> PyResult<()> {
        let rendered = &written.rendered;
        let inner = &mut self.inner;
        // without the GIL: the pages' rows hashed, and spilled to files past the room, while
        // the source's thread goes on reading
        py.detach(|| -> io::Result<()> {
            let mut linked = vec![false; rendered.len()];
            for (index, links) in rendered.links() {
                let links: Vec<(&str, &str)> =
                    links.iter().map(|(code, href)| (href, code)).collect();
                inner.add_page(rendered.loc(index), &links)?;
                linked[index] = !links.is_empty();
            }
            if plain {
                let hashes: Vec<u64> = rendered
                    .hashes()
                    .iter()
                    .zip(&linked)
                    .filter(|(_, &has)| !has)
                    .map(|(&h, _)| h)
                    .collect();
                inner.add_plain(&hashes)?;
            }
            Ok(())
        })?;
        Ok(())
    }

    /// Pages added with links.
    #[getter]
    fn records(&self) -> u64 {
        self.inner.records()
    }

    /// The spill directory, once something went to a file.
    #[getter]
    fn spill_path(&self) -> Option<String> {
        self.inner
            .spill_path()
            .map(|p| p.to_string_lossy().into_owned())
    }

    /// Remove the spill directory.
    fn close(&mut self) {
        self.inner.close();
    }

    /// The findings (see `Judged`): the first `cap` of each code (all without one);
    /// `known_packed` (the hashes packed -> a byte each, 0: in the set, as
    /// `SeenHashes.first_seen_packed` answers) or `known_strings` (hrefs -> booleans) says
    /// which variants without alternates are in the set.
    #[pyo3(signature = (cap, include_self, known_packed = None, known_strings = None))]
    fn judge(
        &mut self,
        py: Python<'_>,
        cap: Option<usize>,
        include_self: bool,
        known_packed: Option<Py<PyAny>>,
        known_strings: Option<Py<PyAny>>,
    ) -> PyResult<Judged> {
        let found = if known_packed.is_none() && known_strings.is_none() {
            let inner = &mut self.inner;
            py.detach(|| inner.judge(cap, include_self, None))?
        } else {
            let mut failure: Option<PyErr> = None;
            let mut known = |hashes: &[u64], hrefs: &mut dyn FnMut() -> io::Result<Vec<String>>| {
                let answer = ask(
                    py,
                    hashes,
                    hrefs,
                    known_packed.as_ref(),
                    known_strings.as_ref(),
                );
                answer.map_err(|err| {
                    failure = Some(err);
                    io::Error::other("the set's answer failed")
                })
            };
            let said = self.inner.judge(cap, include_self, Some(&mut known));
            if let Some(err) = failure {
                return Err(err);
            }
            said?
        };
        Ok((
            found
                .missing
                .into_iter()
                .map(|m| (m.page, m.target, m.hreflang, m.named_by))
                .collect(),
            found.missing_count,
            found
                .unlisted
                .into_iter()
                .map(|u| (u.variant, u.hreflang, u.named_by, u.in_set))
                .collect(),
            found.unlisted_in_set,
            found.unlisted_outside,
            found.pages,
        ))
    }
}

/// Which of the variants `hashes` are in the set, asked of Python.
fn ask(
    py: Python<'_>,
    hashes: &[u64],
    hrefs: &mut dyn FnMut() -> io::Result<Vec<String>>,
    packed: Option<&Py<PyAny>>,
    strings: Option<&Py<PyAny>>,
) -> PyResult<Vec<bool>> {
    if let Some(packed) = packed {
        let bytes: Vec<u8> = hashes.iter().flat_map(|h| h.to_ne_bytes()).collect();
        let fresh: Vec<u8> = packed.call1(py, (PyBytes::new(py, &bytes),))?.extract(py)?;
        return Ok(fresh.iter().map(|&f| f == 0).collect());
    }
    let strings = strings.expect("one way to ask");
    let answer: Vec<bool> = strings.call1(py, (hrefs()?,))?.extract(py)?;
    if answer.len() != hashes.len() {
        return Err(PyValueError::new_err(
            "the set answered for another number of variants",
        ));
    }
    Ok(answer)
}

pub fn register(m: &Bound<'_, PyModule>) -> PyResult<()> {
    m.add_class::<PyLinkSet>()?;
    m.add("SET_SPILL_BYTES", SPILL_BYTES)?;
    Ok(())
}
