"""The review queue's cards (issue 44): one row per statement of a run with what its card shows, read once from its
trace element, so that a queue page and a decision read one card and a few counts instead of the whole trace; and
the runs whose cards are complete. A run kept before this migration gets its cards the first time it is reviewed.

Revision ID: 0004
Revises: 0003
Create Date: 2026-11-28
"""

from __future__ import annotations

import sqlalchemy as sa
from alembic import op
from sqlalchemy.dialects import mysql

revision = "0004"
down_revision = "0003"
branch_labels = None
depends_on = None

Id = sa.BigInteger().with_variant(sa.Integer(), "sqlite")


def _key(length: int) -> sa.String:
    return sa.String(length).with_variant(mysql.VARCHAR(length, charset="utf8mb4", collation="utf8mb4_bin"),
                                          "mysql", "mariadb")


def upgrade() -> None:
    op.create_table(
        "cards",
        sa.Column("id", Id, primary_key=True, autoincrement=True),
        sa.Column("run_id", Id, sa.ForeignKey("runs.id"), nullable=False),
        sa.Column("guid", _key(200), nullable=False),
        sa.Column("item_order", sa.BigInteger, nullable=False),
        sa.Column("check_order", sa.BigInteger, nullable=False),
        sa.Column("property", _key(20), nullable=False),
        sa.Column("property_label", sa.String(255), nullable=False, server_default=""),
        sa.Column("kind", sa.String(20), nullable=False, server_default=""),
        sa.Column("against", sa.Integer, nullable=False, server_default="0"),
        sa.Column("card", sa.Text().with_variant(mysql.LONGTEXT(), "mysql", "mariadb"), nullable=False),
        sa.UniqueConstraint("run_id", "guid", name="cards_once_per_run"),
    )
    op.create_index("cards_in_order", "cards",
                    ["run_id", "item_order", "check_order", "property", "kind", "against", "guid"])
    op.create_index("cards_by_property", "cards", ["run_id", "property", "kind", "against", "property_label"])
    op.create_table(
        "card_runs",
        sa.Column("run_id", Id, sa.ForeignKey("runs.id"), primary_key=True, autoincrement=False),
    )


def downgrade() -> None:
    op.drop_table("card_runs")
    op.drop_index("cards_by_property", table_name="cards")
    op.drop_index("cards_in_order", table_name="cards")
    op.drop_table("cards")
