//! The checker's scans of the bytes as written (`urlset_core::check`).
use pyo3::prelude::*;
use urlset_core::check::loc_texts::{self as core_loc_texts, JUDGE, NON_ASCII, TOO_LONG};

/// A flagged loc text as Python takes it: (start, end, line, column, flags).
type FlaggedText = (usize, usize, u64, u64, u8);

/// The flagged loc texts of `window` (`urlset_core::check::loc_texts`): a list of (start,
/// end, line, column, flags), the window's line end count and the offset of its last one
/// (None when it has none).
#[pyfunction]
fn loc_texts(
    py: Python<'_>,
    window: &[u8],
    longest: usize,
    line: u64,
    carry: u64,
) -> (Vec<FlaggedText>, u64, Option<usize>) {
    let scanned = py.detach(|| core_loc_texts::loc_texts(window, longest, line, carry));
    let flagged = scanned
        .flagged
        .into_iter()
        .map(|f| (f.start, f.end, f.line, f.column, f.flags));
    (flagged.collect(), scanned.newlines, scanned.last_newline)
}

pub fn register(m: &Bound<'_, PyModule>) -> PyResult<()> {
    m.add_function(wrap_pyfunction!(loc_texts, m)?)?;
    m.add("LOC_NON_ASCII", NON_ASCII)?;
    m.add("LOC_TOO_LONG", TOO_LONG)?;
    m.add("LOC_JUDGE", JUDGE)?;
    Ok(())
}
