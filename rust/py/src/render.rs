//! Bindings of the render lane: `RecordRenderer` (typed by src/urlset/_core.pyi), canonical
//! records of a urlset's body rendered as output text without the GIL and without a Python
//! object per record (see urlset.reading.rendered).
use pyo3::prelude::*;
use pyo3::types::{PyBytes, PyList};
use urlset_core::check::ext_typed::Recorded;
use urlset_core::check::loc_texts::read_iri_only;
use urlset_core::read::columns::Columns;
use urlset_core::read::media::Prefixes;
use urlset_core::read::records::{Kind, Limits, OrderNote, PadNote, ValueNote};
use urlset_core::read::render::{
    columns_run, render_run, Conversion, Conversions, Format, Renderer, Seen,
};
use urlset_core::read::text::{columns_text_run, render_text_run, TextRun};
use urlset_core::values::loc::MAX_LOC_LENGTH;

use crate::read::{fixed, loc_hashes, prefixes, texts};

/// Output bytes from which the copy into Python's bytes object releases the GIL (below, the
/// release costs more than the copy).
const DETACHED_COPY: usize = 1 << 16;

/// `out` as a new bytes object. A long copy runs without the GIL (nothing else can see the
/// object before it is returned), into an object made uninitialised: pyo3's `new_with`
/// zeroes it first, a second pass over every byte of the output.
pub(crate) fn bytes_of<'py>(py: Python<'py>, out: &[u8]) -> PyResult<Bound<'py, PyAny>> {
    if out.len() < DETACHED_COPY {
        return Ok(PyBytes::new(py, out).into_any());
    }
    let len = isize::try_from(out.len())?;
    // SAFETY: a new bytes object of `len` bytes (NULL: its bytes left as they are), which
    // nothing else holds yet, filled whole before it is returned
    unsafe {
        let made = pyo3::ffi::PyBytes_FromStringAndSize(std::ptr::null(), len);
        let text = Bound::from_owned_ptr_or_err(py, made)?;
        let buf = pyo3::ffi::PyBytes_AsString(made).cast::<u8>();
        let buf = std::slice::from_raw_parts_mut(buf, out.len());
        py.detach(move || buf.copy_from_slice(out));
        Ok(text)
    }
}

/// One document's renderer: its format and line tail (None: into Arrow columns), with the
/// root's image, video and news prefixes records with plain images, videos and news too, and
/// the locs and origins seen so far.
#[pyclass(module = "urlset._core")]
pub struct RecordRenderer {
    renderer: Option<Renderer>,
    /// "arrow": every run's records, in document order, until `columns` takes them.
    columns: Columns,
    /// "arrow" with `judge_locs`: the per-URL extension rules' facts of the records `columns`
    /// took last, until `extension_facts` takes them.
    facts: Option<Recorded>,
    /// "arrow": the root's image, video and news prefixes (a text renderer holds its own).
    prefixes: Option<Prefixes>,
    seen: Seen,
    max_value: usize,
    /// A urlset's records, or a sitemap index's (`index=True`).
    kind: Kind,
    /// "arrow": each loc text made a URI judged for check (`odd_made`); a reader of the
    /// columns alone (`read_arrow`) skips it.
    judge_locs: bool,
    /// The last call's output buffer (text formats), kept up to [`KEPT_OUT`] bytes.
    out: Vec<u8>,
    /// Whether a loc was made a URI whose text check's loc-text rules would read again (not
    /// `read_iri_only`; in the text formats, which no check reads, any loc made a URI or a
    /// record with images).
    #[pyo3(get)]
    odd_made: bool,
    /// Whether a record's core elements were in another order than the protocol's (the
    /// checker then reads the structure itself).
    #[pyo3(get)]
    reordered: bool,
}

/// Whether a loc text made a URI is one check need not read again (`read_iri_only`).
fn read_iri_only_loc(text: &str) -> bool {
    read_iri_only(text, MAX_LOC_LENGTH)
}

/// The largest output buffer a renderer keeps between calls (a gzip piece's lines fit).
const KEPT_OUT: usize = 4 << 20;

#[pymethods]
impl RecordRenderer {
    #[new]
    #[pyo3(signature = (format, tail, max_value, image_prefix=None, video_prefix=None, news_prefix=None, xhtml_prefix=None, *, namespaces=Vec::new(), raw_levels=0, index=false, judge_locs=true))]
    #[allow(clippy::too_many_arguments)]
    fn new(
        format: &str,
        tail: &str,
        max_value: usize,
        image_prefix: Option<&str>,
        video_prefix: Option<&str>,
        news_prefix: Option<&str>,
        xhtml_prefix: Option<&str>,
        namespaces: Vec<(String, String)>,
        raw_levels: usize,
        index: bool,
        judge_locs: bool,
    ) -> PyResult<Self> {
        let kind = if index { Kind::Index } else { Kind::Urlset };
        let mut found = prefixes(
            [image_prefix, video_prefix, news_prefix, xhtml_prefix],
            namespaces,
            raw_levels,
        );
        if let Some(found) = found.as_mut() {
            found.scope.raw_strays = format != "arrow";
        }
        let renderer = if format == "arrow" {
            None
        } else {
            let format = Format::named(format).ok_or_else(|| {
                pyo3::exceptions::PyValueError::new_err(format!("no renderer for {format:?}"))
            })?;
            let renderer = Renderer::new(format, tail.as_bytes()).with_kind(kind);
            Some(match found.clone() {
                Some(found) => renderer.with_extensions(found),
                None => renderer,
            })
        };
        Ok(RecordRenderer {
            prefixes: found.filter(|_| renderer.is_none()),
            renderer,
            // check's columns (`judge_locs`) record its extension rules' facts as they write
            columns: if judge_locs {
                Columns::judging()
            } else {
                Columns::default()
            },
            facts: None,
            seen: Seen::default(),
            max_value,
            kind,
            judge_locs,
            out: Vec::new(),
            odd_made: false,
            reordered: false,
        })
    }

    /// Render the canonical records of `data[pos:end]` from `line` on, at most `max_records`:
    /// (pos, line, count, text or None, the first `listed` conversions, any loc made a URI or
    /// images, how many conversions more); see _core.pyi. Past the first `listed`
    /// conversions only their count is made Python's (the reader only counts those: a file of
    /// IRIs made 100,000 strings a 50k read to drop them, and then a tuple each).
    #[pyo3(signature = (data, pos, end, line, max_records, listed=usize::MAX, /))]
    #[allow(clippy::type_complexity, clippy::too_many_arguments)]
    fn render<'py>(
        &mut self,
        py: Python<'py>,
        data: &Bound<'py, PyBytes>,
        pos: usize,
        end: usize,
        line: u32,
        max_records: usize,
        listed: usize,
    ) -> PyResult<(
        usize,
        u32,
        usize,
        Bound<'py, PyAny>,
        Vec<Conversion>,
        bool,
        usize,
    )> {
        let bytes = data.as_bytes();
        let end = end.min(bytes.len());
        let span = (pos.min(end), end);
        let limits = Limits {
            kind: self.kind,
            max_records,
            max_value: self.max_value,
            max_judged: 0,
        };
        let seen = &mut self.seen;
        let mut conversions = Conversions::listing(listed);
        if self.renderer.is_none() && self.judge_locs {
            // the columns lane, which check reads: every loc text made a URI judged for it
            conversions = conversions.judging(read_iri_only_loc);
        }
        let Some(renderer) = self.renderer.as_mut() else {
            let columns = &mut self.columns;
            let prefixes = self.prefixes.as_ref();
            let done = py.detach(|| {
                columns_run(
                    bytes,
                    span,
                    line,
                    (limits, prefixes),
                    seen,
                    columns,
                    &mut conversions,
                )
            });
            if !columns.has_room(0) {
                return Err(pyo3::exceptions::PyValueError::new_err(
                    "records over 2 GiB of text: read the document in parts",
                ));
            }
            self.odd_made |= conversions.odd;
            self.reordered |= done.reordered;
            return Ok((
                done.pos,
                done.line,
                done.count,
                py.None().into_bound(py),
                conversions.listed,
                done.made,
                conversions.more,
            ));
        };
        // the output buffer of the last call, kept: a fresh one each call would be
        // faulted in page by page again
        let mut out = std::mem::take(&mut self.out);
        let (done, mut out) = py.detach(|| {
            out.clear();
            // JSON Lines with the sitemap's URL run to ~1.4x the XML they come from
            out.reserve((span.1 - span.0) * 2 + 256);
            let done = render_run(
                bytes,
                span,
                line,
                limits,
                renderer,
                seen,
                &mut out,
                &mut conversions,
            );
            (done, out)
        });
        let text = bytes_of(py, &out)?;
        if out.capacity() <= KEPT_OUT {
            out.clear();
            self.out = out;
        }
        // (judged in the columns lane only, which check reads: here any is taken for odd)
        self.odd_made |= done.images || done.made;
        self.reordered |= done.reordered;
        Ok((
            done.pos,
            done.line,
            done.count,
            text,
            conversions.listed,
            done.made || done.images,
            conversions.more,
        ))
    }

    /// A text sitemap's lines `data[pos:end]` (the first is line `line`), at most
    /// `max_records`: (pos, line, count, text or None, conversions, any loc made a URI, the
    /// new origin it stopped at and whether that loc was made a URI, or None); see _core.pyi.
    #[allow(clippy::type_complexity)]
    fn render_text<'py>(
        &mut self,
        py: Python<'py>,
        data: &Bound<'py, PyBytes>,
        pos: usize,
        end: usize,
        line: u32,
        max_records: usize,
    ) -> PyResult<(
        usize,
        u32,
        usize,
        Bound<'py, PyAny>,
        Vec<Conversion>,
        bool,
        Option<(String, bool)>,
    )> {
        let bytes = data.as_bytes();
        let end = end.min(bytes.len());
        let span = (pos.min(end), end);
        let limits = (max_records, self.max_value);
        let seen = &mut self.seen;
        let mut conversions = Vec::new();
        let (done, text): (TextRun, Bound<'py, PyAny>) = match self.renderer.as_mut() {
            None => {
                let columns = &mut self.columns;
                let done = py.detach(|| {
                    columns_text_run(bytes, span, line, limits, seen, (columns, &mut conversions))
                });
                if !columns.has_room(0) {
                    return Err(pyo3::exceptions::PyValueError::new_err(
                        "records over 2 GiB of text: read the document in parts",
                    ));
                }
                (done, py.None().into_bound(py))
            }
            Some(renderer) => {
                let (done, out) = py.detach(|| {
                    let mut out = Vec::with_capacity((span.1 - span.0) * 2 + 256);
                    let done = render_text_run(
                        bytes,
                        span,
                        line,
                        limits,
                        renderer,
                        seen,
                        (&mut out, &mut conversions),
                    );
                    (done, out)
                });
                (done, PyBytes::new(py, &out).into_any())
            }
        };
        Ok((
            done.pos,
            done.line,
            done.count,
            text,
            conversions,
            done.made,
            done.new_origin,
        ))
    }

    /// "arrow": the records of every run so far as Arrow buffers (see _core.pyi), taken.
    fn columns<'py>(&mut self, py: Python<'py>) -> PyResult<Bound<'py, PyAny>> {
        let mut columns = self.columns.take();
        self.facts = columns.judging.take();
        let buffers = (
            columns.len,
            texts(py, &columns.loc)?,
            texts(py, &columns.lastmod)?,
            fixed(py, &columns.lastmod_at, |v| v.to_ne_bytes())?,
            fixed(py, &columns.changefreq, |v| v.to_ne_bytes())?,
            fixed(py, &columns.priority, |v| v.to_ne_bytes())?,
            texts(py, &columns.extensions)?,
            PyBytes::new(py, crate::views::as_bytes(&columns.loc_hashes)),
        );
        Ok(buffers.into_pyobject(py)?.into_any())
    }

    /// "arrow": as `columns`, each buffer the core's own vector (a `ColumnBuffer`, read
    /// through the buffer protocol) instead of a bytes copy of it.
    fn column_views<'py>(&mut self, py: Python<'py>) -> PyResult<Bound<'py, PyAny>> {
        let mut columns = self.columns.take();
        self.facts = columns.judging.take();
        let views = crate::views::column_views(py, columns)?;
        Ok(views.into_pyobject(py)?.into_any())
    }

    /// "arrow" with `judge_locs`: the per-URL extension rules' facts of the records `columns`
    /// took last (for `judge_extensions`), taken; None when they were not recorded.
    fn extension_facts(&mut self) -> Option<ExtensionFacts> {
        self.facts
            .take()
            .map(|recorded| ExtensionFacts { recorded })
    }

    /// The sink's duplicate set while the renderer reads (as `SeenLocs.add`): whether `loc`
    /// is new in the document (remembered from now on).
    fn add(&mut self, loc: &str) -> bool {
        self.seen.first_seen(loc.as_bytes())
    }

    /// As `SeenLocs.add_all_new`: note all of `locs` when none was seen before nor is twice
    /// among them (True); else note none (False).
    fn add_all_new(&mut self, locs: &Bound<'_, PyList>) -> PyResult<bool> {
        Ok(self.seen.all_new(&loc_hashes(locs)?))
    }

    /// As `UrlsetScanner.know_stray`.
    fn know_stray(&mut self, namespace: &str, name: &str) {
        let scope = match self.renderer.as_mut() {
            Some(renderer) => renderer.scope_mut(),
            None => self.prefixes.as_mut().map(|p| &mut p.scope),
        };
        if let Some(scope) = scope {
            scope.strays.push((namespace.to_owned(), name.to_owned()));
        }
    }

    /// The images out of the schema's order among the records rendered since the last call:
    /// (record, line of the image, the child's place, the place of the one it comes after),
    /// each record counted in its run.
    fn order_notes(&mut self) -> Vec<OrderNote> {
        self.seen.take_notes()
    }

    /// The values the reader reports among the records rendered since the last call:
    /// (record, line of the element, which, its text, whether it is invalid) for the first of
    /// each code, as many as `note_room` allows, each record counted in its run, and how many
    /// more of each code (`sink._JUDGED_CODES`).
    fn value_notes(&mut self) -> (Vec<ValueNote>, [usize; 6]) {
        self.seen.take_value_notes()
    }

    /// The values written with whitespace around them among the records rendered since the
    /// last call: (record, line of the element, which, its text stripped) for the first, as
    /// many as `note_room` allows, each record counted in its run, and how many more of each
    /// element.
    fn pad_notes(&mut self) -> (Vec<PadNote>, [usize; 4]) {
        self.seen.take_pad_notes()
    }

    /// How many of each code the next takes of `value_notes` list (the others counted:
    /// `sink._JUDGED_CODES`' order), and of `pad_notes`: the room the sink has left for
    /// those issues (at most 1,000 a take).
    fn note_room(&mut self, values: [usize; 6], pads: usize) {
        self.seen.note_room(values, pads);
    }

    /// An origin (`scheme://authority/`) the reader's sink has judged.
    fn know(&mut self, origin: &str) {
        self.seen.know(origin.as_bytes());
    }
}

/// The per-URL extension rules' facts of a take of check's columns, recorded as the render
/// lane wrote them (`urlset_core::check::ext_typed`): `judge_extensions` reads them instead of
/// the extensions' JSON.
#[pyclass(module = "urlset._core", frozen)]
pub struct ExtensionFacts {
    pub recorded: Recorded,
}

/// Adds the render lane's classes to `urlset._core`.
pub fn register(m: &Bound<'_, PyModule>) -> PyResult<()> {
    m.add_class::<RecordRenderer>()?;
    m.add_class::<ExtensionFacts>()
}
