"""Where a ledger lives (issue 58): ``ledger_identity.home``, a fingerprint of the database the identity was made
for (a SQLite file's inode; a server's own name for the database), and ``home_text``, that place in words. A copy of
the ledger (``cp runs.sqlite elsewhere/``) carries the identity, after which its runs' queues and workers are named
on the broker, but not the home: a worker or an enqueue on the copy is refused instead of taking the original's
tasks. An existing ledger's home is recorded the first time its identity is read.

Revision ID: 0007
Revises: 0006
Create Date: 2026-12-02
"""

from __future__ import annotations

import sqlalchemy as sa
from alembic import op

revision = "0007"
down_revision = "0006"
branch_labels = None
depends_on = None


def upgrade() -> None:
    with op.batch_alter_table("ledger_identity") as table:
        table.add_column(sa.Column("home", sa.String(200), nullable=False, server_default=""))
        table.add_column(sa.Column("home_text", sa.Text(), nullable=False, server_default=""))


def downgrade() -> None:
    with op.batch_alter_table("ledger_identity") as table:
        table.drop_column("home_text")
        table.drop_column("home")
