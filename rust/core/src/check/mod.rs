//! The checker's scans of a document's bytes as written (Python's `urlset.checking` gives
//! their findings): what the reader's parsed values no longer show; and the facts its
//! rules need of the render lane's columns (`loc_column`).
pub mod ext_json;
pub mod loc_column;
pub mod loc_texts;
