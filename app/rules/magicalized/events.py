"""The result and the event log of a Magicalized battle.

Source: ``rules/margaret-magicalized.md`` §4.4 and §5. For speed an event is a plain tuple whose
first item is its kind (:data:`EVENT_FIELDS`); :func:`event_json` turns one into a dict and
:func:`describe` into the one-line text the golden battles compare
(``tests/rules/magicalized/golden_runner.py``).
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any, NamedTuple

from .swords import ENCHANT_NAME, STATUS_NAME

EVENT_FIELDS: dict[str, tuple[str, ...]] = {
    "turn": ("turn",),
    "action": ("leader", "sides", "predicted"),  # an action procedure: sides (actor,) or
    # (L, other); predicted: each one's sword at its ACT
    # window's opening (a code, STUN or WHIFF, G42)
    "act": ("side", "sword"),  # step 1 decided the sword (marked used at step 4)
    "skip": ("side", "why"),  # "stun" | "none" (a whiff)
    "vanish": ("side", "sword"),  # a Limited vanishing (after its VANISH window)
    "kept": ("side", "sword"),  # a Limited vanishing countered by 覆水返し (G12)
    "reflect": ("side", "to"),  # side's Reflect sends the attack to ``to``
    "hit": ("side", "sword", "raw", "shield", "burn", "freeze", "damage", "failed", "hp"),
    "gain": ("side", "status", "count"),
    "stat": ("side", "stat", "value"),  # atk/df/spd +1, hp := max (回復剣)
    "early": ("side", "sword"),  # 導来剣: that sword gains <早期起動>
    "fizzle": ("side", "why"),  # 導来剣 with no next sword / it vanished
    "die": ("side", "hp"),
    "revive": ("side", "by", "hp"),  # life | soul | soul-failed | hp
    "poison": ("side", "damage", "hp"),
    "check": (),  # the death check after the first turn (G44)
    "window": ("wid", "kind", "leader", "steps"),  # a window where a card was played
    "quiet": ("count",),  # windows of the turn where every player passed
    "end": ("turn", "states", "discards", "hand_sizes", "bans"),
}
"""kind -> names of the items after the kind. A ``window``'s steps are ``("play", side, card,
args, window)`` and ``("resolve", side, card, result, detail)``."""


class SmState(NamedTuple):
    """A swordmaster's state on a state line: ``swords`` codes in list order, ``enchants``
    ``(index, unseen, stunning, poisoning, early)`` of enchanted swords, ``statuses``
    ``(attribute, count)`` of those held."""

    side: int
    name: str
    hp: int
    max_hp: int
    atk: int
    df: int
    spd: int
    swords: tuple[str, ...]
    enchants: tuple[tuple[int, bool, int, int, int], ...]
    statuses: tuple[tuple[str, int], ...]
    dead: bool

    def to_json(self) -> dict[str, Any]:
        """JSON-ready form (``final.A`` items: ``name``, ``hp``, ``max_hp``, ``mp``, ``alive``,
        ``exited`` first)."""
        return {
            "name": self.name,
            "hp": self.hp,
            "max_hp": self.max_hp,
            "mp": 0,
            "alive": not self.dead,
            "exited": self.dead,
            "atk": self.atk,
            "def": self.df,
            "spd": self.spd,
            "swords": list(self.swords),
            "enchants": [list(e) for e in self.enchants],
            "statuses": dict(self.statuses),
        }


class CardRecord(NamedTuple):
    """One card played (§5 ``cards``): turn, side (0/1), card code, args (the canonical play
    text with relative sides, G52), window (where it was played; ``CARD`` on a card), result
    (``resolved``, ``target gone``, ``countered``, ``forbidden``)."""

    turn: int
    side: int
    card: str
    args: str
    window: str
    result: str

    def to_json(self) -> dict[str, Any]:
        """The §5 ``cards[]`` item."""
        return {
            "turn": self.turn,
            "side": "AB"[self.side],
            "card": self.card,
            "args": self.args,
            "window": self.window,
            "result": self.result,
        }


Trace = tuple[tuple[int, str, int, int, int, str], ...]
"""A rule trace: ``(turn, window, window id, version start, rule number, outcome)``."""


@dataclass(frozen=True, slots=True)
class MagicResult:
    """The outcome of one battle (§5), or its state at a checkpoint.

    Attributes:
        winner: 0 (A), 1 (B) or ``None`` (draw, or a checkpoint).
        reason: ``death`` | ``overkill`` | ``hp`` | ``push`` | ``draw``, or ``checkpoint``.
        by: the judge applied (``death``, ``overkill``, ``hp``; at a checkpoint, the judge that
            would apply now).
        turns: the final turn number T (G62), or the checkpoint's turn.
        where: ``settlement``, ``turn-end`` or ``checkpoint``.
        final: both swordmasters' states.
        totals, push: the judge's totals and the Push counts.
        cards: every card played, in order; hands: each side's unplayed cards (HAND order);
        bans: the kinds forbidden to each side.
        lead: the side that led simultaneous windows in even turns (G20).
        windows: how many windows opened (G17).
        traces: each side's rule trace and how many entries were left out (only with the log;
            not part of equality, like ``events``).
        events: the log (``()`` with ``log=False``).
    """

    winner: int | None
    reason: str
    by: str
    turns: int
    where: str
    final: tuple[SmState, SmState]
    totals: tuple[int, int]
    push: tuple[int, int]
    cards: tuple[CardRecord, ...]
    hands: tuple[tuple[str, ...], tuple[str, ...]]
    bans: tuple[tuple[str, ...], tuple[str, ...]]
    lead: int
    windows: int
    traces: tuple[tuple[Trace, int], tuple[Trace, int]] = field(
        default=(((), 0), ((), 0)), compare=False
    )
    events: tuple[Any, ...] = field(default=(), compare=False)

    @property
    def checkpoint(self) -> int | None:
        """The turn after which the battle was stopped, or ``None`` when it ended."""
        return self.turns if self.where == "checkpoint" else None


def status_text(statuses: tuple[tuple[str, int], ...]) -> str:
    """``Stun1 Reflect2`` (English names, counts), for :func:`describe`."""
    return " ".join(f"{STATUS_NAME[a]['en']}{n}" for a, n in statuses)


def state_line(s: SmState) -> str:
    """``A 7/10 1/0/3 導死速盾 Shield1`` (side, HP/max HP, ATK/DEF/SPD, swords with
    ``+unseen``/``+stunning``/``+poisoning``/``+early`` marks, statuses), for :func:`describe`."""
    ench = {e[0]: e for e in s.enchants}
    swords = []
    for i, code in enumerate(s.swords):
        text = code
        if i in ench:
            _, unseen, se, pe, early = ench[i]
            text += (
                ("+unseen" if unseen else "")
                + "+stunning" * se
                + "+poisoning" * pe
                + "+early" * early
            )
        swords.append(text)
    out = f"{'AB'[s.side]} {s.hp}/{s.max_hp} {s.atk}/{s.df}/{s.spd} {''.join(swords) or '-'}"
    st = status_text(s.statuses)
    return out + (f" {st}" if st else "") + (" dead" if s.dead else "")


def describe(e: tuple[Any, ...]) -> list[str]:
    """The lines an event stands for in a golden file (see ``golden_runner``)."""
    k = e[0]
    side = "AB"[e[1]] if k not in ("turn", "action", "window", "quiet", "end", "check") else ""
    if k == "turn":
        return [f"turn {e[1]}"]
    if k == "action":
        return [f"simultaneous lead {'AB'[e[1]]}"] if len(e[2]) == 2 else []
    if k == "act":
        return [f"{side} act {e[2]}"]
    if k == "skip":
        return [f"{side} skip {e[2]}"]
    if k == "vanish":
        return [f"{side} {e[2]} vanishes"]
    if k == "kept":
        return [f"{side} {e[2]} kept"]
    if k == "reflect":
        return [f"{side} reflects to {'AB'[e[2]]}"]
    if k == "hit":
        _, _, code, raw, shield, burn, freeze, dmg, failed, hp = e
        mods = (
            (" shield" if shield else "")
            + (f" burn{burn}" if burn else "")
            + (f" freeze{freeze}" if freeze else "")
        )
        return [
            f"hit {side} by {code} raw {raw}{mods} damage {dmg}"
            + (" fails" if failed else "")
            + f" hp {hp}"
        ]
    if k == "gain":
        return [f"{side} gains {STATUS_NAME[e[2]]['en']} {e[3]}"]
    if k == "stat":
        return [f"{side} {e[2]} {e[3]}"]
    if k == "early":
        return [f"{side} {e[2]} early"]
    if k == "fizzle":
        return [f"{side} fizzle {e[2]}"]
    if k == "die":
        return [f"{side} dies hp {e[2]}"]
    if k == "revive":
        return [f"{side} revives {e[2]} hp {e[3]}"]
    if k == "poison":
        return [f"{side} poison {e[2]} hp {e[3]}"]
    if k == "window":
        out = []
        for step in e[4]:
            if step[0] == "play":
                out.append(f"{'AB'[step[1]]} plays {step[3]} ({step[4]})")
            else:
                out.append(f"{'AB'[step[1]]} {step[2]} {step[3]}")
        return out
    if k == "quiet":
        return [f"passed {e[1]}"]
    if k == "check":
        return ["death check"]
    if k == "end":
        return [f"end {e[1]}", *(state_line(SmState(*s)) for s in e[2])]
    return [" ".join(str(x) for x in e)]


def event_json(e: tuple[Any, ...]) -> dict[str, Any]:
    """One event as a JSON-ready dict ``{"type": kind, …}``, sides as ``"A"``/``"B"``."""
    k = e[0]
    out: dict[str, Any] = {"type": k}
    for name, value in zip(EVENT_FIELDS[k], e[1:], strict=False):
        if name in ("side", "to", "leader"):
            out[name] = "AB"[value]
        elif name == "sides":
            out[name] = ["AB"[v] for v in value]
        elif name == "predicted":
            out[name] = list(value)
        elif name == "states":
            out[name] = {"A": SmState(*value[0]).to_json(), "B": SmState(*value[1]).to_json()}
        elif name == "steps":
            out[name] = [
                {
                    "step": s[0],
                    "side": "AB"[s[1]],
                    "card": s[2],
                    **(
                        {"args": s[3], "window": s[4]}
                        if s[0] == "play"
                        else {"result": s[3], "detail": _jsonable(s[4])}
                    ),
                }
                for s in value
            ]
        elif name == "discards":
            out[name] = [{"side": "AB"[p], "card": c} for p, c in value]
        elif name in ("hand_sizes", "bans"):
            out[name] = {
                "A": list(value[0]) if name == "bans" else value[0],
                "B": list(value[1]) if name == "bans" else value[1],
            }
        elif name == "status":
            out[name] = STATUS_NAME[value]["en"]
        else:
            out[name] = _jsonable(value)
    return out


def _flip_state(st: tuple[Any, ...]) -> tuple[Any, ...]:
    return (1 - st[0], *st[1:])


def _flip_detail(d: tuple[Any, ...]) -> tuple[Any, ...]:
    """A card's effect detail with its side flipped (``engine._effect_of``'s shapes)."""
    if not d:
        return d
    if d[0] == "rainbow":
        return ("rainbow", _flip_detail(d[1]))
    if d[0] in ("burn", "freeze", "years"):
        return d
    return (d[0], 1 - d[1], *d[2:])


def mirror(e: tuple[Any, ...]) -> tuple[Any, ...]:
    """``e`` with sides A and B swapped. The engine is symmetric: the battle of (B, A) with the
    orders swapped and the other lead is the battle of (A, B) mirrored event for event."""
    k = e[0]
    if k in ("turn", "quiet", "check"):
        return e
    if k == "action":
        return ("action", 1 - e[1], tuple(1 - s for s in e[2]), e[3])
    if k == "window":
        steps = tuple(
            (st[0], 1 - st[1], *st[2:4], st[4] if st[0] == "play" else _flip_detail(st[4]))
            for st in e[4]
        )
        return ("window", e[1], e[2], 1 - e[3], steps)
    if k == "end":
        _, T, states, discards, sizes, bans = e
        return (
            "end",
            T,
            (_flip_state(states[1]), _flip_state(states[0])),
            tuple((1 - p, c) for p, c in discards),
            (sizes[1], sizes[0]),
            (bans[1], bans[0]),
        )
    if k == "reflect":
        return ("reflect", 1 - e[1], 1 - e[2])
    return (k, 1 - e[1], *e[2:])


def _jsonable(v: Any) -> Any:
    if isinstance(v, tuple):
        return [_jsonable(x) for x in v]
    return v


ENCHANT_WORDS = {k: v["en"] for k, v in ENCHANT_NAME.items()}
