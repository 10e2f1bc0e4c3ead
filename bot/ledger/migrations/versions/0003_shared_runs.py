"""What runs that workers share need besides their queue (issue 44): the ledger's own identity (a random name that
every process reaching this database reads alike, whatever host name it uses: the queues and Redis keys of its runs
are named after it); the run's shared settings as the enqueuer had them (those that change an outcome, which a
worker compares with its own to name what differs, and those that shape the worklist, which workers take from the
run); the error that ended one of its tasks for good; and when each item's task was last sent, so that enqueueing a
worklist again (or twice at once) sends an item only when no task of it is pending.

Revision ID: 0003
Revises: 0002
Create Date: 2026-11-27
"""

from __future__ import annotations

import uuid

import sqlalchemy as sa
from alembic import op

revision = "0003"
down_revision = "0002"
branch_labels = None
depends_on = None


def upgrade() -> None:
    identity = op.create_table("ledger_identity", sa.Column("identity", sa.String(32), primary_key=True))
    op.bulk_insert(identity, [{"identity": uuid.uuid4().hex[:16]}])
    with op.batch_alter_table("runs") as runs:
        runs.add_column(sa.Column("shared", sa.Text, nullable=False, server_default=""))
        runs.add_column(sa.Column("error", sa.Text, nullable=False, server_default=""))
    with op.batch_alter_table("queued") as queued:
        queued.add_column(sa.Column("sent", sa.String(40)))


def downgrade() -> None:
    with op.batch_alter_table("queued") as queued:
        queued.drop_column("sent")
    with op.batch_alter_table("runs") as runs:
        runs.drop_column("error")
        runs.drop_column("shared")
    op.drop_table("ledger_identity")
