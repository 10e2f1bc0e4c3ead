"""Refusing private, loopback and link-local addresses before any connection is made.

refbot follows URLs found on the open web (search results, Wikipedia citations, redirects). Without this
guard a page could point the bot at a service on the operator's own network. Every address a host name
resolves to must be public, unless the operator allowed it explicitly (``fetch_allow_addresses``: addresses
or networks such as ``127.0.0.1`` or ``10.0.0.0/8``).

The check resolves the name, then the connection resolves it again: a host whose DNS answer changes between
the two (DNS rebinding) is not caught here. Where that matters, run refbot behind an egress firewall too.
"""

from __future__ import annotations

import ipaddress
import socket
from collections.abc import Callable, Iterable
from urllib.parse import urlsplit

import requests
from requests.adapters import HTTPAdapter

Address = ipaddress.IPv4Address | ipaddress.IPv6Address
Network = ipaddress.IPv4Network | ipaddress.IPv6Network
Resolver = Callable[[str, int], list[str]]


class RefusedAddress(requests.exceptions.ConnectionError):
    """Raised by the guard instead of connecting; ``address`` is the first address that was refused."""

    def __init__(self, url: str, host: str, address: str, why: str) -> None:
        super().__init__(f"refused to connect to {host} ({address}): {why} address; if this is intended, "
                         "allow it with [fetch] allow_addresses or --allow-address")
        self.url = url
        self.host = host
        self.address = address
        self.why = why


def parse_networks(entries: Iterable[str]) -> tuple[Network, ...]:
    """``127.0.0.1`` → 127.0.0.1/32; raises ValueError naming the entry that is not an address or network."""
    networks = []
    for entry in entries:
        try:
            networks.append(ipaddress.ip_network(entry.strip(), strict=False))
        except ValueError:
            raise ValueError(f"not an IP address or network: {entry!r}") from None
    return tuple(networks)


def why_refused(address: Address) -> str | None:
    """The reason an address is not on the public internet, or None when it is.

    IPv6 forms that carry an IPv4 address (IPv4-mapped, 6to4, Teredo) are judged by that address too.
    """
    if isinstance(address, ipaddress.IPv6Address):
        embedded = [address.ipv4_mapped, address.sixtofour, *(address.teredo or ())]
        for inner in (a for a in embedded if a is not None):
            reason = why_refused(inner)
            if reason:
                return reason
    for reason, flag in (("loopback", address.is_loopback), ("link-local", address.is_link_local),
                         ("private", address.is_private), ("multicast", address.is_multicast),
                         ("unspecified", address.is_unspecified), ("reserved", address.is_reserved),
                         ("site-local", getattr(address, "is_site_local", False)),
                         ("non-public", not address.is_global)):
        if flag:
            return reason
    return None


def system_resolver(host: str, port: int) -> list[str]:
    return sorted({str(info[4][0]) for info in socket.getaddrinfo(host, port, proto=socket.IPPROTO_TCP)})


def check_url(url: str, allowed: tuple[Network, ...], resolve: Resolver = system_resolver) -> None:
    """Raise RefusedAddress if ``url``'s host resolves to any non-public address that is not allowed.

    Resolution errors propagate as ``requests.ConnectionError`` so that they read as a dead host.
    """
    parts = urlsplit(url)
    host = parts.hostname or ""
    port = parts.port or (443 if parts.scheme == "https" else 80)
    try:
        literal = ipaddress.ip_address(host)
        addresses = [str(literal)]
    except ValueError:
        try:
            addresses = resolve(host, port)
        except (socket.gaierror, UnicodeError) as error:
            raise requests.exceptions.ConnectionError(f"cannot resolve host {host!r}: {error}") from error
    for text in addresses:
        address = ipaddress.ip_address(text.split("%", 1)[0])
        if any(address in network for network in allowed):
            continue
        reason = why_refused(address)
        if reason:
            raise RefusedAddress(url, host, text, reason)


class GuardedAdapter(HTTPAdapter):
    """An HTTPAdapter that checks every request's host before connecting, redirect hops included."""

    def __init__(self, allowed: tuple[Network, ...] = (), resolve: Resolver = system_resolver, **kwargs) -> None:
        super().__init__(**kwargs)
        self.allowed = allowed
        self.resolve = resolve

    def send(self, request, *args, **kwargs):
        check_url(request.url or "", self.allowed, self.resolve)
        return super().send(request, *args, **kwargs)


def guard(session: requests.Session, allowed: tuple[Network, ...] = (),
          resolve: Resolver = system_resolver) -> requests.Session:
    """Mount the guard on both schemes of ``session`` (and return it)."""
    adapter = GuardedAdapter(allowed, resolve)
    session.mount("http://", adapter)
    session.mount("https://", adapter)
    return session
