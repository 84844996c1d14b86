"""The league's mails: the mail layer's side of :class:`app.league.notify.Notices`.

:class:`LeagueMail` renders the battle reports, the standings and the pushed-off notices of the
league services with the report templates (``templates/reports/``, ``templates/mail/``) and
queues them through the outbox (:mod:`app.mail.outbox`), in the caller's transaction, each under
a stable dedupe key:

* ``report:<battle id>:<side>`` — a battle's report to each of its two players;
* ``standings:<league id>:<round>:<player id>`` — the standings after a round (round 0: the
  pairings of round 1 when entries close);
* ``hill-off:<league id>:<arrival>:<entry id>`` — a member pushed off by an arrival;
* ``pairing:<round id>:<entry id>`` — a round's pairing to a player of a league whose ruleset
  takes orders (the opponent's sheet, the draw, the deadline, how to send orders);
* ``stop:<battle id>:<turn>:<side>`` — a battle stopped at a checkpoint, to each of its
  players (the state so far, their own hand, trace and rules, how to revise or say READY).

* ``digest:<league id>:<round>:<entry id>`` — a digest round's one mail to each player
  (:meth:`LeagueMail.queue_digests`): their results, the standings, links, maybe the logs.

Every league mail carries ``List-Id`` and ``List-Unsubscribe`` (a ``mailto:`` to the server
with the subject ``unsubscribe``, RFC 2369; :meth:`LeagueMail.list_headers`) and goes only to
players whose mail preference (``Player.mail_pref``, :func:`wants`) asks for it.

A resend appends its suffix (``:resend<k>``). Every family is rendered once per language, built
once per (language, charset) and stamped per recipient (:func:`app.mail.outbox.build_rows`).
A ``LeagueMail`` holds only the plain settings it needs, so it pickles into the worker processes
that fight a round and render its reports there.
"""

from __future__ import annotations

import dataclasses
import datetime as dt
import re
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

from sqlalchemy.orm import Session

from app.league.notify import PushedOffNotice, RewriteNotice
from app.mail.outbox import Copy, build_rows, existing_keys, insert_rows, queue_copies

#: which league mail each preference (``Player.mail_pref``) gets: ``all`` everything, ``own``
#: what is about the player's own battles and entries, ``none`` nothing
_WANTS = {"all": frozenset({"own", "league"}), "own": frozenset({"own"}), "none": frozenset()}


def wants(pref: str | None, what: str) -> bool:
    """Whether a player whose mail preference is ``pref`` (``Player.mail_pref``: ``all``,
    ``own`` or ``none``; an unknown value counts as ``all``) gets a league mail about ``what``:
    ``own`` (a report, digest, pairing, checkpoint or push-off of their own entry) or
    ``league`` (the standings). Direct replies to a player's own mails are not league mail and
    always go."""
    return what in _WANTS.get(pref or "all", _WANTS["all"])


#: the dot-atom label of a ``List-Id`` (RFC 2919 §2): letters, digits and hyphens
_LABEL = re.compile(r"[A-Za-z0-9](?:[A-Za-z0-9-]{0,40}[A-Za-z0-9])?")


@dataclass(frozen=True, slots=True)
class LeagueMail:
    """The league's mails for one server (:class:`app.league.notify.Notices`).

    Attributes:
        sender: the league address (``server_address``), the From of every mail.
        sender_name: the display name in From (``server_name``).
        public_url: the web view's base URL; mails link to their page when it is set.
        max_lines: the body lines a mail reply reads (the footer says so).
    """

    sender: str
    sender_name: str = ""
    public_url: str = ""
    max_lines: int = 0

    @classmethod
    def of(cls, settings: Any) -> LeagueMail:
        """The mails of the server configured by ``settings`` (:class:`app.config.Settings`)."""
        return cls(
            sender=settings.server_address,
            sender_name=settings.server_name,
            public_url=getattr(settings, "public_url", "") or "",
            max_lines=int(getattr(settings, "max_lines", 0) or 0),
        )

    def list_headers(self, league_id: int, league_name: str) -> dict[str, str]:
        """The list header fields of league ``league_name``'s mail, as keyword arguments of
        :func:`app.mail.compose.shared_bytes`: ``List-Id`` ``"NAME" <NAME.DOMAIN>`` (RFC
        2919; a name that is no dot-atom label becomes ``league-<id>``) and
        ``List-Unsubscribe`` ``<mailto:SERVER?subject=unsubscribe>`` (RFC 2369 §3.2; mailed,
        it sets the player's preference to ``none`` and confirms it)."""
        domain = self.sender.rpartition("@")[2] or "localhost"
        label = league_name if _LABEL.fullmatch(league_name) else f"league-{league_id}"
        phrase = (
            league_name
            if league_name.isascii()
            and league_name.isprintable()
            and '"' not in league_name
            and "\\" not in league_name
            else label
        )
        return dict(
            list_id=f'"{phrase}" <{label.lower()}.{domain}>',
            list_unsubscribe=f"<mailto:{self.sender}?subject=unsubscribe>",
        )

    # -- battle reports -----------------------------------------------------------------------

    def report_rows(
        self,
        cast: Any,
        round_number: int,
        battle: Any,
        result: Any,
        now: dt.datetime,
        *,
        key_suffix: str = "",
        notes: Mapping[str, tuple[str, bool]] | None = None,
        skip: frozenset[str] = frozenset(),
    ) -> list[dict[str, Any]]:
        """The outbox rows of the battle report to both players (dedupe keys
        ``report:<battle id>:<side><key_suffix>``, those in ``skip`` left out): text and HTML
        in each player's language and charset, threaded under the mail that entered the
        player's active sheet. ``result`` is the logged engine run of the two sheets;
        ``battle`` (``app.league.cast.Board``) holds the recorded result the header states.
        ``notes`` maps a language to ``(engine note, show the log)`` (default: no note, log
        shown). A non-empty ``key_suffix`` (a resend) marks the subject as resent. A ruleset
        with hidden information renders each player's copy with that player's private block
        only (``Ruleset.report_for``). No database needed."""
        return self._battle_rows(
            cast,
            round_number,
            battle,
            result,
            now,
            "report",
            key_suffix=key_suffix,
            notes=notes,
            skip=skip,
        )

    def checkpoint_rows(
        self,
        cast: Any,
        round_number: int,
        battle: Any,
        result: Any,
        until: dt.datetime,
        now: dt.datetime,
    ) -> list[dict[str, Any]]:
        """The outbox rows of a battle stopped at a checkpoint (``battle.stop_turn``), one per
        player (dedupe keys ``stop:<battle id>:<turn>:<side>``): the public log so far, the
        player's own hand and rule trace (their private block) and their rules in force,
        how to revise them or say READY, and when play goes on (``until``). No database."""
        return self._battle_rows(
            cast,
            round_number,
            battle,
            result,
            now,
            f"stop:{battle.id}:{battle.stop_turn}",
            until=until,
        )

    def _battle_rows(
        self,
        cast: Any,
        round_number: int,
        battle: Any,
        result: Any,
        now: dt.datetime,
        family: str,
        *,
        key_suffix: str = "",
        notes: Mapping[str, tuple[str, bool]] | None = None,
        skip: frozenset[str] = frozenset(),
        until: dt.datetime | None = None,
    ) -> list[dict[str, Any]]:
        from app.league.orders import BoardInputs
        from app.league.play import decision_text, final_lines, report_record
        from app.reports.battle import render_report
        from app.reports.dates import human_time
        from app.reports.league_battle import LeagueBattleContext, render_league_battle, subject
        from app.reports.urls import mail_link

        b = battle
        rs = cast.rules
        private = rs.takes_orders  # each copy carries its reader's private block only
        stopped = until is not None
        groups: dict[tuple[str, str, int | None], list[Copy]] = {}
        for who, entry_id, sheet_id in (
            (0, b.entry_a_id, b.sheet_a_id),
            (1, b.entry_b_id, b.sheet_b_id),
        ):
            key = f"{family}:{b.id}:{who}{key_suffix}" if family == "report" else f"{family}:{who}"
            if key in skip:
                continue
            player = cast.player_of(entry_id)
            if not wants(player.mail_pref, "own"):
                continue
            lang = player.lang if player.lang in ("ja", "en") else "ja"
            groups.setdefault((lang, player.charset, who if private else None), []).append(
                Copy(key, player.address, cast.thread.get(sheet_id))
            )
        ua, ub = cast.unit(b.sheet_a_id), cast.unit(b.sheet_b_id)
        name_a, name_b = rs.label(ua), rs.label(ub)
        winner = {0: "A", 1: "B"}.get(b.winner, "") if b.winner is not None else ""
        outcome = None if stopped else rs.outcome(result)
        orders = BoardInputs.from_json(b.inputs).orders if private else (None, None)
        rows: list[dict[str, Any]] = []
        parts: dict[tuple[str, int | None], tuple[str, str, str]] = {}
        lists = self.list_headers(cast.league_id, cast.league_name)
        for (lang, charset, side), copies in groups.items():
            if (lang, side) not in parts:
                note, show_log = (notes or {}).get(lang, ("", True))
                report = (
                    (
                        rs.report_for(ua, ub, result, lang=lang, side=side)
                        if private
                        else rs.report(ua, ub, result, lang=lang)
                    )
                    if show_log
                    else None
                )
                record = report_record(rs, lang)
                if report is not None and record:  # the mail's header prints the record once
                    report = dataclasses.replace(
                        report, header=tuple(line for line in report.header if line not in record)
                    )
                entry_id = b.entry_a_id if side == 0 else b.entry_b_id
                ctx = LeagueBattleContext(
                    league=cast.league_name,
                    round=round_number,
                    board=b.board,
                    player_a=cast.name(b.entry_a_id),
                    unit_a=name_a,
                    player_b=cast.name(b.entry_b_id),
                    unit_b=name_b,
                    winner=winner,
                    winner_unit=(name_a if b.winner == 0 else name_b) if winner else "",
                    reason=b.reason or "",
                    turns=b.turns or 0,
                    hp=(int(b.hp_a or 0), int(b.hp_b or 0)),
                    report=render_report(report, fmt="text") if report is not None else "",
                    engine_version=b.engine_version or "",
                    engine_note=note,
                    ruleset=rs.name,
                    header=record,
                    finals=final_lines(outcome, lang) if rs.final_lines and outcome else ((), ()),
                    battle=report,
                    url=mail_link(self.public_url, cast.league_name, b.id),
                    decision="" if stopped else decision_text(cast, round_number, b, lang),
                    checkpoint=b.stop_turn if stopped else None,
                    until=human_time(until) if stopped else "",
                    revision=rs.revision_form(int(b.stop_turn or 0) + 1, lang) if stopped else "",
                    key=cast.entries[entry_id].key if stopped and side is not None else "",
                    orders=(orders[side] or "") if stopped and side is not None else "",
                )
                parts[(lang, side)] = (
                    subject(ctx, lang, resent=bool(key_suffix)),
                    render_league_battle(ctx, lang=lang, fmt="text"),
                    render_league_battle(ctx, lang=lang, fmt="html"),
                )
            subj, text, html = parts[(lang, side)]
            rows += build_rows(
                copies,
                kind="report",
                now=now,
                sender=self.sender,
                sender_name=self.sender_name,
                subject=subj,
                text=text,
                html=html,
                charset=charset,
                auto_submitted="auto-generated",
                **lists,
            )
        return rows

    def queue_rows(self, session: Session, rows: list[dict[str, Any]]) -> int:
        """Queue rows of :meth:`report_rows`, skipping keys queued before. Returns how many
        were queued."""
        known = existing_keys(session, [row["dedupe_key"] for row in rows])
        fresh = [row for row in rows if row["dedupe_key"] not in known]
        insert_rows(session, fresh)
        return len(fresh)

    # -- standings ----------------------------------------------------------------------------

    def queue_standings(
        self,
        session: Session,
        league: Any,
        round_number: int,
        *,
        now: dt.datetime,
        cast: Any = None,
        key_suffix: str = "",
        history: Any = None,
        rewrites: tuple[RewriteNotice, ...] = (),
        skip_entries: frozenset[int] = frozenset(),
    ) -> int:
        """Queue the standings after ``round_number`` to every seated active player whose
        preference asks for them (:func:`wants` ``league``; round 0, the closing of entries
        with the player's first pairing, ``own``), but those of ``skip_entries``
        (they had the standings in their digest), (dedupe
        key ``standings:<league id>:<round>:<player id><key_suffix>``), threaded under the mail
        that entered the player's active sheet; a non-empty ``key_suffix`` (a resend) marks the
        subject as resent. Round 0 is the pairings of round 1 (or, with fewer than two entries,
        that the league did not take place). Returns the number of mails queued."""
        from app.league.cast import load_cast
        from app.league.standings import standings_context
        from app.reports.standings import render_standings_context, standings_subject
        from app.reports.urls import mail_link

        if cast is None:
            cast = load_cast(session, league)
        if skip_entries and all(
            eid in skip_entries for eid, e in cast.entries.items() if e.status == "active"
        ):
            return 0  # every player had the standings in a digest: no table to build
        ctx = standings_context(
            session, league, upto_round=round_number, history=history, rewrites=rewrites
        ).with_url(mail_link(self.public_url, league.name))
        active_sheet_of = {s.entry_id: s.id for s in cast.sheets.values() if s.active}
        groups: dict[tuple[str, str], list[Copy]] = {}
        for row in ctx.rows:
            player = cast.players[row.player_id]
            # round 0 (entries closed: the player's first pairing) is about their own entry
            about = "own" if round_number == 0 else "league"
            if not wants(player.mail_pref, about) or row.entry_id in skip_entries:
                continue
            lang = player.lang if player.lang in ("ja", "en") else "ja"
            sheet_id = active_sheet_of.get(row.entry_id)
            groups.setdefault((lang, player.charset or "utf-8"), []).append(
                Copy(
                    f"standings:{league.id}:{round_number}:{row.player_id}{key_suffix}",
                    player.address,
                    cast.thread.get(sheet_id) if sheet_id is not None else None,
                )
            )
        known = existing_keys(session, [c.key for copies in groups.values() for c in copies])
        rows: list[dict[str, Any]] = []
        parts: dict[str, tuple[str, str, str]] = {}
        for (lang, charset), copies in groups.items():
            fresh = [c for c in copies if c.key not in known]
            if not fresh:
                continue
            if lang not in parts:
                parts[lang] = (
                    standings_subject(
                        league.name,
                        round_number,
                        lang,
                        final=ctx.finished,
                        cancelled=ctx.cancelled,
                        resent=bool(key_suffix),
                    ),
                    render_standings_context(ctx, lang=lang, fmt="text"),
                    render_standings_context(ctx, lang=lang, fmt="html"),
                )
            subj, text, html = parts[lang]
            rows += build_rows(
                fresh,
                kind="standings",
                now=now,
                sender=self.sender,
                sender_name=self.sender_name,
                subject=subj,
                text=text,
                html=html,
                charset=charset,
                auto_submitted="auto-generated",
                **self.list_headers(league.id, league.name),
            )
        insert_rows(session, rows)
        return len(rows)

    # -- pairings (a ruleset with orders) -----------------------------------------------------

    def queue_pairings(
        self, session: Session, league: Any, rnd: Any, *, now: dt.datetime, cast: Any = None
    ) -> int:
        """Queue round ``rnd``'s pairing (``mail/pairing.txt``) to each player seated in it
        (dedupe key ``pairing:<round id>:<entry id>``), threaded under the mail that entered
        their sheet: the opponent's public sheet, the draw, the deadline and how to send
        orders. For a league whose ruleset takes orders; ``cast``: the league's
        ``app.league.cast.Cast`` when the caller has it (its sheets are parsed already).
        Returns the mails queued."""
        from sqlalchemy import select

        from app.db.models import Battle
        from app.league.cast import load_cast
        from app.league.orders import standing_orders
        from app.mail.replies import reply_context
        from app.reports.dates import human_time
        from app.reports.i18n import gettext
        from app.reports.render import render_mail

        if cast is None:
            cast = load_cast(session, league)
        rs = cast.rules
        boards = list(
            session.scalars(
                select(Battle)
                .where(
                    Battle.round_id == rnd.id,
                    Battle.entry_b_id.is_not(None),
                    Battle.state == "pending",
                )
                .order_by(Battle.board)
            )
        )
        seated = {e for b in boards for e in (b.entry_a_id, b.entry_b_id) if e is not None}
        standing = set(standing_orders(session, seated)) if seated else set()
        keys = [f"pairing:{rnd.id}:{e}" for e in seated]
        known = existing_keys(session, keys)
        plus_local, _, plus_domain = self.sender.partition("@")
        n = 0
        for b in boards:
            assert b.entry_b_id is not None and b.sheet_a_id and b.sheet_b_id
            ua, ub = cast.unit(b.sheet_a_id), cast.unit(b.sheet_b_id)
            labels = (rs.label(ua), rs.label(ub))
            for side, me, other in (
                (0, b.entry_a_id, b.entry_b_id),
                (1, b.entry_b_id, b.entry_a_id),
            ):
                key = f"pairing:{rnd.id}:{me}"
                if key in known or cast.entries[me].status != "active":
                    continue
                player = cast.player_of(me)
                if not wants(player.mail_pref, "own"):
                    continue
                lang = player.lang if player.lang in ("ja", "en") else "ja"
                _ = gettext(lang)
                subject = _("[%(league)s] Round %(round)s: %(a)s vs %(b)s — send your orders") % {
                    "league": league.name,
                    "round": rnd.number,
                    "a": labels[side],
                    "b": labels[1 - side],
                }
                context = reply_context(
                    "pairing",
                    dict(
                        name=cast.name(me),
                        league=league.name,
                        round=rnd.number,
                        board=b.board,
                        side="AB"[side],
                        unit=labels[side],
                        opponent=labels[1 - side],
                        opponent_player=cast.name(other),
                        opponent_sheet=rs.public_sheet(ub if side == 0 else ua, lang),
                        lead=rs.lead_text(cast.seed, labels[0], labels[1], lang),
                        deadline=human_time(rnd.scheduled_at),
                        form=rs.orders_form(
                            league.name, cast.entries[me].key or "XXXX-XXXX", labels[1 - side], lang
                        ),
                        key=cast.entries[me].key,
                        standing=me in standing,
                        checkpoints=list(rs.checkpoint_turns()),
                    ),
                )
                text = render_mail(
                    "pairing",
                    lang,
                    **context,
                    lang=lang,
                    subject="",
                    cut_lines=0,
                    max_lines=self.max_lines,
                    notes=[],
                    server=self.sender,
                    plus_local=plus_local,
                    plus_domain=plus_domain or "localhost",
                )
                sheet = b.sheet_a_id if side == 0 else b.sheet_b_id
                n += queue_copies(
                    session,
                    [Copy(key, player.address, cast.thread.get(sheet))],
                    kind="standings",
                    now=now,
                    sender=self.sender,
                    sender_name=self.sender_name,
                    subject=subject,
                    text=text,
                    charset=player.charset or "utf-8",
                    auto_submitted="auto-generated",
                    **self.list_headers(league.id, league.name),
                )
        return n

    # -- arrivals -----------------------------------------------------------------------------

    def queue_pushed_off(
        self, session: Session, notices: tuple[PushedOffNotice, ...], *, now: dt.datetime
    ) -> int:
        """Queue "pushed off" (``mail/hill_off.txt``) to each member in ``notices`` (dedupe key
        ``hill-off:<league id>:<arrival>:<entry id>``). Returns the mails queued."""
        from app.db.models import Player
        from app.mail.replies import reply_context
        from app.reports.i18n import gettext
        from app.reports.render import render_mail

        plus_local, _, plus_domain = self.sender.partition("@")
        n = 0
        for p in notices:
            player = session.get(Player, p.player_id)
            if player is None or not wants(player.mail_pref, "own"):
                continue
            lang = player.lang if player.lang in ("ja", "en") else "ja"
            _ = gettext(lang)
            subject = _("[%(league)s] Pushed off the hill (challenge %(n)s)") % {
                "league": p.league,
                "n": p.arrival,
            }
            context = reply_context(
                "hill_off",
                dict(
                    name=p.name,
                    league=p.league,
                    size=p.size,
                    number=p.arrival,
                    unit=p.unit,
                    place=p.place,
                    points=p.points,
                    age=p.age,
                ),
            )
            text = render_mail(
                "hill_off",
                lang,
                **context,
                lang=lang,
                subject="",
                cut_lines=0,
                max_lines=self.max_lines,
                notes=[],
                server=self.sender,
                plus_local=plus_local,
                plus_domain=plus_domain or "localhost",
            )
            n += queue_copies(
                session,
                [Copy(f"hill-off:{p.league_id}:{p.arrival}:{p.entry_id}", player.address)],
                kind="standings",
                now=now,
                sender=self.sender,
                sender_name=self.sender_name,
                subject=subject,
                text=text,
                charset=player.charset or "utf-8",
                auto_submitted="auto-generated",
                **self.list_headers(p.league_id, p.league),
            )
        return n

    # -- digests (a round where players fight many battles) -----------------------------------

    def battle_log(self, cast: Any, battle: Any, side: int, lang: str, result: Any = None) -> str:
        """The full log of stored battle ``battle`` (``app.league.cast.Board``) as side
        ``side`` (0: A, 1: B) may read it, in ``lang``: fought again from its sheets and inputs
        (``app.league.orders.fight_board``) unless ``result`` (its logged run) is given. A
        ruleset with hidden information shows that side's private block only
        (``Ruleset.report_for``); the caller must send it to that side's player alone."""
        from app.league.orders import fight_board
        from app.reports.battle import render_report

        rs = cast.rules
        ua, ub = cast.unit(battle.sheet_a_id), cast.unit(battle.sheet_b_id)
        if result is None:
            result = fight_board(rs, ua, ub, battle.inputs)
        report = (
            rs.report_for(ua, ub, result, lang=lang, side=side)
            if rs.takes_orders
            else rs.report(ua, ub, result, lang=lang)
        )
        return str(render_report(report, fmt="text"))

    def digest_lines(
        self, cast: Any, boards: list[Any], entry_id: int, lang: str
    ) -> list[dict[str, Any]]:
        """The rows of entry ``entry_id``'s results among ``boards`` (its stored battles, in
        board order) for ``mail/digest.txt``: ``board``, ``opponent`` (the player's public
        name), ``unit`` (the opponent's unit), ``result`` (``win``/``loss``/``draw``),
        ``turns``, ``hp`` (own and the opponent's final HP, ``"12 : 0"``) and ``url`` (the
        battle's page, ``""`` without ``public_url``). Public facts only."""
        from app.reports.urls import mail_link

        out = []
        for b in boards:
            side = 0 if b.entry_a_id == entry_id else 1
            other = b.entry_b_id if side == 0 else b.entry_a_id
            own_hp, opp_hp = (b.hp_a, b.hp_b) if side == 0 else (b.hp_b, b.hp_a)
            result = "draw" if b.winner is None else ("win" if b.winner == side else "loss")
            out.append(
                dict(
                    board=b.board,
                    opponent=cast.name(other),
                    unit=cast.label(b.sheet_b_id if side == 0 else b.sheet_a_id),
                    result=result,
                    turns=int(b.turns or 0),
                    hp=f"{int(own_hp or 0)} : {int(opp_hp or 0)}",
                    url=mail_link(self.public_url, cast.league_name, b.id),
                )
            )
        return out

    def queue_digests(
        self,
        session: Session,
        league: Any,
        rnd: Any,
        *,
        now: dt.datetime,
        cast: Any = None,
        history: Any = None,
        rewrites: tuple[RewriteNotice, ...] = (),
        key_suffix: str = "",
    ) -> frozenset[int]:
        """Queue one digest (``mail/digest.txt``) to each player seated in round ``rnd``
        (dedupe key ``digest:<league id>:<round>:<entry id>``), threaded under the mail that
        entered their active sheet, in place of a report a battle: a table of their results
        (:meth:`digest_lines`) with a link to each battle's page (with ``public_url``), the
        standings after the round (preference ``all``), how to ask for the logs (``logs``
        command) or, when the player chose so (``Player.digest_logs``), the full log of each
        of their own battles (:meth:`battle_log`, their own private block only). A player
        whose preference is ``none`` gets none. Returns the entries seated in the round (they
        need no separate standings mail). A non-empty ``key_suffix`` (a resend) is appended to
        the keys and marks the subject as resent."""
        from sqlalchemy import select

        from app.db.models import Battle
        from app.league.cast import BOARD_COLUMNS, Board, load_cast
        from app.league.standings import standings_context
        from app.mail.replies import reply_context
        from app.reports.i18n import gettext
        from app.reports.league_battle import resent_mark
        from app.reports.render import render_mail
        from app.reports.standings import render_standings_context
        from app.reports.urls import mail_link

        if cast is None:
            cast = load_cast(session, league)
        boards = [
            Board(*row)
            for row in session.execute(
                select(*BOARD_COLUMNS)
                .where(
                    Battle.round_id == rnd.id,
                    Battle.state == "done",
                    Battle.entry_b_id.is_not(None),
                )
                .order_by(Battle.board)
            )
        ]
        mine: dict[int, list[Any]] = {}
        for b in boards:
            mine.setdefault(b.entry_a_id, []).append(b)
            mine.setdefault(b.entry_b_id, []).append(b)
        keys = {e: f"digest:{league.id}:{rnd.number}:{e}{key_suffix}" for e in mine}
        known = existing_keys(session, list(keys.values()))
        todo = [
            e
            for e in sorted(mine)
            if keys[e] not in known and wants(cast.player_of(e).mail_pref, "own")
        ]
        if not todo:
            return frozenset(mine)
        ctx = standings_context(
            session, league, upto_round=rnd.number, history=history, rewrites=rewrites
        ).with_url(mail_link(self.public_url, league.name))
        tables: dict[str, str] = {}
        active_sheet_of = {s.entry_id: s.id for s in cast.sheets.values() if s.active}
        plus_local, _at, plus_domain = self.sender.partition("@")
        lists = self.list_headers(league.id, league.name)
        results: dict[int, Any] = {}  # battle id -> logged run, fought once for both sides
        rows: list[dict[str, Any]] = []
        for e in todo:
            player = cast.player_of(e)
            lang = player.lang if player.lang in ("ja", "en") else "ja"
            standings = ""
            if wants(player.mail_pref, "league"):
                if lang not in tables:
                    tables[lang] = render_standings_context(ctx, lang=lang, fmt="text")
                standings = tables[lang]
            logs: list[dict[str, str]] = []
            if player.digest_logs:
                from app.league.orders import fight_board

                for b in mine[e]:
                    if b.id not in results:
                        results[b.id] = fight_board(
                            cast.rules, cast.unit(b.sheet_a_id), cast.unit(b.sheet_b_id), b.inputs
                        )
                    side = 0 if b.entry_a_id == e else 1
                    logs.append(
                        dict(
                            board=str(b.board),
                            title=f"{cast.label(b.sheet_a_id)} vs {cast.label(b.sheet_b_id)}",
                            log=self.battle_log(cast, b, side, lang, results[b.id]),
                        )
                    )
            lines = self.digest_lines(cast, mine[e], e, lang)
            _ = gettext(lang)
            subject = _("[%(league)s] Round %(round)s: your %(n)s battles") % {
                "league": league.name,
                "round": rnd.number,
                "n": len(lines),
            }
            if key_suffix:
                subject += resent_mark(lang)
            context = reply_context(
                "digest",
                dict(
                    name=cast.name(e),
                    league=league.name,
                    round=rnd.number,
                    unit=cast.label(active_sheet_of[e]) if e in active_sheet_of else "",
                    rows=lines,
                    standings=standings,
                    url=mail_link(self.public_url, league.name),
                    logs=logs,
                    wins=sum(r["result"] == "win" for r in lines),
                    draws=sum(r["result"] == "draw" for r in lines),
                    losses=sum(r["result"] == "loss" for r in lines),
                ),
            )
            text = render_mail(
                "digest",
                lang,
                **context,
                lang=lang,
                subject="",
                cut_lines=0,
                max_lines=self.max_lines,
                notes=[],
                server=self.sender,
                plus_local=plus_local,
                plus_domain=plus_domain or "localhost",
            )
            sheet = active_sheet_of.get(e)
            rows += build_rows(
                [
                    Copy(
                        keys[e],
                        player.address,
                        cast.thread.get(sheet) if sheet is not None else None,
                    )
                ],
                kind="report",
                now=now,
                sender=self.sender,
                sender_name=self.sender_name,
                subject=subject,
                text=text,
                charset=player.charset or "utf-8",
                auto_submitted="auto-generated",
                **lists,
            )
        insert_rows(session, rows)
        return frozenset(mine)
