//! The writer's bindings: rows of Python values -> `RenderedRows` (entries in one buffer with
//! exact byte counts), read by `urlset.writing.document.SitemapDocument`.
use crate::render::bytes_of;
use pyo3::exceptions::PyValueError;
use pyo3::prelude::*;
use pyo3::sync::PyOnceLock;
use pyo3::types::{
    PyBool, PyBytes, PyDict, PyFloat, PyInt, PyList, PySet, PyString, PyTuple, PyType,
};
use urlset_core::values::alternate::Alternate;
use urlset_core::values::extensions::{Extension, Extensions};
use urlset_core::values::image::Image;
use urlset_core::values::lastmod::{self, Lastmod, Precision};
use urlset_core::values::news::{News, Texts};
use urlset_core::values::scalars::{self, Priority};
use urlset_core::values::video::{self, Price, Relationship, Video};
pub(crate) use urlset_core::write::chunk::{from_text, Checked};
use urlset_core::write::chunk::{Given, RowChunk};
use urlset_core::write::columns::{Cell, Column};
use urlset_core::write::dedupe::SeenHashes;
use urlset_core::write::locs::writable_loc;
use urlset_core::write::render::{self, Refusal, Rendered, Values};

static DATE: PyOnceLock<Py<PyType>> = PyOnceLock::new();
static DATETIME: PyOnceLock<Py<PyType>> = PyOnceLock::new();
static YEAR: PyOnceLock<Py<PyType>> = PyOnceLock::new();
static YEAR_MONTH: PyOnceLock<Py<PyType>> = PyOnceLock::new();
static IMAGE: PyOnceLock<Py<PyType>> = PyOnceLock::new();
static ALTERNATE: PyOnceLock<Py<PyType>> = PyOnceLock::new();
static NEWS: PyOnceLock<Py<PyType>> = PyOnceLock::new();
static VIDEO: PyOnceLock<Py<PyType>> = PyOnceLock::new();

/// An empty or blank string, or a NaN (what a DataFrame holds in an empty cell): `model._absent`.
fn absent(value: &Bound<'_, PyAny>) -> Option<bool> {
    if let Ok(text) = value.cast::<PyString>() {
        let text = text.to_str().ok()?;
        return Some(scalars::trim_python_space(text)?.is_empty());
    }
    if let Ok(number) = value.cast_exact::<PyFloat>() {
        return Some(number.value().is_nan());
    }
    Some(false)
}

fn int(value: &Bound<'_, PyAny>, name: &str) -> Option<i64> {
    value.getattr(name).ok()?.extract().ok()
}

/// A date, Year, YearMonth or aware datetime (exact types: a subclass may write itself
/// otherwise).
fn lastmod_object(value: &Bound<'_, PyAny>) -> Checked<Lastmod> {
    let py = value.py();
    let kind = value.get_type();
    let is = |cell: &PyOnceLock<Py<PyType>>, module: &str, name: &str| {
        cell.import(py, module, name).is_ok_and(|t| kind.is(t))
    };
    let precision = if is(&DATE, "datetime", "date") {
        Precision::Day
    } else if is(&DATETIME, "datetime", "datetime") {
        Precision::Time
    } else if is(&YEAR, "urlset.dates", "Year") {
        Precision::Year
    } else if is(&YEAR_MONTH, "urlset.dates", "YearMonth") {
        Precision::Month
    } else {
        return None;
    };
    let year = u16::try_from(int(value, "year")?).ok()?;
    let month = u8::try_from(int(value, "month")?).ok()?;
    let day = u8::try_from(int(value, "day")?).ok()?;
    if precision != Precision::Time {
        return Some(Some(Lastmod::date(precision, year, month, day)?));
    }
    let offset = value.call_method0("utcoffset").ok()?;
    if offset.is_none() {
        return None; // naive: the long way explains
    }
    let offset_seconds = int(&offset, "days")? * 86_400 + int(&offset, "seconds")?;
    if int(&offset, "microseconds")? != 0 || offset_seconds % 60 != 0 {
        return None; // written with seconds by isoformat
    }
    let small = |name: &str| int(value, name).and_then(|v| u8::try_from(v).ok());
    Some(Some(Lastmod::time(
        year,
        month,
        day,
        small("hour")?,
        small("minute")?,
        small("second")?,
        u32::try_from(int(value, "microsecond")?).ok()?,
        i16::try_from(offset_seconds / 60).ok()?,
    )?))
}

/// A value of a row as the reading thread takes it: None absent, text copied into the chunk
/// for the render stage to check, any other value checked here by `object` (it needs the
/// GIL). None when the value needs the long way.
fn given<T>(
    value: &Bound<'_, PyAny>,
    chunk: &mut RowChunk,
    object: impl FnOnce(&Bound<'_, PyAny>) -> Checked<T>,
) -> Option<Given<T>> {
    if value.is_none() {
        return Some(Given::Value(None));
    }
    if let Ok(text) = value.cast::<PyString>() {
        return Some(chunk.text(text.to_str().ok()?));
    }
    Some(Given::Value(object(value)?))
}

/// A lastmod that is not text: a NaN is absent, else a date, Year, YearMonth or datetime.
fn lastmod_object_or_absent(value: &Bound<'_, PyAny>) -> Checked<Lastmod> {
    if absent(value)? {
        return Some(None);
    }
    lastmod_object(value)
}

/// A changefreq that is not text: only a NaN, absent.
fn changefreq_absent(value: &Bound<'_, PyAny>) -> Checked<&'static str> {
    absent(value)?.then_some(None)
}

/// Priorities of floats already rounded in this batch, by their bits (a site uses few).
pub(crate) struct PriorityMemo([(u64, Option<Priority>); 256]);

impl PriorityMemo {
    pub(crate) fn new() -> PriorityMemo {
        // no float has the bits of NaN with every bit set, so no slot matches until filled
        PriorityMemo([(u64::MAX, None); 256])
    }

    fn of(&mut self, value: f64) -> Option<Priority> {
        let bits = value.to_bits();
        let slot = &mut self.0[((bits ^ (bits >> 29) ^ (bits >> 47)) & 255) as usize];
        if slot.0 != bits {
            *slot = (bits, Priority::from_f64(value));
        }
        slot.1
    }
}

impl PriorityMemo {
    pub(crate) fn checked(&mut self, value: f64) -> Checked<Priority> {
        if value.is_nan() {
            return Some(None);
        }
        Some(Some(self.of(value)?))
    }
}

/// A priority as the reading thread takes it: a float checked here (through the memo), an
/// exact str copied for the render stage; any other value needs the long way.
fn given_priority(
    value: &Bound<'_, PyAny>,
    chunk: &mut RowChunk,
    memo: &mut PriorityMemo,
) -> Option<Given<Priority>> {
    if value.is_none() {
        return Some(Given::Value(None));
    }
    if let Ok(number) = value.cast_exact::<PyFloat>() {
        return Some(Given::Value(memo.checked(number.value())?));
    }
    if let Ok(number) = value.cast_exact::<PyInt>() {
        // Python's float of an int (not a bool: `cast_exact`); past 64 bits the long way
        return Some(Given::Value(
            memo.checked(number.extract::<i64>().ok()? as f64)?,
        ));
    }
    let text = value.cast_exact::<PyString>().ok()?.to_str().ok()?;
    Some(chunk.text(text))
}

/// Entries rendered a batch at a time: the bytes of each, its loc and its lastmod.
#[pyclass(frozen, module = "urlset._core")]
pub struct RenderedRows {
    pub(crate) rendered: Rendered,
}

#[pymethods]
impl RenderedRows {
    fn __len__(&self) -> usize {
        self.rendered.len()
    }

    /// The locs, in order.
    #[getter]
    fn locs(&self) -> Vec<&str> {
        (0..self.rendered.len())
            .map(|i| self.rendered.loc(i))
            .collect()
    }

    /// How many entries from `start` (at most `limit`) fit in `room` bytes, in a document
    /// whose root declares the typed namespaces `declared` (bits of `typed_declarations`; an
    /// entry declares the others it uses on its `<url>`).
    #[pyo3(signature = (start, limit, room, declared = ALL_DECLARED))]
    fn fit(&self, start: usize, limit: usize, room: usize, declared: u8) -> usize {
        let start = start.min(self.rendered.len());
        self.rendered.fit_declared(start, limit, room, declared)
    }

    /// The bytes of entry `index` (see `fit` for `declared`).
    #[pyo3(signature = (index, declared = ALL_DECLARED))]
    fn size(&self, index: usize, declared: u8) -> usize {
        self.rendered.size_declared(index, declared)
    }

    /// The bytes of entries `start..end` (see `fit` for `declared`).
    #[pyo3(signature = (start, end, declared = ALL_DECLARED))]
    fn text<'py>(
        &self,
        py: Python<'py>,
        start: usize,
        end: usize,
        declared: u8,
    ) -> PyResult<Bound<'py, PyAny>> {
        // the copy without the GIL: the source's thread takes it between its batches
        if self.rendered.namespaces(start, end) & !declared == 0 {
            return bytes_of(py, self.rendered.bytes(start, end));
        }
        bytes_of(py, &self.rendered.bytes_declared(start, end, declared))
    }

    /// The typed namespaces entries `start..end` use (bits of `typed_declarations`).
    fn namespaces(&self, start: usize, end: usize) -> u8 {
        self.rendered.namespaces(start, end)
    }

    /// (entry, code, text): what the per-URL extension rules found in entries written as
    /// given (`values::extensions::Extensions::findings`), in order.
    fn findings(&self) -> Vec<(usize, &'static str, &str)> {
        self.rendered.findings().collect()
    }

    /// How many findings each code has (codes in the order first found): what a build
    /// counts without reading each finding's text.
    fn finding_counts(&self) -> Vec<(&'static str, usize)> {
        self.rendered.finding_counts()
    }

    /// Whether any entry has news articles.
    fn has_news(&self) -> bool {
        self.rendered.has_news()
    }

    /// How many of the entries from `start` (at most `limit`) keep a sitemap within `room`
    /// more news articles (its `first` entry taken whatever it holds).
    fn news_fit(&self, start: usize, limit: usize, room: usize, first: bool) -> usize {
        self.rendered.news_fit(start, limit, room, first)
    }

    /// How many news articles the entries from `start` to `end` hold.
    fn news_in(&self, start: usize, end: usize) -> usize {
        self.rendered.news_in(start, end)
    }

    /// (entry, title, publication instant) of each news article published before `since`
    /// (microseconds since 1970 UTC), in order.
    fn news_before(&self, since: i64) -> Vec<(usize, &str, i64)> {
        self.rendered.news_before(since)
    }

    /// How many news articles were published before `since` (`news_before`'s length).
    fn news_count_before(&self, since: i64) -> usize {
        self.rendered.news_count_before(since)
    }

    /// (entry, its hreflang links as (hreflang, href)) of the entries that have some.
    fn links(&self) -> Vec<(usize, Vec<(&str, &str)>)> {
        let links = self.rendered.links();
        links
            .map(|(at, links)| (at, links.iter().collect()))
            .collect()
    }

    /// (entry, loc, {href: hreflang}) of the entries that have hreflang links, in order (a later
    /// link to the same href wins, as in `Reciprocity.add_links`): what the set's
    /// reciprocity check records, made here rather than a row at a time in Python.
    fn link_maps<'py>(&self, py: Python<'py>) -> PyResult<Vec<(usize, &str, Bound<'py, PyDict>)>> {
        let mut out = Vec::with_capacity(self.rendered.linked_entries());
        for (index, links) in self.rendered.links() {
            let found = PyDict::new(py);
            for (hreflang, href) in links.iter() {
                found.set_item(href, hreflang)?;
            }
            out.push((index, self.rendered.loc(index), found));
        }
        Ok(out)
    }

    /// Each entry's text.
    fn entries(&self) -> Vec<String> {
        (0..self.rendered.len())
            .map(|i| String::from_utf8_lossy(self.rendered.bytes(i, i + 1)).into_owned())
            .collect()
    }

    /// The W3C text of the newest lastmod of entries `start..end` (the first of equal ones).
    fn newest(&self, start: usize, end: usize) -> Option<String> {
        let newest = self.rendered.newest(start, end)?;
        let mut out = Vec::with_capacity(32);
        newest.write(&mut out);
        Some(String::from_utf8_lossy(&out).into_owned())
    }

    /// Whether no lastmod is later than `now` (microseconds since 1970 UTC).
    fn all_current(&self, now: i64) -> bool {
        self.rendered.all_current(now)
    }

    /// Whether every lastmod names a day at least (none is a year or a month alone).
    fn all_with_day(&self) -> bool {
        self.rendered.all_with_day()
    }

    /// The 64-bit hash of each loc, in the machine's byte order, for de-duplication.
    fn hashes<'py>(&self, py: Python<'py>) -> Bound<'py, PyBytes> {
        let bytes: Vec<u8> = self
            .rendered
            .hashes()
            .iter()
            .flat_map(|h| h.to_ne_bytes())
            .collect();
        PyBytes::new(py, &bytes)
    }

    /// The input rows refused (each goes the per-entry way): (position among the inputs,
    /// why: "loc", "value", "row" or "extensions"), in order.
    fn refused(&self) -> Vec<(usize, &'static str)> {
        let refused = self.rendered.refused().iter();
        refused.map(|&(at, why)| (at, why.name())).collect()
    }

    /// Entries `start..end`.
    fn range(&self, start: usize, end: usize) -> RenderedRows {
        let end = end.min(self.rendered.len());
        RenderedRows {
            rendered: self.rendered.range(start.min(end), end),
        }
    }

    /// The entries whose lastmod is later than `now` (microseconds since 1970 UTC).
    fn future(&self, now: i64) -> Vec<usize> {
        self.rendered.future(now)
    }

    /// The distinct texts of the lastmods that are a year or a month alone, each with its
    /// count of entries, in the order of first use.
    fn without_day_texts(&self) -> Vec<(String, usize)> {
        self.rendered.without_day_texts()
    }

    /// The entries whose lastmod is a year or a month alone: (entry, the lastmod's text).
    fn without_day(&self) -> Vec<(usize, String)> {
        self.rendered.without_day()
    }

    /// These rows with the refused inputs `at` (ascending) rendered in `other` after all,
    /// each in its place (one entry of `other` for each, in order).
    fn spliced(&self, other: &RenderedRows, at: Vec<usize>) -> RenderedRows {
        RenderedRows {
            rendered: self.rendered.spliced(&other.rendered, &at),
        }
    }

    /// The entries whose byte in `keep` is not zero.
    fn select(&self, keep: &[u8]) -> RenderedRows {
        let flags: Vec<bool> = keep.iter().map(|&k| k != 0).collect();
        RenderedRows {
            rendered: self.rendered.select(&flags),
        }
    }
}

/// Every typed namespace declared on the root: entries as they are rendered.
const ALL_DECLARED: u8 = u8::MAX;

/// The typed namespaces an entry's bits name, in order: (prefix, namespace) of bit 0, 1, ...
#[pyfunction]
pub fn typed_declarations() -> Vec<(&'static str, &'static str)> {
    render::TYPED_NAMESPACES.to_vec()
}

/// A row's (a `Url`'s) extensions: a tuple of `Image` and `Alternate` values (exact types),
/// each taken as `values::extensions` checks it; None for any other extension or value.
fn extensions(given: &Bound<'_, PyAny>) -> Option<Extensions> {
    let given = given.cast::<PyTuple>().ok()?;
    let mut out = Extensions::default();
    if given.is_empty() {
        return Some(out);
    }
    let py = given.py();
    let text = |value: &Bound<'_, PyAny>, name: &str| -> Option<Option<String>> {
        let value = value.getattr(name).ok()?;
        if value.is_none() {
            return Some(None);
        }
        Some(Some(
            value.cast::<PyString>().ok()?.to_str().ok()?.to_owned(),
        ))
    };
    for value in given.iter() {
        let kind = value.get_type();
        if kind.is(IMAGE.import(py, "urlset.extensions.image", "Image").ok()?) {
            let loc = text(&value, "loc")??;
            let fields = [
                text(&value, "caption")?,
                text(&value, "geo_location")?,
                text(&value, "title")?,
                text(&value, "license")?,
            ];
            let image = Image::checked(&loc, fields.each_ref().map(Option::as_deref))?;
            out.push(Extension::Image(image));
        } else if kind.is(VIDEO.import(py, "urlset.extensions.video", "Video").ok()?) {
            out.push(Extension::Video(Box::new(video_value(&value)?)));
        } else if kind.is(NEWS.import(py, "urlset.extensions.news", "News").ok()?) {
            out.push(Extension::News(news(&value)?));
        } else if kind.is(ALTERNATE
            .import(py, "urlset.extensions.hreflang", "Alternate")
            .ok()?)
        {
            let link = Alternate::checked(&text(&value, "hreflang")??, &text(&value, "href")??)?;
            out.push(Extension::Alternate(link));
        } else {
            return None;
        }
    }
    out.within_limits().then_some(out)
}

/// A `Video` value, checked again as `values::video` checks it.
fn video_value(value: &Bound<'_, PyAny>) -> Option<Video> {
    let attr = |name: &str| value.getattr(name).ok();
    let text = |name: &str| -> Option<Option<String>> {
        let value = attr(name)?;
        if value.is_none() {
            return Some(None);
        }
        Some(Some(
            value.cast::<PyString>().ok()?.to_str().ok()?.to_owned(),
        ))
    };
    let number = |name: &str| -> Option<Option<u64>> {
        let value = attr(name)?;
        if value.is_none() {
            return Some(None);
        }
        if value.cast::<PyBool>().is_ok() {
            return None;
        }
        Some(Some(value.extract::<u64>().ok()?))
    };
    let flag = |name: &str| -> Option<Option<bool>> {
        let value = attr(name)?;
        if value.is_none() {
            return Some(None);
        }
        Some(Some(value.cast::<PyBool>().ok()?.is_true()))
    };
    let date = |name: &str| -> Option<Option<Lastmod>> {
        let value = attr(name)?;
        if value.is_none() {
            return Some(None);
        }
        Some(Some(lastmod_object(&value)??))
    };
    let mut video = Video::new(
        &text("thumbnail_loc")??,
        &text("title")??,
        &text("description")??,
    )?;
    let loc = |name: &str| text(name)?.map_or(Some(None), |loc| Video::loc(&loc));
    video.content_loc = loc("content_loc")?;
    video.player_loc = loc("player_loc")?;
    video.duration = match number("duration")? {
        Some(seconds) => Some(video::duration(seconds)?),
        None => None,
    };
    video.expiration_date = date("expiration_date")?;
    video.view_count = number("view_count")?;
    video.publication_date = date("publication_date")?;
    let tags = attr("tags")?;
    let tags = tags
        .cast::<PyTuple>()
        .ok()?
        .iter()
        .map(|tag| Some(tag.cast::<PyString>().ok()?.to_str().ok()?.to_owned()));
    video.set_tags(tags.collect::<Option<Vec<_>>>()?)?;
    if let Some(category) = text("category")? {
        video.set_category(&category)?;
    }
    video.family_friendly = flag("family_friendly")?;
    video.requires_subscription = flag("requires_subscription")?;
    if let Some(uploader) = text("uploader")? {
        video.set_uploader(&uploader)?;
    }
    video.live = flag("live")?;
    video.player_allow_embed = flag("player_allow_embed")?;
    video_extras(value, &mut video)?;
    video.finished()
}

/// The fields of a `Video` value the reader's core does not type: the player's autoplay,
/// the rating, restriction and platform, the gallery, the prices, the uploader's info URL.
fn video_extras(value: &Bound<'_, PyAny>, video: &mut Video) -> Option<()> {
    let attr = |name: &str| value.getattr(name).ok();
    let text = |value: &Bound<'_, PyAny>| -> Option<Option<String>> {
        if value.is_none() {
            return Some(None);
        }
        Some(Some(
            value.cast::<PyString>().ok()?.to_str().ok()?.to_owned(),
        ))
    };
    if let Some(autoplay) = text(&attr("player_autoplay")?)? {
        video.set_autoplay(&autoplay)?;
    }
    let rating = attr("rating")?;
    if !rating.is_none() {
        video.rating = Some(video::rating(rating.cast_exact::<PyFloat>().ok()?.value())?);
    }
    let relationship = |name: &str, checked: fn(&str, &[&str]) -> Option<Relationship>| {
        let given = attr(name)?;
        if given.is_none() {
            return Some(None);
        }
        let relationship = text(&given.getattr("relationship").ok()?)??;
        let values = given.getattr("values").ok()?;
        let values = values.cast::<PyTuple>().ok()?;
        let values = values
            .iter()
            .map(|v| Some(v.cast::<PyString>().ok()?.to_str().ok()?.to_owned()))
            .collect::<Option<Vec<String>>>()?;
        let values: Vec<&str> = values.iter().map(String::as_str).collect();
        Some(Some(checked(&relationship, &values)?))
    };
    video.restriction = relationship("restriction", Relationship::countries)?;
    video.platform = relationship("platform", Relationship::platforms)?;
    if let Some(gallery) = text(&attr("gallery_loc")?)? {
        video.gallery_loc = Video::loc(&gallery)?;
    }
    if let Some(title) = text(&attr("gallery_title")?)? {
        video.set_gallery_title(&title)?;
    }
    if let Some(info) = text(&attr("uploader_info")?)? {
        video.uploader_info = Video::loc(&info)?;
    }
    let prices = attr("prices")?;
    for price in prices.cast::<PyTuple>().ok()?.iter() {
        let field = |name: &str| text(&price.getattr(name).ok()?);
        let (amount, currency) = (field("amount")??, field("currency")??);
        let (kind, resolution) = (field("type")?, field("resolution")?);
        video.prices.push(Price::checked(
            &amount,
            &currency,
            kind.as_deref(),
            resolution.as_deref(),
        )?);
    }
    Some(())
}

/// A `News` value, checked again as `values::news` checks it.
fn news(value: &Bound<'_, PyAny>) -> Option<News> {
    let text = |name: &str| -> Option<Option<String>> {
        let value = value.getattr(name).ok()?;
        if value.is_none() {
            return Some(None);
        }
        Some(Some(
            value.cast::<PyString>().ok()?.to_str().ok()?.to_owned(),
        ))
    };
    let texts = |name: &str| -> Option<Option<Texts>> {
        let items = value.getattr(name).ok()?;
        let items = items.cast::<PyTuple>().ok()?;
        if items.is_empty() {
            return Some(None);
        }
        let texts = items
            .iter()
            .map(|item| Some(item.cast::<PyString>().ok()?.to_str().ok()?.to_owned()));
        Some(Some(Texts::Many(texts.collect::<Option<Vec<_>>>()?)))
    };
    let published = lastmod_object(&value.getattr("publication_date").ok()?)??;
    let lists = [
        texts("genres")?,
        texts("keywords")?,
        texts("stock_tickers")?,
    ];
    let access = text("access")?;
    News::checked(
        &text("publication_name")??,
        &text("language")??,
        published,
        &text("title")??,
        (access.as_deref(), lists.each_ref().map(Option::as_ref)),
    )
}

/// Copy one row into `chunk` (its texts; its other values checked); false when it needs the
/// long way. A fifth value (a `Url`'s extensions) is taken when the core checks each.
fn read_row(row: &Bound<'_, PyTuple>, chunk: &mut RowChunk, memo: &mut PriorityMemo) -> bool {
    if row.len() == 5 {
        let Some(found) = row.get_borrowed_item(4).ok().and_then(|e| extensions(&e)) else {
            return false;
        };
        chunk.extensions(found);
    }
    // borrowed: read while the GIL is held, no reference counts to change
    let (Ok(loc), Ok(lastmod), Ok(changefreq), Ok(priority)) = (
        row.get_borrowed_item(0),
        row.get_borrowed_item(1),
        row.get_borrowed_item(2),
        row.get_borrowed_item(3),
    ) else {
        return false;
    };
    let values = (
        given(&lastmod, chunk, lastmod_object_or_absent),
        given(&changefreq, chunk, changefreq_absent),
        given_priority(&priority, chunk, memo),
    );
    let (Some(lastmod), Some(changefreq), Some(priority)) = values else {
        return false;
    };
    let Ok(loc) = loc.cast::<PyString>() else {
        return false;
    };
    let Ok(loc) = loc.to_str() else {
        return false;
    };
    chunk.push(loc, lastmod, changefreq, priority);
    true
}

/// Rows read at a time while the ones before are rendered on another thread.
const CHUNK: usize = 1024;

/// Render a batch of rows: (loc, lastmod, changefreq, priority) tuples whose locs must be
/// plain URIs under `prefix` (a directory whose origin the caller checked), or, without a
/// prefix, `Url` values without extensions (their locs are URIs already). None when a loc or
/// value needs the long way: the batch then goes entry by entry, which checks each value and
/// reports the bad ones. This thread, which holds the GIL, only copies each row's texts into
/// a `RowChunk` (and checks the values given as objects); the texts are checked and the
/// entries rendered without the GIL: with `beside`, on another thread, a `CHUNK` at a time
/// while this one reads the next rows; without, once all are read.
#[pyfunction]
#[pyo3(signature = (rows, prefix, max_length, text, beside = false))]
pub fn render_rows(
    py: Python<'_>,
    rows: &Bound<'_, PyList>,
    prefix: Option<&str>,
    max_length: usize,
    text: bool,
    beside: bool,
) -> PyResult<Option<RenderedRows>> {
    let count = rows.len();
    let mut memo = PriorityMemo::new();
    let mut remaining = rows.iter();
    // the next rows into `chunk`; one the core cannot take is refused in its place
    let mut read = |chunk: &mut RowChunk| -> PyResult<bool> {
        for row in remaining.by_ref().take(CHUNK) {
            let taken = match row.cast_into::<PyTuple>() {
                Ok(row) => {
                    let width = row.len();
                    (prefix.is_none() || width == 4 || width == 5)
                        && read_row(&row, chunk, &mut memo)
                }
                Err(_) => false,
            };
            if !taken {
                chunk.refuse();
            }
        }
        Ok(true)
    };
    // the output's room is taken here, on the thread that frees it later: memory the
    // allocator gives a short-lived thread comes back as fresh pages (~9,000 more page
    // faults a million rows)
    let mut rendered = Rendered::with_capacity(count);
    let render = move |chunks: &mut dyn Iterator<Item = RowChunk>| {
        for chunk in chunks {
            rendered.push_chunk(&chunk, prefix, max_length, text);
        }
        Some(rendered)
    };
    if !beside || count <= CHUNK {
        let mut chunks = Vec::with_capacity(count.div_ceil(CHUNK));
        loop {
            let mut chunk = RowChunk::with_capacity(CHUNK.min(count));
            if !read(&mut chunk)? {
                return Ok(None);
            }
            if chunk.is_empty() {
                break;
            }
            chunks.push(chunk);
        }
        let rendered = py.detach(|| render(&mut chunks.into_iter()));
        return Ok(rendered.map(|rendered| RenderedRows { rendered }));
    }
    std::thread::scope(|scope| {
        // unbounded (a batch's rows at most): the reading thread never waits, and the
        // rendering one, slower, seldom waits for it (a wait spins first, burning a core)
        let (send, receive) = std::sync::mpsc::channel::<RowChunk>();
        let worker = scope.spawn(move || render(&mut receive.into_iter()));
        let clean = loop {
            let mut chunk = RowChunk::with_capacity(CHUNK);
            let clean = read(&mut chunk);
            // a send fails when the worker stopped at a loc that needs the long way
            if !matches!(clean, Ok(true)) || chunk.is_empty() || send.send(chunk).is_err() {
                break clean;
            }
        };
        drop(send);
        let rendered = py
            .detach(|| worker.join())
            .unwrap_or_else(|panic| std::panic::resume_unwind(panic));
        Ok(if clean? {
            rendered.map(|rendered| RenderedRows { rendered })
        } else {
            None
        })
    })
}

/// A column as Python hands it over: (kind, Arrow offset, validity bits or None, values
/// or offsets, data or the local times); None for a column the table does not have.
type ColumnParts<'py> = (
    String,
    usize,
    Option<Bound<'py, PyBytes>>,
    Bound<'py, PyBytes>,
    Option<Bound<'py, PyBytes>>,
);

fn column<'a>(parts: &'a Option<ColumnParts<'_>>) -> PyResult<Column<'a>> {
    let Some((kind, offset, validity, first, second)) = parts else {
        return Ok(Column::Missing);
    };
    let (offset, validity) = (*offset, validity.as_ref().map(|v| v.as_bytes()));
    let second = || {
        second
            .as_ref()
            .map(|b| b.as_bytes())
            .ok_or_else(|| PyValueError::new_err("this column kind has two buffers"))
    };
    Ok(match kind.as_str() {
        "text" => Column::Text {
            validity,
            offsets: first.as_bytes(),
            data: second()?,
            offset,
        },
        "days" => Column::Days {
            validity,
            values: first.as_bytes(),
            offset,
        },
        "times" => Column::Times {
            validity,
            utc: first.as_bytes(),
            local: second()?,
            offset,
        },
        "floats" => Column::Floats {
            validity,
            values: first.as_bytes(),
            offset,
        },
        _ => {
            return Err(PyValueError::new_err(format!(
                "unknown column kind {kind:?}"
            )))
        }
    })
}

fn cell_lastmod(cell: Cell<'_>) -> Checked<Lastmod> {
    match cell {
        Cell::Null => Some(None),
        Cell::Text(text) => from_text(text, lastmod::parse),
        Cell::Days(days) => Some(Some(Lastmod::from_days(days)?)),
        Cell::Time(micros, Some(offset)) => Some(Some(Lastmod::from_instant(micros, offset)?)),
        _ => None,
    }
}

fn cell_changefreq(cell: Cell<'_>) -> Checked<&'static str> {
    match cell {
        Cell::Null => Some(None),
        Cell::Text(text) => from_text(text, scalars::changefreq),
        _ => None,
    }
}

fn cell_priority(cell: Cell<'_>, memo: &mut PriorityMemo) -> Checked<Priority> {
    match cell {
        Cell::Null => Some(None),
        Cell::Float(number) => memo.checked(number),
        Cell::Text(text) => from_text(text, Priority::from_text),
        _ => None,
    }
}

/// Render `count` rows of a table batch given as Arrow columns (see `ColumnParts`), with the
/// checks of `render_rows` (locs plain under `prefix`); no Python object is made per row.
/// None when a row needs the long way. The GIL is released while rows are read and written;
/// with `beside` (a core to spare: no compression), half of them on another thread.
#[pyfunction]
#[pyo3(signature = (count, loc, lastmod, changefreq, priority, prefix, max_length, text, beside = false))]
#[allow(clippy::too_many_arguments)]
pub fn render_columns(
    py: Python<'_>,
    count: usize,
    loc: Option<ColumnParts<'_>>,
    lastmod: Option<ColumnParts<'_>>,
    changefreq: Option<ColumnParts<'_>>,
    priority: Option<ColumnParts<'_>>,
    prefix: &str,
    max_length: usize,
    text: bool,
    beside: bool,
) -> PyResult<Option<RenderedRows>> {
    let columns = [
        column(&loc)?,
        column(&lastmod)?,
        column(&changefreq)?,
        column(&priority)?,
    ];
    // `rendered`: room taken on this thread, as in `render_rows`
    let render = |rows: std::ops::Range<usize>, mut rendered: Rendered| {
        let mut memo = PriorityMemo::new();
        for row in rows {
            let Cell::Text(given) = columns[0].cell(row) else {
                rendered.refuse(Refusal::Loc);
                continue;
            };
            let Some(loc) = writable_loc(given, prefix, max_length) else {
                rendered.refuse(Refusal::Loc);
                continue;
            };
            let mut values = || {
                Some(Values {
                    lastmod: cell_lastmod(columns[1].cell(row))?,
                    changefreq: cell_changefreq(columns[2].cell(row))?,
                    priority: cell_priority(columns[3].cell(row), &mut memo)?,
                })
            };
            match values() {
                Some(values) => rendered.push(&loc, &values, text),
                None => rendered.refuse(Refusal::Value),
            }
        }
        Some(rendered)
    };
    let rendered = py.detach(|| {
        if !beside || count < 2 * CHUNK {
            return render(0..count, Rendered::with_capacity(count));
        }
        // the second half on another thread (no Python object is read here)
        let half = count / 2;
        let room = Rendered::with_capacity(count - half);
        std::thread::scope(|scope| {
            let second = scope.spawn(|| render(half..count, room));
            let first = render(0..half, Rendered::with_capacity(count));
            let second = second
                .join()
                .unwrap_or_else(|panic| std::panic::resume_unwind(panic));
            let mut first = first?;
            first.append(&second?);
            Some(first)
        })
    });
    Ok(rendered.map(|rendered| RenderedRows { rendered }))
}

/// The 64-bit hash of each loc (as `RenderedRows.hashes`), in the machine's byte order.
#[pyfunction]
pub fn loc_hashes<'py>(
    py: Python<'py>,
    locs: &Bound<'py, PyList>,
) -> PyResult<Bound<'py, PyBytes>> {
    let mut bytes = Vec::with_capacity(locs.len() * 8);
    for loc in locs.iter() {
        let loc = loc.cast_into::<PyString>()?;
        bytes.extend_from_slice(&render::loc_hash(loc.to_str()?).to_ne_bytes());
    }
    Ok(PyBytes::new(py, &bytes))
}

/// The distinct types of `items` (a batch's kinds, as `set(map(type, items))`), each item's
/// type compared with the one before: a batch is mostly of one type.
#[pyfunction]
pub fn types_of<'py>(py: Python<'py>, items: &Bound<'py, PyList>) -> PyResult<Bound<'py, PySet>> {
    let kinds = PySet::empty(py)?;
    let mut last = std::ptr::null_mut();
    for item in items.iter() {
        // the pointer only compared: no reference count changes for the usual item
        let kind = item.get_type_ptr();
        if kind != last {
            kinds.add(item.get_type())?;
            last = kind;
        }
    }
    Ok(kinds)
}

/// Entity-escape a data value.
#[pyfunction]
pub fn escape(text: &str) -> String {
    urlset_core::write::escape::escape(text)
}

/// The locs a build has written, as 64-bit hashes (`urlset.writing.dedupe.SeenLocs`).
#[pyclass(name = "SeenHashes", module = "urlset._core")]
pub struct PySeenHashes {
    inner: SeenHashes,
}

#[pymethods]
impl PySeenHashes {
    /// `spill_dir`: where runs of `seal_at` hashes are sealed to files (None: all in memory).
    #[new]
    #[pyo3(signature = (spill_dir, seal_at))]
    fn new(spill_dir: Option<std::path::PathBuf>, seal_at: usize) -> Self {
        PySeenHashes {
            inner: SeenHashes::new(spill_dir.as_deref(), seal_at),
        }
    }

    /// For each hash (as `loc_hashes` packs them), a byte: 1 when it is new, 0 when seen
    /// before or earlier in the batch. OSError when a sealed run cannot be written or read.
    fn first_seen<'py>(&mut self, py: Python<'py>, hashes: &[u8]) -> PyResult<Bound<'py, PyBytes>> {
        let hashes: Vec<u64> = hashes
            .chunks_exact(8)
            .map(|w| u64::from_ne_bytes(w.try_into().expect("8 bytes")))
            .collect();
        let inner = &mut self.inner;
        let keep = py.detach(|| inner.first_seen(&hashes))?;
        let flags: Vec<u8> = keep.into_iter().map(u8::from).collect();
        Ok(PyBytes::new(py, &flags))
    }

    /// Remove the files of sealed runs.
    fn close(&mut self) {
        self.inner.close();
    }
}

/// Add the writer's functions and classes to the module.
/// A build input's loc made absolute against `prefix`, the build's base directory
/// (`urlset_core::write::locs::resolved`): the text itself when it has a scheme; None for
/// one the core leaves alone (empty, led by whitespace, a host without its scheme).
#[pyfunction]
pub fn resolve_loc(loc: &str, prefix: &str) -> Option<String> {
    urlset_core::write::locs::resolved(loc, prefix).map(std::borrow::Cow::into_owned)
}

pub fn register(module: &Bound<'_, PyModule>) -> PyResult<()> {
    module.add_class::<RenderedRows>()?;
    module.add_function(wrap_pyfunction!(resolve_loc, module)?)?;
    module.add_class::<PySeenHashes>()?;
    module.add_function(wrap_pyfunction!(render_rows, module)?)?;
    module.add_function(wrap_pyfunction!(render_columns, module)?)?;
    module.add_function(wrap_pyfunction!(escape, module)?)?;
    module.add_function(wrap_pyfunction!(loc_hashes, module)?)?;
    module.add_function(wrap_pyfunction!(types_of, module)?)?;
    module.add_function(wrap_pyfunction!(typed_declarations, module)?)?;
    Ok(())
}
