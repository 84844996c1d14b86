"""rating_changes.ruleset: a player has one rating per game (issue 19.6). Before, one rating
mixed every ruleset: a player's Amaryllis rating moved when they played Margaret Hundred. Each
row now names the ruleset of its league; existing rows take their league's ruleset. The index
``(player_id, ruleset, id)`` makes a player's current rating in a game one index probe.

Revision ID: 0009
Revises: 0008 (0008_rating_index)
"""

from collections.abc import Sequence

import sqlalchemy as sa
from alembic import op

revision: str = "0009"
down_revision: str | None = "0008"
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None


def upgrade() -> None:
    with op.batch_alter_table("rating_changes") as batch:
        batch.add_column(
            sa.Column("ruleset", sa.String(32), nullable=False, server_default="amaryllis")
        )
    op.execute(
        "UPDATE rating_changes SET ruleset = (SELECT leagues.ruleset FROM rounds JOIN leagues "
        "ON rounds.league_id = leagues.id WHERE rounds.id = rating_changes.round_id) "
        "WHERE EXISTS (SELECT 1 FROM rounds WHERE rounds.id = rating_changes.round_id)"
    )
    op.create_index(
        "ix_rating_changes_player_ruleset_id", "rating_changes", ["player_id", "ruleset", "id"]
    )


def downgrade() -> None:
    op.drop_index("ix_rating_changes_player_ruleset_id", table_name="rating_changes")
    with op.batch_alter_table("rating_changes") as batch:
        batch.drop_column("ruleset")
