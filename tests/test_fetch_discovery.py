"""The discovery core, driven by plain Python fetch functions: no network, no reader."""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from datetime import date

import pytest

from urlset.fetching.discovery import (
    NEED_RESPONSE,
    CacheRecord,
    DiscoveryOptions,
    DiscoveryResult,
    FetchRequest,
    FetchResponse,
    NodeState,
    SitemapRead,
    discover,
    drive,
    robots_sitemaps,
    robots_url,
    start_kind,
)
from urlset.model import Issue, Severity, SitemapRef, Url

S = "https://example.com"


@dataclass
class Doc:
    status: int = 200
    items: Sequence[Url | SitemapRef | Issue] = ()
    format: str | None = "urlset"
    body: bytes = b""
    redirect_to: str | None = None
    error: str | None = None
    headers: dict[str, str] = field(default_factory=dict)


def urls(prefix: str, n: int) -> list[Url]:
    return [Url(f"{S}/{prefix}/{i}") for i in range(n)]


def index(*locs: str, lastmod: str | None = None) -> Doc:
    return Doc(items=[SitemapRef(loc, lastmod) for loc in locs], format="sitemapindex")


class Site:
    """A fake site: URL -> Doc, and a log of the requests made."""

    def __init__(self, docs: dict[str, Doc]) -> None:
        self.docs = docs
        self.requests: list[FetchRequest] = []

    def __call__(self, request: FetchRequest) -> FetchResponse:
        self.requests.append(request)
        doc = self.docs.get(request.url)
        if doc is None:
            return FetchResponse(request, request.url, 404)
        if doc.error is not None:
            return FetchResponse(request, request.url, None, error=doc.error)
        if request.cached_only:
            return FetchResponse(
                request, request.url, 200, items=doc.items, format=doc.format, from_cache=True
            )
        final = doc.redirect_to or request.url
        if request.kind == "robots":
            return FetchResponse(request, final, doc.status, body=doc.body)
        return FetchResponse(
            request, final, doc.status, doc.headers, items=doc.items, format=doc.format
        )

    def urls_of(self, kind: str = "sitemap") -> list[str]:
        return [r.url for r in self.requests if r.kind == kind]


def run(
    start: str,
    site: Callable[[FetchRequest], FetchResponse],
    options: DiscoveryOptions | None = None,
    known: dict[str, CacheRecord] | None = None,
) -> tuple[DiscoveryResult, list[SitemapRead]]:
    reads: list[SitemapRead] = []
    result = drive(discover(start, options, known), site, reads.append)
    return result, reads


def all_locs(reads: list[SitemapRead]) -> list[str]:
    return [u.loc for r in reads for u in r.urls]


def codes(result: DiscoveryResult) -> set[str]:
    found = {i.code for i in result.issues}
    for node in result.nodes():
        found.update(i.code for i in node.issues)
    return found


def robots(text: str) -> Doc:
    return Doc(body=text.encode("utf-8"), format=None)


def test_start_kinds() -> None:
    assert start_kind("https://example.com") == "site"
    assert start_kind("https://example.com/") == "site"
    assert start_kind("https://example.com/robots.txt") == "robots"
    assert start_kind("https://example.com/sitemap.xml") == "sitemap"
    assert start_kind("https://example.com/?sitemap=1") == "sitemap"
    assert robots_url("https://example.com:8080/a/b?c") == "https://example.com:8080/robots.txt"


def test_robots_then_index_then_children() -> None:
    site = Site(
        {
            f"{S}/robots.txt": robots(
                f"User-agent: *\nDisallow: /private\nSitemap: {S}/index.xml\nsitemap: /news.xml\n"
            ),
            f"{S}/index.xml": index(f"{S}/a.xml", f"{S}/b.xml"),
            f"{S}/a.xml": Doc(items=urls("a", 3)),
            f"{S}/b.xml": Doc(items=urls("b", 2)),
            f"{S}/news.xml": Doc(items=urls("n", 1)),
        }
    )
    result, reads = run(S, site)
    assert sorted(all_locs(reads)) == sorted(
        u.loc for u in urls("a", 3) + urls("b", 2) + urls("n", 1)
    )
    assert result.url_count == 6
    assert result.sitemaps_read == 4
    assert not result.partial
    (root,) = result.roots
    assert root.kind == "robots" and root.ref_count == 2
    assert [c.url for c in root.children] == [f"{S}/index.xml", f"{S}/news.xml"]
    assert [c.url for c in root.children[0].children] == [f"{S}/a.xml", f"{S}/b.xml"]
    assert root.children[0].ref_count == 2 and root.children[0].children[0].url_count == 3
    relative = [i for i in root.issues if i.code == "robots-relative-sitemap"]
    assert len(relative) == 1 and "/news.xml" in relative[0].message
    # no well-known probing when robots.txt names sitemaps
    assert f"{S}/sitemap.xml" not in site.urls_of()
    # each read names the sitemap the URLs came from
    assert {r.node.url for r in reads} == {f"{S}/a.xml", f"{S}/b.xml", f"{S}/news.xml"}


def test_robots_bom_and_any_case() -> None:
    body = (
        b"\xef\xbb\xbfSitemap: https://example.com/first.xml\nUser-agent: *\nSITEMAP: /second.xml\n"
    )
    assert robots_sitemaps(body) == ["https://example.com/first.xml", "/second.xml"]


def test_robots_only_relative_paths_are_resolved() -> None:
    site = Site(
        {
            f"{S}/robots.txt": robots("User-agent: *\nSitemap: /s1.xml\nSitemap: sub/s2.xml\n"),
            f"{S}/s1.xml": Doc(items=urls("1", 1)),
            f"{S}/sub/s2.xml": Doc(items=urls("2", 1)),
        }
    )
    result, _reads = run(S, site)
    assert result.url_count == 2 and not result.partial
    assert sum(1 for i in result.roots[0].issues if i.code == "robots-relative-sitemap") == 2


def test_robots_unusable_sitemap_value_is_reported() -> None:
    site = Site(
        {
            f"{S}/robots.txt": robots("Sitemap: {{ site.url }}/sitemap.xml\nSitemap: ftp://x/y\n"),
            f"{S}/sitemap.xml": Doc(items=urls("w", 1)),
        }
    )
    result, _ = run(S, site)
    assert "robots-bad-sitemap" in codes(result)


def test_no_robots_falls_back_to_well_known() -> None:
    site = Site(
        {f"{S}/sitemap_index.xml": index(f"{S}/p.xml"), f"{S}/p.xml": Doc(items=urls("p", 2))}
    )
    result, _reads = run(S, site)
    assert result.url_count == 2
    assert not result.partial  # absent well-known locations are not failures
    probed = site.urls_of()
    assert f"{S}/sitemap.xml" in probed and f"{S}/wp-sitemap.xml" in probed
    states = {n.url: n.state for n in result.nodes()}
    assert states[f"{S}/sitemap.xml"] is NodeState.ABSENT
    assert states[f"{S}/sitemap_index.xml"] is NodeState.OK
    assert "robots-unavailable" in codes(result)


def test_robots_without_sitemaps_probes_configured_list() -> None:
    site = Site(
        {
            f"{S}/robots.txt": robots("User-agent: *\nDisallow:\n"),
            f"{S}/custom/map.xml": Doc(items=urls("c", 1)),
            # an HTML soft-404 at a well-known place is not a sitemap, and not a failure
            f"{S}/other.xml": Doc(format="html"),
        }
    )
    opts = DiscoveryOptions(well_known=("/custom/map.xml", "/other.xml"))
    result, _ = run(S, site, opts)
    assert site.urls_of() == [f"{S}/custom/map.xml", f"{S}/other.xml"]
    assert result.url_count == 1 and not result.partial
    assert "robots-no-sitemaps" in codes(result)


def test_nothing_found_anywhere() -> None:
    site = Site({f"{S}/robots.txt": robots("User-agent: *\n")})
    result, _ = run(S, site)
    assert result.nothing
    assert any(i.code == "no-sitemaps" and i.severity is Severity.ERROR for i in result.issues)


def test_nothing_found_says_why_robots_txt_gave_nothing() -> None:
    """A site without robots.txt, one whose robots.txt could not be read, and one whose
    robots.txt names no sitemap are told apart in the final error."""
    cases = {
        "there is no robots.txt": {},
        "robots.txt could not be read": {f"{S}/robots.txt": Doc(error="could not connect")},
        "robots.txt names none": {f"{S}/robots.txt": robots("User-agent: *\n")},
    }
    for why, docs in cases.items():
        result, _ = run(S, Site(docs))
        (issue,) = [i for i in result.issues if i.code == "no-sitemaps"]
        assert issue.message == f"no sitemap found: {why} and no well-known location has one"


def test_start_at_a_sitemap_url() -> None:
    site = Site({f"{S}/map.xml": Doc(items=urls("m", 4))})
    result, _reads = run(f"{S}/map.xml", site)
    assert site.urls_of("robots") == []
    assert result.url_count == 4 and result.roots[0].via == "start"


def test_index_loop_and_self_link() -> None:
    site = Site(
        {
            f"{S}/a.xml": index(f"{S}/a.xml", f"{S}/b.xml"),
            f"{S}/b.xml": index(f"{S}/a.xml", f"{S}/c.xml"),
            f"{S}/c.xml": Doc(items=urls("c", 1)),
        }
    )
    result, _ = run(f"{S}/a.xml", site)
    assert result.url_count == 1
    assert site.urls_of().count(f"{S}/a.xml") == 1
    loops = [n for n in result.nodes() if any(i.code == "index-loop" for i in n.issues)]
    assert len(loops) == 2  # a lists itself; b lists a
    assert all(n.state is NodeState.SKIPPED for n in loops)


def test_redirect_back_to_parent_is_a_loop() -> None:
    site = Site(
        {
            f"{S}/index.xml": index(f"{S}/child.xml", f"{S}/ok.xml"),
            f"{S}/child.xml": Doc(redirect_to=f"{S}/index.xml", items=[], format="sitemapindex"),
            f"{S}/ok.xml": Doc(items=urls("ok", 1)),
        }
    )
    result, _ = run(f"{S}/index.xml", site)
    child = next(n for n in result.nodes() if n.url == f"{S}/child.xml")
    assert child.failed and any(i.code == "index-loop" for i in child.issues)
    assert result.url_count == 1


def test_duplicates_read_once() -> None:
    site = Site(
        {
            f"{S}/robots.txt": robots(f"Sitemap: {S}/i.xml\nSitemap: {S}/x.xml\n"),
            f"{S}/i.xml": index(f"{S}/x.xml", f"{S}/y.xml", f"{S}/y.xml"),
            f"{S}/x.xml": Doc(items=urls("x", 1)),
            f"{S}/y.xml": Doc(redirect_to=f"{S}/x.xml", items=urls("x", 1)),
        }
    )
    result, _reads = run(S, site)
    assert sorted(site.urls_of()) == sorted([f"{S}/i.xml", f"{S}/x.xml", f"{S}/y.xml"])
    assert result.url_count == 1  # y redirects to x, which is read already
    assert "duplicate-sitemap" in codes(result)
    assert not result.partial


def test_depth_limit() -> None:
    docs = {f"{S}/l{i}.xml": index(f"{S}/l{i + 1}.xml") for i in range(6)}
    docs[f"{S}/l6.xml"] = Doc(items=urls("deep", 1))
    site = Site(docs)
    result, _ = run(f"{S}/l0.xml", site, DiscoveryOptions(max_depth=2))
    assert site.urls_of() == [f"{S}/l0.xml", f"{S}/l1.xml", f"{S}/l2.xml"]
    assert result.limits_hit == ["index-depth-limit"] and result.partial
    assert any(i.code == "index-depth-limit" for i in result.issues)


def test_sitemap_cap() -> None:
    children = [f"{S}/c{i}.xml" for i in range(10)]
    docs = {f"{S}/i.xml": index(*children)} | {c: Doc(items=urls(c[-6:], 2)) for c in children}
    site = Site(docs)
    result, _ = run(f"{S}/i.xml", site, DiscoveryOptions(max_sitemaps=4))
    assert len(site.urls_of()) == 4
    assert result.url_count == 6 and result.partial
    (cap,) = [i for i in result.issues if i.code == "sitemap-limit"]
    assert "7 listed sitemaps were not fetched" in cap.message


def test_url_cap() -> None:
    children = [f"{S}/c{i}.xml" for i in range(5)]
    docs = {f"{S}/i.xml": index(*children)} | {c: Doc(items=urls(c[-6:], 3)) for c in children}
    site = Site(docs)
    result, reads = run(f"{S}/i.xml", site, DiscoveryOptions(max_urls=7))
    assert result.url_count == 7 == len(all_locs(reads))
    assert "url-limit" in result.limits_hit
    # once the cap is reached nothing more is fetched (all children were queued at once here)
    assert any(i.code == "url-limit" for i in result.issues)


def test_cross_host_child_reported_and_not_fetched() -> None:
    site = Site(
        {
            f"{S}/i.xml": index("https://other.example/x.xml", f"{S}/y.xml"),
            "https://other.example/x.xml": Doc(items=urls("x", 1)),
            f"{S}/y.xml": Doc(items=urls("y", 1)),
        }
    )
    result, _ = run(f"{S}/i.xml", site)
    assert "https://other.example/x.xml" not in site.urls_of()
    assert "cross-host-sitemap" in codes(result)
    result, _ = run(f"{S}/i.xml", Site(site.docs), DiscoveryOptions(follow_cross_host=True))
    assert result.url_count == 2


def test_failures_do_not_stop_the_rest() -> None:
    site = Site(
        {
            f"{S}/i.xml": index(f"{S}/gone.xml", f"{S}/html.xml", f"{S}/down.xml", f"{S}/ok.xml"),
            f"{S}/html.xml": Doc(format="html"),
            f"{S}/down.xml": Doc(error="could not connect"),
            f"{S}/ok.xml": Doc(items=urls("ok", 5)),
        }
    )
    result, _ = run(f"{S}/i.xml", site)
    assert result.url_count == 5 and result.partial
    assert sorted(n.url for n in result.failed) == sorted(
        [f"{S}/gone.xml", f"{S}/html.xml", f"{S}/down.xml"]
    )
    by_url = {n.url: n for n in result.nodes()}
    assert [i.code for i in by_url[f"{S}/gone.xml"].issues] == ["http-status"]
    assert [i.code for i in by_url[f"{S}/html.xml"].issues] == ["not-a-sitemap"]
    assert [i.code for i in by_url[f"{S}/down.xml"].issues] == ["fetch-failed"]


def test_conditional_headers_and_unchanged_children() -> None:
    site = Site(
        {
            f"{S}/i.xml": Doc(
                items=[
                    SitemapRef(f"{S}/same.xml", "2024-01-01"),
                    SitemapRef(f"{S}/new.xml", "2024-03-01"),
                ],
                format="sitemapindex",
            ),
            f"{S}/same.xml": Doc(items=urls("s", 2)),
            f"{S}/new.xml": Doc(items=urls("n", 1)),
        }
    )
    known = {
        f"{S}/i.xml": CacheRecord(
            f"{S}/i.xml", etag='"abc"', last_modified="Mon, 01 Jan 2024 00:00:00 GMT"
        ),
        f"{S}/same.xml": CacheRecord(f"{S}/same.xml", etag='"s"', index_lastmod=date(2024, 1, 1)),
        f"{S}/new.xml": CacheRecord(f"{S}/new.xml", index_lastmod=date(2024, 1, 1)),
    }
    result, _reads = run(f"{S}/i.xml", site, known=known)
    by_url = {r.url: r for r in site.requests}
    assert dict(by_url[f"{S}/i.xml"].headers) == {
        "If-None-Match": '"abc"',
        "If-Modified-Since": "Mon, 01 Jan 2024 00:00:00 GMT",
    }
    assert by_url[f"{S}/same.xml"].cached_only
    assert not by_url[f"{S}/new.xml"].cached_only
    assert by_url[f"{S}/new.xml"].index_lastmod == date(2024, 3, 1)
    states = {n.url: n.state for n in result.nodes()}
    assert states[f"{S}/same.xml"] is NodeState.UNCHANGED
    assert result.url_count == 3 and not result.partial


def test_cached_only_miss_fetches_for_real() -> None:
    calls: list[FetchRequest] = []

    def fetch(request: FetchRequest) -> FetchResponse:
        calls.append(request)
        if request.url.endswith("i.xml"):
            return FetchResponse(
                request,
                request.url,
                200,
                items=[SitemapRef(f"{S}/c.xml", "2024-01-01")],
                format="sitemapindex",
            )
        if request.cached_only:
            return FetchResponse(request, request.url, None, error="no stored result")
        return FetchResponse(request, request.url, 200, items=urls("c", 2), format="urlset")

    known = {f"{S}/c.xml": CacheRecord(f"{S}/c.xml", index_lastmod=date(2024, 1, 1))}
    result, _ = run(f"{S}/i.xml", fetch, known=known)
    assert [(c.url, c.cached_only) for c in calls] == [
        (f"{S}/i.xml", False),
        (f"{S}/c.xml", True),
        (f"{S}/c.xml", False),
    ]
    assert result.url_count == 2 and not result.partial


def test_not_modified_reuses_result() -> None:
    def fetch(request: FetchRequest) -> FetchResponse:
        return FetchResponse(
            request, request.url, 304, items=urls("c", 2), format="urlset", from_cache=True
        )

    result, _reads = run(
        f"{S}/c.xml", fetch, known={f"{S}/c.xml": CacheRecord(f"{S}/c.xml", etag="e")}
    )
    assert result.roots[0].state is NodeState.NOT_MODIFIED and result.url_count == 2


def test_responses_in_any_order() -> None:
    """A concurrent driver answers in completion order; the result must not depend on it."""
    children = [f"{S}/c{i}.xml" for i in range(6)]
    site = Site(
        {f"{S}/i.xml": index(*children)} | {c: Doc(items=urls(c[-6:], 1)) for c in children}
    )
    flow = discover(f"{S}/i.xml")
    outstanding: list[FetchRequest] = []
    reads: list[SitemapRead] = []
    try:
        event = next(flow)
        while True:
            if isinstance(event, FetchRequest):
                outstanding.append(event)
                event = flow.send(None)
            elif isinstance(event, SitemapRead):
                reads.append(event)
                event = flow.send(None)
            else:
                assert event is NEED_RESPONSE
                event = flow.send(site(outstanding.pop()))  # newest first
    except StopIteration as stop:
        result: DiscoveryResult = stop.value
    assert result.url_count == 6 and len(reads) == 6


def test_protocol_misuse_is_an_error() -> None:
    flow = discover(f"{S}/i.xml")
    assert isinstance(next(flow), FetchRequest)
    assert flow.send(None) is NEED_RESPONSE
    with pytest.raises(RuntimeError, match="waiting for the response"):
        flow.send(None)


def test_reader_issues_are_kept_on_the_node() -> None:
    issue = Issue("bad-lastmod", Severity.WARNING, "not a date", 3, 5, f"{S}/m.xml")
    site = Site({f"{S}/m.xml": Doc(items=[*urls("m", 2), issue])})
    result, _ = run(f"{S}/m.xml", site)
    assert issue in result.roots[0].issues and not result.partial
