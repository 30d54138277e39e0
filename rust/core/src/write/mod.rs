//! The writer's hot loops: escaping, lastmods (parsed by [`crate::values`]), entries rendered with exact byte accounting.
pub mod chunk;
pub mod columns;
pub mod dedupe;
pub mod entry_texts;
pub mod escape;
pub mod links;
pub mod locs;
pub mod render;
