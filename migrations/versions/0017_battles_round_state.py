"""An index on ``battles (round_id, state, board)`` (issue 22): a big round's pending battles
are claimed in board order a chunk at a time, and whether any is left is asked after each chunk;
without it each of those read every battle of the round (499,500 in a 1,000-entry update).

Revision ID: 0017
Revises: 0016 (0016_format_state_stamp)
"""

from collections.abc import Sequence

from alembic import op

revision: str = "0017"
down_revision: str | None = "0016"
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None


def upgrade() -> None:
    op.create_index("ix_battles_round_state_board", "battles", ["round_id", "state", "board"])


def downgrade() -> None:
    op.drop_index("ix_battles_round_state_board", table_name="battles")
