"""``urlset build --include-sitemap URL``, ``--include-sitemaps FILE``, ``--include-fetch``:
other generators' sitemaps listed in the index beside the set's own files."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from ..errors import InvalidValue
from ..model import SitemapRef
from ..writing.includes import INCLUDE, from_settings, included_refs, read_list
from ..writing.options import BuildOptions, FileNames
from .streams import UsageProblem, say


def included_sitemaps(
    params: dict[str, Any], options: BuildOptions, out_dir: str, update: bool
) -> tuple[SitemapRef, ...]:
    """The sitemaps the command's ``params`` name (taken out of them), checked (a bad one is
    a usage error) and, with ``--include-fetch``, each with the newest lastmod it lists;
    with ``--update`` and none given, the set keeps its own (and a fetch reads them again)."""
    given: list[str | SitemapRef] = list(params.pop("include_sitemaps"))
    list_path: str | None = params.pop("include_list")
    fetch: bool = params.pop("include_fetch")
    if list_path is not None:
        try:
            given += read_list(Path(list_path).read_text(encoding="utf-8").splitlines())
        except (OSError, UnicodeDecodeError) as exc:
            raise UsageProblem(f"{list_path}: {exc}", "--include-sitemaps") from None
    if not given and fetch and update:
        given += _kept(options, out_dir)
    if not given:
        if fetch and not update:
            raise UsageProblem("--include-fetch needs --include-sitemap or --include-sitemaps")
        return ()
    names = FileNames(options.prefix, gzip=options.gzip, text=options.text)
    try:
        refs = included_refs(given, options.sitemap_directory(), names.stale)
    except InvalidValue as exc:
        raise UsageProblem(str(exc)) from None
    if not fetch:
        return refs
    from ..fetching.included import with_newest_lastmods  # the HTTP stack loads only here

    fetched, problems = with_newest_lastmods(refs)
    for problem in problems:
        say(f"warning: included sitemap {problem}")
    return tuple(fetched)


def _kept(options: BuildOptions, out_dir: str) -> tuple[SitemapRef, ...]:
    """The included sitemaps of the stable set in ``out_dir`` (none without one)."""
    from ..writing.stable import load_manifest

    names = FileNames(options.prefix, gzip=options.gzip, text=options.text)
    manifest = load_manifest(Path(out_dir), names)
    return () if manifest is None else from_settings(manifest.settings.get(INCLUDE))
