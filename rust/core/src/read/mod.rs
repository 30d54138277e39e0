//! Reading: the compiled lane of the XML reader (see src/urlset/reading/xml_compiled.py).
pub mod columns;
pub mod gzip;
pub mod gzip_ahead;
pub mod images;
pub mod json;
pub mod media;
pub mod printable;
pub mod raw;
pub mod records;
pub mod render;
pub mod seen;
pub mod stretch;
pub mod text;
pub mod values;
