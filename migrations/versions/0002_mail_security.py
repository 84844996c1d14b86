"""mail security: entry keys, pending changes, counters per purpose, organizer notices,
omitted parts of large mail (issue #8)

Revision ID: 0002
Revises: 0001
Create Date: 2026-12-01 10:00:00
"""

from collections.abc import Sequence

import sqlalchemy as sa
from alembic import op

revision: str = "0002"
down_revision: str | None = "0001"
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None


def upgrade() -> None:
    with op.batch_alter_table("entries") as batch:
        batch.add_column(sa.Column("owner_key", sa.String(length=16), nullable=True))
    with op.batch_alter_table("inbound_messages") as batch:
        batch.add_column(sa.Column("omitted", sa.JSON(), nullable=True))
    with op.batch_alter_table("sender_counters") as batch:
        batch.add_column(
            sa.Column("purpose", sa.String(length=64), nullable=False, server_default="reply")
        )
        batch.drop_constraint("uq_sender_counters_address", type_="unique")
        batch.create_unique_constraint("uq_sender_counters_address", ["address", "day", "purpose"])
    op.create_table(
        "organizer_notices",
        sa.Column("id", sa.Integer(), nullable=False),
        sa.Column("key", sa.String(length=300), nullable=False),
        sa.Column("subject", sa.String(length=300), nullable=False),
        sa.Column("text", sa.Text(), nullable=False),
        sa.Column("created_at", sa.DateTime(timezone=True), nullable=False),
        sa.Column("digest_id", sa.Integer(), nullable=True),
        sa.ForeignKeyConstraint(
            ["digest_id"], ["outbox.id"], name=op.f("fk_organizer_notices_digest_id_outbox")
        ),
        sa.PrimaryKeyConstraint("id", name=op.f("pk_organizer_notices")),
        sa.UniqueConstraint("key", name=op.f("uq_organizer_notices_key")),
    )
    op.create_table(
        "pending_changes",
        sa.Column("id", sa.Integer(), nullable=False),
        sa.Column("entry_id", sa.Integer(), nullable=False),
        sa.Column("kind", sa.String(length=16), nullable=False),
        sa.Column("sheet_text", sa.Text(), nullable=True),
        sa.Column("token_hash", sa.String(length=64), nullable=False),
        sa.Column("inbound_id", sa.Integer(), nullable=True),
        sa.Column("state", sa.String(length=16), nullable=False),
        sa.Column("detail", sa.Text(), nullable=True),
        sa.Column("created_at", sa.DateTime(timezone=True), nullable=False),
        sa.Column("expires_at", sa.DateTime(timezone=True), nullable=False),
        sa.Column("done_at", sa.DateTime(timezone=True), nullable=True),
        sa.ForeignKeyConstraint(
            ["entry_id"], ["entries.id"], name=op.f("fk_pending_changes_entry_id_entries")
        ),
        sa.ForeignKeyConstraint(
            ["inbound_id"],
            ["inbound_messages.id"],
            name=op.f("fk_pending_changes_inbound_id_inbound_messages"),
        ),
        sa.PrimaryKeyConstraint("id", name=op.f("pk_pending_changes")),
        sa.UniqueConstraint("token_hash", name=op.f("uq_pending_changes_token_hash")),
    )
    op.create_index("ix_pending_changes_entry_state", "pending_changes", ["entry_id", "state"])


def downgrade() -> None:
    op.drop_index("ix_pending_changes_entry_state", table_name="pending_changes")
    op.drop_table("pending_changes")
    op.drop_table("organizer_notices")
    op.execute("DELETE FROM sender_counters WHERE purpose <> 'reply'")
    with op.batch_alter_table("sender_counters") as batch:
        batch.drop_constraint("uq_sender_counters_address", type_="unique")
        batch.create_unique_constraint("uq_sender_counters_address", ["address", "day"])
        batch.drop_column("purpose")
    with op.batch_alter_table("inbound_messages") as batch:
        batch.drop_column("omitted")
    with op.batch_alter_table("entries") as batch:
        batch.drop_column("owner_key")
