"""Which listed URL a worker requests next: per host, so that a slow host never holds the rest.

In: the URLs to audit (indexes into the driver's list, in list order), each one's origin.
Out: ``take()`` gives a worker a URL whose host may be asked now, with the host's slot held
(``release`` gives it back). A host may be asked when its robots.txt was read, fewer than
``per_host`` of its requests are in flight, and its pacer's next turn has come (``--rate``,
Crawl-delay, a Retry-After). A URL of a host that may not be asked now waits in that host's
queue (4 bytes an index: a million URLs of one slow host cost 4 MB) while workers go on with
other hosts' URLs; the hosts whose queues wait are served in turn. ``acquire`` takes a
host's slot for a request that is not a listed URL's first (a redirect hop, a GET after a
HEAD), waiting for it. The first URL of a host starts the reading of its robots.txt (given
as ``read_robots``), which holds one of the host's slots.
"""

from __future__ import annotations

import asyncio
import contextlib
import time
from array import array
from collections import deque
from collections.abc import Awaitable, Callable, Iterator, Sequence
from typing import Any

GO, BLOCKED, LATE = "go", "blocked", "late"
PULLED = 2000  # URLs set aside in one take() before it lets the event loop run


def origin_of(url: str) -> str:
    """``scheme://host[:port]`` of a URL as the reader wrote it (robots.txt's scope)."""
    end = len(url)
    for mark in ("/", "?", "#"):
        found = url.find(mark, url.find("//") + 2)
        if 0 <= found < end:
            end = found
    return url[:end]


class _Queue:
    """Indexes in order: appended at the end, taken from the front (an array and a cursor)."""

    __slots__ = ("items", "start")

    def __init__(self) -> None:
        self.items = array("I")
        self.start = 0

    def __len__(self) -> int:
        return len(self.items) - self.start

    def append(self, index: int) -> None:
        self.items.append(index)

    def popleft(self) -> int:
        index = self.items[self.start]
        self.start += 1
        if self.start >= 4096 and self.start * 2 >= len(self.items):
            del self.items[: self.start]
            self.start = 0
        return index


class HostState:
    """What the audit knows of one origin: robots.txt (protego, or why it disallows the whole
    host), the spacing of its requests, what is in flight, what waits, and whether it answers
    HEAD as it answers GET."""

    __slots__ = (
        "head",
        "head_checks",
        "in_flight",
        "interval",
        "next_slot",
        "origin",
        "queue",
        "ready",
        "robots",
        "unreadable",
        "waiters",
    )

    def __init__(self, origin: str) -> None:
        self.origin = origin
        self.ready = False  # robots.txt was read (or could not be)
        self.robots: Any = None
        self.unreadable: str | None = None
        self.interval = 0.0  # seconds between two requests' starts
        self.next_slot = 0.0  # the monotonic time of the next request's turn
        self.in_flight = 0
        self.queue = _Queue()
        self.head = True  # False once it answered HEAD with 405/501 or unlike GET
        self.head_checks = 0  # HEAD answers checked against GET so far
        self.waiters: deque[asyncio.Future[None]] = deque()  # requests waiting in acquire()

    def hold(self, seconds: float) -> None:
        """No new request for ``seconds`` (a 429's or 503's Retry-After)."""
        self.next_slot = max(self.next_slot, time.monotonic() + seconds)


class Scheduler:
    """Hands out listed URLs host by host (see the module's docstring)."""

    def __init__(
        self,
        order: Iterator[int],
        locs: Sequence[str],
        per_host: int,
        read_robots: Callable[[HostState], Awaitable[None]],
        ends: float | None,
        blocked: Callable[[HostState, str], bool],
    ) -> None:
        """``blocked(host, loc)``: robots.txt keeps ``loc`` from being requested (then it
        is handed out at once, without a slot); ``ends``: the run's deadline (monotonic)."""
        self.order = order
        self.locs = locs
        self.per_host = per_host
        self.read_robots = read_robots
        self.ends = ends
        self.blocked = blocked
        self.hosts: dict[str, HostState] = {}
        self.waiting: dict[str, HostState] = {}  # hosts with queued URLs, served in turn
        self._idle: deque[asyncio.Future[None]] = deque()  # workers waiting in take()
        self._tasks: set[asyncio.Task[None]] = set()

    def host(self, origin: str) -> HostState:
        """The origin's state; the first call starts reading its robots.txt."""
        state = self.hosts.get(origin)
        if state is None:
            state = self.hosts[origin] = HostState(origin)
            state.in_flight = 1  # robots.txt is the host's first request
            task = asyncio.ensure_future(self._robots(state))
            self._tasks.add(task)
            task.add_done_callback(self._tasks.discard)
        return state

    async def _robots(self, state: HostState) -> None:
        try:
            await self.read_robots(state)
        finally:
            state.ready = True
            state.in_flight -= 1
            for waiters in (state.waiters, self._idle):  # the host's URLs may all go now
                while _wake(waiters):
                    pass

    def hold(self, url: str, seconds: float) -> None:
        """The Fetcher's word that ``url``'s server asked to wait (Retry-After): its host
        gets no new request for ``seconds``."""
        state = self.hosts.get(origin_of(url))
        if state is not None:
            state.hold(seconds)

    def release(self, state: HostState) -> None:
        """A slot given back: one worker waiting for it woken (one waiting in ``acquire``
        for this host first), not all of them: a slot is used by one."""
        state.in_flight -= 1
        if not _wake(state.waiters):
            _wake(self._idle)

    def _claim(self, state: HostState, now: float, loc: str) -> str | None:
        """``GO`` (its slot taken) or ``BLOCKED`` (robots.txt: no slot) when ``loc`` of
        ``state`` may be handed out now; None when it must wait."""
        if not state.ready:
            return None
        if state.unreadable is not None or self.blocked(state, loc):
            return BLOCKED
        if state.in_flight >= self.per_host or state.next_slot > now:
            return None
        state.in_flight += 1
        state.next_slot = max(now, state.next_slot) + state.interval
        return GO

    def _past_deadline(self) -> bool:
        return self.ends is not None and time.monotonic() >= self.ends

    async def take(self) -> tuple[int, HostState, str] | None:
        """The next URL (its index), its host, and ``GO`` (request it: the slot is held),
        ``BLOCKED`` (robots.txt keeps it) or ``LATE`` (the deadline passed); None when every
        URL was handed out."""
        locs = self.locs
        while True:
            if self._past_deadline():
                return self._any()
            now = time.monotonic()
            for origin, state in self.waiting.items():
                queue = state.queue
                verdict = self._claim(state, now, locs[queue.items[queue.start]])
                if verdict is not None:
                    index = queue.popleft()
                    del self.waiting[origin]  # to the end of the turn, or out when empty
                    if len(queue):
                        self.waiting[origin] = state
                    return index, state, verdict
            pulled = 0
            for index in self.order:
                loc = locs[index]
                state = self.host(origin_of(loc))
                verdict = None if state.queue else self._claim(state, now, loc)
                if verdict is not None:
                    return index, state, verdict
                state.queue.append(index)
                self.waiting.setdefault(state.origin, state)
                pulled += 1
                if pulled >= PULLED:
                    break
            if pulled >= PULLED:
                await asyncio.sleep(0)  # the answers in flight are read meanwhile
                continue
            if not self.waiting:  # every URL handed out: the idle workers end too
                while _wake(self._idle):
                    pass
                return None
            await self._wait(now, self._idle)

    def _any(self) -> tuple[int, HostState, str] | None:
        """Past the deadline: any URL left, not to be requested."""
        for origin, state in self.waiting.items():
            index = state.queue.popleft()
            if not state.queue:
                del self.waiting[origin]
            return index, state, LATE
        for index in self.order:
            return index, self.host(origin_of(self.locs[index])), LATE
        return None

    async def acquire(self, state: HostState, loc: str | None = None) -> str:
        """A slot of ``state`` for one more request (a redirect hop to ``loc``, a GET after
        a HEAD), waited for: ``GO`` (held), ``BLOCKED`` (robots.txt keeps ``loc``) or
        ``LATE`` (the deadline passed first)."""
        while True:
            if self._past_deadline():
                return LATE
            now = time.monotonic()
            if state.ready:
                if loc is not None and (state.unreadable is not None or self.blocked(state, loc)):
                    return BLOCKED
                if state.in_flight < self.per_host and state.next_slot <= now:
                    state.in_flight += 1
                    state.next_slot = now + state.interval
                    return GO
            await self._wait(now, state.waiters, state)

    async def _wait(
        self, now: float, waiters: deque[asyncio.Future[None]], also: HostState | None = None
    ) -> None:
        """In ``waiters`` until woken (a slot given back, a robots.txt read), a pacer's turn
        comes or the deadline passes."""
        hosts = [*self.waiting.values(), *([also] if also is not None else [])]
        turns = [s.next_slot for s in hosts if s.ready and s.in_flight < self.per_host]
        if self.ends is not None:
            turns.append(self.ends)
        timeout = max(0.0, min(turns) - now) if turns else None
        woken = asyncio.get_running_loop().create_future()
        waiters.append(woken)
        try:
            async with asyncio.timeout(timeout):
                await woken
        except TimeoutError:
            pass
        finally:
            if not woken.done():
                woken.cancel()
            with contextlib.suppress(ValueError):
                waiters.remove(woken)

    async def close(self) -> None:
        """Robots.txt reads still under way (a deadline or an error ended the run) ended."""
        for task in self._tasks:
            task.cancel()
        if self._tasks:
            await asyncio.gather(*self._tasks, return_exceptions=True)


def _wake(waiters: deque[asyncio.Future[None]]) -> bool:
    """The first waiter still waiting woken; False when there was none."""
    while waiters:
        woken = waiters.popleft()
        if not woken.done():
            woken.set_result(None)
            return True
    return False
