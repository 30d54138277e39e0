//! A renderer's Arrow columns handed to Python without a copy: each buffer stays the vector
//! the core wrote and is read through the buffer protocol (`pa.py_buffer` wraps it as it is),
//! where bytes objects were a copy of every column (a 500k read: ~40 MB copied into memory
//! fresh from the kernel, then the vectors freed).
use std::ffi::{c_int, c_void};

use pyo3::exceptions::PyBufferError;
use pyo3::ffi;
use pyo3::prelude::*;
use urlset_core::read::columns::{Columns, Fixed, Texts, Validity};

/// The vector behind a buffer.
enum Owned {
    Bytes(Vec<u8>),
    I8(Vec<i8>),
    I32(Vec<i32>),
    I64(Vec<i64>),
    F64(Vec<f64>),
}

/// `values` as the bytes they are in memory (native-endian, as Arrow reads them).
pub(crate) fn as_bytes<T: Copy>(values: &[T]) -> &[u8] {
    // SAFETY: every T here (i8, i32, u32, i64, f64) is plain data without padding; the slice
    // borrows `values`, so it lives no longer than they do
    unsafe { std::slice::from_raw_parts(values.as_ptr().cast::<u8>(), size_of_val(values)) }
}

impl Owned {
    fn bytes(&self) -> &[u8] {
        match self {
            Owned::Bytes(v) => v,
            Owned::I8(v) => as_bytes(v),
            Owned::I32(v) => as_bytes(v),
            Owned::I64(v) => as_bytes(v),
            Owned::F64(v) => as_bytes(v),
        }
    }
}

/// One column buffer, read-only, owned by the Python object (freed with it).
#[pyclass(module = "urlset._core", frozen)]
pub struct ColumnBuffer {
    owned: Owned,
}

#[pymethods]
impl ColumnBuffer {
    /// # Safety
    /// `view` is the buffer the interpreter asks this object to fill (the buffer protocol).
    unsafe fn __getbuffer__(
        slf: Bound<'_, Self>,
        view: *mut ffi::Py_buffer,
        flags: c_int,
    ) -> PyResult<()> {
        if flags & ffi::PyBUF_WRITABLE == ffi::PyBUF_WRITABLE {
            return Err(PyBufferError::new_err("a column buffer is read-only"));
        }
        let bytes = slf.get().owned.bytes();
        let len = isize::try_from(bytes.len())
            .map_err(|_| PyBufferError::new_err("a column buffer past isize"))?;
        // SAFETY: the view holds a reference to `slf` (set by PyBuffer_FillInfo), whose
        // vector is never changed (frozen, no method changes it): the pointer stays valid
        // while the view lives
        let filled = unsafe {
            ffi::PyBuffer_FillInfo(
                view,
                slf.as_ptr(),
                bytes.as_ptr().cast_mut().cast::<c_void>(),
                len,
                1,
                flags,
            )
        };
        if filled == 0 {
            Ok(())
        } else {
            Err(PyErr::fetch(slf.py()))
        }
    }

    fn __len__(&self) -> usize {
        self.owned.bytes().len()
    }
}

fn buffer(py: Python<'_>, owned: Owned) -> PyResult<Py<ColumnBuffer>> {
    Py::new(py, ColumnBuffer { owned })
}

/// (validity or None, nulls), as `read.rs`'s `validity` gives it.
type ValidityView = (Option<Py<ColumnBuffer>>, usize);
/// A column: (validity, offsets or values, values or None), as `read.rs`'s `Buffers`.
type View = (ValidityView, Py<ColumnBuffer>, Option<Py<ColumnBuffer>>);

fn validity(py: Python<'_>, v: Validity) -> PyResult<ValidityView> {
    Ok(if v.nulls == 0 {
        (None, 0)
    } else {
        let nulls = v.nulls;
        (Some(buffer(py, Owned::Bytes(v.bits))?), nulls)
    })
}

fn texts(py: Python<'_>, t: Texts) -> PyResult<View> {
    Ok((
        validity(py, t.validity)?,
        buffer(py, Owned::I32(t.offsets))?,
        Some(buffer(py, Owned::Bytes(t.values))?),
    ))
}

fn fixed<T>(py: Python<'_>, f: Fixed<T>, owned: impl Fn(Vec<T>) -> Owned) -> PyResult<View> {
    Ok((
        validity(py, f.validity)?,
        buffer(py, owned(f.values))?,
        None,
    ))
}

/// `columns` as `RecordRenderer.columns` gives them, each buffer a [`ColumnBuffer`].
pub(crate) fn column_views(
    py: Python<'_>,
    columns: Columns,
) -> PyResult<(usize, View, View, View, View, View, View)> {
    Ok((
        columns.len,
        texts(py, columns.loc)?,
        texts(py, columns.lastmod)?,
        fixed(py, columns.lastmod_at, Owned::I64)?,
        fixed(py, columns.changefreq, Owned::I8)?,
        fixed(py, columns.priority, Owned::F64)?,
        texts(py, columns.extensions)?,
    ))
}

pub fn register(m: &Bound<'_, PyModule>) -> PyResult<()> {
    m.add_class::<ColumnBuffer>()
}
