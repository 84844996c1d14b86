"""Orders for rulesets that take them (``Ruleset.takes_orders``: Margaret Magicalized's hand of
cards and standing orders; ``shared/rules/margaret-magicalized.md`` §3, §4.2, §5).

A player mails orders for their entry (sections ``DEFAULT`` and ``VS <unit>``); the last ones
checked are *standing*: every battle of the entry fought after they came in uses them, narrowed
to its opponent (``Ruleset.orders_for``), until new ones replace them. What a battle is fought
with besides the two sheets is fixed when it is first fought and kept on the battle row
(:class:`BoardInputs`, ``battles.inputs``): both sides' orders against this opponent, the
pairing's lead draw (``Ruleset.lead_draw`` of the league's seed and the two units' labels), the
players' READY.

Checkpoints (the ruleset's ``checkpoint_turns``; not for a format that fights entries on
arrival): a battle stops after a checkpoint turn (state ``paused``, ``stop_turn``,
``stop_until``); each player may revise their orders from the next turn on
(:func:`revise_orders`, ``Ruleset.revise_orders``: the hand stays, the rules change from that
turn) and say READY (:func:`mark_ready`); when both are ready, or at ``stop_until``, the battle
is fought again from turn 0 with every version of both sides' orders, to the next checkpoint or
the end (G53: the replay proves the result, what already happened never changes).

**Secrecy**: an entry's orders and a battle's inputs are read by the battles' engine and mailed
to their owner only; no read model (``app.league.queries``) selects them.
"""

from __future__ import annotations

import datetime as dt
from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field, replace
from functools import lru_cache
from typing import Any

from sqlalchemy import func, select
from sqlalchemy.orm import Session

from app.db.models import Battle, Entry, League, OrdersVersion, Player, Round
from app.league.errors import BadState, NotEntered
from app.league.timeparse import as_utc
from app.rules.base import BattleInputs, OrdersSheet, Ruleset


@dataclass(frozen=True, slots=True)
class BoardInputs:
    """What one battle of a ruleset with orders is fought with besides the two sheets.

    Attributes:
        orders: each side's orders against this opponent, as normalized text
            (``Ruleset.format_orders`` of ``Ruleset.orders_for``), with every revision made at
            a checkpoint; ``None`` for a side without orders (no cards: it always passes).
        lead: the lead draw of the pairing (0 = A, 1 = B).
        ready: each side said READY at the current checkpoint (or revised nothing and waits).
    """

    orders: tuple[str | None, str | None] = (None, None)
    lead: int = 0
    ready: tuple[bool, bool] = (False, False)

    def to_json(self) -> dict[str, Any]:
        """``battles.inputs``: ``{"orders": [a, b], "lead": 0|1, "ready": [bool, bool]}``."""
        return {"orders": list(self.orders), "lead": self.lead, "ready": list(self.ready)}

    @classmethod
    def from_json(cls, data: Mapping[str, Any] | None) -> BoardInputs:
        """Read :meth:`to_json`'s output (``None``: no inputs, nobody has orders)."""
        if not data:
            return cls()
        orders = list(data.get("orders") or [None, None])
        ready = list(data.get("ready") or [False, False])
        return cls(
            (orders[0], orders[1]), int(data.get("lead") or 0), (bool(ready[0]), bool(ready[1]))
        )

    def battle_inputs(self, rules: Ruleset, stop_after: int | None = None) -> BattleInputs:
        """The engine's :class:`~app.rules.base.BattleInputs`: each side's orders text read
        back (``parse_orders`` then ``orders_for(…, None)``), the lead, the checkpoint."""
        a, b = (None if text is None else _read(rules, text, None) for text in self.orders)
        return BattleInputs((a, b), self.lead, stop_after)


@dataclass(frozen=True)
class OrdersOutcome:
    """What :func:`submit_orders` did: ``accepted`` (the orders are now the entry's standing
    orders), the ruleset's reading (``sheet``: problems either way), the new ``version``, and
    the opponents the text has sections for (``OrdersSheet.sections``)."""

    accepted: bool
    sheet: OrdersSheet
    version: int | None = None


@dataclass(frozen=True)
class RevisionOutcome:
    """A revision at a checkpoint: the paused battle, its opponent's unit, the turn the new
    rules are in force from (the first new version's, ``OrdersSheet.starts``; the earliest
    allowed when it was refused), and the ruleset's reading (``sheet``)."""

    battle_id: int
    opponent: str
    from_turn: int
    sheet: OrdersSheet
    accepted: bool = field(default=False)


def _entry(session: Session, league: League, player: Player) -> Entry:
    entry = session.scalar(
        select(Entry).where(Entry.league_id == league.id, Entry.player_id == player.id)
    )
    if entry is None or entry.status != "active":
        raise NotEntered(f"{player.address} has no entry in {league.name!r}")
    return entry


def submit_orders(
    session: Session,
    league: League,
    player: Player,
    text: str,
    rules: Ruleset,
    *,
    inbound_id: int | None = None,
    now: dt.datetime,
) -> OrdersOutcome:
    """Check ``text`` (``Ruleset.parse_orders``) and, when it reads, make it ``player``'s
    standing orders in ``league`` (a new active :class:`OrdersVersion`; the earlier one kept,
    inactive). Raises :class:`NotEntered` without an active entry and :class:`BadState`
    (``finished``) once the league is over, or (``no-orders``) for a ruleset without orders."""
    if not rules.takes_orders:
        raise BadState(
            f"league {league.name!r} plays {rules.name}, which takes no orders", "no-orders"
        )
    if league.state == "finished":
        raise BadState(f"league {league.name!r} is finished", "finished")
    entry = _entry(session, league, player)
    sheet = rules.parse_orders(text)
    if not sheet.ok:
        return OrdersOutcome(False, sheet)
    top = (
        session.scalar(
            select(func.max(OrdersVersion.version)).where(OrdersVersion.entry_id == entry.id)
        )
        or 0
    )
    for row in session.scalars(
        select(OrdersVersion).where(OrdersVersion.entry_id == entry.id, OrdersVersion.active)
    ):
        row.active = False
    session.add(
        OrdersVersion(
            entry_id=entry.id,
            version=top + 1,
            text=text,
            active=True,
            inbound_id=inbound_id,
            created_at=now,
        )
    )
    session.flush()
    return OrdersOutcome(True, sheet, top + 1)


def standing_orders(session: Session, entry_ids: Iterable[int]) -> dict[int, str]:
    """Entry id → the text of its standing (active) orders; entries without orders absent."""
    ids = list(set(entry_ids))
    if not ids:
        return {}
    return {
        eid: text
        for eid, text in session.execute(
            select(OrdersVersion.entry_id, OrdersVersion.text).where(
                OrdersVersion.entry_id.in_(ids), OrdersVersion.active
            )
        )
    }


def board_inputs(
    rules: Ruleset,
    seed: str,
    orders_a: str | None,
    orders_b: str | None,
    label_a: str,
    label_b: str,
) -> BoardInputs:
    """The inputs of a battle first fought now: each side's standing orders (``orders_a``,
    ``orders_b``: texts or ``None``) narrowed to its opponent by label (``orders_for``), and
    the lead draw of the league's published ``seed`` and the labels as paired."""
    sides: list[str | None] = []
    for text, opponent in ((orders_a, label_b), (orders_b, label_a)):
        chosen = _read(rules, text, opponent) if text is not None else None
        sides.append(rules.format_orders(chosen) if chosen is not None else None)
    return BoardInputs((sides[0], sides[1]), rules.lead_draw(seed, label_a, label_b))


@lru_cache(maxsize=4096)
def _read(rules: Ruleset, text: str, opponent: str | None) -> Any:
    """``rules.orders_for`` of the orders ``text`` against ``opponent`` (``None``: the text
    is one side's orders already), or ``None`` when it no longer reads. Cached: a round reads
    the same few texts for every battle (parsing costs about as much as a battle), and the
    parsed values are immutable."""
    parsed = rules.parse_orders(text)
    if not parsed.ok:
        return None
    try:
        return rules.orders_for(parsed.orders, opponent)
    except ValueError:
        return None


def next_stop(rules: Ruleset, fmt: Any, after: int | None) -> int | None:
    """The next checkpoint turn after turn ``after`` (``None``: from the start), or ``None``:
    play to the end. A format that fights entries on arrival never stops (its arrival is one
    transaction)."""
    if fmt is not None and fmt.fights_on_entry:
        return None
    turns = [t for t in rules.checkpoint_turns() if after is None or t > after]
    return min(turns) if turns else None


def paused_battles(session: Session, league: League, entry: Entry) -> list[Battle]:
    """The paused battles of ``entry`` in ``league`` (at a checkpoint), in round and board
    order."""
    return list(
        session.scalars(
            select(Battle)
            .join(Round, Battle.round_id == Round.id)
            .where(
                Round.league_id == league.id,
                Battle.state == "paused",
                (Battle.entry_a_id == entry.id) | (Battle.entry_b_id == entry.id),
            )
            .order_by(Round.number, Battle.board)
        )
    )


def _side(battle: Battle, entry: Entry) -> int:
    return 0 if battle.entry_a_id == entry.id else 1


def revise_orders(
    session: Session,
    league: League,
    player: Player,
    text: str,
    rules: Ruleset,
    opponents: Mapping[int, str],
    *,
    now: dt.datetime,
    lang: str | None = None,
) -> list[RevisionOutcome]:
    """Revise ``player``'s orders in each of their paused battles of ``league`` from the turn
    after its checkpoint (``Ruleset.revise_orders`` with the battle's current orders for that
    side: the hand stays, G53); a revision that reads is kept on the battle's inputs. Marks
    the player ready in those battles. ``opponents`` maps battle id → the opponent's unit (for
    the reply); ``lang`` the language of the problems. Raises :class:`NotEntered` without an active entry and :class:`BadState`
    (``no-checkpoint``) when no battle of theirs is paused."""
    entry = _entry(session, league, player)
    battles = paused_battles(session, league, entry)
    if not battles:
        raise BadState(
            f"no battle of {player.address} in {league.name!r} is stopped at a checkpoint",
            "no-checkpoint",
        )
    out = []
    for b in battles:
        side = _side(b, entry)
        inputs = BoardInputs.from_json(b.inputs)
        current = inputs.battle_inputs(rules).orders[side]
        from_turn = int(b.stop_turn or 0) + 1
        sheet = rules.revise_orders(current, text, from_turn=from_turn, lang=lang)
        ok = sheet.ok
        if ok:
            orders = list(inputs.orders)
            orders[side] = rules.format_orders(sheet.orders)
            ready = list(inputs.ready)
            ready[side] = True
            b.inputs = replace(
                inputs, orders=(orders[0], orders[1]), ready=(ready[0], ready[1])
            ).to_json()
        starts = sheet.starts if ok and sheet.starts else (from_turn,)
        out.append(RevisionOutcome(b.id, opponents.get(b.id, ""), starts[0], sheet, ok))
    session.flush()
    return out


def mark_ready(session: Session, league: League, player: Player, *, now: dt.datetime) -> int:
    """``player`` is ready in each of their paused battles of ``league`` (READY: go on with the
    orders as they stand). Returns how many battles. Raises :class:`NotEntered` without an
    active entry."""
    entry = _entry(session, league, player)
    n = 0
    for b in paused_battles(session, league, entry):
        inputs = BoardInputs.from_json(b.inputs)
        ready = list(inputs.ready)
        ready[_side(b, entry)] = True
        b.inputs = replace(inputs, ready=(ready[0], ready[1])).to_json()
        n += 1
    session.flush()
    return n


def resumable(battle: Any, now: dt.datetime) -> bool:
    """True when a paused battle goes on now: both sides are ready, or its ``stop_until`` has
    passed (``battle``: a row with ``inputs`` and ``stop_until``)."""
    inputs = BoardInputs.from_json(battle.inputs)
    until = as_utc(battle.stop_until)
    return all(inputs.ready) or until is None or until <= now


def orders_in(session: Session, league: League, rnd: Round) -> bool:
    """True when every active entry paired in ``rnd`` has sent orders since the round's
    pairings were published (the later of ``rnd.paired_at`` and the end of the round before):
    its battles may be fought before their time (early play). Orders sent before the pairing
    was known do not count (they could not be written against this opponent)."""
    prev = session.scalar(
        select(Round.done_at).where(Round.league_id == league.id, Round.number == rnd.number - 1)
    )
    refs = [t for t in (as_utc(rnd.paired_at), as_utc(prev)) if t is not None]
    since = max(refs) if refs else None
    paired = {
        e
        for a, b in session.execute(
            select(Battle.entry_a_id, Battle.entry_b_id).where(
                Battle.round_id == rnd.id, Battle.entry_b_id.is_not(None), Battle.state == "pending"
            )
        )
        for e in (a, b)
    }
    active = set(
        session.scalars(select(Entry.id).where(Entry.id.in_(paired), Entry.status == "active"))
    )
    if not active:
        return False
    q = select(OrdersVersion.entry_id, OrdersVersion.created_at).where(
        OrdersVersion.entry_id.in_(active)
    )
    fresh = {
        eid for eid, at in session.execute(q) if since is None or (as_utc(at) or since) > since
    }
    return fresh >= active


def fight_board(
    rules: Ruleset,
    a: Any,
    b: Any,
    inputs: Mapping[str, Any] | None,
    *,
    stop_after: int | None = None,
    log: bool = True,
) -> Any:
    """Fight a stored battle as the league fights it: ``rules.battle`` for a ruleset without
    orders, else ``rules.fight`` with the battle's ``inputs`` (``battles.inputs``, read by
    :meth:`BoardInputs.from_json`) and the checkpoint ``stop_after`` (:func:`next_stop`).
    Rounds, arrivals, resends and the web view's recomputed log all call this, so each sees
    the same battle."""
    if not rules.takes_orders:
        return rules.battle(a, b, log=log)
    return rules.fight(
        a, b, BoardInputs.from_json(inputs).battle_inputs(rules, stop_after), log=log
    )


def paused_values(
    rules: Ruleset, inputs: Mapping[str, Any] | None, turn: int, until: dt.datetime, version: str
) -> dict[str, Any]:
    """The ``battles`` column values of a battle stopped after checkpoint turn ``turn`` until
    ``until``: state ``paused``, no result yet, both players' READY cleared (the same keys as
    ``app.league.battles.battle_values`` plus ``state``, ``inputs``, ``stop_turn``,
    ``stop_until``, so that a chunk updates in one statement)."""
    kept = BoardInputs.from_json(inputs)
    return dict(
        engine_version=version,
        winner=None,
        reason=None,
        turns=None,
        hp_a=None,
        hp_b=None,
        margin=None,
        outcome=None,
        final=None,
        state="paused",
        inputs=replace(kept, ready=(False, False)).to_json(),
        stop_turn=turn,
        stop_until=until,
    )


def due_early(session: Session, league: League, rnd: Round, now: dt.datetime) -> bool:
    """True when round ``rnd`` of a league whose ruleset takes orders should be played before
    its time: a paused battle of it goes on (:func:`resumable`: both players READY, or its
    wait is over), or every entry paired in it has sent orders (:func:`orders_in`, early
    play)."""
    for inputs, until in session.execute(
        select(Battle.inputs, Battle.stop_until).where(
            Battle.round_id == rnd.id, Battle.state == "paused"
        )
    ):
        if resumable(_Row(inputs, until), now):
            return True
    return orders_in(session, league, rnd)


@dataclass(frozen=True, slots=True)
class _Row:
    inputs: Mapping[str, Any] | None
    stop_until: dt.datetime | None
