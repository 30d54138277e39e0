//! Columns of a table as Arrow lays them out (offsets, values and validity bits, little-endian
//! bytes), read a value at a time without an object per value.

/// One column of a batch. `offset` is the Arrow array's offset into its buffers.
#[derive(Clone, Debug)]
pub enum Column<'a> {
    /// No such column: every value absent.
    Missing,
    /// large_string: i64 offsets into UTF-8 data.
    Text {
        validity: Option<&'a [u8]>,
        offsets: &'a [u8],
        data: &'a [u8],
        offset: usize,
    },
    /// date32: days since 1970-01-01.
    Days {
        validity: Option<&'a [u8]>,
        values: &'a [u8],
        offset: usize,
    },
    /// timestamp[us] in a zone: the instant and the local wall time, both in microseconds.
    Times {
        validity: Option<&'a [u8]>,
        utc: &'a [u8],
        local: &'a [u8],
        offset: usize,
    },
    /// float64.
    Floats {
        validity: Option<&'a [u8]>,
        values: &'a [u8],
        offset: usize,
    },
}

/// One value of a column.
#[derive(Clone, Copy, Debug, PartialEq)]
pub enum Cell<'a> {
    Null,
    Text(&'a str),
    Days(i64),
    /// microseconds since 1970 UTC, and the zone's offset then in minutes (None: not whole)
    Time(i64, Option<i16>),
    Float(f64),
    /// a value the buffers cannot give (cut short, not UTF-8)
    Broken,
}

fn valid(validity: Option<&[u8]>, index: usize) -> Option<bool> {
    match validity {
        None => Some(true),
        Some(bits) => Some(bits.get(index / 8)? & (1 << (index % 8)) != 0),
    }
}

fn word<const N: usize>(bytes: &[u8], index: usize) -> Option<[u8; N]> {
    bytes.get(index * N..index * N + N)?.try_into().ok()
}

fn int64(bytes: &[u8], index: usize) -> Option<i64> {
    word::<8>(bytes, index).map(i64::from_le_bytes)
}

impl Column<'_> {
    /// The value in row `row` of the batch.
    pub fn cell(&self, row: usize) -> Cell<'_> {
        self.read(row).unwrap_or(Cell::Broken)
    }

    fn read(&self, row: usize) -> Option<Cell<'_>> {
        Some(match *self {
            Column::Missing => Cell::Null,
            Column::Text {
                validity,
                offsets,
                data,
                offset,
            } => {
                let at = offset + row;
                if !valid(validity, at)? {
                    return Some(Cell::Null);
                }
                let start = usize::try_from(int64(offsets, at)?).ok()?;
                let end = usize::try_from(int64(offsets, at + 1)?).ok()?;
                Cell::Text(std::str::from_utf8(data.get(start..end)?).ok()?)
            }
            Column::Days {
                validity,
                values,
                offset,
            } => {
                let at = offset + row;
                if !valid(validity, at)? {
                    return Some(Cell::Null);
                }
                Cell::Days(i64::from(i32::from_le_bytes(word::<4>(values, at)?)))
            }
            Column::Times {
                validity,
                utc,
                local,
                offset,
            } => {
                let at = offset + row;
                if !valid(validity, at)? {
                    return Some(Cell::Null);
                }
                let instant = int64(utc, at)?;
                let ahead = int64(local, at)?.checked_sub(instant)?;
                let minutes = (ahead % 60_000_000 == 0)
                    .then(|| i16::try_from(ahead / 60_000_000).ok())
                    .flatten();
                Cell::Time(instant, minutes)
            }
            Column::Floats {
                validity,
                values,
                offset,
            } => {
                let at = offset + row;
                if !valid(validity, at)? {
                    return Some(Cell::Null);
                }
                Cell::Float(f64::from_le_bytes(word::<8>(values, at)?))
            }
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn le64(values: &[i64]) -> Vec<u8> {
        values.iter().flat_map(|v| v.to_le_bytes()).collect()
    }

    #[test]
    fn cells_are_read_with_offsets_and_validity() {
        let offsets = le64(&[0, 1, 3, 3, 6]);
        let text = Column::Text {
            validity: Some(&[0b1011]),
            offsets: &offsets,
            data: b"abcdef",
            offset: 1,
        };
        assert_eq!(text.cell(0), Cell::Text("bc"));
        assert_eq!(text.cell(1), Cell::Null);
        assert_eq!(text.cell(2), Cell::Text("def"));
        assert_eq!(text.cell(3), Cell::Null);
        let unchecked = Column::Text {
            validity: None,
            offsets: &offsets,
            data: b"abc",
            offset: 0,
        };
        assert_eq!(unchecked.cell(3), Cell::Broken); // cut short
        assert_eq!(unchecked.cell(4), Cell::Broken);
        let utc = le64(&[0, 60_000_000]);
        let local = le64(&[7_200_000_000, 60_000_001]);
        let times = Column::Times {
            validity: None,
            utc: &utc,
            local: &local,
            offset: 0,
        };
        assert_eq!(times.cell(0), Cell::Time(0, Some(120)));
        assert_eq!(times.cell(1), Cell::Time(60_000_000, None));
        let floats = le64(&[f64::to_bits(0.5) as i64]);
        let column = Column::Floats {
            validity: None,
            values: &floats,
            offset: 0,
        };
        assert_eq!(column.cell(0), Cell::Float(0.5));
        assert_eq!(Column::Missing.cell(5), Cell::Null);
    }
}
