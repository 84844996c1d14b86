"""Unique display names (issue 20.1): ``players.name_key``, the display name after NFKC, case
folding and without whitespace (``app.db.models.display_name_key``), unique. Existing players
that share a key keep it in id order: the first keeps its name, each later one is renamed to the
first free ``NAME 2``, ``NAME 3``, … A player without a name who has an entry (others see them)
gets the default name a new player would get (``app.league.names.default_candidates``: a flower
in the player's language), no longer ``player #17``.

Revision ID: 0013
Revises: 0012 (0012_orders)
"""

import unicodedata
from collections.abc import Sequence

import sqlalchemy as sa
from alembic import op

revision: str = "0013"
down_revision: str | None = "0012"
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None


def _key(name: str | None) -> str | None:
    # a copy of app.db.models.display_name_key as it was at this revision
    key = "".join(unicodedata.normalize("NFKC", name or "").casefold().split())
    return key[:200] or None


def upgrade() -> None:
    # in place, not a batch copy: copying players breaks SQLite's foreign keys to it
    op.add_column("players", sa.Column("name_key", sa.String(length=200), nullable=True))
    bind = op.get_bind()
    players = sa.table(
        "players",
        sa.column("id", sa.Integer),
        sa.column("display_name", sa.String),
        sa.column("name_key", sa.String),
        sa.column("address", sa.String),
        sa.column("lang", sa.String),
    )
    rows = bind.execute(
        sa.select(players.c.id, players.c.display_name).order_by(players.c.id)
    ).all()
    taken: set[str] = {k for _id, name in rows if (k := _key(name)) is not None}
    seen: set[str] = set()
    for pid, name in rows:
        key = _key(name)
        if key is None:
            continue
        if key in seen:  # a later namesake: the first free variant
            n = 2
            while _key(f"{name} {n}") in taken:
                n += 1
            name = f"{name} {n}"[:200]
            key = _key(name)
            assert key is not None
            taken.add(key)
        seen.add(key)
        bind.execute(
            players.update().where(players.c.id == pid).values(display_name=name, name_key=key)
        )
    from app.league.names import default_candidates

    entries = sa.table("entries", sa.column("player_id", sa.Integer))
    entered = set(bind.execute(sa.select(entries.c.player_id).distinct()).scalars())
    nameless = [
        (pid, address, lang)
        for pid, name, address, lang in bind.execute(
            sa.select(
                players.c.id, players.c.display_name, players.c.address, players.c.lang
            ).order_by(players.c.id)
        )
        if _key(name) is None and pid in entered
    ]
    for pid, address, lang in nameless:
        names = default_candidates(address, lang)
        free = [n for n in names if _key(n) not in taken]
        name = free[0] if free else f"{names[0]} {pid}"
        taken.add(_key(name) or "")
        bind.execute(
            players.update()
            .where(players.c.id == pid)
            .values(display_name=name, name_key=_key(name))
        )
    op.create_index("ix_players_name_key", "players", ["name_key"], unique=True)


def downgrade() -> None:
    op.drop_index("ix_players_name_key", table_name="players")
    op.drop_column("players", "name_key")
