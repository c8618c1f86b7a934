"""Alembic's environment for the archive: always run by `schmier.ledger.database` (at
start-up or through `schmier migrate`), which hands over the connection to migrate."""

from __future__ import annotations

from alembic import context

from schmier.ledger.database import VERSION_TABLE
from schmier.ledger.schema import metadata

connection = context.config.attributes.get("connection")
if connection is None:
    raise RuntimeError("migrate the archive with `schmier migrate`, not the alembic command")

context.configure(
    connection=connection,
    target_metadata=metadata,
    version_table=VERSION_TABLE,
    render_as_batch=connection.dialect.name == "sqlite",
)
with context.begin_transaction():
    context.run_migrations()
