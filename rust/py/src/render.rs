//! Bindings of the render lane: `RecordRenderer` (typed by src/urlset/_core.pyi), canonical
//! records of a urlset's body rendered as output text without the GIL and without a Python
//! object per record (see urlset.reading.rendered).
use pyo3::prelude::*;
use pyo3::types::PyBytes;
use urlset_core::read::records::{Kind, Limits};
use urlset_core::read::render::{render_run, Format, Renderer, Seen};

/// One document's renderer: its format and line tail, and the locs and origins seen so far.
#[pyclass(module = "urlset._core")]
pub struct RecordRenderer {
    renderer: Renderer,
    seen: Seen,
    max_value: usize,
}

#[pymethods]
impl RecordRenderer {
    #[new]
    fn new(format: &str, tail: &str, max_value: usize) -> PyResult<Self> {
        let format = Format::named(format).ok_or_else(|| {
            pyo3::exceptions::PyValueError::new_err(format!("no renderer for {format:?}"))
        })?;
        Ok(RecordRenderer {
            renderer: Renderer::new(format, tail.as_bytes()),
            seen: Seen::default(),
            max_value,
        })
    }

    /// Render the canonical records of `data[pos:end]` from `line` on, at most `max_records`:
    /// (pos, line, count, text); see _core.pyi.
    fn render<'py>(
        &mut self,
        py: Python<'py>,
        data: &Bound<'py, PyBytes>,
        pos: usize,
        end: usize,
        line: u32,
        max_records: usize,
    ) -> (usize, u32, usize, Bound<'py, PyBytes>) {
        let bytes = data.as_bytes();
        let end = end.min(bytes.len());
        let limits = Limits {
            kind: Kind::Urlset,
            max_records,
            max_value: self.max_value,
        };
        let (renderer, seen) = (&mut self.renderer, &mut self.seen);
        let (done, out) = py.detach(|| {
            // JSON Lines with the sitemap's URL runs ~1.2x the XML it comes from
            let mut out = Vec::with_capacity(end.saturating_sub(pos) * 5 / 4 + 256);
            let done = render_run(
                bytes,
                (pos.min(end), end),
                line,
                limits,
                renderer,
                seen,
                &mut out,
            );
            (done, out)
        });
        (done.pos, done.line, done.count, PyBytes::new(py, &out))
    }

    /// Whether `loc` is new in the document (remembered from now on).
    fn first_seen(&mut self, loc: &str) -> bool {
        self.seen.first_seen(loc.as_bytes())
    }

    /// An origin (`scheme://authority/`) the reader's sink has judged.
    fn know(&mut self, origin: &str) {
        self.seen.know(origin.as_bytes());
    }
}

/// Adds the render lane's class to `urlset._core`.
pub fn register(m: &Bound<'_, PyModule>) -> PyResult<()> {
    m.add_class::<RecordRenderer>()
}
