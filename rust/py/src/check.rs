//! The checker's scans of the bytes as written (`urlset_core::check`).
use pyo3::prelude::*;
use pyo3::types::PyBytes;
use urlset_core::check::loc_texts::{self as core_loc_texts, Flagged, JUDGE, NON_ASCII, TOO_LONG};

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

/// The flagged loc texts of `window` (`urlset_core::check::loc_texts`) as columns, the
/// window's line end count and the offset of its last one (None when it has none).
#[pyfunction]
fn loc_texts<'py>(
    py: Python<'py>,
    window: &[u8],
    longest: usize,
    line: u64,
    carry: u64,
) -> (FlaggedColumns<'py>, u64, Option<usize>) {
    let scanned = py.detach(|| core_loc_texts::loc_texts(window, longest, line, carry));
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

pub fn register(m: &Bound<'_, PyModule>) -> PyResult<()> {
    m.add_function(wrap_pyfunction!(loc_texts, m)?)?;
    m.add("LOC_NON_ASCII", NON_ASCII)?;
    m.add("LOC_TOO_LONG", TOO_LONG)?;
    m.add("LOC_JUDGE", JUDGE)?;
    Ok(())
}
