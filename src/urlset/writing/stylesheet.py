"""urlset's XSL stylesheet (``sitemap.xsl`` beside this module), and publishing it beside a
set so that its documents can reference it by a relative href (browsers apply a stylesheet
only from the document's own origin)."""

from __future__ import annotations

import os
from pathlib import Path

STYLESHEET_NAME = "sitemap.xsl"
_SOURCE = Path(__file__).with_name(STYLESHEET_NAME)
_STYLE = b"<style>/* urlset's page stylesheet (writing/page_style.py) */</style>"


def stylesheet_bytes() -> bytes:
    """The stylesheet's bytes (XSLT 1.0: a table of a sitemap's or an index's entries), with
    the look of urlset's other pages."""
    from xml.sax.saxutils import escape

    from .page_style import PAGE_CSS

    return _SOURCE.read_bytes().replace(_STYLE, f"<style>{escape(PAGE_CSS)}</style>".encode())


def publish_stylesheet(out_dir: str | Path, name: str = STYLESHEET_NAME) -> Path:
    """Write the stylesheet as ``out_dir/name`` atomically (a temporary file renamed), before
    the documents that reference it are published; returns its path."""
    directory = Path(out_dir)
    directory.mkdir(parents=True, exist_ok=True)
    target = directory / name
    import tempfile  # here: it loads shutil, random, bz2 and lzma (~4 ms of start-up)

    descriptor, temporary = tempfile.mkstemp(dir=directory, prefix=f".{name}.")
    try:
        with os.fdopen(descriptor, "wb") as file:
            file.write(stylesheet_bytes())
            file.flush()
            os.fsync(file.fileno())
        os.chmod(temporary, 0o644)
        os.replace(temporary, target)
    except BaseException:
        Path(temporary).unlink(missing_ok=True)
        raise
    return target
