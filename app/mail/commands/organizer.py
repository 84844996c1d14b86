"""The organizers' mail commands: open, close, run, resend.

Each runs only for an address in ``organizers`` whose mail carries the ``organizer_password``
line (and never when that password is empty); a wrong password is counted for the lockout
(``app.mail.protect``). Every command checks its arguments, catches the league layer's errors
(``LeagueError``, ``ValueError``, ``OverflowError``) and answers with a reply that says in words
what was done, or why nothing was done.
"""

from __future__ import annotations

import datetime as dt
import hmac
from typing import Any

from app.mail import protect
from app.mail.commands.context import MailContext, error_text, span, when
from app.mail.commands.registry import N_, command
from app.mail.grammar import Command

ALL = ("all", "全部", "全て", "すべて")
MAX_AHEAD = dt.timedelta(days=3660)  # a deadline at most ~10 years ahead
MAX_EVERY = dt.timedelta(days=366)  # rounds at least once a year


def _svc() -> Any:
    from app.league import service

    return service


def organizer_ok(ctx: MailContext, cmd: Command) -> bool:
    """True for an organizer address with the right password line; otherwise refused with a
    reply, and a wrong password line counts for the lockout."""
    allowed = {a.lower() for a in ctx.settings.organizers}
    pw = ctx.settings.organizer_password
    good = bool(pw) and cmd.password is not None and hmac.compare_digest(cmd.password.encode(), pw.encode())
    if ctx.sender in allowed and good:
        return True
    until = ""
    if cmd.password is not None and not good:
        if protect.count_failure(ctx.s, ctx.settings, ctx.sender, "password:organizer", ctx.now):
            until = protect.lockout_end(ctx.now)  # this failure started the lockout: say so once
    ctx.refuse("not-organizer", "error", code="not-organizer", locked_until=until)
    return False


def _bad_arguments(ctx: MailContext, usage: str, detail: str = "") -> None:
    ctx.refuse("bad-arguments", "error", code="bad-arguments", usage=usage, detail=detail)


def _failed(ctx: MailContext, action: str, league: str, exc: BaseException) -> None:
    ctx.refuse(getattr(exc, "code", "league-error"), "error", code="organizer-failed",
               action=action, league=league, detail=error_text(exc))


def _target(ctx: MailContext, cmd: Command, *, states: tuple[str, ...] | None = None) -> Any | None:
    """The league named by the first argument, else by the plus address / tag, else the only
    league in one of ``states`` (``None``: open leagues); sets an error reply and returns
    ``None`` when it cannot be chosen."""
    svc = _svc()
    if cmd.args:
        league = svc.find_league(ctx.s, cmd.args[0])
        if league is None:
            ctx.refuse("no-such-league", "error", code="no-such-league", league=cmd.args[0],
                       open=[lg.name for lg in svc.open_leagues(ctx.s)])
        return league
    if states is None or ctx.plus_names() or cmd.tag:
        return ctx.league(cmd)
    candidates = [lg for lg in svc.all_leagues(ctx.s) if lg.state in states]
    if len(candidates) == 1:
        return candidates[0]
    ctx.refuse("which-league", "error", code="which-league", league="", action=cmd.name,
               open=[lg.name for lg in candidates])
    return None


@command("open", en=("open",), ja=("開設", "募集開始"), organizer=True,
         usage="open NAME [DEADLINE] [EVERY] [format=NAME KEY=VALUE…]",
         help_en=N_("create a league"))
def cmd_open(ctx: MailContext, cmd: Command) -> None:
    if not organizer_ok(ctx, cmd):
        return
    svc = _svc()
    from app.league.timeparse import parse_duration, parse_instant

    usage = "open NAME [DEADLINE] [EVERY] [format=NAME] [KEY=VALUE ...]"
    args = [a for a in cmd.args if "=" not in a]
    options = dict(a.split("=", 1) for a in cmd.args if "=" in a)
    fmt_name = options.pop("format", "")
    if not args or len(args) > 3:
        _bad_arguments(ctx, usage)
        return
    try:
        deadline = parse_instant(args[1], ctx.now) if len(args) > 1 else \
            ctx.now + dt.timedelta(days=7)
        if deadline > ctx.now + MAX_AHEAD:
            raise ValueError(f"the deadline {args[1]!r} is more than 10 years ahead")
        every = parse_duration(args[2]) if len(args) > 2 else None
        if every is not None and every > MAX_EVERY:
            raise ValueError(f"the interval {args[2]!r} is longer than a year")
        if options and not fmt_name:
            raise ValueError("format options need format=NAME")
    except (ValueError, OverflowError) as exc:
        _bad_arguments(ctx, usage, error_text(exc))
        return
    try:
        with ctx.s.begin_nested():
            league = svc.create_league(ctx.s, args[0], entry_deadline=deadline,
                                       rounds_every=every, now=ctx.now)
            if fmt_name:  # the format checks its options (swiss rounds=5, hill size=20, …)
                from app.league.formats import set_format

                set_format(league, fmt_name, options)
    except (ValueError, OverflowError, svc.LeagueError) as exc:
        _failed(ctx, "open", args[0], exc)
        return
    _ = ctx.gettext
    until = when(league.entry_deadline) if league.entry_deadline is not None else \
        _("none (always open)")
    if every is None:
        rounds = _("rounds are played when you run them.")
    else:
        rounds = _("a round every %(span)s.") % {"span": span(every, ctx.lang)}
    ctx.reply("organizer", action="open", league=league.name, summary=_(
        "League %(name)s opened: entries until %(until)s; %(rounds)s")
        % {"name": league.name, "until": until, "rounds": rounds})


@command("close", en=("close",), ja=("締切", "締め切り", "受付終了"), organizer=True,
         usage="close [NAME]", help_en=N_("close entries"))
def cmd_close(ctx: MailContext, cmd: Command) -> None:
    if not organizer_ok(ctx, cmd):
        return
    svc = _svc()
    if len(cmd.args) > 1:
        _bad_arguments(ctx, "close [NAME]")
        return
    league = _target(ctx, cmd)
    if league is None:
        return
    try:
        with ctx.s.begin_nested():
            from app.mail.league_mail import LeagueMail

            svc.close_entries(ctx.s, league, now=ctx.now, mail=LeagueMail.of(ctx.settings))
    except (ValueError, OverflowError, svc.LeagueError) as exc:
        _failed(ctx, "close", league.name, exc)
        return
    ctx.s.refresh(league)
    players = len([e for e in league.entries if e.seat is not None and e.status == "active"])
    rounds = list(league.rounds)
    _ = ctx.gettext
    if not rounds:
        summary = _("Entries of %(name)s closed: %(players)s player(s), too few for a battle; "
                    "the league is finished.") % {"name": league.name, "players": players}
    else:
        first = rounds[0].scheduled_at
        at = (_("round 1 at %(when)s") % {"when": when(first)} if first
              else _("round 1 when you run it"))
        from app.reports.i18n import LANGS, translations

        ngettext = translations(ctx.lang if ctx.lang in LANGS else LANGS[0]).ngettext
        summary = _("Entries of %(name)s closed: %(players)s, %(rounds)s; %(at)s.") % {
            "name": league.name, "at": at,
            "players": ngettext("%(n)s player", "%(n)s players", players) % {"n": players},
            "rounds": ngettext("%(n)s round", "%(n)s rounds", len(rounds)) % {"n": len(rounds)}}
    ctx.reply("organizer", action="close", league=league.name, summary=summary)


@command("run", en=("run",), ja=("実行", "対戦実行"), organizer=True, usage="run [NAME] [all]",
         help_en=N_("play the next round (or all)"))
def cmd_run(ctx: MailContext, cmd: Command) -> None:
    if not organizer_ok(ctx, cmd):
        return
    usage = "run [NAME] [all]"
    args = list(cmd.args)
    all_rounds = False
    if args and args[-1] in ALL:
        all_rounds = True
        args.pop()
    if len(args) > 1:
        _bad_arguments(ctx, usage)
        return
    league = _target(ctx, Command(name=cmd.name, args=args, tag=cmd.tag), states=("closed", "running"))
    if league is None:
        return
    # recorded in this mail's transaction; the scheduler plays it and answers (app.mail.requests)
    from app.mail.requests import record

    record(ctx, league, "run", {"all": all_rounds})


@command("resend", en=("resend",), ja=("再送",), organizer=True, usage="resend [NAME] ROUND",
         help_en=N_("queue a round's reports again"))
def cmd_resend(ctx: MailContext, cmd: Command) -> None:
    if not organizer_ok(ctx, cmd):
        return
    usage = "resend [NAME] ROUND"
    if not cmd.args or len(cmd.args) > 2 or not cmd.args[-1].isdigit() \
            or not 1 <= int(cmd.args[-1]) <= 10_000:
        _bad_arguments(ctx, usage, ctx.gettext("the round is a number from 1"))
        return
    number = int(cmd.args[-1])
    league = _target(ctx, Command(name=cmd.name, args=cmd.args[:-1], tag=cmd.tag),
                     states=("closed", "running", "finished"))
    if league is None:
        return
    from app.mail.requests import record

    record(ctx, league, "resend", {"round": number})
