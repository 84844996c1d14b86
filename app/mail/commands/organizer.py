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
from app.mail.commands.registry import N_, command, vocabulary
from app.mail.grammar import Command, match_command

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
    good = (
        bool(pw)
        and cmd.password is not None
        and hmac.compare_digest(cmd.password.encode(), pw.encode())
    )
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


def arguments(ctx: MailContext, cmd: Command, usage: str) -> Command | None:
    """``cmd`` with its arguments read wherever the command is written: a command in the
    subject takes the arguments of a body line that names the same command too (``open bad`` in
    the subject, ``open bad 2026-12-20 format=swiss`` as the body's first line). Either may
    repeat the other's words and add more (the longer is read); when the two disagree (``open a`` /
    ``open b``) nothing is guessed: the command is refused with the reason and ``None``
    returned."""
    if cmd.source != "subject":
        return cmd
    line = next((ln for ln in (cmd.body or "").split("\n") if ln.strip()), None)
    found = match_command(line, vocabulary()) if line is not None else None
    if found is None or found[0] != cmd.name:
        return cmd
    body_args = found[2]
    short, long_ = sorted((list(cmd.args), list(body_args)), key=len)
    if [a.casefold() for a in long_[: len(short)]] == [a.casefold() for a in short]:
        args = long_  # one repeats the other, maybe with more: the longer says it all
    else:
        _bad_arguments(
            ctx,
            usage,
            ctx.gettext(
                'the subject says "%(subject)s" and the body "%(body)s"; write the command once'
            )
            % {
                "subject": " ".join([cmd.name, *cmd.args]),
                "body": " ".join([cmd.name, *body_args]),
            },
        )
        return None
    return Command(
        name=cmd.name,
        args=list(args),
        source=cmd.source,
        lang=cmd.lang,
        body=cmd.body,
        password=cmd.password,
        tag=cmd.tag,
        key=cmd.key,
        display_name=cmd.display_name,
    )


def _option_value(text: str) -> Any:
    """A ruleset option's value as written in a mail: a TOML value when it reads as one
    (``12``, ``true``, ``["斬", "衝"]``), else the text itself (``between-rounds``)."""
    import tomllib

    try:
        return tomllib.loads(f"v = {text}")["v"]
    except tomllib.TOMLDecodeError:
        return text.strip()


def split_options(
    words: list[str],
) -> tuple[str | None, str | None, dict[str, Any], dict[str, Any]]:
    """``KEY=VALUE`` words of ``open`` as ``(format, ruleset, format options, ruleset
    options)``: ``format=`` and ``ruleset=`` name them; any other key is the format's when the
    format (given, else the default) takes it, else the ruleset's. Raises ``ValueError`` naming
    the word for an empty key or value, a key given twice, an unknown format or ruleset, a
    value the format or the ruleset refuses, a required format option missing, and a key that
    neither the format nor the ruleset takes (both lists of known options named)."""
    from app.formats import DEFAULT_FORMAT, find_format
    from app.rules import find_ruleset
    from app.rules import ruleset as ruleset_door

    pairs: dict[str, str] = {}
    for word in words:
        key, _, value = word.partition("=")
        key = key.strip().lower().replace("-", "_")
        if not key or not value.strip():
            raise ValueError(f"{word!r} is not KEY=VALUE")
        if key in pairs:
            raise ValueError(f"{key!r} is given twice")
        pairs[key] = value.strip()
    fmt_name = pairs.pop("format", None)
    rs_name = pairs.pop("ruleset", None)
    fmt_cls = find_format(fmt_name or DEFAULT_FORMAT)  # ValueError: unknown format (names known)
    rs_cls = find_ruleset(rs_name) if rs_name else None  # ValueError: unknown ruleset
    known = {o.name for o in fmt_cls.option_specs}
    fmt_opts = {k: v for k, v in pairs.items() if k in known}
    rs_opts = {k: _option_value(v) for k, v in pairs.items() if k not in known}
    if rs_opts:
        try:
            ruleset_door(rs_cls.name if rs_cls else None, rs_opts)
        except (ValueError, TypeError) as exc:
            unknown = sorted(rs_opts)
            raise ValueError(
                f"{exc} (format {fmt_cls.name} takes: "
                f"{', '.join(sorted(known)) or 'no options'}; "
                f"options asked for: {', '.join(unknown)})"
            ) from exc
    fmt_cls({**fmt_opts, "seed": ""})  # ValueError naming a bad or missing option
    return fmt_name, rs_name, fmt_opts, rs_opts


def settings_lines(ctx: MailContext, league: Any) -> list[str]:
    """What a league was set up with, one line each in the reply's language: the format as it
    describes itself with its options (rounds, points, size…), the ruleset with its options
    (``Ruleset.describe``), the entry deadline and how rounds are played."""
    from app.league.formats import describe, league_rules

    _ = ctx.gettext
    lang = ctx.lang if ctx.lang in ("ja", "en") else "en"
    lines = [_("Format: %(text)s") % {"text": line} for line in describe(league, lang)[:1]]
    lines += ["  " + line for line in describe(league, lang)[1:]]
    rules = league_rules(league).describe(lang)
    lines += [_("Ruleset: %(text)s") % {"text": rules[0]}] + ["  " + line for line in rules[1:]]
    until = (
        when(league.entry_deadline)
        if league.entry_deadline is not None
        else _("none (always open)")
    )
    lines.append(_("Entries until: %(until)s") % {"until": until})
    if league.rounds_every_s is None:
        lines.append(_("Rounds: played when you run them"))
    else:
        lines.append(
            _("Rounds: one every %(span)s")
            % {"span": span(dt.timedelta(seconds=league.rounds_every_s), ctx.lang)}
        )
    return lines


def _failed(ctx: MailContext, action: str, league: str, exc: BaseException) -> None:
    ctx.refuse(
        getattr(exc, "code", "league-error"),
        "error",
        code="organizer-failed",
        action=action,
        league=league,
        detail=error_text(exc),
    )


def _target(ctx: MailContext, cmd: Command, *, states: tuple[str, ...] | None = None) -> Any | None:
    """The league named by the first argument, else by the plus address / tag, else the only
    league in one of ``states`` (``None``: open leagues); sets an error reply and returns
    ``None`` when it cannot be chosen."""
    svc = _svc()
    if cmd.args:
        league = svc.find_league(ctx.s, cmd.args[0])
        if league is None:
            ctx.refuse(
                "no-such-league",
                "error",
                code="no-such-league",
                league=cmd.args[0],
                open=[lg.name for lg in svc.open_leagues(ctx.s)],
            )
        return league
    if states is None or ctx.plus_names() or cmd.tag:
        return ctx.league(cmd)
    candidates = [lg for lg in svc.all_leagues(ctx.s) if lg.state in states]
    if len(candidates) == 1:
        return candidates[0]
    ctx.refuse(
        "which-league",
        "error",
        code="which-league",
        league="",
        action=cmd.name,
        open=[lg.name for lg in candidates],
    )
    return None


@command(
    "open",
    en=("open",),
    ja=("開設", "募集開始"),
    organizer=True,
    usage="open NAME [DEADLINE] [EVERY] [format=NAME KEY=VALUE…]",
    help_en=N_("create a league"),
)
def cmd_open(ctx: MailContext, cmd: Command) -> None:
    if not organizer_ok(ctx, cmd):
        return
    svc = _svc()
    from app.league.timeparse import parse_duration, parse_instant

    usage = "open NAME [DEADLINE] [EVERY] [format=NAME] [ruleset=NAME] [KEY=VALUE ...]"
    parsed = arguments(ctx, cmd, usage)
    if parsed is None:
        return
    args = [a for a in parsed.args if "=" not in a]
    if not args:
        _bad_arguments(ctx, usage)
        return
    if len(args) > 3:
        _bad_arguments(
            ctx,
            usage,
            ctx.gettext("words not understood: %(words)s") % {"words": " ".join(args[3:])},
        )
        return
    try:
        deadline = (
            parse_instant(args[1], ctx.now) if len(args) > 1 else ctx.now + dt.timedelta(days=7)
        )
        if deadline > ctx.now + MAX_AHEAD:
            raise ValueError(f"the deadline {args[1]!r} is more than 10 years ahead")
        every = parse_duration(args[2]) if len(args) > 2 else None
        if every is not None and every > MAX_EVERY:
            raise ValueError(f"the interval {args[2]!r} is longer than a year")
        fmt_name, rs_name, fmt_opts, rs_opts = split_options([a for a in parsed.args if "=" in a])
    except (ValueError, OverflowError) as exc:
        _bad_arguments(ctx, usage, error_text(exc))
        return
    try:
        with ctx.s.begin_nested():
            # the format checks its options (swiss rounds=5, hill size=20, …), the ruleset its own
            league = svc.create_league(
                ctx.s,
                args[0],
                entry_deadline=deadline,
                rounds_every=every,
                now=ctx.now,
                ruleset=rs_name,
                options=rs_opts or None,
                format=fmt_name,
                format_options=fmt_opts or None,
            )
    except (ValueError, OverflowError, svc.LeagueError) as exc:
        _failed(ctx, "open", args[0], exc)
        return
    _ = ctx.gettext
    ctx.reply(
        "organizer",
        action="open",
        league=league.name,
        summary="\n".join(
            [_("League %(name)s opened.") % {"name": league.name}, *settings_lines(ctx, league)]
        ),
    )


@command(
    "close",
    en=("close",),
    ja=("締切", "締め切り", "受付終了"),
    organizer=True,
    usage="close [NAME]",
    help_en=N_("close entries"),
)
def cmd_close(ctx: MailContext, cmd: Command) -> None:
    if not organizer_ok(ctx, cmd):
        return
    svc = _svc()
    parsed = arguments(ctx, cmd, "close [NAME]")
    if parsed is None:
        return
    cmd = parsed
    if len(cmd.args) > 1:
        _bad_arguments(
            ctx,
            "close [NAME]",
            ctx.gettext("words not understood: %(words)s") % {"words": " ".join(cmd.args[1:])},
        )
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
        summary = _(
            "Entries of %(name)s closed: %(players)s player(s), too few for a battle; "
            "the league is finished."
        ) % {"name": league.name, "players": players}
    else:
        first = rounds[0].scheduled_at
        at = (
            _("round 1 at %(when)s") % {"when": when(first)}
            if first
            else _("round 1 when you run it")
        )
        from app.reports.i18n import LANGS, translations

        ngettext = translations(ctx.lang if ctx.lang in LANGS else LANGS[0]).ngettext
        summary = _("Entries of %(name)s closed: %(players)s, %(rounds)s; %(at)s.") % {
            "name": league.name,
            "at": at,
            "players": ngettext("%(n)s player", "%(n)s players", players) % {"n": players},
            "rounds": ngettext("%(n)s round", "%(n)s rounds", len(rounds)) % {"n": len(rounds)},
        }
    ctx.reply("organizer", action="close", league=league.name, summary=summary)


@command(
    "run",
    en=("run",),
    ja=("実行", "対戦実行"),
    organizer=True,
    usage="run [NAME] [all]",
    help_en=N_("play the next round (or all)"),
)
def cmd_run(ctx: MailContext, cmd: Command) -> None:
    if not organizer_ok(ctx, cmd):
        return
    usage = "run [NAME] [all]"
    parsed = arguments(ctx, cmd, usage)
    if parsed is None:
        return
    args = list(parsed.args)
    all_rounds = False
    if args and args[-1] in ALL:
        all_rounds = True
        args.pop()
    if len(args) > 1:
        _bad_arguments(
            ctx,
            usage,
            ctx.gettext("words not understood: %(words)s") % {"words": " ".join(args[1:])},
        )
        return
    league = _target(
        ctx, Command(name=cmd.name, args=args, tag=cmd.tag), states=("closed", "running")
    )
    if league is None:
        return
    # recorded in this mail's transaction; the scheduler plays it and answers (app.mail.requests)
    from app.mail.requests import record

    record(ctx, league, "run", {"all": all_rounds})


@command(
    "resend",
    en=("resend",),
    ja=("再送",),
    organizer=True,
    usage="resend [NAME] ROUND",
    help_en=N_("queue a round's reports again"),
)
def cmd_resend(ctx: MailContext, cmd: Command) -> None:
    if not organizer_ok(ctx, cmd):
        return
    usage = "resend [NAME] ROUND"
    parsed = arguments(ctx, cmd, usage)
    if parsed is None:
        return
    cmd = parsed
    if (
        not cmd.args
        or len(cmd.args) > 2
        or not cmd.args[-1].isdigit()
        or not 1 <= int(cmd.args[-1]) <= 10_000
    ):
        _bad_arguments(ctx, usage, ctx.gettext("the round is a number from 1"))
        return
    number = int(cmd.args[-1])
    league = _target(
        ctx,
        Command(name=cmd.name, args=cmd.args[:-1], tag=cmd.tag),
        states=("closed", "running", "finished"),
    )
    if league is None:
        return
    from app.mail.requests import record

    record(ctx, league, "resend", {"round": number})
