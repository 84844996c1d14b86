"""Mail preferences (issue 20): what the server mails a player besides direct replies
(``players.mail_pref``: ``all`` every report and the standings, ``own`` only their own battles,
``none`` nothing but direct replies) and whether a digest carries the full logs of the
player's own battles (``players.digest_logs``; otherwise they come on request).

Revision ID: 0014
Revises: 0013 (0013_player_names)
"""

from collections.abc import Sequence

import sqlalchemy as sa
from alembic import op

revision: str = "0014"
down_revision: str | None = "0013"
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None


def upgrade() -> None:
    op.add_column(
        "players", sa.Column("mail_pref", sa.String(8), nullable=False, server_default="all")
    )
    op.add_column(
        "players", sa.Column("digest_logs", sa.Boolean(), nullable=False, server_default=sa.false())
    )


def downgrade() -> None:
    # plain DROP COLUMN (SQLite 3.35+, PostgreSQL): a batch copy would DROP TABLE players,
    # which other tables reference (foreign keys are on in every connection)
    op.drop_column("players", "digest_logs")
    op.drop_column("players", "mail_pref")
