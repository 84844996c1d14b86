"""Orders for rulesets that take them (Margaret Magicalized, issue 21): ``orders_versions``
(a player's hand and standing orders, as mailed, the active one used by the entry's next
battles), and on ``battles`` what a battle is fought with besides the sheets (``inputs``: each
side's orders against that opponent with their revisions, the lead draw, READY) and a paused
battle's checkpoint (``stop_turn``, ``stop_until``); on ``rounds`` when its pairings were stored
(``paired_at``: orders sent before it do not play a round early).

Revision ID: 0012
Revises: 0009 (0009_ratings_per_ruleset)
"""

from collections.abc import Sequence

import sqlalchemy as sa
from alembic import op

revision: str = "0012"
down_revision: str | None = "0009"
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None


def upgrade() -> None:
    op.create_table(
        "orders_versions",
        sa.Column("id", sa.Integer(), primary_key=True),
        sa.Column("entry_id", sa.Integer(), sa.ForeignKey("entries.id"), nullable=False),
        sa.Column("version", sa.Integer(), nullable=False),
        sa.Column("text", sa.Text(), nullable=False),
        sa.Column("active", sa.Boolean(), nullable=False),
        sa.Column("inbound_id", sa.Integer(), sa.ForeignKey("inbound_messages.id")),
        sa.Column("created_at", sa.DateTime(timezone=True), nullable=False),
    )
    op.create_index("ix_orders_versions_entry_active", "orders_versions", ["entry_id", "active"])
    with op.batch_alter_table("battles") as batch:
        batch.add_column(sa.Column("inputs", sa.JSON()))
        batch.add_column(sa.Column("stop_turn", sa.Integer()))
        batch.add_column(sa.Column("stop_until", sa.DateTime(timezone=True)))
    with op.batch_alter_table("rounds") as batch:
        batch.add_column(sa.Column("paired_at", sa.DateTime(timezone=True)))


def downgrade() -> None:
    # plain DROP COLUMN (SQLite 3.35+, PostgreSQL): a batch copy would DROP TABLE rounds and
    # battles, which other tables reference (foreign keys are on in every connection)
    op.drop_column("rounds", "paired_at")
    for column in ("stop_until", "stop_turn", "inputs"):
        op.drop_column("battles", column)
    op.drop_index("ix_orders_versions_entry_active", table_name="orders_versions")
    op.drop_table("orders_versions")
