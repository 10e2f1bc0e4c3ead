"""Which workers are at work, and the keys of a run that is over.

A worker keeps a heartbeat in Redis, under its ledger's names (``bot.distributed.names``): every :data:`BEAT_S`
seconds — from a thread of its own, so a long item does not silence it — it writes its name and the task it is on
(run, items, since when), in a key that expires after :data:`SEEN_S` seconds; a worker stopped deletes its key.
`refbot run --status` lists the keys left: the workers seen recently, each idle or on a task for so long, which tells
a slow run from a stuck one. Times are Redis's own (``TIME``), alike for every machine that reads them.

A run that is finished has its queue's keys deleted by the workers that served it (:func:`forget_queue`).
"""

from __future__ import annotations

import json
import logging
import threading
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import Any, TypeVar

import redis

from bot.distributed.names import QUEUE
from bot.errors import ServiceError
from bot.faults import first_line
from bot.options import without_password

BEAT_S = 10.0  # between two heartbeats
SEEN_S = 60  # a heartbeat's key lives this long: a worker not heard from since is not listed
log = logging.getLogger("refbot.worker")
T = TypeVar("T")


def worker_key(prefix: str, ledger: str, name: str) -> str:
    """A worker's heartbeat key (``prefix``: the tool's, ``bot.distributed.names.key_prefix``)."""
    return f"{prefix}{QUEUE}.{ledger}.worker.{name}"


@dataclass(frozen=True)
class Seen:
    """A worker as its last heartbeat left it: ``ago`` seconds ago; on ``run``'s ``items`` for ``busy`` seconds
    (``run`` None: idle)."""

    name: str
    ago: float
    run: int | None = None
    items: tuple[str, ...] = ()
    busy: float = 0.0

    @property
    def shown(self) -> str:
        """``w1 (run 3: Q1 for 42 s)``, ``w2 (idle)``."""
        doing = f"run {self.run}: {','.join(self.items) or 'a task'} for {age(self.busy)}" \
            if self.run is not None else "idle"
        return f"{self.name} ({doing}; seen {age(self.ago)} ago)"


def age(seconds: float) -> str:
    """``42 s``, ``5 min 3 s``, ``2 h 4 min``."""
    whole = max(0, int(seconds))
    if whole < 60:
        return f"{whole} s"
    if whole < 3600:
        return f"{whole // 60} min {whole % 60} s"
    return f"{whole // 3600} h {whole % 3600 // 60} min"


def _now(client: Any) -> float:
    seconds, microseconds = client.time()
    return float(seconds) + microseconds / 1e6


class Heartbeat:
    """A worker's heartbeat in ``key`` (:func:`worker_key`)."""

    def __init__(self, client: Any, key: str, name: str, *, renew: Callable[[], None] | None = None) -> None:
        self.client, self.key, self.name, self.renew = client, key, name, renew
        self._task: tuple[int, tuple[str, ...], float] | None = None
        self._stop = threading.Event()
        self._thread = threading.Thread(target=self._beat, name="refbot-heartbeat", daemon=True)

    def start(self) -> None:
        self.beat()
        self._thread.start()

    def working(self, run: int, items: Sequence[str]) -> None:
        try:
            self._task = (run, tuple(items), _now(self.client))
        except redis.RedisError:
            self._task = (run, tuple(items), 0.0)
        self.beat()

    def idle(self) -> None:
        self._task = None
        self.beat()

    def beat(self) -> None:
        """Write where the worker stands now; Redis gone is no reason to stop a worker (logged, tried again)."""
        try:
            now = _now(self.client)
            run, items, since = self._task or (None, (), now)
            self.client.set(self.key, json.dumps({"name": self.name, "at": now, "run": run, "items": list(items),
                                                  "since": since or now}), ex=SEEN_S)
        except redis.RedisError as error:
            log.debug("heartbeat not written: %s", error)

    def stop(self) -> None:
        self._stop.set()
        if self._thread.is_alive():
            self._thread.join(timeout=BEAT_S)
        try:
            self.client.delete(self.key)
        except redis.RedisError:
            pass  # it expires

    def _beat(self) -> None:
        while not self._stop.wait(BEAT_S):
            self.beat()
            if self.renew is not None:  # the ledger's lease (bot.distributed.lease), renewed as often
                self.renew()


def at_broker(broker: str, call: Callable[[Any], T], *, timeout_s: float = 5) -> T:
    """``call`` over a new connection to the Redis at ``broker``, closed after; ServiceError naming the broker when
    Redis does not answer."""
    client = redis.Redis.from_url(broker, socket_connect_timeout=timeout_s, socket_timeout=timeout_s)
    try:
        return call(client)
    except redis.RedisError as error:
        raise ServiceError(first_line(error), service="the queue", url=without_password(broker),
                           hint="check [queue] broker and that Redis runs") from None
    finally:
        client.close()


def seen_at(broker: str, prefix: str, ledger: str) -> list[Seen]:
    """The workers of this ledger heard from in the last :data:`SEEN_S` seconds, by name (``prefix``: the tool's,
    ``bot.distributed.names.key_prefix``); ServiceError naming the broker when Redis does not answer."""
    return at_broker(broker, lambda client: seen_workers(client, prefix, ledger))


def seen_workers(client: Any, prefix: str, ledger: str) -> list[Seen]:
    """:func:`seen_at` over a Redis ``client``; a key that is no heartbeat is skipped."""
    now = _now(client)
    found = []
    for key in client.scan_iter(match=_glob(worker_key(prefix, ledger, "")) + "*", count=500):
        try:
            beat = json.loads(client.get(key) or b"null")
            run = beat.get("run")
            found.append(Seen(printable(str(beat["name"])[:200]), max(0.0, now - float(beat["at"])),
                              int(run) if run is not None else None,
                              tuple(printable(str(item)[:20]) for item in beat.get("items") or ())[:20],
                              max(0.0, now - float(beat["since"])) if run is not None else 0.0))
        except (AttributeError, KeyError, TypeError, ValueError, OverflowError):  # ("run": Infinity)
            continue
    return sorted(found, key=lambda seen: seen.name)


def printable(text: str) -> str:
    """``text`` as it may be printed on an operator's terminal: anyone who can write to Redis writes heartbeats, so
    a character that is not printable (an escape sequence, a carriage return, a newline, a direction override) is
    shown escaped (``\\x1b``), never sent to the terminal."""
    return "".join(character if character.isprintable() else character.encode("unicode_escape").decode("ascii")
                   for character in text)


def _glob(text: str) -> str:
    """``text`` matched literally by a Redis pattern."""
    return "".join(f"\\{character}" if character in "*?[]\\" else character for character in text)


def forget_queue(client: Any, queue: str) -> None:
    """Delete a finished run's queue (tasks delivered again after the run finished: nothing left to do) and its
    binding (``client``: the broker's, which prefixes the keys)."""
    client.delete(queue, f"_kombu.binding.{queue}", f"_kombu.binding_permanent.{queue}")
