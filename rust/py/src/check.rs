//! The checker's scans of the bytes as written (`urlset_core::check`).
use pyo3::exceptions::PyValueError;
use pyo3::prelude::*;
use pyo3::types::{PyBytes, PyDict, PyList, PyString};
use urlset_core::check::element_texts::{Needles, Prefixes};
use urlset_core::check::{ext_json, ext_typed};

use crate::render::ExtensionFacts;
use urlset_core::check::index_lines;
use urlset_core::check::lastmods;
use urlset_core::check::loc_column::{self, StringColumn};
use urlset_core::check::loc_texts::{self as core_loc_texts, Flagged, JUDGE, NON_ASCII, TOO_LONG};
use urlset_core::check::order;
use urlset_core::check::text_lines;
use urlset_core::values::loc::MAX_LOC_LENGTH;

/// The flagged loc texts of a window as columns: start, end, line and column (each as the
/// native-endian u64s of a bytes object, for `memoryview.cast("Q")`), and the flags (a byte
/// each), so that Python counts most of them at C speed.
type FlaggedColumns<'py> = (
    Bound<'py, PyBytes>,
    Bound<'py, PyBytes>,
    Bound<'py, PyBytes>,
    Bound<'py, PyBytes>,
    Bound<'py, PyBytes>,
);

fn column<'py>(
    py: Python<'py>,
    flagged: &[Flagged],
    of: fn(&Flagged) -> u64,
) -> Bound<'py, PyBytes> {
    let bytes: Vec<u8> = flagged.iter().flat_map(|f| of(f).to_ne_bytes()).collect();
    PyBytes::new(py, &bytes)
}

/// The flagged loc texts of `window` (`urlset_core::check::loc_texts`, past the elements of
/// the `foreign` prefixes) as columns, the window's line end count and the offset of its
/// last one (None when it has none).
#[pyfunction]
#[pyo3(signature = (window, longest, line, carry, foreign = Vec::new()))]
fn loc_texts<'py>(
    py: Python<'py>,
    window: &[u8],
    longest: usize,
    line: u64,
    carry: u64,
    foreign: Vec<Vec<u8>>,
) -> (FlaggedColumns<'py>, u64, Option<usize>) {
    let foreign: Vec<&[u8]> = foreign.iter().map(Vec::as_slice).collect();
    let scanned = py.detach(|| core_loc_texts::loc_texts(window, longest, line, carry, &foreign));
    let found = &scanned.flagged;
    let flags: Vec<u8> = found.iter().map(|f| f.flags).collect();
    let columns = (
        column(py, found, |f| f.start as u64),
        column(py, found, |f| f.end as u64),
        column(py, found, |f| f.line),
        column(py, found, |f| f.column),
        PyBytes::new(py, &flags),
    );
    (columns, scanned.newlines, scanned.last_newline)
}

/// Whether `window` from `start` breaks the protocol's order of elements
/// (`urlset_core::check::order`): `index` for a sitemap index, `prefixes` when a prefix is
/// declared.
#[pyfunction]
fn breaks_order(py: Python<'_>, window: &[u8], start: usize, index: bool, prefixes: bool) -> bool {
    py.detach(|| order::breaks_order(window, start, index, prefixes))
}

/// The lines of the loc elements of the `<sitemap>` entries of `run` (bytes of an index
/// that end after an entry's end tag), counted from `line`: one for each of `refs` (the
/// index's `SitemapRef`s, a loc first, or their locs) from `taken` on, as many as `run` has
/// start tags (`index_lines::lines_in_order`), and the line ends in `run`; None where the
/// Python pass must judge it (`run` holds more start tags than refs are left, or a loc not
/// as written).
#[pyfunction]
fn index_run_lines(
    py: Python<'_>,
    run: &[u8],
    refs: &Bound<'_, PyList>,
    taken: usize,
    line: usize,
) -> PyResult<Option<(Vec<usize>, usize)>> {
    let count = py.detach(|| index_lines::entries(run));
    if taken + count > refs.len() {
        return Ok(None);
    }
    let items: Vec<Bound<'_, PyString>> = (taken..taken + count)
        .map(|i| {
            // a loc itself, or a SitemapRef (whose first item is its loc)
            let item = refs.get_item(i)?;
            let loc = if item.is_instance_of::<PyString>() {
                item
            } else {
                item.get_item(0)?
            };
            Ok(loc.cast_into::<PyString>()?)
        })
        .collect::<PyResult<_>>()?;
    let locs: Vec<&str> = items.iter().map(|t| t.to_str()).collect::<PyResult<_>>()?;
    Ok(py.detach(|| {
        let lines = index_lines::lines_in_order(run, &locs)?;
        let ends = memchr::memchr_iter(b'\n', run).count();
        Some((lines.into_iter().map(|n| n + line - 1).collect(), ends))
    }))
}

/// Whether `window` holds `xmlns` (`order::declares_namespace`).
#[pyfunction]
fn declares_namespace(py: Python<'_>, window: &[u8]) -> bool {
    py.detach(|| order::declares_namespace(window))
}

fn outside() -> PyErr {
    PyValueError::new_err("rows outside the column's buffers, or not UTF-8")
}

/// The loc hashes (native-endian u64s, as the render lane's columns give them) whose byte
/// in `mask` is not 0 (`loc_column::hashes_where`).
#[pyfunction]
fn loc_hashes_where<'py>(
    py: Python<'py>,
    hashes: &[u8],
    mask: &[u8],
) -> PyResult<Bound<'py, PyBytes>> {
    let kept = loc_column::hashes_where(hashes, mask)
        .ok_or_else(|| PyValueError::new_err("the mask needs one byte a hash"))?;
    Ok(PyBytes::new(py, &kept))
}

/// Whether every loc of rows `start..stop` of the render lane's loc column starts with
/// `prefix`.
#[pyfunction]
fn loc_column_starts_with(
    offsets: &[u8],
    values: &[u8],
    start: usize,
    stop: usize,
    prefix: &[u8],
) -> PyResult<bool> {
    let column = StringColumn::new(offsets, values);
    loc_column::all_start_with(column, start, stop, prefix).ok_or_else(outside)
}

/// A run's records judged by the per-URL extension rules from their JSON
/// (`urlset_core::check::ext_json`), sorted so that Python walks none of them: the records
/// flagged for the careful way, those with findings and those with alternates (native-endian
/// u32s, counted from the run's first); a byte a record for the plain pages among those
/// judged and one for the records without extensions; each kind's total over the records
/// judged; for each code the records judged with findings of it (u32s) and its total over
/// them; every record's counts (the codes', then the kinds', u32s); each news item's record
/// (u32s) and date (i32s: an index into the distinct dates, -1 for none), and the distinct
/// dates.
type JudgedColumns<'py> = (
    (
        Bound<'py, PyBytes>,
        Bound<'py, PyBytes>,
        Bound<'py, PyBytes>,
        Bound<'py, PyBytes>,
        Bound<'py, PyBytes>,
        Vec<u64>,
        Vec<Bound<'py, PyBytes>>,
        Vec<u64>,
    ),
    Bound<'py, PyBytes>,
    Bound<'py, PyBytes>,
    Bound<'py, PyBytes>,
    Vec<String>,
);

/// Native-endian bytes of `values`, as they are in memory: copied once, into the bytes
/// object (ten words a record for `judge_extensions`'s counts).
fn words(values: &[u32]) -> &[u8] {
    crate::views::as_bytes(values)
}

/// Rows `start..stop` of the render lane's extensions column judged with their locs (the loc
/// column's buffers): see `JudgedColumns`. With `facts` (`RecordRenderer.extension_facts`,
/// recorded beside the column as it was written) their facts are taken, not read again
/// from the JSON; the JSON is read when they are not this column's.
#[pyfunction]
#[pyo3(signature = (ext_offsets, ext_values, loc_offsets, loc_values, start, stop, facts=None, /))]
#[allow(clippy::too_many_arguments)]
fn judge_extensions<'py>(
    py: Python<'py>,
    ext_offsets: &[u8],
    ext_values: &[u8],
    loc_offsets: &[u8],
    loc_values: &[u8],
    start: usize,
    stop: usize,
    facts: Option<Bound<'py, ExtensionFacts>>,
) -> PyResult<JudgedColumns<'py>> {
    let extensions = StringColumn::new(ext_offsets, ext_values);
    let locs = StringColumn::new(loc_offsets, loc_values);
    let recorded = facts.as_ref().map(|facts| &facts.get().recorded);
    let (judged, rows) = py
        .detach(|| {
            recorded
                .and_then(|recorded| ext_typed::judged_from(recorded, extensions, start, stop))
                .or_else(|| ext_json::judge(extensions, locs, start, stop))
                .map(|judged| {
                    let rows = judged.rows();
                    (judged, rows)
                })
        })
        .ok_or_else(outside)?;
    let dates: Vec<u8> = judged
        .news_dates
        .iter()
        .flat_map(|v| v.to_ne_bytes())
        .collect();
    Ok((
        (
            PyBytes::new(py, words(&rows.flagged)),
            PyBytes::new(py, words(&rows.found)),
            PyBytes::new(py, words(&rows.linked)),
            PyBytes::new(py, &rows.plain),
            PyBytes::new(py, &rows.without),
            rows.kinds.to_vec(),
            rows.with_code
                .iter()
                .map(|rows| PyBytes::new(py, words(rows)))
                .collect(),
            rows.codes.to_vec(),
        ),
        PyBytes::new(py, words(&judged.counts)),
        PyBytes::new(py, words(&judged.news_records)),
        PyBytes::new(py, &dates),
        judged.dates,
    ))
}

/// The news items older than the window, by record (`ext_json::old_by_record`): each item's
/// record (u32s) and date (i32s) as `judge_extensions` gives them, and a byte per distinct date
/// (1: older than the window): the records with old items and how many each has (u32s).
#[pyfunction]
fn old_news<'py>(
    py: Python<'py>,
    records: &[u8],
    dates: &[u8],
    old: &[u8],
) -> PyResult<(Bound<'py, PyBytes>, Bound<'py, PyBytes>)> {
    let records: Vec<u32> = records
        .chunks_exact(4)
        .map(|w| u32::from_ne_bytes([w[0], w[1], w[2], w[3]]))
        .collect();
    let dates: Vec<i32> = dates
        .chunks_exact(4)
        .map(|w| i32::from_ne_bytes([w[0], w[1], w[2], w[3]]))
        .collect();
    let old: Vec<bool> = old.iter().map(|&b| b != 0).collect();
    let (rows, counts) = ext_json::old_by_record(&records, &dates, &old).ok_or_else(outside)?;
    Ok((
        PyBytes::new(py, words(&rows)),
        PyBytes::new(py, words(&counts)),
    ))
}

/// Each distinct `scheme://authority` of rows `start..stop` of the render lane's loc column,
/// first seen first, with the row (from `start`) of its first loc and its number of locs;
/// None when the checker must cut the locs itself (see `loc_column::authorities`).
#[pyfunction]
fn loc_column_authorities(
    offsets: &[u8],
    values: &[u8],
    start: usize,
    stop: usize,
) -> PyResult<Option<Vec<(String, usize, usize)>>> {
    if stop > start
        && loc_column::all_start_with(StringColumn::new(offsets, values), start, stop, b"")
            .is_none()
    {
        return Err(outside());
    }
    let column = StringColumn::new(offsets, values);
    Ok(loc_column::authorities(column, start, stop).map(|found| {
        found
            .into_iter()
            .map(|(authority, row, count)| {
                (String::from_utf8_lossy(authority).into_owned(), row, count)
            })
            .collect()
    }))
}

/// A run's lastmods (`urlset_core::check::lastmods`): rows `start..stop` of the lastmod
/// text column (its offsets and values) and the instant column (its values buffer), the
/// latest day's instant and now's (None: no time flagged): the newest date's row and the
/// newest time's (None for none), the flagged rows, the years and months (native-endian u32s,
/// counted from `start`), their distinct texts (text, first row, rows) and each one's
/// (u32s: an index into the texts).
#[pyfunction]
#[allow(clippy::too_many_arguments)]
fn judge_lastmods<'py>(
    py: Python<'py>,
    offsets: &[u8],
    values: &[u8],
    instants: &[u8],
    start: usize,
    stop: usize,
    latest_day: i64,
    now: Option<i64>,
) -> PyResult<JudgedLastmods<'py>> {
    let texts = StringColumn::new(offsets, values);
    let found = py
        .detach(|| lastmods::judge(texts, instants, start, stop, latest_day, now))
        .ok_or_else(outside)?;
    let groups = found
        .groups
        .iter()
        .map(|(text, first, rows)| {
            Ok((
                String::from_utf8(text.clone()).map_err(|_| outside())?,
                *first,
                *rows,
            ))
        })
        .collect::<PyResult<Vec<_>>>()?;
    Ok((
        found.newest_date,
        found.newest_time,
        PyBytes::new(py, words(&found.flagged)),
        PyBytes::new(py, words(&found.reduced)),
        groups,
        PyBytes::new(py, words(&found.group_of)),
    ))
}

/// See `judge_lastmods`.
type JudgedLastmods<'py> = (
    Option<usize>,
    Option<usize>,
    Bound<'py, PyBytes>,
    Bound<'py, PyBytes>,
    Vec<(String, u32, u32)>,
    Bound<'py, PyBytes>,
);

/// The texts of `rows` (native-endian u32s, counted from `start`) of a string column (its
/// offsets and values buffers) as strings: a few records' locs, lastmods or JSON without
/// making every row's.
#[pyfunction]
fn column_texts_at<'py>(
    py: Python<'py>,
    offsets: &[u8],
    values: &[u8],
    start: usize,
    rows: &[u8],
) -> PyResult<Vec<Bound<'py, PyString>>> {
    let column = StringColumn::new(offsets, values);
    rows.chunks_exact(4)
        .map(|word| {
            let row = start + u32::from_ne_bytes(word.try_into().map_err(|_| outside())?) as usize;
            let text = column
                .row(row)
                .and_then(|bytes| std::str::from_utf8(bytes).ok());
            Ok(PyString::new(py, text.ok_or_else(outside)?))
        })
        .collect()
}

/// `urlset_core::check::loc_texts::read_iri_only` at the protocol's length limit: a loc text
/// as the reader reads it that check's loc-text rules find nothing in beyond the reader's
/// own `normalized-url`.
#[pyfunction]
fn loc_read_iri_only(text: &str) -> bool {
    core_loc_texts::read_iri_only(text, MAX_LOC_LENGTH)
}

/// The lines of a text sitemap's `chunk` that are not quiet, each as (number from 0, start,
/// end): `urlset_core::check::text_lines::odd_lines`.
#[pyfunction]
fn odd_text_lines(py: Python<'_>, chunk: &[u8]) -> Vec<(usize, usize, usize)> {
    py.detach(|| text_lines::odd_lines(chunk))
}

pub fn register(m: &Bound<'_, PyModule>) -> PyResult<()> {
    m.add_function(wrap_pyfunction!(loc_column_authorities, m)?)?;
    m.add_function(wrap_pyfunction!(judge_extensions, m)?)?;
    m.add_function(wrap_pyfunction!(judge_lastmods, m)?)?;
    m.add_function(wrap_pyfunction!(old_news, m)?)?;
    m.add_function(wrap_pyfunction!(column_texts_at, m)?)?;
    m.add("EXT_JSON_CODES", ext_json::CODES.to_vec())?;
    m.add("EXT_JSON_KINDS", ext_json::KINDS.to_vec())?;
    m.add_function(wrap_pyfunction!(loc_texts, m)?)?;
    m.add_class::<ElementTexts>()?;
    m.add_function(wrap_pyfunction!(loc_read_iri_only, m)?)?;
    m.add_function(wrap_pyfunction!(breaks_order, m)?)?;
    m.add_function(wrap_pyfunction!(index_run_lines, m)?)?;
    m.add_function(wrap_pyfunction!(declares_namespace, m)?)?;
    m.add_function(wrap_pyfunction!(loc_hashes_where, m)?)?;
    m.add_function(wrap_pyfunction!(loc_column_starts_with, m)?)?;
    m.add_function(wrap_pyfunction!(odd_text_lines, m)?)?;
    m.add("LOC_NON_ASCII", NON_ASCII)?;
    m.add("LOC_TOO_LONG", TOO_LONG)?;
    m.add("LOC_JUDGE", JUDGE)?;
    Ok(())
}

/// Where the needles (bytes) are written as an element's text, a window at a time
/// (`urlset_core::check::element_texts`: the texts of `>([^<]+)<`, or with `prefixes` of
/// `>((?:p1|p2|...)[^<]*)<`): `found` holds the offsets of each needle found so far (a list
/// a needle, keyed by its bytes object, in document order).
#[pyclass(module = "urlset._core")]
pub struct ElementTexts {
    needles: Needles,
    starts: Option<Prefixes>,
    keys: Vec<Py<PyBytes>>,
    lists: Vec<Option<Py<PyList>>>,
    found: Py<PyDict>,
}

#[pymethods]
impl ElementTexts {
    #[new]
    #[pyo3(signature = (needles, prefixes = None))]
    fn new(
        py: Python<'_>,
        needles: &Bound<'_, PyAny>,
        prefixes: Option<Vec<Vec<u8>>>,
    ) -> PyResult<Self> {
        let mut texts = ElementTexts {
            needles: Needles::default(),
            starts: prefixes.map(|p| Prefixes::new(p.iter().map(Vec::as_slice))),
            keys: Vec::new(),
            lists: Vec::new(),
            found: PyDict::new(py).unbind(),
        };
        for needle in needles.try_iter()? {
            let needle = needle?.cast_into::<PyBytes>().map_err(PyErr::from)?;
            if texts.needles.insert(needle.as_bytes()) as usize == texts.keys.len() {
                texts.keys.push(needle.unbind());
                texts.lists.push(None);
            }
        }
        Ok(texts)
    }

    /// Add the occurrences in `window`, whose first byte is the document's `base`th.
    fn scan(&mut self, py: Python<'_>, window: &[u8], base: u64) -> PyResult<()> {
        let (needles, starts) = (&self.needles, self.starts.as_ref());
        let found = py.detach(|| needles.occurrences(window, starts));
        let dict = self.found.bind(py);
        for (number, start) in found {
            let k = number as usize;
            let list = match &self.lists[k] {
                Some(list) => list.bind(py).clone(),
                None => {
                    let list = PyList::empty(py);
                    dict.set_item(self.keys[k].bind(py), &list)?;
                    self.lists[k] = Some(list.clone().unbind());
                    list
                }
            };
            list.append(base + start as u64)?;
        }
        Ok(())
    }

    #[getter]
    fn found<'py>(&self, py: Python<'py>) -> Bound<'py, PyDict> {
        self.found.bind(py).clone()
    }
}
