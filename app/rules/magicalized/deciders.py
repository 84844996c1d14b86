"""Deciders: who answers at each opportunity (§3, the engine contract).

* :class:`AllPass` always passes (a missing orders file, §5);
* :class:`Scripted` answers a fixed list, one answer per opportunity of its side (tests);
* :class:`StandingOrders` plays the player's rules (§4.3 semantics, G22, G53-G55) and keeps the
  rule trace of the private report (§4.4).

A decider sees only ``decide(side, window, state, hand)``: the public state, the window and its
own hand (G21); it is given nothing of the opponent's hand or orders.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from .engine import PublicState, WindowView
from .plays import Cond, Event, Play, PlaySpec, Rule, SideOrders, Value

MAX_TRACE = 2000
"""Trace entries kept per side; later ones are counted, not kept."""


class AllPass:
    """Always passes. ``passive``: the engine never asks it (the battle is then exactly the
    battle without cards)."""

    passive = True

    def decide(
        self, side: int, window: WindowView, state: PublicState, hand: tuple[str, ...]
    ) -> Play | None:
        """Pass."""
        return None


class Scripted:
    """Answers ``answers[k]`` at its side's k-th opportunity (a :class:`~.plays.PlaySpec` or
    ``None`` to pass), then passes. For tests; every play must be legal when it is answered
    (else the engine raises ``IllegalPlay``). ``asked`` records ``(window kind, turn)`` of each
    opportunity."""

    passive = False

    def __init__(self, answers: Sequence[PlaySpec | None]) -> None:
        self.answers = list(answers)
        self.asked: list[tuple[str, int]] = []

    def decide(
        self, side: int, window: WindowView, state: PublicState, hand: tuple[str, ...]
    ) -> Play | None:
        """The next scripted answer."""
        k = len(self.asked)
        self.asked.append((window.kind, state.turn))
        spec = self.answers[k] if k < len(self.answers) else None
        return Play(spec) if spec is not None else None


def _side_ok(rel: str, actual: int, me: int) -> bool:
    return rel == "any" or (actual == me) == (rel == "my")


def _sides(rel: str, me: int) -> tuple[int, ...]:
    return (0, 1) if rel == "any" else ((me,) if rel == "my" else (1 - me,))


def event_matches(ev: Event, me: int, window: WindowView, state: PublicState) -> bool:
    """True when ``ev`` matches the stack's top card, or the interrupted item when the stack is
    empty (§4.3 Semantics; G23, G34, G42)."""
    top = state.stack_top()
    if top is not None:
        return _top_matches(ev, me, top)
    return ev.kind == window.kind and _item_matches(ev, me, window.events())


def _top_matches(ev: Event, me: int, top: tuple[int, str]) -> bool:
    return (
        ev.kind == "CARD"
        and _side_ok(ev.side, top[0], me)
        and (ev.what is None or ev.what == top[1])
    )


def _item_matches(
    ev: Event, me: int, events: tuple[tuple[int, str | None, str | None], ...]
) -> bool:
    """``ev`` (of the item's kind) against the item's events (one per actor in an ACT window:
    my actor and the enemy's alike, G23)."""
    for side, sword, what in events:
        if not _side_ok(ev.side, side, me):
            continue
        if ev.kind == "ACT":
            if ev.what is not None:
                ok = what == ev.what
            else:
                ok = ev.sword is None or sword == ev.sword
        elif ev.kind == "EFFECT":
            ok = (
                (ev.sword is None and ev.what is None)
                or (ev.sword is not None and sword == ev.sword)
                or (ev.what is not None and what == ev.what)
            )
        elif ev.kind in ("VANISH", "HIT"):
            ok = ev.sword is None or sword == ev.sword
        else:
            ok = True
        if ok:
            return True
    return False


def _value(v: Value, me: int, window: WindowView, state: PublicState) -> int | None:
    if v.kind == "int":
        return v.n
    if v.kind == "turn":
        return state.turn
    if v.kind == "damage":
        return window.damage  # G26: None outside a HIT window
    return state.value(me if v.side == "my" else 1 - me, v.attr)


_CMP = {
    "<": int.__lt__,
    "<=": int.__le__,
    "=": int.__eq__,
    "!=": int.__ne__,
    ">=": int.__ge__,
    ">": int.__gt__,
}


def cond_holds(
    c: Cond, me: int, window: WindowView, state: PublicState, hand: tuple[str, ...]
) -> bool:
    """Whether condition ``c`` holds for player ``me`` now (§4.3, G26, G31, G35, G36, G40)."""
    k = c.kind
    if k == "cmp":
        assert c.a is not None and c.b is not None
        a, b = _value(c.a, me, window, state), _value(c.b, me, window, state)
        r = a is not None and b is not None and _CMP[c.op](a, b)
    elif k == "critical":
        r = any(state.critical(s) for s in _sides(c.side, me))
    elif k == "has":
        r = any(state.value(s, c.name) > 0 for s in _sides(c.side, me))
    elif k == "holds":
        r = any(state.holds(s, c.name) for s in _sides(c.side, me))
    elif k == "used":
        r = any(state.used(s, c.name) for s in _sides(c.side, me))
    elif k == "hand":
        r = c.name in hand
    elif k == "stack-empty":
        r = state.stack_top() is None
    elif k == "stack-has":
        r = any(code == c.name for _, code, _ in state.stack)
    elif k == "targets":
        if state.stack_top() is not None:
            t = state.top_targets()
            targets: tuple[int, ...] = () if t is None else (t,)
        else:
            targets = window.targets()
        r = any(t in _sides(c.side, me) for t in targets)
    else:  # lead (G36)
        r = window.leader == me
    return r != c.negate


class StandingOrders:
    """Plays ``orders`` (§4.3): at each opportunity the first rule, top to bottom, of the
    version in force (G53, G54: read at every opportunity) whose event matches, whose conditions
    hold, whose card is in hand and not banned, whose arguments are legal (G41), and which has
    not fired in this window (G22) nor, with ``ONCE``, in this battle (each version its own
    marks, G55); otherwise it passes.

    ``trace`` keeps, for the private report, one entry per rule whose event matched:
    ``(turn, window kind, window id, version start, rule number, outcome)``, outcome
    ``"fired"`` or why it was skipped (``"fired in this window"``, ``"ONCE"``, ``"condition 2"``,
    ``"not in hand"``, ``"banned"``, ``"target gone"``, …), up to :data:`MAX_TRACE` entries.
    """

    def __init__(self, orders: SideOrders, *, trace: bool = True) -> None:
        self.orders = orders
        self.passive = not any(v.rules for v in orders.versions)
        self.keep = trace
        self.trace: list[tuple[int, str, int, int, int, str]] = []
        self.omitted = 0
        self._wid = -1
        self._fired: set[tuple[int, int]] = set()
        self._once: set[tuple[int, int]] = set()
        # each version's rules by event kind, in their order (only those can match)
        self._by_kind: dict[int, dict[str, tuple[Rule, ...]]] = {}
        for v in orders.versions:
            kinds: dict[str, list[Rule]] = {}
            for r in v.rules:
                kinds.setdefault(r.event.kind, []).append(r)
            self._by_kind[v.start] = {k: tuple(rs) for k, rs in kinds.items()}

    def _note(self, entry: tuple[int, str, int, int, int, str]) -> None:
        if not self.keep:
            return
        if len(self.trace) < MAX_TRACE:
            self.trace.append(entry)
        else:
            self.omitted += 1

    def decide(
        self, side: int, window: WindowView, state: PublicState, hand: tuple[str, ...]
    ) -> Play | None:
        """The play of the first rule that fires, or ``None``."""
        T = state.turn
        version = self.orders.version_at(T)
        if version is None or not version.rules:
            return None
        top = state.stack_top()
        kind = "CARD" if top is not None else window.kind
        rules = self._by_kind[version.start].get(kind)
        if not rules:
            return None
        wid = window.wid
        if wid != self._wid:
            self._wid = wid
            self._fired = set()
        vs = version.start
        events = None if top is not None else window.events()
        for rule in rules:
            if events is None:
                assert top is not None
                if not _top_matches(rule.event, side, top):
                    continue
            elif not _item_matches(rule.event, side, events):
                continue
            key = (vs, rule.no)
            base = (T, kind, wid, vs, rule.no)
            if key in self._fired:
                self._note((*base, "fired in this window"))
                continue
            if rule.once and key in self._once:
                self._note((*base, "ONCE"))
                continue
            failed = next(
                (
                    i
                    for i, c in enumerate(rule.conds, start=1)
                    if not cond_holds(c, side, window, state, hand)
                ),
                0,
            )
            if failed:
                self._note((*base, f"condition {failed}"))
                continue
            reason = state.legality(rule.play, side, window, hand)
            if reason is not None:
                self._note((*base, reason))
                continue
            self._fired.add(key)
            if rule.once:
                self._once.add(key)
            self._note((*base, "fired"))
            return Play(rule.play)
        return None


def trace_of(decider: Any) -> tuple[tuple[tuple[int, str, int, int, int, str], ...], int]:
    """``(entries, omitted)`` of a decider's trace (empty for deciders that keep none)."""
    if isinstance(decider, StandingOrders):
        return tuple(decider.trace), decider.omitted
    return (), 0
