"""The Amaryllis battle engine. Source: rules §2 (``shared/rules/amaryllis.md``).

``battle(a, b)`` resolves a battle between two valid units deterministically: no randomness, no
clock, no I/O. The result carries the winner, the reason, the last turn, both units' final states
and, unless ``log=False``, the typed event log of ``events.py`` (building the log is the costly part
of a battle, so league runs and benchmarks switch it off; the log is recomputed when a report is
needed).

Turn structure (rules §2.1): turn 0 (only Quick actions, no death check at all), then turns 1-20,
each: start (turn 1 only: death check of every unit at HP <= 0), status phase (Poison), AP := SPD,
action phase (§2.2, §2.3), end. The battle ends at the first check point where a unit is dead
(§2.5), or after turn 20.
"""

from __future__ import annotations

from .events import (
    AttackDone,
    BattleResult,
    Died,
    PoisonDamage,
    Reason,
    Simultaneous,
    StunSpent,
    SupportDone,
    TurnEnded,
    TurnStarted,
    UnitState,
)
from .model import Action, ActionClass, Kind, Unit

#: Bump whenever a change of the rules code may change any battle's result or log.
ENGINE_VERSION = "1"

#: The last turn of a battle (rules §2.1).
LAST_TURN = 20

_DIRECT = ActionClass.DIRECT
_PIERCING = ActionClass.PIERCING
_HALVING = ActionClass.HALVING
_ATK_UP = ActionClass.ATK_UP
_DEF_UP = ActionClass.DEF_UP
_SPD_UP = ActionClass.SPD_UP
_GUARD = ActionClass.GUARD
_REFLECT = ActionClass.REFLECT
_LIFE = ActionClass.LIFE
_HEAL = ActionClass.HEAL

_STUN = "stun"  # a simultaneous-action decision: Stun processing (rules §2.3)


class _Slot:
    """One set copy of an action, with its battle state (used this turn, removed)."""

    __slots__ = (
        "name",
        "cls",
        "attack",
        "start",
        "limited",
        "n",
        "mult",
        "stun",
        "poison",
        "used",
        "removed",
    )

    name: str
    cls: ActionClass
    attack: bool
    start: int
    limited: bool
    n: int
    mult: int
    stun: int
    poison: int
    used: int
    removed: bool

    def __init__(self, action: Action) -> None:
        self.name = action.name
        self.cls = action.cls
        self.attack = action.cls.kind is Kind.ATTACK
        self.start = action.start_turn
        self.limited = action.limited
        self.n = action.n or 0
        self.mult = action.multiplier
        self.stun = action.stun
        self.poison = action.poison
        self.used = -1  # the turn in which it was last executed
        self.removed = False


class _Fighter:
    """A unit's mutable battle state."""

    __slots__ = (
        "side",
        "name",
        "hp",
        "hp0",
        "atk",
        "defense",
        "spd",
        "ap",
        "guard",
        "reflect",
        "life",
        "stun",
        "poison",
        "dead",
        "slots",
        "can_stun",
        "enemy",
    )

    def __init__(self, side: int, unit: Unit) -> None:
        self.side = side
        self.name = unit.name
        self.hp = self.hp0 = unit.hp
        self.atk = unit.atk
        self.defense = unit.defense
        self.spd = unit.spd
        self.ap = 0
        self.guard = self.reflect = self.life = self.stun = self.poison = 0
        self.dead = False
        self.slots = [_Slot(a) for a in unit.loadout]
        # whether some attack of this unit can still give Stun (to either unit, via Reflect)
        self.can_stun = any(s.attack and s.stun for s in self.slots)
        self.enemy: _Fighter = self

    def state(self) -> UnitState:
        """Snapshot for a state line."""
        return UnitState(
            name=self.name,
            hp=self.hp,
            atk=self.atk,
            defense=self.defense,
            spd=self.spd,
            actions=tuple(s.name for s in self.slots if not s.removed),
            guard=self.guard,
            reflect=self.reflect,
            life=self.life,
            stun=self.stun,
            poison=self.poison,
            dead=self.dead,
        )

    def choose(self, turn: int) -> _Slot | None:
        """The first usable action in list order (rules §2.2 step 2), marked used (and removed
        when Limited); ``None`` when none is usable."""
        for s in self.slots:
            if s.start <= turn and s.used != turn and not s.removed:
                s.used = turn
                if s.limited:
                    s.removed = True
                return s
        return None


_Pending = tuple["_Fighter", _Slot, "_Fighter", tuple[int, ...]]
"""An attack of a simultaneous action on its way: attacker, action, current target, the sides
whose Reflect redirected it so far."""


class _Battle:
    """One battle in progress. ``log`` is a list of events, or ``None`` when not logging."""

    __slots__ = ("f", "turn", "log", "ended_at")

    def __init__(self, a: Unit, b: Unit, log: bool) -> None:
        fa, fb = _Fighter(0, a), _Fighter(1, b)
        fa.enemy, fb.enemy = fb, fa
        self.f = (fa, fb)
        self.turn = 0
        self.ended_at = "end"
        self.log: list[object] | None = [] if log else None

    # -- the pieces of an action -------------------------------------------------------------

    def support(self, u: _Fighter, s: _Slot, out: list[object] | None) -> None:
        """Apply support ``s`` to its own unit ``u`` (rules §1.1)."""
        cls = s.cls
        if cls is _ATK_UP:
            u.atk += s.n
            value = u.atk
        elif cls is _DEF_UP:
            u.defense += s.n
            value = u.defense
        elif cls is _SPD_UP:
            u.spd += s.n
            value = u.spd
        elif cls is _GUARD:
            u.guard += 1
            value = u.guard
        elif cls is _REFLECT:
            u.reflect += 1
            value = u.reflect
        elif cls is _LIFE:
            u.life += 1
            value = u.life
        else:  # _HEAL: HP := initial HP
            u.hp = u.hp0
            value = u.hp
        if out is not None:
            out.append(SupportDone(u.side, s.name, cls.value, value, s.limited))

    @staticmethod
    def damage(u: _Fighter, s: _Slot, t: _Fighter) -> int:
        """Raw damage of ``u``'s attack ``s`` on final target ``t`` (rules §2.4 step 2)."""
        cls = s.cls
        if cls is _DIRECT:
            return u.atk * s.mult - t.defense
        if cls is _PIERCING:
            return u.atk * s.mult
        return -(-(t.hp * s.mult) // 2)  # HP halving: ceil(X×N / 2), X = target's HP

    def land(
        self,
        u: _Fighter,
        s: _Slot,
        t: _Fighter,
        raw: int,
        reflected: tuple[int, ...],
        tempo: int,
        out: list[object] | None,
    ) -> None:
        """Apply raw damage ``raw`` of ``u``'s attack ``s`` to ``t``: Guard, failure on negative
        damage, HP, then Stun and Poison on >= 1 damage (rules §2.4 steps 3-5)."""
        guarded = t.guard > 0
        d = raw
        if guarded:
            t.guard -= 1
            d = -(-d // 2)  # ceil(d / 2), also for negative d: -3 -> -1
        failed = d < 0
        stun = poison = 0
        if not failed:
            t.hp -= d
            if d >= 1:
                stun, poison = s.stun, s.poison
                t.stun += stun
                t.poison += poison
        if out is not None:
            out.append(
                AttackDone(
                    u.side,
                    s.name,
                    s.cls.value,
                    t.side,
                    reflected,
                    tempo,
                    raw,
                    d,
                    guarded,
                    failed,
                    t.hp,
                    stun,
                    poison,
                    s.limited,
                )
            )

    def death_check(self, out: list[object] | None) -> None:
        """Every unit at HP <= 0 dies, or consumes a Life and is set to HP 1 (rules §2.4)."""
        for u in self.f:
            if u.hp <= 0 and not u.dead:
                if u.life:
                    u.life -= 1
                    hp = u.hp
                    u.hp = 1
                    if out is not None:
                        out.append(Died(u.side, hp, True))
                else:
                    u.dead = True
                    if out is not None:
                        out.append(Died(u.side, u.hp, False))

    # -- actions -----------------------------------------------------------------------------

    def act(self, u: _Fighter) -> None:
        """``u`` acts alone (rules §2.2): spend 1 AP; Stun, or the first usable action, or nothing."""
        u.ap -= 1
        out = self.log
        if u.stun:
            u.stun -= 1
            if out is not None:
                out.append(StunSpent(u.side, u.stun))
            return
        s = u.choose(self.turn)
        if s is None:
            # Nothing is usable for the rest of the turn; unless the enemy can still give a Stun
            # (to be consumed by a later act), the remaining AP cannot change anything.
            if not u.enemy.can_stun:
                u.ap = 0
            return
        if s.attack:
            t = u.enemy
            reflected: tuple[int, ...] = ()
            while t.reflect > 0:  # each Reflect redirects it once more (rules §2.4 step 1)
                t.reflect -= 1
                reflected += (t.side,)
                t = t.enemy
            self.land(u, s, t, self.damage(u, s, t), reflected, 0, out)
            if s.limited:
                u.can_stun = any(x.attack and x.stun and not x.removed for x in u.slots)
        else:
            self.support(u, s, out)
        if self.turn:
            self.death_check(out)

    def act_together(self) -> None:
        """Both units act simultaneously (rules §2.3): decide, then Stun processing, supports,
        then attacks super-simultaneously, a reflected attack one tempo later per redirection."""
        fa, fb = self.f
        fa.ap -= 1
        fb.ap -= 1
        turn = self.turn
        decisions: list[_Slot | str | None] = [_STUN if u.stun else u.choose(turn) for u in self.f]
        out: list[object] | None = [] if self.log is not None else None
        check = turn > 0
        # 1. Stun processing
        for u, d in zip(self.f, decisions, strict=False):
            if d is _STUN:
                u.stun -= 1
                if out is not None:
                    out.append(StunSpent(u.side, u.stun))
        # 2. supports (each targets its own unit, so both apply independently)
        for u, d in zip(self.f, decisions, strict=False):
            if isinstance(d, _Slot) and not d.attack:
                self.support(u, d, out)
        if check:
            self.death_check(out)
        # 3. attacks, tempo by tempo
        pending: list[_Pending] = [
            (u, d, u.enemy, ())
            for u, d in zip(self.f, decisions, strict=False)
            if isinstance(d, _Slot) and d.attack
        ]
        tempo = 0
        while pending:
            landing: list[_Pending] = []
            later: list[_Pending] = []
            for u, s, t, refl in pending:
                if t.reflect > 0:
                    t.reflect -= 1
                    later.append((u, s, t.enemy, refl + (t.side,)))
                else:
                    landing.append((u, s, t, refl))
            # damage is computed from the state before any of this tempo lands
            raws = [self.damage(u, s, t) for u, s, t, _ in landing]
            for (u, s, t, refl), raw in zip(landing, raws, strict=False):
                self.land(u, s, t, raw, refl, tempo, out)
            if landing and check:
                self.death_check(out)
            pending = later
            tempo += 1
        for u, d in zip(self.f, decisions, strict=False):
            if isinstance(d, _Slot) and d.limited and d.attack:
                u.can_stun = any(x.attack and x.stun and not x.removed for x in u.slots)
        if out and self.log is not None:
            if decisions[0] is None or decisions[1] is None:
                # only one unit did something: that is an ordinary action, logged as such
                self.log.extend(out)
            else:
                self.log.append(Simultaneous(tuple(out)))

    # -- the battle ----------------------------------------------------------------------------

    def over(self) -> bool:
        """True when some unit is dead (the end check of rules §2.5)."""
        fa, fb = self.f
        return fa.dead or fb.dead

    def play_turn(self, turn: int) -> bool:
        """Play one turn; return True when the battle ended in it."""
        self.turn = turn
        fa, fb = self.f
        log = self.log
        if log is not None:
            log.append(TurnStarted(turn))
        if turn == 1:
            self.death_check(log)  # units left at HP <= 0 by turn 0 die now
            if self.over():
                self.ended_at = "start"
                return True
        if fa.poison or fb.poison:  # status phase: all Poisons at once, not attack damage
            for u in self.f:
                if u.poison:
                    u.hp -= u.poison
                    if log is not None:
                        log.append(PoisonDamage(u.side, u.poison, u.hp))
            if turn:
                self.death_check(log)
                if self.over():
                    self.ended_at = "status"
                    return True
        fa.ap = fa.spd
        fb.ap = fb.spd
        while True:
            a_can = fa.ap >= 1
            b_can = fb.ap >= 1
            if a_can and b_can:
                if fa.spd > fb.spd:
                    self.act(fa)
                elif fb.spd > fa.spd:
                    self.act(fb)
                else:
                    self.act_together()
            elif a_can:
                self.act(fa)
            elif b_can:
                self.act(fb)
            else:
                return False
            if turn and (fa.dead or fb.dead):
                self.ended_at = "action"
                return True

    def run(self) -> BattleResult:
        """Play turns 0-20 and return the result (rules §2.5)."""
        last = LAST_TURN
        for turn in range(LAST_TURN + 1):
            if self.play_turn(turn):
                last = turn
                break
            if self.log is not None:
                self.log.append(TurnEnded(turn, (self.f[0].state(), self.f[1].state())))
        else:
            return self._result(last, ended_early=False)
        return self._result(last, ended_early=True)

    def _result(self, last: int, ended_early: bool) -> BattleResult:
        fa, fb = self.f
        states = (fa.state(), fb.state())
        if ended_early and self.log is not None:
            self.log.append(TurnEnded(last, states))
        if fa.dead != fb.dead:
            winner: int | None = 1 if fa.dead else 0
            reason = Reason.DEATH
        elif fa.hp == fb.hp:
            winner, reason = None, Reason.DRAW
        else:
            winner = 0 if fa.hp > fb.hp else 1
            reason = Reason.OVERKILL if fa.dead else Reason.HP
        events = tuple(self.log) if self.log is not None else ()
        return BattleResult(winner, reason, last, states, events, (fa.hp0, fb.hp0), self.ended_at)


def battle(a: Unit, b: Unit, *, log: bool = True) -> BattleResult:
    """Resolve a battle between units ``a`` (side 0) and ``b`` (side 1). Rules §2.

    The units must be valid (``parse_sheet(...).ok``); the engine does not re-validate them and
    never raises on a valid pair. With ``log=False`` the result's ``events`` is empty and the battle
    runs several times faster. Deterministic and symmetric: ``battle(b, a)`` is this battle with
    the sides swapped.

    Returns:
        BattleResult: winner 0/1/None (draw), reason, last turn (0-20), final states, events.
    """
    return _Battle(a, b, log).run()


def _side(side: int) -> str:
    return "AB"[side]


def _state_json(s: UnitState) -> dict[str, object]:
    return {
        "name": s.name,
        "hp": s.hp,
        "atk": s.atk,
        "def": s.defense,
        "spd": s.spd,
        "actions": list(s.actions),
        "guard": s.guard,
        "reflect": s.reflect,
        "life": s.life,
        "stun": s.stun,
        "poison": s.poison,
        "dead": s.dead,
    }


def event_json(event: object) -> dict[str, object]:
    """One event as a JSON-ready dict: ``{"type": ..., ...}`` with sides as ``"A"``/``"B"``."""
    if isinstance(event, TurnStarted):
        return {"type": "turn", "turn": event.turn}
    if isinstance(event, TurnEnded):
        return {
            "type": "turn_end",
            "turn": event.turn,
            "states": {"A": _state_json(event.states[0]), "B": _state_json(event.states[1])},
        }
    if isinstance(event, Simultaneous):
        return {"type": "simultaneous", "events": [event_json(e) for e in event.events]}
    if isinstance(event, PoisonDamage):
        return {"type": "poison", "side": _side(event.side), "damage": event.damage, "hp": event.hp}
    if isinstance(event, StunSpent):
        return {"type": "stunned", "side": _side(event.side), "stun_left": event.stun_left}
    if isinstance(event, SupportDone):
        return {
            "type": "support",
            "side": _side(event.side),
            "action": event.action,
            "class": event.cls,
            "value": event.value,
            "removed": event.removed,
        }
    if isinstance(event, AttackDone):
        return {
            "type": "attack",
            "side": _side(event.side),
            "action": event.action,
            "class": event.cls,
            "target": _side(event.target),
            "reflected_by": [_side(x) for x in event.reflected_by],
            "tempo": event.tempo,
            "raw": event.raw,
            "damage": event.damage,
            "guarded": event.guarded,
            "failed": event.failed,
            "hp": event.hp,
            "stun": event.stun,
            "poison": event.poison,
            "removed": event.removed,
        }
    if isinstance(event, Died):
        return {"type": "died", "side": _side(event.side), "hp": event.hp, "revived": event.revived}
    raise TypeError(f"not a battle event: {event!r}")


def result_json(result: BattleResult, *, events: bool = True) -> dict[str, object]:
    """The ``amaryllis battle --json`` object: ``{"winner": "A"|"B"|None, "reason": ...,
    "turns": int, "final": {"A": {...}, "B": {...}}, "events": [...]}`` (no ``events`` key when
    ``events`` is False)."""
    out: dict[str, object] = {
        "winner": None if result.winner is None else _side(result.winner),
        "reason": result.reason.value,
        "turns": result.turns,
        "final": {"A": _state_json(result.final[0]), "B": _state_json(result.final[1])},
    }
    if events:
        out["events"] = [event_json(e) for e in result.events]
    return out
