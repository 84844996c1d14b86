"""Migration 0007 (rulesets) on a database holding a league played before it: the league keeps
working (options ``{}``), and every fought battle gets its generic outcome and margin derived from
the columns it had (``docs/architecture.md``, issue 10)."""

from __future__ import annotations

import datetime as dt
import json
from typing import Any

import sqlalchemy as sa

from app.db.session import downgrade, make_engine, upgrade
from app.rules.base import Outcome

NOW = dt.datetime(2026, 12, 1, 12, 0, tzinfo=dt.timezone.utc)


def _filled(table: sa.Table, **values: Any) -> dict[str, Any]:
    """``values`` plus a plain value for every other NOT NULL column without a default."""
    out = dict(values)
    for col in table.columns:
        if col.name in out or col.nullable or col.primary_key or col.server_default is not None:
            continue
        t = col.type
        out[col.name] = (
            NOW
            if isinstance(t, sa.DateTime)
            else False
            if isinstance(t, sa.Boolean)
            else 0
            if isinstance(t, sa.Integer)
            else b""
            if isinstance(t, sa.LargeBinary)
            else "x"
        )
    return out


def test_battles_fought_before_0007_get_an_outcome_and_margin(db_url: str) -> None:
    upgrade(db_url, "0006")
    engine = make_engine(db_url)
    try:
        meta = sa.MetaData()
        meta.reflect(engine)
        t = meta.tables
        final = {
            "a": {
                "name": "グリスク",
                "hp": 7,
                "atk": 2,
                "defense": 3,
                "spd": 2,
                "actions": ["スピア"],
                "guard": 0,
                "reflect": 0,
                "life": 0,
                "stun": 0,
                "poison": 0,
                "dead": False,
            },
            "b": {
                "name": "ヌト",
                "hp": -1,
                "atk": 3,
                "defense": 1,
                "spd": 1,
                "actions": [],
                "guard": 0,
                "reflect": 0,
                "life": 0,
                "stun": 0,
                "poison": 0,
                "dead": True,
            },
        }
        with engine.begin() as c:
            c.execute(
                t["leagues"]
                .insert()
                .values(
                    **_filled(t["leagues"], id=1, name="old", ruleset="amaryllis", state="running")
                )
            )
            for pid in (1, 2):
                c.execute(
                    t["players"]
                    .insert()
                    .values(**_filled(t["players"], id=pid, address=f"p{pid}@example.org"))
                )
                c.execute(
                    t["entries"]
                    .insert()
                    .values(
                        **_filled(t["entries"], id=pid, league_id=1, player_id=pid, status="active")
                    )
                )
            c.execute(
                t["rounds"]
                .insert()
                .values(**_filled(t["rounds"], id=1, league_id=1, number=1, state="done"))
            )
            c.execute(
                t["battles"]
                .insert()
                .values(
                    **_filled(
                        t["battles"],
                        id=1,
                        round_id=1,
                        board=1,
                        entry_a_id=1,
                        entry_b_id=2,
                        state="done",
                        winner=0,
                        reason="death",
                        turns=4,
                        hp_a=7,
                        hp_b=-1,
                        final=final,
                    )
                )
            )
            c.execute(
                t["battles"]
                .insert()
                .values(
                    **_filled(
                        t["battles"],
                        id=2,
                        round_id=1,
                        board=2,
                        entry_a_id=2,
                        entry_b_id=None,
                        state="done",
                    )
                )
            )  # a bye: nothing to derive
        upgrade(db_url)
        with engine.connect() as c:
            league = c.execute(sa.text("SELECT options FROM leagues WHERE id = 1")).one()
            rows = {r.id: r for r in c.execute(sa.text("SELECT id, outcome, margin FROM battles"))}
        options = json.loads(league.options) if isinstance(league.options, str) else league.options
        assert options == {}
        raw = rows[1].outcome
        data = json.loads(raw) if isinstance(raw, str) else raw
        outcome = Outcome.from_json(data)
        assert (outcome.winner, outcome.termination, outcome.turns, outcome.margin, outcome.by) == (
            0,
            "death",
            4,
            8,
            "death",
        )
        assert [f.name for f in outcome.final[0]] == ["グリスク"] and outcome.final[1][0].exited
        assert outcome.final[0][0].detail["actions"] == ["スピア"]
        assert rows[1].margin == 8
        assert rows[2].outcome is None and rows[2].margin is None
        downgrade(db_url, "0006")  # and back: the columns go, the rows stay
        with engine.connect() as c:
            assert c.execute(sa.text("SELECT count(*) FROM battles")).scalar() == 2
    finally:
        engine.dispose()
