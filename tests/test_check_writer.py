"""What urlset writes checks clean: no error and no warning, whatever the entries."""

from __future__ import annotations

import tempfile
from datetime import UTC, date, datetime, timedelta
from pathlib import Path

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from urlset import CURRENT, Url, write_sitemaps
from urlset.checking.checker import CheckOptions, check_document, check_paths
from urlset.model import ChangeFreq
from urlset.writing.document import URLSET_FOOTER, url_element, urlset_header

BASE = "https://www.urlset-test.org/shop/"
NOW = datetime(2026, 6, 1, tzinfo=UTC)

# path segments with characters that need percent- or entity-escaping on the way out
segment = st.text(
    alphabet=st.sampled_from("abcXYZ019-._~!$&'()*+,;=:@ %üß漢/?#"), min_size=0, max_size=12
)
lastmod = st.one_of(
    st.none(),
    st.dates(min_value=date(1995, 1, 1), max_value=NOW.date()),
    st.datetimes(
        min_value=datetime(1995, 1, 1),
        max_value=(NOW - timedelta(days=1)).replace(tzinfo=None),
        timezones=st.just(UTC),
    ),
)


@st.composite
def _urls(draw: st.DrawFn) -> Url:
    path = draw(segment)
    return Url(
        BASE + path.lstrip("/"),
        draw(lastmod),
        draw(st.none() | st.sampled_from(list(ChangeFreq))),
        draw(st.none() | st.integers(0, 10).map(lambda n: n / 10)),
    )


def urls() -> st.SearchStrategy[Url]:
    # dot segments ("a/../..") can leave the directory; such URLs are not the writer's to accept.

    return _urls().filter(lambda u: u.loc.startswith(BASE))


@settings(max_examples=40, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(st.lists(urls(), min_size=1, max_size=30), st.integers(1, 7), st.booleans())
def test_written_sets_check_clean(entries: list[Url], per_file: int, gz: bool) -> None:
    with tempfile.TemporaryDirectory() as out:
        write_sitemaps(entries, out, BASE, limits=CURRENT.lowered(max_urls=per_file), gzip=gz)
        report = check_paths([Path(out)], CheckOptions(base_url=BASE, now=NOW, schema=True))
        assert report.files
        assert report.issues == []


@settings(max_examples=60, deadline=None)
@given(st.lists(urls(), min_size=1, max_size=20, unique_by=lambda u: u.loc))
def test_serialised_documents_check_clean(entries: list[Url]) -> None:
    doc = urlset_header() + "".join(url_element(u) for u in entries) + URLSET_FOOTER
    result = check_document(
        doc.encode(), CheckOptions(base_url=BASE + "sitemap.xml", now=NOW, schema=True)
    )
    assert result.issues == []
    assert result.entries == len(entries)


def test_reader_entry_before_dot_path() -> None:
    entries = [Url(BASE), Url(BASE + ".0")]
    doc = urlset_header() + "".join(url_element(u) for u in entries) + URLSET_FOOTER
    result = check_document(doc.encode(), CheckOptions(base_url=BASE + "sitemap.xml", now=NOW))
    assert result.issues == []
    assert result.entries == 2
