"""The sites bench_fetch.py serves (see its docstring for each): robots.txt ->
/sitemap-index.xml -> K gzipped children of M URLs, in bench/out/, on the placeholder origin
the server replaces with its own. Imports only the standard library and bench/'s modules.
"""

from __future__ import annotations

import gzip
import json
import shutil
from pathlib import Path

from peers.run import PLACEHOLDER, make_site

OUT = Path(__file__).resolve().parent / "out"
SITES = {
    "plain": OUT / "fetch-site",  # bench_snapshot_parse.py reads this one's sitemaps too
    "mixed": OUT / "fetch-mixed",
    "shape": OUT / "fetch-shape",
    "mix": OUT / "fetch-mix",  # read_shapes.py's mix: the one bench_read_shapes.py reads
    "small": OUT / "fetch-small",  # --small-site: the plain site's shape, 3 x 20 URLs
}
# the hosts of bench_read.mixed_sitemap, each put on the site's own origin
MIX_HOSTS = (
    b"www.example.com",
    b"shop.example.com:8443",
    b"example.org:44300",
    b"b\xc3\xbccher.example",
)
# the six shapes of bench_read.mixed_sitemap, in its order
MIX_SHAPES = ("query", "escaped", "iri", "apostrophe", "long", "html")
IMAGE_NS = b'xmlns:image="http://www.google.com/schemas/sitemap-image/1.1"'


def write_site(root: Path, children: list[bytes]) -> None:
    """robots.txt -> /sitemap-index.xml -> /sitemaps/sitemap-K.xml.gz, one child per
    document (gzip 6), on the placeholder origin, as make_site lays out a site."""
    if root.exists():
        shutil.rmtree(root)
    (root / "sitemaps").mkdir(parents=True)
    (root / "index.html").write_text("<!doctype html><title>bench site</title><p>hello</p>\n")
    origin_text = PLACEHOLDER.decode()
    (root / "robots.txt").write_text(f"User-agent: *\nSitemap: {origin_text}/sitemap-index.xml\n")
    index = []
    for k, xml in enumerate(children):
        (root / "sitemaps" / f"sitemap-{k}.xml.gz").write_bytes(gzip.compress(xml, 6, mtime=0))
        index.append(
            f"<sitemap><loc>{origin_text}/sitemaps/sitemap-{k}.xml.gz</loc>"
            f"<lastmod>2024-01-01</lastmod></sitemap>\n"
        )
    (root / "sitemap-index.xml").write_text(
        '<?xml version="1.0" encoding="UTF-8"?>\n'
        '<sitemapindex xmlns="http://www.sitemaps.org/schemas/sitemap/0.9">\n'
        + "".join(index)
        + "</sitemapindex>\n"
    )


def build_mix(root: Path, sitemaps: int, urls: int) -> None:
    """read_shapes.py's mix (every loc, lastmod and extension shape in turn: the documents
    bench_read_shapes.py reads) in ``sitemaps`` children of ``urls`` entries, entry numbers
    running on across children; its three hosts (www.example.com, a 5-digit port, a
    development host) all become the site's origin, http://127.0.0.1:PORT, which is itself a
    5-digit port on a development host."""
    import read_shapes

    origin = PLACEHOLDER + b"/"
    hosts = (read_shapes.HOST, "https://shop.example.com:44300/", "https://localhost:3000/")
    head = f'<?xml version="1.0" encoding="UTF-8"?>\n<urlset {read_shapes.NAMESPACES}>\n'
    children = []
    for k in range(sitemaps):
        body = "".join(read_shapes.entry("mix", i) for i in range(k * urls, (k + 1) * urls))
        xml = (head + body + "</urlset>\n").encode()
        for host in hosts:
            xml = xml.replace(host.encode(), origin)
        children.append(xml)
    write_site(root, children)


def build_mixed(
    root: Path, sitemaps: int, urls: int, shape: str | None = None, images: int = 10
) -> None:
    """bench_read.mixed_sitemap's URLs on the placeholder origin, as make_site lays out a
    site; every ``images``th URL with an image (0: none). ``shape``: only the URLs of that
    shape (a sixth)."""
    from bench_read import mixed_sitemap

    made = mixed_sitemap(sitemaps * urls)
    head, _, body = made.partition(b"\n  <url>\n")
    records = (b"  <url>\n" + body.rsplit(b"</urlset>", 1)[0]).split(b"  <url>\n")[1:]
    if shape is not None:
        records = records[MIX_SHAPES.index(shape) :: len(MIX_SHAPES)]
        urls = -(-len(records) // sitemaps)
    origin = PLACEHOLDER + b"/"
    for host in MIX_HOSTS:
        records = [r.replace(b"https://" + host + b"/", origin) for r in records]
    image = b"    <image:image><image:loc>%s/img/%d.jpg</image:loc></image:image>\n  </url>\n"
    for i in range(0, len(records), images or len(records) + 1):
        records[i] = records[i].replace(b"  </url>\n", image % (PLACEHOLDER, i))
    head = head.replace(b'0.9">', b'0.9" ' + IMAGE_NS + b">")
    children = [
        head
        + b"\n"
        + b"".join(b"  <url>\n" + r for r in records[k * urls : (k + 1) * urls])
        + b"</urlset>\n"
        for k in range(sitemaps)
    ]
    write_site(root, children)


def build(name: str, sitemaps: int, urls: int, shape: str, images: int) -> tuple[Path, int]:
    """The site's directory and its URL count (made again unless an earlier run made it
    with the same settings)."""
    root = SITES[name]
    stamp = root / "BENCH.json"
    wanted = {
        "sitemaps": sitemaps,
        "urls": urls,
        "shape": shape if name == "shape" else None,
        "images": images if name in ("mixed", "shape") else None,
    }
    if stamp.is_file():
        made = json.loads(stamp.read_text())
        if made.pop("count") is not None and made == wanted:
            return root, int(json.loads(stamp.read_text())["count"])
    if name in ("plain", "small"):
        make_site(root, sitemaps, urls)
    elif name == "mix":
        build_mix(root, sitemaps, urls)
    else:
        build_mixed(root, sitemaps, urls, shape if name == "shape" else None, images)
    count = 0
    for child in (root / "sitemaps").iterdir():
        count += gzip.decompress(child.read_bytes()).count(b"<url>")
    stamp.write_text(json.dumps({**wanted, "count": count}))
    return root, count
