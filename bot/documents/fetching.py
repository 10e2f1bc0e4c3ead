"""Fetching a document the careful way; every fetch ends in one recorded outcome and never raises.

Outcomes (``Outcome``):
    ok             the body was read (it may still hold no usable paragraph)
    irretrievable  DNS failure, connection refused, timeout, 404/410, other 4xx, 5xx or 429 after retries,
                   too many redirects, a redirect of a deep link to the site's home page
    blocked        401/402/403/451, robots.txt disallows refbot, or an address refbot refuses (private ranges)
    unsupported    a content type refbot cannot read, or a scheme other than http(s)
    too-large      the body is larger than ``max_bytes``

A blocked or dead page says nothing about the statement: callers report it, never "does not support".
"""

from __future__ import annotations

import hashlib
import time
from collections.abc import Callable
from contextlib import nullcontext
from dataclasses import dataclass, field
from datetime import datetime, timezone
from enum import Enum
from typing import Any
from urllib.parse import urljoin, urlsplit

import requests

from bot.documents.addresses import RefusedAddress
from bot.documents.politeness import Politeness, host_key

READABLE_TYPES = ("text/html", "application/xhtml+xml", "text/plain", "application/pdf")
BLOCKING_STATUSES = frozenset({401, 402, 403, 451})
RETRIED_STATUSES = frozenset({429, 500, 502, 503, 504})


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


def _now() -> str:
    return datetime.now(timezone.utc).replace(microsecond=0).isoformat().replace("+00:00", "Z")


class Fetcher:
    """Fetches documents through ``session`` (a requests.Session, cached and guarded by the factory)."""

    def __init__(self, session: requests.Session, rules: FetchRules, politeness: Politeness | None = None,
                 *, sleep: Callable[[float], None] = time.sleep) -> None:
        self.session = session
        self.rules = rules
        self.politeness = politeness or Politeness(0.0)
        self._sleep = sleep
        self._robots: dict[str, Any] = {}

    def fetch(self, url: str) -> Fetched:
        started = time.monotonic()
        redirects: list[str] = []
        try:
            scheme = urlsplit(url).scheme.lower()
            if scheme not in ("http", "https"):
                raise _Stop(Outcome.UNSUPPORTED, f"scheme {scheme or '(none)'!r} is not http(s)")
            return self._follow(url, redirects, started)
        except _Stop as stop:
            return Fetched(url, stop.outcome, stop.reason, final_url=redirects[-1] if redirects else url,
                           status=stop.status, retrieved=_now(), elapsed_s=time.monotonic() - started,
                           redirects=tuple(redirects))
        except Exception as error:  # the contract: a fetch never raises; the reason is recorded instead
            return Fetched(url, Outcome.IRRETRIEVABLE, f"{type(error).__name__}: {error}", final_url=url,
                           retrieved=_now(), elapsed_s=time.monotonic() - started, redirects=tuple(redirects))

    def _follow(self, url: str, redirects: list[str], started: float) -> Fetched:
        current = url
        while True:
            if self.rules.robots and not self._robots_allow(current):
                raise _Stop(Outcome.BLOCKED, f"robots.txt of {host_key(current)} disallows {self.rules.robots_agent}")
            response = self._request(current)
            if response.is_redirect:
                target = urljoin(current, response.headers.get("Location", ""))
                response.close()
                if len(redirects) >= self.rules.max_redirects:
                    raise _Stop(Outcome.IRRETRIEVABLE, f"more than {self.rules.max_redirects} redirects",
                                response.status_code)
                if target in redirects or target == url:
                    raise _Stop(Outcome.IRRETRIEVABLE, "redirect loop", response.status_code)
                if urlsplit(url).path not in ("", "/") and urlsplit(target).path in ("", "/") \
                        and urlsplit(target).netloc == urlsplit(url).netloc:
                    raise _Stop(Outcome.IRRETRIEVABLE, "the page now redirects to its site's home page (a dead link)",
                                response.status_code)
                redirects.append(target)
                current = target
                continue
            return self._read(url, current, response, redirects, started)

    def _request(self, url: str) -> requests.Response:
        headers = {"User-Agent": self.rules.user_agent} if self.rules.user_agent else {}
        attempt = 0
        while True:
            cached = _in_cache(self.session, url)
            with (nullcontext() if cached else self.politeness.turn(url)) as turn:
                try:
                    response = self.session.get(url, headers=headers, stream=True, allow_redirects=False,
                                                timeout=(self.rules.connect_timeout, self.rules.read_timeout))
                except RefusedAddress as error:
                    raise _Stop(Outcome.BLOCKED, str(error)) from error
                except requests.exceptions.Timeout as error:
                    raise _Stop(Outcome.IRRETRIEVABLE, f"timed out ({_timeout_kind(error)})") from error
                except requests.exceptions.ConnectionError as error:
                    raise _Stop(Outcome.IRRETRIEVABLE, f"cannot connect: {_first_line(error)}") from error
                if turn is not None and getattr(response, "from_cache", False):
                    turn.sent = False
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
              started: float) -> Fetched:
        status = response.status_code
        kind, charset = media_type(response.headers.get("Content-Type", ""))
        declared = response.headers.get("Content-Length", "")
        if declared.isdigit() and int(declared) > self.rules.max_bytes:
            response.close()
            raise _Stop(Outcome.TOO_LARGE, f"{int(declared):,} bytes declared; the cap is {self.rules.max_bytes:,}",
                        status)
        if kind and kind not in READABLE_TYPES:
            response.close()
            raise _Stop(Outcome.UNSUPPORTED, f"content type {kind} is not HTML, PDF or plain text", status)
        body = bytearray()
        for block in response.iter_content(64 * 1024):
            body.extend(block)
            if len(body) > self.rules.max_bytes:
                response.close()
                raise _Stop(Outcome.TOO_LARGE, f"more than {self.rules.max_bytes:,} bytes", status)
            if time.monotonic() - started > self.rules.max_seconds:
                response.close()
                raise _Stop(Outcome.IRRETRIEVABLE, f"timed out (still reading after {self.rules.max_seconds:g} s)",
                            status)
        if not kind:
            kind = sniff_type(bytes(body[:1024]))
            if not kind:
                raise _Stop(Outcome.UNSUPPORTED, "no content type, and the body is neither HTML nor PDF", status)
        return Fetched(url, Outcome.OK, final_url=final_url, status=status, content_type=kind, charset=charset,
                       content=bytes(body), retrieved=_now(), elapsed_s=time.monotonic() - started,
                       redirects=tuple(redirects), from_cache=bool(getattr(response, "from_cache", False)))

    def _robots_allow(self, url: str) -> bool:
        from protego import Protego

        key = host_key(url)
        if key not in self._robots:
            parts = urlsplit(url)
            robots_url = f"{parts.scheme}://{parts.netloc}/robots.txt"
            rules = None
            try:
                response = self._request(robots_url)
                kind, _ = media_type(response.headers.get("Content-Type", ""))
                text = response.raw.read(512 * 1024, decode_content=True) if not getattr(
                    response, "from_cache", False) else response.content[:512 * 1024]
                response.close()
                if response.status_code == 200 and kind in ("", "text/plain"):
                    rules = Protego.parse(text.decode("utf-8", "replace"))
            except _Stop as stop:
                if stop.outcome is Outcome.BLOCKED and stop.status is None:
                    raise  # a refused address: the page itself would be refused too
            self._robots[key] = rules
            delay = rules.crawl_delay(self.rules.robots_agent) if rules is not None else None
            if delay:
                self.politeness.slow_down(key, float(delay))
        rules = self._robots[key]
        return rules is None or rules.can_fetch(url, self.rules.robots_agent)


def _in_cache(session: requests.Session, url: str) -> bool:
    cache = getattr(session, "cache", None)
    try:
        return bool(cache is not None and cache.contains(url=url))
    except Exception:
        return False


def _retry_after(response: requests.Response) -> float:
    value = response.headers.get("Retry-After", "")
    return min(float(value), 60.0) if value.replace(".", "", 1).isdigit() else 0.0


def _timeout_kind(error: Exception) -> str:
    return "no connection" if isinstance(error, requests.exceptions.ConnectTimeout) else "no answer"


def _first_line(error: Exception) -> str:
    text = str(error)
    return text.splitlines()[0][:200] if text else type(error).__name__
