"""The document as ``Windows``: (offset, bytes) pieces cut right after an entry's end tag (an
entry, a text line, never split), afresh on each call, so that the scans of a large document
(placing findings, proving loc texts and order) hold a window of it, never all of it."""

from __future__ import annotations

from collections.abc import Callable, Iterable, Iterator

Windows = Callable[[], Iterable[tuple[int, bytes]]]
_CUTS = (b"</url>", b"</sitemap>", b"</item>", b"</entry>")


def windows_of(
    pieces: Callable[[], Iterable[bytes]],
    text: bool,
    window: int = 1 << 22,
    ends: tuple[bytes, ...] = _CUTS,
    first: int | None = None,
) -> Windows:
    """The document's pieces as windows of about ``window`` bytes, cut right after an entry's
    end tag (one of ``ends``; a text sitemap: after a line end); afresh on each call. An
    entry longer than a window makes the window grow until it ends. ``first``: the first
    window's size, each next one twice the last up to ``window`` (a pass that may stop
    early, as placing the first findings of each code does, reads no more than it needs)."""
    ends = (b"\n",) if text else ends

    def run() -> Iterator[tuple[int, bytes]]:
        held: list[bytes | bytearray] = []  # the pieces since the last cut
        size = base = 0
        wanted = window if first is None else min(first, window)
        for data in pieces():
            if not data:
                continue
            if held and isinstance(held[-1], bytearray):
                held[-1] += data  # an entry longer than a window: it grows in place
            else:
                held.append(data)
            size += len(data)
            if size < wanted:
                continue
            # the last end is in the last piece (else in the pieces joined): only that
            # piece is cut, the window copied once, by the join
            last = held[-1]
            cut = -1 if isinstance(last, bytearray) else _last_end(last, ends)
            if cut > 0:
                out = b"".join([*held[:-1], last[:cut]]) if cut < len(last) else b"".join(held)
                rest = last[cut:]
            else:
                grown = last if len(held) == 1 else bytearray().join(held)
                cut = _last_end(grown, ends)
                if cut <= 0:
                    held = [grown if isinstance(grown, bytearray) else bytearray(grown)]
                    continue  # an entry longer than a window: the window grows until it ends
                out, rest = bytes(grown[:cut]), bytes(grown[cut:])
            held = [rest] if rest else []
            size = len(rest)
            wanted = min(wanted * 2, window)
            yield base, out
            base += len(out)
        if held:
            yield base, b"".join(held)

    return run


def _last_end(buffer: bytes | bytearray, ends: tuple[bytes, ...]) -> int:
    """The offset just after the last of ``ends`` in ``buffer`` (-1 for none): each later
    end looked for only after the last one found (a urlset's ``</url>`` is near the end)."""
    cut = -1
    for end in ends:
        at = buffer.rfind(end, max(cut, 0))
        if at >= 0:
            cut = max(cut, at + len(end))
    return cut


def whole_windows(plain: bytes) -> Windows:
    return lambda: [(0, plain)]
