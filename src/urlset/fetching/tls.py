"""aiohttp, imported when a run first needs it, so that its TLS contexts load their CA
certificates only when a connection needs them.

No fetching module imports aiohttp at its top: a fetch speaks the lean client (h1.py) and
asks ``load_aiohttp()`` only for what that client leaves to aiohttp (an error to be worded as
aiohttp words it, a URL it would rewrite, an answer it does not read) and for the commands
that run over an aiohttp session (audit listing, crawl, announce). A tiny site's fetch then
never imports it (BENCHMARKS.md, "Fetch start-up").

aiohttp makes its two default client contexts when ``aiohttp.connector`` is imported; loading
the system's CA bundle into them (``SSLContext.set_default_verify_paths``) is most of the
cost of importing aiohttp (measured: BENCHMARKS.md, "Fetch start-up"), and a fetch of an
http:// site never uses them. So the first import, done here, defers that one call for the
contexts made on this thread while aiohttp is imported, and ``TCPConnector._get_ssl_context``
(which picks the context of every TLS connection, redirects included) makes it before it
hands one out: the contexts are then what aiohttp would have made, CA certificates and
all, and an https fetch verifies exactly as before. Where aiohttp was imported already, or
names things otherwise, the contexts are completed at once (no deferral, same behaviour).
"""

from __future__ import annotations

import ssl
import sys
import threading
from functools import cache
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from types import ModuleType


@cache
def load_aiohttp() -> ModuleType:
    """aiohttp, imported on the first call (its contexts' CA certificates deferred)."""
    module: ModuleType = _import_aiohttp()
    return module


def loaded_aiohttp() -> ModuleType | None:
    """aiohttp if something imported it already, else None (then no error is its)."""
    return sys.modules.get("aiohttp")


def _import_aiohttp() -> Any:
    if "aiohttp" in sys.modules:
        import aiohttp

        return aiohttp
    deferred: list[ssl.SSLContext] = []
    importing = threading.get_ident()
    load = ssl.SSLContext.set_default_verify_paths

    def later(context: ssl.SSLContext) -> None:
        if threading.get_ident() == importing:
            deferred.append(context)
        else:  # another thread's context: as ever
            load(context)

    own = ssl.SSLContext.__dict__.get("set_default_verify_paths")
    ssl.SSLContext.set_default_verify_paths = later  # type: ignore[method-assign,assignment]
    try:
        import aiohttp
    finally:
        if own is None:
            del ssl.SSLContext.set_default_verify_paths  # back to the inherited method
        else:
            ssl.SSLContext.set_default_verify_paths = own  # type: ignore[method-assign]
    if deferred:
        _complete_on_use(aiohttp, deferred)
    return aiohttp


def _complete_on_use(aiohttp: Any, deferred: list[ssl.SSLContext]) -> None:
    """Have the deferred contexts load their certificates before aiohttp first hands one
    out; at once when its connector does not pick contexts the way this expects."""
    connector = getattr(aiohttp, "TCPConnector", None)
    pick = getattr(connector, "_get_ssl_context", None)
    lock = threading.Lock()

    def complete() -> None:
        with lock:
            while deferred:
                deferred.pop().set_default_verify_paths()

    if connector is None or pick is None:
        complete()
        return

    def get_ssl_context(self: Any, req: Any) -> Any:
        context = pick(self, req)  # None for a plain-http connection
        if context is not None and deferred:
            complete()  # before the context is used, whichever it is
        return context

    connector._get_ssl_context = get_ssl_context


__all__ = ["load_aiohttp", "loaded_aiohttp"]
