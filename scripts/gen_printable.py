#!/usr/bin/env python3
"""Write rust/core/src/read/printable.rs: the code points Python's ``str.isprintable`` takes,
as ranges, from this interpreter's Unicode tables (the project's floor, Python 3.11: Unicode
14.0). The compiled tokenizer types an image text only when every character is in them;
tests/test_read_images_lane.py holds the table to the running Python's ``isprintable``.

    python3 scripts/gen_printable.py
"""

from __future__ import annotations

import sys
import unicodedata
from pathlib import Path

OUT = Path(__file__).resolve().parent.parent / "rust" / "core" / "src" / "read" / "printable.rs"


def ranges() -> list[tuple[int, int]]:
    found: list[tuple[int, int]] = []
    start = None
    for code in range(0x110000):
        if chr(code).isprintable():
            start = code if start is None else start
        elif start is not None:
            found.append((start, code - 1))
            start = None
    if start is not None:
        found.append((start, 0x10FFFF))
    return found


def main() -> None:
    table = ranges()
    rows = [
        "    " + " ".join(f"(0x{a:X}, 0x{b:X})," for a, b in table[i : i + 4])
        for i in range(0, len(table), 4)
    ]
    version = f"{sys.version_info.major}.{sys.version_info.minor}"
    OUT.write_text(
        f"""//! The characters Python's `str.isprintable` takes (Python {version}, Unicode
//! {unicodedata.unidata_version}), written by scripts/gen_printable.py: do not edit by hand.

/// Inclusive ranges of code points, in order.
#[rustfmt::skip]
const PRINTABLE: [(u32, u32); {len(table)}] = [
{chr(10).join(rows)}
];

/// Whether `str.isprintable` is true of `ch` (a character assigned after Unicode
/// {unicodedata.unidata_version} is not taken: it is left to the Python readers).
pub fn printable(ch: char) -> bool {{
    if (' '..='~').contains(&ch) {{
        return true;
    }}
    let code = u32::from(ch);
    let at = PRINTABLE.partition_point(|&(_, last)| last < code);
    at < PRINTABLE.len() && PRINTABLE[at].0 <= code
}}
""",
        encoding="utf-8",
    )


if __name__ == "__main__":
    main()
