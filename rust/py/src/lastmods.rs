//! The Python values of plain lastmods (`urlset_core::values::lastmod::plain_lastmod_value`):
//! what the careful lane's `dates.parse_lenient` gives, a `date` or an aware `datetime` whose
//! zone is `datetime.UTC` for a zero offset and a `timezone` of the offset otherwise.
//!
//! The core has parsed and checked the text, so no Python parser runs: a value is made from
//! its pickle state (`date(state)`, `datetime(state, tzinfo)`, the form CPython's datetime
//! types take back from `__reduce__`), which skips the argument parsing of the 8-argument
//! constructor. Under the stable ABI that constructor is all PyO3's `PyDateTime::new` can
//! call, and it costs more than `fromisoformat` (ARCHITECTURE.md has the figures). One zone
//! object serves each offset, and a small table keyed by the text keeps the last values: a
//! site's lastmods repeat.
use std::collections::HashMap;

use pyo3::prelude::*;
use pyo3::types::PyBytes;
use urlset_core::values::lastmod::{plain_lastmod_value, Lastmod, Precision};

/// The longest plain lastmod text: `YYYY-MM-DDThh:mm:ss.ffffff+hh:mm`.
const LONGEST: usize = 32;
/// Slots of the table of recent values (a power of two).
const SLOTS_BITS: u32 = 10;

/// A text and its value, in the slot its hash picks.
struct Slot {
    len: u8,
    text: [u8; LONGEST],
    value: Py<PyAny>,
}

/// Makes and keeps the values of a reader's lastmods.
pub struct LastmodValues {
    date: Py<PyAny>,
    datetime: Py<PyAny>,
    timezone: Py<PyAny>,
    timedelta: Py<PyAny>,
    utc: Py<PyAny>,
    zones: HashMap<i16, Py<PyAny>>,
    slots: Vec<Option<Slot>>,
}

fn slot_of(text: &[u8]) -> usize {
    let mut h = text.len() as u64;
    for chunk in text.chunks(8) {
        let mut word = [0u8; 8];
        word[..chunk.len()].copy_from_slice(chunk);
        h = (h ^ u64::from_le_bytes(word)).wrapping_mul(0x9E37_79B9_7F4A_7C15);
        h ^= h >> 29;
    }
    (h >> (64 - SLOTS_BITS)) as usize
}

impl LastmodValues {
    pub fn new(py: Python<'_>) -> PyResult<Self> {
        let module = py.import("datetime")?;
        let get = |name: &str| module.getattr(name).map(Bound::unbind);
        Ok(LastmodValues {
            date: get("date")?,
            datetime: get("datetime")?,
            timezone: get("timezone")?,
            timedelta: get("timedelta")?,
            utc: get("UTC")?,
            zones: HashMap::new(),
            slots: (0..1 << SLOTS_BITS).map(|_| None).collect(),
        })
    }

    /// The value of a lastmod text, or None when it is not a plain one.
    pub fn value(&mut self, py: Python<'_>, text: &[u8]) -> PyResult<Option<Py<PyAny>>> {
        if text.len() > LONGEST {
            return Ok(None);
        }
        let at = slot_of(text);
        if let Some(slot) = &self.slots[at] {
            if &slot.text[..usize::from(slot.len)] == text {
                return Ok(Some(slot.value.clone_ref(py)));
            }
        }
        let Some(lastmod) = plain_lastmod_value(text) else {
            return Ok(None);
        };
        let value = self.make(py, &lastmod)?;
        let mut key = [0u8; LONGEST];
        key[..text.len()].copy_from_slice(text);
        self.slots[at] = Some(Slot {
            len: text.len() as u8,
            text: key,
            value: value.clone_ref(py),
        });
        Ok(Some(value))
    }

    /// The `date` or `datetime` of a day or a time (the core checked its fields).
    fn make(&mut self, py: Python<'_>, l: &Lastmod) -> PyResult<Py<PyAny>> {
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
        if let Some(zone) = self.zones.get(&minutes) {
            return Ok(zone.bind(py).clone());
        }
        let delta = self
            .timedelta
            .bind(py)
            .call1((0, i32::from(minutes) * 60))?;
        let zone = self.timezone.bind(py).call1((delta,))?;
        self.zones.insert(minutes, zone.clone().unbind());
        Ok(zone)
    }
}

/// The value the compiled reader gives a lastmod text: a `date`, an aware `datetime`, or
/// None for a text it leaves to the careful lane (for the tests that tie the two).
#[pyfunction]
pub fn lastmod_value(py: Python<'_>, text: &[u8]) -> PyResult<Option<Py<PyAny>>> {
    LastmodValues::new(py)?.value(py, text)
}
