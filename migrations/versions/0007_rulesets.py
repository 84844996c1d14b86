"""rulesets: leagues.options (the ruleset's league options), battles.outcome (the generic Outcome
JSON) and battles.margin (side A's tiebreak margin) (issue 10). ``sheet_versions.unit_name``
(200 characters) holds the ruleset's standings label (``Ruleset.label``: a name of at most 100
characters, or a short compact form), so it keeps its width.

Existing leagues keep working: ``options`` defaults to ``{}`` (every ruleset's defaults; Amaryllis
takes none), and the outcome and margin of every battle already fought are derived from the
columns it has (``winner``, ``reason``, ``turns``, ``hp_a``, ``hp_b``, ``final``), the way the
Amaryllis ruleset derives them (``Outcome``: margin = final HP of A - final HP of B).

Revision ID: 0007
Revises: 0006 (0006_formats)
"""

from collections.abc import Sequence
from typing import Any

import sqlalchemy as sa
from alembic import op

revision: str = "0007"
down_revision: str | None = "0006"
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None

_JUDGES = ("death", "overkill", "hp")


def _fighter(state: Any, hp: int | None) -> dict[str, Any]:
    """One ``Fighter.to_json`` from a stored Amaryllis ``UnitState`` dict (``final.a``/``.b``)."""
    s = state if isinstance(state, dict) else {}
    hp = int(s.get("hp", hp or 0))
    dead = bool(s.get("dead", hp <= 0))
    out = {
        "name": str(s.get("name", "")),
        "hp": hp,
        "max_hp": hp,
        "mp": 0,
        "alive": not dead,
        "exited": dead,
    }
    out.update({k: v for k, v in s.items() if k not in out and k not in ("dead",)})
    return out


def outcome_of_row(
    winner: int | None,
    reason: str | None,
    turns: int | None,
    hp_a: int | None,
    hp_b: int | None,
    final: Any,
) -> dict[str, Any]:
    """The ``Outcome.to_json`` of a battle fought before this revision. ``max_hp`` was never
    stored: the final HP stands in for it."""
    final = final if isinstance(final, dict) else {}
    a, b = _fighter(final.get("a"), hp_a), _fighter(final.get("b"), hp_b)
    term = reason or "draw"
    by = term if term in _JUDGES else ("overkill" if a["exited"] and b["exited"] else "hp")
    return {
        "winner": winner,
        "termination": term,
        "turns": int(turns or 0),
        "margin": int(hp_a or 0) - int(hp_b or 0),
        "by": by,
        "detail": {},
        "final": [[a], [b]],
    }


def upgrade() -> None:
    # plain ADD COLUMN (also on SQLite): a batch "move and copy" of ``leagues`` would drop a
    # table that entries and rounds reference
    op.add_column("leagues", sa.Column("options", sa.JSON(), nullable=False, server_default="{}"))
    op.add_column("battles", sa.Column("outcome", sa.JSON(), nullable=True))
    op.add_column("battles", sa.Column("margin", sa.Integer(), nullable=True))
    battles = sa.table(
        "battles",
        sa.column("id", sa.Integer()),
        sa.column("state", sa.String()),
        sa.column("entry_b_id", sa.Integer()),
        sa.column("winner", sa.Integer()),
        sa.column("reason", sa.String()),
        sa.column("turns", sa.Integer()),
        sa.column("hp_a", sa.Integer()),
        sa.column("hp_b", sa.Integer()),
        sa.column("final", sa.JSON()),
        sa.column("outcome", sa.JSON()),
        sa.column("margin", sa.Integer()),
    )
    conn = op.get_bind()
    rows = conn.execute(
        sa.select(
            battles.c.id,
            battles.c.winner,
            battles.c.reason,
            battles.c.turns,
            battles.c.hp_a,
            battles.c.hp_b,
            battles.c.final,
        ).where(
            battles.c.state == "done",
            battles.c.entry_b_id.is_not(None),
            battles.c.reason.is_not(None),
        )
    ).all()
    for bid, winner, reason, turns, hp_a, hp_b, final in rows:
        conn.execute(
            battles.update()
            .where(battles.c.id == bid)
            .values(
                outcome=outcome_of_row(winner, reason, turns, hp_a, hp_b, final),
                margin=int(hp_a or 0) - int(hp_b or 0),
            )
        )


def downgrade() -> None:
    # ALTER TABLE ... DROP COLUMN (SQLite 3.35+ has it): a batch "move and copy" would drop
    # ``leagues`` under the rows that reference it
    for table, column in (("battles", "margin"), ("battles", "outcome"), ("leagues", "options")):
        op.execute(f"ALTER TABLE {table} DROP COLUMN {column}")
