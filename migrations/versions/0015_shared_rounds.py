"""Rounds shared by several ``serve`` processes (issue 22): a battle's claim
(``battles.claim_owner``, ``claim_until``: the process fighting it, a lease like the outbox's)
and a round's ``shared`` mark (set by the process holding the league's play lease once the
round is prepared: from then on any ``serve`` may claim its pending battles in chunks).

Revision ID: 0015
Revises: 0014 (0014_mail_preferences)
"""

from collections.abc import Sequence

import sqlalchemy as sa
from alembic import op

revision: str = "0015"
down_revision: str | None = "0014"
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None


def upgrade() -> None:
    # plain ADD COLUMN (SQLite, PostgreSQL): a batch copy would DROP TABLE rounds and battles,
    # which other tables reference (foreign keys are on in every connection)
    op.add_column("battles", sa.Column("claim_owner", sa.String(200)))
    op.add_column("battles", sa.Column("claim_until", sa.DateTime(timezone=True)))
    op.add_column(
        "rounds", sa.Column("shared", sa.Boolean(), nullable=False, server_default=sa.false())
    )


def downgrade() -> None:
    # plain DROP COLUMN, as in 0012
    op.drop_column("rounds", "shared")
    op.drop_column("battles", "claim_until")
    op.drop_column("battles", "claim_owner")
