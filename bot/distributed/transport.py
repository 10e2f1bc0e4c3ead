"""kombu's Redis transport with every message screened as it is taken off a queue: one that is not exactly a task of
refbot's (``bot.distributed.messages.check_envelope``) is logged once and dropped — it is off the queue already, and
never reaches Celery, which stops the worker on an envelope it cannot read (and exits with status 0, so that a
supervisor would not start it again); and so is each task the broker holds for a worker (to give it to another if
that worker dies) before it is given back. Celery uses it through ``broker_transport``."""

from __future__ import annotations

import functools
import json
import logging
from collections.abc import Iterator
from contextlib import contextmanager
from datetime import datetime, timezone
from typing import Any

from kombu.transport import redis as kombu_redis
from kombu.transport import virtual

from bot.distributed.messages import envelope_refusal

log = logging.getLogger("refbot.worker")


class ScreeningRedis(kombu_redis.PrefixedStrictRedis):
    """The Redis client of the transport's channel: what BRPOP (a worker waiting for a task) and RPOP (a task taken
    at once) return is screened; a refused message is read as no message."""

    def parse_response(self, connection: Any, command_name: str | bytes, **options: Any) -> Any:
        reply = super().parse_response(connection, command_name, **options)
        if command_name == "BRPOP" and reply:
            key, raw = reply
            return None if _refused(raw, key) else reply
        if command_name == "RPOP" and reply is not None:
            return None if _refused(reply, None) else reply
        return reply


def _refused(raw: bytes | str, key: bytes | str | None) -> bool:
    """``key``: the queue's key without the prefix (a priority's key ends in kombu's separator and the priority)."""
    queue = None if key is None else \
        (key.decode(errors="replace") if isinstance(key, bytes) else key).rsplit(kombu_redis.Channel.sep, 1)[0]
    refusal = envelope_refusal(raw, queue, now=datetime.now(timezone.utc))
    if refusal is not None:
        log.warning("refused a message%s: %s", f" on queue {queue}" if queue else "", refusal)
    return refusal is not None


class QoS(kombu_redis.QoS):
    """A dead worker's tasks given back to their queue: an entry of the broker's unacknowledged tasks that is no task
    of refbot's is dropped (logged once) instead of stopping every worker that looks for tasks to give back."""

    def restore_by_tag(self, tag: Any, client: Any = None, leftmost: bool = False) -> None:
        with self.channel.conn_or_acquire(client) as connection:
            held = connection.hget(self.unacked_key, tag)
        refusal = None if held is None else _held_refusal(held)
        if refusal is not None:
            log.warning("dropped an unacknowledged task the broker held: %s", refusal)
            self._remove_from_indices(tag).execute()
            return
        super().restore_by_tag(tag, client, leftmost)

    def ack(self, delivery_tag: Any) -> None:
        with self._forgotten_if_broker_gone(delivery_tag):
            super().ack(delivery_tag)

    def reject(self, delivery_tag: Any, requeue: bool = False) -> None:
        with self._forgotten_if_broker_gone(delivery_tag):
            super().reject(delivery_tag, requeue)

    @contextmanager
    def _forgotten_if_broker_gone(self, delivery_tag: Any) -> Iterator[None]:
        """A task acknowledged (or rejected) while Redis is gone stays the broker's, which gives it to a worker
        after the visibility timeout; this worker forgets it all the same. Otherwise it would count it as held for
        ever and, holding one task at most, never take another (kombu's own error, with Celery's remote control off:
        nothing else notices that Redis went away and came back)."""
        try:
            yield
        except self.channel.connection_errors:
            virtual.QoS.ack(self, delivery_tag)
            raise


def _held_refusal(held: bytes | str) -> str | None:
    """Why an entry of the unacknowledged tasks is none that kombu wrote for a task of refbot's (None: it is one)."""
    try:
        entry = json.loads(held)
    except (ValueError, UnicodeDecodeError):
        return "it is not JSON"
    if not (isinstance(entry, list) and len(entry) == 3 and isinstance(entry[0], dict)
            and all(isinstance(part, str) for part in entry[1:])):
        return "it is not a task held (message, exchange, routing key)"
    return envelope_refusal(json.dumps(entry[0]), now=datetime.now(timezone.utc))


class Channel(kombu_redis.Channel):
    QoS = QoS

    def _get_client(self) -> Any:
        super()._get_client()  # (kombu's check of redis-py's version)
        return functools.partial(ScreeningRedis, global_keyprefix=self.global_keyprefix)


class Transport(kombu_redis.Transport):
    Channel = Channel


NAME = f"{__name__}:Transport"
