"""What a task message may be: the one shape `refbot run --enqueue` sends, checked before anything reads it. Pure.

Anyone who can write to the Redis a worker reads from can put anything on its queue, so a message is input: the
transport's envelope (``bot.distributed.transport``) must be the JSON Celery sends, with no more than its known
headers and properties, each of its type (Celery takes unknown headers into the task's context, and an ETA or a
time limit of the wrong type stops a worker); its body the task's arguments as JSON; and the task's one argument a
:class:`TaskMessage` — the ledger's identity, a run id, at most :data:`MAX_ITEMS` item ids. Whether the run exists,
is not finished and holds the items is the ledger's to say (``bot.distributed.work.perform``).
"""

from __future__ import annotations

import base64
import binascii
import json
import re
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from datetime import datetime, timedelta, timezone
from typing import Any

TASK = "refbot.check_items"
# The most items one task carries (``[queue] batch`` is at most this), and the most bytes a message may take: a
# thousand item ids and Celery's headers fit well within it.
MAX_ITEMS = 1000
MAX_BYTES = 64 * 1024
ITEM = re.compile(r"Q[1-9][0-9]{0,11}\Z")
# The longest a task of refbot's waits before it is tried again (a retry's countdown, Celery's ETA): a message whose
# ETA is later than this (and five minutes for the clocks of two machines) is none of refbot's. Held by Redis until
# then, it would be handed out and put back at every visibility timeout, and bring its queue back after the run ended.
MAX_DELAY_S = 3600.0
CLOCK_SKEW_S = 300.0
LEDGER = re.compile(r"[0-9a-f]{8,32}\Z")


class BadMessage(ValueError):
    """A message that is not a task of refbot's: refused, never tried again."""


@dataclass(frozen=True)
class TaskMessage:
    """One task: these items of run ``run`` of the ledger ``ledger`` (its identity)."""

    ledger: str
    run: int
    items: tuple[str, ...]

    def as_json(self) -> dict[str, Any]:
        return {"ledger": self.ledger, "run": self.run, "items": list(self.items)}


def task_message(args: Sequence[Any], kwargs: Mapping[str, Any]) -> TaskMessage:
    """The task's arguments as refbot sends them (one mapping), checked; BadMessage says what is wrong."""
    if kwargs or len(args) != 1 or not isinstance(args[0], dict):
        raise BadMessage("its arguments are not one task description")
    message = args[0]
    if set(message) != {"ledger", "run", "items"}:
        raise BadMessage(f"its task description has keys {sorted(map(str, message))}, not ledger, run and items")
    ledger, run, items = message["ledger"], message["run"], message["items"]
    if not isinstance(ledger, str) or not LEDGER.match(ledger):
        raise BadMessage("its ledger is not a ledger's identity")
    if not isinstance(run, int) or isinstance(run, bool) or not 0 < run < 2**63:
        raise BadMessage("its run is not a run id")
    if not isinstance(items, list) or not items:
        raise BadMessage("its items are not a list of item ids")
    if len(items) > MAX_ITEMS:
        raise BadMessage(f"it lists {len(items)} items, more than a task carries ({MAX_ITEMS})")
    wrong = [item for item in items if not isinstance(item, str) or not ITEM.match(item)]
    if wrong:
        raise BadMessage(f"{_shown(wrong[0])} is not an item id")
    if len(set(items)) != len(items):
        raise BadMessage("it lists an item twice")
    return TaskMessage(ledger, run, tuple(items))


# The envelope as kombu's Redis transport writes it (Celery's task protocol 2), key by key: what type each may have.
# A message the broker gives back (its worker died before acknowledging it) is marked "redelivered" there.
ENVELOPE = {"body": str, "content-encoding": str, "content-type": str, "headers": dict, "properties": dict,
            "redelivered": bool}
HEADERS: dict[str, Any] = {
    "lang": str, "task": str, "id": str, "shadow": (str, None), "eta": ("time", None), "expires": ("time", None),
    "group": (str, None), "group_index": (int, None), "retries": int, "timelimit": "timelimit",
    "root_id": (str, None), "parent_id": (str, None), "argsrepr": (str, None), "kwargsrepr": (str, None),
    "origin": (str, None), "ignore_result": bool, "replaced_task_nesting": int, "stamped_headers": ("empty", None),
    "stamps": "empty", "redelivered": bool,
}
PROPERTIES: dict[str, Any] = {
    "correlation_id": str, "reply_to": str, "delivery_mode": int, "delivery_info": "delivery", "priority": int,
    "body_encoding": str, "delivery_tag": str, "origin": (str, None),  # (a task sent again by Celery names its origin)
}
REQUIRED_HEADERS = ("lang", "task", "id", "retries")
REQUIRED_PROPERTIES = ("delivery_info", "delivery_tag", "body_encoding")


def envelope_refusal(raw: bytes | str, queue: str | None = None, *, now: datetime | None = None) -> str | None:
    """Why the transport's raw message is no task of refbot's (None: it is one): what the worker logs, once, before
    it drops the message."""
    try:
        check_envelope(raw, queue, now=now)
    except BadMessage as error:
        return str(error)
    return None


def check_envelope(raw: bytes | str, queue: str | None = None, *, now: datetime | None = None) -> TaskMessage:
    """The task the raw message carries; BadMessage when it is not exactly what `refbot run --enqueue` sends (or a
    worker's retry of it), or (``queue``: the queue it was taken from) when it names another queue than that (the task
    reads its queue from the message). ``now``: the time it is taken at (UTC); its ETA, if any, is then at most
    :data:`MAX_DELAY_S` later. A message that expires is refused: refbot's tasks never do."""
    if len(raw) > MAX_BYTES:
        raise BadMessage(f"it is {len(raw)} bytes, more than a task takes ({MAX_BYTES})")
    try:
        envelope = json.loads(raw)
    except (ValueError, UnicodeDecodeError):
        raise BadMessage("it is not JSON") from None
    if not isinstance(envelope, dict):
        raise BadMessage("it is not a message (a JSON object)")
    _check_fields(envelope, ENVELOPE, "the message", required=tuple(ENVELOPE)[:5])
    if envelope["content-type"] != "application/json" or envelope["content-encoding"] != "utf-8":
        raise BadMessage(f"its content is {_shown(envelope['content-type'])}, not JSON")
    headers, properties = envelope["headers"], envelope["properties"]
    _check_fields(headers, HEADERS, "its headers", required=REQUIRED_HEADERS)
    _check_fields(properties, PROPERTIES, "its properties", required=REQUIRED_PROPERTIES)
    if headers["lang"] != "py" or headers["task"] != TASK:
        raise BadMessage(f"its task is {_shown(headers['task'])}, not {TASK}")
    if headers["retries"] < 0 or headers.get("replaced_task_nesting", 0) != 0:
        raise BadMessage("its retries or nesting are not a task's")
    if headers.get("expires") is not None:
        raise BadMessage("it expires, which no task of refbot's does")
    if headers.get("eta") is not None and now is not None:
        eta = datetime.fromisoformat(headers["eta"])
        eta = eta if eta.tzinfo is not None else eta.replace(tzinfo=timezone.utc)
        if eta > now + timedelta(seconds=MAX_DELAY_S + CLOCK_SKEW_S):
            raise BadMessage(f"its ETA {_shown(headers['eta'])} is later than any retry of refbot's "
                             f"(at most {MAX_DELAY_S:g} s after it is taken)")
    routing = properties["delivery_info"].get("routing_key")
    if queue is not None and routing != queue:
        raise BadMessage(f"it names queue {_shown(routing)} but was on queue {queue}")
    if properties["body_encoding"] != "base64":
        raise BadMessage("its body is not base64")
    try:
        body = json.loads(base64.b64decode(envelope["body"], validate=True))
    except (ValueError, binascii.Error, UnicodeDecodeError):
        raise BadMessage("its body is not base64-encoded JSON") from None
    if not isinstance(body, list) or len(body) != 3 or not isinstance(body[0], list) \
            or not isinstance(body[1], dict) or not isinstance(body[2], dict):
        raise BadMessage("its body is not a task's arguments")
    if any(value is not None for value in body[2].values()) or \
            set(body[2]) - {"callbacks", "errbacks", "chain", "chord"}:
        raise BadMessage("it asks for other tasks after it (callbacks, a chain or a chord)")
    return task_message(body[0], body[1])


def _check_fields(fields: dict[str, Any], kinds: Mapping[str, Any], what: str, *, required: Sequence[str]) -> None:
    unknown = sorted(set(fields) - set(kinds))
    if unknown:
        raise BadMessage(f"{what} include {_shown(unknown[0])}, which a task's do not")
    missing = [name for name in required if name not in fields]
    if missing:
        raise BadMessage(f"{what} lack {missing[0]}")
    for name, value in fields.items():
        if not _is(value, kinds[name]):
            raise BadMessage(f"{name} in {what} is {_shown(value)}, not what a task's is")


def _is(value: Any, kind: Any) -> bool:
    if isinstance(kind, tuple):
        return any(_is(value, one) for one in kind)
    if kind is None:
        return value is None
    if kind is int:
        return isinstance(value, int) and not isinstance(value, bool)
    if kind in (str, bool, dict):
        return isinstance(value, kind)
    if kind == "time":
        try:
            return isinstance(value, str) and len(value) < 64 and bool(datetime.fromisoformat(value))
        except ValueError:
            return False
    if kind == "timelimit":
        return isinstance(value, list) and len(value) == 2 and all(
            v is None or (isinstance(v, (int, float)) and not isinstance(v, bool) and v > 0) for v in value)
    if kind == "empty":
        return value in ([], {})
    if kind == "delivery":
        return isinstance(value, dict) and set(value) <= {"exchange", "routing_key", "redelivered"} and all(
            isinstance(v, bool if k == "redelivered" else str) for k, v in value.items())
    raise AssertionError(kind)


def _shown(value: Any) -> str:
    text = repr(value)
    return text if len(text) <= 60 else text[:57] + "..."
