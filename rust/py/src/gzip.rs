//! Binding of the core's gzip inflation: `GzipInflater` (typed by src/urlset/_core.pyi),
//! behind `urlset.reading.sniff.Gunzip`.
use pyo3::exceptions::PyValueError;
use pyo3::prelude::*;
use pyo3::types::PyBytes;
use urlset_core::read::gzip::Gunzip;

/// Compressed bytes in (`push`), decompressed pieces out (`next_piece`, without the GIL).
#[pyclass(module = "urlset._core")]
pub struct GzipInflater {
    inner: Gunzip,
}

#[pymethods]
impl GzipInflater {
    #[new]
    fn new() -> Self {
        GzipInflater {
            inner: Gunzip::new(),
        }
    }

    fn push(&mut self, data: &[u8]) {
        self.inner.push(data);
    }

    /// At most `max` decompressed bytes, or None when more input is needed; a ValueError
    /// (the reason) at damage, after the output before it.
    fn next_piece<'py>(
        &mut self,
        py: Python<'py>,
        max: usize,
    ) -> PyResult<Option<Bound<'py, PyBytes>>> {
        let inner = &mut self.inner;
        match py.detach(|| inner.next_piece(max)) {
            Ok(piece) => Ok(piece.map(|p| PyBytes::new(py, p))),
            Err(e) => Err(PyValueError::new_err(e.0)),
        }
    }

    /// Whether the last member ended and no partial member follows.
    #[getter]
    fn complete(&self) -> bool {
        self.inner.complete()
    }

    /// Whether bytes other than zero padding follow the last member.
    #[getter]
    fn trailing(&self) -> bool {
        self.inner.trailing
    }
}

/// Adds `GzipInflater` to `urlset._core`.
pub fn register(m: &Bound<'_, PyModule>) -> PyResult<()> {
    m.add_class::<GzipInflater>()
}
