//! The private extension module `urlset._core`: thin bindings over `urlset-core`.
use pyo3::prelude::*;

mod check;
mod gzip;
mod lastmods;
mod read;
mod render;
mod set;
mod slots;
mod sources;
mod views;
mod write;

#[pymodule]
fn _core(m: &Bound<'_, PyModule>) -> PyResult<()> {
    m.add("VERSION", urlset_core::VERSION)?;
    m.add("OPTIMIZED", urlset_core::OPTIMIZED)?;
    check::register(m)?;
    gzip::register(m)?;
    read::register(m)?;
    m.add_function(wrap_pyfunction!(lastmods::lastmod_value, m)?)?;
    m.add_function(wrap_pyfunction!(lastmods::judged_value, m)?)?;
    render::register(m)?;
    set::register(m)?;
    slots::register(m)?;
    write::register(m)?;
    sources::register(m)?;
    views::register(m)?;
    Ok(())
}
