"""The checker judges the render lane's runs of records a column at a time
(``checking/entries.py``) and the reader's other entries one by one; both ways must give
the same findings, counts and newest lastmod as taking every entry one by one (what a
check with ``on_urls``, the HTML report's counts, does)."""

from __future__ import annotations

from dataclasses import replace
from datetime import UTC, datetime
from pathlib import Path

import pytest
from hypothesis import HealthCheck, given, settings

from test_read_property import documents, mutated
from urlset.checking.checker import CheckOptions, check_document
from urlset.checking.report import FileResult

NOW = datetime(2026, 1, 1, tzinfo=UTC)
NS = "http://www.sitemaps.org/schemas/sitemap/0.9"
IMAGE = "http://www.google.com/schemas/sitemap-image/1.1"


def _one_by_one(doc: bytes, options: CheckOptions) -> FileResult:
    return check_document(doc, replace(options, on_urls=lambda source, urls: None), "doc")


def _same(doc: bytes, options: CheckOptions) -> FileResult:
    result = check_document(doc, options, "doc")
    careful = _one_by_one(doc, options)
    assert result.issues == careful.issues
    assert result.unlisted == careful.unlisted
    assert (result.entries, result.newest_lastmod) == (careful.entries, careful.newest_lastmod)
    assert type(result.newest_lastmod) is type(careful.newest_lastmod)
    assert careful.careful_entries == careful.entries
    return result


def _lastmod(i: int, kind: str) -> str:
    offsets = ("Z", "+01:00", "-05:00", "+05:30")
    if kind == "times":
        return f"2025-0{1 + i % 9}-1{i % 10}T10:{i % 60:02d}:00{offsets[i % 4]}"
    if kind == "fractions":
        return f"2025-03-01T10:00:0{i % 10}.{i % 1000:03d}{offsets[i % 4]}"
    if kind == "dates":
        return f"2025-0{1 + i % 9}-1{i % 10}"
    if kind == "future":  # a future date or time now and then, among past ones
        return ("2027-02-01", "2026-06-01T00:00:00+02:00", "2025-01-01")[i % 3]
    if kind == "tomorrow":  # the day after now: not in the future somewhere on Earth
        return ("2026-01-01", "2026-01-02", "2025-12-31T23:59:59-11:00")[i % 3]
    if kind == "reduced":  # a year, a month among dates
        return ("2024", "2024-05", "2025-01-01")[i % 3]
    if kind == "some":  # a time now and then, most without a lastmod
        return _lastmod(i, "times") if i % 5 == 0 else ""
    if kind == "mixed":
        return _lastmod(i, ("times", "dates", "fractions", "future")[i % 4])
    return ""


def _urlset(n: int, *, lastmods: str, host: str, images: int, other: str = "") -> bytes:
    rows = []
    for i in range(n):
        loc = f"https://{host}/p/{i}?a=1&amp;b=it&apos;s" if i % 3 else f"https://{host}/c/{i}"
        if other and i % 17 == 5:
            loc = f"https://{other}/x/{i}"
        lastmod = _lastmod(i, lastmods)
        parts = [f"<loc>{loc}</loc>"]
        if lastmod:
            parts.append(f"<lastmod>{lastmod}</lastmod>")
        if i % 2:
            parts.append(f"<changefreq>weekly</changefreq><priority>0.{i % 10}</priority>")
        if images and i % images == 0:
            parts.append(
                f"<image:image><image:loc>https://{host}/i/{i}.jpg</image:loc>"
                f"<image:caption>c {i}</image:caption></image:image>"
            )
        if i == 40:  # a repeated loc
            parts[0] = f"<loc>https://{host}/c/0</loc>"
        rows.append("<url>" + "".join(parts) + "</url>\n")
    return (
        f'<?xml version="1.0" encoding="UTF-8"?>\n<urlset xmlns="{NS}" xmlns:image="{IMAGE}">\n'
        + "".join(rows)
        + "</urlset>\n"
    ).encode()


LASTMODS = ("none", "some", "times", "fractions", "dates", "future", "tomorrow", "reduced", "mixed")
HOSTS = {  # host, another host now and then
    "one": ("www.urlset-shop.com", ""),
    "two": ("www.urlset-shop.com", "cdn.urlset-shop.com"),
    "dev": ("localhost:8080", ""),
    "placeholder": ("www.example.com", ""),
    "www variant": ("urlset-shop.com", ""),
}
SCOPES = {
    "none": CheckOptions(now=NOW),
    "site": CheckOptions(base_url="https://www.urlset-shop.com/", now=NOW),
    "folder": CheckOptions(base_url="https://www.urlset-shop.com/p/", now=NOW),
    "no clock": CheckOptions(base_url="https://www.urlset-shop.com/"),
}


@pytest.mark.parametrize("lastmods", LASTMODS)
@pytest.mark.parametrize("hosts", sorted(HOSTS))
@pytest.mark.parametrize("images", [0, 7])
def test_columns_give_what_one_by_one_gives(lastmods: str, hosts: str, images: int) -> None:
    host, other = HOSTS[hosts]
    doc = _urlset(300, lastmods=lastmods, host=host, images=images, other=other)
    for options in SCOPES.values():
        result = _same(doc, options)
        assert result.entries == 300


def test_a_plain_urlset_is_judged_in_columns() -> None:
    """Every record of a canonical urlset (times in offsets, & and ', images) comes in the
    core's columns: none is taken one by one."""
    doc = _urlset(5_000, lastmods="mixed", host="www.urlset-shop.com", images=10)
    result = _same(doc, SCOPES["site"])
    # a repeated loc (the reader reports it) comes one by one; the first record's origin is
    # judged in the core too
    assert result.careful_entries == 1
    codes = {i.code for i in result.issues}
    assert codes == {"future-lastmod", "image-deprecated-field", "duplicate-loc"}


@settings(
    max_examples=120,
    deadline=None,
    suppress_health_check=[HealthCheck.too_slow, HealthCheck.function_scoped_fixture],
)
@given(documents() | mutated())
def test_columns_change_no_finding(doc: bytes) -> None:
    _same(doc, SCOPES["site"])


@pytest.mark.parametrize("per_url", [1, 2, 1000, 1001])
def test_images_with_their_loc_only_are_counted_in_columns(
    per_url: int, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Records whose only extensions are images with a loc each (a shop's usual image
    sitemap) are counted a column at a time, never typed as Urls, their findings worded
    only past 1,000 images (where a rule flags them), with the findings and counts of
    taking each one by one."""
    from urlset.checking import entries

    typed: list[int] = []
    url = entries.Records.url
    monkeypatch.setattr(entries.Records, "url", lambda self, i: typed.append(i) or url(self, i))
    worded: list[str] = []
    words = entries.listed_issues
    monkeypatch.setattr(
        entries, "listed_issues", lambda loc, *rest: worded.append(loc) or words(loc, *rest)
    )
    images = "".join(
        f"<image:image><image:loc>https://www.urlset-shop.com/i/{k}.jpg</image:loc></image:image>"
        for k in range(per_url)
    )
    rows = "".join(
        f"<url><loc>https://www.urlset-shop.com/p/{i}</loc>{images if i % 3 == 0 else ''}</url>\n"
        for i in range(30)
    )
    doc = (
        f'<?xml version="1.0" encoding="UTF-8"?>\n<urlset xmlns="{NS}" xmlns:image="{IMAGE}">\n'
        f"{rows}</urlset>\n"
    ).encode()
    result = _same(doc, SCOPES["site"])
    assert result.discovered["images"] == 10 * per_url
    assert typed == []
    assert bool(worded) is (per_url > 1000)
    assert ("too-many-images" in {i.code for i in result.issues}) is (per_url > 1000)


@pytest.mark.parametrize("options", [SCOPES["site"], SCOPES["no clock"]], ids=["clock", "none"])
def test_years_and_months_past_the_cap_are_counted_in_columns(options: CheckOptions) -> None:
    """A year or a month is a finding each: the first 1,000 listed, the rest counted, a
    distinct text judged once; in columns as one by one, with the newest lastmod alike."""
    doc = _urlset(3_000, lastmods="reduced", host="www.urlset-shop.com", images=0)
    result = _same(doc, options)
    assert result.unlisted["lastmod-without-day"] == 2 * 3_000 // 3 - 1_000
    assert result.careful_entries <= 2


def test_plain_runs_make_no_loc_strings_and_hash_alike(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A run of plain records on one known host is judged on the loc column's buffers (no
    string per loc), its pages hashed there for the set rules as the strings would be: a
    variant another file names among them is in the set (``hreflang-unlisted``), one beside
    them is not (``hreflang-unverified``); a page with only loc-only images too."""
    from urlset.checking import records
    from urlset.checking.checker import check_paths

    site = "https://www.shop.org"
    image = f"<image:image><image:loc>{site}/i.jpg</image:loc></image:image>"
    plain = "".join(
        f"<url><loc>{site}/p/{i}</loc>{image if i % 10 == 3 else ''}</url>\n" for i in range(3_000)
    )
    head = f'<?xml version="1.0" encoding="UTF-8"?>\n<urlset xmlns="{NS}" xmlns:image="{IMAGE}" xmlns:xhtml="http://www.w3.org/1999/xhtml">\n'
    (tmp_path / "a.xml").write_text(head + plain + "</urlset>\n")
    links = "".join(
        f'<xhtml:link rel="alternate" hreflang="{code}" href="{site}/{path}"/>'
        for code, path in (("en", "en"), ("de", "p/7"), ("fr", "p/13"), ("it", "p/3000"))
    )
    (tmp_path / "b.xml").write_text(f"{head}<url><loc>{site}/en</loc>{links}</url>\n</urlset>\n")
    made = []
    locs = records.Records.locs
    monkeypatch.setattr(
        records.Records, "locs", property(lambda run: made.append(run) or locs.fget(run))
    )
    report = check_paths([tmp_path / "a.xml"])
    assert report.files[0].entries == 3_000 and not made
    found = sorted(
        (i.code, i.message.split()[0])
        for f in check_paths([tmp_path]).files
        for i in f.issues
        if i.code.startswith("hreflang")
    )
    assert found == [
        ("hreflang-unlisted", f"{site}/p/13"),
        ("hreflang-unlisted", f"{site}/p/7"),
        ("hreflang-unverified", f"{site}/p/3000"),
    ]


def test_the_readers_loc_hashes_are_the_locs_hashes(monkeypatch: pytest.MonkeyPatch) -> None:
    """The set rules take each run's loc hashes from the reader's duplicate test: they are
    the hashes of the locs as the columns hold them, written with references, as IRIs the
    core made URIs of, or in CDATA, in runs of every size."""
    from urlset import _core
    from urlset.checking import records

    forms = (
        "{site}/p/{i}",
        "{site}/q?a={i}&amp;b=&#038;c&#x27;",
        "{site}/caf\u00e9/{i}-\u20ac",
        "<![CDATA[{site}/c/{i}]]>",
    )
    site = "https://www.shop.org"
    entries = "".join(
        f"<url><loc>{forms[i % len(forms)].format(site=site, i=i)}</loc></url>\n"
        for i in range(20_000)
    )
    doc = f'<?xml version="1.0" encoding="UTF-8"?>\n<urlset xmlns="{NS}">\n{entries}</urlset>\n'
    seen: list[tuple[list[str], bytes]] = []
    loc_hashes = records.Records.loc_hashes

    def spied(run: records.Records) -> bytes:
        hashes = loc_hashes(run)
        seen.append((run.locs, hashes))
        return hashes

    monkeypatch.setattr(records.Records, "loc_hashes", spied)
    result = _same(doc.encode(), CheckOptions())
    assert result.entries == 20_000
    assert sum(len(locs) for locs, _ in seen) == 20_000 and len(seen) > 1
    for locs, hashes in seen:
        assert hashes == _core.loc_hashes(locs)


def test_lastmods_are_judged_in_the_core_a_text_made_only_where_a_rule_reads_it(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """The newest lastmods and the ones a rule may flag are found on the core's columns
    (``_core.judge_lastmods``): among dates and times, a year now and then and a date after
    now, only those records' texts become strings (and each run's newest), never the
    column's whole; the findings are what one by one gives."""
    from urlset.checking import records

    made: list[int] = []
    texts_at = records._texts_at
    monkeypatch.setattr(
        records, "_texts_at", lambda b, s, where: made.append(len(where)) or texts_at(b, s, where)
    )
    texts = records._texts

    def one(buffers: object, start: int, stop: int) -> list[str]:
        assert stop - start == 1, "a whole column made"
        return texts(buffers, start, stop)

    monkeypatch.setattr(records, "_texts", one)
    site = "https://www.urlset-shop.com"
    forms = ["2025-03-0{}", "2025-03-01T10:00:0{}Z", "2025-03-01T10:00:00.{}+05:30"]
    rows = "".join(
        f"<url><loc>{site}/p/{i}</loc><lastmod>"
        + (
            "2024"
            if i % 100 == 7
            else "2027-01-01"
            if i % 100 == 8
            else forms[i % 3].format(i % 9 + 1)
        )
        + "</lastmod></url>\n"
        for i in range(3_000)
    )
    doc = f'<?xml version="1.0" encoding="UTF-8"?>\n<urlset xmlns="{NS}">\n{rows}</urlset>\n'
    result = check_document(doc.encode(), SCOPES["site"], "doc")
    assert {i.code for i in result.issues} == {"lastmod-without-day", "future-lastmod"}
    # the years' texts, then each flagged record's lastmod and loc (30 years, 30 future dates)
    assert sum(made) <= 5 * 30
    monkeypatch.undo()
    _same(doc.encode(), SCOPES["site"])
