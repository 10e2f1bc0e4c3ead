"""Per-host politeness: one request at a time per host, a pause between them, and robots.txt respected.

Hosts are keyed by ``host:port`` so that two services on one machine are two hosts. A host's robots.txt
``Crawl-delay`` raises its pause; it never lowers the configured one.
"""

from __future__ import annotations

import threading
import time
from collections.abc import Callable, Iterator
from contextlib import AbstractContextManager, contextmanager
from email.utils import parsedate_to_datetime
from typing import Protocol
from urllib.parse import urlsplit


class HostTurns(Protocol):
    """What a fetcher asks of politeness: a host's turn, and a host's pause raised. :class:`Politeness` holds turns
    within one process; ``bot.distributed.politeness.SharedPoliteness`` for every worker, in Redis."""

    def turn(self, url: str) -> AbstractContextManager[None]: ...

    def slow_down(self, key: str, delay: float) -> None: ...

    def delay_for(self, key: str) -> float: ...

    def hold_off(self, key: str, seconds: float) -> None: ...


def parse_retry_after(value: str | None, now: float | None = None) -> float | None:
    """Seconds to wait from a Retry-After header: delta-seconds or an HTTP date."""
    if not value:
        return None
    value = value.strip()
    if value.isdecimal():
        return float(value)
    try:
        when = parsedate_to_datetime(value).timestamp()
    except (TypeError, ValueError):
        return None
    return max(0.0, when - (time.time() if now is None else now))


def host_key(url: str) -> str:
    parts = urlsplit(url)
    port = parts.port or (443 if parts.scheme == "https" else 80)
    return f"{(parts.hostname or '').lower()}:{port}"


class Politeness:
    def __init__(self, delay: float, *, clock: Callable[[], float] = time.monotonic,
                 sleep: Callable[[float], None] = time.sleep) -> None:
        self.delay = delay
        self._clock = clock
        self._sleep = sleep
        self._guard = threading.Lock()
        self._locks: dict[str, threading.Lock] = {}
        self._last_end: dict[str, float] = {}
        self._delays: dict[str, float] = {}
        self._not_before: dict[str, float] = {}

    def slow_down(self, key: str, delay: float) -> None:
        """Raise one host's pause (robots.txt Crawl-delay); capped at a minute so one file cannot stall a run."""
        with self._guard:
            self._delays[key] = max(self._delays.get(key, 0.0), min(delay, 60.0))

    def delay_for(self, key: str) -> float:
        return max(self.delay, self._delays.get(key, 0.0))

    def hold_off(self, key: str, seconds: float) -> None:
        """No request to the host for ``seconds`` (its Retry-After), capped at ten minutes."""
        with self._guard:
            self._not_before[key] = max(self._not_before.get(key, 0.0), self._clock() + min(seconds, 600.0))

    @contextmanager
    def turn(self, url: str) -> Iterator[None]:
        """Wait for this host's turn, hold it during the request, and start its pause when done."""
        key = host_key(url)
        with self._guard:
            lock = self._locks.setdefault(key, threading.Lock())
        with lock:
            last = self._last_end.get(key)
            ready = max(last + self.delay_for(key) if last is not None else 0.0, self._not_before.get(key, 0.0))
            wait = ready - self._clock()
            if wait > 0:
                self._sleep(wait)
            try:
                yield
            finally:
                self._last_end[key] = self._clock()
