//! The writer's hot loops: escaping, lastmods, entries rendered with exact byte accounting.
pub mod columns;
pub mod dedupe;
pub mod escape;
pub mod lastmod;
pub mod locs;
pub mod render;
