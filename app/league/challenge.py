"""Arrivals in a league whose format ``fights_on_entry`` (the hill: ``league create NAME --format
hill --size N``): always open; an entry or a replacement sheet is fought at once, in the
transaction of the mail (or command) that entered it, against the boards its format pairs
(``Format.entry_pairings``: every member of the hill).

:func:`arrive` stores the arrival as one round (``note`` ``challenge``, every board done), keeps
the format's state in ``leagues.format_state`` (``Format.apply_entry``), rates the round
(``app.league.ratings``), tells every member pushed off (``Notices.queue_pushed_off``, dedupe key
``hill-off:<league id>:<arrival>:<entry id>``) and returns what the entry's reply shows: the
result against each opponent, the arrival's place and the new table. All of it is one
transaction: a crash before the commit leaves nothing (the mail is processed again), after it
everything. Nothing here names a format; what a league of another such format would need is the
format's own (its state, its pairings, its table).
"""

from __future__ import annotations

import datetime as dt
from dataclasses import dataclass
from typing import Any

from sqlalchemy import func, select
from sqlalchemy.orm import Session

from app.db.models import Battle, Entry, League, Player, Round, SheetVersion
from app.formats import Result
from app.formats.base import fraction_text
from app.league.battles import battle_values
from app.league.formats import format_of, league_rules, remember_state, state_of
from app.league.notify import Notices, PushedOffNotice
from app.league.orders import board_inputs, fight_board, standing_orders
from app.league.standings import entry_names, public_units

#: parsed sheets by (ruleset, options, normalized text): members are fought again at every
#: arrival, and parsing a sheet costs more than many battles
_UNITS: dict[tuple[Any, str], Any] = {}
_CACHE_MAX = 4096


@dataclass(frozen=True, slots=True)
class BoardLine:
    """One battle of an arrival as the reply shows it: the opponent met, its unit, the outcome
    seen from the arriving entry (``win``, ``loss``, ``draw``), its HP margin
    (``Outcome.margin`` seen from it), the battle id."""

    opponent: str
    unit: str
    outcome: str
    margin: int
    battle_id: int


@dataclass(frozen=True, slots=True)
class TableLine:
    """One line of the table after the arrival: rank text, name, unit, points, W/D/L, the
    format's own columns as text by language (``Format.columns``, in order), and whether it is
    the arriving entry."""

    rank: str
    name: str
    unit: str
    points: str
    wins: int
    draws: int
    losses: int
    cells: dict[str, tuple[str, ...]]
    me: bool


@dataclass(frozen=True, slots=True)
class PushLine:
    """A member pushed off: name, unit, the place it fell from, its points and age."""

    entry_id: int
    name: str
    unit: str
    place: int
    points: str
    age: int


@dataclass(frozen=True)
class Arrival:
    """What one arrival did (the reply's context ``hill``): ``number`` of the arrival (the
    round number), ``replaced`` (an entry replaced its sheet), ``place`` of the arriving entry
    after it (its rank in ``table``, or the place it fell from when pushed off at once),
    ``on_hill`` (False when it was pushed off at once), ``size`` (the capacity), ``boards``,
    ``table``, ``columns`` (the table's column headers by language), ``pushed_off``."""

    number: int
    replaced: bool
    place: int
    on_hill: bool
    size: int
    boards: tuple[BoardLine, ...]
    table: tuple[TableLine, ...]
    columns: dict[str, tuple[str, ...]]
    pushed_off: tuple[PushLine, ...]

    def to_context(self) -> dict[str, Any]:
        """The template context (plain dicts)."""
        return {
            "number": self.number,
            "replaced": self.replaced,
            "place": self.place,
            "on_hill": self.on_hill,
            "size": self.size,
            "boards": [_asdict(b) for b in self.boards],
            "table": [_asdict(t) for t in self.table],
            "columns": {k: list(v) for k, v in self.columns.items()},
            "pushed_off": [_asdict(p) for p in self.pushed_off],
        }


def _asdict(obj: Any) -> dict[str, Any]:
    return {k: getattr(obj, k) for k in obj.__slots__}


def arrive(
    session: Session,
    league: League,
    entry: Entry,
    *,
    now: dt.datetime,
    mail: Notices | None = None,
    ruleset: Any = None,
) -> Arrival:
    """Fight ``entry``'s active sheet against the boards its league's format pairs on arrival
    and apply the result (see the module docstring). ``ruleset``: the league's ``Ruleset``
    (default: the league's, with its options: :func:`app.league.formats.league_rules`). With
    ``mail``, the members pushed off are told. Raises ``ValueError`` when a sheet no longer
    parses, ``NotImplementedError`` when the format does not fight entries on arrival."""
    fmt = format_of(league)
    rs = ruleset if ruleset is not None else league_rules(league)
    state = state_of(league, fmt)
    if entry.seat is None:
        top = session.scalar(select(func.max(Entry.seat)).where(Entry.league_id == league.id))
        entry.seat = 0 if top is None else top + 1
    boards = fmt.entry_pairings(state, entry.id)
    eids = {p.a for p in boards} | {p.b for p in boards if p.b is not None}
    sheets = {
        eid: sv
        for eid, sv in session.execute(
            select(SheetVersion.entry_id, SheetVersion).where(
                SheetVersion.entry_id.in_(eids), SheetVersion.active
            )
        )
    }
    parsed: dict[int, Any] = {}

    def unit(eid: int) -> Any:
        if eid not in parsed:
            sv = sheets[eid]
            key = (rs, sv.normalized)
            if key not in _UNITS:
                sheet = rs.parse_sheet(sv.normalized)
                if not sheet.ok:
                    sheet = rs.parse_sheet(sv.text)
                if not sheet.ok:
                    raise ValueError(f"sheet {sv.id} of entry {eid} no longer parses")
                if len(_UNITS) >= _CACHE_MAX:
                    _UNITS.clear()
                _UNITS[key] = sheet.entry
            parsed[eid] = _UNITS[key]
        return parsed[eid]

    number = 1 + (
        session.scalar(select(func.max(Round.number)).where(Round.league_id == league.id)) or 0
    )
    rnd = Round(
        league_id=league.id,
        number=number,
        state="done",
        scheduled_at=now,
        done_at=now,
        note="challenge",
    )
    session.add(rnd)
    session.flush()
    results: dict[int, Result] = {}
    battle_rows: list[Battle] = []
    version = str(rs.engine_version)
    texts = standing_orders(session, eids) if rs.takes_orders else {}
    for p in boards:
        if p.b is None:
            battle_rows.append(
                Battle(
                    round_id=rnd.id,
                    board=p.board,
                    entry_a_id=p.a,
                    sheet_a_id=sheets[p.a].id,
                    state="done",
                    reason="bye",
                    fought_at=now,
                )
            )
            continue
        inputs = (
            board_inputs(
                rs,
                league.seed or "",
                texts.get(p.a),
                texts.get(p.b),
                rs.label(unit(p.a)),
                rs.label(unit(p.b)),
            ).to_json()
            if rs.takes_orders
            else None
        )
        values = battle_values(
            rs, fight_board(rs, unit(p.a), unit(p.b), inputs, log=False), version[:32]
        )
        values["inputs"] = inputs
        results[p.b] = Result(values["winner"], values["margin"])
        battle_rows.append(
            Battle(
                round_id=rnd.id,
                board=p.board,
                entry_a_id=p.a,
                entry_b_id=p.b,
                sheet_a_id=sheets[p.a].id,
                sheet_b_id=sheets[p.b].id,
                state="done",
                fought_at=now,
                **values,
            )
        )
    session.add_all(battle_rows)
    update = fmt.apply_entry(state, entry.id, results)
    remember_state(league, update.state, fmt)
    session.flush()
    from app.league.ratings import rate_round

    rate_round(session, league, rnd)
    # every entry of the challenge just fought with its active sheet: its public unit now
    fought = {eid: sv.unit_name for eid, sv in sheets.items()}
    return _arrival(session, league, entry, number, update, battle_rows, results, fought, now, mail)


def _arrival(
    session: Session,
    league: League,
    entry: Entry,
    number: int,
    update: Any,
    battle_rows: list[Battle],
    results: dict[int, Result],
    fought: dict[int, str],
    now: dt.datetime,
    mail: Notices | None,
) -> Arrival:
    """The reply's view of an applied arrival; the pushed-off members are told. ``fought``:
    entry id → the unit it fought this arrival with (its public unit from now on,
    ``app.league.standings.public_units``); others are looked up."""
    fmt = format_of(league)
    everyone = {
        entry.id,
        *(r.entry for r in update.table.rows),
        *(p.entry for p in update.pushed_off),
        *(b.entry_b_id for b in battle_rows if b.entry_b_id is not None),
    }
    names = entry_names(session, everyone)
    units = {**public_units(session, league.id, everyone - fought.keys()), **fought}
    lines = []
    for b in battle_rows:
        if b.entry_b_id is None:
            continue
        out = "draw" if b.winner is None else ("win" if b.winner == 0 else "loss")
        lines.append(
            BoardLine(
                names[b.entry_b_id],
                units.get(b.entry_b_id, ""),
                out,
                results[b.entry_b_id].margin,
                b.id,
            )
        )
    columns = fmt.columns()

    def cells(row: Any) -> dict[str, tuple[str, ...]]:
        values = [dict(row.tiebreaks).get(c.key, row.detail.get(c.key)) for c in columns]
        return {
            lang: tuple(c.text(v, lang) for c, v in zip(columns, values, strict=True))
            for lang in ("ja", "en")
        }

    table = tuple(
        TableLine(
            r.rank_text,
            names[r.entry],
            units.get(r.entry, ""),
            fraction_text(r.points),
            r.wins,
            r.draws,
            r.losses,
            cells(r),
            r.entry == entry.id,
        )
        for r in update.table.rows
    )
    pushed = tuple(
        PushLine(
            p.entry, names[p.entry], units.get(p.entry, ""), p.place, fraction_text(p.points), p.age
        )
        for p in update.pushed_off
    )
    size = int(fmt.options.get("size", 0) or 0)
    arrival = Arrival(
        number,
        update.replaced,
        update.place,
        entry.id in {r.entry for r in update.table.rows},
        size,
        tuple(lines),
        table,
        {lang: tuple(c.short_title(lang) for c in columns) for lang in ("ja", "en")},
        pushed,
    )
    if mail is not None:
        owners = {
            eid: pid
            for eid, pid in session.execute(
                select(Entry.id, Entry.player_id).where(Entry.id.in_([p.entry_id for p in pushed]))
            )
        }
        mail.queue_pushed_off(
            session,
            tuple(
                PushedOffNotice(
                    league.id,
                    league.name,
                    number,
                    size,
                    p.entry_id,
                    owners[p.entry_id],
                    p.name,
                    p.unit,
                    p.place,
                    p.points,
                    p.age,
                )
                for p in pushed
                if p.entry_id != entry.id
            ),
            now=now,
        )  # its own reply says so
    return arrival


def after_entry(
    session: Session,
    league: League,
    player: Player,
    *,
    now: dt.datetime,
    mail: Notices | None = None,
) -> dict[str, Any] | None:
    """For a league whose format fights entries on arrival, fight the sheet ``player`` just
    entered (or replaced) at once (:func:`arrive`, in the caller's transaction) and return the
    reply's ``hill`` context; ``None`` for any other format."""
    if not format_of(league).fights_on_entry:
        return None
    entry = session.scalar(
        select(Entry).where(Entry.league_id == league.id, Entry.player_id == player.id)
    )
    if entry is None or entry.status != "active":
        return None
    return arrive(session, league, entry, now=now, mail=mail).to_context()


def arrivals_today(
    session: Session, league: League, entry: Entry | None, *, now: dt.datetime
) -> tuple[int, int | None]:
    """``(arrivals, limit)``: how many arrivals (challenges: an entry or a replacement fought
    at once) ``entry`` made in ``league`` on ``now``'s UTC day, and how many its format allows a
    day (``Format.arrivals_per_day``; ``None``: no limit, or a format that does not fight
    entries on arrival). ``(0, limit)`` for no entry yet. Counted from the format's kept record
    of arrivals and the rounds that stored them (``rounds.done_at``)."""
    fmt = format_of(league)
    limit = fmt.arrivals_per_day if fmt.fights_on_entry else None
    if limit is None or entry is None or entry.id is None:
        return 0, limit
    numbers = [a.number for a in fmt.arrivals(state_of(league, fmt)) if a.entry == entry.id]
    if not numbers:
        return 0, limit
    day = dt.datetime.combine(
        now.astimezone(dt.timezone.utc).date(), dt.time(), tzinfo=dt.timezone.utc
    )
    count = (
        session.scalar(
            select(func.count())
            .select_from(Round)
            .where(
                Round.league_id == league.id,
                Round.number.in_(numbers),
                Round.done_at >= day,
                Round.done_at < day + dt.timedelta(days=1),
            )
        )
        or 0
    )
    return int(count), limit
