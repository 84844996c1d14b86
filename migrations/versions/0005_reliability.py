"""reliability: outbox bodies stored once (zlib, SHA-256), outbox leases, relay state, organizer
requests done by the scheduler, the league play lease (issue 9)

Revision ID: 0005
Revises: 0004
"""

from collections.abc import Sequence

import sqlalchemy as sa
from alembic import op

revision: str = "0005"
down_revision: str | None = "0004"
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None


def upgrade() -> None:
    op.create_table(
        "outbox_bodies",
        sa.Column("sha256", sa.String(64), nullable=False),
        sa.Column("data", sa.LargeBinary(), nullable=False),
        sa.Column("size", sa.Integer(), nullable=False),
        sa.Column("created_at", sa.DateTime(timezone=True), nullable=False),
        sa.PrimaryKeyConstraint("sha256", name=op.f("pk_outbox_bodies")),
    )
    with op.batch_alter_table("outbox") as batch:
        batch.alter_column("raw", existing_type=sa.LargeBinary(), nullable=True)
        batch.add_column(sa.Column("head", sa.LargeBinary(), nullable=True))
        batch.add_column(sa.Column("body_sha256", sa.String(64), nullable=True))
        batch.add_column(sa.Column("lease_owner", sa.String(200), nullable=True))
        batch.add_column(sa.Column("lease_until", sa.DateTime(timezone=True), nullable=True))
        batch.add_column(
            sa.Column("content_pruned", sa.Boolean(), nullable=False, server_default=sa.false())
        )
        batch.create_foreign_key(
            op.f("fk_outbox_body_sha256_outbox_bodies"),
            "outbox_bodies",
            ["body_sha256"],
            ["sha256"],
        )
        batch.create_index("ix_outbox_body_sha256", ["body_sha256"])
    op.create_table(
        "smtp_relays",
        sa.Column("id", sa.Integer(), nullable=False),
        sa.Column("relay", sa.String(300), nullable=False),
        sa.Column("last_ok_at", sa.DateTime(timezone=True), nullable=True),
        sa.Column("last_error", sa.Text(), nullable=True),
        sa.Column("last_error_at", sa.DateTime(timezone=True), nullable=True),
        sa.Column("failures", sa.Integer(), nullable=False),
        sa.PrimaryKeyConstraint("id", name=op.f("pk_smtp_relays")),
        sa.UniqueConstraint("relay", name=op.f("uq_smtp_relays_relay")),
    )
    op.create_table(
        "league_requests",
        sa.Column("id", sa.Integer(), nullable=False),
        sa.Column("league_id", sa.Integer(), nullable=True),
        sa.Column("league_name", sa.String(64), nullable=False),
        sa.Column("kind", sa.String(16), nullable=False),
        sa.Column("params", sa.JSON(), nullable=True),
        sa.Column("inbound_id", sa.Integer(), nullable=True),
        sa.Column("lang", sa.String(8), nullable=False),
        sa.Column("state", sa.String(16), nullable=False),
        sa.Column("lease_owner", sa.String(200), nullable=True),
        sa.Column("lease_until", sa.DateTime(timezone=True), nullable=True),
        sa.Column("attempts", sa.Integer(), nullable=False),
        sa.Column("result", sa.JSON(), nullable=True),
        sa.Column("error", sa.Text(), nullable=True),
        sa.Column("created_at", sa.DateTime(timezone=True), nullable=False),
        sa.Column("done_at", sa.DateTime(timezone=True), nullable=True),
        sa.ForeignKeyConstraint(
            ["league_id"], ["leagues.id"], name=op.f("fk_league_requests_league_id_leagues")
        ),
        sa.ForeignKeyConstraint(
            ["inbound_id"],
            ["inbound_messages.id"],
            name=op.f("fk_league_requests_inbound_id_inbound_messages"),
        ),
        sa.PrimaryKeyConstraint("id", name=op.f("pk_league_requests")),
    )
    op.create_index("ix_league_requests_state", "league_requests", ["state"])
    with op.batch_alter_table("leagues") as batch:
        batch.add_column(sa.Column("play_owner", sa.String(200), nullable=True))
        batch.add_column(sa.Column("play_until", sa.DateTime(timezone=True), nullable=True))


def downgrade() -> None:
    with op.batch_alter_table("leagues") as batch:
        batch.drop_column("play_until")
        batch.drop_column("play_owner")
    op.drop_index("ix_league_requests_state", table_name="league_requests")
    op.drop_table("league_requests")
    op.drop_table("smtp_relays")
    # rows written since 0005 keep their bytes as head + shared body: put them back whole
    import zlib

    bind = op.get_bind()
    rows = bind.execute(
        sa.text(
            "SELECT o.id, o.head, b.data FROM outbox o LEFT JOIN outbox_bodies b "
            "ON b.sha256 = o.body_sha256 WHERE o.raw IS NULL"
        )
    ).all()
    for row_id, head, data in rows:
        whole = (head or b"") + (zlib.decompress(data) if data is not None else b"")
        bind.execute(
            sa.text("UPDATE outbox SET raw = :raw WHERE id = :id"), {"raw": whole, "id": row_id}
        )
    with op.batch_alter_table("outbox") as batch:
        batch.drop_index("ix_outbox_body_sha256")
        batch.drop_constraint(op.f("fk_outbox_body_sha256_outbox_bodies"), type_="foreignkey")
        batch.drop_column("content_pruned")
        batch.drop_column("lease_until")
        batch.drop_column("lease_owner")
        batch.drop_column("body_sha256")
        batch.drop_column("head")
        batch.alter_column("raw", existing_type=sa.LargeBinary(), nullable=False)
    op.drop_table("outbox_bodies")
