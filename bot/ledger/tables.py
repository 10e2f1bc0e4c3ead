"""The ledger's tables, for every database it runs on (SQLAlchemy Core): runs and the statements they finished, the
trace elements a run's trace is put together from, and the curators' decisions and the bot's writes.

Each statement is recorded once per run by a uniqueness constraint (``checks``: run and GUID), whatever process
records it; rows are ordered by their own ``id`` (the order they were recorded in). The shape is made and changed
only by the migrations (``bot/ledger/migrations``): these definitions are what the queries are written against, and
a test checks that they match what the migrations make.
"""

from __future__ import annotations

from sqlalchemy import (BigInteger, Boolean, Column, Double, Float, ForeignKey, Index, Integer, MetaData, String,
                        Table, Text, UniqueConstraint, false)
from sqlalchemy.dialects import mysql

metadata = MetaData()

# SQLite's rowid is the only autoincrementing key it has: BigInteger there is INTEGER.
Id = BigInteger().with_variant(Integer(), "sqlite")
# A trace element: an item's with its labels and claims, or a statement's with its documents (MariaDB's TEXT holds
# 64 KiB).
Element = Text().with_variant(mysql.LONGTEXT(), "mysql", "mariadb")
Stamp = String(40)  # ISO 8601 with the zone, as bot.clock.stamp writes it


def Key(length: int) -> String:  # noqa: N802 (a column type, named as one)
    """Text compared byte for byte: MariaDB's default collation would take "Q1$a" and "Q1$A" for the same GUID."""
    return String(length).with_variant(mysql.VARCHAR(length, charset="utf8mb4", collation="utf8mb4_bin"),
                                       "mysql", "mariadb")


GUID = Key(200)  # "Q42$5BB8…" and lexeme/property forms; well under what an index may hold
ItemId = Key(40)

runs = Table(
    "runs", metadata,
    Column("id", Id, primary_key=True, autoincrement=True),
    Column("key", Key(100), nullable=False),
    Column("started", Stamp, nullable=False),
    Column("finished", Stamp),
    Column("description", Text, nullable=False, server_default=""),
    Column("seconds", Float, nullable=False, server_default="0"),
    # A run its workers check (refbot run --enqueue): the digest of the settings they must share, and the
    # properties of its worklist (comma-separated; "" all that need a reference).
    Column("settings", String(64), nullable=False, server_default=""),
    Column("properties", Text, nullable=False, server_default=""),
    # The run's shared settings as enqueued (JSON: those that change an outcome, those that shape the worklist), and
    # the error that ended one of its tasks for good ("" none).
    Column("shared", Text, nullable=False, server_default=""),
    Column("error", Text, nullable=False, server_default=""),
    Index("runs_by_key", "key", "finished"),
)

items = Table(
    "items", metadata,
    Column("id", Id, primary_key=True, autoincrement=True),
    Column("run_id", Id, ForeignKey("runs.id"), nullable=False),
    Column("item", ItemId, nullable=False),
    Column("element", Element, nullable=False),
    UniqueConstraint("run_id", "item", name="items_once_per_run"),
)

checks = Table(
    "checks", metadata,
    Column("id", Id, primary_key=True, autoincrement=True),
    Column("run_id", Id, ForeignKey("runs.id"), nullable=False),
    Column("guid", GUID, nullable=False),
    Column("item", ItemId, nullable=False),
    Column("outcome", String(40), nullable=False),
    Column("checked", Stamp, nullable=False),
    Column("element", Element, nullable=False),
    UniqueConstraint("run_id", "guid", name="checks_once_per_run"),
    Index("checks_by_guid", "guid", "checked"),
    Index("checks_by_item", "run_id", "item"),
    Index("checks_by_item_checked", "item", "checked"),
)

run_elements = Table(
    "run_elements", metadata,
    Column("run_id", Id, ForeignKey("runs.id"), primary_key=True, autoincrement=False),
    Column("element", Element, nullable=False),
)

decisions = Table(
    "decisions", metadata,
    Column("id", Id, primary_key=True, autoincrement=True),
    Column("run_id", Id, ForeignKey("runs.id"), nullable=False),
    Column("guid", GUID, nullable=False),
    Column("decision", String(20), nullable=False),
    Column("curator", String(255), nullable=False),
    Column("decided", Stamp, nullable=False),
    Column("note", Text, nullable=False, server_default=""),
    # The optional snaks the curator left out of the approved reference: property ids, comma-separated.
    Column("dropped", String(60), nullable=False, server_default=""),
    # Another supporting paragraph whose reference the curator approved instead ("D:J"; "" the one proposed).
    Column("paragraph", String(40), nullable=False, server_default=""),
    # The curator is the wiki account of that name, as OAuth confirmed it (the review service); False: a name typed.
    Column("confirmed", Boolean, nullable=False, server_default=false()),
    Index("decisions_by_statement", "run_id", "guid"),
)

writes = Table(
    "writes", metadata,
    Column("id", Id, primary_key=True, autoincrement=True),
    Column("run_id", Id, ForeignKey("runs.id"), nullable=False),
    Column("guid", GUID, nullable=False),
    Column("state", String(20), nullable=False),
    Column("revision", BigInteger),
    Column("reason", Text, nullable=False, server_default=""),
    Column("at", Stamp, nullable=False),
    Column("site", String(255), nullable=False, server_default=""),
    # The hash the wiki gave the reference written ("": none recorded, as before migration 0009).
    Column("reference", String(64), nullable=False, server_default=""),
    Index("writes_by_statement", "guid", "state"),
)

queued = Table(
    "queued", metadata,
    Column("id", Id, primary_key=True, autoincrement=True),
    Column("run_id", Id, ForeignKey("runs.id"), nullable=False),
    Column("item", ItemId, nullable=False),
    Column("enqueued", Stamp, nullable=False),
    Column("finished", Stamp),
    Column("deliveries", Integer, nullable=False, server_default="0"),  # tasks that started on the item
    Column("sent", Stamp),  # when its task was last put on the queue (None: never, or its task failed for good)
    Column("taken_by", String(200)),  # the worker that has it in hand (None: none; left set when that one died)
    Column("stops", Integer, nullable=False, server_default="0"),  # workers that ended while they had it in hand
    UniqueConstraint("run_id", "item", name="queued_once_per_run"),
    Index("queued_unfinished", "run_id", "finished"),
)

# The ledger's own name, made once with the ledger (one row): the queues and Redis keys of its runs are named after
# it, alike for every process that reaches this database, whatever host name it uses.
ledger_identity = Table(
    "ledger_identity", metadata,
    Column("identity", String(32), primary_key=True),
    # Where the identity was made for (bot.ledger.database.home): a copy of the ledger carries the identity, not this.
    Column("home", String(200), nullable=False, server_default=""),
    Column("home_text", Text, nullable=False, server_default=""),
    # The marks of its lease on the broker (bot.distributed.lease): the one the broker names, and the one replacing it.
    Column("lease", String(64), nullable=False, server_default=""),
    Column("lease_next", String(64), nullable=False, server_default=""),
)

# The review queue's cards (bot.review.shelf): one row per statement of a run, read once from its trace element, with
# what its card shows (JSON; "" when it shows none: nothing proposed, no evidence against), so that a queue page and
# a decision read one card and count rows instead of putting the whole trace together. A card's place is its item's
# (items.id), then its statement's (checks.id, the element it was read from), as in the trace; the index holds every
# column a filter or a count reads (in the trace's order, and by property).
cards = Table(
    "cards", metadata,
    Column("id", Id, primary_key=True, autoincrement=True),
    Column("run_id", Id, ForeignKey("runs.id"), nullable=False),
    Column("guid", GUID, nullable=False),
    Column("item_order", BigInteger, nullable=False),
    Column("check_order", BigInteger, nullable=False),
    Column("property", Key(20), nullable=False),
    Column("property_label", String(255), nullable=False, server_default=""),
    Column("kind", String(20), nullable=False, server_default=""),  # web, stated-in, "" (nothing proposed)
    Column("against", Integer, nullable=False, server_default="0"),  # 1: evidence against, or contradicted
    Column("card", Element, nullable=False),
    UniqueConstraint("run_id", "guid", name="cards_once_per_run"),
    Index("cards_in_order", "run_id", "item_order", "check_order", "property", "kind", "against", "guid"),
    Index("cards_by_property", "run_id", "property", "kind", "against", "property_label"),
)

# The runs whose every statement has its row in cards: finished, and read to the end (nothing left to look for).
card_runs = Table(
    "card_runs", metadata,
    Column("run_id", Id, ForeignKey("runs.id"), primary_key=True, autoincrement=False),
)

# The review service's sessions (bot.review.sessions): the cookie holds a random id, a row its data (JSON) under the
# id's SHA-256, with when the session began and was last used (seconds since the epoch).
service_sessions = Table(
    "service_sessions", metadata,
    Column("id", Key(64), primary_key=True),
    Column("data", Text, nullable=False),
    Column("created", Double, nullable=False),
    Column("seen", Double, nullable=False),
    Column("expires", Double, nullable=False),  # when it ends unless used again (pending sign-ins end sooner)
    Index("service_sessions_by_expiry", "expires"),
)
