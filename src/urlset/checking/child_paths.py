"""Where an index's children lie on disk: each child's URL resolved under the folder given
through its URL (``--base-url``), or else by its URL path beside the index, each folder
listed once (``Listed``). ``local_children`` resolves an index's refs at once: the refs in
one URL folder that no listed folder holds as a file, the common case of an index checked
without its children, cost a few passes over their names, not a lookup each."""

from __future__ import annotations

import operator
import os
from collections.abc import Callable, Iterable, Sequence
from functools import partial
from itertools import compress, repeat
from typing import TYPE_CHECKING, cast

from ..patterns import lazy
from .index_refs import all_start_with

if TYPE_CHECKING:
    from pathlib import Path


class Listed:
    """Whether a path is a file, from its folder listed once (``os.scandir``): an index of
    thousands of children looked for beside it costs a listing, not stats a child."""

    def __init__(self) -> None:
        self.folders: dict[str, dict[str, bool]] = {}
        self.folder: tuple[Path, str] | None = None
        self.heads: dict[str, list[tuple[str, list[str]]] | None] = {}  # see ``under``

    def under(self, index_path: Path, head: str) -> list[tuple[str, list[str]]] | None:
        """The folders a URL directory ``head`` (its path up to the file name) names beside
        the index, deepest first, each with its parts; None when a part is no folder name
        pathlib would keep as one (an escaped '/')."""
        if head in self.heads:
            return self.heads[head]
        from urllib.parse import unquote

        parts = [unquote(part) for part in head.split("/") if part and part not in _NO_NAME]
        folder = self.folder_of(index_path)
        folders: list[tuple[str, list[str]]] | None = None
        if not any("/" in part for part in parts):
            folders = [
                (f"{folder}/{'/'.join(parts[n:])}" if parts[n:] else folder, parts[n:])
                for n in range(len(parts) + 1)
            ]
        self.heads[head] = folders
        return folders

    def folder_of(self, index_path: Path) -> str:
        """The folder ``index_path`` lies in, as text (one pathlib call an index)."""
        if self.folder is None or self.folder[0] is not index_path:
            self.folder = (index_path, str(index_path.parent))
        return self.folder[1]

    def is_file(self, path: str) -> bool:
        return self.has(*os.path.split(path))

    def has(self, folder: str, name: str) -> bool:
        """Whether ``name`` is a file in ``folder``."""
        return self.listing(folder).get(name, False)

    def listing(self, folder: str) -> dict[str, bool]:
        """The names in ``folder``, each with whether it is a file (none: no folder)."""
        names = self.folders.get(folder)
        if names is None:
            try:
                with os.scandir(folder or ".") as entries:
                    names = {entry.name: entry.is_file() for entry in entries}
            except OSError:
                names = {}
            self.folders[folder] = names
        return names


def url_path(loc: str) -> str:
    """The path of a child's URL (``urlsplit(loc).path`` of the URIs an index's refs are)."""
    m = _URL_PATH.match(loc)
    return m.group(1) if m is not None else ""


# a URL's scheme and authority, then its path (up to the query or the fragment)
_URL_PATH = lazy(r"[^:/?#]*://[^/?#]*([^?#]*)")


def local_child(
    loc: str, index_path: Path, root: Path, root_url: str | None, listed: Listed
) -> tuple[Path | str | None, bool]:
    """Where the child ``loc`` lies on disk (a path, or its text where no file is): under
    ``root`` through ``root_url``, or else beside the index by file name; and whether a
    file is there."""
    if root_url is not None:
        directory = root_url if root_url.endswith("/") else root_url + "/"
        if not loc.startswith(directory):
            return None, False
        rel = loc[len(directory) :].split("?", 1)[0]
        if not rel or ".." in rel.split("/"):
            return None, False
        local = root.joinpath(*rel.split("/"))
        return local, listed.is_file(str(local))
    # no URL for the folder: the child's URL path, from its whole path down to its file
    # name, is looked for beside the index; missing, it is named by its file name
    from urllib.parse import unquote

    path = url_path(loc) if "://" in loc else loc.split("?", 1)[0]
    head, _, last = path.rpartition("/")
    name = unquote(last)
    folders = listed.under(index_path, head) if "/" not in name and name not in _NO_NAME else None
    if folders is not None:  # the folders its URL's directory names, listed once a directory
        return _found_in(index_path, folders, name, listed)
    parts = [unquote(part) for part in path.split("/") if part and part not in (".", "..")]
    if not parts:
        return None, False
    folder = listed.folder_of(index_path)
    name = parts[-1]
    if "/" in name or any("/" in part for part in parts):  # a %2F made one: pathlib's way
        for n in range(len(parts)):
            candidate = index_path.parent.joinpath(*parts[n:])
            if listed.is_file(str(candidate)) and not candidate.samefile(index_path):
                return candidate, True
        beside = index_path.parent / name
        return (None, False) if beside == index_path else (beside, listed.is_file(str(beside)))
    beside_is_file = False  # the file name alone, beside the index, is a file
    for n in range(len(parts)):
        under = "/".join(parts[n:-1])
        if listed.has(f"{folder}/{under}" if under else folder, name):
            candidate = index_path.parent.joinpath(*parts[n:])
            if not candidate.samefile(index_path):  # not itself
                return candidate, True
            beside_is_file = not under
    # the text pathlib gives ``index_path.parent / name``
    named = name if folder == "." else f"{folder.rstrip('/')}/{name}"
    return (None, False) if named == str(index_path) else (named, beside_is_file)


_NO_NAME = ("", ".", "..")


def _found_in(
    index_path: Path, folders: list[tuple[str, list[str]]], name: str, listed: Listed
) -> tuple[Path | str | None, bool]:
    """``local_child`` of a file ``name`` looked for in ``folders`` (each folder's text and
    its parts under the index's, deepest first; the index's own last)."""
    for folder, under in folders:
        if listed.has(folder, name):
            candidate = index_path.parent.joinpath(*under, name)
            if not candidate.samefile(index_path):  # not itself
                return candidate, True
            if not under:  # itself, by its own name or another
                named = str(candidate)
                return (None, False) if named == str(index_path) else (named, True)
    folder = folders[-1][0]
    named = name if folder == "." else f"{folder.rstrip('/')}/{name}"
    return (None, False) if named == str(index_path) else (named, False)


def local_children(
    locs: list[str],
    index_path: Path,
    root: Path,
    root_url: str | None,
    listed: Listed,
    starts_with: Callable[[str], bool] | None = None,
) -> tuple[Callable[[], list[str]], list[tuple[int, Path | str]]]:
    """``local_child`` of each of ``locs`` (an index's refs'): the files found, by their
    place in ``locs``, and a call that gives where each was looked for and is not (its
    text; empty: not looked for, or found), made only when asked (an index given alone with
    none of its children beside it asks for none: 50,000 texts not made). Without a URL for
    the folder, the locs of a URL folder whose files no listed folder holds are resolved at
    once (``_absent_at_once``), the others one by one. ``starts_with``: whether every loc
    starts with a text, when the caller can tell at once (``IndexRefs.all_start_with``)."""
    wheres: list[str | None] = [None] * len(locs)
    tails: list[str] = []
    every = False  # every loc said at once
    if starts_with is None:
        starts_with = partial(all_start_with, locs)
    if root_url is None:
        tails, every = _absent_at_once(locs, index_path, listed, wheres, starts_with)
    else:
        _absent_under_root(locs, root, root_url, listed, wheres, starts_with)
    files: list[tuple[int, Path | str]] = []
    if not every and None in wheres:
        for i, loc in enumerate(locs):
            if wheres[i] is None:
                local, is_file = local_child(loc, index_path, root, root_url, listed)
                if local is not None and is_file:
                    files.append((i, local))
                wheres[i] = "" if local is None or is_file else str(local)
    if root_url is not None:
        return lambda: cast("list[str]", wheres), files
    index_name = str(index_path)

    def made() -> list[str]:
        texts = list(map(operator.add, wheres, tails))
        if index_name in texts:  # the index itself, by its own name: not looked for
            texts = ["" if where == index_name else where for where in texts]
        return texts

    return made, files


def _absent_at_once(
    locs: list[str],
    index_path: Path,
    listed: Listed,
    wheres: list[str | None],
    starts_with: Callable[[str], bool],
) -> tuple[list[str], bool]:
    """Fill ``wheres`` for the ``locs`` that ``local_child`` would look for by file name in
    their URL directory's folders (``Listed.under``) and find in none: a loc with no query,
    fragment or escape, named after its last '/'; each URL folder worked out once, on the
    first loc in it, and each of its folders' files listed once. Each of those holds its
    folder's text, to which its file name, in the list returned ('' for the others), adds;
    and whether that is every loc (one URL folder, no name there found or looked for
    otherwise: none is left to look for one by one)."""
    heads, names = _cut(locs, starts_with)
    odd = _odd_locs(locs)
    tails = [""] * len(locs)
    for head, indices in _groups(heads):
        folders = _folders_of(head, index_path, listed)
        if folders is None:
            continue
        folder = folders[-1][0]
        beside = "" if folder == "." else folder.rstrip("/") + "/"
        if isinstance(indices, range):
            wheres[:] = repeat(beside, len(wheres))
            tails[:] = names
        else:
            for i in indices:
                wheres[i] = beside
                tails[i] = names[i]
        held: set[str] = set(_NO_NAME)  # names looked for otherwise, or perhaps found
        for folder, _ in folders:
            held.update(name for name, is_file in listed.listing(folder).items() if is_file)
        if isinstance(indices, range):
            again = held.intersection(names)
            if not again and not odd:
                return names, True
        else:
            again = held.intersection(map(names.__getitem__, indices))
        for i in indices if again or odd else ():
            if names[i] in again or i in odd:
                wheres[i] = None
                tails[i] = ""
    return tails, False


def _absent_under_root(
    locs: list[str],
    root: Path,
    root_url: str,
    listed: Listed,
    wheres: list[str | None],
    starts_with: Callable[[str], bool],
) -> None:
    """Fill ``wheres`` for the ``locs`` outside ``root_url`` (not looked for) and those
    under it that ``local_child`` would name by their path under ``root`` and find no file
    at: a loc with no query, in a folder of plain names; each folder listed once."""
    directory = root_url if root_url.endswith("/") else root_url + "/"
    if starts_with(directory):
        under = [True] * len(locs)
    else:
        under = list(map(str.startswith, locs, repeat(directory)))
    if not all(under):
        for i in compress(range(len(locs)), map(operator.not_, under)):
            wheres[i] = ""
    heads, names = _cut(map(_after(len(directory)), locs))
    odd = _odd_locs(locs, "?")
    root_text = str(root)
    prefix = "" if root_text == "." else root_text.rstrip("/") + "/"
    for head, indices in _groups(heads):
        if head and any(part in _NO_NAME for part in head.split("/")):
            continue  # pathlib's folder is not its text
        text = prefix + head + "/" if head else prefix
        folder = os.path.split(text + "x")[0]
        held = set(_NO_NAME)  # names looked for otherwise, or perhaps found
        held.update(name for name, is_file in listed.listing(folder).items() if is_file)
        for i in indices:
            if under[i] and names[i] not in held and i not in odd:
                wheres[i] = text + names[i]


def _after(start: int) -> Callable[[str], str]:
    """A loc's text from ``start`` on."""
    return operator.itemgetter(slice(start, None))


def _cut(
    texts: Iterable[str], starts_with: Callable[[str], bool] | None = None
) -> tuple[list[str], list[str]]:
    """The part of each text before its last '/' ('' for none), one string each distinct
    part, and the part after it: no tuple a text held (50,000 refs' were 10 MB). Texts
    that all share the first one's part and hold no '/' after it (an index's children in
    one folder, as a rule) are cut at C speed, with no Python step a text."""
    if not isinstance(texts, list):
        texts = list(texts)
    if not texts:
        return [], []
    first = texts[0]
    k = first.rfind("/")
    if k >= 0:
        names = list(map(_after(k + 1), texts))
        every = starts_with or partial(all_start_with, texts)
        if every(first[: k + 1]) and "/" not in "".join(names):
            return [first[:k]] * len(texts), names
    distinct: dict[str, str] = {}
    heads, names = [], []
    for text in texts:
        k = text.rfind("/")
        head = text[:k] if k >= 0 else ""
        heads.append(distinct.setdefault(head, head))
        names.append(text[k + 1 :])
    return heads, names


def _groups(heads: list[str]) -> Iterable[tuple[str, Sequence[int]]]:
    """Each of ``heads`` with its places, in the order they first come."""
    if heads.count(heads[0]) == len(heads):
        return [(heads[0], range(len(heads)))]
    groups: dict[str, list[int]] = {}
    for i, head in enumerate(heads):
        groups.setdefault(head, []).append(i)
    return groups.items()


def _odd_locs(locs: list[str], odd: str = "?#%") -> set[int]:
    """The locs with any of ``odd`` (a query, a fragment or an escape: their file name is
    not their last part as written)."""
    joined = "\n".join(locs)
    if not any(c in joined for c in odd):
        return set()
    return {i for i, loc in enumerate(locs) if any(c in loc for c in odd)}


def _folders_of(head: str, index_path: Path, listed: Listed) -> list[tuple[str, list[str]]] | None:
    """``Listed.under`` of the URL directory of the locs ``head`` + '/' + a name (no query,
    fragment or escape); None when ``local_child`` finds its folders otherwise."""
    probe = head + "/x"
    if "://" in probe:
        path = url_path(probe)
        if not path.endswith("/x"):
            return None  # no path, or the name is the authority
        folder = path[:-2]
    else:
        folder = head
    return listed.under(index_path, folder)
