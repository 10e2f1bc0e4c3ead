"""Alembic's environment for the ledger: the connection is the one ``bot.ledger.database.migrate`` opened (its
transaction and, on a server, its lock), never a URL from a file."""

from __future__ import annotations

from alembic import context

from bot.ledger.tables import metadata

connection = context.config.attributes.get("connection")
if connection is None:
    raise RuntimeError("the ledger's migrations run through bot.ledger.database.migrate (refbot opens the ledger)")
context.configure(connection=connection, target_metadata=metadata, render_as_batch=True)
context.run_migrations()
