"""The hill as a league (``league create NAME --format hill --size N``): always open; an entry
or a replacement sheet is fought at once, in the transaction of the mail (or command) that
entered it, against every member of the hill (``app.formats.hill``).

:func:`challenge` stores the challenge as one round (``note`` ``challenge``, every board done),
keeps the hill's own state in ``leagues.format_state`` (``HillState.to_json``), rates the round
(``app.league.ratings``), queues a mail to every member pushed off (dedupe key
``hill-off:<league id>:<challenge>:<entry id>``) and returns what the entry's reply shows: the
result against each member, the challenger's place and the new table. All of it is one
transaction: a crash before the commit leaves nothing (the mail is processed again), after it
everything. A member's age (challenges survived) and the hill's history (``HillState.log``) are
in the state; ``Hill.replay`` rebuilds the state from the stored rounds.
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
from app.formats.hill import Hill, HillState
from app.league.formats import format_of, seat_order
from app.league.privacy import public_name

HILL = "hill"


def is_hill(league: League) -> bool:
    """True for a hill league."""
    return (league.format or "") == HILL


#: the last states read or made, by (league id, digest of the stored JSON): reading a state
#: recomputes every member's totals (~20,000 results on a hill of 200), so a process that
#: answers one challenge after another reuses the state it made. The digest is of the very JSON
#: in the row, so a state another process stored (or a rolled-back one) is never mistaken.
_STATES: dict[tuple[int, str], HillState] = {}
#: parsed sheets by (ruleset, normalized text): members are fought again at every challenge
_UNITS: dict[tuple[str, str], Any] = {}
_CACHE_MAX = 4096


def _digest(data: Any) -> str:
    import hashlib
    import json

    return hashlib.sha256(json.dumps(data, sort_keys=True, separators=(",", ":"))
                          .encode()).hexdigest()


def _remember(league_id: int, data: Any, state: HillState) -> None:
    if len(_STATES) > 8:
        _STATES.clear()
    _STATES[(league_id, _digest(data))] = state


def state_of(league: League, hill: Hill) -> HillState:
    """The hill's kept state (an empty hill before the first challenge)."""
    if not league.format_state:
        return HillState()
    key = (league.id, _digest(league.format_state))
    state = _STATES.get(key)
    if state is None:
        state = HillState.from_json(league.format_state, hill.points)
        _remember(league.id, league.format_state, state)
    return state


@dataclass(frozen=True, slots=True)
class BoardLine:
    """One battle of a challenge as the reply shows it: the member met, its unit, the outcome
    seen from the challenger (``win``, ``loss``, ``draw``), the HP margin, the battle id."""

    opponent: str
    unit: str
    outcome: str
    margin: int
    battle_id: int


@dataclass(frozen=True, slots=True)
class TableLine:
    """One member in the hill's table: rank text, name, unit, points, W/D/L, margin, age."""

    rank: str
    name: str
    unit: str
    points: str
    wins: int
    draws: int
    losses: int
    margin: int
    age: int
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
class Challenge:
    """What one challenge did (the reply's context ``hill``): ``number`` of the challenge (the
    round number), ``replaced`` (a member replaced its unit), ``place`` of the challenger after
    it, ``on_hill`` (False when it was pushed off at once), ``size``, ``boards``, ``table``,
    ``pushed_off``."""

    number: int
    replaced: bool
    place: int
    on_hill: bool
    size: int
    boards: tuple[BoardLine, ...]
    table: tuple[TableLine, ...]
    pushed_off: tuple[PushLine, ...]

    def to_context(self) -> dict[str, Any]:
        """The template context (plain dicts)."""
        return {"number": self.number, "replaced": self.replaced, "place": self.place,
                "on_hill": self.on_hill, "size": self.size,
                "boards": [_asdict(b) for b in self.boards],
                "table": [_asdict(t) for t in self.table],
                "pushed_off": [_asdict(p) for p in self.pushed_off]}


def _asdict(obj: Any) -> dict[str, Any]:
    return {k: getattr(obj, k) for k in obj.__slots__}


def _names(session: Session, entry_ids: set[int]) -> tuple[dict[int, str], dict[int, str],
                                                          dict[int, Player]]:
    """Public names, active unit names and players of ``entry_ids``."""
    if not entry_ids:
        return {}, {}, {}
    rows = session.execute(select(Entry.id, Player).join(Player, Entry.player_id == Player.id)
                           .where(Entry.id.in_(entry_ids))).all()
    players = {eid: p for eid, p in rows}
    names = {eid: public_name(p.display_name, p.address, p.id) for eid, p in players.items()}
    units = {eid: u for eid, u in session.execute(
        select(SheetVersion.entry_id, SheetVersion.unit_name)
        .where(SheetVersion.entry_id.in_(entry_ids), SheetVersion.active))}
    return names, units, players


def challenge(session: Session, league: League, entry: Entry, *, now: dt.datetime,
              settings: Any = None, ruleset: Any = None) -> Challenge:
    """Fight ``entry``'s active sheet against every other member of the hill and apply the
    challenge (see the module docstring). ``ruleset``: the league's ``Ruleset`` instance
    (default: the league's, with its options: ``app.rules.league_ruleset``). With ``settings``, the pushed-off members are
    mailed. Raises ``ValueError`` when a sheet no longer parses."""
    from app.rules import league_ruleset

    hill = format_of(league)
    assert isinstance(hill, Hill)
    rs = ruleset if ruleset is not None else league_ruleset(league)
    state = state_of(league, hill)
    if entry.seat is None:
        top = session.scalar(select(func.max(Entry.seat)).where(Entry.league_id == league.id))
        entry.seat = 0 if top is None else top + 1
    boards = hill.challenge_pairings(state, entry.id)
    eids = {entry.id, *state.members}
    sheets = {eid: sv for eid, sv in session.execute(
        select(SheetVersion.entry_id, SheetVersion).where(SheetVersion.entry_id.in_(eids),
                                                          SheetVersion.active))}

    parsed: dict[int, Any] = {}

    def unit(eid: int) -> Any:
        if eid not in parsed:
            sv = sheets[eid]
            key = (str(getattr(rs, "name", "")), sv.normalized)
            if key in _UNITS:
                parsed[eid] = _UNITS[key]
                return parsed[eid]
            sheet = rs.parse_sheet(sv.normalized)
            if not sheet.ok:
                sheet = rs.parse_sheet(sv.text)
            if not sheet.ok:
                raise ValueError(f"sheet {sv.id} of entry {eid} no longer parses")
            parsed[eid] = sheet.entry
            if sheet.ok:
                if len(_UNITS) >= _CACHE_MAX:
                    _UNITS.clear()
                _UNITS[key] = sheet.entry
        return parsed[eid]

    number = 1 + (session.scalar(select(func.max(Round.number))
                                 .where(Round.league_id == league.id)) or 0)
    rnd = Round(league_id=league.id, number=number, state="done", scheduled_at=now,
                done_at=now, note="challenge")
    session.add(rnd)
    session.flush()
    results: dict[int, Result] = {}
    battle_rows: list[Battle] = []
    version = str(getattr(rs, "engine_version", "") or "")
    for p in boards:
        if p.b is None:
            battle_rows.append(Battle(round_id=rnd.id, board=p.board, entry_a_id=p.a,
                                      sheet_a_id=sheets[p.a].id, state="done", reason="bye",
                                      fought_at=now))
            continue
        result = rs.battle(unit(p.a), unit(p.b), log=False)
        o = rs.outcome(result)
        results[p.b] = Result(o.winner, o.margin)
        battle_rows.append(Battle(
            round_id=rnd.id, board=p.board, entry_a_id=p.a, entry_b_id=p.b,
            sheet_a_id=sheets[p.a].id, sheet_b_id=sheets[p.b].id, engine_version=version[:32],
            state="done", winner=o.winner, reason=o.termination, turns=o.turns,
            hp_a=sum(f.hp for f in o.final[0]), hp_b=sum(f.hp for f in o.final[1]),
            final={"outcome": o.to_json()}, fought_at=now))
    session.add_all(battle_rows)
    update = hill.challenge(state, entry.id, results)
    league.format_state = update.state.to_json()
    _remember(league.id, league.format_state, update.state)
    session.flush()
    from app.league.ratings import rate_round

    rate_round(session, league, rnd)

    everyone = {entry.id, *update.state.members, *(p.entry for p in update.pushed_off),
                *state.members}
    names, units, players = _names(session, everyone)
    lines = []
    for b in battle_rows:
        if b.entry_b_id is None:
            continue
        out = "draw" if b.winner is None else ("win" if b.winner == 0 else "loss")
        lines.append(BoardLine(names[b.entry_b_id], units.get(b.entry_b_id, ""), out,
                               results[b.entry_b_id].margin, b.id))
    table = tuple(
        TableLine(r.rank_text, names[r.entry], units.get(r.entry, ""), fraction_text(r.points),
                  r.wins, r.draws, r.losses, int(r.tiebreak("margin")), int(r.detail["age"]),
                  r.entry == entry.id)
        for r in update.table.rows)
    pushed = tuple(PushLine(p.entry, names[p.entry], units.get(p.entry, ""), p.place,
                            fraction_text(p.points), p.age) for p in update.pushed_off)
    ch = Challenge(number, update.replaced, update.place, entry.id in update.state.members,
                   hill.size, tuple(lines), table, pushed)
    if settings is not None:
        _mail_pushed_off(session, settings, league, ch, entry.id, players, now)
    return ch


def _mail_pushed_off(session: Session, settings: Any, league: League, ch: Challenge,
                     challenger: int, players: dict[int, Player], now: dt.datetime) -> int:
    """Queue "pushed off" to every member that fell, except the challenger (its own reply says
    so). Returns the mails queued."""
    from app.league.outbox import Copy, queue_copies
    from app.mail.replies import reply_context
    from app.reports.i18n import gettext
    from app.reports.render import render_mail

    n = 0
    for p in ch.pushed_off:
        if p.entry_id == challenger:
            continue
        player = players[p.entry_id]
        lang = player.lang if player.lang in ("ja", "en") else "ja"
        subject = gettext(lang)("[%(league)s] Pushed off the hill (challenge %(n)s)") % {
            "league": league.name, "n": ch.number}
        plus_local, _, plus_domain = settings.server_address.partition("@")
        context = reply_context("hill_off", dict(
            name=p.name, league=league.name, size=ch.size, number=ch.number, unit=p.unit,
            place=p.place, points=p.points, age=p.age))
        text = render_mail("hill_off", lang, **context, lang=lang, subject="", cut_lines=0,
                           max_lines=getattr(settings, "max_lines", 0), notes=[],
                           server=settings.server_address, plus_local=plus_local,
                           plus_domain=plus_domain or "localhost")
        n += queue_copies(session, [Copy(f"hill-off:{league.id}:{ch.number}:{p.entry_id}",
                                         player.address)],
                          kind="standings", now=now, sender=settings.server_address,
                          sender_name=settings.server_name, subject=subject, text=text,
                          charset=player.charset or "utf-8", auto_submitted="auto-generated")
    return n


def leave(session: Session, league: League, entry: Entry) -> None:
    """``entry`` leaves the hill (withdrawn or disqualified): its results stop counting."""
    hill = format_of(league)
    assert isinstance(hill, Hill)
    league.format_state = hill.leave(state_of(league, hill), entry.id).to_json()


def members(session: Session, league: League) -> list[int]:
    """The current members, best first."""
    hill = format_of(league)
    assert isinstance(hill, Hill)
    return list(state_of(league, hill).members)


def seated(session: Session, league: League) -> list[int]:
    """Every entry that ever challenged, in seat order."""
    return [e.id for e in seat_order(session, league)]


def after_entry(session: Session, league: League, player: Player, *, now: dt.datetime,
                settings: Any = None) -> dict[str, Any] | None:
    """For a hill league, fight the sheet ``player`` just entered (or replaced) at once
    (:func:`challenge`, in the caller's transaction) and return the reply's ``hill`` context;
    ``None`` for any other format."""
    if not is_hill(league):
        return None
    entry = session.scalar(select(Entry).where(Entry.league_id == league.id,
                                               Entry.player_id == player.id))
    if entry is None or entry.status != "active":
        return None
    return challenge(session, league, entry, now=now, settings=settings).to_context()
