//! The writer's hot loops: escaping, lastmods (parsed by [`crate::values`]), entries rendered with exact byte accounting.
pub mod articles;
pub mod chunk;
pub mod columns;
pub mod dedupe;
pub mod escape;
pub mod links;
pub mod locs;
pub mod render;
