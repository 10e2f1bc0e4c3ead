"""The ledger: runs, the items and statements they finished, the trace's run element, curators' decisions and the
bot's writes — each row with its own id (the order it was recorded in), each statement once per run.

A SQLite ledger written before migrations existed (no ``alembic_version``; ``checks`` keyed by run and GUID, rows
ordered by SQLite's rowid, ``runs`` perhaps without ``seconds``) is converted in place: every row kept, its rowid
becoming its id, so the order and the decisions' versions stay as they were.

Revision ID: 0001
Revises:
Create Date: 2026-11-26
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import sqlalchemy as sa
from alembic import op
from sqlalchemy.dialects import mysql

revision = "0001"
down_revision = None
branch_labels = None
depends_on = None

Id = sa.BigInteger().with_variant(sa.Integer(), "sqlite")
Element = sa.Text().with_variant(mysql.LONGTEXT(), "mysql", "mariadb")
Stamp = sa.String(40)


def Key(length: int) -> sa.String:  # noqa: N802 (a column type)
    """Compared byte for byte (MariaDB's default collation ignores case)."""
    return sa.String(length).with_variant(mysql.VARCHAR(length, charset="utf8mb4", collation="utf8mb4_bin"),
                                          "mysql", "mariadb")


GUID = Key(200)
ItemId = Key(40)


def _id() -> sa.Column:
    return sa.Column("id", Id, primary_key=True, autoincrement=True)


def _run_id() -> sa.Column:
    return sa.Column("run_id", Id, sa.ForeignKey("runs.id"), nullable=False)


TABLES: dict[str, Callable[[], list[Any]]] = {
    "items": lambda: [_id(), _run_id(), sa.Column("item", ItemId, nullable=False),
                      sa.Column("element", Element, nullable=False),
                      sa.UniqueConstraint("run_id", "item", name="items_once_per_run")],
    "checks": lambda: [_id(), _run_id(), sa.Column("guid", GUID, nullable=False),
                       sa.Column("item", ItemId, nullable=False), sa.Column("outcome", sa.String(40), nullable=False),
                       sa.Column("checked", Stamp, nullable=False), sa.Column("element", Element, nullable=False),
                       sa.UniqueConstraint("run_id", "guid", name="checks_once_per_run")],
    "decisions": lambda: [_id(), _run_id(), sa.Column("guid", GUID, nullable=False),
                          sa.Column("decision", sa.String(20), nullable=False),
                          sa.Column("curator", sa.String(255), nullable=False),
                          sa.Column("decided", Stamp, nullable=False),
                          sa.Column("note", sa.Text, nullable=False, server_default="")],
    "writes": lambda: [_id(), _run_id(), sa.Column("guid", GUID, nullable=False),
                       sa.Column("state", sa.String(20), nullable=False), sa.Column("revision", sa.BigInteger),
                       sa.Column("reason", sa.Text, nullable=False, server_default=""),
                       sa.Column("at", Stamp, nullable=False),
                       sa.Column("site", sa.String(255), nullable=False, server_default="")],
}
INDEXES = {
    "checks": [("checks_by_guid", ["guid", "checked"]), ("checks_by_item", ["run_id", "item"])],
    "decisions": [("decisions_by_statement", ["run_id", "guid"])],
    "writes": [("writes_by_statement", ["guid", "state"])],
}
# The columns each table had before migrations, copied as they are (rowid → id).
LEGACY = {"items": ["run_id", "item", "element"],
          "checks": ["run_id", "guid", "item", "outcome", "checked", "element"],
          "decisions": ["run_id", "guid", "decision", "curator", "decided", "note"],
          "writes": ["run_id", "guid", "state", "revision", "reason", "at", "site"]}


def upgrade() -> None:
    inspector = sa.inspect(op.get_bind())
    existing = set(inspector.get_table_names())
    if "runs" not in existing:
        op.create_table("runs", _id(), sa.Column("key", Key(100), nullable=False),
                        sa.Column("started", Stamp, nullable=False), sa.Column("finished", Stamp),
                        sa.Column("description", sa.Text, nullable=False, server_default=""),
                        sa.Column("seconds", sa.Float, nullable=False, server_default="0"))
    elif "seconds" not in {column["name"] for column in inspector.get_columns("runs")}:
        op.add_column("runs", sa.Column("seconds", sa.Float, nullable=False, server_default="0"))
    op.create_index("runs_by_key", "runs", ["key", "finished"])
    if "run_elements" not in existing:
        op.create_table("run_elements", sa.Column("run_id", Id, sa.ForeignKey("runs.id"), primary_key=True,
                                                  autoincrement=False),
                        sa.Column("element", Element, nullable=False))
    for name, columns in TABLES.items():
        legacy = name in existing
        if legacy:  # only a SQLite ledger from before migrations: its rowid becomes the id
            for reflected in inspector.get_indexes(name):
                if reflected["name"]:
                    op.drop_index(reflected["name"], table_name=name)
            op.rename_table(name, f"{name}_legacy")
        op.create_table(name, *columns())
        if legacy:
            listed = ", ".join(LEGACY[name])
            op.execute(f"INSERT INTO {name} (id, {listed}) SELECT rowid, {listed} FROM {name}_legacy ORDER BY rowid")
            op.drop_table(f"{name}_legacy")
        for index, on in INDEXES.get(name, []):
            op.create_index(index, name, on)


def downgrade() -> None:
    for name in ("writes", "decisions", "checks", "items", "run_elements", "runs"):
        op.drop_table(name)
