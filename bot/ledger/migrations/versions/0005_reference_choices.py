"""What a curator chose of an approved reference (issue 46): ``decisions.dropped``, the optional snaks left out
(``P1476,P1683``: the title, the quotation), and ``decisions.paragraph``, another supporting paragraph whose
reference is written instead of the one proposed (``D:J``, ``bot.review.alternatives``).

Revision ID: 0005
Revises: 0004
Create Date: 2026-11-28
"""

from __future__ import annotations

import sqlalchemy as sa
from alembic import op

revision = "0005"
down_revision = "0004"
branch_labels = None
depends_on = None


def upgrade() -> None:
    with op.batch_alter_table("decisions") as table:
        table.add_column(sa.Column("dropped", sa.String(60), nullable=False, server_default=""))
        table.add_column(sa.Column("paragraph", sa.String(40), nullable=False, server_default=""))


def downgrade() -> None:
    with op.batch_alter_table("decisions") as table:
        table.drop_column("paragraph")
        table.drop_column("dropped")
