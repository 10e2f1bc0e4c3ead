"""The reference refbot wrote, as the wiki named it (issue 74): ``writes.reference``, the hash Wikibase answered a
``wbsetreference`` with. Wikibase hashes a reference's content, so the hash finds exactly the reference refbot wrote
and nothing else: a reference a person changed since (another title, quotation or date beside the same URL) has
another hash, and an undo leaves it alone. A write recorded before this migration has none (""): its undo takes a
reference off only when it is snak for snak what refbot wrote.

Revision ID: 0009
Revises: 0008
Create Date: 2026-12-07
"""

from __future__ import annotations

import sqlalchemy as sa
from alembic import op

revision = "0009"
down_revision = "0008"
branch_labels = None
depends_on = None


def upgrade() -> None:
    with op.batch_alter_table("writes") as table:
        table.add_column(sa.Column("reference", sa.String(64), nullable=False, server_default=""))


def downgrade() -> None:
    with op.batch_alter_table("writes") as table:
        table.drop_column("reference")
