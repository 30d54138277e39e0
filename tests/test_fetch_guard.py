"""The address guard: no request to a private, loopback, link-local or other special
address unless the run starts there or allows it.

The family, as enumerated: how a request reaches an address (a robots.txt ``Sitemap:``
line, an index child, a redirect; the crawler's links and sitemaps; check over HTTP; an
announcement's redirect), how an address is spelled (a name that resolves to it; IPv4
dotted, decimal, hex, octal and short; IPv6; IPv4 inside IPv6), and what kind it is
(loopback, private, link-local with the cloud metadata services, unique-local,
multicast, unspecified, shared and other special ranges). Names are mapped to loopback
through the fetcher's own resolver (``HttpOptions.resolve``), so a "public" name leads to
the test's server and the guard decides on the address it resolves to.
"""

from __future__ import annotations

import socket

import pytest
from click.testing import CliRunner

from announce_support import Endpoints, Reply
from test_fetch_support import LoopbackServer, fast_http, run_fetch, sitemapindex, urlset
from urlset.announce.http import announce_options
from urlset.announce.ping import ping_sitemap_sync
from urlset.cli import main
from urlset.fetching.addresses import AddressGuard, forbidden
from urlset.fetching.http import HttpOptions, RetryPolicy
from urlset.sitecheck.driver import check_site
from urlset.sources.crawl import Crawl, CrawlOptions
from urlset.urls import to_uri

# every case over the lean client and over aiohttp alone
pytestmark = pytest.mark.usefixtures("either_client")

REFUSED = "a fetch does not connect to unless the run starts there"

KINDS = {
    "127.0.0.1": "loopback",
    "127.8.9.10": "loopback",
    "::1": "loopback",
    "10.1.2.3": "private",
    "172.16.0.1": "private",
    "192.168.1.1": "private",
    "169.254.169.254": "cloud metadata service",
    "fd00:ec2::254": "cloud metadata service",
    "100.100.100.200": "cloud metadata service",
    "192.0.0.192": "cloud metadata service",
    "169.254.1.1": "link-local",
    "fe80::1": "link-local",
    "fc00::1": "unique-local",
    "fd12:3456::1": "unique-local",
    "224.0.0.1": "multicast",
    "ff02::1": "multicast",
    "0.0.0.0": "unspecified",
    "0.1.2.3": "unspecified",
    "::": "unspecified",
    "100.64.0.1": "shared (carrier-grade NAT)",
    "fec0::1": "site-local",
    "240.0.0.1": "reserved",
    "198.18.0.1": "private",
    # IPv4 inside IPv6: mapped, compatible, NAT64, 6to4
    "::ffff:127.0.0.1": "loopback",
    "::ffff:10.0.0.1": "private",
    "::127.0.0.1": "loopback",
    "64:ff9b::a9fe:a9fe": "cloud metadata service",
    "2002:c0a8:0101::1": "private",
}
PUBLIC = ["8.8.8.8", "93.184.215.14", "2606:4700::1111", "::ffff:8.8.8.8", "64:ff9b::808:808"]


@pytest.mark.parametrize("address", sorted(KINDS))
def test_each_kind_of_special_address_is_named(address: str) -> None:
    assert forbidden(address) == KINDS[address]


@pytest.mark.parametrize("address", PUBLIC)
def test_public_addresses_pass(address: str) -> None:
    assert forbidden(address) is None


@pytest.mark.parametrize(
    "spelling", ["2130706433", "0x7f000001", "0177.0.0.1", "127.1", "0x7f.0.0.1", "017700000001"]
)
def test_every_numeric_spelling_of_a_host_ends_as_its_address(spelling: str) -> None:
    # the URL parser (WHATWG) makes the address of it, and so does the system's resolver
    # for a name aiohttp is given as it is: either way the guard sees 127.0.0.1
    host = to_uri(f"http://{spelling}/").split("/")[2]
    assert host == "127.0.0.1" and forbidden(host) == "loopback"
    (info, *_) = socket.getaddrinfo(spelling, 80, socket.AF_INET)
    assert forbidden(info[4][0]) == "loopback"


def test_the_start_s_host_and_address_are_allowed() -> None:
    guard = AddressGuard.starting_at(["http://staging.internal:8000/", "http://10.0.0.7/"])
    assert guard.refusal("staging.internal", "192.168.0.5") is None
    assert guard.refusal(None, "192.168.0.5") is None  # the connection to what it resolved to
    assert guard.refusal("other.internal", "10.0.0.7") is None  # the start's own address
    assert "other.internal resolves to 192.168.0.6, a private address" in (
        guard.refusal("other.internal", "192.168.0.6") or ""
    )
    assert guard.refusal(None, "127.0.0.1") is not None
    assert guard.refusal("example.com", "93.184.215.14") is None
    assert AddressGuard(allow_private=True).refusal("x", "127.0.0.1") is None


# -- through the fetcher
def mapped(server: LoopbackServer, **changes: object) -> HttpOptions:
    """Options whose resolver sends the site's and the attacker's names to the server."""
    names = (("site.example", "127.0.0.1"), ("evil.example", "127.0.0.1"))
    return fast_http(resolve=names, **changes)


def test_a_robots_line_to_a_private_address_is_refused_at_connect_time() -> None:
    with LoopbackServer() as server:
        port = server.port
        lines = [
            f"http://evil.example:{port}/secret.xml",  # a name that resolves to loopback
            f"http://2130706434:{port}/secret.xml",  # 127.0.0.2 in decimal
            f"http://0x7f000002:{port}/secret.xml",  # in hex
            f"http://[::ffff:127.0.0.2]:{port}/secret.xml",  # inside IPv6
            f"http://169.254.169.254:{port}/latest/meta-data/",  # the metadata service
            f"http://site.example:{port}/sitemap.xml",  # the site's own: read
        ]
        server.add("/robots.txt", "".join(f"Sitemap: {u}\n" for u in lines).encode(), "text/plain")
        server.add("/sitemap.xml", urlset([f"http://site.example:{port}/a"]))
        server.add("/secret.xml", urlset([f"http://site.example:{port}/secret"]))
        run = run_fetch(f"http://site.example:{port}/", http=mapped(server))
        assert server.hits["/secret.xml"] == 0 and server.hits["/latest/meta-data/"] == 0
    states = {n.url: n for n in run.result.nodes() if n.kind == "sitemap"}
    assert states[f"http://site.example:{port}/sitemap.xml"].url_count == 1
    refused = [n for n in states.values() if n.failed]
    assert len(refused) == 4  # decimal and hex are one URL once parsed: read (refused) once
    for node in refused:
        (message,) = [i.message for i in node.issues if i.code == "fetch-failed"]
        assert message.startswith("refused: ") and REFUSED in message, message
        assert "(after" not in message  # not tried again
    evil = states[f"http://evil.example:{port}/secret.xml"]
    assert "evil.example resolves to 127.0.0.1, a loopback address" in evil.issues[0].message
    meta = states[f"http://169.254.169.254:{port}/latest/meta-data/"]
    assert "cloud metadata service" in meta.issues[0].message


def test_a_redirect_to_a_private_address_is_refused() -> None:
    from aiohttp import web

    async def away(request: web.Request) -> web.StreamResponse:
        target = f"http://evil.example:{request.url.port}/secret.xml"
        return web.Response(status=302, headers={"Location": target})

    with LoopbackServer() as server:
        server.handle("/sitemap.xml", away)
        server.add("/secret.xml", urlset(["http://site.example/x"]))
        run = run_fetch(f"http://site.example:{server.port}/sitemap.xml", http=mapped(server))
        assert server.hits["/secret.xml"] == 0
    (node,) = run.result.roots
    assert node.failed and any(REFUSED in i.message for i in node.issues)


def test_allow_private_lets_the_same_run_through() -> None:
    with LoopbackServer() as server:
        server.add("/robots.txt", f"Sitemap: http://evil.example:{server.port}/s.xml\n".encode())
        server.add("/s.xml", urlset(["http://evil.example/a"]))
        run = run_fetch(
            f"http://site.example:{server.port}/", http=mapped(server, allow_private=True)
        )
        assert server.hits["/s.xml"] == 1
    assert not run.result.failed


def test_a_run_started_on_a_private_address_reads_it() -> None:
    with LoopbackServer() as server:
        server.add("/sitemap.xml", sitemapindex([server.url("/a.xml")]))
        server.add("/a.xml", urlset([server.url("/p")]))
        run = run_fetch(server.url("/sitemap.xml"))
    assert not run.result.failed and run.rows == [(server.url("/p"), server.url("/a.xml"))]


def test_check_over_http_uses_the_same_guard() -> None:
    with LoopbackServer() as server:
        server.add("/robots.txt", f"Sitemap: http://evil.example:{server.port}/s.xml\n".encode())
        server.add("/s.xml", urlset(["http://evil.example/a"]))
        report = check_site(f"http://site.example:{server.port}/", http=mapped(server))
        assert server.hits["/s.xml"] == 0
    messages = [i.message for f in report.files for i in f.issues]
    assert any(REFUSED in m for m in messages), messages


def test_the_crawler_uses_the_same_guard() -> None:
    with LoopbackServer() as server:
        port = server.port
        server.add("/", b"<html><head><title>home</title></head><body></body></html>", "text/html")
        server.add("/robots.txt", f"Sitemap: http://evil.example:{port}/s.xml\n".encode())
        server.add("/s.xml", urlset([f"http://site.example:{port}/"]))
        crawl = Crawl(f"http://site.example:{port}/", CrawlOptions(http=mapped(server)))
        pages = crawl.run_sync()
        assert server.hits["/s.xml"] == 0 and server.hits["/"] == 1
    assert [p.url for p in pages] == [f"http://site.example:{port}/"]


def test_an_announcement_redirected_to_a_private_address_is_refused() -> None:
    with Endpoints() as endpoints:
        elsewhere = f"http://127.0.0.2:{endpoints.port}/inside"
        endpoints.script("/ping", Reply(302, headers={"Location": elsewhere}))
        options = announce_options(
            connect_timeout=2.0, read_timeout=0.5, retry=RetryPolicy(attempts=2, backoff=0.05)
        )
        (result,) = ping_sitemap_sync(
            "https://www.example.com/sitemap.xml", [endpoints.url("/ping")], http=options
        )
    assert not result.received and REFUSED in result.message
    assert "127.0.0.2, a loopback address" in result.message


def test_fetch_command_refuses_and_allow_private_allows() -> None:
    with LoopbackServer() as server:
        # started on "localhost": its own addresses are allowed, 127.0.0.2 is not
        other = f"http://127.0.0.2:{server.port}/s.xml"
        server.add("/robots.txt", f"Sitemap: {other}\n".encode(), "text/plain")
        start = f"http://localhost:{server.port}/"
        args = ["fetch", start, "--retries", "0", "--timeout", "5"]
        refused = CliRunner().invoke(main, args)
        allowed = CliRunner().invoke(main, [*args, "--allow-private"])
    assert refused.exit_code == 2 and "Traceback" not in refused.output
    assert "refused: 127.0.0.2, a loopback address" in refused.stderr
    assert "--allow-private" in refused.stderr
    # let through, the connection is made (nothing listens on 127.0.0.2 there)
    assert "refused: 127.0.0.2" not in allowed.stderr and allowed.exit_code == 2


# -- another port of the same host is another site (cross-submission)
def test_site_of_keeps_a_port_that_is_not_the_default() -> None:
    from urlset.fetching.values import site_of

    assert (
        site_of("http://Example.com/s.xml")
        == site_of("https://example.com:443/")
        == ("example.com")
    )
    assert site_of("http://example.com:80/a") == "example.com"
    assert site_of("http://example.com:8080/a") == "example.com:8080"
    assert site_of("https://[::1]:8443/") == "[::1]:8443"


def test_an_index_child_on_another_port_is_cross_submission() -> None:
    from urlset.fetching.values import DiscoveryOptions, NodeState

    with LoopbackServer() as home, LoopbackServer() as other:
        child = other.url("/child.xml")  # 127.0.0.1 as well, another port
        home.add("/index.xml", sitemapindex([home.url("/own.xml"), child]))
        home.add("/own.xml", urlset([home.url("/a")]))
        other.add("/child.xml", urlset([other.url("/b")]))
        run = run_fetch(home.url("/index.xml"))
        assert other.hits["/child.xml"] == 0
        followed = run_fetch(
            home.url("/index.xml"), discovery=DiscoveryOptions(follow_cross_host=True)
        )
        assert other.hits["/child.xml"] == 1
    node = run.node(child)
    assert node.state is NodeState.SKIPPED
    (issue,) = node.issues
    assert issue.code == "cross-host-sitemap"
    assert f"lists a sitemap on 127.0.0.1:{other.port}" in issue.message
    assert followed.locs_from(child) == [other.url("/b")]


def test_check_command_refuses_and_allow_private_allows() -> None:
    with LoopbackServer() as server:
        other = f"http://127.0.0.2:{server.port}/s.xml"
        server.add("/robots.txt", f"Sitemap: {other}\n".encode(), "text/plain")
        start = f"http://localhost:{server.port}/"
        refused = CliRunner().invoke(main, ["check", start, "--deadline", "10"])
        allowed = CliRunner().invoke(main, ["check", start, "--deadline", "10", "--allow-private"])
    # the run started (robots.txt was read): a listed sitemap it cannot read is a finding, 1
    assert refused.exit_code == 1 and "Traceback" not in refused.output
    assert "refused: 127.0.0.2, a loopback address" in refused.output
    assert "refused: 127.0.0.2" not in allowed.output and allowed.exit_code == 1
