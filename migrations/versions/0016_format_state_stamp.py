"""A stamp for a league's kept format state (issue 22): ``leagues.format_state_stamp``, a random
token written with each new ``format_state``, so a process that keeps the parsed state (the
hill's, some 20,000 pair results at 200 members) knows it is current without reading and
decoding the JSON. ``NULL``: not stamped (rows older than this revision, or a state written
without ``app.league.formats.remember_state``); such a state is read and parsed each time.

Revision ID: 0016
Revises: 0015 (0015_shared_rounds)
"""

from collections.abc import Sequence

import sqlalchemy as sa
from alembic import op

revision: str = "0016"
down_revision: str | None = "0015"
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None


def upgrade() -> None:
    # plain ADD COLUMN (SQLite, PostgreSQL), as in 0015: no batch copy of a referenced table
    op.add_column("leagues", sa.Column("format_state_stamp", sa.String(32)))


def downgrade() -> None:
    op.drop_column("leagues", "format_state_stamp")
