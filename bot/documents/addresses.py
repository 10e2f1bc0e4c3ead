"""Refusing private, loopback and link-local addresses before any connection is made.

refbot follows URLs found on the open web (search results, Wikipedia citations, redirects). Without this
guard a page could point the bot at a service on the operator's own network. Every address a host name
resolves to must be public, unless the operator allowed it explicitly (``fetch_allow_addresses``: addresses
or networks such as ``127.0.0.1`` or ``10.0.0.0/8``, each on every port, or on one port: ``127.0.0.1:8080``,
``10.0.0.0/8:443``, ``[::1]:8080`` — an IPv6 address takes brackets when it has a port).

The guard is asked before the HTTP cache too (``bot.documents.cache``), so a page fetched while an address was
allowed is not answered from the cache once it is not.

The check resolves the name, then the connection resolves it again: a host whose DNS answer changes between
the two (DNS rebinding) is not caught here. Where that matters, run refbot behind an egress firewall too.
"""

from __future__ import annotations

import ipaddress
import socket
from collections.abc import Callable, Iterable
from dataclasses import dataclass
from urllib.parse import urlsplit

import requests
from requests.adapters import HTTPAdapter

Address = ipaddress.IPv4Address | ipaddress.IPv6Address
Network = ipaddress.IPv4Network | ipaddress.IPv6Network
Resolver = Callable[[str, int], list[str]]


@dataclass(frozen=True)
class Allowed:
    """One ``fetch_allow_addresses`` entry: a network (an address is a network of one) on one port or on all."""

    network: Network
    port: int | None = None  # None: every port

    def admits(self, address: Address, port: int) -> bool:
        return address in self.network and (self.port is None or self.port == port)

    def __str__(self) -> str:
        if self.port is None:
            return str(self.network)
        return f"[{self.network}]:{self.port}" if self.network.version == 6 else f"{self.network}:{self.port}"


class RefusedAddress(requests.exceptions.ConnectionError):
    """Raised by the guard instead of connecting; ``address`` is the first address that was refused."""

    def __init__(self, url: str, host: str, address: str, why: str, port: int | None = None) -> None:
        # port: given when the address is allowed, but on other ports only
        where = f", and port {port} is not allowed for it" if port is not None else ""
        shown = f"[{address}]:{port}" if port is not None and ":" in address else f"{address}:{port}"
        super().__init__(f"refused to connect to {host} ({address}): {why} address{where}; if this is intended, "
                         f"allow it with [fetch] allow_addresses or --allow-address"
                         + (f" ({shown})" if port is not None else ""))
        self.url = url
        self.host = host
        self.address = address
        self.why = why
        self.port = port


def parse_networks(entries: Iterable[str]) -> tuple[Allowed, ...]:
    """``127.0.0.1`` → 127.0.0.1/32 on every port, ``127.0.0.1:8080`` → on port 8080 only, ``[::1]:8080`` (an
    IPv6 address with a port takes brackets); raises ValueError naming the entry that is none of these."""
    return tuple(_parse_entry(entry) for entry in entries)


def _parse_entry(entry: str) -> Allowed:
    text = entry.strip()
    port_text: str | None = None
    if text.startswith("["):
        inside, bracket, rest = text[1:].partition("]")
        if not bracket or (rest and not rest.startswith(":")):
            raise ValueError(f"{entry!r}: not an IP address or network (an IPv6 one with a port is written "
                             "[::1]:8080)")
        text, port_text = inside, (rest[1:] if rest else None)
    elif text.count(":") == 1:  # IPv4 with a port; an IPv6 address has two colons at least
        text, _, port_text = text.partition(":")
    try:
        network = ipaddress.ip_network(text, strict=False)
    except ValueError:
        raise ValueError(f"{entry!r}: not an IP address or network") from None
    if port_text is None:
        return Allowed(network)
    if not port_text.isdecimal():
        raise ValueError(f"{entry!r}: port {port_text!r} is not a number")
    if not 1 <= int(port_text) <= 65535:
        raise ValueError(f"{entry!r}: port {int(port_text)} is not between 1 and 65535")
    return Allowed(network, int(port_text))


def allowance_key(allowed: Iterable[Allowed | Network]) -> str:
    """The allow-list in one canonical line (``127.0.0.1`` and ``127.0.0.1/32`` read the same): what the HTTP
    cache keeps its entries apart by."""
    return ",".join(sorted({str(entry) for entry in _allowances(allowed)}))


def _allowances(allowed: Iterable[Allowed | Network]) -> tuple[Allowed, ...]:
    """Entries as Allowed; a bare network (as callers before ports passed) allows every port."""
    return tuple(entry if isinstance(entry, Allowed) else Allowed(entry) for entry in allowed)


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


def check_url(url: str, allowed: Iterable[Allowed | Network], resolve: Resolver = system_resolver) -> None:
    """Raise RefusedAddress if ``url``'s host resolves to any non-public address that is not allowed (on the
    URL's port).

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
    entries = _allowances(allowed)
    for text in addresses:
        address = ipaddress.ip_address(text.split("%", 1)[0])
        if any(entry.admits(address, port) for entry in entries):
            continue
        reason = why_refused(address)
        if reason:
            other_ports = any(address in entry.network for entry in entries)
            raise RefusedAddress(url, host, text, reason, port if other_ports else None)


class GuardedAdapter(HTTPAdapter):
    """An HTTPAdapter that checks every request's host before connecting, redirect hops included."""

    def __init__(self, allowed: Iterable[Allowed | Network] = (), resolve: Resolver = system_resolver,
                 **kwargs) -> None:
        super().__init__(**kwargs)
        self.allowed = _allowances(allowed)
        self.resolve = resolve

    def check(self, url: str) -> None:
        check_url(url, self.allowed, self.resolve)

    def send(self, request, *args, **kwargs):
        self.check(request.url or "")
        return super().send(request, *args, **kwargs)


def guard(session: requests.Session, allowed: Iterable[Allowed | Network] = (),
          resolve: Resolver = system_resolver) -> requests.Session:
    """Mount the guard on both schemes of ``session`` (and return it)."""
    adapter = GuardedAdapter(allowed, resolve)
    session.mount("http://", adapter)
    session.mount("https://", adapter)
    return session
