"""Organizer work ordered by mail (``run``, ``resend``), done by the scheduler (issue 9.5).

The mail's command handler only **records** a :class:`~app.db.models.LeagueRequest` in the mail's
own transaction (:func:`record`): nothing runs after that transaction commits, so a crash can
neither lose the order nor leave it half done without a trace. The scheduler (``serve``'s tick,
``amaryllis tick``) calls :func:`run_pending`: it claims each queued request with a lease
(``app.db.leases``: a dead owner's request is taken over), performs it, and in **one**
transaction queues the answer (dedupe key ``reply:<inbound id>``, threaded under the
organizer's mail) and marks the request ``done`` (or ``failed`` with the error in the answer).

Resuming is safe: ``run`` records the round numbers to play when the mail arrives, and playing a
round already played does nothing (battles stored chunk by chunk are kept); ``resend`` queues its
mails under keys derived from the request id, so a re-run queues nothing twice.
"""

from __future__ import annotations

import datetime as dt
import logging
from typing import Any

from sqlalchemy import select, update
from sqlalchemy.orm import Session, sessionmaker

from app.db.leases import lease_over, owner_id
from app.db.models import InboundMessage, LeagueRequest, Player, Round, utcnow
from app.db.session import transaction
from app.mail.league_mail import LeagueMail
from app.reports.i18n import gettext

log = logging.getLogger(__name__)

#: seconds a scheduler holds a request before another may take it over
REQUEST_LEASE_S = 1800.0


def record(ctx: Any, league: Any, kind: str, params: dict[str, Any]) -> LeagueRequest:
    """Record organizer request ``kind`` (``run``: ``{"all": bool}``; ``resend``:
    ``{"round": int}``) for ``league`` in the mail's transaction (``ctx`` a ``MailContext``).
    ``run`` fixes the rounds to play now: the next one not done, or all of them. No reply is
    queued here: the scheduler answers when the work is done."""
    if kind == "run":
        numbers = list(
            ctx.s.scalars(
                select(Round.number)
                .where(Round.league_id == league.id, Round.state != "done")
                .order_by(Round.number)
            )
        )
        params = dict(params, rounds=numbers if params.get("all") else numbers[:1])
    req = LeagueRequest(
        league_id=league.id,
        league_name=league.name,
        kind=kind,
        params=params,
        inbound_id=ctx.row.id,
        lang=ctx.lang,
        state="queued",
        attempts=0,
        created_at=ctx.now,
    )
    ctx.s.add(req)
    ctx.s.flush()
    return req


def _claim(
    factory: sessionmaker[Session], now: dt.datetime, skip: set[int]
) -> LeagueRequest | None:
    me = owner_id()
    with transaction(factory) as s:
        for req in s.scalars(
            select(LeagueRequest)
            .where(
                LeagueRequest.state == "queued",
                LeagueRequest.id.not_in(skip) if skip else LeagueRequest.id > 0,
            )
            .order_by(LeagueRequest.id)
        ):
            if req.lease_owner is not None and not lease_over(
                req.lease_owner, req.lease_until, now
            ):
                skip.add(req.id)
                continue
            cond = (
                LeagueRequest.lease_owner.is_(None)
                if req.lease_owner is None
                else LeagueRequest.lease_owner == req.lease_owner
            )
            got = getattr(
                s.execute(
                    update(LeagueRequest)
                    .where(LeagueRequest.id == req.id, LeagueRequest.state == "queued", cond)
                    .values(
                        lease_owner=me,
                        lease_until=now + dt.timedelta(seconds=REQUEST_LEASE_S),
                        attempts=LeagueRequest.attempts + 1,
                    )
                ),
                "rowcount",
                0,
            )
            skip.add(req.id)
            if got:
                s.refresh(req)
                return req
    return None


def _perform(
    factory: sessionmaker[Session],
    settings: Any,
    req: LeagueRequest,
    now: dt.datetime,
    stop: Any = None,
) -> tuple[str, dict[str, Any], str]:
    """Do the request; returns ``(template, context, state)`` of the answer."""
    from app.league import service as svc
    from app.mail.commands.context import error_text

    name, params, lang = req.league_name, req.params or {}, req.lang
    try:
        if req.kind == "run":
            numbers = [int(n) for n in params.get("rounds", [])]
            played: list[int] = []
            if params.get("all"):  # every round, also those the format pairs after results
                played = svc.run_round(
                    factory, LeagueMail.of(settings), name, all_rounds=True, now=now, stop=stop
                )
            else:
                for number in numbers:
                    played += svc.run_round(
                        factory,
                        LeagueMail.of(settings),
                        name,
                        round_number=number,
                        now=now,
                        stop=stop,
                    )
            asked = sorted(set(numbers[:1]) | set(played))
            return (
                "organizer",
                {
                    "action": "run",
                    "league": name,
                    "summary": run_summary(factory, name, asked, lang),
                },
                "done",
            )
        number = int(params["round"])
        n = svc.resend(
            factory, LeagueMail.of(settings), name, number, now=now, request_key=f"r{req.id}"
        )
        _ = gettext(lang)
        summary = _(
            "Round %(number)s of %(name)s sent again: %(n)s mails (reports and standings) queued."
        ) % {"number": number, "name": name, "n": n}
        return "organizer", {"action": "resend", "league": name, "summary": summary}, "done"
    except (ValueError, OverflowError, svc.LeagueError) as exc:
        return (
            "error",
            {
                "code": "organizer-failed",
                "action": req.kind,
                "league": name,
                "detail": error_text(exc),
            },
            "failed",
        )


def _answer(
    factory: sessionmaker[Session],
    settings: Any,
    req_id: int,
    template: str,
    context: dict[str, Any],
    state: str,
    now: dt.datetime,
) -> None:
    """Queue the answer under the organizer's mail and close the request, in one transaction."""
    from app.mail.decode import decode_message
    from app.mail.reply import queue_reply

    with transaction(factory) as s:
        req = s.get(LeagueRequest, req_id)
        if req is None or req.state != "queued" or req.lease_owner != owner_id():
            return  # taken over meanwhile (our lease ran out): the new owner answers
        row = s.get(InboundMessage, req.inbound_id) if req.inbound_id else None
        if row is not None:
            mail = decode_message(
                row.raw,
                max_lines=settings.max_lines,
                max_bytes=settings.max_mail_bytes,
                max_line_chars=settings.max_line_chars,
                omitted=row.omitted,
            )
            player = s.scalar(select(Player).where(Player.address == mail.sender))
            queue_reply(s, settings, row, mail, player, req.lang, template, context, None, now)
        req.state, req.done_at = state, now
        req.result = {
            "template": template,
            "summary": str(context.get("summary") or context.get("detail") or ""),
        }
        req.error = str(context.get("detail")) if state == "failed" else None
        req.lease_owner = req.lease_until = None


def run_pending(
    factory: sessionmaker[Session],
    settings: Any,
    *,
    now: dt.datetime | None = None,
    stop: Any = None,
) -> list[str]:
    """Perform every queued organizer request this scheduler can claim (oldest first) until
    ``stop`` is set; returns one line per request answered. An unexpected error is logged and
    leaves the request queued (its lease ends, a later tick tries again)."""
    now = now or utcnow()
    done: list[str] = []
    skip: set[int] = set()
    while not (stop is not None and stop.is_set()):
        req = _claim(factory, now, skip)
        if req is None:
            break
        try:
            template, context, state = _perform(factory, settings, req, now, stop)
            if stop is not None and stop.is_set() and req.kind == "run":
                break  # the round may be unfinished: resumed by the next tick
            _answer(factory, settings, req.id, template, context, state, now)
            done.append(f"organizer {req.kind} of {req.league_name}: {state}")
        except Exception:
            log.exception("organizer request #%s failed", req.id)
            with transaction(factory) as s:
                s.execute(
                    update(LeagueRequest)
                    .where(LeagueRequest.id == req.id, LeagueRequest.lease_owner == owner_id())
                    .values(lease_owner=None, lease_until=None)
                )
    return done


def run_summary(factory: sessionmaker[Session], name: str, done: list[int], lang: str) -> str:
    """What ``run`` did, in words: one line per round played (battles fought, reports queued)."""
    from app.db.models import Battle, League, OutboxMessage, Round
    from app.league import service as svc

    _ = gettext(lang)
    with factory() as s:
        league = svc.find_league(s, name)
        if not done or league is None:
            return _("Nothing to run in %(name)s: every round is played.") % {"name": name}
        lines = []
        for number in done:
            rnd = s.scalar(
                select(Round).where(Round.league_id == league.id, Round.number == number)
            )
            battles = (
                [
                    b
                    for b in s.scalars(select(Battle).where(Battle.round_id == rnd.id))
                    if b.entry_b_id is not None
                ]
                if rnd is not None
                else []
            )
            reports = 0
            for b in battles:
                reports += len(
                    list(
                        s.scalars(
                            select(OutboxMessage.id).where(
                                OutboxMessage.dedupe_key.in_(
                                    [f"report:{b.id}:0", f"report:{b.id}:1"]
                                )
                            )
                        )
                    )
                )
            stopped = sum(1 for b in battles if b.state == "paused")
            if rnd is not None and rnd.state != "done" and stopped:
                lines.append(
                    _(
                        "Round %(number)s of %(name)s: %(n)s battles stopped at a "
                        "checkpoint; the round goes on when their players are ready or "
                        "their wait is over (or at the next run)."
                    )
                    % {"number": number, "name": name, "n": stopped}
                )
                continue
            lines.append(
                _(
                    "Round %(number)s of %(name)s played: %(battles)s battles, %(reports)s "
                    "reports queued."
                )
                % {"number": number, "name": name, "battles": len(battles), "reports": reports}
            )
        state = s.scalar(select(League.state).where(League.id == league.id))
        if state == "finished":
            lines.append(_("Every round is played: the league is finished."))
        return "\n".join(lines)
