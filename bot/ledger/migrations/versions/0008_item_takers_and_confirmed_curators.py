"""Which worker has an item of a shared run in hand (issue 58): ``queued.taken_by``, set when a worker starts on the
item and cleared when its task ends in refbot's hands (finished, to be tried again, failed); and ``queued.stops``,
how many workers ended while they had it — their process gone mid-item (a crash, a kill, the machine). The next
worker to start on such an item reports it as refbot's error, and an item three workers ended on fails for good
instead of taking down the next. And ``decisions.confirmed``: the decision's curator is the wiki account of that name,
as OAuth confirmed it (the review service); a name typed into `refbot review` is a name only, and no wiki account's
block is read for it.

Revision ID: 0008
Revises: 0007
Create Date: 2026-12-02
"""

from __future__ import annotations

import sqlalchemy as sa
from alembic import op

revision = "0008"
down_revision = "0007"
branch_labels = None
depends_on = None


def upgrade() -> None:
    with op.batch_alter_table("queued") as table:
        table.add_column(sa.Column("taken_by", sa.String(200), nullable=True))
        table.add_column(sa.Column("stops", sa.Integer(), nullable=False, server_default="0"))
    with op.batch_alter_table("decisions") as table:
        table.add_column(sa.Column("confirmed", sa.Boolean(), nullable=False, server_default=sa.false()))


def downgrade() -> None:
    with op.batch_alter_table("decisions") as table:
        table.drop_column("confirmed")
    with op.batch_alter_table("queued") as table:
        table.drop_column("stops")
        table.drop_column("taken_by")
