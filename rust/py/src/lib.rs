//! The private extension module `urlset._core`: thin bindings over `urlset-core`.
use pyo3::prelude::*;

mod gzip;
mod read;
mod render;
mod sources;
mod write;

#[pymodule]
fn _core(m: &Bound<'_, PyModule>) -> PyResult<()> {
    m.add("VERSION", urlset_core::VERSION)?;
    m.add("OPTIMIZED", urlset_core::OPTIMIZED)?;
    gzip::register(m)?;
    read::register(m)?;
    render::register(m)?;
    write::register(m)?;
    sources::register(m)?;
    Ok(())
}
