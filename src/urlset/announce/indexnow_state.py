"""What IndexNow accepted, and when: a small state file so nothing accepted is sent twice.

The file is JSON Lines, one line appended per accepted batch:
``{"endpoint": ..., "at": "<UTC W3C datetime>", "status": 200, "urls": [[url, lastmod], ...]}``
(lastmod null when unknown). Appending keeps every earlier line whole whatever happens to
this run; a last line cut short (a run killed while writing) is ignored when read.

A URL accepted by an endpoint is not sent to it again unless it changed since: its lastmod
now is later than the one recorded, or (none recorded) later than when it was sent.
"""

from __future__ import annotations

import json
import os
from datetime import UTC, datetime
from pathlib import Path

from ..dates import Lastmod, format_w3c, instant, parse_w3c
from ..errors import InvalidValue, PublishError

_Record = tuple[datetime, Lastmod | None]


class SubmissionState:
    """Accepted submissions per endpoint and URL, read from and appended to ``path``."""

    def __init__(self, path: str | os.PathLike[str] | None) -> None:
        self.path = None if path is None else Path(path)
        self._sent: dict[str, dict[str, _Record]] = {}
        self._cut_short = False  # the file ends in the middle of a line
        if self.path is not None:
            self._load(self.path)

    def _load(self, path: Path) -> None:
        try:
            text = path.read_text(encoding="utf-8")
        except FileNotFoundError:
            return
        except (OSError, UnicodeDecodeError) as exc:
            raise PublishError(f"cannot read the IndexNow state file {path}: {exc}") from exc
        self._cut_short = bool(text) and not text.endswith("\n")
        for line in text.splitlines():
            try:
                row = json.loads(line)
                at = instant(parse_w3c(row["at"]))
                sent = self._sent.setdefault(str(row["endpoint"]), {})
                for url, lastmod in row["urls"]:
                    sent[str(url)] = (at, parse_w3c(lastmod) if lastmod else None)
            except (ValueError, KeyError, TypeError, InvalidValue):
                continue  # a line cut short by a killed run, or not ours

    def already_sent(self, endpoint: str, url: str, lastmod: Lastmod | None) -> bool:
        """``url`` was accepted by ``endpoint`` and has not changed since."""
        record = self._sent.get(endpoint, {}).get(url)
        if record is None:
            return False
        at, sent_lastmod = record
        if lastmod is None:
            return True
        since = instant(sent_lastmod) if sent_lastmod is not None else at
        return instant(lastmod) <= since

    def record(
        self,
        endpoint: str,
        status: int | None,
        urls: tuple[str, ...],
        lastmods: tuple[Lastmod | None, ...],
        now: datetime | None = None,
    ) -> None:
        """Remember an accepted batch (in memory, and appended to the file)."""
        at = (now or datetime.now(UTC)).astimezone(UTC).replace(microsecond=0)
        sent = self._sent.setdefault(endpoint, {})
        for url, lastmod in zip(urls, lastmods, strict=True):
            sent[url] = (at, lastmod)
        if self.path is None:
            return
        row = {
            "endpoint": endpoint,
            "at": format_w3c(at),
            "status": status,
            "urls": [
                [u, None if m is None else format_w3c(m)]
                for u, m in zip(urls, lastmods, strict=True)
            ],
        }
        try:
            self.path.parent.mkdir(parents=True, exist_ok=True)
            with self.path.open("a", encoding="utf-8") as handle:
                lead = "\n" if self._cut_short else ""
                handle.write(lead + json.dumps(row, ensure_ascii=False) + "\n")
                self._cut_short = False
                handle.flush()
                os.fsync(handle.fileno())
        except OSError as exc:
            raise PublishError(
                f"cannot write the IndexNow state file {self.path}: {exc.strerror or exc}"
            ) from exc
