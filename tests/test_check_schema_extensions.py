"""``check --schema`` validates extension elements (image, video, news, xhtml link, mobile)
against urlset's own schemas, and they accept and reject what the official schemas in
``../shared/xsd/`` do, on documents the writer generates and on damaged copies of them."""

from __future__ import annotations

from pathlib import Path

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from lxml import etree

from schema_support import MOBILE_NS, SITEMAP_NS, official_schemas
from test_ext_props import alternates, images, news, videos
from test_ext_write import document
from urlset import Url
from urlset.checking.checker import check
from urlset.checking.schema import schema_errors
from urlset.extensions import IMAGE_NS, NEWS_NS, VIDEO_NS, XHTML_NS

BASE = "https://www.example.com/"


@pytest.fixture(scope="module")
def official(shared: Path) -> etree.XMLSchema:
    return official_schemas(shared / "xsd")["urlset"]


def official_accepts(schema: etree.XMLSchema, data: bytes) -> bool:
    return bool(schema.validate(etree.fromstring(data, etree.XMLParser(no_network=True))))


def ours_accept(data: bytes) -> bool:
    return schema_errors(data, "urlset") == []


def with_url(inner: str) -> bytes:
    return (
        f'<?xml version="1.0" encoding="UTF-8"?>\n<urlset xmlns="{SITEMAP_NS}" '
        f'xmlns:image="{IMAGE_NS}" xmlns:video="{VIDEO_NS}" xmlns:news="{NEWS_NS}" '
        f'xmlns:xhtml="{XHTML_NS}" xmlns:mobile="{MOBILE_NS}">\n'
        f"<url><loc>{BASE}</loc>{inner}</url>\n</urlset>\n"
    ).encode()


IMAGE = f"<image:image><image:loc>{BASE}a.jpg</image:loc>{{}}</image:image>"
NEWS = (
    "<news:news><news:publication><news:name>Daily</news:name>"
    "<news:language>{}</news:language></news:publication>"
    "<news:publication_date>2024-05-06</news:publication_date>"
    "<news:title>T</news:title></news:news>"
)
VIDEO = (
    f"<video:video><video:thumbnail_loc>{BASE}t.jpg</video:thumbnail_loc>"
    "{}<video:description>D</video:description>{}</video:video>"
)
# (case, expected verdict of the official schemas) for hand-made documents
CASES = [
    (IMAGE.format("<image:caption>c</image:caption><image:title>t</image:title>"), True),
    (
        f"<image:image><image:caption>c</image:caption><image:loc>{BASE}a.jpg</image:loc>"
        "</image:image>",
        False,
    ),
    (IMAGE.format("<image:bogus/>"), False),
    (IMAGE.format("<image:title>t</image:title><image:caption>c</image:caption>"), False),
    (NEWS.format("en"), True),
    (NEWS.format("zh-cn"), True),
    (NEWS.format("english"), False),
    (VIDEO.format("<video:title>T</video:title>", "<video:duration>600</video:duration>"), True),
    (VIDEO.format("", ""), False),
    (VIDEO.format("<video:title>T</video:title>", "<video:duration>99999</video:duration>"), False),
    (VIDEO.format("<video:title>T</video:title>", "<video:rating>6</video:rating>"), False),
    (
        VIDEO.format(
            "<video:title>T</video:title>",
            '<video:restriction relationship="allow">IE GB</video:restriction>',
        ),
        True,
    ),
    (VIDEO.format("<video:title>T</video:title>", "<video:restriction>IE</video:restriction>"), False),
    ("<mobile:mobile/>", True),
    ("<mobile:mobile>yes</mobile:mobile>", False),
    (f'<xhtml:link rel="alternate" hreflang="de" href="{BASE}de/"/>', True),
    (f'<xhtml:link rel="alternate" hreflang="de" href="{BASE}de/" bogus="1"/>', False),
    (f'<xhtml:link rel="alternate" hreflang="de" href="{BASE}de/">text</xhtml:link>', False),
]  # fmt: skip


@pytest.mark.parametrize(("inner", "valid"), CASES)
def test_hand_made_extensions_get_the_official_verdict(
    official: etree.XMLSchema, inner: str, valid: bool
) -> None:
    data = with_url(inner)
    assert official_accepts(official, data) is valid, official.error_log
    assert ours_accept(data) is valid, schema_errors(data, "urlset")


@pytest.mark.parametrize(("inner", "valid"), CASES)
def test_check_schema_reports_what_the_extension_schemas_reject(inner: str, valid: bool) -> None:
    # runs without ../shared too: the verdicts above are the official ones
    codes = {i.code for i in check(with_url(inner), schema=True)}
    assert ("schema-error" not in codes) is valid, codes


extensions = st.lists(st.one_of(images(), videos(), news(), alternates()), min_size=1, max_size=4)


@settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(st.lists(extensions, min_size=1, max_size=3), st.data())
def test_generated_documents_get_the_official_verdict(
    official: etree.XMLSchema, groups: list[list[object]], data: st.DataObject
) -> None:
    urls = [Url(f"{BASE}p/{n}", extensions=tuple(group)) for n, group in enumerate(groups)]  # type: ignore[arg-type]
    written = document(urls)
    assert official_accepts(official, written) == ours_accept(written)
    # the same document with one extension element's children in reverse order
    damaged = _reversed_children(written, data.draw(st.integers(0, 50)))
    if damaged is not None:
        assert official_accepts(official, damaged) == ours_accept(damaged)


def _reversed_children(written: bytes, pick: int) -> bytes | None:
    root = etree.fromstring(written)
    targets = [
        el
        for el in root.iter()
        if isinstance(el.tag, str)
        and el.tag.startswith(("{" + IMAGE_NS, "{" + VIDEO_NS, "{" + NEWS_NS))
        and len(el) > 1
    ]
    if not targets:
        return None
    target = targets[pick % len(targets)]
    children = list(target)
    for child in children:
        target.remove(child)
    for child in reversed(children):
        target.append(child)
    result: bytes = etree.tostring(root, xml_declaration=True, encoding="UTF-8")
    return result
