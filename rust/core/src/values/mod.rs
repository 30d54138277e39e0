//! The protocol's values, one implementation each for the reader and the writer: locs
//! (which URIs `urls.to_uri` returns unchanged), W3C Datetime lastmods, changefreq names,
//! priorities and the five predefined entities. Where the two sides ask different
//! questions (the reader takes XML text exactly as written, the writer a Python value that
//! may be trimmed or folded) each asks it here on top of the same check.
pub mod alternate;
pub mod bytes;
pub mod entities;
pub mod extensions;
pub mod image;
pub mod iri;
pub mod lastmod;
pub mod loc;
pub mod news;
pub mod scalars;
pub mod video;
