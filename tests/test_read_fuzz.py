"""Differential fuzzing of the readers, bounded for the suite (tests/read_fuzz.py says how;
scripts/fuzz_read.py runs it for longer): mutated sitemaps read by the compiled lane and the
careful lane, whole and in chunks, give the same entries and findings and raise nothing."""

from __future__ import annotations

import os
import random

import pytest

import read_fuzz
from read_fuzz_known import KNOWN
from urlset.reading.xml_guard import Guard

CASES = 40
SEED = int(os.environ.get("URLSET_FUZZ_SEED", "20261128"))


def test_mutated_sitemaps_read_the_same_four_ways() -> None:
    pool = read_fuzz.seeds()
    tally = read_fuzz.run(pool, random.Random(SEED), lambda done: done < CASES)
    assert tally.cases == CASES
    report = [line for failure in tally.failures for line in read_fuzz.describe(failure)]
    assert not tally.failures, f"seed {SEED}: {tally.line()}\n" + "\n".join(report)


def test_the_repositorys_own_seeds_serve_without_the_corpus() -> None:
    names = [name for name, _ in read_fuzz.seeds(shared=False)]
    assert len(names) >= 10 and any(name.startswith("check/") for name in names)


def test_a_planted_difference_is_caught(monkeypatch: pytest.MonkeyPatch) -> None:
    """The comparison itself: with the guard's handling of forbidden character references
    taken out, a surrogate escapes as an exception, as it did before."""
    monkeypatch.setattr(Guard, "_char_ref", lambda self, data, k, ref: None)
    doc = read_fuzz.BUILT_IN[0].replace(b"/a?x=1", b"/a&#xD800;", 1)
    outcome = read_fuzz.read_four_ways(doc, 7)
    assert len(outcome.raised) == 4 and "UnicodeDecodeError" in outcome.raised[0]
    flipped = read_fuzz.read_four_ways(doc.replace(b"&#xD800;", b"&#x41;"), 7)
    assert flipped.agree and not flipped.raised


def test_every_known_difference_says_why() -> None:
    for name, (explains, reason) in KNOWN.items():
        assert callable(explains) and len(reason) > 40, name
