"""``run_loop``: ``asyncio.run`` for a coroutine whose result is large (a fetch's, an audit's).

Python 3.11's ``asyncio.run`` ends by asking ``signal.getsignal(SIGINT)``, which tries its
handler (a partial naming the main task) as a ``Handlers`` member and formats the failure's
message with ``repr()`` of that task: the whole result, twice. For a 500,000-URL fetch that
was 0.27 s of CPU (two reprs of every issue read) at the end of the run. Here the result is
handed out beside the task, whose own result is None. Standard library only.
"""

from __future__ import annotations

import asyncio
from collections.abc import Coroutine
from typing import Any, TypeVar

T = TypeVar("T")


def run_loop(main: Coroutine[Any, Any, T]) -> T:
    """``asyncio.run(main)``'s result, never formatted on the way out."""
    box: list[T] = []

    async def kept() -> None:
        box.append(await main)

    asyncio.run(kept())
    return box[0]
