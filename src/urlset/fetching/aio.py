"""The aiohttp session of a run: imported only when a run needs aiohttp (tls.py).

``client_session`` makes the session the Fetcher runs over when it is not the lean client
(h1.py) that answers: the audit's listing, a crawl, an announcement, and every request the
lean client leaves to aiohttp. The same options and guard as the lean client: connection
limits, connect and read timeouts, user agent, ``--resolve``, and the AddressGuard of the
run's starts (addresses.py) on every address a name resolves to and every connection made.
"""

from __future__ import annotations

import socket
from collections.abc import Iterable
from functools import partial
from typing import Any

from .tls import load_aiohttp

load_aiohttp()  # first, so that its TLS contexts defer their CA certificates (tls.py)

import aiohttp  # noqa: E402

from .addresses import AddressGuard, BlockedAddress  # noqa: E402
from .http_options import HttpOptions  # noqa: E402


def client_session(http: HttpOptions, starts: Iterable[str] = ()) -> aiohttp.ClientSession:
    """The aiohttp session of ``http``'s connection limits, connect and read timeouts (the
    whole-download one is the Fetcher's) and user agent, and the AddressGuard of a run that
    starts at ``starts``, applied to every address a name resolves to and to every
    connection made (redirects and IP literals included)."""
    guard = AddressGuard.starting_at(starts, http.allow_private)
    connector = aiohttp.TCPConnector(
        limit=http.concurrency,
        limit_per_host=http.per_host,
        ttl_dns_cache=300,
        resolver=_GuardedResolver(dict(http.resolve), guard),
        socket_factory=partial(_guarded_socket, guard),
    )
    timeout = aiohttp.ClientTimeout(
        total=None,
        connect=http.connect_timeout,
        sock_connect=http.connect_timeout,
        sock_read=http.read_timeout,
    )
    return aiohttp.ClientSession(
        connector=connector,
        timeout=timeout,
        headers={"User-Agent": http.user_agent},
        auto_decompress=True,
    )


def _guarded_socket(guard: AddressGuard, addr_info: tuple[Any, ...]) -> socket.socket:
    """The socket for one address about to be connected to, unless the guard refuses it
    (an IP literal never passes the resolver; this sees every address)."""
    family, kind, proto, _, sockaddr = addr_info
    why = guard.refusal(None, sockaddr[0])
    if why is not None:
        raise BlockedAddress(why)
    return socket.socket(family=family, type=kind, proto=proto)


class _GuardedResolver(aiohttp.abc.AbstractResolver):
    """Names to addresses: ``HttpOptions.resolve`` first (curl's --resolve), DNS for the
    rest; the addresses the guard refuses are dropped, and a name left without any fails
    with the guard's reason."""

    def __init__(self, hosts: dict[str, str], guard: AddressGuard) -> None:
        self._hosts = {name.lower().rstrip("."): address for name, address in hosts.items()}
        self._guard = guard
        self._dns = aiohttp.ThreadedResolver()

    async def resolve(
        self, host: str, port: int = 0, family: socket.AddressFamily = socket.AF_INET
    ) -> list[aiohttp.abc.ResolveResult]:
        address = self._hosts.get(host.lower().rstrip("."))
        if address is None:
            found = await self._dns.resolve(host, port, family)
        else:
            kind = socket.AF_INET6 if ":" in address else socket.AF_INET
            found = [
                {
                    "hostname": host,
                    "host": address,
                    "port": port,
                    "family": kind,
                    "proto": 0,
                    "flags": socket.AI_NUMERICHOST,
                }
            ]
        refusals = [self._guard.refusal(host, each["host"]) for each in found]
        allowed = [each for each, why in zip(found, refusals, strict=True) if why is None]
        if not allowed and found:
            raise BlockedAddress(next(why for why in refusals if why is not None))
        return allowed

    async def close(self) -> None:
        await self._dns.close()


__all__ = ["client_session"]
