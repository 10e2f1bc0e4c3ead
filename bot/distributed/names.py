"""What refbot's keys and queues in Redis are called. Pure.

Every key begins with the tool's prefix (``[queue] prefix``; by default the ledger's database name), so that a Redis
many tools share — Toolforge's, where each tool is asked to prefix its keys with a secret — holds each tool's keys
apart. A run's queue is named after its ledger's identity (``RunLedger.identity``, kept in the ledger itself) and the
run: two runs, of one ledger or of two, never share a queue, and a worker of one ledger never takes another's tasks.
"""

from __future__ import annotations

import re
from pathlib import PurePath

from sqlalchemy.engine import make_url
from sqlalchemy.exc import ArgumentError

from bot.options import Options

QUEUE = "refbot"


def tool_prefix(options: Options) -> str:
    """``[queue] prefix``, or the ledger's database name (``s12345__refbot``; a SQLite file's name without its
    suffix)."""
    if options.queue.prefix:
        return options.queue.prefix
    target = str(options.run.ledger)
    name = ""
    if "://" in target:
        try:
            url = make_url(target)
            name = url.database or ""
            if url.get_backend_name() == "sqlite":
                name = PurePath(name).stem
        except (ArgumentError, ValueError):  # (a malformed URL: opening the ledger says so, naming the option)
            name = ""
    else:
        name = PurePath(target).stem
    return re.sub(r"[^A-Za-z0-9_.-]", "_", name)[:100] or QUEUE


def key_prefix(options: Options) -> str:
    """What every Redis key refbot writes begins with."""
    return f"{tool_prefix(options)}:"


def queue_name(ledger: str, run_id: int) -> str:
    """The queue of run ``run_id`` of the ledger whose identity is ``ledger`` (under the tool's prefix)."""
    return f"{QUEUE}.{ledger}.run-{run_id}"


def idle_queue(ledger: str) -> str:
    """A queue no task is sent to: what a worker listens on while its ledger has no run for it."""
    return f"{QUEUE}.{ledger}.idle"


def run_of_queue(ledger: str, queue: str) -> int | None:
    """The run a queue of this ledger is for (None: not one of its runs' queues)."""
    match = re.fullmatch(rf"{re.escape(QUEUE)}\.{re.escape(ledger)}\.run-([1-9][0-9]{{0,17}})", queue)
    return int(match.group(1)) if match else None
