"""Fetching a document the careful way; every fetch ends in one recorded outcome and never raises for what the
page or the network did (refbot's own failures propagate: ``bot.faults``).

Outcomes (``Outcome``):
    ok             the body was read (it may still hold no usable paragraph)
    irretrievable  DNS failure, connection refused, timeout, 404/410, other 4xx, 5xx or 429 after retries,
                   too many redirects, a redirect of a deep link to the site's home page, a robots.txt that
                   answers 5xx (RFC 9309: the site is not crawled)
    blocked        401/402/403/451, robots.txt disallows refbot, or an address refbot refuses (private ranges)
    unsupported    a content type refbot cannot read, or a scheme other than http(s)
    too-large      the body is larger than ``max_bytes``

A blocked or dead page says nothing about the statement: callers report it, never "does not support".
One request at a time per host, from the request until the body is read; the HTTP cache answers fresh
repeats without a turn.
"""

from __future__ import annotations

import errno
import hashlib
import http.client
import socket
import ssl
import threading
import time
from collections.abc import Callable, Iterator
from contextlib import contextmanager, nullcontext
from dataclasses import dataclass, field
from enum import Enum
from typing import Any
from urllib.parse import urljoin, urlsplit

import requests
import urllib3

from bot.clock import Clock, stamp, system_clock
from bot.documents import cache
from bot.documents.addresses import RefusedAddress
from bot.documents.politeness import HostTurns, Politeness, host_key
from bot.faults import blames_the_page

READABLE_TYPES = ("text/html", "application/xhtml+xml", "text/plain", "application/pdf")
UNTYPED = ("", "application/octet-stream", "binary/octet-stream", "application/unknown")
BLOCKING_STATUSES = frozenset({401, 402, 403, 451})
RETRIED_STATUSES = frozenset({429, 500, 502, 503, 504})
ROBOTS_MAX_BYTES = 512 * 1024
# The most one read of a body asks for; a read returns what has arrived (one receive), often less.
READ_SIZE = 16 * 1024


class Outcome(str, Enum):
    OK = "ok"
    IRRETRIEVABLE = "irretrievable"
    BLOCKED = "blocked"
    UNSUPPORTED = "unsupported"
    TOO_LARGE = "too-large"


@dataclass(frozen=True)
class Fetched:
    """What one fetch produced; ``url`` is what was asked for, ``final_url`` where the body came from."""

    url: str
    outcome: Outcome
    reason: str = ""
    final_url: str = ""
    status: int | None = None
    content_type: str = ""
    charset: str = ""
    content: bytes = field(default=b"", repr=False)
    retrieved: str = ""
    elapsed_s: float = 0.0
    redirects: tuple[str, ...] = ()
    from_cache: bool = False
    archive_url: str = ""
    archive_timestamp: str = ""
    # When the body was read but its parser gave up on it: the exception's type and the parser's place, the same
    # for the same failure on any page (a run whose every page fails alike is stopped: bot.checking.batch).
    parser_failure: str = ""

    @property
    def ok(self) -> bool:
        return self.outcome is Outcome.OK

    @property
    def sha256(self) -> str:
        return hashlib.sha256(self.content).hexdigest() if self.ok else ""


@dataclass(frozen=True)
class FetchRules:
    user_agent: str = ""
    connect_timeout: float = 10.0
    read_timeout: float = 30.0
    max_seconds: float = 120.0
    max_bytes: int = 20_000_000
    max_redirects: int = 5
    retries: int = 2
    backoff: float = 2.0
    robots: bool = True
    robots_agent: str = "refbot"


class _Stop(Exception):
    """Ends a fetch early with an outcome; internal to this module."""

    def __init__(self, outcome: Outcome, reason: str, status: int | None = None) -> None:
        super().__init__(reason)
        self.outcome = outcome
        self.reason = reason
        self.status = status


def media_type(header: str) -> tuple[str, str]:
    """``text/html; charset=ISO-8859-2`` → ("text/html", "iso-8859-2")."""
    kind, _, rest = (header or "").partition(";")
    charset = ""
    for parameter in rest.split(";"):
        name, _, value = parameter.partition("=")
        if name.strip().lower() == "charset":
            charset = value.strip().strip("\"'").lower()
    return kind.strip().lower(), charset


def sniff_type(head: bytes) -> str:
    start = head.lstrip()[:512].lower()
    if start.startswith(b"%pdf-"):
        return "application/pdf"
    if start.startswith((b"<!doctype html", b"<html")) or b"<body" in start or b"<p>" in start:
        return "text/html"
    return ""


class Fetcher:
    """Fetches documents through ``session`` (a requests.Session, cached and guarded by the factory).

    Safe to share between threads: per-host state is behind locks.
    """

    def __init__(self, session: requests.Session, rules: FetchRules, politeness: HostTurns | None = None,
                 *, sleep: Callable[[float], None] = time.sleep, clock: Clock = system_clock) -> None:
        """``clock``: what stamps each fetch's ``retrieved`` (a test pins it)."""
        self.session = session
        self.clock = clock
        self.rules = rules
        self.politeness = politeness or Politeness(0.0)
        self._sleep = sleep
        self._robots: dict[str, Any] = {}
        self._robots_locks: dict[str, threading.Lock] = {}
        self._guard = threading.Lock()

    def fetch(self, url: str, *, accept: str = "", readable: tuple[str, ...] = READABLE_TYPES) -> Fetched:
        """``accept``: the Accept header (content negotiation, as for an RDF record); ``readable``: the media
        types read (any other is ``unsupported``)."""
        started = time.monotonic()
        redirects: list[str] = []
        try:
            _check_scheme(url)
            return self._follow(url, redirects, started, accept, readable)
        except _Stop as stop:
            return Fetched(url, stop.outcome, stop.reason, final_url=redirects[-1] if redirects else url,
                           status=stop.status, retrieved=self._now(), elapsed_s=time.monotonic() - started,
                           redirects=tuple(redirects))
        except Exception as error:  # the contract: what the page or the network did is recorded, never raised
            if not blames_the_page(error):
                raise  # but refbot's own failure (a bug, a broken install) is not the page's outcome
            return Fetched(url, Outcome.IRRETRIEVABLE, f"{type(error).__name__}: {_first_line(error)}",
                           final_url=redirects[-1] if redirects else url, retrieved=self._now(),
                           elapsed_s=time.monotonic() - started, redirects=tuple(redirects))

    def _now(self) -> str:
        return stamp(self.clock())

    def _follow(self, url: str, redirects: list[str], started: float, accept: str = "",
                readable: tuple[str, ...] = READABLE_TYPES) -> Fetched:
        current = url
        while True:
            if self.rules.robots:
                self._check_robots(current)
            with self._turn(current):
                granted = time.monotonic()  # max_seconds counts from here, not from the wait for the turn
                response = self._request(current, accept)
                if not response.is_redirect:
                    return self._read(url, current, response, redirects, started, granted, readable)
                target = urljoin(current, response.headers.get("Location", ""))
                response.close()
            self._check_redirect(url, target, redirects, response.status_code)
            redirects.append(target)
            current = target

    def _check_redirect(self, url: str, target: str, redirects: list[str], status: int) -> None:
        if len(redirects) >= self.rules.max_redirects:
            raise _Stop(Outcome.IRRETRIEVABLE, f"more than {self.rules.max_redirects} redirects", status)
        if target in redirects or target == url:
            raise _Stop(Outcome.IRRETRIEVABLE, "redirect loop", status)
        _check_scheme(target)
        original, moved = urlsplit(url), urlsplit(target)
        if original.path not in ("", "/") and moved.path in ("", "/") and moved.netloc == original.netloc:
            raise _Stop(Outcome.IRRETRIEVABLE, "the page now redirects to its site's home page (a dead link)", status)

    @contextmanager
    def _turn(self, url: str) -> Iterator[None]:
        """The host's turn for a request and its body; a fresh cached answer needs none."""
        with (nullcontext() if cache.fresh(self.session, url) is not None else self.politeness.turn(url)):
            yield

    def _request(self, url: str, accept: str = "") -> requests.Response:
        headers = {"User-Agent": self.rules.user_agent} if self.rules.user_agent else {}
        if accept:
            headers["Accept"] = accept
        attempt = 0
        while True:
            try:
                response = self.session.get(url, headers=headers, stream=True, allow_redirects=False,
                                            timeout=(self.rules.connect_timeout, self.rules.read_timeout))
            except RefusedAddress as error:
                raise _Stop(Outcome.BLOCKED, str(error)) from error
            except requests.exceptions.Timeout as error:
                raise _Stop(Outcome.IRRETRIEVABLE, f"timed out ({_timeout_kind(error)})") from error
            except requests.exceptions.ConnectionError as error:
                raise _Stop(Outcome.IRRETRIEVABLE, f"cannot connect to {_host_of(url)}: {connection_failure(error)}") \
                    from error
            status = response.status_code
            if status in RETRIED_STATUSES and attempt < self.rules.retries:
                response.close()
                attempt += 1
                self._sleep(_retry_after(response) or self.rules.backoff * 2 ** (attempt - 1))
                continue
            if status in BLOCKING_STATUSES:
                response.close()
                raise _Stop(Outcome.BLOCKED, f"HTTP {status} {response.reason}".rstrip(), status)
            if status >= 400:
                response.close()
                tries = f" after {attempt + 1} attempts" if attempt else ""
                raise _Stop(Outcome.IRRETRIEVABLE, f"HTTP {status} {response.reason}{tries}".rstrip(), status)
            return response

    def _read(self, url: str, final_url: str, response: requests.Response, redirects: list[str],
              started: float, granted: float, readable: tuple[str, ...] = READABLE_TYPES) -> Fetched:
        status = response.status_code
        kind, charset = media_type(response.headers.get("Content-Type", ""))
        if kind not in readable and kind not in UNTYPED:
            response.close()
            what = "HTML, PDF or plain text" if readable == READABLE_TYPES else ", ".join(readable)
            raise _Stop(Outcome.UNSUPPORTED, f"content type {kind} is not {what}", status)
        declared = response.headers.get("Content-Length", "")
        if declared.isdecimal() and int(declared) > self.rules.max_bytes:
            response.close()
            raise _Stop(Outcome.TOO_LARGE, f"{int(declared):,} bytes declared; the cap is {self.rules.max_bytes:,}",
                        status)
        body = self._body(response, granted)
        if kind in UNTYPED and readable == READABLE_TYPES:  # another reader sniffs its own formats
            kind = sniff_type(body[:1024])
            if not kind:
                raise _Stop(Outcome.UNSUPPORTED, "no usable content type, and the body is neither HTML nor PDF",
                            status)
        cache.remember(self.session, response, body)
        from_cache = bool(getattr(response, "from_cache", False))
        return Fetched(url, Outcome.OK, final_url=final_url, status=status, content_type=kind, charset=charset,
                       content=body, retrieved=cache.created(response) or self._now(),
                       elapsed_s=time.monotonic() - started, redirects=tuple(redirects), from_cache=from_cache)

    def _body(self, response: requests.Response, started: float, limit: int | None = None) -> bytes:
        """The decoded body, at most ``limit`` (the size cap) bytes, within ``max_seconds`` of the start.

        The deadline holds whatever delimits the body (a length, chunks, or the server closing the connection): the
        body is read as it arrives (one receive at a time), the deadline checked between reads, each read waiting
        at most what is left of it; a timer shuts the socket should a single read outlast it anyway.
        """
        limit = self.rules.max_bytes if limit is None else limit
        deadline = started + self.rules.max_seconds
        raw: Any = getattr(response, "raw", None)
        if getattr(response, "from_cache", False) or not callable(getattr(raw, "read1", None)):
            return self._stored_body(response, limit)  # already in memory: nothing to wait for
        sock = _socket_of(response)
        expired = threading.Event()
        timer = threading.Timer(max(deadline - time.monotonic(), 0.0), _cut, (response, sock, expired))
        timer.daemon = True
        timer.start()
        body = bytearray()
        try:
            while True:
                left = deadline - time.monotonic()
                if left <= 0 or expired.is_set():
                    expired.set()
                    break
                if sock is not None:
                    try:
                        sock.settimeout(min(self.rules.read_timeout, left))
                    except OSError:  # closed once the whole body was read (HTTP/1.0): read1 says it ended
                        sock = None
                block = raw.read1(READ_SIZE, decode_content=True)
                if not block:
                    break
                body.extend(block)
                if len(body) > limit:
                    raise _Stop(Outcome.TOO_LARGE, f"more than {limit:,} bytes", response.status_code)
        except _Stop:
            response.close()
            raise
        except Exception as error:
            response.close()
            if not _from_the_network(error):
                raise  # refbot's own failure, not the page's
            if time.monotonic() >= deadline:
                expired.set()  # the timer's cut, or the last read's wait for what was left
            elif not expired.is_set():
                if _is_timeout(error):
                    raise _Stop(Outcome.IRRETRIEVABLE, f"timed out (nothing received for "
                                f"{self.rules.read_timeout:g} s while reading the body)", response.status_code
                                ) from error
                raise _Stop(Outcome.IRRETRIEVABLE, f"the connection broke while reading: {_first_line(error)}",
                            response.status_code) from error
        finally:
            timer.cancel()
        if expired.is_set():
            response.close()
            raise _Stop(Outcome.IRRETRIEVABLE, f"timed out (still reading after {self.rules.max_seconds:g} s)",
                        response.status_code)
        return bytes(body)

    def _stored_body(self, response: requests.Response, limit: int) -> bytes:
        body = bytearray()
        for block in response.iter_content(READ_SIZE):
            body.extend(block)
            if len(body) > limit:
                response.close()
                raise _Stop(Outcome.TOO_LARGE, f"more than {limit:,} bytes", response.status_code)
        return bytes(body)

    def _check_robots(self, url: str) -> None:
        key = host_key(url)
        with self._guard:
            lock = self._robots_locks.setdefault(key, threading.Lock())
        with lock:
            if key not in self._robots:
                self._robots[key] = self._read_robots(url)
        rules = self._robots[key]
        if isinstance(rules, _Stop):
            raise _Stop(rules.outcome, rules.reason, rules.status)
        if rules is not None and not rules.can_fetch(url, self.rules.robots_agent):
            raise _Stop(Outcome.BLOCKED, f"robots.txt of {key} disallows {self.rules.robots_agent}")

    def _read_robots(self, url: str) -> Any:
        """Protego rules, None (everything allowed), or a _Stop that every page of the host gets (RFC 9309:
        a robots.txt answering 5xx or unreachable means the site is not crawled)."""
        from protego import Protego

        parts = urlsplit(url)
        current = f"{parts.scheme}://{parts.netloc}/robots.txt"
        try:
            for _ in range(6):
                with self._turn(current):
                    granted = time.monotonic()
                    response = self._request(current)
                    if not response.is_redirect:
                        text = self._body(response, granted, ROBOTS_MAX_BYTES)
                        kind, _ = media_type(response.headers.get("Content-Type", ""))
                        if kind not in ("", "text/plain"):
                            return None
                        rules = Protego.parse(text.decode("utf-8", "replace"))
                        delay = rules.crawl_delay(self.rules.robots_agent)
                        if delay:
                            self.politeness.slow_down(host_key(url), float(delay))
                        return rules
                    target = urljoin(current, response.headers.get("Location", ""))
                    response.close()
                _check_scheme(target)
                current = target
            return None
        except _Stop as stop:
            if stop.status is None and stop.outcome in (Outcome.BLOCKED, Outcome.IRRETRIEVABLE):
                return stop  # a refused address, a dead host: every page of the host fares the same
            if stop.status is not None and (stop.status >= 500 or stop.status == 429):
                return _Stop(Outcome.IRRETRIEVABLE, f"robots.txt unreadable ({stop.reason}); the site is not crawled",
                             stop.status)
            return None  # 4xx, too large, unsupported: no rules
        except Exception as error:  # a damaged robots.txt must not make the site's pages unreadable
            if not blames_the_page(error):
                raise  # a broken robots.txt parser must not silently stop refbot obeying robots.txt
            return None


def _check_scheme(url: str) -> None:
    scheme = urlsplit(url).scheme.lower()
    if scheme not in ("http", "https"):
        raise _Stop(Outcome.UNSUPPORTED, f"scheme {scheme or '(none)'!r} is not http(s)")


def _socket_of(response: requests.Response) -> socket.socket | None:
    """The socket the body comes through: the connection's while it holds one, else the one http.client kept
    reading from after it let the connection go (a body delimited by the server closing it)."""
    raw = getattr(response, "raw", None)
    sock = getattr(getattr(raw, "connection", None), "sock", None)
    if sock is None:  # http.client's response → its buffered socket file → the socket
        stream = getattr(getattr(raw, "_fp", None), "fp", None)
        sock = getattr(getattr(stream, "raw", None), "_sock", None)
    return sock if isinstance(sock, socket.socket) else None


def _cut(response: requests.Response, sock: socket.socket | None, expired: threading.Event) -> None:
    """Called by a timer when a body takes too long: wake the reading thread by shutting the socket."""
    expired.set()
    shutdown = getattr(getattr(response, "raw", None), "shutdown", None)  # urllib3's, for a socket not found
    try:
        if sock is not None:
            sock.shutdown(socket.SHUT_RDWR)
        elif callable(shutdown):
            shutdown()
    except (OSError, ValueError, RuntimeError):
        pass  # already closed, or nothing to shut: the deadline check between reads ends it


def _from_the_network(error: Exception) -> bool:
    """An error the connection or the page's bytes explain (not refbot's own code)."""
    return isinstance(error, (OSError, http.client.HTTPException, urllib3.exceptions.HTTPError,
                              requests.RequestException)) or blames_the_page(error)


def _is_timeout(error: Exception) -> bool:
    return isinstance(error, (socket.timeout, urllib3.exceptions.TimeoutError, requests.exceptions.Timeout))


def _retry_after(response: requests.Response) -> float:
    value = response.headers.get("Retry-After", "")
    return min(float(value), 60.0) if value.replace(".", "", 1).isdecimal() else 0.0


def _timeout_kind(error: Exception) -> str:
    return "no connection" if isinstance(error, requests.exceptions.ConnectTimeout) else "no answer"


def connection_failure(error: BaseException) -> str:
    """Why a connection failed, as a reader says it ("connection refused", "the host name does not resolve"), from
    the innermost cause requests and urllib3 wrap it in; the first line of the error when none is recognised."""
    seen: list[BaseException] = []
    pending: list[BaseException | None] = [error]
    while pending:
        current = pending.pop(0)
        if current is None or any(current is known for known in seen):
            continue
        seen.append(current)
        pending += [getattr(current, "reason", None), current.__cause__, current.__context__,
                    *(arg for arg in current.args if isinstance(arg, BaseException))]
    for cause in reversed(seen):
        if isinstance(cause, ConnectionRefusedError):
            return "connection refused"
        if isinstance(cause, socket.gaierror) or type(cause).__name__ == "NameResolutionError":
            return "the host name does not resolve"
        if isinstance(cause, ssl.SSLError):
            return f"the TLS handshake failed ({cause.reason or type(cause).__name__})"
        if isinstance(cause, ConnectionResetError):
            return "the server reset the connection"
        if isinstance(cause, OSError) and cause.errno in _UNREACHABLE:
            return _UNREACHABLE[cause.errno]
        if type(cause).__name__ in ("RemoteDisconnected", "IncompleteRead"):
            return "the server closed the connection without an answer"
    text = " ".join(str(error).split())
    return text if len(text) <= 160 else text[:159].rsplit(" ", 1)[0] + "…"


_UNREACHABLE = {errno.EHOSTUNREACH: "the host is unreachable", errno.ENETUNREACH: "the network is unreachable",
                errno.ECONNREFUSED: "connection refused", errno.ETIMEDOUT: "the connection timed out"}


def _host_of(url: str) -> str:
    parts = urlsplit(url)
    return parts.netloc or url


def _first_line(error: Exception) -> str:
    text = str(error)
    return text.splitlines()[0][:200] if text else type(error).__name__
