//! The checker's scans of a document's bytes as written (Python's `urlset.checking` gives
//! their findings): what the reader's parsed values no longer show; and the facts its
//! rules need of the render lane's columns (`loc_column`, `lastmods`).
pub mod element_texts;
pub mod ext_json;
pub mod ext_typed;
mod ext_walk;
pub mod index_lines;
pub mod lastmods;
pub mod loc_column;
pub mod loc_texts;
pub mod order;
pub mod text_lines;

/// An Arrow string column's offset and value buffers holding `rows` (the tests' columns).
#[cfg(test)]
pub(crate) fn test_column(rows: &[&str]) -> (Vec<u8>, Vec<u8>) {
    let mut offsets = 0i32.to_ne_bytes().to_vec();
    let mut values = Vec::new();
    for row in rows {
        values.extend_from_slice(row.as_bytes());
        offsets.extend_from_slice(&(values.len() as i32).to_ne_bytes());
    }
    (offsets, values)
}
