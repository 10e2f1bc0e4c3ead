"""Which ledger holds its identity on the broker now: a lease, so that two live ledgers never share one identity.

A ledger's identity names its runs' queues and workers on the broker (``bot.distributed.names``). A copy of the
ledger carries the identity, and nothing in a file or a database tells the copy from the original once it is on
another volume (a snapshot, a PVC clone, a VM image: the same inode) or restored on another server (the same port and
database name) — but the two diverge from the moment they are two. So the ledger's live processes hold a lease in
Redis (``…ledger.IDENTITY.lease``: a random mark, where the ledger that holds it is, and when the mark last changed)
and keep the same mark in the ledger (``ledger_identity.lease``). Every :data:`ROTATE_S` seconds one of them draws a
new mark and writes it to both: first to the ledger as the coming mark (``lease_next``), then to Redis, only where
Redis still names the old one (compare and set), then to the ledger as the mark. A process whose ledger holds the
mark Redis names, or the one coming, belongs to the holder; any other is refused, naming both places. A copy taken
while the original runs holds a mark the original replaces within :data:`ROTATE_S` seconds.

A lease not renewed for :data:`LEASE_S` seconds is free, and a worker that stops last deletes it: a restore after
the original stopped takes the lease over. Workers renew it at each heartbeat and before each task; `refbot run
--enqueue` and `--status` before they use the queue. Times are Redis's own (``TIME``), alike for every machine.
"""

from __future__ import annotations

import json
import secrets
import socket
import time
from pathlib import Path
from typing import Any


from bot.distributed.names import QUEUE
from bot.distributed.presence import at_broker, printable
from bot.errors import InputError
from bot.ledger.ledger import RunLedger
from bot.options import without_password

LEASE_S = 60  # a lease not renewed for this long is free
ROTATE_S = 10.0  # how often the holder's mark changes
_ROTATING_S = 5  # one process of the holder draws the new mark at a time: its claim lasts at most this long
_LOOKS, _AGAIN_S = 3, 0.3  # a ledger whose marks are not the lease's is looked at this often, so long apart
# Set the lease to ARGV[2] (for ARGV[3] seconds) only where it still names the mark ARGV[1] (compare and set).
_SWAP = """
local raw = redis.call('GET', KEYS[1])
if not raw or cjson.decode(raw)['mark'] ~= ARGV[1] then return 0 end
redis.call('SET', KEYS[1], ARGV[2], 'EX', tonumber(ARGV[3]))
return 1
"""
# Delete the lease only where it still names the mark ARGV[1].
_FREE = """
local raw = redis.call('GET', KEYS[1])
if not raw or cjson.decode(raw)['mark'] ~= ARGV[1] then return 0 end
redis.call('DEL', KEYS[1])
return 1
"""


def lease_key(prefix: str, identity: str) -> str:
    """The lease of the ledger whose identity is ``identity`` (``prefix``: the tool's, ``names.key_prefix``)."""
    return f"{prefix}{QUEUE}.ledger.{identity}.lease"


def place_of(ledger: RunLedger) -> str:
    """Where the ledger is (a file, on its host; a database, and the host that uses it), as a refusal names it."""
    if isinstance(ledger.path, Path):
        return ledger.place
    return f"{without_password(ledger.place)} (used from {socket.gethostname()})"


def _now(client: Any) -> float:
    seconds, microseconds = client.time()
    return float(seconds) + microseconds / 1e6


def hold(client: Any, prefix: str, ledger: RunLedger, attempt: int = 0) -> str:
    """Take or renew the lease of ``ledger``'s identity on the broker ``client`` (redis-py): "taken" (it was free),
    "renewed" or "rotated" (the mark changed). InputError naming both places when another ledger of the same identity
    holds it; redis.RedisError when Redis does not answer."""
    identity, key = ledger.identity, lease_key(prefix, ledger.identity)
    here = place_of(ledger)
    for _ in range(3):
        marks = ledger.lease_marks()
        raw = client.get(key)
        lease, now = _read(raw), _now(client)
        if lease is not None:
            break
        # Free: nobody's processes renewed it for LEASE_S seconds, none ever held it, or what is there is no lease.
        fresh = secrets.token_hex(16)
        ledger.mark_lease(coming=fresh)
        if client.set(key, _lease(fresh, here, now), ex=LEASE_S, **({"nx": True} if raw is None else {})):
            ledger.mark_lease(current=fresh)
            return "taken"
    else:  # (taken by another process each time this one found it free: Redis is being written by something else)
        raise InputError(f"the lease of the ledger {here} on the queue keeps changing as it is taken",
                         hint="check that nothing else writes the queue's keys ([queue] prefix)")
    if lease["mark"] not in [mark for mark in marks if mark]:
        if attempt < _LOOKS - 1:  # (another process of this ledger may be between its two writes: look again)
            time.sleep(_AGAIN_S)
            return hold(client, prefix, ledger, attempt + 1)
        raise InputError(
            f"the ledger {here} has the identity {identity} of the ledger at {lease['place']}, which holds it on the "
            f"queue now (its processes renewed it {max(0, int(now - lease['at']))} s ago): two ledgers of one "
            "identity would take each other's tasks",
            hint="if this ledger is a copy (a snapshot, a clone, a dump restored), give it an identity of its own: "
                 "`refbot run --new-identity`; if the other is the copy, stop its workers and do that there; a ledger "
                 f"restored after the original stopped takes the lease over {LEASE_S} s after the original's last "
                 "process")
    if marks[0] != lease["mark"]:  # the mark coming landed, and the process that sent it stopped before recording it
        ledger.mark_lease(current=lease["mark"])
    if now - lease["at"] < ROTATE_S or not client.set(key + ".rotating", "1", nx=True, ex=_ROTATING_S):
        client.expire(key, LEASE_S)
        return "renewed"
    try:
        fresh = secrets.token_hex(16)
        ledger.mark_lease(coming=fresh)
        if not client.eval(_SWAP, 1, key, lease["mark"], _lease(fresh, here, now), LEASE_S):
            return "renewed"  # (changed meanwhile by a process this one could not tell: it is asked again next time)
        ledger.mark_lease(current=fresh)
        return "rotated"
    finally:
        client.delete(key + ".rotating")


def release(client: Any, prefix: str, ledger: RunLedger) -> bool:
    """Free the lease, if this ledger holds it: the last of its workers stopping (a restore may take it over at
    once). Whether it was freed."""
    key = lease_key(prefix, ledger.identity)
    lease = _read(client.get(key))
    if lease is None or lease["mark"] not in [mark for mark in ledger.lease_marks() if mark]:
        return False
    return bool(client.eval(_FREE, 1, key, lease["mark"]))


def hold_at(broker: str, prefix: str, ledger: RunLedger) -> str:
    """:func:`hold` over a new connection to ``broker``; ServiceError naming the broker when Redis does not
    answer."""
    return at_broker(broker, lambda client: hold(client, prefix, ledger), timeout_s=10)


def _lease(mark: str, place: str, now: float) -> str:
    return json.dumps({"mark": mark, "place": place[:500], "at": now})


def _read(raw: Any) -> dict[str, Any] | None:
    """The lease as Redis keeps it; None when there is none (or what is there is no lease: taken as free)."""
    if raw is None:
        return None
    try:
        lease = json.loads(raw)
        return {"mark": str(lease["mark"]), "place": printable(str(lease["place"]))[:500], "at": float(lease["at"])}
    except (TypeError, ValueError, KeyError):
        return None
