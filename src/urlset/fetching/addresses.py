"""Which addresses a fetch may connect to: the guard against requests where none belongs.

A crawler run on a server against untrusted sites must not be sent, by a robots.txt
``Sitemap:`` line, an index child or a redirect, to the server's own network: loopback,
private and link-local addresses (the cloud metadata services answer there), unique-local,
multicast, unspecified and other special-purpose ones. The test is on the address a name
resolves to (every spelling of a host, IPv4 as decimal, octal or hex included, ends as one),
made when the connection is made, so a name that resolves elsewhere on a second lookup
(DNS rebinding) gains nothing. IPv6 addresses that carry an IPv4 one (mapped, compatible,
NAT64, 6to4) are judged by the IPv4 address they carry.

A run that starts on such a host (``urlset fetch http://localhost:8000/``) may use it: the
start's host name, or its address when it is written as one, is allowed; ``allow_private``
allows every address. Pure: the driver (http.py) asks ``AddressGuard.refusal``.
"""

from __future__ import annotations

import ipaddress
from collections.abc import Iterable
from dataclasses import dataclass, field
from urllib.parse import urlsplit

Address = ipaddress.IPv4Address | ipaddress.IPv6Address

# the instance metadata services of the large clouds (AWS, GCP, Azure, OpenStack at
# 169.254.169.254; AWS over IPv6; Alibaba; Oracle)
_METADATA = frozenset(
    ipaddress.ip_address(a)
    for a in ("169.254.169.254", "fd00:ec2::254", "100.100.100.200", "192.0.0.192")
)
_SHARED = ipaddress.ip_network("100.64.0.0/10")  # carrier-grade NAT (RFC 6598)
_PROTOCOL_ASSIGNMENTS = ipaddress.ip_network("192.0.0.0/24")  # RFC 6890
_SITE_LOCAL = ipaddress.ip_network("fec0::/10")  # deprecated, still routed inside sites
_NAT64 = ipaddress.ip_network("64:ff9b::/96")  # RFC 6052: the last 32 bits are IPv4
_NAT64_LOCAL = ipaddress.ip_network("64:ff9b:1::/48")  # RFC 8215: local use
_COMPATIBLE = ipaddress.ip_network("::/96")  # deprecated IPv4-compatible (and ::, ::1)


def _carried(ip: ipaddress.IPv6Address) -> ipaddress.IPv4Address | None:
    """The IPv4 address an IPv6 one stands for, if it carries one."""
    if ip.ipv4_mapped is not None:
        return ip.ipv4_mapped
    if ip.sixtofour is not None:
        return ip.sixtofour
    if ip in _NAT64 or (ip in _COMPATIBLE and int(ip) > 1):
        return ipaddress.IPv4Address(int(ip) & 0xFFFFFFFF)
    return None


def forbidden(address: str | Address) -> str | None:
    """What kind of address this is when a fetch may not connect to it ("loopback",
    "private", "cloud metadata", ...); None for a public (global unicast) one. A text that
    is no address is refused too."""
    try:
        ip = ipaddress.ip_address(address.split("%", 1)[0] if isinstance(address, str) else address)
    except ValueError:
        return "unparsable"
    if isinstance(ip, ipaddress.IPv6Address):
        carried = _carried(ip)
        if carried is not None:
            return forbidden(carried)
    if ip in _METADATA:
        return "cloud metadata service"
    if ip.is_unspecified or (isinstance(ip, ipaddress.IPv4Address) and ip.packed[0] == 0):
        return "unspecified"
    if ip.is_loopback:
        return "loopback"
    if ip.is_link_local:
        return "link-local"
    if ip.is_multicast:
        return "multicast"
    if isinstance(ip, ipaddress.IPv6Address) and ip in ipaddress.ip_network("fc00::/7"):
        return "unique-local"
    if ip in _SHARED:
        return "shared (carrier-grade NAT)"
    if ip in _SITE_LOCAL:
        return "site-local"
    if ip in _NAT64_LOCAL or ip in _PROTOCOL_ASSIGNMENTS:
        return "special-purpose"
    if ip.is_reserved:
        return "reserved"
    if ip.is_private:
        return "private"
    if not ip.is_global:
        return "reserved"
    return None


def _host(url: str) -> str:
    return (urlsplit(url).hostname or "").lower().rstrip(".")


@dataclass(slots=True)
class AddressGuard:
    """The run's rule: every public address; the start's host (by name, or its address)
    whatever it resolves to; everything with ``allow_private``. Another name that resolves
    to the start's private address is refused unless the start was written as that address.
    ``approved`` collects the addresses the start's names resolved to, so the connection
    made to one of them (where the name is no longer known) is let through."""

    allow_private: bool = False
    hosts: frozenset[str] = frozenset()
    approved: set[Address] = field(default_factory=set)

    @classmethod
    def starting_at(cls, starts: Iterable[str], allow_private: bool = False) -> AddressGuard:
        hosts = frozenset(h for h in (_host(u) for u in starts) if h)
        return cls(allow_private, hosts)

    def refusal(self, host: str | None, address: str) -> str | None:
        """Why ``host`` (None: not known) may not be reached at ``address``; None if it may."""
        if self.allow_private:
            return None
        kind = forbidden(address)
        if kind is None:
            return None
        ip = ipaddress.ip_address(address.split("%", 1)[0]) if kind != "unparsable" else None
        name = (host or "").lower().rstrip(".").strip("[]")
        if ip is not None and str(ip) in self.hosts:
            return None  # the start's own address
        if name and name in self.hosts:
            if ip is not None:
                self.approved.add(ip)
            return None
        if not host and ip in self.approved:
            return None  # a connection to an address the start's name resolved to
        where = f"{host} resolves to {address}" if host and name != address else address
        return (
            f"refused: {where}, a {kind} address, which a fetch does not connect to unless "
            "the run starts there; --allow-private (HttpOptions(allow_private=True)) allows it"
        )


class BlockedAddress(OSError):
    """A connection the AddressGuard refused (final: it would be refused again)."""


__all__ = ["AddressGuard", "BlockedAddress", "forbidden"]
