"""Standings of a league (rules of ``app.league.standings``) from its played battles, their
rendering and the standings mails queued after each round.
"""

from __future__ import annotations

import dataclasses
import datetime as dt
from dataclasses import dataclass, field
from typing import Any

from sqlalchemy import select
from sqlalchemy.orm import Session

from app.db.models import (
    Battle,
    Entry,
    League,
    Player,
    Round,
    SheetVersion,
)
from app.league import standings as st
from app.league.cast import _Cast, _load_cast
from app.league.privacy import public_name
from app.reports.dates import human_time


@dataclass
class GamesCache:
    """The games of a league's done rounds, kept across the rounds of one run
    (``app.league.play``): a done round's battles never change (results stand:
    ``app.league.fixes`` voids only pending battles), so the standings after each round read
    only the battles of the rounds after those cached instead of every done battle again
    (4,950 rows by the end of a 100-entry round robin).

    Attributes:
        upto: every round numbered at most ``upto`` was done when its battles were read.
        games, byes: their games and the byes taken per entry, as :func:`_games` returns them.
    """

    upto: int = 0
    games: list[st.GameResult] = field(default_factory=list)
    byes: dict[int, int] = field(default_factory=dict)


def _games(session: Session, league: League, upto_round: int | None,
           cache: GamesCache | None = None) -> tuple[list[st.GameResult], dict[int, int]]:
    """The done battles of ``league`` (up to round ``upto_round``) as games, and the byes taken
    per entry. A plain Core query (no ORM row processing). With ``cache`` (of this league),
    only the rounds after ``cache.upto`` are read, and those found done (in a row from
    ``cache.upto + 1``) are added to it; a ``cache`` past ``upto_round`` is not used."""
    b_, r_ = Battle.__table__.c, Round.__table__.c
    if cache is not None and upto_round is not None and cache.upto > upto_round:
        cache = None
    q = (select(r_.number, b_.entry_a_id, b_.entry_b_id, b_.winner, b_.hp_a, b_.hp_b,
                b_.margin)
         .join(Round.__table__, b_.round_id == r_.id)
         .where(r_.league_id == league.id, b_.state == "done"))
    if upto_round is not None:
        q = q.where(r_.number <= upto_round)
    if cache is not None:
        q = q.where(r_.number > cache.upto)
    game = st.GameResult
    if session.autoflush:  # as an ORM query would: the battles as changed in this session
        session.flush()
    by_round: dict[int, tuple[list[st.GameResult], dict[int, int]]] = {}
    for number, a, b, w, ha, hb, margin in session.connection().execute(q).all():
        games_of, byes_of = by_round.setdefault(number, ([], {}))
        if b is None:
            byes_of[a] = byes_of.get(a, 0) + 1
        else:  # Integer columns: ints or None
            games_of.append(game(a, b, w, ha or 0, hb or 0, margin))
    if cache is not None:
        # rounds done in a row after the cached ones join the cache (a done round without a
        # done battle, all void, still counts: its state is read here)
        rounds: dict[int, str] = {number: state for number, state in session.connection().execute(
            select(r_.number, r_.state).where(r_.league_id == league.id,
                                              r_.number > cache.upto)).all()}
        while rounds.get(cache.upto + 1) == "done" and (upto_round is None
                                                         or cache.upto + 1 <= upto_round):
            cache.upto += 1
            games_of, byes_of = by_round.pop(cache.upto, ([], {}))
            cache.games += games_of
            for e, n in byes_of.items():
                cache.byes[e] = cache.byes.get(e, 0) + n
    games: list[st.GameResult] = list(cache.games) if cache is not None else []
    byes: dict[int, int] = dict(cache.byes) if cache is not None else {}
    for games_of, byes_of in by_round.values():
        games += games_of
        for e, n in byes_of.items():
            byes[e] = byes.get(e, 0) + n
    return games, byes


def _number(value: Any) -> Any:
    """An exact score as an ``int`` when integral, else a ``float`` (for the templates)."""
    from fractions import Fraction

    v = Fraction(value)
    return v.numerator if v.denominator == 1 else float(v)


def _format_scores(session: Session, league: League, upto_round: int | None) -> list[st.Score]:
    """The league format's standings (``Format.standings``: a Swiss table with Buchholz, a
    knockout ranked by rounds survived, an accumulating total, the hill's members) as the
    :class:`app.league.standings.Score` lines the templates print: ``points`` the format's
    primary score, ``sonneborn_berger`` and ``hp_margin`` its tiebreaks of those names (0 when
    it has none), ``head_to_head`` 0."""
    from fractions import Fraction

    from app.league.formats import inputs

    fmt, entries, history, inactive = inputs(session, league, upto=upto_round)
    if (league.format or "") == "hill":
        from app.formats.hill import Hill
        from app.league.hill import state_of

        assert isinstance(fmt, Hill)
        table = fmt.table(state_of(league, fmt)) if upto_round is None else \
            fmt.standings(entries, history, inactive=inactive)
    else:
        table = fmt.standings(entries, history, inactive=inactive)
    out: list[st.Score] = []
    for r in table.rows:
        tbs = dict(r.tiebreaks)
        out.append(st.Score(entry=r.entry, rank=r.rank, shared=r.shared, played=r.played,
                            wins=r.wins, draws=r.draws, losses=r.losses, byes=r.byes,
                            points=_number(r.points), head_to_head=0,
                            sonneborn_berger=Fraction(tbs.get("sonneborn_berger", 0)),
                            hp_margin=int(tbs.get("margin", 0)),
                            tiebreaks=tuple((k, _tiebreak_text(v)) for k, v in r.tiebreaks)))
    return out


def _tiebreak_text(value: Any) -> str:
    """A tiebreak value as the tables print it: ``12``, ``12.5`` or ``-3``."""
    from fractions import Fraction

    v = Fraction(value)
    return str(v.numerator) if v.denominator == 1 else f"{float(v):g}"


def standings(session: Session, league: League, *, upto_round: int | None = None,
              games: GamesCache | None = None) -> list[st.StandingRow]:
    """The standings of ``league`` (after round ``upto_round``, default: everything played),
    best first. Seated active entries are ranked (before entries close: every active entry);
    disqualified entries and their games are left out. Tiebreaks: ``app.league.standings``.
    ``games``: the league's :class:`GamesCache` of this run (a round robin's games are read
    through it)."""
    entries = list(session.execute(select(Entry.id, Entry.seat, Entry.player_id).where(
        Entry.league_id == league.id, Entry.status == "active")))
    if league.state != "open":
        entries = [e for e in entries if e.seat is not None]
    entries.sort(key=lambda e: (e.seat if e.seat is not None else 10**9, e.id))
    if (league.format or "") == "hill" or \
            ((league.format or "round-robin") != "round-robin" and league.state != "open"):
        scores = _format_scores(session, league, upto_round)
    else:
        played, byes = _games(session, league, upto_round, games)
        scores = st.compute([e.id for e in entries], played,
                            st.Points(league.points_win, league.points_draw, league.points_loss),
                            byes)
    by_id = {e.id: e for e in entries}
    scores = [sc for sc in scores if sc.entry in by_id]
    pids = [e.player_id for e in entries]
    players = {p.id: p for p in session.execute(
        select(Player.id, Player.address, Player.display_name).where(Player.id.in_(pids)))} \
        if pids else {}
    units: dict[int, str] = {}
    if by_id:
        for eid, uname in session.execute(select(SheetVersion.entry_id, SheetVersion.unit_name)
                                          .where(SheetVersion.entry_id.in_(list(by_id)),
                                                 SheetVersion.active)):
            units[eid] = uname
    rows: list[st.StandingRow] = []
    for s in scores:
        e = by_id[s.entry]
        p = players[e.player_id]
        rows.append(st.StandingRow(
            rank=s.rank, shared=s.shared, entry_id=e.id, player_id=p.id, address=p.address,
            name=public_name(p.display_name, p.address, p.id), unit=units.get(e.id, ""),
            played=s.played,
            wins=s.wins, draws=s.draws, losses=s.losses, byes=s.byes, points=s.points,
            head_to_head=s.head_to_head, sonneborn_berger=s.sonneborn_berger,
            hp_margin=s.hp_margin, tiebreaks=s.tiebreaks))
    return rows


def standings_context(session: Session, league: League, *, upto_round: int | None = None,
                      games: GamesCache | None = None) -> Any:
    """The :class:`app.reports.standings.StandingsContext` of ``league`` after ``upto_round``
    (default: the last round done); ``games`` as for :func:`standings`."""
    from app.reports.standings import PairingView, StandingsContext

    rounds = list(session.execute(
        select(Round.id, Round.number, Round.state, Round.scheduled_at, Round.done_at)
        .where(Round.league_id == league.id).order_by(Round.number)))
    done = [r.number for r in rounds if r.state == "done"]
    after = upto_round if upto_round is not None else (max(done) if done else 0)
    rows = standings(session, league, upto_round=after, games=games)
    # the round after "after round N" is N+1 (the first numbered above N), whatever its state:
    # standings resent after later rounds were played still show the pairings that followed N
    nxt = next((r for r in rounds if r.number > after), None)
    pairings: list[PairingView] = []
    if nxt is not None:
        cast_names = {r.entry_id: (r.name, r.unit) for r in rows}
        for board, ea, eb, state in session.execute(
                select(Battle.board, Battle.entry_a_id, Battle.entry_b_id, Battle.state)
                .where(Battle.round_id == nxt.id).order_by(Battle.board)):
            if state == "void":
                continue
            na = cast_names.get(ea, ("?", "?"))
            nb = cast_names.get(eb, ("?", "?")) if eb else None
            pairings.append(PairingView(board, na[0], na[1], nb[0] if nb else None,
                                        nb[1] if nb else None))
    dq = [public_name(name, address, pid) for name, address, pid in session.execute(
        select(Player.display_name, Player.address, Player.id).join(Entry, Entry.player_id == Player.id)
        .where(Entry.league_id == league.id, Entry.status == "disqualified")
        .order_by(Entry.id))]
    if (rounds and after == len(rounds)) or (not rounds and league.state == "finished"):
        state = "finished"  # without rounds: the league did not take place (ctx.cancelled)
    else:
        state = league.state if league.state != "finished" else "running"
    from app.league import ratings as rt
    from app.league.formats import describe, inputs, rounds_planned

    planned = rounds_planned(session, league) if rounds else None
    lines = {lang: describe(league, lang) for lang in ("ja", "en")}
    updates: dict[int, list[Any]] = {}
    if (league.format or "") == "accumulating" and rounds:
        fmt, entries, history, inactive = inputs(session, league, upto=after)
        table = fmt.standings(entries, history, inactive=inactive)
        updates = {r.entry: list(r.detail.get("updates", [])) for r in table.rows}
    rated = rt.latest(session, {r.player_id for r in rows})
    return StandingsContext(
        format_name=league.format or "round-robin", format_lines=lines, updates=updates,
        ratings={pid: f"{r.ordinal:.2f}" for pid, r in rated.items()},
        league=league.name, state=state,
        after_round=after, rounds_total=max(planned or 0, len(rounds)),
        points=f"{league.points_win}/{league.points_draw}/{league.points_loss}", rows=rows,
        next_round=nxt.number if nxt else None,
        next_round_at=(human_time(nxt.done_at if nxt.state == "done" and nxt.done_at
                                  else nxt.scheduled_at)
                       if nxt else ""),
        next_pairings=pairings,
        disqualified=dq,
    )


def render_standings(session: Session, league: League, *, lang: str, fmt: str = "text",
                     upto_round: int | None = None, public_url: str = "") -> str:
    """The standings of ``league`` rendered in ``lang`` (``ja``/``en``) as ``fmt``
    (``text``/``html``; with ``public_url``, the HTML links to the league's page). Raises
    ``ValueError`` for an unknown language or format."""
    from app.reports.standings import render_standings_context
    from app.web.urls import mail_link

    ctx = standings_context(session, league, upto_round=upto_round)
    return render_standings_context(dataclasses.replace(ctx, url=mail_link(public_url, league.name)),
                                    lang=lang, fmt=fmt)


def _standings_subject(league: str, after: int, lang: str, final: bool,
                       cancelled: bool = False, resent: bool = False) -> str:
    """The subject of the standings mail after round ``after``; ``resent`` marks a copy queued
    again by ``league resend`` (:func:`app.reports.standings.standings_subject`)."""
    from app.reports.standings import standings_subject

    return standings_subject(league, after, lang, final=final, cancelled=cancelled,
                             resent=resent)


def queue_standings(session: Session, settings: Any, league: League, round_number: int, *,
                    now: dt.datetime, cast: _Cast | None = None, key_suffix: str = "",
                    games: GamesCache | None = None) -> int:
    """Queue the standings after ``round_number`` to every seated active player (dedupe key
    ``standings:<league id>:<round>:<player id>``), threaded under the mail that entered the
    player's active sheet. A non-empty ``key_suffix`` (a resend) marks the subject as resent.
    The body is rendered once per language, built once per (language, charset) and stamped per
    recipient (``app.league.outbox``). ``games``: the league's :class:`GamesCache` of this run
    of rounds. Returns the number of mails queued."""
    from app.league.outbox import Copy, build_rows, existing_keys, insert_rows
    from app.reports.standings import render_standings_context
    from app.web.urls import mail_link

    if cast is None:
        cast = _load_cast(session, league, settings)
    ctx = dataclasses.replace(standings_context(session, league, upto_round=round_number,
                                                games=games),
                              url=mail_link(getattr(settings, "public_url", "") or "", league.name))
    active_sheet_of = {s.entry_id: s.id for s in cast.sheets.values() if s.active}
    groups: dict[tuple[str, str], list[Copy]] = {}
    for row in ctx.rows:
        player = cast.players[row.player_id]
        lang = player.lang if player.lang in ("ja", "en") else "ja"
        sheet_id = active_sheet_of.get(row.entry_id)
        groups.setdefault((lang, player.charset or "utf-8"), []).append(Copy(
            f"standings:{league.id}:{round_number}:{row.player_id}{key_suffix}", player.address,
            cast.thread.get(sheet_id) if sheet_id is not None else None))
    # queue_copies per group, with one look-up of the queued keys and one insert for all
    known = existing_keys(session, [c.key for copies in groups.values() for c in copies])
    rows: list[dict[str, Any]] = []
    parts: dict[str, tuple[str, str, str]] = {}  # lang -> (subject, text, html): any charset
    for (lang, charset), copies in groups.items():
        fresh = [c for c in copies if c.key not in known]
        if not fresh:
            continue
        if lang not in parts:
            parts[lang] = (_standings_subject(league.name, round_number, lang, ctx.finished,
                                              ctx.cancelled, resent=bool(key_suffix)),
                           render_standings_context(ctx, lang=lang, fmt="text"),
                           render_standings_context(ctx, lang=lang, fmt="html"))
        subj, text, html = parts[lang]
        rows += build_rows(
            fresh, kind="standings", now=now, sender=settings.server_address,
            sender_name=settings.server_name, subject=subj, text=text, html=html,
            charset=charset, auto_submitted="auto-generated")
    insert_rows(session, rows)
    return len(rows)

