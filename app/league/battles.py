"""A fought battle as the league stores it: the column values of ``battles`` from the
ruleset's result (``Ruleset.outcome``), shared by rounds (``app.league.play``) and arrivals
(``app.league.challenge``)."""

from __future__ import annotations

from typing import Any


def final_json(outcome: Any) -> dict[str, Any]:
    """``battles.final``: each side's final fighters (``Fighter.to_json``), ``{"a": …, "b": …}``;
    a side of one fighter is that fighter's object (the shape battles had before parties), a
    party a list."""
    sides = [[f.to_json() for f in side] for side in outcome.final]
    return {
        k: (side[0] if len(side) == 1 else side) for k, side in zip(("a", "b"), sides, strict=True)
    }


def side_hp(outcome: Any, side: int) -> int:
    """``battles.hp_a``/``hp_b``: a one-fighter side's final HP (negative: overkill, also when it
    died), a party's summed final HP of the fighters still present (``Outcome.hp``)."""
    fighters = outcome.final[side]
    return int(fighters[0].hp) if len(fighters) == 1 else int(outcome.hp(side))


def battle_values(rs: Any, result: Any, version: str) -> dict[str, Any]:
    """The ``battles`` column values of a fought result (``Ruleset.outcome``): ``winner``,
    ``reason`` (the termination), ``turns``, ``hp_a``/``hp_b`` (:func:`side_hp`), ``margin`` (side A's tiebreak margin), ``outcome`` (``Outcome.to_json``),
    ``final`` (:func:`final_json`), ``engine_version``."""
    o = rs.outcome(result)
    return dict(
        engine_version=version,
        winner=o.winner,
        reason=o.termination,
        turns=o.turns,
        hp_a=side_hp(o, 0),
        hp_b=side_hp(o, 1),
        margin=o.margin,
        outcome=o.to_json(),
        final=final_json(o),
    )
