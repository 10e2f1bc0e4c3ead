"""Per-host politeness held for every worker at once, in Redis: one request at a time per host across all processes
and machines, the configured pause between two requests (a robots.txt Crawl-delay raises it for every worker), as
``bot.documents.politeness.Politeness`` does within one process. The time is Redis's own (``TIME``), so that the
machines' clocks need not agree."""

from __future__ import annotations

import logging
import threading
import time
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from typing import Any

import redis

from bot.documents.politeness import host_key
from bot.errors import PartUnavailable

# A host's turn is a lease this long, renewed every third of it while its request runs: a worker that dies holding
# a turn (killed, its machine gone) keeps the host from the others for at most this long. A lease found without an
# expiry (written by something else than refbot) is given one: no key holds a host for ever.
LEASE_S = 10.0
# The most a host's pause and hold-off may be, whatever Redis holds (a value written by something else than refbot).
MAX_DELAY_S, MAX_HOLD_OFF_S = 60.0, 600.0
log = logging.getLogger("refbot.worker")


class SharedPoliteness:
    def __init__(self, client: Any, delay: float, *, prefix: str = "refbot",
                 sleep: Callable[[float], None] = time.sleep) -> None:
        """``client``: a ``redis.Redis``."""
        self.client, self.delay, self.prefix, self._sleep = client, delay, prefix, sleep

    @classmethod
    def connect(cls, url: str, delay: float, *, prefix: str = "refbot") -> SharedPoliteness:
        """``prefix``: what the keys begin with (the tool's, ``bot.distributed.names.tool_prefix``)."""
        return cls(redis.Redis.from_url(url, socket_timeout=30, health_check_interval=30), delay, prefix=prefix)

    def _key(self, host: str, what: str) -> str:
        return f"{self.prefix}:host:{host}:{what}"

    def _now(self) -> float:
        seconds, microseconds = self.client.time()
        return float(seconds) + microseconds / 1e6

    def _hold_off(self, value: object, now: float) -> float:
        """Until when a host is held off, as Redis holds it; a time further than refbot ever holds a host off is
        none of refbot's, and read as none."""
        until = self._seconds(value)
        return until if until <= now + MAX_HOLD_OFF_S + 1 else 0.0

    @staticmethod
    def _seconds(value: object) -> float:
        """A time or a pause as Redis holds it; 0 for anything that is not a finite number."""
        try:
            number = float(value)  # type: ignore[arg-type]
        except (TypeError, ValueError):
            return 0.0
        return number if number == number and abs(number) != float("inf") else 0.0

    @contextmanager
    def _redis(self, doing: str) -> Iterator[None]:
        """Redis gone is a part every statement needs gone: the run stops and its task is tried again."""
        try:
            yield
        except redis.RedisError as error:
            raise PartUnavailable(f"Redis failed while {doing}: {error}",
                                  hint="check [queue] broker and that Redis runs") from None

    def slow_down(self, key: str, delay: float) -> None:
        """Raise one host's pause for every worker (robots.txt Crawl-delay); capped at a minute."""
        wanted = min(delay, MAX_DELAY_S)
        with self._redis(f"raising {key}'s pause"):
            current = min(self._seconds(self.client.get(self._key(key, "delay"))), MAX_DELAY_S)
            if wanted > current:
                self.client.set(self._key(key, "delay"), wanted, ex=86400)

    def hold_off(self, key: str, seconds: float) -> None:
        """No worker sends the host a request for ``seconds`` (its Retry-After), capped at ten minutes."""
        with self._redis(f"holding {key} off"):
            now = self._now()
            until = now + min(seconds, MAX_HOLD_OFF_S)
            current = self._hold_off(self.client.get(self._key(key, "not-before")), now)
            if until > current:
                self.client.set(self._key(key, "not-before"), repr(until), ex=3600)

    def delay_for(self, key: str) -> float:
        with self._redis(f"reading {key}'s pause"):
            return max(self.delay, min(self._seconds(self.client.get(self._key(key, "delay"))), MAX_DELAY_S))

    @contextmanager
    def turn(self, url: str) -> Iterator[None]:
        """Wait for this host's turn (held by at most one request of all workers), hold it during the request, and
        start its pause when done."""
        key = host_key(url)
        with self._redis(f"waiting for {key}'s turn"):
            # (not thread-local: the thread that renews the lease holds it too)
            lock = self.client.lock(self._key(key, "turn"), timeout=LEASE_S, blocking_timeout=LEASE_S, sleep=0.05,
                                    thread_local=False)
            while not lock.acquire():
                self._expire_lease(key)
        done = threading.Event()

        def renew() -> None:
            while not done.wait(LEASE_S / 3):
                try:
                    lock.extend(LEASE_S, replace_ttl=True)
                except redis.RedisError:
                    return  # lost: the request goes on; the next turn waits its own

        renewing = threading.Thread(target=renew, name=f"turn {key}", daemon=True)
        renewing.start()
        try:
            with self._redis(f"reading {key}'s last request"):
                last, not_before = self.client.mget(self._key(key, "last"), self._key(key, "not-before"))
                now = self._now()
                ready = max(min(self._seconds(last), now) + self.delay_for(key) if last is not None else 0.0,
                            self._hold_off(not_before, now))
                wait = ready - now
            if wait > 0:
                self._sleep(wait)
            yield
        finally:
            done.set()
            renewing.join()
            try:
                self.client.set(self._key(key, "last"), repr(self._now()), ex=86400)
                lock.release()
            except redis.RedisError:
                pass  # the lease ends on its own; Redis is back by then or the next turn says so

    def _expire_lease(self, key: str) -> None:
        """A turn held a whole lease by another: if its key has no expiry (refbot's always have one), give it one."""
        if self.client.ttl(self._key(key, "turn")) == -1 and \
                self.client.expire(self._key(key, "turn"), int(LEASE_S), nx=True):
            log.warning("%s's turn was held by a key without an expiry; it now ends in %g s", key, LEASE_S)
