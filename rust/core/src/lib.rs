//! urlset's hot loops in plain Rust. Python reaches them only through the `urlset-py` crate
//! (the private module `urlset._core`); nothing here is a public Rust API.
#![forbid(unsafe_code)]

pub mod check;
mod hash_table;
pub mod read;
pub mod set;
pub mod sources;
pub mod values;
pub mod write;

/// The version of the compiled core, so Python can tell which build it loaded.
pub const VERSION: &str = env!("CARGO_PKG_VERSION");

/// Whether this was compiled with optimisations; benchmarks refuse a debug build.
pub const OPTIMIZED: bool = !cfg!(debug_assertions);

/// Numbers below a bound from a seeded linear congruential generator: random cases that are
/// the same on every run (the property tests' draws).
#[cfg(test)]
pub(crate) fn draws(seed: u64) -> impl FnMut(usize) -> usize {
    let mut state = seed;
    move |below| {
        state = state
            .wrapping_mul(6_364_136_223_846_793_005)
            .wrapping_add(1_442_695_040_888_963_407);
        (state >> 33) as usize % below
    }
}

#[cfg(test)]
mod tests {
    #[test]
    fn version_is_the_crate_version() {
        assert_eq!(super::VERSION, "0.1.0");
    }
}
