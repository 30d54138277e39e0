//! The checker's scans of a document's bytes as written (Python's `urlset.checking` gives
//! their findings): what the reader's parsed values no longer show.
pub mod loc_texts;
