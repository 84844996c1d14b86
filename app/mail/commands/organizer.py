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
from app.mail.commands.registry import command
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
    if cmd.password is not None and not good:
        protect.count_failure(ctx.s, ctx.settings, ctx.sender, "password:organizer", ctx.now)
    ctx.refuse("not-organizer", "error", code="not-organizer")
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
         usage="open NAME [DEADLINE] [EVERY]", help_en="create a league", help_ja="リーグを開設する")
def cmd_open(ctx: MailContext, cmd: Command) -> None:
    if not organizer_ok(ctx, cmd):
        return
    svc = _svc()
    from app.league.timeparse import parse_duration, parse_instant

    usage = "open NAME [DEADLINE] [EVERY]"
    if not cmd.args or len(cmd.args) > 3:
        _bad_arguments(ctx, usage)
        return
    try:
        deadline = parse_instant(cmd.args[1], ctx.now) if len(cmd.args) > 1 else \
            ctx.now + dt.timedelta(days=7)
        if deadline > ctx.now + MAX_AHEAD:
            raise ValueError(f"the deadline {cmd.args[1]!r} is more than 10 years ahead")
        every = parse_duration(cmd.args[2]) if len(cmd.args) > 2 else None
        if every is not None and every > MAX_EVERY:
            raise ValueError(f"the interval {cmd.args[2]!r} is longer than a year")
    except (ValueError, OverflowError) as exc:
        _bad_arguments(ctx, usage, error_text(exc))
        return
    try:
        with ctx.s.begin_nested():
            league = svc.create_league(ctx.s, cmd.args[0], entry_deadline=deadline,
                                       rounds_every=every, now=ctx.now)
    except (ValueError, OverflowError, svc.LeagueError) as exc:
        _failed(ctx, "open", cmd.args[0], exc)
        return
    until = when(league.entry_deadline)
    if every is None:
        rounds = ctx.say("対戦は主催者が実行コマンドで行います。", "rounds are played when you run them.")
    else:
        rounds = ctx.say(f"対戦は{span(every, 'ja')}ごと。", f"a round every {span(every, 'en')}.")
    ctx.reply("organizer", action="open", league=league.name, summary=ctx.say(
        f"リーグ {league.name} を開設しました。エントリー締切 {until}、{rounds}",
        f"League {league.name} opened: entries until {until}; {rounds}"))


@command("close", en=("close",), ja=("締切", "締め切り", "受付終了"), organizer=True,
         usage="close [NAME]", help_en="close entries", help_ja="エントリーを締め切る")
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
            svc.close_entries(ctx.s, league, now=ctx.now, settings=ctx.settings)
    except (ValueError, OverflowError, svc.LeagueError) as exc:
        _failed(ctx, "close", league.name, exc)
        return
    ctx.s.refresh(league)
    players = len([e for e in league.entries if e.seat is not None and e.status == "active"])
    rounds = list(league.rounds)
    if not rounds:
        summary = ctx.say(
            f"リーグ {league.name} のエントリーを締め切りました。参加者 {players} 人で対戦がないため、リーグは終了です。",
            f"Entries of {league.name} closed: {players} player(s), too few for a battle; "
            "the league is finished.")
    else:
        first = rounds[0].scheduled_at
        at_ja = f"第1回戦は {when(first)}" if first else "第1回戦は実行コマンドで行います"
        at_en = f"round 1 at {when(first)}" if first else "round 1 when you run it"
        summary = ctx.say(
            f"リーグ {league.name} のエントリーを締め切りました。参加者 {players} 人、全 {len(rounds)} 回戦、{at_ja}。",
            f"Entries of {league.name} closed: {players} players, {len(rounds)} rounds; {at_en}.")
    ctx.reply("organizer", action="close", league=league.name, summary=summary)


@command("run", en=("run",), ja=("実行", "対戦実行"), organizer=True, usage="run [NAME] [all]",
         help_en="play the next round (or all)", help_ja="次の回戦（または全部）を行う")
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
         help_en="queue a round's reports again", help_ja="回戦の対戦報告を再送する")
def cmd_resend(ctx: MailContext, cmd: Command) -> None:
    if not organizer_ok(ctx, cmd):
        return
    usage = "resend [NAME] ROUND"
    if not cmd.args or len(cmd.args) > 2 or not cmd.args[-1].isdigit() \
            or not 1 <= int(cmd.args[-1]) <= 10_000:
        _bad_arguments(ctx, usage, ctx.say("回戦は 1 以上の数で指定してください", "the round is a number from 1"))
        return
    number = int(cmd.args[-1])
    league = _target(ctx, Command(name=cmd.name, args=cmd.args[:-1], tag=cmd.tag),
                     states=("closed", "running", "finished"))
    if league is None:
        return
    from app.mail.requests import record

    record(ctx, league, "resend", {"round": number})
