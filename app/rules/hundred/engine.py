"""The Margaret Hundred battle engine. Source: ``shared/rules/margaret-hundred.md`` §6-§9, H1-H61.

``battle(a, b)`` fights two registered swordmasters (each the base-registered swordmaster of its
side's party) deterministically: no randomness, no clock, no I/O, unbounded integers.

Structure (§8.1, §12.4): turn loop → status phase → AP phase → action phase (holders by
Quick − Slow then SPD, §8.5; one *action procedure* per pick, §8.6) → turn end → (first turn only)
death check. Each status phase and each procedure is a phenomenon period followed by an event
settlement (exits, period expiry, end check, §8.2), except inside the first turn (H5).

Within a procedure the holders decide (step 1, a snapshot of the sword: H11), choose targets
(step 2, Taunt), sub-targets (step 3), pay (step 4), and their effects run grouped by kind priority
and in-kind rank (§8.10). A super-simultaneous pair of attacks runs through the tempo scheduler
(:meth:`_Battle._attack_pair`, §12.6); one attack alone through its sequential special case
(:meth:`_Battle._attack`, §8.9), which the tempo scheduler reproduces exactly (tested).

Performance (§12.13): sword definitions are compiled once into :class:`_Prog` records (raw-damage
formulas as closures, effect ops as strings tested in frequency order); state lives in
``__slots__`` objects with status counters; ``log=False`` creates no event objects at all.
"""

from __future__ import annotations

from collections.abc import Callable
from operator import attrgetter
from typing import Any

from .events import HundredResult, SmState
from .model import Swordmaster, parse_spec
from .options import Options
from .swords import (
    ADDITION,
    ATTACK,
    BUILD_SPECS,
    BY_CODE,
    CODES,
    CONSTRUCTION,
    CONTROL,
    ENVIRONMENT,
    N_ACT,
    SKIP,
    STATUS_ATTRS,
    SUPPORT,
    SwordDef,
)

#: Bump whenever a change of the rules code may change any battle's result or log.
ENGINE_VERSION = "1"

#: the last regular turn (§8.4)
LAST_TURN = 20

_DEFAULT = Options()

# --------------------------------------------------------------------------- compiled swords

_RawFn = Callable[[Any, Any, int], int]


def _raw_fn(spec: tuple[Any, ...] | None) -> _RawFn | None:
    """The raw-damage formula of §12.3 as a closure ``(executor, final target, T) -> int``."""
    if spec is None:
        return None
    kind = spec[0]
    if kind == "atk-def":
        k = spec[1]
        if k == 1:
            return lambda u, t, T: u.atk - t.df
        return lambda u, t, T: u.atk * k - t.df
    if kind == "atkdiv-def":
        d = spec[1]
        return lambda u, t, T: u.atk // d - t.df
    if kind == "atk":
        k = spec[1]
        return lambda u, t, T: u.atk * k
    if kind == "atkdiv":
        d = spec[1]
        return lambda u, t, T: u.atk // d
    if kind == "const":
        c = spec[1]
        return lambda u, t, T: c
    if kind == "pow2t":
        return lambda u, t, T: 1 << T if T >= 0 else 0
    if kind == "halfhp":
        return lambda u, t, T: -(-t.hp // 2)
    if kind == "hp":
        return lambda u, t, T: t.hp
    if kind == "rage":
        return lambda u, t, T: u.max_hp - u.hp
    raise ValueError(f"unknown damage formula {spec!r}")


_PROT = frozenset({"barrier", "cushion", "flip", "shield", "guard"})
_DEFN = frozenset({"reflect", "dodge"})
# status-gain flags
_G_COUNT, _G_PROT, _G_DEFN, _G_QS, _G_TAUNT, _G_BOOL, _G_REVIVE, _G_POISON = range(8)


class _Prog:
    """A sword definition compiled for the engine (one per code, shared by every battle)."""

    __slots__ = (
        "d",
        "code",
        "kind",
        "act",
        "limited",
        "period",
        "raw",
        "reps",
        "whole",
        "ignore",
        "to_mp",
        "nondmg",
        "tight",
        "loose",
        "indep",
        "op",
        "arg",
        "build",
        "nxt",
        "gflag",
        "spec",
    )

    def __init__(self, d: SwordDef) -> None:
        self.d = d
        self.code = d.code
        self.kind = d.kind
        self.act = d.act
        self.limited = d.limited
        self.period = d.period
        self.raw = _raw_fn(d.raw)
        self.reps = d.reps
        self.whole = d.whole
        self.ignore = d.ignore
        self.to_mp = d.to_mp
        self.nondmg = d.nondmg
        self.tight = d.tight
        self.loose = d.loose
        self.indep = d.indep
        self.op = d.op
        self.arg = d.arg
        self.build = d.build
        self.spec: Any = None
        # controls aim at the next sword (H10) except those aimed at all own swords; 共鳴剣 and
        # 増殖剣 take it as their sub-target (step 3)
        self.nxt = (d.kind == CONTROL and d.op not in ("train", "renew")) or d.op == "multiply"
        self.gflag = _G_COUNT
        if d.op == "status":
            a = d.arg
            self.gflag = (
                _G_PROT
                if a in _PROT
                else _G_DEFN
                if a in _DEFN
                else _G_QS
                if a in ("quick", "slow")
                else _G_TAUNT
                if a == "taunt"
                else _G_BOOL
                if a == "hdoor"
                else _G_REVIVE
                if a in ("soul", "life")
                else _G_COUNT
            )


PROGS: dict[str, _Prog] = {c: _Prog(d) for c, d in BY_CODE.items()}
_P_NULL = PROGS["ヌ"]
_P_BURST = PROGS["炸"]
_P_SLASH = PROGS["斬"]
_P_HEAVY = PROGS["重"]


class _Spec:
    """A swordmaster spec ready to build: name, values and ``(prog, n)`` pairs."""

    __slots__ = ("name", "hp", "atk", "df", "spd", "swords", "codes", "period")

    def __init__(self, m: Swordmaster) -> None:
        self.name = m.name
        self.hp, self.atk, self.df, self.spd = m.hp, m.atk, m.defense, m.spd
        self.swords = tuple((PROGS[CODES[s.code].code], s.n) for s in m.swords)
        self.codes = frozenset(p.code for p, _ in self.swords)
        self.period = False  # set below: a period sword can come into a battle with this spec


for _code, _text in BUILD_SPECS.items():
    PROGS[_code].spec = _Spec(parse_spec(_text))

# codes whose presence can bring each code into a battle (builds bring their specs' swords)
_BRINGS: dict[str, frozenset[str]] = {c: p.spec.codes for c, p in PROGS.items() if p.spec}


def _reachable(codes: set[str] | frozenset[str]) -> set[str]:
    """Every sword code that can exist in a battle whose registered specs hold ``codes``."""
    out = set(codes)
    todo = list(out)
    while todo:
        for c in _BRINGS.get(todo.pop(), ()):
            if c not in out:
                out.add(c)
                todo.append(c)
    return out


_SPECS: dict[Swordmaster, _Spec] = {}
_SPEC_CACHE_SIZE = 4096


def _spec(m: Swordmaster) -> _Spec:
    """The compiled spec of a registered swordmaster (cached: a league fights the same entries
    many times; entries are immutable)."""
    spec = _SPECS.get(m)
    if spec is None or spec.name != m.name:
        spec = _Spec(m)
        spec.period = "遅" in _reachable(spec.codes)
        if len(_SPECS) >= _SPEC_CACHE_SIZE:
            _SPECS.clear()
        _SPECS[m] = spec
    return spec


# --------------------------------------------------------------------------- battle state


class _Sw:
    """A sword instance in a list (§12.2): its definition, N, used mark and enchantments."""

    __slots__ = (
        "p",
        "n",
        "label",
        "base",
        "act",
        "early",
        "used",
        "se",
        "pe",
        "whole",
        "elim",
        "lim",
        "cost",
        "period",
        "owner",
    )

    def __init__(self, p: _Prog, n: int | None, owner: Any, mpc: dict[str, int]) -> None:
        self.p = p
        self.n = n
        self.label = p.d.compact(n)
        self.base = (n or 0) if p.act == N_ACT else p.act
        self.early = 0
        self.act = self.base
        self.used = -1
        self.se = self.pe = 0
        self.whole = self.elim = False
        self.lim = p.limited
        self.cost = mpc.get(p.code, 0) if mpc else 0
        self.period = (n or 0) if p.period else -1
        self.owner = owner


def _redefine(x: _Sw, p: _Prog, n: int | None, mpc: dict[str, int]) -> None:
    """Change ``x`` into sword ``p`` N ``n`` (§9): used mark kept, enchantments dropped."""
    x.p = p
    x.n = n
    x.label = p.d.compact(n)
    x.base = (n or 0) if p.act == N_ACT else p.act
    x.early = 0
    x.act = x.base
    x.se = x.pe = 0
    x.whole = x.elim = False
    x.lim = p.limited
    x.cost = mpc.get(p.code, 0) if mpc else 0
    x.period = (n or 0) if p.period else -1


def _same_as(x: _Sw, ref: _Sw) -> None:
    """Make ``x`` the same as ``ref`` (H41): code, N, tags and enchantments; used mark kept."""
    x.p = ref.p
    x.n = ref.n
    x.label = ref.label
    x.base = ref.base
    x.early = ref.early
    x.act = ref.act
    x.se = ref.se
    x.pe = ref.pe
    x.whole = ref.whole
    x.elim = ref.elim
    x.lim = ref.lim
    x.cost = ref.cost
    x.period = ref.period


def _copy(ref: _Sw, owner: Any, mpc: dict[str, int]) -> _Sw:
    """A new unused sword the same as ``ref`` (H41, §9 adding a duplicate)."""
    x = _Sw(ref.p, ref.n, owner, mpc)
    _same_as(x, ref)
    x.used = -1
    return x


class _Party:
    __slots__ = ("side", "members", "exited", "enemy", "spec", "serial", "taunt")

    def __init__(self, side: int, spec: _Spec) -> None:
        self.side = side
        self.members: list[_Sm] = []
        self.exited: list[_Sm] = []
        self.enemy: _Party = self
        self.spec = spec
        self.serial = 0
        self.taunt = False


class _Sm:
    """A swordmaster's battle state (§12.2)."""

    __slots__ = (
        "side",
        "serial",
        "name",
        "party",
        "enemy",
        "hp",
        "max_hp",
        "mp",
        "atk",
        "df",
        "spd",
        "ap",
        "atk0",
        "df0",
        "spd0",
        *STATUS_ATTRS,
        "prot",
        "defn",
        "dead",
        "exited",
        "base",
        "built",
        "swords",
        "snap",
    )

    def __init__(self, party: _Party, spec: _Spec, mpc: dict[str, int], built: int) -> None:
        self.side = party.side
        self.serial = party.serial
        party.serial += 1
        self.name = spec.name
        self.party = party
        self.enemy = party.enemy
        self.hp = self.max_hp = spec.hp
        self.mp = 0
        self.atk = self.atk0 = spec.atk
        self.df = self.df0 = spec.df
        self.spd = self.spd0 = spec.spd
        self.ap = 0
        self.stun = self.sleep = self.venom = self.poison = self.abort = self.reflect = 0
        self.dodge = self.barrier = self.cushion = self.flip = self.shield = self.guard = 0
        self.soul = self.life = self.push = self.hdoor = self.quick = self.slow = 0
        self.drive = self.taunt = self.prot = self.defn = 0
        self.dead = self.exited = False
        self.base = built < 0
        self.built = built
        self.swords = [_Sw(p, n, self, mpc) for p, n in spec.swords]
        self.snap: SmState | None = None


_STATUS_VALUES = attrgetter(*STATUS_ATTRS)
_tuple_new = tuple.__new__


def _state(x: _Sm, enchants: bool = True) -> SmState:
    """The state-line snapshot of ``x`` (``enchants=False``: no sword of the battle was ever
    enchanted, so the scan is skipped)."""
    if x.snap is not None:
        return x.snap
    sws = x.swords
    ench = (
        tuple(
            [
                (i, s.se, s.pe, s.whole, s.elim, s.early)
                for i, s in enumerate(sws)
                if s.se or s.pe or s.whole or s.elim or s.early
            ]
        )
        if enchants
        else ()
    )
    vals = _STATUS_VALUES(x)
    st = tuple([(a, v) for a, v in zip(STATUS_ATTRS, vals, strict=False) if v]) if any(vals) else ()
    return _tuple_new(
        SmState,
        (
            x.side,
            x.serial,
            x.name,
            x.hp,
            x.max_hp,
            x.atk,
            x.df,
            x.spd,
            x.mp,
            tuple([s.label for s in sws]),
            ench,
            st,
            x.dead,
            x.exited,
            x.base,
        ),
    )


class _Act:
    """One holder's action in a procedure with several holders: the step-1 snapshot (H11)."""

    __slots__ = (
        "u",
        "s",
        "p",
        "n",
        "se",
        "pe",
        "whole",
        "kind",
        "rank",
        "target",
        "tg",
        "stunned",
        "src",
    )

    def __init__(self, u: _Sm) -> None:
        self.u = u
        self.s: _Sw | None = None
        self.p: _Prog | None = None
        self.n: int | None = None
        self.se = self.pe = 0
        self.whole = False
        self.kind = SKIP
        self.rank = 0
        self.target: _Sm | None = None
        self.tg: _Sw | None = None
        self.stunned = False
        self.src: _Sw | None = None


class _Hit:
    """One attack of the tempo scheduler: its action, current target, sender and tempo."""

    __slots__ = ("a", "t", "snd", "tempo", "state", "b", "F", "raw", "dv", "pr", "failed")

    def __init__(self, a: _Act, t: _Sm, b: list[Any] | None) -> None:
        self.a = a
        self.t = t
        self.snd = a.u
        self.tempo = 0
        self.state = 0  # 0 arriving, 1 landed, 2 gone (dodged)
        self.b = b
        self.F = self.raw = self.dv = 0
        self.pr = ""
        self.failed = False


# --------------------------------------------------------------------------- the battle


class _Battle:
    __slots__ = (
        "T",
        "cyc",
        "first",
        "P",
        "log",
        "cap",
        "limit",
        "mpc",
        "has_period",
        "anypois",
        "anyqs",
        "deaths",
        "procs",
        "max_procs",
        "limit_hits",
        "generic",
        "batch",
        "anyench",
        "roster",
    )

    def __init__(
        self,
        a: Swordmaster,
        b: Swordmaster,
        log: bool,
        opts: Options,
        generic: bool = False,
        batch: bool = True,
    ) -> None:
        sa, sb = _spec(a), _spec(b)
        pa, pb = _Party(0, sa), _Party(1, sb)
        pa.enemy, pb.enemy = pb, pa
        self.P = (pa, pb)
        self.mpc: dict[str, int] = dict(opts.mp_costs)
        self.T = 0
        self.cyc = 0
        self.first = True
        self.log: list[Any] | None = [] if log else None
        self.cap = opts.party_cap
        self.limit = opts.procedure_limit
        self.has_period = sa.period or sb.period
        self.anypois = self.anyqs = self.deaths = False
        self.procs = self.max_procs = self.limit_hits = 0
        self.generic = generic
        self.batch = batch
        self.anyench = False
        self.roster: dict[tuple[int, int], str] = {}
        for party in self.P:
            m = _Sm(party, party.spec, self.mpc, -1)
            party.members.append(m)
            self.roster[(m.side, m.serial)] = m.name

    # -- death and revival (§8.3, H30, H31) ---------------------------------------------------

    def _chk(self, x: _Sm, lg: list[Any] | None) -> None:
        """``x``'s HP changed: it dies at HP ≤ 0 (a revival status fires), or lives again at
        HP ≥ 1. Nothing dies inside the first turn (H5)."""
        if self.first:
            return
        if x.hp <= 0:
            if not x.dead:
                x.dead = True
                self.deaths = True
                if lg is not None:
                    lg.append(("die", x.side, x.serial, x.hp))
                if x.soul:
                    x.soul -= 1
                    x.hp = x.max_hp
                    if x.hp >= 1:
                        x.dead = False
                        if lg is not None:
                            lg.append(("revive", x.side, x.serial, "soul", x.hp))
                    elif lg is not None:
                        lg.append(("revive", x.side, x.serial, "soul-failed", x.hp))
                elif x.life:
                    x.life -= 1
                    x.hp = 1
                    x.dead = False
                    if lg is not None:
                        lg.append(("revive", x.side, x.serial, "life", 1))
        elif x.dead:
            x.dead = False
            if lg is not None:
                lg.append(("revive", x.side, x.serial, "hp", x.hp))

    # -- action right (§8.5) ------------------------------------------------------------------

    def _holders(self) -> list[_Sm]:
        best: Any = None
        hs: list[_Sm] = []
        qs = self.anyqs
        for party in self.P:
            for u in party.members:
                if u.ap > 0:
                    k = (u.quick - u.slow, u.spd) if qs else u.spd
                    if best is None or k > best:
                        best = k
                        hs = [u]
                    elif k == best:
                        hs.append(u)
        return hs

    # -- targets (§8.7) -------------------------------------------------------------------------

    def _target(self, u: _Sm, lg: list[Any] | None) -> _Sm:
        """The target of a single attack: the enemy front, or its front-most taunter (H20)."""
        enemy = u.enemy
        if enemy.taunt:
            for x in enemy.members:
                if x.taunt:
                    if lg is not None and x is not enemy.members[0]:
                        lg.append(("taunt", x.side, x.serial))
                    return x
        return enemy.members[0]

    # -- one holder ---------------------------------------------------------------------------

    def _solo(self, u: _Sm, room: int) -> int:
        """An action procedure with one action-right holder (§8.6). Returns the number of
        procedures done: 1, or more when nothing is executable (see :meth:`_skip_run`)."""
        u.ap -= 1
        lg = self.log
        if u.stun:
            u.stun -= 1
            if lg is not None:
                lg.append(("skip", u.side, u.serial, "stun"))
            return 1
        T = self.T
        cyc = self.cyc
        mp = u.mp
        sws = u.swords
        for s in sws:
            if s.act <= T and s.used != cyc and (not s.cost or s.cost <= mp):
                break
        else:
            event = ("skip", u.side, u.serial, "none")
            if lg is not None:
                lg.append(event)
            return 1 + self._skip_run([u], room, event)
        p = s.p
        kind = p.kind
        n = s.n
        whole = s.whole
        # step 2-3: targets and sub-targets
        tg = None
        target = None
        if kind == ATTACK:
            whole = whole or p.whole
            if not whole:
                target = self._target(u, lg)
        elif p.nxt:
            i = sws.index(s) + 1
            if i < len(sws):
                tg = sws[i]
        se, pe = s.se, s.pe
        # step 4: costs
        s.used = cyc
        if s.lim:
            sws.remove(s)
            s.owner = None
        if s.cost:
            u.mp -= s.cost
        if lg is not None:
            lg.append(("act", u.side, u.serial, s.label, kind, s.lim, s.cost))
        # step 5: effects
        if kind == ATTACK:
            if self.generic:
                a = _Act(u)
                a.s, a.p, a.n, a.se, a.pe, a.whole, a.kind, a.target = (
                    s,
                    p,
                    n,
                    se,
                    pe,
                    whole,
                    kind,
                    target,
                )
                self._attack_pair([a], [lg])
            else:
                self._attack(u, p, se, pe, whole, target, s, lg)
        elif kind == SUPPORT:
            self._support(u, p, n, whole, lg)
        elif kind == CONTROL:
            self._control(u, p, tg, lg)
        elif kind == ADDITION:
            self._addition(u, p, tg, self._replica_source(u) if p.op == "replica" else None, lg)
        elif kind == CONSTRUCTION:
            self._build(u, p, lg)
        else:
            self.T += 1
            if lg is not None:
                lg.append(("years", u.side, u.serial, self.T))
        return 1

    def _skip_run(self, hs: list[_Sm], room: int, event: Any) -> int:
        """The procedure just done was a skip of every holder with nothing executable (no Stun):
        it changed nothing but AP, so the same holders will do the same skip again until one
        of them has no AP left. Do those procedures at once: AP spent, procedures counted
        against the limit (H61), the same event logged each time. Returns how many."""
        if not self.batch:
            return 0
        extra = min(min(u.ap for u in hs), room)
        if extra <= 0:
            return 0
        for u in hs:
            u.ap -= extra
        if self.log is not None:
            self.log.extend([event] * extra)
        return extra

    # -- several holders (§8.10) --------------------------------------------------------------

    def _decide(self, u: _Sm) -> _Act:
        """Step 1 for one holder: spend 1 AP (H8), decide the sword and snapshot it (H11)."""
        u.ap -= 1
        a = _Act(u)
        if u.stun:
            a.stunned = True
            return a
        T = self.T
        cyc = self.cyc
        mp = u.mp
        for s in u.swords:
            if s.act <= T and s.used != cyc and (not s.cost or s.cost <= mp):
                p = s.p
                a.s, a.p, a.n, a.se, a.pe, a.whole, a.kind = (
                    s,
                    p,
                    s.n,
                    s.se,
                    s.pe,
                    s.whole,
                    p.kind,
                )
                break
        return a

    def _aim(self, a: _Act, b: list[Any] | None) -> None:
        """Steps 2-3: the target (Taunt) and the next sword (H10) of a decided action."""
        p = a.p
        if p is None:
            return
        if a.kind == ATTACK:
            a.whole = a.whole or p.whole
            if not a.whole:
                a.target = self._target(a.u, b)
        elif p.nxt:
            assert a.s is not None
            sws = a.u.swords
            i = sws.index(a.s) + 1
            if i < len(sws):
                a.tg = sws[i]

    def _pay(self, a: _Act, b: list[Any] | None) -> None:
        """Step 4: used mark, <リミ>, MP, or the Stun of a stunned skip."""
        u = a.u
        if a.stunned:
            u.stun -= 1
            if b is not None:
                b.append(("skip", u.side, u.serial, "stun"))
            return
        s = a.s
        if s is None:
            if b is not None:
                b.append(("skip", u.side, u.serial, "none"))
            return
        s.used = self.cyc
        if s.lim:
            u.swords.remove(s)
            s.owner = None
        if s.cost:
            u.mp -= s.cost
        if b is not None:
            b.append(("act", u.side, u.serial, s.label, a.kind, s.lim, s.cost))

    def _duo(self, x: _Sm, y: _Sm, room: int) -> int:
        """:meth:`_multi` for two holders of different parties (each rank 1): the same steps
        and the same log, without the general grouping."""
        logging = self.log is not None
        a, c = self._decide(x), self._decide(y)
        ba: list[Any] | None = [] if logging else None
        bc: list[Any] | None = [] if logging else None
        self._aim(a, ba)
        self._aim(c, bc)
        self._pay(a, ba)
        self._pay(c, bc)
        if a.kind == c.kind:
            self._run_pair([a, c], [ba, bc])
            parts: Any = (("group", a.kind, (tuple(ba), tuple(bc))),) if logging else None  # type: ignore[arg-type]
        else:
            first, second = (a, c) if a.kind < c.kind else (c, a)
            b1, b2 = (ba, bc) if first is a else (bc, ba)
            self._run_one(first, b1)
            self._run_one(second, b2)
            parts = (
                (("part", first.u.side, tuple(b1)), ("part", second.u.side, tuple(b2)))  # type: ignore[arg-type]
                if logging
                else None
            )
        event = ("simul", parts) if logging else None
        if logging:
            self.log.append(event)  # type: ignore[union-attr]
        if a.s is None and c.s is None and not a.stunned and not c.stunned:
            return 1 + self._skip_run([x, y], room, event)
        return 1

    def _multi(self, hs: list[_Sm], room: int) -> int:
        """An action procedure with several holders: decide, target, pay, then the effects by
        kind priority and in-kind rank; equal (kind, rank) across parties is super-simultaneous.
        Returns the number of procedures done (see :meth:`_skip_run`)."""
        if len(hs) == 2 and hs[0].side != hs[1].side:
            return self._duo(hs[0], hs[1], room)
        lg = self.log
        acts: list[_Act] = []
        ranks: dict[tuple[int, int], int] = {}
        for u in hs:  # step 1 (holders are in party order, front first: H12)
            a = self._decide(u)
            key = (u.side, a.kind)
            a.rank = ranks[key] = ranks.get(key, 0) + 1
            acts.append(a)
        logs: list[list[Any] | None] = [[] if lg is not None else None for _ in acts]
        for a, b in zip(acts, logs, strict=False):  # steps 2-3
            self._aim(a, b)
        for a, b in zip(acts, logs, strict=False):  # step 4
            self._pay(a, b)
        order = sorted(range(len(acts)), key=lambda i: (acts[i].kind, acts[i].rank))  # stable
        parts: list[Any] | None = [] if lg is not None else None
        i = 0
        while i < len(order):  # step 5
            a = acts[order[i]]
            b = logs[order[i]]
            if (
                i + 1 < len(order)
                and acts[order[i + 1]].kind == a.kind
                and acts[order[i + 1]].rank == a.rank
            ):
                c = acts[order[i + 1]]
                bc = logs[order[i + 1]]
                self._run_pair([a, c], [b, bc])
                if parts is not None:
                    parts.append(("group", a.kind, (tuple(b), tuple(bc))))  # type: ignore[arg-type]
                i += 2
            else:
                self._run_one(a, b)
                if parts is not None:
                    parts.append(("part", a.u.side, tuple(b)))  # type: ignore[arg-type]
                i += 1
        event = ("simul", tuple(parts)) if parts is not None else None
        if lg is not None:
            lg.append(event)
        if all(a.s is None and not a.stunned for a in acts):
            return 1 + self._skip_run(hs, room, event)
        return 1

    def _run_one(self, a: _Act, lg: list[Any] | None) -> None:
        """Step 5 of one action with its step-1 snapshot (H11)."""
        kind = a.kind
        p = a.p
        if p is None:
            return
        u = a.u
        if kind == ATTACK:
            if self.generic:
                self._attack_pair([a], [lg])
            else:
                self._attack(u, p, a.se, a.pe, a.whole, a.target, a.s, lg)  # type: ignore[arg-type]
        elif kind == SUPPORT:
            self._support(u, p, a.n, a.whole, lg)
        elif kind == CONTROL:
            self._control(u, p, a.tg, lg)
        elif kind == ADDITION:
            self._addition(u, p, a.tg, self._replica_source(u) if p.op == "replica" else None, lg)
        elif kind == CONSTRUCTION:
            self._build(u, p, lg)
        elif kind == ENVIRONMENT:
            self.T += 1
            if lg is not None:
                lg.append(("years", u.side, u.serial, self.T))

    def _run_pair(self, pair: list[_Act], bs: list[list[Any] | None]) -> None:
        """Step 5 of a super-simultaneous pair (one action per party, §8.10)."""
        kind = pair[0].kind
        if kind == ATTACK:
            self._attack_pair(pair, bs)
        elif kind == ADDITION:
            # 複製剣 reads the enemy's front sword before either addition (§8.10, §8.11)
            srcs = [
                self._replica_source(a.u) if a.p.op == "replica" else None  # type: ignore[union-attr]
                for a in pair
            ]
            for a, b, src in zip(pair, bs, srcs, strict=False):
                self._addition(a.u, a.p, a.tg, src, b)  # type: ignore[arg-type]
        elif kind == ENVIRONMENT:
            # two 星霜剣 raise T by 2: read, then apply
            self.T += 2
            for a, b in zip(pair, bs, strict=False):
                if b is not None:
                    b.append(("years", a.u.side, a.u.serial, self.T))
        else:  # skips, supports, controls, builds: disjoint state (§8.10)
            for a, b in zip(pair, bs, strict=False):
                self._run_one(a, b)

    # -- support (§4.1, §4.3) -----------------------------------------------------------------

    def _support(self, u: _Sm, p: _Prog, n: int | None, whole: bool, lg: list[Any] | None) -> None:
        op = p.op
        arg = p.arg
        for x in list(u.party.members) if whole else (u,):
            if op == "stat":
                v = getattr(x, arg) + 1
                setattr(x, arg, v)
                if lg is not None:
                    lg.append(("stat", x.side, x.serial, arg, v))
            elif op == "status":
                self._gain(x, arg, p.gflag, lg)
            elif op == "mp":
                x.mp += arg
                if lg is not None:
                    lg.append(("stat", x.side, x.serial, "mp", x.mp))
            elif op == "fullhp":
                x.hp = x.max_hp
                if lg is not None:
                    lg.append(("stat", x.side, x.serial, "hp", x.hp))
                self._chk(x, lg)
            elif op == "ap":
                x.ap += arg
                if lg is not None:
                    lg.append(("stat", x.side, x.serial, "ap", x.ap))
            elif op == "cure":
                x.stun = x.sleep = x.venom = x.poison = x.abort = 0
                if lg is not None:
                    lg.append(("effect", x.side, x.serial, "cure", None))
            elif op == "garyu":  # 臥竜剣: +10 max HP and HP (an increase, H37), then Sleep
                x.max_hp += 10
                x.hp += 10
                if lg is not None:
                    lg.append(("stat", x.side, x.serial, "max_hp", x.max_hp))
                    lg.append(("stat", x.side, x.serial, "hp", x.hp))
                self._chk(x, lg)
                self._gain(x, "sleep", _G_COUNT, lg)
            elif op == "double":  # 竜化剣 (H47): AP is not doubled
                x.max_hp *= 2
                x.hp *= 2
                x.mp *= 2
                x.atk *= 2
                x.df *= 2
                x.spd *= 2
                if lg is not None:
                    lg.append(
                        (
                            "effect",
                            x.side,
                            x.serial,
                            "double",
                            (x.max_hp, x.hp, x.mp, x.atk, x.df, x.spd),
                        )
                    )
                self._chk(x, lg)

    def _gain(self, x: _Sm, attr: str, flag: int, lg: list[Any] | None) -> None:
        """``x`` gains one ``attr`` status (Taunt and Heaven's Door do not stack, §7)."""
        if flag == _G_TAUNT:
            x.taunt = 1
            x.party.taunt = True
            v = 1
        elif flag == _G_BOOL:
            x.hdoor = 1
            v = 1
        else:
            v = getattr(x, attr) + 1
            setattr(x, attr, v)
            if flag == _G_PROT:
                x.prot += 1
            elif flag == _G_DEFN:
                x.defn += 1
            elif flag == _G_QS:
                self.anyqs = True
            elif flag == _G_POISON:
                self.anypois = True
        if lg is not None:
            lg.append(("gain", x.side, x.serial, attr, v))
        if flag == _G_REVIVE and x.dead and not self.first:
            # a Soul or Life given to a dead swordmaster fires at once (§7, §8.3)
            if attr == "soul":
                x.soul -= 1
                x.hp = x.max_hp
                if x.hp >= 1:
                    x.dead = False
                    if lg is not None:
                        lg.append(("revive", x.side, x.serial, "soul", x.hp))
                elif lg is not None:
                    lg.append(("revive", x.side, x.serial, "soul-failed", x.hp))
            else:
                x.life -= 1
                x.hp = 1
                x.dead = False
                if lg is not None:
                    lg.append(("revive", x.side, x.serial, "life", 1))

    # -- control (§4.4) -----------------------------------------------------------------------

    def _control(self, u: _Sm, p: _Prog, tg: _Sw | None, lg: list[Any] | None) -> None:
        op = p.op
        sws = u.swords
        if op == "train":  # 鍛錬剣: every 斬撃剣 becomes 重撃剣 (enchantments lost, used kept)
            for x in sws:
                if x.p is _P_SLASH:
                    _redefine(x, _P_HEAVY, None, self.mpc)
                    if lg is not None:
                        lg.append(("sword", u.side, u.serial, "changed", "重", "斬"))
            return
        if op == "renew":  # 再来剣: every own sword unused
            for x in sws:
                x.used = -1
            if lg is not None:
                lg.append(("sword", u.side, u.serial, "renewed", None, None))
            return
        if tg is None or tg.owner is not u:  # no next sword, or it vanished (H9, H10, §8.6)
            if lg is not None:
                lg.append(("fizzle", u.side, u.serial, "no-target" if tg is None else "vanished"))
            return
        if op == "hold":  # 遅延剣
            tg.used = self.cyc
            if lg is not None:
                lg.append(("sword", u.side, u.serial, "held", tg.label, None))
        elif op == "restrain":  # 抑制剣 (H43: 2·HP ≥ max HP)
            if 2 * u.hp >= u.max_hp:
                tg.used = self.cyc
                if lg is not None:
                    lg.append(("sword", u.side, u.serial, "held", tg.label, None))
            elif lg is not None:
                lg.append(("fizzle", u.side, u.serial, "hp-below-half"))
        elif op == "resonate":  # 共鳴剣 (H41, H42): all own swords become the same as tg
            for x in list(sws):
                if x is not tg:
                    old = x.label
                    _same_as(x, tg)
                    if lg is not None:
                        lg.append(("sword", u.side, u.serial, "changed", x.label, old))
        elif op == "remove":  # 収鞘剣
            sws.remove(tg)
            tg.owner = None
            if lg is not None:
                lg.append(("sword", u.side, u.serial, "removed", tg.label, None))
        elif op == "limit":  # 限定剣 (H44)
            self.anyench = True
            if tg.lim:
                if lg is not None:
                    lg.append(("fizzle", u.side, u.serial, "already-limited"))
            else:
                tg.elim = tg.lim = True
                if lg is not None:
                    lg.append(("sword", u.side, u.serial, "enchanted", tg.label, "elim"))
        elif op == "early":  # 導来剣
            self.anyench = True
            tg.early += 1
            tg.act = max(0, tg.base - tg.early)
            if lg is not None:
                lg.append(("sword", u.side, u.serial, "enchanted", tg.label, "early"))
        else:  # 振動剣, 毒薬剣, 拡散剣: the condition reads the target at step 5
            self.anyench = True
            k = tg.p.kind
            if op == "enchant-stun" and k == ATTACK:
                tg.se += 1
                what = "se"
            elif op == "enchant-poison" and k == ATTACK:
                tg.pe += 1
                what = "pe"
            elif op == "enchant-whole" and (k == ATTACK or k == SUPPORT):
                tg.whole = True
                what = "whole"
            else:
                if lg is not None:
                    lg.append(("fizzle", u.side, u.serial, "wrong-kind"))
                return
            if lg is not None:
                lg.append(("sword", u.side, u.serial, "enchanted", tg.label, what))

    # -- addition (§4.5) ----------------------------------------------------------------------

    def _replica_source(self, u: _Sm) -> _Sw | None:
        """複製剣's source: the first sword of the enemy front swordmaster, now (H46, H48)."""
        front = u.enemy.members[0]
        return front.swords[0] if front.swords else None

    def _addition(
        self, u: _Sm, p: _Prog, sub: _Sw | None, src: _Sw | None, lg: list[Any] | None
    ) -> None:
        op = p.op
        if op == "null":
            x = _Sw(_P_NULL, None, u, self.mpc)
        elif op == "replica":
            if src is None:
                if lg is not None:
                    lg.append(("fizzle", u.side, u.serial, "no-target"))
                return
            x = _copy(src, u, self.mpc)
        else:  # 増殖剣
            if sub is None or sub.owner is not u:
                if lg is not None:
                    lg.append(
                        ("fizzle", u.side, u.serial, "no-target" if sub is None else "vanished")
                    )
                return
            x = _copy(sub, u, self.mpc)
        u.swords.append(x)
        if lg is not None:
            lg.append(("sword", u.side, u.serial, "added", x.label, None))

    # -- construction (§6, H49-H53) -----------------------------------------------------------

    def _build(self, u: _Sm, p: _Prog, lg: list[Any] | None) -> None:
        party = u.party
        if u.abort:  # H50 order: Abort (consumed), 永絶, party cap
            u.abort -= 1
            why = "abort"
        elif u.built == self.cyc:
            why = "eternal"
        elif len(party.members) >= self.cap:
            why = "full"
        else:
            why = ""
        if why:
            if lg is not None:
                lg.append(("nobuild", u.side, u.serial, why))
            return
        spec = (
            party.spec if p.build == "own" else party.enemy.spec if p.build == "enemy" else p.spec
        )
        m = _Sm(party, spec, self.mpc, self.cyc)
        m.ap = m.spd
        party.members.insert(0, m)
        self.roster[(m.side, m.serial)] = m.name
        if lg is not None:
            lg.append(("build", u.side, u.serial, m.serial, m.name))
        if m.hp <= 0 and not self.first:
            m.dead = True
            self.deaths = True
            if lg is not None:
                lg.append(("die", m.side, m.serial, m.hp))

    # -- attacks (§8.8, §8.9) -----------------------------------------------------------------

    def _protect(self, t: _Sm, F: int) -> tuple[str, int]:
        """The target's first protection status fires on damage ``F`` (§8.8 step 3)."""
        t.prot -= 1
        if t.barrier:
            t.barrier -= 1
            return "barrier", 0
        if t.cushion:
            t.cushion -= 1
            return "cushion", 1
        if t.flip:
            t.flip -= 1
            if t.df >= 1:
                t.df -= 1
                return "flip", F - 3
            return "flip", F
        if t.shield:
            t.shield -= 1
            return "shield", F // 2
        t.guard -= 1
        return "guard", -(-F // 2)

    def _nondmg(self, op: str, t: _Sm, lg: list[Any] | None) -> None:
        """The effect of an attack without damage on its final target (H29)."""
        if op == "reset-atk":
            t.atk = t.atk0
            v: Any = t.atk
        elif op == "reset-def":
            t.df = t.df0
            v = t.df
        elif op == "reset-spd":
            t.spd = t.spd0
            v = t.spd
        elif op == "assign-maxhp":
            t.hp = t.max_hp
            v = t.hp
        else:  # burn: every sword of the target becomes 炸撃剣 (H40)
            self._burn(t)
            v = None
        if lg is not None:
            lg.append(("effect", t.side, t.serial, op, v))
        if op == "assign-maxhp":
            self._chk(t, lg)

    def _burn(self, x: _Sm) -> None:
        mpc = self.mpc
        for s in x.swords:
            _redefine(s, _P_BURST, None, mpc)

    def _tight(self, op: str, t: _Sm, lg: list[Any] | None) -> None:
        """A built-in 密結 rider on ≥ 1 damage (§4.2)."""
        if op == "stun":
            self._gain(t, "stun", _G_COUNT, lg)
        elif op == "poison":
            self._gain(t, "poison", _G_POISON, lg)
        elif op == "venom":
            self._gain(t, "venom", _G_POISON, lg)
        elif op == "abort":
            self._gain(t, "abort", _G_COUNT, lg)
        elif op == "destroy":  # 破壊剣: position 1, whatever its state (H46)
            if t.swords:
                x = t.swords.pop(0)
                x.owner = None
                if lg is not None:
                    lg.append(("sword", t.side, t.serial, "destroyed", x.label, None))
        elif op == "jam":  # 剣戟剣: the first sword not marked used (H38)
            cyc = self.cyc
            for x in t.swords:
                if x.used != cyc:
                    x.used = cyc
                    if lg is not None:
                        lg.append(("sword", t.side, t.serial, "jammed", x.label, None))
                    break
        elif op == "reverse":  # 撹乱剣
            t.swords.reverse()
            if lg is not None:
                lg.append(("sword", t.side, t.serial, "reversed", None, None))

    def _riders(self, p: _Prog, se: int, pe: int, t: _Sm, lg: list[Any] | None) -> None:
        """All 密結 riders of a hit with damage ≥ 1: built-in first, then enchantments (H32)."""
        if p.tight:
            self._tight(p.tight, t, lg)
        if se:
            t.stun += se
            if lg is not None:
                lg.append(("gain", t.side, t.serial, "stun", t.stun))
        if pe:
            t.poison += pe
            self.anypois = True
            if lg is not None:
                lg.append(("gain", t.side, t.serial, "poison", t.poison))

    def _heal(self, u: _Sm, d: int, lg: list[Any] | None) -> None:
        """``u`` recovers ``d`` (capped at max HP; nothing at or above it, §9)."""
        if u.hp < u.max_hp:
            u.hp = min(u.max_hp, u.hp + d)
            if lg is not None:
                lg.append(("heal", u.side, u.serial, d, u.hp))
            self._chk(u, lg)

    def _steal(self, u: _Sm, t: _Sm, x: _Sw | None, lg: list[Any] | None) -> None:
        """強盗剣: sword ``x`` (the target's first, decided just before) moves to the end of the
        executor's list, keeping everything (H39)."""
        if x is None or x.owner is not t:
            return
        t.swords.remove(x)
        u.swords.append(x)
        x.owner = u
        if lg is not None:
            lg.append(("sword", t.side, t.serial, "stolen", x.label, (u.side, u.serial)))

    def _indep(self, op: str, u: _Sm, s: _Sw, lg: list[Any] | None) -> None:
        """The ／ effect of an attack, after all its members (§8.9)."""
        if op == "self9":  # 災厄剣: plain damage (H26)
            u.hp -= 9
            if lg is not None:
                lg.append(("self", u.side, u.serial, 9, u.hp))
            self._chk(u, lg)
        elif op == "unuse":  # 舞踏剣: this sword, wherever it is now (H11, H45)
            if s.owner is not None:
                s.used = -1
                if lg is not None:
                    o = s.owner
                    lg.append(("sword", o.side, o.serial, "unused", s.label, None))
        else:  # 炎上剣: the executor's own swords burn
            self._burn(u)
            if lg is not None:
                lg.append(("effect", u.side, u.serial, "burn", None))

    def _attack(
        self,
        u: _Sm,
        p: _Prog,
        se: int,
        pe: int,
        whole: bool,
        target: _Sm | None,
        s: _Sw,
        lg: list[Any] | None,
    ) -> None:
        """One attack action alone (§8.8, §8.9): member by member, each arrival and defence, then
        its hits one by one with their riders; the ／ effect last."""
        T = self.T
        ignore = p.ignore
        raw_fn = p.raw
        reps = p.reps
        nondmg = p.nondmg
        members: list[_Sm]
        if whole:
            members = list(u.enemy.members)  # H19
        else:
            assert target is not None
            members = [target]
        for t in members:
            snd = u
            if t.defn and not ignore:  # arrival: Reflect > Dodge, one per arrival (§8.8 step 1)
                dodged = False
                while t.defn:
                    if t.reflect:
                        t.reflect -= 1
                        t.defn -= 1
                        snd, t = t, snd  # back to the sender (H21)
                        if lg is not None:
                            lg.append(("reflect", snd.side, snd.serial, t.side, t.serial))
                    else:
                        t.dodge -= 1
                        t.defn -= 1
                        if lg is not None:
                            lg.append(("dodge", t.side, t.serial))
                        dodged = True
                        break
                if dodged:
                    continue
            if nondmg:
                self._nondmg(nondmg, t, lg)
                continue
            assert raw_fn is not None
            for r in range(reps):
                F = raw = raw_fn(u, t, T)
                dv = 0
                if r == 0 and u.drive:  # Drive: once per attack, first hit (H22, H25)
                    u.drive -= 1
                    if u.atk >= 1:
                        F += 3
                        u.atk -= 1
                        dv = 2
                    else:
                        dv = 1
                pr = ""
                if t.prot and not ignore:
                    pr, F = self._protect(t, F)
                if F < 0:  # the hit fails (H24)
                    if lg is not None:
                        lg.append(
                            (
                                "hit",
                                t.side,
                                t.serial,
                                0,
                                raw,
                                dv,
                                pr,
                                F,
                                True,
                                p.to_mp,
                                t.mp if p.to_mp else t.hp,
                            )
                        )
                    continue
                if p.to_mp:
                    t.mp -= F
                    if lg is not None:
                        lg.append(("hit", t.side, t.serial, 0, raw, dv, pr, F, False, True, t.mp))
                else:
                    t.hp -= F
                    if lg is not None:
                        lg.append(("hit", t.side, t.serial, 0, raw, dv, pr, F, False, False, t.hp))
                    if F:
                        self._chk(t, lg)
                if F >= 1:
                    if p.tight or se or pe:
                        self._riders(p, se, pe, t, lg)
                    loose = p.loose
                    if loose == "heal":
                        self._heal(u, F, lg)
                    elif loose == "steal":
                        self._steal(u, t, t.swords[0] if t.swords else None, lg)
        if p.indep:
            self._indep(p.indep, u, s, lg)

    def _attack_pair(self, acts: list[_Act], bs: list[list[Any] | None]) -> None:
        """The tempo scheduler (§8.10, §12.6) for a super-simultaneous group of attacks (one per
        party; with one action it is :meth:`_attack`)."""
        T = self.T
        lists: list[list[_Sm]] = [  # H19
            list(a.u.enemy.members) if a.whole or a.target is None else [a.target] for a in acts
        ]
        width = max(len(m) for m in lists)
        for j in range(width):
            hits = [
                _Hit(a, m[j], b) for a, m, b in zip(acts, lists, bs, strict=False) if j < len(m)
            ]
            reps = max(1 if h.a.p.nondmg else h.a.p.reps for h in hits)  # type: ignore[union-attr]
            for r in range(reps):
                k = 0
                while True:
                    if r == 0:  # arrivals at tempo k (§8.8 step 1)
                        for h in hits:
                            if h.state == 0 and h.tempo == k:
                                t = h.t
                                if h.a.p.ignore or not t.defn:  # type: ignore[union-attr]
                                    h.state = 1
                                elif t.reflect:
                                    t.reflect -= 1
                                    t.defn -= 1
                                    h.snd, h.t = t, h.snd
                                    h.tempo += 1
                                    if h.b is not None:
                                        h.b.append(
                                            ("reflect", t.side, t.serial, h.t.side, h.t.serial)
                                        )
                                else:
                                    t.dodge -= 1
                                    t.defn -= 1
                                    h.state = 2
                                    if h.b is not None:
                                        h.b.append(("dodge", t.side, t.serial))
                    now = [
                        h
                        for h in hits
                        if h.state == 1 and h.tempo == k and r < (1 if h.a.p.nondmg else h.a.p.reps)  # type: ignore[union-attr]
                    ]
                    if now:
                        self._tempo(now, r, T)
                    k += 1
                    if not any((h.state == 0) or (h.state == 1 and h.tempo >= k) for h in hits):
                        break
        for a, b in zip(acts, bs, strict=False):  # the ／ effects of the group, together
            p = a.p
            if p.indep == "self9":  # type: ignore[union-attr]
                a.u.hp -= 9
                if b is not None:
                    b.append(("self", a.u.side, a.u.serial, 9, a.u.hp))
            elif p.indep:  # type: ignore[union-attr]
                self._indep(p.indep, a.u, a.s, b)  # type: ignore[union-attr,arg-type]
        for a, b in zip(acts, bs, strict=False):
            if a.p.indep == "self9":  # type: ignore[union-attr]
                self._chk(a.u, b)

    def _tempo(self, now: list[_Hit], r: int, T: int) -> None:
        """One tempo: every raw value from the same state, Drive and protection, all applied at
        once, deaths and revivals, then the 密結 and the 疎結 effects (§8.10 steps 2-5)."""
        # H35: two hits of one tempo never meet the same swordmaster
        assert len(now) < 2 or now[0].t is not now[1].t, "H35: two hits of a tempo on one target"
        for h in now:
            p = h.a.p
            if not p.nondmg:  # type: ignore[union-attr]
                h.F = h.raw = p.raw(h.a.u, h.t, T)  # type: ignore[union-attr,misc]
        for h in now:
            p = h.a.p
            if p.nondmg:  # type: ignore[union-attr]
                continue
            u = h.a.u
            F = h.F
            if r == 0 and u.drive:
                u.drive -= 1
                if u.atk >= 1:
                    F += 3
                    u.atk -= 1
                    h.dv = 2
                else:
                    h.dv = 1
            else:
                h.dv = 0
            h.pr = ""
            if h.t.prot and not p.ignore:  # type: ignore[union-attr]
                h.pr, F = self._protect(h.t, F)
            h.F = F
        for h in now:  # apply all at once
            p = h.a.p
            t = h.t
            if p.nondmg:  # type: ignore[union-attr]
                self._nondmg_apply(p.nondmg, t, h.b)  # type: ignore[union-attr]
                continue
            F = h.F
            h.failed = F < 0
            if h.failed:
                if h.b is not None:
                    h.b.append(
                        (
                            "hit",
                            t.side,
                            t.serial,
                            h.tempo,
                            h.raw,
                            h.dv,
                            h.pr,
                            F,
                            True,
                            p.to_mp,  # type: ignore[union-attr]
                            t.mp if p.to_mp else t.hp,  # type: ignore[union-attr]
                        )
                    )
                continue
            if p.to_mp:  # type: ignore[union-attr]
                t.mp -= F
            else:
                t.hp -= F
            if h.b is not None:
                h.b.append(
                    (
                        "hit",
                        t.side,
                        t.serial,
                        h.tempo,
                        h.raw,
                        h.dv,
                        h.pr,
                        F,
                        False,
                        p.to_mp,  # type: ignore[union-attr]
                        t.mp if p.to_mp else t.hp,  # type: ignore[union-attr]
                    )
                )
        for h in now:  # deaths and revivals (H30)
            p = h.a.p
            if (
                p.nondmg == "assign-maxhp"  # type: ignore[union-attr]
                or (not p.nondmg and not h.failed and h.F and not p.to_mp)  # type: ignore[union-attr]
            ):
                self._chk(h.t, h.b)
        for h in now:  # 密結
            p = h.a.p
            if not p.nondmg and not h.failed and h.F >= 1 and (p.tight or h.a.se or h.a.pe):  # type: ignore[union-attr]
                self._riders(p, h.a.se, h.a.pe, h.t, h.b)  # type: ignore[arg-type]
        steals = []
        for h in now:  # 疎結: decide all, then apply (§8.11)
            p = h.a.p
            if not p.nondmg and not h.failed and h.F >= 1:  # type: ignore[union-attr]
                if p.loose == "steal":  # type: ignore[union-attr]
                    steals.append((h, h.t.swords[0] if h.t.swords else None))
        for h in now:
            p = h.a.p
            if not p.nondmg and not h.failed and h.F >= 1 and p.loose == "heal":  # type: ignore[union-attr]
                self._heal(h.a.u, h.F, h.b)
        for h, x in steals:
            self._steal(h.a.u, h.t, x, h.b)

    def _nondmg_apply(self, op: str, t: _Sm, lg: list[Any] | None) -> None:
        """A non-damage attack's effect inside a tempo (its death check follows with the tempo)."""
        if op == "assign-maxhp":
            t.hp = t.max_hp
            if lg is not None:
                lg.append(("effect", t.side, t.serial, op, t.hp))
        else:
            self._nondmg(op, t, lg)

    # -- phases and settlement (§8.1, §8.2) ---------------------------------------------------

    def _buckets(self) -> tuple[list[Any], list[Any]] | None:
        return ([], []) if self.log is not None else None

    def _status_phase(self) -> bool:
        """Venom, then all Poison at once (§8.1 step 2); returns True when the battle ends."""
        bk = self._buckets()
        hit = []
        for party in self.P:
            b = bk[party.side] if bk is not None else None
            for x in party.members:
                if x.venom:
                    x.poison += x.venom
                    if b is not None:
                        b.append(("venom", x.side, x.serial, x.poison))
        for party in self.P:
            b = bk[party.side] if bk is not None else None
            for x in party.members:
                if x.poison:
                    x.hp -= x.poison
                    hit.append(x)
                    if b is not None:
                        b.append(("poison", x.side, x.serial, x.poison, x.hp))
        for x in hit:
            self._chk(x, bk[x.side] if bk is not None else None)
        if bk is not None and (bk[0] or bk[1]):
            self.log.append(("phase", (tuple(bk[0]), tuple(bk[1]))))  # type: ignore[union-attr]
        if not hit:
            return False
        return self._settle()

    def _settle(self) -> bool:
        """Event settlement (§8.2): exits, period expiry (T > x), end check. True = the end."""
        bk = None
        if self.deaths:
            self.deaths = False
            for party in self.P:
                if any(x.dead for x in party.members):
                    if bk is None:
                        bk = self._buckets()
                    stay = []
                    for x in party.members:
                        if x.dead:
                            x.exited = True
                            x.snap = _state(x, self.anyench)
                            party.exited.append(x)
                            if bk is not None:
                                bk[party.side].append(("exit", x.side, x.serial, x.hp))
                        else:
                            stay.append(x)
                    party.members = stay
        if self.has_period:
            T = self.T
            for party in self.P:
                for x in party.members:
                    gone = [s for s in x.swords if 0 <= s.period < T]
                    if gone:
                        if bk is None:
                            bk = self._buckets()
                        for s in gone:
                            x.swords.remove(s)
                            s.owner = None
                            if bk is not None:
                                bk[party.side].append(
                                    ("sword", x.side, x.serial, "expired", s.label, None)
                                )
        if bk is not None and (bk[0] or bk[1]):
            self.log.append(("settle", (tuple(bk[0]), tuple(bk[1]))))  # type: ignore[union-attr]
        return not self.P[0].members or not self.P[1].members or self.T > LAST_TURN

    def _turn_end(self) -> None:
        """Turn end (§8.1 step 5): period swords with x ≤ T vanish; used marks clear (the next
        turn cycle's number makes every mark stale, H7)."""
        if not self.has_period:
            return
        T = self.T
        bk = self._buckets()
        for party in self.P:
            for x in party.members:
                gone = [s for s in x.swords if 0 <= s.period <= T]
                for s in gone:
                    x.swords.remove(s)
                    s.owner = None
                    if bk is not None:
                        bk[party.side].append(("sword", x.side, x.serial, "expired", s.label, None))
        if bk is not None and (bk[0] or bk[1]):
            self.log.append(("turnend", (tuple(bk[0]), tuple(bk[1]))))  # type: ignore[union-attr]

    def _death_check(self) -> None:
        """The death check after the first turn (§8.1 step 6): every HP ≤ 0 dies (revivals)."""
        bk = self._buckets()
        for party in self.P:
            b = bk[party.side] if bk is not None else None
            for x in party.members:
                if x.hp <= 0:
                    self._chk(x, b)
        if bk is not None and (bk[0] or bk[1]):
            self.log.append(("check", (tuple(bk[0]), tuple(bk[1]))))  # type: ignore[union-attr]

    def _states(self) -> tuple[tuple[SmState, ...], tuple[SmState, ...]]:
        e = self.anyench
        return (
            tuple([_state(x, e) for x in (*self.P[0].members, *self.P[0].exited)]),
            tuple([_state(x, e) for x in (*self.P[1].members, *self.P[1].exited)]),
        )

    # -- the battle -----------------------------------------------------------------------------

    def run(self) -> HundredResult:
        """Play the battle to its end (§8.1) and judge it (§8.4)."""
        lg = self.log
        P0, P1 = self.P
        while True:
            if lg is not None:
                lg.append(("turn", self.T))
            if self.anypois and not self.first and self._status_phase():
                return self._finish("settlement")
            slept: tuple[list[Any], list[Any]] | None = None
            for party in self.P:  # AP phase (H13)
                for u in party.members:
                    if u.sleep:
                        u.sleep -= 1
                        u.ap = 0
                        if lg is not None:
                            if slept is None:
                                slept = ([], [])
                            slept[u.side].append(("sleep", u.side, u.serial, u.sleep))
                    else:
                        u.ap = u.spd
            if slept is not None:
                lg.append(("apphase", (tuple(slept[0]), tuple(slept[1]))))  # type: ignore[union-attr]
            count = 0
            limit = self.limit
            while True:  # action phase
                if len(P0.members) == 1 and len(P1.members) == 1:
                    a = P0.members[0]
                    b = P1.members[0]
                    if a.ap > 0:
                        if b.ap > 0:
                            ka: Any
                            kb: Any
                            if self.anyqs:
                                ka = (a.quick - a.slow, a.spd)
                                kb = (b.quick - b.slow, b.spd)
                            else:
                                ka, kb = a.spd, b.spd
                            if ka > kb:
                                count += self._solo(a, limit - count - 1)
                            elif kb > ka:
                                count += self._solo(b, limit - count - 1)
                            else:
                                count += self._multi([a, b], limit - count - 1)
                        else:
                            count += self._solo(a, limit - count - 1)
                    elif b.ap > 0:
                        count += self._solo(b, limit - count - 1)
                    else:
                        break
                else:
                    hs = self._holders()
                    if not hs:
                        break
                    if len(hs) == 1:
                        count += self._solo(hs[0], limit - count - 1)
                    else:
                        count += self._multi(hs, limit - count - 1)
                if (
                    not self.first
                    and (self.deaths or self.has_period or self.T > LAST_TURN)
                    and self._settle()
                ):
                    self._count(count)
                    return self._finish("settlement")
                if count >= limit:  # H61
                    self.limit_hits += 1
                    if lg is not None:
                        lg.append(("limit", self.T, count))
                    break
            self._count(count)
            self._turn_end()
            if self.first:
                self.first = False
                self._death_check()
                if self._settle():
                    return self._finish("settlement")
            if self.T >= LAST_TURN:
                return self._finish("turn-end")
            if lg is not None:
                lg.append(("end", self.T, self._states()))
            self.T += 1
            self.cyc += 1

    def _count(self, n: int) -> None:
        self.procs += n
        if n > self.max_procs:
            self.max_procs = n

    def _finish(self, where: str) -> HundredResult:
        """The judges of §8.4 (H55-H58)."""
        P0, P1 = self.P
        e0, e1 = not P0.members, not P1.members
        winner: int | None
        if e0 != e1:
            by = reason = "death"
            winner = 1 if e0 else 0
            totals = (sum(x.hp for x in P0.members), sum(x.hp for x in P1.members))
            push = (0, 0)
        else:
            if e0:  # both annihilated: overkill judge (H55), smaller wins
                by = "overkill"
                totals = (sum(-x.hp for x in P0.exited), sum(-x.hp for x in P1.exited))
                push = (sum(x.push for x in P0.exited), sum(x.push for x in P1.exited))
                better = 0 if totals[0] < totals[1] else 1 if totals[1] < totals[0] else None
            else:  # over-turn judge (H56), larger wins
                by = "hp"
                totals = (sum(x.hp for x in P0.members), sum(x.hp for x in P1.members))
                push = (sum(x.push for x in P0.members), sum(x.push for x in P1.members))
                better = 0 if totals[0] > totals[1] else 1 if totals[1] > totals[0] else None
            if push[0] != push[1]:  # H57
                winner = 0 if push[0] > push[1] else 1
                reason = "push"
            elif better is None:
                winner, reason = None, "draw"
            else:
                winner, reason = better, by
        hd = None
        if winner is not None:  # H58: a rewrite request; the engine never applies it
            party = self.P[winner]
            if "疎" in party.spec.codes and any(x.hdoor for x in (*party.members, *party.exited)):
                hd = winner
        final = self._states()
        events: tuple[Any, ...] = ()
        if self.log is not None:
            self.log.append(("end", self.T, final))
            events = tuple(self.log)
        return HundredResult(
            winner,
            reason,
            by,
            self.T,
            final,
            totals,
            push,
            hd,
            where,
            self.procs,
            self.max_procs,
            self.limit_hits,
            self.roster,
            events,
        )


def battle(
    a: Swordmaster,
    b: Swordmaster,
    *,
    log: bool = True,
    options: Options | None = None,
    _generic: bool = False,
    _batch: bool = True,
) -> HundredResult:
    """Fight ``a`` (side A) against ``b`` (side B) under the league ``options`` (default: the
    Hundred 1.6.a defaults). ``§8`` of ``rules/margaret-hundred.md``.

    The swordmasters must be valid entries (every code in the table, N given and in range); the
    engine does not check budgets or pools (the sheet check does). Deterministic and symmetric:
    ``battle(b, a)`` is this battle with the sides swapped, event for event (``events.mirror``).
    With ``log=False`` no event is created (the result is the same, ``events`` is empty).
    ``_generic`` (tests only) runs every attack through the tempo scheduler; ``_batch=False``
    (tests only) does every skip procedure one by one (the result and log are the same).

    Raises:
        KeyError: a sword code that is not in the table.
    """
    return _Battle(a, b, log, options or _DEFAULT, _generic, _batch).run()
