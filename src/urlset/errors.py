"""The one exception tree of urlset.

    UrlsetError
    ├── InvalidValue (ValueError)       a value breaks a protocol rule; names the field and why
    ├── LimitExceeded (ValueError)      a configured or protocol limit was hit
    ├── ReadError (ValueError)          a document could not be read at all (reader, fatal)
    ├── InputError (ValueError)         a build source line could not be used
    └── PublishError (OSError)          files could not be written or moved into place

Every error carries a message that says what is wrong, where, and what to do.
"""

from __future__ import annotations

TYPE_CHECKING = False  # typing.TYPE_CHECKING without loading typing (type checkers: True)
if TYPE_CHECKING:
    from typing import Any


class UrlsetError(Exception):
    """Base of every error urlset raises on purpose."""


class InvalidValue(UrlsetError, ValueError):
    """A value (loc, lastmod, changefreq, priority, ...) breaks a protocol rule."""

    def __init__(self, field: str, value: object, reason: str) -> None:
        self.field = field
        self.value = value
        self.reason = reason
        shown = repr(value)
        if len(shown) > 120:
            shown = shown[:117] + "..."
        super().__init__(f"{field} {shown}: {reason}")


class LimitExceeded(UrlsetError, ValueError):
    """A limit (protocol or configured) was reached."""


class ReadError(UrlsetError, ValueError):
    """A document could not be read at all."""


def written_without(fault: object, field: str) -> str:
    """A kept line's message: its fault, and the value it is written without."""
    return f"{fault} (written without its {field})"


# the repairs a build that writes a line at fault says it made (written_without here; the
# extension readers' "; the image is left out", "; the image is written without it"):
# what --strict, which writes nothing, must not claim
_REPAIRS = r" \(written without its [^)]*\)|; the [a-z ]+ (?:is|are) (?:left out|written without (?:it|them))"


class InputError(UrlsetError, ValueError):
    """A build input line could not be used as it was written.

    ``kept`` is the entry the line still gives when only optional fields were at fault (it is
    written without them, and the line reported as a warning); None when the line is left out.
    ``notes``: with ``kept``, each value left out as (code, message), when they have codes of
    their own (an extension's field or item, as the reader reports it); else the line is one
    problem, ``invalid-<field>``.
    """

    def __init__(
        self,
        source: str,
        line: int,
        reason: str,
        field: str = "line",
        kept: Any = None,
        notes: tuple[tuple[str, str], ...] = (),
    ) -> None:
        self.source = source
        self.line = line
        self.reason = reason
        self.field = field  # the entry field at fault, or "line" when the line is unreadable
        self.kept = kept
        self.notes = notes
        super().__init__(f"{source}:{line}: {reason}")

    def refused(self) -> str:
        """The message when nothing may be left out (``--strict``): the faults, without the
        repairs a build that writes the line would make."""
        import re  # not at import: `import urlset` loads this module alone

        return f"{self.source}:{self.line}: {re.sub(_REPAIRS, '', self.reason)}"


class PublishError(UrlsetError, OSError):
    """Output could not be written or published."""
