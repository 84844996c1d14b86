"""The values of the trigger language (§4.3): plays, events, conditions, rules, orders.

Source: ``rules/margaret-magicalized.md`` §4.2-§4.3 and G22-G63. These are what the parser
(``orders.py``) produces, what a decider returns (a :class:`PlaySpec` inside a :class:`Play`) and
what the engine binds to the battle at play (``engine.py``). All are immutable and picklable.

Sides in a play or a rule are *relative* to the player: ``"my"`` or ``"enemy"`` (and ``"any"`` in
events and yes/no conditions, G40). :meth:`PlaySpec.text` is the canonical play text that
``battle --json`` prints in ``cards[].args`` (G52), e.g. ``無 enemy THIS``,
``黄 DISCARD 燃 my 滅 AT END``, ``払 enemy Reflect ALL``.
"""

from __future__ import annotations

import unicodedata
from dataclasses import dataclass

from .swords import ENCHANT_NAME, STATUS_NAME


@dataclass(frozen=True, slots=True)
class Ref:
    """A sword named in a play (§4.3 ``ref``).

    Attributes:
        side: ``"my"`` or ``"enemy"`` (relative to the player).
        kind: ``"this"`` (the window's sword owned by ``side``, G23), ``"sword"`` (the ``k``-th
            copy of ``sword`` in ``side``'s list) or ``"pos"`` (position ``k``, 1-based).
        sword: the sword code for ``"sword"``.
        k: the copy (``#k``) or the position (``@k``); 1 by default.
    """

    side: str
    kind: str
    sword: str | None = None
    k: int = 1

    def text(self) -> str:
        """``enemy THIS``, ``my 斬``, ``my 斬#2``, ``enemy @3``."""
        if self.kind == "this":
            return f"{self.side} THIS"
        if self.kind == "pos":
            return f"{self.side} @{self.k}"
        return f"{self.side} {self.sword}" + (f"#{self.k}" if self.k != 1 else "")


@dataclass(frozen=True, slots=True)
class Pos:
    """Where a 軌跡 card puts its sword (§4.3 ``pos``): ``"front"``, ``"end"``, ``"index"``
    (1-based ``index``), ``"before"`` or ``"after"`` ``ref`` (a sword of the receiver, G32)."""

    kind: str
    index: int = 0
    ref: Ref | None = None

    def text(self) -> str:
        """``AT FRONT``, ``AT END``, ``AT 2``, ``AT BEFORE my 斬``."""
        if self.kind == "index":
            return f"AT {self.index}"
        if self.kind in ("before", "after"):
            assert self.ref is not None
            return f"AT {self.kind.upper()} {self.ref.text()}"
        return f"AT {self.kind.upper()}"


@dataclass(frozen=True, slots=True)
class PlaySpec:
    """A card with its declared arguments (§4.3 ``play``; G9: declared on play, checked at
    resolution). Which fields are set depends on the card's schema (``swords.CardDef.schema``):

    * ``ref`` (無), ``ref`` + ``enchant`` (闇: ``"unseen"``, ``"pe"``, ``"se"``);
    * ``side`` + ``sword`` + ``pos`` (赤 緑 白 青 黒), with ``discard`` first (黄);
    * ``side`` (愛 知), ``side`` + ``order`` (心: sword codes), ``side`` + ``statuses`` (払:
      ``(status attribute, count or None for ALL)``), ``side`` + ``card`` (策);
    * ``discard`` + ``inner`` (虹: the effect it gains, another :class:`PlaySpec`).
    """

    card: str
    side: str | None = None
    ref: Ref | None = None
    enchant: str | None = None
    sword: str | None = None
    pos: Pos | None = None
    discard: str | None = None
    inner: PlaySpec | None = None
    order: tuple[str, ...] = ()
    statuses: tuple[tuple[str, int | None], ...] = ()
    target: str | None = None

    def text(self) -> str:
        """The canonical play text (G52): the card's code, then its arguments with relative
        sides, English keywords, codes for swords and cards, G63's English spellings for
        statuses and enchantments."""
        out = [self.card]
        if self.discard is not None:
            out += ["DISCARD", self.discard]
        if self.inner is not None:
            out += ["AS", self.inner.text()]
        if self.ref is not None:
            out.append(self.ref.text())
        if self.enchant is not None:
            out.append(ENCHANT_NAME[self.enchant]["en"])
        if self.side is not None:
            out.append(self.side)
        if self.sword is not None:
            out.append(self.sword)
        if self.pos is not None:
            out.append(self.pos.text())
        if self.order:
            out += ["ORDER", *self.order]
        for status, n in self.statuses:
            out.append(STATUS_NAME[status]["en"])
            if n is None:
                out.append("ALL")
            elif n != 1:
                out.append(str(n))
        if self.target is not None:
            out.append(self.target)
        return " ".join(out)

    def chain(self) -> tuple[PlaySpec, ...]:
        """This play and the plays it gains through 虹紡ぎ's ``AS``, outermost first."""
        out: list[PlaySpec] = [self]
        while out[-1].inner is not None:
            inner = out[-1].inner
            assert inner is not None
            out.append(inner)
        return tuple(out)

    def discards(self) -> tuple[str, ...]:
        """Every card named by ``DISCARD`` along the chain (G10, G41)."""
        return tuple(p.discard for p in self.chain() if p.discard is not None)


@dataclass(frozen=True, slots=True)
class Play:
    """A decider's answer other than a pass: play ``spec`` (the engine binds and checks it)."""

    spec: PlaySpec


@dataclass(frozen=True, slots=True)
class Event:
    """A rule's trigger (§4.3 ``event``).

    Attributes:
        side: ``"my"``, ``"enemy"`` or ``"any"``.
        kind: ``ACT``, ``VANISH``, ``REFLECT``, ``HIT``, ``EFFECT``, ``DEATH`` or ``CARD``.
        sword: the sword code after ACT/VANISH/HIT/EFFECT, or ``None``.
        what: after ACT ``"WHIFF"``/``"STUN"``; after EFFECT a status attribute (``毒`` sets both
            ``sword`` and ``what``, G34); after CARD the card code.
    """

    side: str
    kind: str
    sword: str | None = None
    what: str | None = None

    def text(self) -> str:
        """``enemy ACT 死``, ``my EFFECT 毒``, ``enemy CARD 無``, ``any ACT WHIFF``."""
        out = [self.side, self.kind]
        if self.sword is not None:
            out.append(self.sword)
        elif self.what is not None:
            out.append(self.what if self.kind in ("ACT", "CARD") else STATUS_NAME[self.what]["en"])
        return " ".join(out)


@dataclass(frozen=True, slots=True)
class Value:
    """A value (§4.3): ``kind`` ``"int"`` (``n``), ``"turn"``, ``"damage"`` or ``"attr"``
    (``side``'s ``attr``: ``hp``, ``maxhp``, ``atk``, ``def``, ``spd``, ``ap`` or a status
    attribute)."""

    kind: str
    n: int = 0
    side: str = "my"
    attr: str = ""

    def text(self) -> str:
        """``4``, ``turn``, ``damage``, ``enemy hp``, ``my Stun``."""
        if self.kind == "int":
            return str(self.n)
        if self.kind in ("turn", "damage"):
            return self.kind
        attr = STATUS_NAME[self.attr]["en"] if self.attr in STATUS_NAME else self.attr
        return f"{self.side} {attr}"


@dataclass(frozen=True, slots=True)
class Cond:
    """A condition (§4.3 ``cond``): ``kind`` is ``cmp`` (``a op b``), ``critical``, ``has``
    (``name`` a status), ``holds`` (a sword), ``used`` (a card), ``hand`` (a card), ``stack-empty``,
    ``stack-has`` (a card), ``targets`` or ``lead``; ``negate`` for NOT."""

    kind: str
    side: str = "my"
    name: str = ""
    op: str = ""
    a: Value | None = None
    b: Value | None = None
    negate: bool = False

    def text(self) -> str:
        """The condition in canonical English keywords (``NOT`` first when negated)."""
        k = self.kind
        if k == "cmp":
            assert self.a is not None and self.b is not None
            body = f"{self.a.text()} {self.op} {self.b.text()}"
        elif k == "critical":
            body = f"{self.side} critical"
        elif k == "has":
            body = f"{self.side} has {STATUS_NAME[self.name]['en']}"
        elif k in ("holds", "used"):
            body = f"{self.side} {k} {self.name}"
        elif k == "hand":
            body = f"hand {self.name}"
        elif k == "stack-empty":
            body = "stack empty"
        elif k == "stack-has":
            body = f"stack has {self.name}"
        elif k == "targets":
            body = f"targets {self.side}"
        else:
            body = "lead"
        return ("NOT " if self.negate else "") + body


@dataclass(frozen=True, slots=True)
class Rule:
    """One rule line: ``ON event [IF cond {AND cond}] PLAY play [ONCE]``. ``no`` is its number
    in its version (1-based), ``line`` its line in the text."""

    no: int
    line: int
    text: str
    event: Event
    conds: tuple[Cond, ...]
    play: PlaySpec
    once: bool = False

    def canonical(self) -> str:
        """The rule in canonical English keywords, which reads back to the same rule."""
        out = f"ON {self.event.text()}"
        if self.conds:
            out += " IF " + " AND ".join(c.text() for c in self.conds)
        out += f" PLAY {self.play.text()}"
        return out + (" ONCE" if self.once else "")


@dataclass(frozen=True, slots=True)
class Version:
    """A version of the orders (G53): its rules, in force from turn ``start`` (0 for the plain
    ``ORDERS`` block)."""

    start: int
    rules: tuple[Rule, ...]
    line: int = 0


@dataclass(frozen=True, slots=True)
class SideOrders:
    """What a battle takes for one side: its hand (card codes in the order of the ``HAND`` line,
    G52) and its versions of orders, ``start`` strictly increasing from 0 (G53, G56)."""

    hand: tuple[str, ...]
    versions: tuple[Version, ...] = ()

    def version_at(self, turn: int) -> Version | None:
        """The version in force at ``turn``: the greatest ``start`` <= ``turn`` (G53, G54)."""
        found = None
        for v in self.versions:
            if v.start <= turn:
                found = v
        return found

    def with_version(self, version: Version) -> SideOrders:
        """These orders with ``version`` added (a checkpoint revision, G53). Raises
        ``ValueError`` when it does not start after the last version."""
        if self.versions and version.start <= self.versions[-1].start:
            raise ValueError(
                f"a version from turn {version.start} does not start after the "
                f"last one (turn {self.versions[-1].start})"
            )
        return SideOrders(self.hand, (*self.versions, version))


@dataclass(frozen=True, slots=True)
class Section:
    """One section of an orders text (G57): ``vs`` the opponent's unit name (NFKC) or ``None``
    for DEFAULT, and its orders."""

    vs: str | None
    orders: SideOrders
    line: int = 0


@dataclass(frozen=True, slots=True)
class OrdersText:
    """A parsed hand-and-orders text: its sections in order (G57)."""

    sections: tuple[Section, ...]

    @property
    def default(self) -> Section | None:
        """The DEFAULT section, or ``None``."""
        return next((s for s in self.sections if s.vs is None), None)

    def for_opponent(self, name: str | None) -> SideOrders | None:
        """The orders against the opponent called ``name`` (G58: the ``VS`` section naming it
        whole after NFKC, else DEFAULT; an unnamed unit matches no ``VS``), or ``None`` for
        "no cards, always pass" (G59)."""
        if name:
            key = unicodedata.normalize("NFKC", name).strip()
            for s in self.sections:
                if s.vs is not None and s.vs == key:
                    return s.orders
        d = self.default
        return d.orders if d is not None else None

    def offline(self) -> SideOrders | None:
        """The orders of an offline ``battle`` (G60): DEFAULT, or the only section even if it
        is a ``VS`` one. Raises ``ValueError`` for several sections and no DEFAULT."""
        d = self.default
        if d is not None:
            return d.orders
        if len(self.sections) == 1:
            return self.sections[0].orders
        if not self.sections:
            return None
        raise ValueError("several sections and no DEFAULT: offline battle cannot choose (G60)")
