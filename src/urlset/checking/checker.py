"""Check sitemaps the way a search engine does: the Python API, and where its parts live.

``check`` and ``is_valid`` (exported by ``urlset``) and ``check_bytes`` take bytes, a file
or a directory and give the issues found. The parts, each in its own module of
``urlset.checking``:

* ``document``: ``check_document``, one document's bytes in, a ``FileResult`` out (the
  reader plus the rules; ``raw_text``, ``structure``, ``schema`` and ``positions`` look at
  the bytes themselves);
* ``files``: ``check_file`` and ``check_paths``, files and directories, an index's children
  resolved inside them (``children`` compares an index with its children);
* ``report``: ``FileResult`` and ``CheckReport``, and their JSON and SARIF forms.

The names of this module's ``__all__`` stay importable from here.
"""

from __future__ import annotations

import os
from datetime import datetime

from ..limits import CURRENT, Limits
from ..model import Issue, Severity
from .document import CheckOptions, check_document
from .files import check_file, check_paths
from .report import CheckReport, FileResult

__all__ = [
    "CheckOptions",
    "CheckReport",
    "FileResult",
    "check",
    "check_bytes",
    "check_document",
    "check_file",
    "check_paths",
    "is_valid",
]


def _options(
    limits: Limits | str, base_url: str | None, now: datetime | None, schema: bool
) -> CheckOptions:
    from ..limits import profile

    chosen = profile(limits) if isinstance(limits, str) else limits
    return CheckOptions(limits=chosen, base_url=base_url, now=now, schema=schema)


def check(
    source: bytes | str | os.PathLike[str],
    *,
    base_url: str | None = None,
    limits: Limits | str = CURRENT,
    now: datetime | None = None,
    schema: bool = False,
) -> list[Issue]:
    """The issues of a sitemap: ``bytes`` are a document; a ``str`` or path is a local file or
    directory (never a URL). ``limits`` is a ``Limits`` or a profile name."""
    options = _options(limits, base_url, now, schema)
    if isinstance(source, bytes):
        return check_document(source, options).issues
    return check_paths([source], options).issues


def check_bytes(
    data: bytes,
    *,
    source: str = "<bytes>",
    base_url: str | None = None,
    limits: Limits | str = CURRENT,
    now: datetime | None = None,
    schema: bool = False,
) -> FileResult:
    """Check one document in memory and return its full result."""
    return check_document(data, _options(limits, base_url, now, schema), source)


def is_valid(
    source: bytes | str | os.PathLike[str],
    *,
    base_url: str | None = None,
    limits: Limits | str = CURRENT,
    now: datetime | None = None,
    schema: bool = False,
) -> bool:
    """True when checking finds no error (warnings allowed)."""
    issues = check(source, base_url=base_url, limits=limits, now=now, schema=schema)
    return not any(i.severity == Severity.ERROR for i in issues)
