"""The Margaret Magicalized battle engine: a Margaret Hundred battle of one swordmaster a side,
interrupted by magic cards played on a stack at the windows of G17.

Source: ``shared/rules/margaret-magicalized.md`` (§1, G1-G63) on ``margaret-hundred.md`` §7-§9.
A separate engine from ``app.rules.hundred.engine`` (whose hot paths have no place for windows,
and whose results must not change): it keeps Hundred's turn cycle (§8.1), action right (§8.5),
procedure (§8.6), damage (§8.8, with G7's worlds), simultaneous action and tempos (§8.10, G37),
death and revival (§8.3, H30, H31) and judges (§8.4, H55-H57), restricted to what lists 1-2 can
do (no builds, parties, MP, Dodge, Drive, Sleep, Slow, Guard; G5).

A **window** (G17) opens before each ACT (an action procedure), VANISH (a Limited vanishing at
step 4, G45), REFLECT, HIT (every landing hit, G25), EFFECT (a sword's non-damage effect or one
rider group, G28) and DEATH (a death with its revival). At each opportunity the engine asks the
deciding player's *decider* ``decide(side, window, state, hand)`` (:class:`Decider`), which
answers ``None`` (pass) or a :class:`~.plays.Play`. The stack follows G19/G24: a played card goes
on top and its player leads on it; two passes in a row resolve the top; then the new top's owner
(or the window's leader once the stack is empty) leads, passes counted afresh; the item is
processed after two passes with nothing above it. 対策 resolves at once (G11). The acting
swordmaster's player leads its windows; a simultaneous action is one sequence led by the
先介入プ, side ``lead`` in even turns and the other in odd turns (G18, G20, G39).

Pure and deterministic: a battle is a function of the two swordmasters, the two hands, the two
deciders and the lead (§6.6). With ``log=False`` no event is made; the result is the same.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import Any, Protocol

from app.rules.margaret.model import Swordmaster

from .plays import Play, PlaySpec, Ref
from .swords import (
    ATTACK,
    BY_CODE,
    CARD,
    CODES,
    CONTROL,
    LAST_TURN,
    SKIP,
    STATUS_ATTRS,
    SUPPORT,
    SwordDef,
)

ENGINE_VERSION = "g1"
"""Bump whenever a change of the rules code may change any battle's result or log."""


class IllegalPlay(ValueError):
    """A decider answered a play that is not legal at that opportunity (G41). Deciders must
    only answer legal plays (:meth:`PublicState.legality` says which are)."""


class Decider(Protocol):
    """Who decides for one player at each opportunity (§3 "the engine contract")."""

    def decide(
        self, side: int, window: WindowView, state: PublicState, hand: tuple[str, ...]
    ) -> Play | None:
        """``None`` to pass, or a legal :class:`~.plays.Play`. ``side`` is the player (0 = A),
        ``hand`` its remaining cards (codes, in the order of its ``HAND`` line)."""
        ...


# --------------------------------------------------------------------------- battle state


class _Sw:
    """A sword instance (Hundred §12.2): its definition, used mark and enchantments."""

    __slots__ = (
        "d",
        "code",
        "uid",
        "owner",
        "used",
        "unseen",
        "se",
        "pe",
        "early",
        "act",
        "lim",
        "crit",
    )

    def __init__(self, d: SwordDef, uid: int, owner: _Sm | None) -> None:
        self.d = d
        self.code = d.code
        self.uid = uid
        self.owner = owner
        self.used = -1
        self.unseen = False
        self.se = self.pe = self.early = 0
        self.act = d.act
        self.lim = d.limited
        self.crit = d.critical


class _Sm:
    """A swordmaster's battle state."""

    __slots__ = (
        "side",
        "name",
        "hp",
        "max_hp",
        "atk",
        "df",
        "spd",
        "ap",
        *STATUS_ATTRS,
        "dead",
        "swords",
    )

    def __init__(self, side: int, m: Swordmaster, uid: Callable[[], int]) -> None:
        self.side = side
        self.name = m.name
        self.hp = self.max_hp = m.hp
        self.atk = m.atk
        self.df = m.defense
        self.spd = m.spd
        self.ap = 0
        self.stun = self.poison = self.reflect = self.shield = 0
        self.soul = self.life = self.push = self.quick = 0
        self.dead = False
        self.swords: list[_Sw] = [_Sw(CODES[s.code], uid(), self) for s in m.swords]


class _Act:
    """One holder's action: the step-1 snapshot (H11) and the step-2 target."""

    __slots__ = ("u", "sw", "d", "unseen", "se", "pe", "tg", "stunned", "kind")

    def __init__(self, u: _Sm) -> None:
        self.u = u
        self.sw: _Sw | None = None
        self.d: SwordDef | None = None
        self.unseen = False
        self.se = self.pe = 0
        self.tg: _Sw | None = None
        self.stunned = False
        self.kind = SKIP


class _Item:
    """The item a window interrupts (G17): its kind, leader, the event's side, the executor
    (whose sword is ``THIS``, G23/G49), ``THIS``, and what the kind needs."""

    __slots__ = (
        "wid",
        "kind",
        "leader",
        "side",
        "ex",
        "sw",
        "actors",
        "status",
        "act",
        "target",
        "countered",
    )

    def __init__(self, kind: str, leader: int, side: int, ex: int, sw: _Sw | None) -> None:
        self.wid = 0
        self.kind = kind
        self.leader = leader
        self.side = side
        self.ex = ex
        self.sw = sw
        self.actors: tuple[_Sm, ...] = ()
        self.status: str | None = None
        self.act: _Act | None = None
        self.target: _Sm | None = None
        self.countered = False


class _Bound:
    """A play bound to the battle at play (G9): absolute sides, sword instances, the card below
    (覆), the inner bound play (虹)."""

    __slots__ = ("spec", "side", "sw", "pos_ref", "inner", "order", "below", "vanish")

    def __init__(self, spec: PlaySpec) -> None:
        self.spec = spec
        self.side: int | None = None
        self.sw: _Sw | None = None
        self.pos_ref: _Sw | None = None
        self.inner: _Bound | None = None
        self.order: list[_Sw] = []
        self.below: _Card | None = None
        self.vanish: _Item | None = None

    def target_side(self) -> int | None:
        """The side of the swordmaster this play targets (``targets S``), or ``None``."""
        if self.inner is not None:
            return self.inner.target_side()
        if self.below is not None:
            return self.below.b.target_side()
        if self.vanish is not None:
            return self.vanish.side
        return self.side


class _Card:
    """A card on the stack."""

    __slots__ = ("player", "code", "b", "record", "countered")

    def __init__(self, player: int, b: _Bound, record: list[Any]) -> None:
        self.player = player
        self.code = b.spec.card
        self.b = b
        self.record = record
        self.countered = False


# --------------------------------------------------------------------------- views for deciders


class PublicState:
    """What every player may see at an opportunity (G21): both swordmasters, the stack and its
    declarations, discards, hand sizes, bans, worlds, the turn. Read it during ``decide`` only
    (it is a view of the running battle). Sides are 0 (A) and 1 (B)."""

    __slots__ = ("_b",)

    def __init__(self, b: _Battle) -> None:
        self._b = b

    @property
    def turn(self) -> int:
        """The turn number T."""
        return self._b.T

    @property
    def worlds(self) -> tuple[int, int]:
        """``(燃える世界, 凍れる世界)`` in force this turn (G8)."""
        return self._b.burn, self._b.freeze

    @property
    def stack(self) -> tuple[tuple[int, str, str], ...]:
        """The cards on the stack, bottom first: ``(player, card code, declaration)``."""
        return tuple((c.player, c.code, c.b.spec.text()) for c in self._b.stack)

    def stack_top(self) -> tuple[int, str] | None:
        """``(player, card code)`` of the top card, or ``None`` when the stack is empty."""
        st = self._b.stack
        return (st[-1].player, st[-1].code) if st else None

    def top_targets(self) -> int | None:
        """The side the top card targets, or ``None`` (no card, or no target)."""
        st = self._b.stack
        return st[-1].b.target_side() if st else None

    def value(self, side: int, attr: str) -> int:
        """``side``'s ``hp``, ``maxhp``, ``atk``, ``def``, ``spd``, ``ap`` or status count."""
        x = self._b.sms[side]
        if attr == "maxhp":
            return x.max_hp
        if attr == "def":
            return x.df
        return int(getattr(x, attr))

    def critical(self, side: int) -> bool:
        """G3: 2 x HP <= max HP."""
        x = self._b.sms[side]
        return 2 * x.hp <= x.max_hp

    def holds(self, side: int, code: str) -> bool:
        """``side``'s list holds the sword ``code``."""
        return any(s.code == code for s in self._b.sms[side].swords)

    def swords(self, side: int) -> tuple[tuple[str, bool, bool, int, int, int], ...]:
        """``side``'s list: ``(code, used this turn, unseen, stunning, poisoning, early)``."""
        cyc = self._b.cyc
        return tuple(
            (s.code, s.used == cyc, s.unseen, s.se, s.pe, s.early) for s in self._b.sms[side].swords
        )

    def used(self, side: int, card: str) -> bool:
        """``side`` has used kind ``card`` (G30)."""
        return card in self._b.used[side]

    def banned(self, side: int, card: str) -> bool:
        """Kind ``card`` is forbidden to ``side`` by 対策."""
        return card in self._b.bans[side]

    def hand_size(self, side: int) -> int:
        """How many cards ``side`` holds."""
        return self._b.hand_sizes[side]

    def legality(
        self, spec: PlaySpec, side: int, window: WindowView, hand: Sequence[str]
    ) -> str | None:
        """``None`` when ``side`` may play ``spec`` now (card in ``hand``, not banned, legal
        arguments, G41), else the reason it may not (``"not in hand"``, ``"banned"``,
        ``"target gone"``, …)."""
        r = self._b.bind(side, spec, window._item, hand)
        return r if isinstance(r, str) else None

    def snapshot(self) -> tuple[Any, ...]:
        """Everything public, as one comparable value (tests: secrecy)."""
        b = self._b
        return (
            b.T,
            b.first,
            b.burn,
            b.freeze,
            b.lead,
            tuple(_sm_public(x, b.cyc) for x in b.sms),
            self.stack,
            tuple(c.countered for c in b.stack),
            tuple(b.discards),
            tuple(b.hand_sizes),
            tuple(tuple(sorted(x)) for x in b.bans),
            tuple(tuple(sorted(x)) for x in b.used),
            tuple(tuple(r) for r in b.records),
        )


def _sm_public(x: _Sm, cyc: int) -> tuple[Any, ...]:
    return (
        x.side,
        x.name,
        x.hp,
        x.max_hp,
        x.atk,
        x.df,
        x.spd,
        x.ap,
        tuple(getattr(x, a) for a in STATUS_ATTRS),
        x.dead,
        tuple((s.code, s.uid, s.used == cyc, s.unseen, s.se, s.pe, s.early) for s in x.swords),
    )


class WindowView:
    """The window a decision is asked in: its kind, its leader, its event(s), ``THIS`` and, in
    a HIT window, the damage shown (G26). Read it during ``decide`` only."""

    __slots__ = ("_b", "_item")

    def __init__(self, b: _Battle, item: _Item) -> None:
        self._b = b
        self._item = item

    @property
    def wid(self) -> int:
        """The window's serial number in the battle (G22: once per window)."""
        return self._item.wid

    @property
    def kind(self) -> str:
        """``ACT``, ``VANISH``, ``REFLECT``, ``HIT``, ``EFFECT`` or ``DEATH``."""
        return self._item.kind

    @property
    def leader(self) -> int:
        """The side that leads the window (the item's handler, G18, G36)."""
        return self._item.leader

    def events(self) -> tuple[tuple[int, str | None, str | None], ...]:
        """The item's event(s), ``(side, sword code or None, what)``: ACT one per actor with
        the predicted sword (G42; ``what`` ``"STUN"``/``"WHIFF"`` when none), VANISH/HIT the
        owner or the one hit with the sword, EFFECT the receiver with the acting sword and the
        status given (or ``None``), REFLECT the reflector, DEATH the dying one."""
        it = self._item
        if it.kind == "ACT":
            out: list[tuple[int, str | None, str | None]] = []
            for x in it.actors:
                if x.stun:
                    out.append((x.side, None, "STUN"))
                else:
                    s = self._b.pick(x)
                    out.append((x.side, s.code, None) if s else (x.side, None, "WHIFF"))
            return tuple(out)
        code = it.sw.code if it.sw is not None else None
        if it.kind in ("REFLECT", "DEATH"):
            return ((it.side, None, None),)
        return ((it.side, code, it.status),)

    def this(self, side: int) -> str | None:
        """The code of the window's sword owned by ``side`` (G23), or ``None``."""
        s = self._b.this(self._item, side)
        return s.code if s is not None else None

    @property
    def damage(self) -> int | None:
        """The HIT window's damage as it would be decided now (G26), else ``None``."""
        it = self._item
        if it.kind != "HIT" or it.act is None or it.target is None:
            return None
        return self._b.predict(it.act, it.target)

    def targets(self) -> tuple[int, ...]:
        """The item's target side(s) for ``targets`` with an empty stack (G35): ACT → each
        actor's predicted target (an attack: the enemy; otherwise the actor), VANISH → the
        owner, REFLECT → the reflector, HIT → the one hit, EFFECT → the receiver, DEATH → the
        dying one."""
        it = self._item
        if it.kind == "ACT":
            sides: list[int] = []
            for x in it.actors:
                s = None if x.stun else self._b.pick(x)
                sides.append(1 - x.side if s is not None and s.d.kind == ATTACK else x.side)
            return tuple(sides)
        return (it.side,)

    def snapshot(self) -> tuple[Any, ...]:
        """The window as one comparable value (tests: secrecy)."""
        return (
            self.wid,
            self.kind,
            self.leader,
            self.events(),
            self.this(0),
            self.this(1),
            self.damage,
            self.targets(),
        )


# --------------------------------------------------------------------------- the battle

_RAW: dict[str, Callable[[_Sm, _Sm, int], int]] = {
    "atk-def": lambda u, t, T: u.atk - t.df,
    "2atk-def": lambda u, t, T: 2 * u.atk - t.df,
    "atk": lambda u, t, T: u.atk,
    "halfhp": lambda u, t, T: -(-t.hp // 2),
    "hp": lambda u, t, T: t.hp,
    "pow2t": lambda u, t, T: 1 << T if T >= 0 else 0,
}


class _Battle:
    def __init__(
        self,
        a: Swordmaster,
        b: Swordmaster,
        hands: tuple[Sequence[str], Sequence[str]],
        deciders: tuple[Decider | None, Decider | None],
        lead: int,
        log: bool,
        stop_after: int | None,
    ) -> None:
        self.uid = 0
        self.sms = (_Sm(0, a, self._next_uid), _Sm(1, b, self._next_uid))
        self.T = 0
        self.cyc = 0
        self.first = True
        self.lead = lead
        self.burn = self.freeze = 0
        self.hands: list[list[str]] = [list(hands[0]), list(hands[1])]
        self.hand_sizes = [len(self.hands[0]), len(self.hands[1])]
        self.deciders = deciders
        self.passive = [d is None or bool(getattr(d, "passive", False)) for d in deciders]
        self.live = self._liveness()
        self.stack: list[_Card] = []
        self.discards: list[tuple[int, str]] = []
        self.bans: tuple[set[str], set[str]] = (set(), set())
        self.used: tuple[set[str], set[str]] = (set(), set())
        self.records: list[list[Any]] = []
        self.log: list[Any] | None = [] if log else None
        self.steps: list[Any] | None = None
        self.nwin = 0
        self.quiet = 0
        self.deaths = False
        self.anyqs = False
        self.stop_after = stop_after

    def _next_uid(self) -> int:
        self.uid += 1
        return self.uid

    def _liveness(self) -> bool:
        return any(self.hands[s] and not self.passive[s] for s in (0, 1))

    # -- helpers ----------------------------------------------------------------------------

    def leader(self) -> int:
        """The 先介入プ of the current turn (G20, G16)."""
        return self.lead if self.T % 2 == 0 else 1 - self.lead

    def pick(self, u: _Sm) -> _Sw | None:
        """Step 1: the first executable sword (H9, G3), ignoring Stun."""
        T, cyc = self.T, self.cyc
        for s in u.swords:
            if s.act <= T and s.used != cyc and (not s.crit or 2 * u.hp <= u.max_hp):
                return s
        return None

    def this(self, item: _Item, side: int) -> _Sw | None:
        """The window's sword owned by ``side`` (G23): an ACT window's predicted sword of that
        side's actor; otherwise the item's sword when its executor is ``side``."""
        if item.kind == "ACT":
            for x in item.actors:
                if x.side == side:
                    return None if x.stun else self.pick(x)
            return None
        return item.sw if item.ex == side else None

    def predict(self, a: _Act, t: _Sm) -> int:
        """The damage of ``a``'s hit on ``t`` as it would be decided now (G26): raw → Shield if
        held and not <不可識> → worlds; nothing consumed."""
        assert a.d is not None and a.d.raw is not None
        F = _RAW[a.d.raw](a.u, t, self.T)
        if t.shield and not a.unseen:
            F //= 2
        return (F << self.burn) >> self.freeze

    def _ev(self, *e: Any) -> None:
        if self.log is not None:
            self.log.append(e)

    # -- windows and the stack (G17-G19, G24) ----------------------------------------------

    def window(self, item: _Item) -> None:
        """Run the opportunity sequence of ``item`` (G19) and resolve every card played."""
        self.nwin += 1
        if not self.live:
            self.quiet += 1
            return
        item.wid = self.nwin
        stack = self.stack
        steps: list[Any] = []
        self.steps = steps
        opp = item.leader
        passes = 0
        while True:
            play = self._ask(opp, item)
            if play is None:
                passes += 1
                if passes < 2:
                    opp = 1 - opp
                    continue
                if not stack:
                    break
                self._resolve(stack.pop(), item)
                opp = stack[-1].player if stack else item.leader
                passes = 0
                continue
            c = self._play(opp, play, item)
            if c.code == "策":  # G11, G24: no opportunity, resolves at once
                self._resolve(c, item)
                opp = stack[-1].player if stack else item.leader
            else:
                stack.append(c)
                opp = c.player
            passes = 0
        self.steps = None
        if steps:
            self._ev("window", item.wid, item.kind, item.leader, tuple(steps))
        else:
            self.quiet += 1

    def _ask(self, side: int, item: _Item) -> Play | None:
        hand = self.hands[side]
        if not hand or self.passive[side]:
            return None
        d = self.deciders[side]
        assert d is not None
        return d.decide(side, WindowView(self, item), PublicState(self), tuple(hand))

    def _play(self, side: int, play: Play, item: _Item) -> _Card:
        r = self.bind(side, play.spec, item, self.hands[side])
        if isinstance(r, str):
            raise IllegalPlay(f"side {'AB'[side]} cannot play {play.spec.text()} now: {r}")
        self.hands[side].remove(play.spec.card)
        self.hand_sizes[side] -= 1
        where = "CARD" if self.stack else item.kind
        record: list[Any] = [self.T, side, play.spec.card, play.spec.text(), where, None]
        self.records.append(record)
        self.live = self._liveness()
        if self.steps is not None:
            self.steps.append(("play", side, play.spec.card, play.spec.text(), where))
        return _Card(side, r, record)

    def _resolve(self, c: _Card, item: _Item) -> None:
        detail: tuple[Any, ...] = ()
        if c.countered:
            result = "countered"
        elif c.code in self.bans[c.player]:
            result = "forbidden"  # G11: P's copies of K on the stack resolve with no effect
        else:
            if self._check(c.player, c.b, item):
                detail = self._apply(c.player, c.b)
                result = "resolved"
            else:
                result = "target gone"
        if result in ("resolved", "target gone"):  # G30
            self.used[c.player].add(c.code)
        self.discards.append((c.player, c.code))
        c.record[5] = result
        if self.steps is not None:
            self.steps.append(("resolve", c.player, c.code, result, detail))

    # -- binding at play (G9, G41) -----------------------------------------------------------

    def bind(self, player: int, spec: PlaySpec, item: _Item, hand: Sequence[str]) -> _Bound | str:
        """``spec`` played by ``player`` now, bound to instances, or why it is not legal."""
        if spec.card not in hand:
            return "not in hand"
        if spec.card in self.bans[player]:
            return "banned"
        rest = list(hand)
        rest.remove(spec.card)
        for d in spec.discards():  # G10, G41: named discards besides the card itself
            if d not in rest:
                return "discard not in hand"
            rest.remove(d)
        top = self.stack[-1] if self.stack else None
        return self._bind(player, spec, item, top)

    def _side(self, player: int, rel: str | None) -> int:
        return player if rel == "my" else 1 - player

    def _ref(self, player: int, ref: Ref, item: _Item) -> _Sw | str:
        side = self._side(player, ref.side)
        x = self.sms[side]
        if ref.kind == "this":
            s = self.this(item, side)
            if s is None or s.owner is None:
                return "no such sword"
            return s
        if ref.kind == "pos":
            return x.swords[ref.k - 1] if 1 <= ref.k <= len(x.swords) else "no such sword"
        n = 0
        for s in x.swords:
            if s.code == ref.sword:
                n += 1
                if n == ref.k:
                    return s
        return "no such sword"

    def _bind(self, player: int, spec: PlaySpec, item: _Item, top: _Card | None) -> _Bound | str:
        b = _Bound(spec)
        schema = CARD[spec.card].schema
        if spec.side is not None:
            b.side = self._side(player, spec.side)
        if schema in ("ref", "ref-enchant"):
            assert spec.ref is not None
            r = self._ref(player, spec.ref, item)
            if isinstance(r, str):
                return r
            if schema == "ref-enchant" and r.d.kind != ATTACK:  # G41: 闇 needs an attack sword
                return "not an attack sword"
            b.sw, b.side = r, self._side(player, spec.ref.side)
        elif schema in ("trail", "twilight"):
            assert spec.pos is not None and b.side is not None
            x = self.sms[b.side]
            if spec.pos.kind == "index" and spec.pos.index > len(x.swords) + 1:
                return "position beyond n+1"
            if spec.pos.ref is not None:
                if self._side(player, spec.pos.ref.side) != b.side:  # G32
                    return "not a sword of the receiver"
                r = self._ref(player, spec.pos.ref, item)
                if isinstance(r, str):
                    return r
                b.pos_ref = r
        elif schema == "order":  # G33
            assert b.side is not None
            x = self.sms[b.side]
            seen: dict[str, int] = {}
            for code in spec.order:
                k = seen[code] = seen.get(code, 0) + 1
                inst = [s for s in x.swords if s.code == code]
                if k > len(inst):
                    return "more copies named than present"
                b.order.append(inst[k - 1])
        elif schema == "statuses":  # G31
            assert b.side is not None
            x = self.sms[b.side]
            if not any(getattr(x, st) for st, _ in spec.statuses):
                return "holds none of those statuses"
        elif schema == "counter":  # G11, G41, G46
            assert b.side is not None and spec.target is not None
            if spec.target not in self.used[b.side]:
                return "kind not used by that player"
            if spec.target in self.bans[b.side]:
                return "already banned"
        elif schema == "rainbow":
            assert spec.inner is not None
            inner = self._bind(player, spec.inner, item, top)  # may name a banned kind (細則 5)
            if isinstance(inner, str):
                return inner
            b.inner = inner
        elif spec.card == "覆":  # G29
            if top is not None:
                if top.countered or not _ends_in_vanish(top.b.spec):
                    return "no pending vanishing"
                b.below = top
            elif item.kind == "VANISH" and not item.countered:
                b.vanish = item
            else:
                return "no pending vanishing"
        return b

    # -- resolution (G9-G16, G29-G33, G38) --------------------------------------------------

    def _check(self, player: int, b: _Bound, item: _Item) -> bool:
        """True when every named discard is still in hand (G10, G38) and every target of ``b``
        is still there (G9, G32)."""
        have = list(self.hands[player])
        for d in b.spec.discards():
            if d not in have:
                return False
            have.remove(d)
        return self._targets_ok(b)

    def _targets_ok(self, b: _Bound) -> bool:
        spec = b.spec
        schema = CARD[spec.card].schema
        if schema in ("ref", "ref-enchant"):
            return b.sw is not None and b.sw.owner is not None
        if schema in ("trail", "twilight"):
            assert spec.pos is not None and b.side is not None
            x = self.sms[b.side]
            if spec.pos.kind == "index":
                return spec.pos.index <= len(x.swords) + 1
            if b.pos_ref is not None:
                return b.pos_ref.owner is x
            return True
        if schema == "counter":
            assert b.side is not None and spec.target is not None
            return spec.target in self.used[b.side] and spec.target not in self.bans[b.side]
        if schema == "rainbow":
            assert b.inner is not None
            return self._targets_ok(b.inner)
        if b.vanish is not None:
            return b.vanish.sw is not None and b.vanish.sw.owner is not None
        return True

    def _discard(self, player: int, code: str) -> None:
        self.hands[player].remove(code)
        self.hand_sizes[player] -= 1
        self.discards.append((player, code))
        self.live = self._liveness()

    def _apply(self, player: int, b: _Bound) -> tuple[Any, ...]:
        """The effect of a checked play (its named discards made first, G10); returns what
        happened, for the log."""
        for d in b.spec.discards():
            self._discard(player, d)
        return self._effect_of(b)

    def _effect_of(self, b: _Bound) -> tuple[Any, ...]:
        spec = b.spec
        code = spec.card
        if code == "燃":
            self.burn += 1
            return ("burn", self.burn)
        if code == "凍":
            self.freeze += 1
            return ("freeze", self.freeze)
        if code == "星":  # G16: T rises at once, both worlds end
            self.T += 1
            self.burn = self.freeze = 0
            return ("years", self.T)
        if code == "愛":  # G15, G48
            assert b.side is not None
            x = self.sms[b.side]
            x.ap += 3
            return ("ap", b.side, x.ap)
        if code == "知":
            assert b.side is not None
            x = self.sms[b.side]
            x.quick += 1
            self.anyqs = True
            return ("gain", b.side, "quick", x.quick)
        if code == "闇":
            s = b.sw
            assert s is not None and s.owner is not None
            if spec.enchant == "unseen":
                s.unseen = True  # only one per sword (§1.3)
            elif spec.enchant == "se":
                s.se += 1
            else:
                s.pe += 1
            return ("enchant", s.owner.side, s.code, spec.enchant)
        if code == "無":
            s = b.sw
            assert s is not None and s.owner is not None
            side = s.owner.side
            s.owner.swords.remove(s)
            s.owner = None
            return ("vanish", side, s.code)
        if code == "覆":  # G12, G29
            if b.below is not None:
                b.below.countered = True
                return ("counter", b.below.player, b.below.code)
            assert b.vanish is not None and b.vanish.sw is not None
            b.vanish.countered = True
            return ("keep", b.vanish.side, b.vanish.sw.code)
        if code in ("赤", "緑", "白", "青", "黒", "黄"):  # G14, G32
            assert b.side is not None and spec.pos is not None and spec.sword is not None
            x = self.sms[b.side]
            k = spec.pos.kind
            if k == "front":
                at = 0
            elif k == "end":
                at = len(x.swords)
            elif k == "index":
                at = spec.pos.index - 1
            else:
                assert b.pos_ref is not None
                at = x.swords.index(b.pos_ref) + (1 if k == "after" else 0)
            x.swords.insert(at, _Sw(BY_CODE[spec.sword], self._next_uid(), x))
            return ("add", b.side, spec.sword, at + 1)
        if code == "心":  # G33
            assert b.side is not None
            x = self.sms[b.side]
            first: list[_Sw] = []
            for s in b.order:
                if s.owner is x and s not in first:
                    first.append(s)
            x.swords[:] = first + [s for s in x.swords if s not in first]
            return ("order", b.side, tuple(s.code for s in x.swords))
        if code == "払":  # G31
            assert b.side is not None
            x = self.sms[b.side]
            removed = []
            for st, n in spec.statuses:
                held = getattr(x, st)
                k = held if n is None else min(n, held)
                if k:
                    setattr(x, st, held - k)
                    removed.append((st, k))
            return ("dispel", b.side, tuple(removed))
        if code == "策":  # G11
            assert b.side is not None and spec.target is not None
            self.bans[b.side].add(spec.target)
            return ("ban", b.side, spec.target)
        assert code == "虹" and b.inner is not None  # G10, G11: gains the effect
        return ("rainbow", self._effect_of(b.inner))

    # -- the action procedure (§8.6, G13, G45) -----------------------------------------------

    def _decide(self, u: _Sm) -> _Act:
        """Step 1 (after the AP is spent): Stun, or the first executable sword, snapshot."""
        a = _Act(u)
        if u.stun:
            a.stunned = True
            return a
        s = self.pick(u)
        if s is not None:
            a.sw, a.d, a.kind = s, s.d, s.d.kind
            a.unseen, a.se, a.pe = s.unseen, s.se, s.pe
            if s.d.kind == CONTROL:  # step 2: the next sword (H10), an instance
                i = u.swords.index(s) + 1
                a.tg = u.swords[i] if i < len(u.swords) else None
        return a

    def _predicted(self, u: _Sm) -> str:
        """What step 1 would pick now (G42): a sword code, ``STUN`` or ``WHIFF``."""
        if u.stun:
            return "STUN"
        s = self.pick(u)
        return s.code if s is not None else "WHIFF"

    def _pay(self, a: _Act) -> None:
        """Step 4's marks: used mark, or the Stun of a stunned skip."""
        u = a.u
        if a.stunned:
            u.stun -= 1
            self._ev("skip", u.side, "stun")
        elif a.sw is None:
            self._ev("skip", u.side, "none")
        else:
            a.sw.used = self.cyc
            self._ev("act", u.side, a.sw.code)

    def _vanish(self, a: _Act, leader: int) -> None:
        """Step 4's Limited vanishing with its VANISH window (G45, G12)."""
        s = a.sw
        assert s is not None
        it = _Item("VANISH", leader, a.u.side, a.u.side, s)
        self.window(it)
        if it.countered:
            self._ev("kept", a.u.side, s.code)
        elif s.owner is not None:
            s.owner.swords.remove(s)
            s.owner = None
            self._ev("vanish", a.u.side, s.code)

    def _solo(self, u: _Sm) -> None:
        side = u.side
        if self.log is not None:
            self.log.append(("action", side, (side,), (self._predicted(u),)))
        it = _Item("ACT", side, side, side, None)
        it.actors = (u,)
        self.window(it)
        u.ap -= 1
        a = self._decide(u)
        self._pay(a)
        if a.sw is None:
            return
        if a.sw.lim:
            self._vanish(a, side)
        self._effect(a, side)

    def _simul(self, x: _Sm, y: _Sm) -> None:
        L = self.leader()  # fixed for the whole action (G39)
        first, second = (x, y) if x.side == L else (y, x)
        if self.log is not None:
            self.log.append(
                (
                    "action",
                    L,
                    (first.side, second.side),
                    (self._predicted(first), self._predicted(second)),
                )
            )
        it = _Item("ACT", L, L, L, None)
        it.actors = (first, second)
        self.window(it)
        first.ap -= 1
        second.ap -= 1
        acts = (self._decide(first), self._decide(second))
        for a in acts:
            self._pay(a)
        for a in acts:  # G45: the 先介入プ's sword first
            if a.sw is not None and a.sw.lim:
                self._vanish(a, L)
        if acts[0].kind == acts[1].kind == ATTACK:
            self._attack_pair(acts, L)
            return
        for a in sorted(acts, key=lambda a: a.kind):  # kind priority; stable: leader first
            if a.sw is not None:
                self._effect(a, L)

    def _effect(self, a: _Act, leader: int) -> None:
        """Step 5 of one action (§8.8, G28)."""
        d = a.d
        u = a.u
        assert d is not None and a.sw is not None
        if d.kind == ATTACK:
            self._attack(a, leader)
            return
        if d.kind == SUPPORT:
            it = _Item("EFFECT", leader, u.side, u.side, a.sw)
            it.status = d.arg if d.op == "status" else None
            self.window(it)
            self._support(u, d)
            return
        tg = a.tg  # 導来剣 (G28: no next sword, no effect and no window)
        if tg is None:
            self._ev("fizzle", u.side, "no-target")
            return
        if tg.owner is not u:
            self._ev("fizzle", u.side, "vanished")
            return
        self.window(_Item("EFFECT", leader, u.side, u.side, a.sw))
        if tg.owner is not u:
            self._ev("fizzle", u.side, "vanished")
            return
        tg.early += 1
        tg.act = max(0, tg.d.act - tg.early)
        self._ev("early", u.side, tg.code)

    def _support(self, u: _Sm, d: SwordDef) -> None:
        op = d.op
        if op == "status":
            assert d.arg is not None
            self._gain(u, d.arg)
        elif op == "fullhp":
            u.hp = u.max_hp
            self._ev("stat", u.side, "hp", u.hp)
            self._chk_alive(u)
        else:
            assert op is not None
            v = getattr(u, op) + 1
            setattr(u, op, v)
            self._ev("stat", u.side, op, v)

    def _gain(self, x: _Sm, attr: str, n: int = 1) -> None:
        v = getattr(x, attr) + n
        setattr(x, attr, v)
        self._ev("gain", x.side, attr, v)
        if attr in ("soul", "life") and x.dead and not self.first:  # fires at once (§7)
            self._revive(x)

    def _chk_alive(self, x: _Sm) -> None:
        if x.dead and x.hp >= 1:
            x.dead = False
            self._ev("revive", x.side, "hp", x.hp)

    def _revive(self, x: _Sm) -> None:
        """A revival status fires (Soul > Life, H31)."""
        if x.soul:
            x.soul -= 1
            x.hp = x.max_hp
            if x.hp >= 1:
                x.dead = False
                self._ev("revive", x.side, "soul", x.hp)
            else:
                self._ev("revive", x.side, "soul-failed", x.hp)
        elif x.life:
            x.life -= 1
            x.hp = 1
            x.dead = False
            self._ev("revive", x.side, "life", 1)

    def _death(self, x: _Sm, a: _Act, leader: int) -> None:
        """HP changed by a hit: death at HP <= 0 with its DEATH window, then its revival
        (H30, G17); nothing dies in the first turn (H5, G44)."""
        if self.first:
            return
        if x.hp <= 0 and not x.dead:
            x.dead = True
            self.deaths = True
            self._ev("die", x.side, x.hp)
            self.window(_Item("DEATH", leader, x.side, a.u.side, a.sw))
            if x.soul or x.life:
                self._revive(x)
        elif x.dead and x.hp >= 1:
            self._chk_alive(x)

    def _damage(self, a: _Act, t: _Sm) -> tuple[int, int, bool]:
        """G7: raw → Shield (consumed, not against <不可識>, G6) → x2 per 燃 → /2 per 凍;
        returns ``(damage, raw, shield fired)``."""
        assert a.d is not None and a.d.raw is not None
        raw = F = _RAW[a.d.raw](a.u, t, self.T)
        shield = False
        if t.shield and not a.unseen:
            t.shield -= 1
            F //= 2
            shield = True
        return (F << self.burn) >> self.freeze, raw, shield

    def _arrive(self, a: _Act, t: _Sm, leader: int) -> bool:
        """An attack arrives at ``t``: True when ``t``'s Reflect fires after its REFLECT window
        (G27; not against <不可識>, G6)."""
        if not t.reflect or a.unseen:
            return False
        self.window(_Item("REFLECT", leader, t.side, a.u.side, a.sw))
        if not t.reflect:
            return False
        t.reflect -= 1
        return True

    def _hit_log(self, a: _Act, t: _Sm, F: int, raw: int, shield: bool) -> None:
        assert a.sw is not None
        self._ev("hit", t.side, a.sw.code, raw, shield, self.burn, self.freeze, F, F < 0, t.hp)

    def _attack(self, a: _Act, leader: int) -> None:
        """One attack alone (§8.8): arrival and Reflect, the HIT window, damage, death, riders."""
        u = a.u
        t = self.sms[1 - u.side]
        snd = u
        while self._arrive(a, t, leader):
            self._ev("reflect", t.side, snd.side)
            snd, t = t, snd  # back to the sender (H21)
        hit = _Item("HIT", leader, t.side, u.side, a.sw)
        hit.act, hit.target = a, t
        self.window(hit)
        F, raw, shield = self._damage(a, t)
        if F >= 0:
            t.hp -= F
        self._hit_log(a, t, F, raw, shield)
        if F > 0:
            self._death(t, a, leader)
            self._riders(a, t, leader)

    def _riders(self, a: _Act, t: _Sm, leader: int) -> None:
        """G28: the sword's own rider, then all <スタン与え>, then all <毒与え>, one window each."""
        d = a.d
        assert d is not None
        for status, n in ((d.rider, 1), ("stun", a.se), ("poison", a.pe)):
            if status is None or not n:
                continue
            it = _Item("EFFECT", leader, t.side, a.u.side, a.sw)
            it.status = status
            self.window(it)
            self._gain(t, status, n)

    def _attack_pair(self, acts: tuple[_Act, _Act], L: int) -> None:
        """Super-simultaneous attacks (Hundred §8.10 tempos, G37): arrivals and REFLECT windows
        in 先介入プ order, then both HIT windows, both damages from one state applied together,
        the DEATH windows, the riders."""
        # per attack: [act, target, sender, tempo, state (0 arriving, 1 landed, 2 done)]
        hs: list[list[Any]] = [[a, self.sms[1 - a.u.side], a.u, 0, 0] for a in acts]
        k = 0
        while True:
            for h in hs:
                if h[4] == 0 and h[3] == k:
                    if self._arrive(h[0], h[1], L):
                        self._ev("reflect", h[1].side, h[2].side)
                        h[1], h[2] = h[2], h[1]
                        h[3] += 1
                    else:
                        h[4] = 1
            now = [h for h in hs if h[4] == 1 and h[3] == k]
            if now:
                for h in now:
                    it = _Item("HIT", L, h[1].side, h[0].u.side, h[0].sw)
                    it.act, it.target = h[0], h[1]
                    self.window(it)
                dmg = [self._damage(h[0], h[1]) for h in now]  # one state
                for h, (F, raw, shield) in zip(now, dmg, strict=False):
                    if F >= 0:
                        h[1].hp -= F
                    self._hit_log(h[0], h[1], F, raw, shield)
                for h, (F, _, _) in zip(now, dmg, strict=False):
                    if F > 0:
                        self._death(h[1], h[0], L)
                for h, (F, _, _) in zip(now, dmg, strict=False):
                    if F > 0:
                        self._riders(h[0], h[1], L)
                for h in now:
                    h[4] = 2
            k += 1
            if not any(h[4] == 0 or (h[4] == 1 and h[3] >= k) for h in hs):
                break

    # -- phases (§8.1) -----------------------------------------------------------------------

    def _status_phase(self) -> bool:
        """All Poison at once (no window, G17); True when the battle ends. Both sides' events
        are logged 先介入プ first (symmetric: the mirror battle has the other lead)."""
        hit = []
        for x in self._lead_order():
            if x.poison:
                x.hp -= x.poison
                hit.append(x)
                self._ev("poison", x.side, x.poison, x.hp)
        for x in hit:
            if x.hp <= 0 and not x.dead:
                x.dead = True
                self.deaths = True
                self._ev("die", x.side, x.hp)
                self._revive(x)
        return bool(hit) and self._settle()

    def _settle(self) -> bool:
        """Event settlement (Hundred §8.2): the dead exit (the battle ends, one a side), or
        T > 20 (H6)."""
        if self.deaths:
            self.deaths = False
            if any(x.dead for x in self.sms):
                return True
        return self.T > LAST_TURN

    def _death_check(self) -> None:
        """The death check after the first turn (no window, G17, G44), 先介入プ first."""
        self._ev("check")
        for x in self._lead_order():
            if x.hp <= 0:
                x.dead = True
                self.deaths = True
                self._ev("die", x.side, x.hp)
                if x.soul or x.life:
                    self._revive(x)

    def _lead_order(self) -> tuple[_Sm, _Sm]:
        L = self.leader()
        return (self.sms[L], self.sms[1 - L])

    def _turn_end(self) -> None:
        self.burn = self.freeze = 0  # G8: this turn's worlds end with the turn
        if self.log is not None:
            self.log.append(("quiet", self.quiet))
        self.quiet = 0

    def _end_states(self) -> None:
        if self.log is not None:
            self.log.append(
                (
                    "end",
                    self.T,
                    self.states(),
                    tuple(self.discards),
                    tuple(self.hand_sizes),
                    (tuple(sorted(self.bans[0])), tuple(sorted(self.bans[1]))),
                )
            )

    def states(self) -> tuple[tuple[Any, ...], tuple[Any, ...]]:
        """Both swordmasters' state-line values (``events.SmState`` fields)."""
        return (_state(self.sms[0]), _state(self.sms[1]))

    def run(self) -> dict[str, Any]:
        """Play the battle to its end (§8.1) or to the checkpoint, and judge it (§8.4)."""
        A, B = self.sms
        while True:
            self._ev("turn", self.T)
            if not self.first and any(x.poison for x in self.sms) and self._status_phase():
                return self._finish("settlement")
            A.ap, B.ap = A.spd, B.spd
            while True:  # action phase
                if A.ap > 0 and B.ap > 0:
                    if self.anyqs:
                        ka: Any = (A.quick, A.spd)
                        kb: Any = (B.quick, B.spd)
                    else:
                        ka, kb = A.spd, B.spd
                    if ka > kb:
                        self._solo(A)
                    elif kb > ka:
                        self._solo(B)
                    else:
                        self._simul(A, B)
                elif A.ap > 0:
                    self._solo(A)
                elif B.ap > 0:
                    self._solo(B)
                else:
                    break
                if not self.first and (self.deaths or self.T > LAST_TURN) and self._settle():
                    return self._finish("settlement")
            self._turn_end()
            if self.first:
                self.first = False
                self._death_check()
                if self._settle():
                    return self._finish("settlement")
            if self.T >= LAST_TURN:
                return self._finish("turn-end")
            if self.stop_after is not None and self.T >= self.stop_after:
                return self._finish("checkpoint")
            self._end_states()
            self.T += 1
            self.cyc += 1

    def _finish(self, where: str) -> dict[str, Any]:
        """The judges (§8.4, H55-H57) for one swordmaster a side."""
        A, B = self.sms
        winner: int | None
        if where != "checkpoint" and A.dead != B.dead:
            by = reason = "death"
            winner = 1 if A.dead else 0
            totals = (A.hp, B.hp)
        else:
            if A.dead and B.dead:  # overkill judge: the smaller overkill wins
                by = "overkill"
                totals = (-A.hp, -B.hp)
                better = 0 if totals[0] < totals[1] else 1 if totals[1] < totals[0] else None
            else:  # over-turn judge
                by = "hp"
                totals = (A.hp, B.hp)
                better = 0 if totals[0] > totals[1] else 1 if totals[1] > totals[0] else None
            if A.push != B.push:  # H57
                winner, reason = (0 if A.push > B.push else 1), "push"
            elif better is None:
                winner, reason = None, "draw"
            else:
                winner, reason = better, by
        if where == "checkpoint":
            reason = "checkpoint"
        if self.log is not None:
            if where == "settlement" and self.quiet:  # the battle ended inside a turn
                self.log.append(("quiet", self.quiet))
            self.log.append(
                (
                    "end",
                    self.T,
                    self.states(),
                    tuple(self.discards),
                    tuple(self.hand_sizes),
                    (tuple(sorted(self.bans[0])), tuple(sorted(self.bans[1]))),
                )
            )
        return {
            "winner": winner,
            "reason": reason,
            "by": by,
            "turns": self.T,
            "where": where,
            "final": self.states(),
            "totals": totals,
            "push": (A.push, B.push),
            "cards": tuple(tuple(r) for r in self.records),
            "hands": (tuple(self.hands[0]), tuple(self.hands[1])),
            "bans": (tuple(sorted(self.bans[0])), tuple(sorted(self.bans[1]))),
            "windows": self.nwin,
            "events": tuple(self.log) if self.log is not None else (),
        }


def _ends_in_vanish(spec: PlaySpec) -> bool:
    """A それはなかった, or a 虹紡ぎ whose ``AS`` chain ends in one (G29)."""
    return spec.chain()[-1].card == "無"


def _state(x: _Sm) -> tuple[Any, ...]:
    """``(side, name, hp, max_hp, atk, df, spd, swords, enchants, statuses, dead)``: swords as
    codes, enchants ``(index, unseen, stunning, poisoning, early)`` of enchanted swords,
    statuses ``(attribute, count)`` of those held."""
    ench = tuple(
        (i, s.unseen, s.se, s.pe, s.early)
        for i, s in enumerate(x.swords)
        if s.unseen or s.se or s.pe or s.early
    )
    st = tuple((a, getattr(x, a)) for a in STATUS_ATTRS if getattr(x, a))
    return (
        x.side,
        x.name,
        x.hp,
        x.max_hp,
        x.atk,
        x.df,
        x.spd,
        tuple(s.code for s in x.swords),
        ench,
        st,
        x.dead,
    )


def run_battle(
    a: Swordmaster,
    b: Swordmaster,
    *,
    hands: tuple[Sequence[str], Sequence[str]] = ((), ()),
    deciders: tuple[Decider | None, Decider | None] = (None, None),
    lead: int = 0,
    log: bool = True,
    stop_after: int | None = None,
) -> dict[str, Any]:
    """Fight ``a`` (side A) against ``b`` (side B); ``rules/margaret-magicalized.md``.

    Args:
        a, b: valid entries (their swords in lists 1-2; the engine checks no budget).
        hands: each side's cards (codes, in the order of its ``HAND`` line; ``()`` for none).
        deciders: each side's decider (``None``: always pass). A decider with a true
            ``passive`` attribute is never asked (it always passes).
        lead: the side that leads simultaneous windows in even turns (G20).
        log: keep the event log (and ask deciders to keep their traces).
        stop_after: stop at the first turn end with T >= this turn (a checkpoint, §3.2),
            unless the battle ended before; the result's ``where`` is then ``"checkpoint"``.

    Returns:
        A dict of the result's fields (``events.MagicResult`` wraps it).

    Raises:
        IllegalPlay: a decider answered a play that is not legal (G41).
        KeyError: a sword code outside lists 1-2 or a card code outside the 18.
    """
    for m in (a, b):
        for s in m.swords:
            if CODES[s.code].in_list == 0:
                raise KeyError(f"{s.code} is not a Magicalized sword")
    for h in hands:
        for c in h:
            if c not in CARD:
                raise KeyError(f"{c} is not a magic card")
    return _Battle(a, b, hands, deciders, lead, log, stop_after).run()
