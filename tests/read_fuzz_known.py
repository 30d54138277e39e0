"""Differences between the four ways of reading (tests/read_fuzz.py) that are deliberate:
name -> (does it explain this document and these results?, why it is so).

A row is added only with the reason the difference is right, never to quiet the fuzzer.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

Explains = Callable[[bytes, dict[str, Any]], bool]

KNOWN: dict[str, tuple[Explains, str]] = {}
