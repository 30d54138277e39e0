//! The Python values of plain lastmods (`urlset_core::values::lastmod::plain_lastmod_value`):
//! what the careful lane's `dates.parse_lenient` gives, a `dates.Year` or `dates.YearMonth`,
//! a `date` or an aware `datetime` whose
//! zone is `datetime.UTC` for a zero offset and a `timezone` of the offset otherwise.
//!
//! The core has parsed and checked the text, so no Python parser runs: a value is made from
//! its pickle state (`date(state)`, `datetime(state, tzinfo)`, the form CPython's datetime
//! types take back from `__reduce__`), which skips the argument parsing of the 8-argument
//! constructor. Under the stable ABI that constructor is all PyO3's `PyDateTime::new` can
//! call, and it costs more than `fromisoformat` (ARCHITECTURE.md has the figures). One zone
//! object serves each offset, and the values of the last few thousand distinct lastmods are
//! kept: a site's lastmods repeat.
use std::collections::hash_map::Entry;
use std::collections::HashMap;
use std::hash::{BuildHasherDefault, Hasher};

use pyo3::prelude::*;
use pyo3::types::PyBytes;
use pyo3::types::{PyFloat, PyString};
use urlset_core::values::lastmod::{
    judged_lastmod as judged, plain_lastmod_value, Judgement, Lastmod, Precision,
};
use urlset_core::values::scalars::{
    judged_changefreq, judged_priority, plain_changefreq, plain_priority, CHANGEFREQS,
};

/// Distinct lastmods kept with their values (then forgotten all at once): a site's dates
/// cycle through a few years of days, 1,461 in bench_read.py's file.
const KEPT: usize = 4096;

/// A lastmod's fields in one number, the key of the kept values.
fn key(l: &Lastmod) -> u128 {
    u128::from(l.precision as u8)
        | u128::from(l.year) << 8
        | u128::from(l.month) << 24
        | u128::from(l.day) << 32
        | u128::from(l.hour) << 40
        | u128::from(l.minute) << 48
        | u128::from(l.second) << 56
        | u128::from(l.micro) << 64
        | u128::from(l.offset_minutes as u16) << 96
}

/// The hash of a [`key`]: two multiplications (SipHash, the default, costs several times
/// more for a value that no one outside chooses).
#[derive(Default)]
struct KeyHasher(u64);

impl Hasher for KeyHasher {
    fn finish(&self) -> u64 {
        self.0
    }

    fn write(&mut self, bytes: &[u8]) {
        for &b in bytes {
            self.write_u128(u128::from(b) ^ u128::from(self.0) << 8);
        }
    }

    fn write_u128(&mut self, v: u128) {
        let x = (v as u64) ^ ((v >> 64) as u64).wrapping_mul(0x9E37_79B9_7F4A_7C15);
        let x = (x ^ self.0).wrapping_mul(0xBF58_476D_1CE4_E5B9);
        self.0 = x ^ (x >> 31);
    }
}

/// The `datetime` module's types and the zones of the offsets met (a site writes one or
/// two).
struct Makers {
    date: Py<PyAny>,
    /// `dates.Year` and `dates.YearMonth`: a lastmod given to the year or the month.
    year: Py<PyAny>,
    year_month: Py<PyAny>,
    datetime: Py<PyAny>,
    timezone: Py<PyAny>,
    timedelta: Py<PyAny>,
    utc: Py<PyAny>,
    zones: Vec<(i16, Py<PyAny>)>,
}

impl Makers {
    /// The `Year`, `YearMonth`, `date` or `datetime` of a lastmod (the core checked its
    /// fields).
    fn make(&mut self, py: Python<'_>, l: &Lastmod) -> PyResult<Py<PyAny>> {
        match l.precision {
            Precision::Year => return Ok(self.year.bind(py).call1((l.year,))?.unbind()),
            Precision::Month => {
                let made = self.year_month.bind(py).call1((l.year, l.month))?;
                return Ok(made.unbind());
            }
            _ => {}
        }
        let [year_hi, year_lo] = l.year.to_be_bytes();
        if l.precision != Precision::Time {
            let state = PyBytes::new(py, &[year_hi, year_lo, l.month, l.day]);
            return Ok(self.date.bind(py).call1((state,))?.unbind());
        }
        let [_, micro_hi, micro_mid, micro_lo] = l.micro.to_be_bytes();
        let state = PyBytes::new(
            py,
            &[
                year_hi, year_lo, l.month, l.day, l.hour, l.minute, l.second, micro_hi, micro_mid,
                micro_lo,
            ],
        );
        let zone = self.zone(py, l.offset_minutes)?;
        Ok(self.datetime.bind(py).call1((state, zone))?.unbind())
    }

    /// The zone of an offset, as `dates._zone` makes it: UTC for 0, else a `timezone`.
    fn zone<'py>(&mut self, py: Python<'py>, minutes: i16) -> PyResult<Bound<'py, PyAny>> {
        if minutes == 0 {
            return Ok(self.utc.bind(py).clone());
        }
        if let Some((_, zone)) = self.zones.iter().find(|(m, _)| *m == minutes) {
            return Ok(zone.bind(py).clone());
        }
        let delta = self
            .timedelta
            .bind(py)
            .call1((0, i32::from(minutes) * 60))?;
        let zone = self.timezone.bind(py).call1((delta,))?;
        self.zones.push((minutes, zone.clone().unbind()));
        Ok(zone)
    }
}

/// Makes and keeps the values of a reader's lastmods.
pub struct LastmodValues {
    makers: Makers,
    kept: HashMap<u128, Py<PyAny>, BuildHasherDefault<KeyHasher>>,
}

impl LastmodValues {
    pub fn new(py: Python<'_>) -> PyResult<Self> {
        let module = py.import("datetime")?;
        let get = |name: &str| module.getattr(name).map(Bound::unbind);
        let dates = py.import("urlset.dates")?;
        Ok(LastmodValues {
            makers: Makers {
                date: get("date")?,
                year: dates.getattr("Year")?.unbind(),
                year_month: dates.getattr("YearMonth")?.unbind(),
                datetime: get("datetime")?,
                timezone: get("timezone")?,
                timedelta: get("timedelta")?,
                utc: get("UTC")?,
                zones: Vec::new(),
            },
            kept: HashMap::default(),
        })
    }

    /// The value of a lastmod text, or None when it is not a plain one.
    pub fn value(&mut self, py: Python<'_>, text: &[u8]) -> PyResult<Option<Py<PyAny>>> {
        plain_lastmod_value(text)
            .map(|l| self.of(py, &l))
            .transpose()
    }

    /// The value of a lastmod the core parsed (a day or a time).
    pub fn of(&mut self, py: Python<'_>, l: &Lastmod) -> PyResult<Py<PyAny>> {
        if self.kept.len() >= KEPT {
            self.kept.clear();
        }
        match self.kept.entry(key(l)) {
            Entry::Occupied(kept) => Ok(kept.get().clone_ref(py)),
            Entry::Vacant(slot) => {
                let value = self.makers.make(py, l)?;
                slot.insert(value.clone_ref(py));
                Ok(value)
            }
        }
    }
}

/// The value the compiled reader gives a lastmod text: a `date`, an aware `datetime`, or
/// None for a text it leaves to the careful lane (for the tests that tie the two).
#[pyfunction]
pub fn lastmod_value(py: Python<'_>, text: &[u8]) -> PyResult<Option<Py<PyAny>>> {
    LastmodValues::new(py)?.value(py, text)
}

/// What the compiled reader makes of a value's text it reports (`element`: 1 lastmod, 2
/// changefreq, 3 priority): (the value, False) for one read (a lenient lastmod, a changefreq
/// in another case, a priority read without a word), (None, True) for an invalid one; None
/// for a text it takes as plain or leaves to the careful lane (for the tests that tie it to
/// `Sink.lastmod`, `Sink.changefreq`, `Sink.priority`).
#[pyfunction]
pub fn judged_value(
    py: Python<'_>,
    element: u8,
    text: &[u8],
) -> PyResult<Option<(Py<PyAny>, bool)>> {
    let read = |value: Option<Py<PyAny>>| match value {
        Some(value) => (value, false),
        None => (py.None(), true),
    };
    Ok(match element {
        1 if plain_lastmod_value(text).is_none() => match judged(text) {
            None => None,
            Some(Judgement::Invalid) => Some(read(None)),
            Some(Judgement::Lenient(value)) => {
                Some(read(Some(LastmodValues::new(py)?.of(py, &value)?)))
            }
        },
        2 if plain_changefreq(text).is_none() => judged_changefreq(text).map(|found| {
            read(found.map(|i| {
                let name = std::str::from_utf8(CHANGEFREQS[usize::from(i)]).unwrap_or_default();
                PyString::new(py, name).into_any().unbind()
            }))
        }),
        3 if plain_priority(text).is_none() => judged_priority(text)
            .map(|found| read(found.map(|p| PyFloat::new(py, p).into_any().unbind()))),
        _ => None,
    })
}
