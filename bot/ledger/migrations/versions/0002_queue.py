"""A run's items as put on the queue for workers (``refbot run --enqueue``): each once, in worklist order, with
when it was enqueued and when a worker finished it; the settings a run's workers must share (their digest); and an
index for what a worker reads of its items (their statements' recent checks).

Revision ID: 0002
Revises: 0001
Create Date: 2026-11-26
"""

from __future__ import annotations

import sqlalchemy as sa
from alembic import op
from sqlalchemy.dialects import mysql

revision = "0002"
down_revision = "0001"
branch_labels = None
depends_on = None

Id = sa.BigInteger().with_variant(sa.Integer(), "sqlite")


def upgrade() -> None:
    op.create_table(
        "queued",
        sa.Column("id", Id, primary_key=True, autoincrement=True),
        sa.Column("run_id", Id, sa.ForeignKey("runs.id"), nullable=False),
        sa.Column("item", sa.String(40).with_variant(
            mysql.VARCHAR(40, charset="utf8mb4", collation="utf8mb4_bin"), "mysql", "mariadb"), nullable=False),
        sa.Column("enqueued", sa.String(40), nullable=False),
        sa.Column("finished", sa.String(40)),
        sa.Column("deliveries", sa.Integer, nullable=False, server_default="0"),
        sa.UniqueConstraint("run_id", "item", name="queued_once_per_run"),
    )
    op.create_index("queued_unfinished", "queued", ["run_id", "finished"])  # is any item of the run left?
    with op.batch_alter_table("runs") as runs:
        runs.add_column(sa.Column("settings", sa.String(64), nullable=False, server_default=""))
        runs.add_column(sa.Column("properties", sa.Text, nullable=False, server_default=""))
    op.create_index("checks_by_item_checked", "checks", ["item", "checked"])  # a worker's items' recent checks


def downgrade() -> None:
    op.drop_index("checks_by_item_checked", table_name="checks")
    op.drop_index("queued_unfinished", table_name="queued")
    with op.batch_alter_table("runs") as runs:
        runs.drop_column("properties")
        runs.drop_column("settings")
    op.drop_table("queued")
