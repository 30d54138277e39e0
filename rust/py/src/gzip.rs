//! Binding of the core's gzip inflation: `GzipInflater` (typed by src/urlset/_core.pyi),
//! behind `urlset.reading.sniff.Gunzip`.
use pyo3::exceptions::PyValueError;
use pyo3::prelude::*;
use pyo3::types::{PyByteArray, PyBytes};
use urlset_core::read::gzip_ahead::{default_thread_from, Inflater};

/// Compressed bytes in (`push`), decompressed pieces of at most `piece` bytes out
/// (`next_piece`, without the GIL), inflated ahead on a thread of its own from `thread_from`
/// compressed bytes on (None: where a second core can run it, from a size that pays).
#[pyclass(module = "urlset._core")]
pub struct GzipInflater {
    inner: Inflater,
}

#[pymethods]
impl GzipInflater {
    #[new]
    #[pyo3(signature = (piece, thread_from=None))]
    fn new(piece: usize, thread_from: Option<usize>) -> Self {
        GzipInflater {
            inner: Inflater::new(piece, thread_from.unwrap_or_else(default_thread_from)),
        }
    }

    fn push(&mut self, data: &[u8]) {
        self.inner.push(data);
    }

    /// The next piece, or None when more input is needed; a ValueError (the reason) at
    /// damage, after the output before it. With `before` (bytes the consumer holds unread),
    /// the piece comes after a copy of them: the consumer's own join would copy the piece
    /// once more.
    #[pyo3(signature = (before=None, /))]
    fn next_piece<'py>(
        &mut self,
        py: Python<'py>,
        before: Option<&Bound<'py, PyByteArray>>,
    ) -> PyResult<Option<Bound<'py, PyBytes>>> {
        let inner = &mut self.inner;
        let piece = match py.detach(|| inner.next_piece()) {
            Ok(Some(piece)) => piece,
            Ok(None) => return Ok(None),
            Err(e) => return Err(PyValueError::new_err(e.0)),
        };
        let Some(before) = before else {
            return Ok(Some(PyBytes::new(py, piece)));
        };
        let held = before.len();
        let len = isize::try_from(held + piece.len())?;
        // SAFETY: a new bytes object of `len` bytes (NULL: left as they are, where pyo3's
        // `new_with` zeroes them first), which nothing else holds yet, filled whole before
        // it is returned; no Python code runs while the bytearray's bytes are read
        unsafe {
            let made = pyo3::ffi::PyBytes_FromStringAndSize(std::ptr::null(), len);
            let joined = Bound::from_owned_ptr_or_err(py, made)?.cast_into_unchecked::<PyBytes>();
            let buf = pyo3::ffi::PyBytes_AsString(made).cast::<u8>();
            let buf = std::slice::from_raw_parts_mut(buf, held + piece.len());
            buf[..held].copy_from_slice(before.as_bytes());
            buf[held..].copy_from_slice(piece);
            Ok(Some(joined))
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
        self.inner.trailing()
    }

    /// Whether a thread of its own was started to inflate the stream ahead.
    #[getter]
    fn threaded(&self) -> bool {
        self.inner.threaded()
    }
}

/// Adds `GzipInflater` to `urlset._core`.
pub fn register(m: &Bound<'_, PyModule>) -> PyResult<()> {
    m.add_class::<GzipInflater>()
}
