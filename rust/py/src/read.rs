//! Bindings of the compiled reading lane: `UrlsetScanner` (typed by src/urlset/_core.pyi).
use std::sync::Arc;

use pyo3::prelude::*;
use pyo3::types::{PyBytes, PyFloat, PyList, PyString, PyTuple, PyType};
use urlset_core::read::columns::{Fixed, Texts, Validity};
use urlset_core::read::media::{Media, News, Prefixes, Video};
use urlset_core::read::raw::{ElementName, RootScope};
use urlset_core::read::records::{
    note_late, scan, scan_converting, scan_with_extensions, Judged, Kind, Limits, OrderNote,
    PadNote, Record, Scan, Span, Stop, Value, ValueNote,
};
use urlset_core::read::render::{PadNotes, ValueNotes};
use urlset_core::read::seen::hash_of;

use crate::lastmods::LastmodValues;
use crate::slots::{untracked_tuple, SlotMaker};

/// A record with typed extensions: its index and its extensions made, in document order.
type Extended<'py> = (usize, Bound<'py, PyTuple>);

/// What a scan makes a record's extensions with: the trusted makers of images, videos, news
/// articles and links (each None when the root binds no prefix to its namespace), and the
/// class of raw elements (`RawElement`).
type Makers = (
    Option<Py<SlotMaker>>,
    Option<Py<SlotMaker>>,
    Option<Py<SlotMaker>>,
    Option<Py<SlotMaker>>,
    Py<PyType>,
);

/// A record's (loc, lastmod, changefreq, priority) as Python values.
type Values = (Py<PyAny>, Py<PyAny>, Py<PyAny>, Py<PyAny>);

/// Reads the records of a plain urlset's body (see urlset.reading.xml_compiled): the scan
/// runs without the GIL, then the records become Python values a column at a time.
#[pyclass(module = "urlset._core")]
pub struct UrlsetScanner {
    kind: Kind,
    max_value: usize,
    changefreqs: Vec<Py<PyAny>>,
    lastmods: LastmodValues,
    /// The prefixes the root binds to the image, video and news namespaces: plain images,
    /// videos and news are read with their records (urlset_core::read::images, media).
    prefixes: Option<Prefixes>,
    /// What gives what the extensions a scan types are made with: called once, by the
    /// first record with one (a rendered read makes none, and loads no extension module).
    makers_from: Option<Py<PyAny>>,
    makers: Option<Makers>,
    /// The namespaces and names of the raw elements made, as Python strings.
    raw_names: RawNames,
    /// The last scan's records when any has plain extensions, and the text they were read
    /// in (`scanned_extensions`): kept whole, a move of the vector, not of each record.
    extended: Vec<Record>,
    extended_in: Option<Py<PyBytes>>,
    /// The last scan's images out of the schema's order (`order_notes`).
    notes: Vec<OrderNote>,
    /// The last scan's values the reader reports (`scanned_value_notes`), as many of each
    /// code as `note_room` lists.
    value_notes: ValueNotes,
    /// The last scan's values written with whitespace around them (`scanned_pad_notes`).
    pad_notes: PadNotes,
    /// Whether a record's core elements were in another order than the protocol's (the
    /// checker then reads the structure itself).
    #[pyo3(get)]
    reordered: bool,
}

/// The prefixes the root binds to the image, video, news and XHTML namespaces, and every
/// prefix it binds (`namespaces`: (prefix, URI)) with the levels an element of another
/// namespace may nest (0: such elements are left to lxml); None for none of these.
pub(crate) fn prefixes(
    [image, video, news, xhtml]: [Option<&str>; 4],
    namespaces: Vec<(String, String)>,
    levels: usize,
) -> Option<Prefixes> {
    let own = |p: Option<&str>| p.map(|p| p.as_bytes().to_vec());
    let found = Prefixes {
        image: own(image),
        video: own(video),
        news: own(news),
        xhtml: own(xhtml),
        scope: RootScope {
            bindings: namespaces
                .into_iter()
                .map(|(p, uri)| (p.into_bytes(), uri))
                .collect(),
            levels,
            strays: Vec::new(),
            raw_strays: true,
        },
    };
    found.any().then_some(found)
}

impl UrlsetScanner {
    fn lastmod(&mut self, py: Python<'_>, text: &[u8]) -> PyResult<Py<PyAny>> {
        // the core took the text as plain (values::lastmod::plain_lastmod)
        Ok(self.lastmods.value(py, text)?.unwrap_or_else(|| py.None()))
    }

    /// Entries to judge: a list of (line, loc, lastmod, changefreq, priority), each value
    /// None, typed (plain), (line, text) for the sink to judge, or for a loc (line, text,
    /// uri) when the core made it a URI.
    fn judged(&mut self, py: Python<'_>, data: &[u8], run: &[Judged]) -> PyResult<Py<PyAny>> {
        let mut items = Vec::with_capacity(run.len());
        for j in run {
            let mut values: Vec<Py<PyAny>> = Vec::with_capacity(4);
            for v in &j.values {
                values.push(match v {
                    None => py.None(),
                    Some(Value::Loc { span, has_entity }) => {
                        loc_string(py, data, *span, *has_entity)?
                    }
                    Some(Value::Lastmod((a, b))) => self.lastmod(py, &data[*a..*b])?,
                    Some(Value::Changefreq(i)) => self.changefreqs[usize::from(*i)].clone_ref(py),
                    Some(Value::Priority(p)) => PyFloat::new(py, *p).into_any().unbind(),
                    Some(Value::Text(t)) => (t.line, t.text.as_str())
                        .into_pyobject(py)?
                        .into_any()
                        .unbind(),
                    Some(Value::Uri { text, uri }) => (text.line, text.text.as_str(), uri.as_str())
                        .into_pyobject(py)?
                        .into_any()
                        .unbind(),
                });
            }
            let [a, b, c, d]: [Py<PyAny>; 4] = values
                .try_into()
                .map_err(|_| pyo3::exceptions::PyValueError::new_err("four values"))?;
            items.push((j.line, a, b, c, d).into_pyobject(py)?);
        }
        Ok(PyList::new(py, items)?.into_any().unbind())
    }

    /// Why a scan stopped, as Python values: None (the end), (start, end) a piece for lxml,
    /// (start, end, fragment, line, values) a record with extensions, or a list of entries to
    /// judge.
    fn stop(&mut self, py: Python<'_>, bytes: &[u8], stop: &Stop) -> PyResult<Py<PyAny>> {
        Ok(match stop {
            Stop::End => py.None(),
            Stop::Gap { start, end } => (*start, *end).into_pyobject(py)?.into_any().unbind(),
            Stop::Extension {
                record,
                start,
                fragment,
                end,
            } => {
                let (loc, lastmod, changefreq, priority) = self.values(py, bytes, record)?;
                let frag = std::str::from_utf8(&bytes[fragment.0..fragment.1]).ok();
                (
                    *start,
                    *end,
                    frag,
                    record.line,
                    (loc, lastmod, changefreq, priority),
                )
                    .into_pyobject(py)?
                    .into_any()
                    .unbind()
            }
            Stop::Judged(run) => self.judged(py, bytes, run)?,
        })
    }

    /// `bytes[pos..end]` (clamped to the text) scanned from `line` on (locs made URIs of when
    /// `convert`), and `then` of what was found, both without the GIL.
    #[allow(clippy::too_many_arguments)]
    fn scanned<T: Send>(
        &self,
        py: Python<'_>,
        bytes: &[u8],
        (pos, end): (usize, usize),
        line: u32,
        (max_records, max_judged): (usize, usize),
        convert: bool,
        then: impl FnOnce(&Scan) -> T + Send,
    ) -> (Scan, T) {
        let end = end.min(bytes.len());
        let limits = Limits {
            kind: self.kind,
            max_records,
            max_value: self.max_value,
            max_judged,
        };
        let prefixes = self.prefixes.as_ref().filter(|_| convert);
        py.detach(|| {
            let pos = pos.min(end);
            let found = match prefixes {
                Some(p) => scan_with_extensions(bytes, (pos, end), line, limits, p),
                None if convert => scan_converting(bytes, pos, end, line, limits),
                None => scan(bytes, pos, end, line, limits),
            };
            let extra = then(&found);
            (found, extra)
        })
    }

    /// A record's plain extensions made (untracked: their values are texts, numbers, dates
    /// and tuples of them), in document order.
    fn extensions<'py>(
        &mut self,
        py: Python<'py>,
        data: &[u8],
        r: &Record,
    ) -> PyResult<Bound<'py, PyTuple>> {
        let makers = match self.makers.take() {
            Some(makers) => makers,
            None => match &self.makers_from {
                Some(from) => from.bind(py).call0()?.extract()?,
                None => return Err(no_maker("extensions")),
            },
        };
        let made = self.made(py, data, r, &makers);
        self.makers = Some(makers);
        made
    }

    /// `extensions`, with `makers`.
    fn made<'py>(
        &mut self,
        py: Python<'py>,
        data: &[u8],
        r: &Record,
        (image, video, news, link, raw): &Makers,
    ) -> PyResult<Bound<'py, PyTuple>> {
        let mut kinds: [Vec<Bound<'py, PyAny>>; 5] = Default::default();
        for i in r.images.iter().flatten() {
            let [caption, geo, title] = &i.texts;
            let text = |t: &Option<String>| t.as_deref().into_pyobject(py);
            let values = [
                loc_string(py, data, i.loc, i.has_entity)?.into_bound(py),
                text(caption)?,
                text(geo)?,
                text(title)?,
            ];
            kinds[0].push(maker(image, "images")?.make(py, &values, true)?);
        }
        let empty = Media::default();
        let media = r.media.as_deref().unwrap_or(&empty);
        for v in &media.videos {
            let values = self.video_fields(py, v)?;
            kinds[1].push(maker(video, "videos")?.make(py, &values, true)?);
        }
        for n in &media.news {
            let values = self.news_fields(py, n)?;
            kinds[2].push(maker(news, "news")?.make(py, &values, true)?);
        }
        for l in &media.links {
            let values = [l.hreflang.as_str(), l.href.as_str()].map(|t| PyString::new(py, t));
            let values = values.map(Bound::into_any);
            kinds[3].push(maker(link, "links")?.make(py, &values, true)?);
        }
        let raw = raw.bind(py);
        for r in media.raws.iter() {
            let [namespace, name] = self.raw_names.of(py, &r.element);
            let xml = PyString::new(py, &r.xml(data)).into_any();
            let items = [namespace, name, xml].map(Ok);
            kinds[4].push(untracked_tuple(py, raw, items.into_iter())?);
        }
        let made = match &media.order {
            Some(order) => {
                let mut each = kinds.map(Vec::into_iter);
                order
                    .iter()
                    .map(|&k| each[usize::from(k)].next())
                    .collect::<Option<Vec<_>>>()
                    .ok_or_else(|| {
                        pyo3::exceptions::PyRuntimeError::new_err(
                            "UrlsetScanner read an element order other than its elements",
                        )
                    })?
            }
            None => kinds.into_iter().flatten().collect(),
        };
        // untracked as its items are: the collector would only walk the tuples of every
        // row with extensions that a batch holds (~3% of a read's time went to collections)
        let tuple = py.get_type::<PyTuple>();
        let made = untracked_tuple(py, &tuple, made.into_iter().map(Ok))?;
        Ok(made.cast_into::<PyTuple>()?)
    }

    /// A video's fields as `video.trusted_video` takes them (the ones the core types, in
    /// `Video`'s order).
    fn video_fields<'py>(
        &mut self,
        py: Python<'py>,
        v: &Video,
    ) -> PyResult<Vec<Bound<'py, PyAny>>> {
        let text = |t: &str| PyString::new(py, t).into_any().unbind();
        let opt_text = |t: &Option<String>| t.as_deref().map_or_else(|| py.None(), text);
        let flag = |b: Option<bool>| -> PyResult<Py<PyAny>> {
            Ok(match b {
                Some(b) => b.into_pyobject(py)?.to_owned().into_any().unbind(),
                None => py.None(),
            })
        };
        let number = |n: Option<u64>| -> PyResult<Py<PyAny>> {
            Ok(match n {
                Some(n) => n.into_pyobject(py)?.into_any().unbind(),
                None => py.None(),
            })
        };
        let mut date = |d: &Option<_>| -> PyResult<Py<PyAny>> {
            match d {
                Some(d) => self.lastmods.of(py, d),
                None => Ok(py.None()),
            }
        };
        let expiration = date(&v.expiration_date)?;
        let published = date(&v.publication_date)?;
        let tags = PyTuple::new(py, v.tags.iter().map(|t| text(t)))?;
        let fields: [Py<PyAny>; 16] = [
            text(&v.thumbnail_loc),
            text(&v.title),
            text(&v.description),
            opt_text(&v.content_loc),
            opt_text(&v.player_loc),
            number(v.duration.map(u64::from))?,
            expiration,
            v.rating
                .map_or_else(|| py.None(), |r| PyFloat::new(py, r).into_any().unbind()),
            number(v.view_count)?,
            published,
            tags.into_any().unbind(),
            opt_text(&v.category),
            flag(v.family_friendly)?,
            flag(v.requires_subscription)?,
            opt_text(&v.uploader),
            flag(v.live)?,
        ];
        Ok(fields.into_iter().map(|f| f.into_bound(py)).collect())
    }

    /// A news article's fields in `News`' order.
    fn news_fields<'py>(&mut self, py: Python<'py>, n: &News) -> PyResult<Vec<Bound<'py, PyAny>>> {
        let texts = |items: &[String]| PyTuple::new(py, items.iter().map(String::as_str));
        let fields: [Py<PyAny>; 8] = [
            PyString::new(py, &n.publication_name).into_any().unbind(),
            PyString::new(py, &n.language).into_any().unbind(),
            self.lastmods.of(py, &n.publication_date)?,
            PyString::new(py, &n.title).into_any().unbind(),
            n.access
                .map_or_else(|| py.None(), |a| PyString::new(py, a).into_any().unbind()),
            PyTuple::new(py, n.genres.iter().copied())?
                .into_any()
                .unbind(),
            texts(&n.keywords)?.into_any().unbind(),
            texts(&n.stock_tickers)?.into_any().unbind(),
        ];
        Ok(fields.into_iter().map(|f| f.into_bound(py)).collect())
    }

    fn optional<T>(py: Python<'_>, v: Option<T>, f: impl FnOnce(T) -> Py<PyAny>) -> Py<PyAny> {
        v.map_or_else(|| py.None(), f)
    }

    /// (loc, lastmod, changefreq, priority) of one record.
    fn values(&mut self, py: Python<'_>, data: &[u8], r: &Record) -> PyResult<Values> {
        let loc = loc_text(py, data, r)?;
        let lastmod = match &r.lastmod_value {
            Some(l) => self.lastmods.of(py, l)?,
            None => py.None(),
        };
        let changefreq = Self::optional(py, r.changefreq, |i| {
            self.changefreqs[usize::from(i)].clone_ref(py)
        });
        let priority = Self::optional(py, r.priority, |p| PyFloat::new(py, p).into_any().unbind());
        Ok((loc, lastmod, changefreq, priority))
    }
}

/// A validity bitmap: (bytes, null count); (None, 0) when all are valid (Arrow's shortcut).
fn validity<'py>(py: Python<'py>, v: &Validity) -> (Option<Bound<'py, PyBytes>>, usize) {
    if v.nulls == 0 {
        (None, 0)
    } else {
        (Some(PyBytes::new(py, &v.bits)), v.nulls)
    }
}

pub(crate) type Buffers<'py> = (
    (Option<Bound<'py, PyBytes>>, usize),
    Bound<'py, PyBytes>,
    Option<Bound<'py, PyBytes>>,
);

/// A string column: (validity, offsets, values).
pub(crate) fn texts<'py>(py: Python<'py>, t: &Texts) -> PyResult<Buffers<'py>> {
    Ok((
        validity(py, &t.validity),
        words(py, &t.offsets, |o| o.to_ne_bytes())?,
        Some(PyBytes::new(py, &t.values)),
    ))
}

/// A fixed-width column: (validity, values, None).
pub(crate) fn fixed<'py, T, const N: usize>(
    py: Python<'py>,
    f: &Fixed<T>,
    bytes: impl Fn(&T) -> [u8; N],
) -> PyResult<Buffers<'py>> {
    Ok((
        validity(py, &f.validity),
        words(py, &f.values, bytes)?,
        None,
    ))
}

/// Fixed-width values as one bytes object, written in place.
fn words<'py, T, const N: usize>(
    py: Python<'py>,
    values: &[T],
    bytes: impl Fn(&T) -> [u8; N],
) -> PyResult<Bound<'py, PyBytes>> {
    PyBytes::new_with(py, values.len() * N, |out| {
        for (slot, value) in out.chunks_exact_mut(N).zip(values) {
            slot.copy_from_slice(&bytes(value));
        }
        Ok(())
    })
}

/// The maker of an extension kind the scan read.
fn maker<'a>(maker: &'a Option<Py<SlotMaker>>, kind: &str) -> PyResult<&'a SlotMaker> {
    maker.as_ref().map(Py::get).ok_or_else(|| no_maker(kind))
}

/// A scan met an extension it has no maker for (the Python side passes one for each prefix
/// the root binds).
fn no_maker(what: &str) -> PyErr {
    pyo3::exceptions::PyRuntimeError::new_err(format!(
        "UrlsetScanner cannot make the {what} it read"
    ))
}

fn loc_text(py: Python<'_>, data: &[u8], r: &Record) -> PyResult<Py<PyAny>> {
    match &r.uri {
        Some(c) => Ok(PyString::new(py, &c.uri).into_any().unbind()),
        None => loc_string(py, data, r.loc, r.has_entity),
    }
}

/// The loc of a plain loc text: its bytes (ASCII, the core checked: Python's decoding is
/// the only check), each entity read as its character (`plain_loc_value`).
fn loc_string(
    py: Python<'_>,
    data: &[u8],
    loc: (usize, usize),
    has_entity: bool,
) -> PyResult<Py<PyAny>> {
    let raw = &data[loc.0..loc.1];
    let text = if has_entity {
        let mut text = Vec::with_capacity(raw.len());
        urlset_core::read::json::plain_loc_value(data, loc, true, &mut text);
        PyString::from_bytes(py, &text)?
    } else {
        PyString::from_bytes(py, raw)?
    };
    Ok(text.into_any().unbind())
}

#[pymethods]
impl UrlsetScanner {
    #[new]
    #[pyo3(signature = (index, max_value, changefreqs, image_prefix=None, video_prefix=None, news_prefix=None, xhtml_prefix=None, *, namespaces=Vec::new(), raw_levels=0, makers=None))]
    #[allow(clippy::too_many_arguments)]
    fn new(
        py: Python<'_>,
        index: bool,
        max_value: usize,
        changefreqs: Vec<Py<PyAny>>,
        image_prefix: Option<&str>,
        video_prefix: Option<&str>,
        news_prefix: Option<&str>,
        xhtml_prefix: Option<&str>,
        namespaces: Vec<(String, String)>,
        raw_levels: usize,
        makers: Option<Py<PyAny>>,
    ) -> PyResult<Self> {
        Ok(UrlsetScanner {
            kind: if index { Kind::Index } else { Kind::Urlset },
            max_value,
            changefreqs,
            lastmods: LastmodValues::new(py)?,
            prefixes: prefixes(
                [image_prefix, video_prefix, news_prefix, xhtml_prefix],
                namespaces,
                raw_levels,
            ),
            makers_from: makers,
            makers: None,
            raw_names: RawNames::default(),
            extended: Vec::new(),
            extended_in: None,
            notes: Vec::new(),
            value_notes: ValueNotes::default(),
            pad_notes: PadNotes::default(),
            reordered: false,
        })
    }

    /// The images out of the schema's order among the last `scan`'s records: (record, line of
    /// the image, the child's place, the place of the one it comes after), taken.
    fn scanned_order_notes(&mut self) -> Vec<OrderNote> {
        std::mem::take(&mut self.notes)
    }

    /// The values the reader reports among the last `scan`'s records: (record, line of the
    /// element, which (1 lastmod, 2 changefreq, 3 priority), its text, whether it is
    /// invalid) for as many of each code as `note_room` allows (the last record's all), and
    /// how many more of each code; taken.
    fn scanned_value_notes(&mut self) -> (Vec<ValueNote>, [usize; 6]) {
        self.value_notes.take()
    }

    /// The values written with whitespace around them among the last `scan`'s records:
    /// (record, line of the element, which (0 loc, 1 lastmod, 2 changefreq, 3 priority), its
    /// text stripped) for as many as `note_room` allows (the last record's all), and how many
    /// more of each element; taken.
    fn scanned_pad_notes(&mut self) -> (Vec<PadNote>, [usize; 4]) {
        self.pad_notes.take()
    }

    /// How many notes of each value code (`sink._JUDGED_CODES`' order) and of padded values
    /// the next scans list with their texts: the room the sink has left for those issues
    /// (`RecordRenderer.note_room`). A scan's last record has its notes listed whatever the
    /// room: the entry limit may refuse it, and its issues are then not counted.
    fn note_room(&mut self, values: [usize; 6], pads: usize) {
        self.value_notes.set_room(values);
        self.pad_notes.set_room(pads);
    }

    /// An element (`namespace`, `name`) the reader has reported once: from now on the scan
    /// reads it too (kept raw in an entry, dropped at the urlset's level), as the reader does.
    fn know_stray(&mut self, namespace: &str, name: &str) {
        if let Some(p) = self.prefixes.as_mut() {
            p.scope.strays.push((namespace.to_owned(), name.to_owned()));
        }
    }

    /// Read `data[pos:end]` from `line` on: (pos, line, stop, locs, lastmods, changefreqs,
    /// priorities, lines, origins, converted, any_converted, images); see _core.pyi. Of the
    /// locs made URIs, the first `texts` carry their text (the issues the sink lists), the
    /// others None. A run to judge may take up to `judged` entries when more than
    /// `max_records` ([`Limits::max_judged`]).
    #[pyo3(signature = (data, pos, end, line, max_records, texts=usize::MAX, judged=0))]
    #[allow(clippy::too_many_arguments)]
    fn scan<'py>(
        &mut self,
        py: Python<'py>,
        data: &Bound<'py, PyBytes>,
        pos: usize,
        end: usize,
        line: u32,
        max_records: usize,
        texts: usize,
        judged: usize,
    ) -> PyResult<Bound<'py, PyTuple>> {
        let bytes = data.as_bytes();
        let limits = (max_records, judged);
        let (found, ()) = self.scanned(py, bytes, (pos, end), line, limits, true, |_| ());
        self.notes.clear();
        self.value_notes.take();
        self.pad_notes.take();
        let last = found.records.len().saturating_sub(1);
        for (i, r) in found.records.iter().enumerate() {
            note_late(bytes, r, i, self.kind, &mut self.notes);
            self.value_notes.note(bytes, r, i, i == last);
            self.pad_notes.note(bytes, r, i, i == last);
            self.reordered |= r.reordered;
        }
        let n = found.records.len();
        let mut locs = Vec::with_capacity(n);
        let mut lastmods = Vec::with_capacity(n);
        let mut changefreqs = Vec::with_capacity(n);
        let mut priorities = Vec::with_capacity(n);
        let mut lines = Vec::with_capacity(4 * n);
        let mut origins = Origins::default();
        let mut converted: Vec<(usize, u32, Option<&str>, Py<PyAny>)> = Vec::new();
        let mut any_converted = false;
        let (mut any_extended, mut any_raw) = (false, false);
        for (i, r) in found.records.iter().enumerate() {
            any_extended |= r.extended();
            any_raw |= r.media.as_ref().is_some_and(|m| !m.raws.is_empty());
            let (loc, lastmod, changefreq, priority) = self.values(py, bytes, r)?;
            if let Some(c) = &r.uri {
                any_converted = true;
                if c.uri != c.text {
                    let text = (converted.len() < texts).then_some(c.text.as_str());
                    converted.push((i, c.line, text, loc.clone_ref(py)));
                }
            }
            locs.push(loc);
            lastmods.push(lastmod);
            changefreqs.push(changefreq);
            priorities.push(priority);
            lines.extend_from_slice(&r.line.to_ne_bytes());
            let origin = match &r.uri {
                Some(c) => &c.uri.as_bytes()[..r.origin_len],
                None => &bytes[r.loc.0..r.loc.0 + r.origin_len],
            };
            origins.note(py, i, origin);
        }
        let stop = self.stop(py, bytes, &found.stop)?;
        let scanned = (
            found.pos,
            found.line,
            stop,
            PyList::new(py, locs)?,
            PyList::new(py, lastmods)?,
            PyList::new(py, changefreqs)?,
            PyList::new(py, priorities)?,
            PyBytes::new(py, &lines),
            PyList::new(py, origins.first)?,
            PyList::new(py, converted)?,
            any_converted,
            (any_extended, any_raw),
        )
            .into_pyobject(py)?;
        (self.extended, self.extended_in) = if any_extended {
            (found.records, Some(data.clone().unbind()))
        } else {
            (Vec::new(), None)
        };
        Ok(scanned)
    }

    /// The records of the last `scan` with plain extensions: (record, its extensions made,
    /// in document order), taken; made only when asked (a rendered read makes none).
    fn scanned_extensions<'py>(&mut self, py: Python<'py>) -> PyResult<Vec<Extended<'py>>> {
        let Some(data) = self.extended_in.take() else {
            return Ok(Vec::new());
        };
        let data = data.bind(py).as_bytes();
        let records = std::mem::take(&mut self.extended);
        let made = records
            .iter()
            .enumerate()
            .filter(|(_, r)| r.extended())
            .map(|(i, r)| Ok((i, self.extensions(py, data, r)?)))
            .collect();
        made
    }
}

/// The namespace and name strings of the raw elements a scanner made, one of each for a
/// document's few kinds (each element's own were 60 bytes of every entry kept, and two
/// allocations of every element made).
#[derive(Default)]
struct RawNames(Vec<(Arc<ElementName>, [Py<PyAny>; 2])>);

/// The kinds of raw element a scanner keeps strings for; past them, new strings each.
const RAW_NAMES_KEPT: usize = 16;

impl RawNames {
    fn of<'py>(&mut self, py: Python<'py>, e: &Arc<ElementName>) -> [Bound<'py, PyAny>; 2] {
        let same = |k: &Arc<ElementName>| {
            Arc::ptr_eq(k, e) || (k.namespace == e.namespace && k.name == e.name)
        };
        if let Some((_, made)) = self.0.iter().find(|(k, _)| same(k)) {
            return [made[0].bind(py).clone(), made[1].bind(py).clone()];
        }
        let made = [&e.namespace, &e.name].map(|t| PyString::new(py, t).into_any());
        if self.0.len() < RAW_NAMES_KEPT {
            let kept = [made[0].clone().unbind(), made[1].clone().unbind()];
            self.0.push((Arc::clone(e), kept));
        }
        made
    }
}

/// The distinct origins of a scan's records, each with the first record on it: a file's
/// locs take turns among a few sites, and the sink judges each origin once.
#[derive(Default)]
struct Origins<'a> {
    seen: Vec<&'a [u8]>,
    first: Vec<(usize, Py<PyAny>)>,
}

/// Origins of a scan beyond which they are noted at each change only (a file of many
/// sites: the list is then as long as the records, as before).
const ORIGINS_KEPT: usize = 8;

impl<'a> Origins<'a> {
    fn note(&mut self, py: Python<'_>, record: usize, origin: &'a [u8]) {
        if self.seen.last() == Some(&origin) || self.seen.contains(&origin) {
            return;
        }
        if self.seen.len() >= ORIGINS_KEPT {
            self.seen.remove(0);
        }
        self.seen.push(origin);
        // the core checked the loc is ASCII
        let text = std::str::from_utf8(origin).unwrap_or_default();
        self.first
            .push((record, PyString::new(py, text).into_any().unbind()));
    }
}

/// The locs a reader passed on, by hash (urlset.reading.sink.Sink.seen).
#[pyclass(module = "urlset._core")]
pub struct SeenLocs {
    inner: urlset_core::read::seen::SeenLocs,
}

#[pymethods]
impl SeenLocs {
    #[new]
    fn new() -> Self {
        SeenLocs {
            inner: urlset_core::read::seen::SeenLocs::new(),
        }
    }

    /// Note `loc`; False when it was seen before.
    fn add(&mut self, loc: &str) -> bool {
        self.inner.insert(loc)
    }

    /// Note all of `locs` when none was seen before nor is twice among them (True); else
    /// note none (False).
    fn add_all_new(&mut self, locs: &Bound<'_, PyList>) -> PyResult<bool> {
        Ok(self.inner.insert_all_new(&loc_hashes(locs)?))
    }

    fn __len__(&self) -> usize {
        self.inner.len()
    }
}

/// The duplicate test's hash ([`hash_of`]) of each loc of a list of str (a TypeError for
/// another item, a UnicodeEncodeError for a str that is not UTF-8).
pub(crate) fn loc_hashes(list: &Bound<'_, PyList>) -> PyResult<Vec<u64>> {
    list.iter()
        .map(|l| Ok(hash_of(l.cast::<PyString>()?.to_str()?.as_bytes())))
        .collect()
}

/// One instance of `cls` a row (a tuple subclass whose instances hold no dict: `Url`,
/// `SitemapRef`), made as `tuple.__new__(cls, row)` makes it, its items from `columns` (one
/// for each of its `_fields`): each a list of `n` values, or one value for every row. The cyclic collector does not track
/// them: their items (texts, numbers, dates, enum members, tuples of frozen values) can
/// refer to nothing that refers back, and its passes over a reader's entries took ~8% of
/// `read_file()` of the 500k mix.
#[pyfunction]
pub fn untracked_rows<'py>(
    py: Python<'py>,
    cls: &Bound<'py, PyType>,
    n: usize,
    columns: &Bound<'py, PyTuple>,
) -> PyResult<Bound<'py, PyList>> {
    if !cls.is_subclass_of::<PyTuple>()? || cls.getattr("__dictoffset__")?.extract::<isize>()? != 0
    {
        return Err(pyo3::exceptions::PyTypeError::new_err(
            "untracked_rows makes tuple subclasses whose instances hold no dict",
        ));
    }
    if let Ok(fields) = cls.getattr("_fields") {
        if fields.len()? != columns.len() {
            return Err(pyo3::exceptions::PyValueError::new_err(format!(
                "{} columns for the {} fields of {}",
                columns.len(),
                fields.len()?,
                cls.name()?
            )));
        }
    }
    // each column once: its list (an item a row), or the one value every row takes
    let mut resolved: Vec<(Option<Bound<'py, PyList>>, Bound<'py, PyAny>)> =
        Vec::with_capacity(columns.len());
    for column in columns.iter() {
        match column.cast_exact::<PyList>() {
            Ok(list) if list.len() == n => resolved.push((Some(list.clone()), column)),
            Ok(list) => {
                return Err(pyo3::exceptions::PyValueError::new_err(format!(
                    "a column of {} values for {n} rows",
                    list.len()
                )))
            }
            Err(_) => resolved.push((None, column)),
        }
    }
    let mut rows = Vec::with_capacity(n);
    for i in 0..n {
        let items = resolved.iter().map(|(list, one)| match list {
            Some(list) => list.get_item(i),
            None => Ok(one.clone()),
        });
        rows.push(untracked_tuple(py, cls, items)?);
    }
    PyList::new(py, rows)
}

/// Adds the reading lane's classes to `urlset._core`.
pub fn register(m: &Bound<'_, PyModule>) -> PyResult<()> {
    m.add_class::<UrlsetScanner>()?;
    m.add_class::<SeenLocs>()?;
    m.add_function(wrap_pyfunction!(plain_loc, m)?)?;
    m.add_function(wrap_pyfunction!(printable, m)?)?;
    m.add_function(wrap_pyfunction!(iri_to_uri, m)?)?;
    m.add_function(wrap_pyfunction!(entity_delta, m)?)?;
    m.add_function(wrap_pyfunction!(newlines, m)?)?;
    m.add_function(wrap_pyfunction!(find_on_line, m)?)?;
    m.add_function(wrap_pyfunction!(plain_end, m)?)?;
    m.add_function(wrap_pyfunction!(run_over, m)?)?;
    m.add_function(wrap_pyfunction!(untracked_rows, m)?)?;
    m.add_function(wrap_pyfunction!(overlong, m)?)
}

/// The first index of `data[start:end]` where a run without '>' (`run_before` bytes of it
/// before `start`) reaches `cap + 1` bytes (urlset_core::read::stretch), or None.
#[pyfunction]
pub fn run_over(
    py: Python<'_>,
    data: &[u8],
    start: usize,
    end: usize,
    run_before: usize,
    cap: usize,
) -> Option<usize> {
    py.detach(|| urlset_core::read::stretch::run_over(data, start, end, run_before, cap))
}

/// The first index of `data[start:end]` (after a '>') where a run without '>' or a comment,
/// CDATA section or processing instruction reaches `cap + 1` bytes, or None.
#[pyfunction]
pub fn overlong(
    py: Python<'_>,
    data: &[u8],
    start: usize,
    end: usize,
    cap: usize,
) -> Option<usize> {
    if end.saturating_sub(start) <= cap {
        return None; // too short to hold one: no need to let go of the GIL
    }
    py.detach(|| urlset_core::read::stretch::overlong(data, start, end, cap))
}

/// Whether what follows a document's last entry is the root's end tag `tail`, with only
/// whitespace, comments and processing instructions a parser passes over around it.
#[pyfunction]
pub fn plain_end(rest: &[u8], tail: &[u8]) -> bool {
    urlset_core::read::records::plain_end(rest, tail)
}

/// `data.count(b"\n", start, end)`, by SIMD: the reader counts the lines of every piece it
/// reads, check those before each finding it places (Python's count takes a byte at a time,
/// ~0.1 s of a 500k-entry read). Clamped as Python's slices are.
#[pyfunction]
#[pyo3(signature = (data, start=0, end=None, /))]
pub fn newlines(data: &[u8], start: usize, end: Option<usize>) -> usize {
    let end = end.map_or(data.len(), |end| end.min(data.len()));
    memchr::memchr_iter(b'\n', &data[start.min(end)..end]).count()
}

/// Where `needle` is first on the line `lines` lines past the one `data[start:]` begins on:
/// (that line's start, the needle's place), or None (`urlset_core::values::bytes`).
#[pyfunction]
pub fn find_on_line(data: &[u8], start: usize, lines: usize, needle: &[u8]) -> Option<Span> {
    urlset_core::values::bytes::find_on_line(data, start, lines, needle)
}

/// `urlset.reading.xml_guard.entity_delta` of `data[start:end]` in one pass (clamped).
#[pyfunction]
pub fn entity_delta(data: &[u8], start: usize, end: usize) -> i64 {
    let end = end.min(data.len());
    urlset_core::values::entities::entity_delta(&data[start.min(end)..end])
}

/// The URI `urls.to_uri` gives for a stripped loc, or None for a shape the core leaves to the
/// Python function (see urlset_core::values::iri): so is a text that is not UTF-8 (a lone
/// surrogate, as JSON's "\ud800" gives).
#[pyfunction]
pub fn iri_to_uri(text: &Bound<'_, PyString>) -> Option<String> {
    urlset_core::values::iri::iri_to_uri(text.to_str().ok()?)
}

/// Whether a loc text as written (entities not replaced) is one the compiled lane takes as it
/// is; for the property tests that tie it to urls.to_uri.
#[pyfunction]
pub fn plain_loc(text: &[u8]) -> bool {
    urlset_core::values::loc::plain_loc(text).is_some()
}

/// Whether every character of `text` is one the tokenizer types an image text with (Python's
/// `str.isprintable` as of Unicode 14.0); for the test that ties the two together.
#[pyfunction]
pub fn printable(text: &str) -> bool {
    text.chars().all(urlset_core::read::printable::printable)
}
