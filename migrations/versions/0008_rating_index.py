"""rating_changes: an index on (player_id, id), so that a player's current rating (the row with
the highest id: ``app.league.ratings.latest``) is one index probe, not a scan of the player's
whole history. ``latest`` runs twice for every round played (the period's starting ratings,
the standings mail's rating lines) and a player's history grows with every round of every
league.

Revision ID: 0008
Revises: 0007 (0007_rulesets)
"""

from collections.abc import Sequence

from alembic import op

revision: str = "0008"
down_revision: str | None = "0007"
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None


def upgrade() -> None:
    op.create_index("ix_rating_changes_player_id_id", "rating_changes", ["player_id", "id"])


def downgrade() -> None:
    op.drop_index("ix_rating_changes_player_id_id", table_name="rating_changes")
