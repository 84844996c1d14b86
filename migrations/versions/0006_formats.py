"""formats: leagues.format, leagues.format_options, leagues.format_state (the hill's own state);
rounds.note; player ratings per rating period (issue 13)

Existing leagues are round robins (``format`` defaults to ``round-robin``, options ``{}``: the
league's own ``double`` and points columns still say how it is played).

Revision ID: 0006
Revises: 0005
"""

from collections.abc import Sequence

import sqlalchemy as sa
from alembic import op

revision: str = "0006"
down_revision: str | None = "0005"
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None


def upgrade() -> None:
    # plain ADD COLUMN (no batch): SQLite never recreates leagues under its references
    op.add_column(
        "leagues",
        sa.Column("format", sa.String(length=32), nullable=False, server_default="round-robin"),
    )
    op.add_column(
        "leagues", sa.Column("format_options", sa.JSON(), nullable=False, server_default="{}")
    )
    op.add_column("leagues", sa.Column("format_state", sa.JSON(), nullable=True))
    op.add_column(
        "rounds", sa.Column("note", sa.String(length=32), nullable=False, server_default="")
    )
    op.create_table(
        "rating_changes",
        sa.Column("id", sa.Integer(), nullable=False),
        sa.Column("player_id", sa.Integer(), nullable=False),
        sa.Column("round_id", sa.Integer(), nullable=False),
        sa.Column("period", sa.String(length=120), nullable=False),
        sa.Column("mu_before", sa.Float(), nullable=False),
        sa.Column("sigma_before", sa.Float(), nullable=False),
        sa.Column("mu", sa.Float(), nullable=False),
        sa.Column("sigma", sa.Float(), nullable=False),
        sa.Column("games", sa.Integer(), nullable=False),
        sa.Column("wins", sa.Integer(), nullable=False),
        sa.Column("draws", sa.Integer(), nullable=False),
        sa.Column("losses", sa.Integer(), nullable=False),
        sa.Column("created_at", sa.DateTime(timezone=True), nullable=False),
        sa.ForeignKeyConstraint(
            ["player_id"], ["players.id"], name=op.f("fk_rating_changes_player_id_players")
        ),
        sa.ForeignKeyConstraint(
            ["round_id"], ["rounds.id"], name=op.f("fk_rating_changes_round_id_rounds")
        ),
        sa.PrimaryKeyConstraint("id", name=op.f("pk_rating_changes")),
        sa.UniqueConstraint("player_id", "round_id", name=op.f("uq_rating_changes_player_id")),
    )
    op.create_index(op.f("ix_rating_changes_round_id"), "rating_changes", ["round_id"])


def downgrade() -> None:
    op.drop_index(op.f("ix_rating_changes_round_id"), table_name="rating_changes")
    op.drop_table("rating_changes")
    op.drop_column("rounds", "note")
    op.drop_column("leagues", "format_state")
    op.drop_column("leagues", "format_options")
    op.drop_column("leagues", "format")
