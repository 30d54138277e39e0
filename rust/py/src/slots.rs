//! Instances of a frozen dataclass with slots made from values already checked: the
//! extensions a reader types (`Image`, `Video`, `News`, `Alternate`), one for every element.
use pyo3::ffi;
use pyo3::prelude::*;
use pyo3::types::{PyDict, PyTuple, PyType};

/// Makes a `cls` of values given in the order of `fields`, the others set to `fixed`'s
/// values, by each slot's own descriptor (a frozen class's `__setattr__` refuses): what
/// `object.__new__(cls)` and one `__set__` a field do, without a Python call (a reader makes
/// one for every image, video, article and link).
#[pyclass(module = "urlset._core", frozen)]
pub struct SlotMaker {
    cls: Py<PyType>,
    alloc: ffi::allocfunc,
    /// The slot descriptor of each field: the given ones, then the fixed ones.
    slots: Vec<Py<PyAny>>,
    /// The member descriptors' setter (one type, so one function).
    set: ffi::descrsetfunc,
    fixed: Vec<Py<PyAny>>,
    gc: bool,
}

impl SlotMaker {
    /// A `cls` of `values` (one a given field); the cyclic collector does not track it when
    /// `untracked` (values that can refer to nothing that refers back: texts, numbers,
    /// dates, tuples of them).
    pub fn make<'py>(
        &self,
        py: Python<'py>,
        values: &[Bound<'py, PyAny>],
        untracked: bool,
    ) -> PyResult<Bound<'py, PyAny>> {
        let given = self.slots.len() - self.fixed.len();
        if values.len() != given {
            return Err(pyo3::exceptions::PyTypeError::new_err(format!(
                "{} values for the {given} fields of {}",
                values.len(),
                self.cls.bind(py).name()?
            )));
        }
        let fixed = self.fixed.iter().map(|v| v.bind(py));
        // SAFETY: `alloc` is `cls`'s own allocator, which gives a new reference or NULL with
        // an exception set; `set` is the setter of every descriptor in `slots` (checked to
        // be member descriptors of `cls`), called with a live instance of `cls` and a value
        // it takes its own reference to; an instance of a GC type is tracked once allocated.
        unsafe {
            let made = (self.alloc)(self.cls.as_ptr().cast(), 0);
            let made = Bound::from_owned_ptr_or_err(py, made)?;
            for (slot, value) in self.slots.iter().zip(values.iter().chain(fixed)) {
                if (self.set)(slot.as_ptr(), made.as_ptr(), value.as_ptr()) != 0 {
                    return Err(PyErr::fetch(py));
                }
            }
            if untracked && self.gc {
                ffi::PyObject_GC_UnTrack(made.as_ptr().cast());
            }
            Ok(made)
        }
    }
}

#[pymethods]
impl SlotMaker {
    #[new]
    #[pyo3(signature = (cls, fields, fixed=None))]
    fn new(
        py: Python<'_>,
        cls: &Bound<'_, PyType>,
        fields: Vec<String>,
        fixed: Option<&Bound<'_, PyDict>>,
    ) -> PyResult<Self> {
        let refuse = |why: String| pyo3::exceptions::PyTypeError::new_err(why);
        if cls.getattr("__dictoffset__")?.extract::<isize>()? != 0 {
            return Err(refuse(format!(
                "{} holds a dict: SlotMaker fills slots",
                cls.name()?
            )));
        }
        let member = py.import("types")?.getattr("MemberDescriptorType")?;
        let mut names = fields.clone();
        let mut values = Vec::new();
        for (name, value) in fixed.into_iter().flat_map(|d| d.iter()) {
            names.push(name.extract()?);
            values.push(value.unbind());
        }
        let mut all: Vec<String> = cls.getattr("__slots__")?.extract()?;
        let mut named = names.clone();
        all.sort();
        named.sort();
        if all != named {
            return Err(refuse(format!(
                "the fields {named:?} are not the slots {all:?} of {}",
                cls.name()?
            )));
        }
        let slots = names
            .iter()
            .map(|name| {
                let slot = cls.getattr(name.as_str())?;
                if !slot.get_type().is(&member) {
                    return Err(refuse(format!("{}.{name} is not a slot", cls.name()?)));
                }
                Ok(slot.unbind())
            })
            .collect::<PyResult<Vec<_>>>()?;
        let member_type = member.as_ptr().cast::<ffi::PyTypeObject>();
        // SAFETY: both are type objects (member_descriptor is static: PyType_GetSlot takes
        // static types from 3.10); a type's tp_alloc and tp_descr_set are these signatures.
        let (alloc, set, flags) = unsafe {
            let alloc = ffi::PyType_GetSlot(cls.as_type_ptr(), ffi::Py_tp_alloc);
            let set = ffi::PyType_GetSlot(member_type, ffi::Py_tp_descr_set);
            if alloc.is_null() || set.is_null() {
                return Err(refuse(format!(
                    "{} has no allocator or slot setter",
                    cls.name()?
                )));
            }
            (
                std::mem::transmute::<*mut std::ffi::c_void, ffi::allocfunc>(alloc),
                std::mem::transmute::<*mut std::ffi::c_void, ffi::descrsetfunc>(set),
                ffi::PyType_GetFlags(cls.as_type_ptr()),
            )
        };
        Ok(SlotMaker {
            cls: cls.clone().unbind(),
            alloc,
            slots,
            set,
            fixed: values,
            gc: flags & ffi::Py_TPFLAGS_HAVE_GC != 0,
        })
    }

    /// A `cls` of `values`, in the order of `fields`.
    #[pyo3(signature = (*values))]
    fn __call__<'py>(
        &self,
        py: Python<'py>,
        values: &Bound<'py, PyTuple>,
    ) -> PyResult<Bound<'py, PyAny>> {
        let values: Vec<Bound<'py, PyAny>> = values.iter().collect();
        self.make(py, &values, false)
    }
}

/// A `cls` (a tuple subclass whose instances hold no dict, checked by the caller) of
/// `items`, as `tuple.__new__(cls, items)` makes it, untracked by the cyclic collector.
pub(crate) fn untracked_tuple<'py>(
    py: Python<'py>,
    cls: &Bound<'py, PyType>,
    items: impl ExactSizeIterator<Item = PyResult<Bound<'py, PyAny>>>,
) -> PyResult<Bound<'py, PyAny>> {
    let width = isize::try_from(items.len()).expect("a few items");
    // SAFETY: `cls` is a tuple subclass, so its allocator makes a tuple of `width` empty
    // items with one reference, which `PyTuple_SetItem` fills (each item a new reference it
    // steals; a tuple left partly empty by an error is freed as such); a failed allocation
    // is raised.
    unsafe {
        let made = ffi::PyType_GenericAlloc(cls.as_type_ptr(), width);
        let row = Bound::from_owned_ptr_or_err(py, made)?;
        for (k, item) in items.enumerate() {
            let at = isize::try_from(k).expect("a few items");
            if ffi::PyTuple_SetItem(made, at, item?.into_ptr()) != 0 {
                return Err(PyErr::fetch(py));
            }
        }
        ffi::PyObject_GC_UnTrack(made.cast());
        Ok(row)
    }
}

pub fn register(m: &Bound<'_, PyModule>) -> PyResult<()> {
    m.add_class::<SlotMaker>()
}
