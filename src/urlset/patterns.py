"""Regular expressions compiled at their first use instead of at import.

Compiling a pattern runs ``re``'s parser and compiler, written in Python: a few hundred
thousand instructions each, tens of milliseconds for a command's modules together, while
most patterns serve documents or values a short command never meets. ``lazy`` gives an
object used as the compiled pattern is (its methods and attributes); the first use compiles
it, and keeps each attribute on the object, so later uses cost what the pattern's own do.
It is not a ``re.Pattern``: nothing passes one to ``re``'s functions or tests its type.
"""

from __future__ import annotations

import re
from typing import Any, AnyStr, cast


class Lazy:
    def __init__(self, source: str | bytes, flags: int) -> None:
        self._source = source
        self._flags = flags

    def __getattr__(self, name: str) -> Any:
        if name.startswith("__"):  # copy's and pickle's probes: no pattern needed for them
            raise AttributeError(name)
        compiled = self.__dict__.get("_compiled")
        if compiled is None:
            compiled = self.__dict__["_compiled"] = re.compile(self._source, self._flags)
        value = getattr(compiled, name)
        self.__dict__[name] = value  # found by the next use without coming here
        return value

    def __repr__(self) -> str:
        return f"lazy({self._source!r})"


def lazy(source: AnyStr, flags: int | re.RegexFlag = 0) -> re.Pattern[AnyStr]:
    """``re.compile(source, flags)``, done on the first use of the result."""
    return cast("re.Pattern[AnyStr]", Lazy(source, int(flags)))
