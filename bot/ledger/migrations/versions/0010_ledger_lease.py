"""The ledger's side of its lease on the broker (issue 74): ``ledger_identity.lease``, the mark the broker's lease
names now, and ``lease_next``, the mark about to replace it (written before the broker is changed, so that a process
stopped between the two writes leaves a ledger the broker still knows). A copy of the ledger (a volume snapshot, a
PVC clone, a dump restored) carries both, but the original's live processes change them every few seconds: within
moments the copy's marks are neither, and the broker refuses it (``bot.distributed.lease``).

Revision ID: 0010
Revises: 0009
Create Date: 2026-12-07
"""

from __future__ import annotations

import sqlalchemy as sa
from alembic import op

revision = "0010"
down_revision = "0009"
branch_labels = None
depends_on = None


def upgrade() -> None:
    with op.batch_alter_table("ledger_identity") as table:
        table.add_column(sa.Column("lease", sa.String(64), nullable=False, server_default=""))
        table.add_column(sa.Column("lease_next", sa.String(64), nullable=False, server_default=""))


def downgrade() -> None:
    with op.batch_alter_table("ledger_identity") as table:
        table.drop_column("lease_next")
        table.drop_column("lease")
