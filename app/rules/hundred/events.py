"""The battle log and the result of a Margaret Hundred battle.

Source: ``shared/rules/margaret-hundred.md`` §8.12 and §12.12. For speed (§12.13) an event is a
plain tuple whose first item is its kind; :data:`EVENT_FIELDS` names the other items, and
:func:`event_json` turns an event into a dict. With ``log=False`` the engine creates none.

A swordmaster is named by ``(side, sm)``: its side (0 = A, 1 = B) and its creation serial within
that side (0 = the base-registered one, then builds in order); the result's ``roster`` maps both
to names. Swords are named by their compact code with N (``回3``, ``遅.19``).

Events that happen at once on both sides are *bucketed*: ``(kind, …, (events of side 0, events of
side 1))``, so that battle(B, A) is battle(A, B) mirrored event for event (:func:`mirror`):

* ``phase``: the status phase; ``apphase``: Sleep consumed in the AP phase; ``check``: the death check after the first turn; ``settle``: exits
  and period expiries at an event settlement; ``turnend``: period expiries at a turn end;
* ``simul``: one action procedure with several action-right holders. Its ``parts`` are processed
  in kind-priority and in-kind-rank order (§8.10); each part is ``("part", side, events)`` for one
  action, or ``("group", kind, (events of side 0, events of side 1))`` for a super-simultaneous
  pair, each side's events in processing order.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any, NamedTuple

#: kind -> names of the items after the kind
EVENT_FIELDS: dict[str, tuple[str, ...]] = {
    "turn": ("turn",),  # a turn starts (T)
    "end": ("turn", "states"),  # a turn is over: states (side 0, side 1)
    "act": ("side", "sm", "sword", "kind", "vanished", "mp"),  # executes sword; costs paid
    "skip": ("side", "sm", "why"),  # why: "stun" | "none" (nothing executable)
    "taunt": ("side", "sm"),  # a taunter draws a single attack
    "reflect": ("side", "sm", "to_side", "to_sm"),  # reflects; the attack goes to (to_side, to_sm)
    "dodge": ("side", "sm"),  # dodges: the attack vanishes
    "hit": (
        "side",
        "sm",
        "tempo",
        "raw",
        "drive",
        "protection",
        "damage",
        "failed",
        "mp",
        "value",
    ),  # a hit on (side, sm): raw → Drive → protection
    "effect": ("side", "sm", "what", "value"),  # a non-damage change on (side, sm)
    "gain": ("side", "sm", "status", "count"),  # a status given; count = how many now
    "stat": ("side", "sm", "stat", "value"),  # atk/df/spd/mp/ap/max_hp/hp := value
    "heal": ("side", "sm", "amount", "hp"),  # a recovery (貪炎剣, 吸血剣)
    "self": ("side", "sm", "damage", "hp"),  # 災厄剣's self-damage
    "die": ("side", "sm", "hp"),
    "revive": ("side", "sm", "by", "hp"),  # by: "soul" | "life" | "hp"; "soul-failed"
    "sword": ("side", "sm", "op", "sword", "detail"),  # a sword of (side, sm) changed (see ops)
    "fizzle": ("side", "sm", "why"),  # an effect with no target (H9, H42)
    "build": ("side", "sm", "new", "name"),  # (side, sm) built swordmaster (side, new)
    "nobuild": ("side", "sm", "why"),  # why: "abort" | "eternal" | "full"
    "years": ("side", "sm", "turn"),  # 星霜剣: T is now turn
    "venom": ("side", "sm", "poison"),  # status phase: Venom gave Poison
    "poison": ("side", "sm", "damage", "hp"),  # status phase: Poison damage
    "sleep": ("side", "sm", "left"),  # AP phase: Sleep consumed, AP := 0
    "exit": ("side", "sm", "hp"),  # exits at a settlement (HP frozen)
    "limit": ("turn", "count"),  # H61: the turn ends after count procedures
    "phase": ("sides",),
    "apphase": ("sides",),
    "check": ("sides",),
    "settle": ("sides",),
    "turnend": ("sides",),
    "simul": ("parts",),
    "part": ("side", "events"),
    "group": ("kind", "sides"),
}
"""Sword ops of ``sword`` events: ``destroyed``, ``jammed`` (marked used by 剣戟剣), ``reversed``,
``stolen`` (detail: the thief ``[side, sm]``), ``received`` (a stolen sword arrives; detail: from),
``added``, ``changed`` (detail: the old sword), ``enchanted`` (detail: the enchantment), ``held``
(marked used by a control sword), ``removed``, ``unused``, ``renewed`` (all unused), ``expired``.
Effects (``effect``): ``reset-atk``/``reset-def``/``reset-spd`` (value: the new value),
``assign-maxhp`` (value: HP), ``burn`` (every sword became 炸撃剣), ``cure`` (bad statuses
removed), ``double`` (value: ``[max_hp, hp, mp, atk, df, spd]``)."""

BUCKETED = frozenset({"phase", "apphase", "check", "settle", "turnend"})


class SmState(NamedTuple):
    """One swordmaster's state on a state line (§12.12), after a turn or at the end.

    ``swords``: the remaining swords (compact codes with N) in list order; ``enchants``: for each
    enchanted sword ``(index, stun, poison, whole, limited, early)``; ``statuses``: ``(attribute,
    count)`` of every status held (``swords.STATUSES`` order; Taunt and Heaven's Door count 1).
    An exited swordmaster keeps the state it exited with.
    """

    side: int
    sm: int
    name: str
    hp: int
    max_hp: int
    atk: int
    df: int
    spd: int
    mp: int
    swords: tuple[str, ...]
    enchants: tuple[tuple[int, int, int, bool, bool, int], ...]
    statuses: tuple[tuple[str, int], ...]
    dead: bool
    exited: bool
    base: bool

    def to_json(self) -> dict[str, Any]:
        """JSON-ready form (the ``final`` items and the ``end`` states)."""
        return {
            "side": "AB"[self.side],
            "id": self.sm,
            "name": self.name,
            "hp": self.hp,
            "max_hp": self.max_hp,
            "atk": self.atk,
            "def": self.df,
            "spd": self.spd,
            "mp": self.mp,
            "swords": list(self.swords),
            "enchants": [list(e) for e in self.enchants],
            "statuses": dict(self.statuses),
            "alive": not self.dead and not self.exited,
            "dead": self.dead,
            "exited": self.exited,
            "base_registered": self.base,
        }


@dataclass(frozen=True, slots=True)
class HundredResult:
    """The outcome of one battle (§8.4, §8.12).

    Attributes:
        winner: 0 (A), 1 (B) or ``None`` (draw).
        reason: ``death`` | ``overkill`` | ``hp`` | ``push`` | ``draw``.
        by: the judge applied: ``death`` | ``overkill`` | ``hp``.
        turns: the final turn number T.
        final: each side's swordmasters, present ones front first, then exited ones in exit order.
        totals: the judge's totals per side: overkill sums (overkill judge), HP sums of the
            present swordmasters (otherwise).
        push: the Push totals of each side's judge participants (H57).
        heavens_door: the side whose entry a Heaven's Door asks to rewrite with the other side's
            registered spec (H58), or ``None``.
        where: ``settlement`` or ``turn-end``: where the battle ended.
        procedures: action procedures in the whole battle; ``max_turn_procedures``: in its busiest
            turn; ``limit_hits``: turns cut by the procedure limit (H61).
        roster: ``{(side, sm): name}`` of every swordmaster that took part.
        events: the log (``()`` with ``log=False``).
    """

    winner: int | None
    reason: str
    by: str
    turns: int
    final: tuple[tuple[SmState, ...], tuple[SmState, ...]]
    totals: tuple[int, int]
    push: tuple[int, int]
    heavens_door: int | None
    where: str
    procedures: int
    max_turn_procedures: int
    limit_hits: int
    roster: dict[tuple[int, int], str] = field(default_factory=dict, compare=False)
    events: tuple[Any, ...] = field(default=(), compare=False)


def _side_positions(kind: str) -> tuple[int, ...]:
    names = EVENT_FIELDS[kind]
    return tuple(i + 1 for i, n in enumerate(names) if n in ("side", "to_side"))


_SIDES = {k: _side_positions(k) for k in EVENT_FIELDS}


def _mirror_state(s: SmState) -> SmState:
    return s._replace(side=1 - s.side)


def mirror(event: Any) -> Any:
    """``event`` with sides A and B swapped (buckets swapped, side fields flipped). So
    ``[mirror(e) for e in battle(b, a).events] == list(battle(a, b).events)`` (§12.13)."""
    kind = event[0]
    if kind == "end":
        s0, s1 = event[2]
        return ("end", event[1], (tuple(map(_mirror_state, s1)), tuple(map(_mirror_state, s0))))
    if kind in BUCKETED:
        b0, b1 = event[1]
        return (kind, (tuple(map(mirror, b1)), tuple(map(mirror, b0))))
    if kind == "simul":
        return ("simul", tuple(mirror(p) for p in event[1]))
    if kind == "part":
        return ("part", 1 - event[1], tuple(mirror(e) for e in event[2]))
    if kind == "group":
        b0, b1 = event[2]
        return ("group", event[1], (tuple(map(mirror, b1)), tuple(map(mirror, b0))))
    out = list(event)
    for i in _SIDES[kind]:
        out[i] = 1 - out[i]
    if kind == "sword" and isinstance(out[5], tuple) and len(out[5]) == 2:
        out[5] = (1 - out[5][0], out[5][1])
    return tuple(out)


def event_json(event: Any) -> dict[str, Any]:
    """One event as a JSON-ready dict ``{"type": kind, …}``, sides as ``"A"``/``"B"``."""
    kind = event[0]
    names = EVENT_FIELDS[kind]
    out: dict[str, Any] = {"type": kind}
    for name, value in zip(names, event[1:], strict=False):
        if name in ("side", "to_side"):
            out[name] = "AB"[value]
        elif name == "states":
            out[name] = {"A": [s.to_json() for s in value[0]], "B": [s.to_json() for s in value[1]]}
        elif name == "sides":
            out[name] = {
                "A": [event_json(e) for e in value[0]],
                "B": [event_json(e) for e in value[1]],
            }
        elif name in ("parts", "events"):
            out[name] = [event_json(e) for e in value]
        elif kind == "sword" and name == "detail" and isinstance(value, tuple):
            out[name] = ["AB"[value[0]], value[1]]
        elif isinstance(value, tuple):
            out[name] = list(value)
        else:
            out[name] = value
    return out
