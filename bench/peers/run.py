#!/usr/bin/env python3
"""Peer benchmark harness: run one peer's task in a fresh subprocess, print one JSON line.

One file because it runs as a script in the peers' own venv, where urlset is not installed:
the generators, the loopback server and one runner per peer must come with it.

Run with the peers venv (bench/setup_peers.sh makes it)::

    bench/.venv-peers/bin/python bench/peers/run.py PEER TASK ARGS...   # one peer
    bench/.venv-peers/bin/python bench/peers/run.py all TASK ARGS...    # every peer of TASK

Tasks::

    read  FILE_OR_URL     parse one sitemap (plain or .gz)
    fetch DIR_OR_URL      discover a site's sitemaps from its homepage (robots.txt -> index
                          -> gzipped children); a DIR made by `makesite` is served from
                          127.0.0.1 on a free port by this process
    build N OUTDIR        write N URLs as gzipped sitemaps + index into OUTDIR/PEER/

Helpers (stdlib only, so any Python can run them)::

    makesite DIR [--sitemaps K] [--urls M]   a site for `fetch` (robots.txt, index, K children)
    makefile PATH N [--gzip]                 one urlset file of N URLs for `read`
    serve DIR [--seconds S]                  serve a site on 127.0.0.1 (prints its URL)
    smoke [--workdir DIR]                    every peer x every task once on a small site
    list                                     peers, their tasks and versions

Output line: {"peer", "task", "seconds", "peak_rss_mb", "count", "error"} and extras
("wall_seconds", "cpu_seconds", "version", "target", "bytes", "files").  "seconds" is the
peer's own work, timed inside the child after its imports; "wall_seconds" is the whole child
process (interpreter start and imports included); "peak_rss_mb" is the child's peak RSS from
os.wait4's rusage; "count" is the URLs the peer found (read, fetch) or the <url> elements
found in its output files afterwards (build).

Only the standard library is imported here; each peer's package is imported inside the
child that runs it.
"""

from __future__ import annotations

import argparse
import contextlib
import gzip
import json
import os
import re
import shutil
import signal
import socket
import subprocess
import sys
import tempfile
import threading
import time
import zlib
from collections.abc import AsyncIterator, Callable, Iterable, Iterator
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from typing import TYPE_CHECKING, Any, Required, TypedDict
from urllib.parse import urlsplit
from urllib.request import pathname2url

if TYPE_CHECKING or __package__:  # part of the `peers` package (the bench scripts' client)
    from .items import item
else:  # run as a script: this directory is sys.path[0]
    from items import item

if TYPE_CHECKING:
    from resource import struct_rusage

HERE = Path(__file__).resolve().parent
BENCH = HERE.parent
NODE_DIR = BENCH / "node"

# Sites made by `makesite` name this origin; the server puts its own in its place.
PLACEHOLDER = b"http://urlset-bench-origin.invalid"
# trafilatura (courlan) drops URLs whose host is an IP address or a bare "localhost", so it
# is pointed at this name instead; its child resolves *.localhost to 127.0.0.1 (RFC 6761).
TRAFILATURA_HOST = "bench.localhost"
# Generous size caps so that no peer stops early on a large (up to 50 MB) sitemap.
MAX_BYTES = 100 * 1024 * 1024

READ = "read"
FETCH = "fetch"
BUILD = "build"

# peer name -> (tasks, distribution whose version is reported)
PEERS: dict[str, tuple[tuple[str, ...], str]] = {
    "ultimate-sitemap-parser": ((READ, FETCH), "ultimate-sitemap-parser"),
    "advertools": ((READ, FETCH), "advertools"),
    "scrapy": ((READ, FETCH), "scrapy"),
    "trafilatura": ((READ, FETCH), "trafilatura"),
    "sitemapjs": ((BUILD,), "npm:sitemap"),
    "sitemapjs-buffered": ((BUILD,), "npm:sitemap"),
    "xml-sitemap-writer": ((BUILD,), "xml-sitemap-writer"),
}
ALIASES = {"usp": "ultimate-sitemap-parser", "sitemap.js": "sitemapjs", "xsw": "xml-sitemap-writer"}


class Row(TypedDict, total=False):
    """One result line: the figures are null until measured, and stay null on an error."""

    peer: Required[str]
    task: Required[str]
    seconds: float | None
    peak_rss_mb: float | None
    count: int | None
    error: str | None
    wall_seconds: float | None
    cpu_seconds: float | None
    version: str | None
    target: str
    files: int
    bytes: int
    xml_bytes: int
    sitemaps_parsed: int
    note: str
    http_requests: int
    runs_seconds: list[float]


class ChildResult(TypedDict, total=False):
    """What a peer's child process reports in its result file."""

    seconds: float | None
    count: int
    error: str
    sitemaps_parsed: int
    note: str


# ----------------------------------------------------------------------------------------
# Deterministic data


def urlset_xml(start: int, stop: int, host: str, pretty: bool = False) -> bytes:
    parts = ['<?xml version="1.0" encoding="UTF-8"?>\n']
    parts.append('<urlset xmlns="http://www.sitemaps.org/schemas/sitemap/0.9">\n')
    for i in range(start, stop):
        loc, lastmod, cf, pr = item(i, host)
        if pretty:
            parts.append(
                f"  <url>\n    <loc>{loc}</loc>\n    <lastmod>{lastmod}T08:30:00+00:00</lastmod>\n"
                f"    <changefreq>{cf}</changefreq>\n    <priority>{pr}</priority>\n  </url>\n"
            )
        else:
            parts.append(
                f"<url><loc>{loc}</loc><lastmod>{lastmod}</lastmod>"
                f"<changefreq>{cf}</changefreq><priority>{pr}</priority></url>\n"
            )
    parts.append("</urlset>\n")
    return "".join(parts).encode()


def make_file(path: Path, n: int, gz: bool) -> Path:
    data = urlset_xml(0, n, "https://www.example.com", pretty=True)
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_bytes(gzip.compress(data, 6, mtime=0) if gz else data)
    return path


def make_site(root: Path, sitemaps: int, urls: int) -> Path:
    """robots.txt -> /sitemap-index.xml -> /sitemaps/sitemap-K.xml.gz (URLs on the site's host)."""
    origin = PLACEHOLDER.decode()
    if root.exists():
        shutil.rmtree(root)
    (root / "sitemaps").mkdir(parents=True)
    (root / "index.html").write_text("<!doctype html><title>bench site</title><p>hello</p>\n")
    (root / "robots.txt").write_text(
        f"User-agent: *\nDisallow: /private/\n\nSitemap: {origin}/sitemap-index.xml\n"
    )
    index = ['<?xml version="1.0" encoding="UTF-8"?>\n']
    index.append('<sitemapindex xmlns="http://www.sitemaps.org/schemas/sitemap/0.9">\n')
    for k in range(sitemaps):
        data = urlset_xml(k * urls, (k + 1) * urls, origin)
        (root / "sitemaps" / f"sitemap-{k}.xml.gz").write_bytes(gzip.compress(data, 6, mtime=0))
        index.append(
            f"<sitemap><loc>{origin}/sitemaps/sitemap-{k}.xml.gz</loc><lastmod>2024-01-01</lastmod></sitemap>\n"
        )
    index.append("</sitemapindex>\n")
    (root / "sitemap-index.xml").write_text("".join(index))
    (root / "SITE.json").write_text(json.dumps({"sitemaps": sitemaps, "urls": sitemaps * urls}))
    return root


# ----------------------------------------------------------------------------------------
# Loopback server


class Site:
    """A directory's files held in memory, the placeholder origin replaced per Host."""

    def __init__(self, root: Path) -> None:
        self.root = root
        self.raw: dict[str, bytes] = {}
        for p in sorted(root.rglob("*")):
            if p.is_file():
                self.raw["/" + p.relative_to(root).as_posix()] = p.read_bytes()
        self.rendered: dict[str, dict[str, bytes]] = {}
        self.lock = threading.Lock()

    def render(self, origin: str) -> dict[str, bytes]:
        with self.lock:
            done = self.rendered.get(origin)
            if done is None:
                done = {}
                new = origin.encode()
                for path, data in self.raw.items():
                    if data[:2] == b"\x1f\x8b":
                        plain = gzip.decompress(data)
                        if PLACEHOLDER in plain:
                            data = gzip.compress(plain.replace(PLACEHOLDER, new), 6, mtime=0)
                    elif PLACEHOLDER in data:
                        data = data.replace(PLACEHOLDER, new)
                    done[path] = data
                self.rendered[origin] = done
            return done


CONTENT_TYPES = {
    ".xml": "application/xml",
    ".gz": "application/gzip",
    ".txt": "text/plain; charset=utf-8",
    ".html": "text/html; charset=utf-8",
}


class Handler(BaseHTTPRequestHandler):
    protocol_version = "HTTP/1.1"
    server_version = "bench-peers"
    sys_version = ""
    server: SiteServer

    def log_message(self, format: str, *args: object) -> None:
        pass

    def _body(self) -> tuple[int, str, bytes]:
        site = self.server.site
        path = urlsplit(self.path).path
        if path.endswith("/"):
            path += "index.html"
        files = site.render("http://" + (self.headers.get("Host") or "127.0.0.1"))
        data = files.get(path)
        if data is None:
            return 404, "text/plain", b"not found\n"
        ctype = CONTENT_TYPES.get(os.path.splitext(path)[1], "application/octet-stream")
        return 200, ctype, data

    def _send(self, head_only: bool) -> None:
        self.server.requests += 1
        status, ctype, data = self._body()
        self.send_response(status)
        self.send_header("Content-Type", ctype)
        self.send_header("Content-Length", str(len(data)))
        self.send_header("Last-Modified", "Mon, 01 Jan 2024 00:00:00 GMT")
        self.end_headers()
        if not head_only:
            self.wfile.write(data)

    def do_GET(self) -> None:
        self._send(False)

    def do_HEAD(self) -> None:
        self._send(True)


class SiteServer(ThreadingHTTPServer):
    """The HTTP server of one Site on 127.0.0.1, a free port; counts the requests it answers."""

    def __init__(self, site: Site) -> None:
        super().__init__(("127.0.0.1", 0), Handler)
        self.daemon_threads = True
        self.site = site
        self.requests = 0


class Server:
    """A SiteServer in a daemon thread."""

    def __init__(self, root: Path) -> None:
        self.site = Site(root)
        self.httpd = SiteServer(self.site)
        self.port = self.httpd.server_address[1]
        self.thread = threading.Thread(target=self.httpd.serve_forever, daemon=True)

    def origin(self, host: str = "127.0.0.1") -> str:
        origin = f"http://{host}:{self.port}"
        self.site.render(origin)  # before any timing starts
        return origin

    @property
    def requests(self) -> int:
        return self.httpd.requests

    def __enter__(self) -> Server:
        self.thread.start()
        return self

    def __exit__(self, *exc: object) -> None:
        self.httpd.shutdown()
        self.httpd.server_close()


# ----------------------------------------------------------------------------------------
# Parent: spawn, time, measure


def resolve_peer(name: str) -> str:
    name = ALIASES.get(name, name)
    if name not in PEERS:
        raise SystemExit(f"unknown peer {name!r}; peers: {', '.join(PEERS)}")
    return name


def peer_version(peer: str) -> str | None:
    dist = PEERS[peer][1]
    if dist.startswith("npm:"):
        pkg = NODE_DIR / "node_modules" / dist[4:] / "package.json"
        try:
            found: str = json.loads(pkg.read_text())["version"]
            return found
        except (OSError, ValueError, KeyError):
            return None
    from importlib.metadata import PackageNotFoundError, version

    try:
        return version(dist)
    except PackageNotFoundError:
        return None


def wait_child(proc: subprocess.Popen[bytes], timeout: float) -> tuple[int | None, struct_rusage]:
    """Wait for proc with os.wait4 (its own rusage); kill its process group on timeout."""
    deadline = time.monotonic() + timeout
    delay = 0.005
    while True:
        pid, status, usage = os.wait4(proc.pid, os.WNOHANG)
        if pid:
            proc.returncode = os.waitstatus_to_exitcode(status)
            return proc.returncode, usage
        if time.monotonic() >= deadline:
            with contextlib.suppress(ProcessLookupError):
                os.killpg(proc.pid, signal.SIGKILL)
            pid, status, usage = os.wait4(proc.pid, 0)
            proc.returncode = os.waitstatus_to_exitcode(status)
            return None, usage
        time.sleep(delay)
        delay = min(delay * 2, 0.05)


def tail(path: Path, n: int = 600) -> str:
    try:
        text = path.read_text(errors="replace").strip()
    except OSError:
        return ""
    return text[-n:]


def count_output(outdir: Path) -> tuple[int, int, int, int]:
    """(<url> elements in urlset files, files, bytes, bytes uncompressed) under outdir."""
    urls = files = size = plain = 0
    for p in sorted(outdir.rglob("*")):
        if not p.is_file():
            continue
        files += 1
        size += p.stat().st_size
        data = p.read_bytes()
        if data[:2] == b"\x1f\x8b":
            data = zlib.decompress(data, 31)
        plain += len(data)
        if b"<urlset" in data[:4096]:
            urls += data.count(b"<url>")
    return urls, files, size, plain


def run_one(peer: str, task: str, args: list[str], timeout: float) -> Row:
    peer = resolve_peer(peer)
    result: Row = {
        "peer": peer,
        "task": task,
        "seconds": None,
        "peak_rss_mb": None,
        "count": None,
        "error": None,
        "wall_seconds": None,
        "cpu_seconds": None,
        "version": peer_version(peer),
        "target": " ".join(args),
    }
    if task not in PEERS[peer][0]:
        result["error"] = f"{peer} has no {task} task"
        return result
    with contextlib.ExitStack() as stack:
        tmp = Path(stack.enter_context(tempfile.TemporaryDirectory(prefix="peers-")))
        log = tmp / "child.log"
        res = tmp / "result.json"
        outdir = None
        server: Server | None = None
        env = dict(os.environ, PYTHONHASHSEED="0")
        child_args = list(args)
        if task == BUILD:
            n, outdir = int(args[0]), Path(args[1]).resolve() / peer
            if outdir.exists():
                shutil.rmtree(outdir)
            outdir.mkdir(parents=True)
            child_args = [str(n), str(outdir)]
        elif task == READ:
            target = args[0]
            if not re.match(r"https?://", target):
                path = Path(target).resolve()
                if not path.is_file():
                    result["error"] = f"no such file: {target}"
                    return result
                if peer == "ultimate-sitemap-parser":  # reads URLs only: serve the file
                    server = stack.enter_context(Server(path.parent))
                    target = f"{server.origin()}/{path.name}"
                elif peer == "advertools":  # urllib's urlopen reads file: URLs
                    target = "file://" + pathname2url(str(path))
                else:
                    target = str(path)
            child_args = [target]
        elif task == FETCH:
            target = args[0]
            if not re.match(r"https?://", target):
                root = Path(target).resolve()
                if not (root / "robots.txt").is_file():
                    result["error"] = f"not a site directory (no robots.txt): {target}"
                    return result
                server = stack.enter_context(Server(root))
                host = TRAFILATURA_HOST if peer == "trafilatura" else "127.0.0.1"
                target = server.origin(host) + "/"
            elif peer == "trafilatura":
                # courlan drops IP hosts: name the same loopback server by a *.localhost host
                # (the site's URLs follow only if its server writes them from Host, as `serve` does)
                target = re.sub(
                    r"^(https?://)(127\.0\.0\.1|localhost)\b", rf"\1{TRAFILATURA_HOST}", target
                )
            child_args = [target]
        if peer.startswith("sitemapjs"):
            node = shutil.which("node")
            if node is None:
                result["error"] = "node not found"
                return result
            mode = "buffered" if peer.endswith("-buffered") else "docs"
            cmd = [node, str(NODE_DIR / "build.mjs"), *child_args, mode]
            out_target = res
        else:
            cmd = [
                sys.executable,
                str(Path(__file__).resolve()),
                "_child",
                peer,
                task,
                str(res),
                *child_args,
            ]
            out_target = log
        t0 = time.perf_counter()
        with open(out_target, "wb") as out, open(log, "ab") as err:
            proc = subprocess.Popen(
                cmd,
                stdin=subprocess.DEVNULL,
                stdout=out,
                stderr=err,
                env=env,
                start_new_session=True,
                cwd=tmp,
            )
            rc, usage = wait_child(proc, timeout)
        result["wall_seconds"] = round(time.perf_counter() - t0, 4)
        result["peak_rss_mb"] = round(usage.ru_maxrss / 1024, 1)
        result["cpu_seconds"] = round(usage.ru_utime + usage.ru_stime, 3)
        if rc is None:
            result["error"] = f"timeout after {timeout:g} s"
            return result
        child: ChildResult = {}
        with contextlib.suppress(OSError, ValueError):
            child = json.loads(res.read_text().strip().splitlines()[-1])
        seconds = child.get("seconds")
        if seconds is not None:
            result["seconds"] = round(seconds, 4)
        result["count"] = child.get("count")
        result["error"] = child.get("error")
        if task != BUILD and result["count"] == 0 and not result["error"]:
            result["error"] = "found no URLs (count 0)"
        if rc != 0 and not result["error"]:
            result["error"] = f"exit {rc}: {tail(log)}"
        if outdir is not None:
            urls, files, size, plain = count_output(outdir)
            result["count"] = urls
            result["files"] = files
            result["bytes"] = size
            result["xml_bytes"] = plain
            if child.get("count") not in (None, urls) and not result["error"]:
                result["error"] = f"peer says it wrote {child.get('count')} URLs, files hold {urls}"
        if "sitemaps_parsed" in child:
            result["sitemaps_parsed"] = child["sitemaps_parsed"]
        if "note" in child:
            result["note"] = child["note"]
        if server is not None:
            result["http_requests"] = server.requests
    return result


# ----------------------------------------------------------------------------------------
# Child: the peer's own work


def _first_loc_host(data: bytes) -> str:
    if data[:2] == b"\x1f\x8b":
        data = zlib.decompressobj(31).decompress(data, 1 << 20)
    m = re.search(rb"<loc>\s*(https?://[^<\s]+)", data)
    return m.group(1).decode() if m else "https://www.example.com"


def _read_bytes(target: str) -> bytes:
    if re.match(r"https?://", target):
        from urllib.request import urlopen

        with urlopen(target, timeout=60) as resp:  # loopback, or the caller's URL
            data: bytes = resp.read()
            return data
    return Path(target).read_bytes()


def child_usp(task: str, target: str) -> ChildResult:
    from usp.fetch_parse import SitemapFetcher
    from usp.tree import sitemap_tree_for_homepage

    t0 = time.perf_counter()
    if task == READ:
        tree = SitemapFetcher(url=target, recursion_level=0).sitemap()
    else:
        tree = sitemap_tree_for_homepage(target)
    count = sum(1 for _ in tree.all_pages())
    return {"seconds": time.perf_counter() - t0, "count": count}


def child_advertools(task: str, target: str) -> ChildResult:
    import advertools as adv

    if task == FETCH:
        target = target.rstrip("/") + "/robots.txt"
    t0 = time.perf_counter()
    df = adv.sitemap_to_df(target)
    seconds = time.perf_counter() - t0
    count = int(df["loc"].notna().sum()) if "loc" in df else 0
    out: ChildResult = {"seconds": seconds, "count": count}
    if "errors" in df and df["errors"].notna().any():
        out["error"] = "; ".join(sorted({str(e) for e in df["errors"].dropna()}))[:500]
    return out


def child_scrapy(task: str, target: str) -> ChildResult:
    if task == READ:
        from scrapy.utils.gz import gunzip
        from scrapy.utils.sitemap import Sitemap

        body = _read_bytes(target)
        t0 = time.perf_counter()
        if body[:3] == b"\x1f\x8b\x08":  # as SitemapSpider._get_sitemap_body does
            body = gunzip(body, max_size=MAX_BYTES)
        count = sum(1 for entry in Sitemap(body) if entry.get("loc"))
        return {"seconds": time.perf_counter() - t0, "count": count}

    from scrapy import Request
    from scrapy.crawler import Crawler, CrawlerProcess
    from scrapy.http import Response
    from scrapy.spiders import SitemapSpider

    state = {"pages": 0, "sitemaps": 0}

    class DropPages:
        """Spider middleware: count the page requests SitemapSpider yields, drop them."""

        def __init__(self, crawler: Crawler) -> None:
            self.crawler = crawler

        @classmethod
        def from_crawler(cls, crawler: Crawler) -> DropPages:
            return cls(crawler)

        def _keep(self, r: object) -> bool:
            if isinstance(r, Request) and r.callback != self.crawler.spider._parse_sitemap:
                state["pages"] += 1
                return False
            return True

        def process_spider_output(
            self, response: Response, result: Iterable[object]
        ) -> Iterator[object]:
            state["sitemaps"] += 1
            return (r for r in result if self._keep(r))

        async def process_spider_output_async(
            self, response: Response, result: AsyncIterator[object]
        ) -> AsyncIterator[object]:
            state["sitemaps"] += 1
            async for r in result:
                if self._keep(r):
                    yield r

    class PeerSitemapSpider(SitemapSpider):  # type: ignore[misc]  # Any: scrapy is not in .venv
        name = "peers"
        sitemap_urls = (target.rstrip("/") + "/robots.txt",)

        def parse(self, response: Response) -> None:  # never reached: pages are dropped
            return None

    globals()["DropPages"] = DropPages  # SPIDER_MIDDLEWARES names it by its dotted path
    settings = {
        "LOG_LEVEL": "WARNING",
        "TELNETCONSOLE_ENABLED": False,
        "ROBOTSTXT_OBEY": False,
        "DOWNLOAD_MAXSIZE": MAX_BYTES,
        "DOWNLOAD_WARNSIZE": MAX_BYTES,
        "SPIDER_MIDDLEWARES": {f"{__name__}.DropPages": 1000},
        "EXTENSIONS": {"scrapy.extensions.memusage.MemoryUsage": None},
    }
    t0 = time.perf_counter()
    process = CrawlerProcess(settings=settings)
    process.crawl(PeerSitemapSpider)
    process.start()
    return {
        "seconds": time.perf_counter() - t0,
        "count": state["pages"],
        "sitemaps_parsed": state["sitemaps"],
    }


def child_trafilatura(task: str, target: str) -> ChildResult:
    from trafilatura.settings import use_config

    config = use_config()
    config.set("DEFAULT", "SSRF_PROTECTION", "off")  # the site is on 127.0.0.1
    config.set("DEFAULT", "MAX_FILE_SIZE", str(MAX_BYTES))  # default 20 MB
    if task == READ:
        from courlan import get_hostinfo
        from trafilatura.sitemaps import SitemapObject
        from trafilatura.utils import decode_file

        data = _read_bytes(target)
        domain, base = get_hostinfo(_first_loc_host(data))
        t0 = time.perf_counter()
        sm = SitemapObject(base, domain, [], config=config)
        sm.current_url = base + "/sitemap.xml"
        sm.content = decode_file(data, MAX_BYTES)
        sm.process()
        return {"seconds": time.perf_counter() - t0, "count": len(sm.urls) + len(sm.sitemap_urls)}

    # courlan refuses IP hosts, so the site is reached as bench.localhost; resolve
    # *.localhost to loopback as RFC 6761 (and curl, browsers) do.
    real = socket.getaddrinfo

    def getaddrinfo(
        host: bytes | str | None,
        port: bytes | str | int | None,
        family: int = 0,
        type: int = 0,
        proto: int = 0,
        flags: int = 0,
    ) -> list[Any]:  # socket.getaddrinfo's list; typeshed keeps its item type private
        if isinstance(host, str) and host.endswith(".localhost"):
            host = "127.0.0.1"
        return real(host, port, family, type, proto, flags)

    socket.getaddrinfo = getaddrinfo
    from trafilatura.sitemaps import sitemap_search

    t0 = time.perf_counter()
    urls = sitemap_search(target, sleep_time=0.0, config=config)
    return {"seconds": time.perf_counter() - t0, "count": len(urls)}


def child_xml_sitemap_writer(task: str, n: str, outdir: str) -> ChildResult:
    from xml_sitemap_writer import XMLSitemap

    t0 = time.perf_counter()
    with XMLSitemap(path=outdir, root_url="https://www.example.com") as sitemap:
        sitemap.add_section("products")
        for i in range(int(n)):
            loc, lastmod, changefreq, priority = item(i)
            sitemap.add_url(
                loc[len("https://www.example.com") :],
                lastmod=lastmod,
                priority=priority,
                changefreq=changefreq,
            )
        count = len(sitemap)
    return {"seconds": time.perf_counter() - t0, "count": count}


CHILDREN: dict[str, Callable[..., ChildResult]] = {
    "ultimate-sitemap-parser": child_usp,
    "advertools": child_advertools,
    "scrapy": child_scrapy,
    "trafilatura": child_trafilatura,
    "xml-sitemap-writer": child_xml_sitemap_writer,
}


def child_main(peer: str, task: str, result_path: str, args: list[str]) -> int:
    import logging

    handler = logging.StreamHandler()
    handler.setLevel(logging.WARNING)
    logging.root.addHandler(handler)
    logging.root.setLevel(logging.WARNING)
    out: ChildResult
    try:
        out = CHILDREN[peer](task, *args)
    except BaseException as exc:  # reported, not hidden
        out = {"error": f"{type(exc).__name__}: {exc}"[:1000]}
    seconds = out.get("seconds")
    out["seconds"] = round(seconds, 4) if seconds is not None else None
    Path(result_path).write_text(json.dumps(out) + "\n")
    return 0


# ----------------------------------------------------------------------------------------
# CLI


def emit(result: Row) -> None:
    print(json.dumps(result), flush=True)


def peers_for(task: str) -> list[str]:
    return [p for p, (tasks, _) in PEERS.items() if task in tasks]


def measured(figure: float | None) -> float:
    """A figure (seconds, peak RSS) of a run that reported no error."""
    assert figure is not None, "a run without an error lacks its figures"
    return figure


def run_repeated(peer: str, task: str, args: list[str], timeout: float, repeat: int) -> Row:
    """run_one `repeat` times (each a fresh child): the median run's figures, all runs' seconds."""
    runs = [run_one(peer, task, args, timeout) for _ in range(max(1, repeat))]
    if len(runs) == 1:
        return runs[0]
    failed = [r for r in runs if r["error"]]
    if failed:
        return failed[0]
    runs.sort(key=lambda r: measured(r["seconds"]))
    r = runs[len(runs) // 2].copy()
    r["runs_seconds"] = [measured(x["seconds"]) for x in runs]
    r["peak_rss_mb"] = max(measured(x["peak_rss_mb"]) for x in runs)
    return r


def smoke(workdir: Path, timeout: float) -> list[Row]:
    workdir.mkdir(parents=True, exist_ok=True)
    site = make_site(workdir / "site", sitemaps=3, urls=1000)
    small = make_file(workdir / "read-1000.xml.gz", 1000, gz=True)
    results: list[Row] = []
    for task, args in (
        (READ, [str(small)]),
        (FETCH, [str(site)]),
        (BUILD, ["1000", str(workdir / "build")]),
    ):
        for peer in peers_for(task):
            r = run_one(peer, task, args, timeout)
            emit(r)
            results.append(r)
    return results


def main(argv: list[str] | None = None) -> int:
    argv = sys.argv[1:] if argv is None else argv
    if argv[:1] == ["_child"]:
        return child_main(argv[1], argv[2], argv[3], argv[4:])
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument(
        "--timeout", type=float, default=300.0, help="seconds per peer task (default 300)"
    )
    ap.add_argument(
        "peer", help="a peer name, 'all', or a helper: makesite makefile serve smoke list"
    )
    ap.add_argument(
        "--repeat", type=int, default=1, help="runs per peer; report the median (default 1)"
    )
    ap.add_argument("args", nargs=argparse.REMAINDER)
    ns = ap.parse_args(argv)
    cmd, rest = ns.peer, ns.args
    if cmd == "list":
        for p, (tasks, _) in PEERS.items():
            print(json.dumps({"peer": p, "tasks": list(tasks), "version": peer_version(p)}))
        return 0
    if cmd == "makesite":
        sp = argparse.ArgumentParser(prog="run.py makesite")
        sp.add_argument("dir")
        sp.add_argument("--sitemaps", type=int, default=3)
        sp.add_argument("--urls", type=int, default=1000, help="URLs per sitemap")
        a = sp.parse_args(rest)
        print(make_site(Path(a.dir), a.sitemaps, a.urls))
        return 0
    if cmd == "makefile":
        sp = argparse.ArgumentParser(prog="run.py makefile")
        sp.add_argument("path")
        sp.add_argument("n", type=int)
        sp.add_argument("--gzip", action="store_true")
        a = sp.parse_args(rest)
        print(make_file(Path(a.path), a.n, a.gzip))
        return 0
    if cmd == "serve":
        sp = argparse.ArgumentParser(prog="run.py serve")
        sp.add_argument("dir")
        sp.add_argument(
            "--seconds", type=float, default=600.0, help="stop after this long (default 600)"
        )
        sp.add_argument("--host", default="127.0.0.1", help="Host name the site's URLs use")
        a = sp.parse_args(rest)
        with Server(Path(a.dir)) as server:
            print(json.dumps({"url": server.origin(a.host) + "/"}), flush=True)
            with contextlib.suppress(KeyboardInterrupt):
                time.sleep(a.seconds)
        return 0
    if cmd == "smoke":
        sp = argparse.ArgumentParser(prog="run.py smoke")
        sp.add_argument("--workdir", default=str(BENCH / "out" / "peers-smoke"))
        a = sp.parse_args(rest)
        results = smoke(Path(a.workdir), ns.timeout)
        return 1 if any(r["error"] for r in results) else 0
    if not rest:
        ap.error("missing TASK")
    task, targs = rest[0], rest[1:]
    want = {READ: 1, FETCH: 1, BUILD: 2}.get(task)
    if want is None or len(targs) != want:
        ap.error("tasks: read FILE_OR_URL | fetch DIR_OR_URL | build N OUTDIR")
    peers = peers_for(task) if cmd == "all" else [resolve_peer(cmd)]
    failed = False
    for peer in peers:
        r = run_repeated(peer, task, targs, ns.timeout, ns.repeat)
        emit(r)
        failed |= bool(r["error"])
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
