"""The review service's sessions, kept on the server (issue 58): the cookie holds a random id, never a token; a row
holds the session's data under that id's SHA-256 (``service_sessions.id``), with when it began, was last used and
ends (seconds since the epoch, double precision: MariaDB's FLOAT would round them to minutes), so that signing out
ends it for every copy of the cookie and a session lives no longer than its idle and absolute lifetimes.

Revision ID: 0006
Revises: 0005
Create Date: 2026-12-02
"""

from __future__ import annotations

import sqlalchemy as sa
from alembic import op
from sqlalchemy.dialects import mysql

revision = "0006"
down_revision = "0005"
branch_labels = None
depends_on = None
_KEY = sa.String(64).with_variant(mysql.VARCHAR(64, charset="utf8mb4", collation="utf8mb4_bin"), "mysql", "mariadb")


def upgrade() -> None:
    op.create_table(
        "service_sessions",
        sa.Column("id", _KEY, primary_key=True),
        sa.Column("data", sa.Text(), nullable=False),
        sa.Column("created", sa.Double(), nullable=False),
        sa.Column("seen", sa.Double(), nullable=False),
        sa.Column("expires", sa.Double(), nullable=False),
    )
    op.create_index("service_sessions_by_expiry", "service_sessions", ["expires"])


def downgrade() -> None:
    op.drop_index("service_sessions_by_expiry", table_name="service_sessions")
    op.drop_table("service_sessions")
