"""The players' mail commands: entry, check, test, withdraw, standings, help, charset, and confirm
(the answer to a confirmation request: ``docs/mail.md``, Entry ownership)."""

from __future__ import annotations

from typing import Any

from sqlalchemy import select

from app.db.models import Entry, League, SheetVersion
from app.league import ownership
from app.mail import protect
from app.mail.commands.confirmation import request_confirmation
from app.mail.commands.context import MAX_PROBLEMS, MailContext, when
from app.mail.commands.registry import N_, REGISTRY, command
from app.mail.grammar import Command
from app.mail.sheets import (
    other_ruleset,
    reading_ruleset,
    rules,
    sample_units,
    split_orders,
    split_sheets_at,
)
from app.mail.storable import name_problem, visible

#: the longest unit name taken (characters)
UNIT_NAME_MAX = 100


def _svc() -> Any:
    from app.league import service

    return service


# ---------------------------------------------------------------------------------------------
# sheets in replies


def _entry(result: Any) -> Any:
    """The parsed entry of a sheet (``Sheet.entry``), ``None`` when it has an error."""
    return getattr(result, "entry", None)


def _name_issue(ctx: MailContext, result: Any, text: str) -> str:
    """Why the unit's name cannot be shown to others (invisible characters, too long), in the
    reply's words, or ``""``."""
    entry = _entry(result)
    if entry is None:
        return ""
    name = getattr(result, "name", "") or ctx.rs.label(entry)
    problem = name_problem(name, limit=UNIT_NAME_MAX)
    if problem is None:
        return ""
    line = next((n for n, ln in enumerate(text.split("\n"), start=1) if ctx.rs.starts_sheet(ln)), 1)
    shown = visible(name)[:120]
    _ = ctx.gettext
    if problem == "invisible":
        return _(
            'line %(line)s: the unit name "%(name)s" holds an invisible character (a control, '
            "bidi or zero-width character, shown as <U+…>): other players could see it "
            "differently, so it cannot be used.\n  Fix: remove that character."
        ) % {"line": line, "name": shown}
    return _(
        "line %(line)s: the unit name has %(n)s characters; at most %(max)s are allowed.\n"
        "  Fix: shorten it."
    ) % {"line": line, "n": len(name), "max": UNIT_NAME_MAX}


def problems_text(ctx: MailContext, problems: list[Any], text: str) -> str:
    """The sheet's problems in words (``format_problems``; at most :data:`MAX_PROBLEMS`, the rest
    counted), followed by a hint on the ``-- `` signature line when an ``unknown-line`` error
    stands below the unit line of ``text`` (a sign-off such as "Thanks, / Bob"; rules §1.3)."""
    shown = problems[:MAX_PROBLEMS]
    out = ctx.rs.format_problems(shown, ctx.lang)
    if len(problems) > MAX_PROBLEMS:
        more = len(problems) - MAX_PROBLEMS
        out += "\n\n" + ctx.gettext(
            "(%(more)s more problem(s) not shown: fix these and send the sheet again)"
        ) % {"more": more}
    unit = next(
        (n for n, line in enumerate(text.split("\n"), start=1) if ctx.rs.starts_sheet(line)), None
    )
    if unit is not None and any(
        getattr(p, "code", "") == "unknown-line" and (p.line or 0) > unit for p in problems
    ):
        out += "\n\n" + ctx.gettext(
            'Hint: closing remarks ("Thanks," and your name) go below a signature line "-- " '
            "(two hyphens and a space, alone on a line) after the sheet; nothing below that line "
            "is read."
        )
    return out


def sheet_context(
    ctx: MailContext, result: Any, text: str = "", league: Any = None
) -> dict[str, Any]:
    """The template variables of a checked sheet: ``ok``, ``normalized``, ``costs``,
    ``problems``, ``warnings``, ``ruleset`` (the title of the ruleset that read it), and
    ``wrong_ruleset`` (the title of the game the sheet is written in when it is not ``league``'s:
    ``app.mail.sheets.other_ruleset``, ``""`` otherwise) with ``example`` (a sheet of the
    league's game, ``Ruleset.example_sheet``). A unit name others could not read right is a
    problem here."""
    r = ctx.rs
    issue = _name_issue(ctx, result, text)
    entry = _entry(result)
    out: dict[str, Any] = {
        "ok": bool(result.ok and entry is not None and not issue),
        "normalized": "",
        "costs": "",
        "problems": "",
        "warnings": "",
        "ruleset": r.titles.get(ctx.lang, r.name),
        "wrong_ruleset": "",
        "example": "",
    }
    if out["ok"]:
        out["normalized"] = r.format_sheet(entry, ctx.lang)
        out["costs"] = r.format_costs(entry, ctx.lang)
        warnings = list(getattr(result, "warnings", []) or [])
        out["warnings"] = r.format_problems(warnings[:MAX_PROBLEMS], ctx.lang) if warnings else ""
    elif issue and result.ok:
        out["problems"] = issue
    else:
        out["problems"] = problems_text(ctx, list(result.problems), text) + (
            f"\n\n{issue}" if issue else ""
        )
        other = other_ruleset(text, league) if league is not None and text else None
        if other is not None:
            out["wrong_ruleset"] = other.titles.get(ctx.lang, other.name)
            out["example"] = r.example_sheet(ctx.lang)
    return out


# ---------------------------------------------------------------------------------------------
# ownership


def password_ok(ctx: MailContext, league: Any, cmd: Command) -> bool:
    """True when ``league`` needs no password or the mail has the right one; a wrong one is
    counted for the lockout (``app.mail.protect.count_failure``) and answered."""
    import hmac

    if not league.password:
        return True
    if cmd.password is not None and hmac.compare_digest(
        cmd.password.encode(), league.password.encode()
    ):
        return True
    until = ""
    if cmd.password is not None:
        if protect.count_failure(ctx.s, ctx.settings, ctx.sender, "password:league", ctx.now):
            until = protect.lockout_end(ctx.now)  # this failure started the lockout: say so once
    ctx.refuse(
        "password",
        "error",
        code="wrong-password" if cmd.password else "password",
        league=league.name,
        locked_until=until,
    )
    return False


def _proven(ctx: MailContext, entry: Entry, cmd: Command) -> bool:
    """True when the mail proves it comes from ``entry``'s owner: our server's DMARC verdict, or
    the entry's key. A wrong key is counted for the lockout."""
    if ctx.proof == "dmarc":
        return True
    if cmd.key and ownership.key_matches(entry, cmd.key):
        return True
    if cmd.key:
        protect.count_failure(ctx.s, ctx.settings, ctx.sender, "key", ctx.now)
    return False


def _has_sheet(ctx: MailContext, entry: Entry) -> bool:
    return (
        ctx.s.scalar(select(SheetVersion.id).where(SheetVersion.entry_id == entry.id).limit(1))
        is not None
    )


# ---------------------------------------------------------------------------------------------
# commands


def _hill_challenge(ctx: MailContext, league: Any, player: Any) -> dict[str, Any] | None:
    """A hill league fights the entered sheet at once, in this message's transaction
    (``app.league.challenge``): the reply carries the results and the new table."""
    from app.league.challenge import after_entry
    from app.mail.league_mail import LeagueMail

    return after_entry(ctx.s, league, player, now=ctx.now, mail=LeagueMail.of(ctx.settings))


def always_open(league: Any) -> bool:
    """True when ``league``'s format takes entries at any time (``Format.always_open``)."""
    from app.league.formats import format_of

    return bool(format_of(league).always_open)


def kept_unit(ctx: MailContext, entry: Entry | None) -> str:
    """The unit name of ``entry``'s active sheet when the entry is active (what stays entered
    when a new sheet is not accepted), else ``""``."""
    if entry is None or entry.status != "active":
        return ""
    return (
        ctx.s.scalar(
            select(SheetVersion.unit_name).where(
                SheetVersion.entry_id == entry.id, SheetVersion.active
            )
        )
        or ""
    )


def challenges_left(ctx: MailContext, league: Any, entry: Entry | None) -> bool:
    """True when ``entry`` may arrive (be fought at once) again today; else the mail is refused
    with a reply that says the day's limit (``Format.arrivals_per_day``: a hill's
    ``challenges_per_day``) is reached and that the entered unit stays as it was. Always true
    in a league whose format does not fight entries on arrival."""
    from app.league.challenge import arrivals_today

    count, limit = arrivals_today(ctx.s, league, entry, now=ctx.now)
    if limit is None or count < limit:
        return True
    ctx.refuse(
        "challenge-limit",
        "error",
        code="challenge-limit",
        league=league.name,
        limit=limit,
        locked_until=protect.lockout_end(ctx.now),
    )
    return False


@command(
    "entry",
    en=("entry", "enter", "submit", "replace"),
    ja=("登録", "エントリー", "エントリ", "参加", "差し替え", "差替え", "差替"),
    usage="entry / enter / replace",
    help_en=N_("enter (or replace) a sheet; a mail holding only a sheet does the same"),
)
def cmd_entry(ctx: MailContext, cmd: Command) -> None:
    """Enter the sheet; a replacement (or re-opening a withdrawn entry) needs a proof of
    ownership, else it waits for the owner's confirmation. In a league whose ruleset takes
    orders, orders below the sheet are entered with it (both or neither), and a mail of orders
    alone is an orders mail (``app.mail.commands.orders``)."""
    from app.mail.commands import orders as orders_mail
    from app.mail.sheets import looks_like_orders

    svc = _svc()
    if looks_like_orders(cmd.body):
        orders_mail.handle_orders(ctx, cmd)
        return
    if not ctx.sheet_body(cmd).strip():
        ctx.refuse("no-sheet", "error", code="no-sheet")
        return
    league = ctx.league(cmd, mine="entry")
    if league is None or not password_ok(ctx, league, cmd):
        return
    rs = rules(league)
    whole = ctx.sheet_text(cmd, rs)
    text, orders_text = split_orders(whole, rs)
    assert ctx.player is not None
    entry = (
        None
        if ctx.new_player
        else ctx.s.scalar(  # a new player has no entry
            select(Entry).where(Entry.league_id == league.id, Entry.player_id == ctx.player.id)
        )
    )
    before = entry.status if entry is not None else None
    result = ctx.parse(text, rs)
    sheet = sheet_context(ctx, result, text, league)
    orders = (
        orders_mail.orders_context(rs, rs.parse_orders(orders_text), ctx.lang)
        if orders_text.strip()
        else None
    )
    if not sheet["ok"] or (orders is not None and not orders.ok):  # nothing changes
        ctx.reply(
            "entry",
            league=league.name,
            accepted=False,
            replaced=False,
            reopened=False,
            version=None,
            key="",
            orders=orders,
            kept=kept_unit(ctx, entry),
            **sheet,
        )
        return
    if (
        entry is not None
        and before in ("active", "withdrawn")
        and _has_sheet(ctx, entry)
        and not _proven(ctx, entry, cmd)
    ):
        try:
            svc.check_open(league, ctx.now)
        except svc.LeagueError as exc:
            ctx.refuse(exc.code, "error", code=exc.code, league=league.name, detail=str(exc))
            return
        request_confirmation(ctx, entry, league, cmd, "replace", whole)
        return
    if not challenges_left(ctx, league, entry):
        return
    try:
        outcome = svc.submit_entry(
            ctx.s, league, ctx.player, text, inbound_id=ctx.row.id, now=ctx.now, name_default=False
        )  # settle_name names it
    except svc.LeagueError as exc:
        ctx.refuse(exc.code, "error", code=exc.code, league=league.name, detail=str(exc))
        return
    ctx.lang = getattr(outcome.sheet, "lang", None) or ctx.lang
    key = ""
    named: dict[str, Any] = {}
    if outcome.accepted:
        entry = outcome.entry
        assert entry is not None
        key = ownership.ensure_key(entry)
        named = ctx.settle_name(key=key)  # only now: a rejected mail renames nobody
        if orders is not None:
            orders_mail.enter_orders(ctx, league, rs, orders_text)
    hill = _hill_challenge(ctx, league, ctx.player) if outcome.accepted else None
    form = ""
    if outcome.accepted and orders is None and rs.takes_orders and entry is not None:
        from app.league.orders import standing_orders

        if not standing_orders(ctx.s, [entry.id]):  # say how, until they have orders
            form = rs.orders_form(league.name, key, "", ctx.lang)
    ctx.reply(
        "entry",
        league=league.name,
        accepted=outcome.accepted,
        replaced=bool(outcome.replaced and before == "active"),
        reopened=bool(outcome.accepted and before == "withdrawn"),
        version=outcome.version,
        key=key,
        hill=hill,
        orders=orders if outcome.accepted else None,
        orders_form=form,
        **named,
        kept="" if outcome.accepted else kept_unit(ctx, entry),
        **(sheet if outcome.accepted else sheet_context(ctx, outcome.sheet, text, league)),
    )


@command(
    "check",
    en=("check", "validate"),
    ja=("チェック", "確認", "検証"),
    help_en=N_("check a sheet without entering it"),
)
def cmd_check(ctx: MailContext, cmd: Command) -> None:
    """Check the sheet with the ruleset of the league the mail is about (the plus address, the
    tag, the only open league), else with the ruleset its notation is written in."""
    body = ctx.sheet_body(cmd)
    if not body.strip():
        ctx.refuse("no-sheet", "error", code="no-sheet")
        return
    league = ctx.sheet_league(cmd)
    rs = reading_ruleset(body, league)
    text = ctx.sheet_text(cmd, rs)
    ctx.reply("check", **sheet_context(ctx, ctx.parse(text, rs), text, league))


@command(
    "test",
    en=("test battle", "test", "battle"),
    ja=("テストバトル", "対戦テスト", "テスト", "模擬戦"),
    usage="test / battle",
    usage_ja="テスト / 対戦テスト",
    help_en=N_("test battle (two sheets: against each other; one: against the sample units)"),
)
def cmd_test(ctx: MailContext, cmd: Command) -> None:
    from app.reports.battle import render_report

    body = ctx.sheet_body(cmd)
    r = reading_ruleset(body, ctx.sheet_league(cmd)) if body.strip() else rules(None)
    text, orders_text = split_orders(ctx.sheet_text(cmd, r), r)
    sheets = split_sheets_at(text, r) if text.strip() else []
    if not sheets:
        ctx.refuse("no-sheet", "error", code="no-sheet")
        return
    mine = r.parse_orders(orders_text) if orders_text.strip() else None
    if mine is not None:
        from app.mail.commands.orders import orders_context

        fields = orders_context(r, mine, ctx.lang)
        if not mine.ok:
            ctx.reply("test", reports=[], samples=False, bad=[], extra=0, orders=fields)
            return
    parsed = [ctx.parse(t, r) for _first, _last, t in sheets[:2]]
    extra = len(sheets) - 2 if len(sheets) > 2 else 0
    bad = []
    for i, p in enumerate(parsed):
        issue = _name_issue(ctx, p, sheets[i][2])
        if not (p.ok and _entry(p) is not None) or issue:
            problems = problems_text(ctx, list(p.problems), sheets[i][2]) if not p.ok else ""
            bad.append(
                {
                    "which": i,
                    "first": sheets[i][0],
                    "last": sheets[i][1],
                    "single": len(parsed) == 1,
                    "problems": "\n\n".join(x for x in (problems, issue) if x),
                }
            )
    if bad:
        ctx.reply("test", reports=[], samples=False, bad=bad, extra=extra)
        return
    if len(parsed) >= 2:
        opponents = [_entry(parsed[1])]
    else:
        opponents = [
            _entry(res)
            for res in (r.parse_sheet(t) for t in sample_units(r))
            if res.ok and _entry(res) is not None
        ]
    me = _entry(parsed[0])
    texts, htmls, summary = [], [], []
    for other in opponents:
        if mine is not None:  # the sender's orders against an opponent without cards
            from app.rules.base import BattleInputs

            try:
                own = r.orders_for(mine.orders, r.label(other))
            except ValueError:
                own = None
            result = r.fight(me, other, BattleInputs((own, None), 0), log=True)
            report = r.report_for(me, other, result, lang=ctx.lang, side=0)
        else:
            result = r.battle(me, other, log=True)
            report = r.report(me, other, result, lang=ctx.lang)
        title = ctx.gettext("%(a)s vs %(b)s") % {"a": r.label(me), "b": r.label(other)}
        verdict = (
            ctx.gettext("%(unit)s wins") % {"unit": r.label(me if result.winner == 0 else other)}
            if result.winner is not None
            else ctx.gettext("Draw")
        )
        summary.append(
            ctx.gettext("%(title)s: %(verdict)s (turn %(turn)s)")
            % {"title": title, "verdict": verdict, "turn": result.turns}
        )
        texts.append(render_report(report, fmt="text", title=title))
        htmls.append(render_report(report, fmt="html", title=title))
    ctx.out.html = "\n<hr>\n".join(htmls)
    ctx.reply(
        "test",
        reports=texts,
        summary=summary,
        samples=len(parsed) < 2,
        bad=[],
        extra=extra,
        orders=fields if mine is not None else None,
    )


@command(
    "withdraw",
    en=("withdraw",),
    ja=("辞退", "取り消し", "取消し", "取消", "取り下げ"),
    usage_ja="辞退 / 取り消し",
    help_en=N_("withdraw your entry"),
)
def cmd_withdraw(ctx: MailContext, cmd: Command) -> None:
    """Withdraw the sender's entry: at once with a proof of ownership, else after the owner's
    confirmation."""
    svc = _svc()
    league = ctx.league(cmd, mine="withdraw")
    if league is None or not password_ok(ctx, league, cmd):
        return
    assert ctx.player is not None
    entry = ctx.s.scalar(
        select(Entry).where(Entry.league_id == league.id, Entry.player_id == ctx.player.id)
    )
    try:
        svc.check_open(league, ctx.now)
        if entry is None or entry.status != "active":
            raise svc.NotEntered(f"{ctx.player.address} has no entry in {league.name!r}")
        if not _proven(ctx, entry, cmd):
            request_confirmation(ctx, entry, league, cmd, "withdraw", None)
            return
        svc.withdraw(ctx.s, league, ctx.player, now=ctx.now)
    except svc.LeagueError as exc:
        ctx.refuse(exc.code, "error", code=exc.code, league=league.name, detail=str(exc))
        return
    ctx.reply(
        "withdrawn",
        league=league.name,
        key=ownership.ensure_key(entry),
        always_open=always_open(league),
    )


@command(
    "confirm",
    en=("confirm",),
    ja=("承認",),
    usage="confirm TOKEN",
    help_en=N_("(the answer to a confirmation request: just reply to it)"),
    listed=False,
)
def cmd_confirm(ctx: MailContext, cmd: Command) -> None:
    """Apply the pending change the token stands for. Every answer goes to the entry's
    registered address."""
    svc = _svc()
    token = cmd.args[0] if cmd.args else ""
    change = ownership.find_change(ctx.s, token)
    if change is None:
        ctx.refuse(
            "bad-token",
            "confirm",
            code="unknown",
            kind="",
            league="",
            token="",
            expires="",
            deadline="",
            wrong_key=False,
            hours=0,
        )
        return
    entry = ctx.s.get(Entry, change.entry_id)
    assert entry is not None
    league, player = entry.league, entry.player
    ctx.out.to = player.address
    ctx.lang = player.lang if player.lang in ("ja", "en") else ctx.lang
    base = dict(
        kind=change.kind,
        league=league.name,
        token="",
        expires=when(change.expires_at),
        deadline=when(league.entry_deadline),
        wrong_key=False,
        hours=0,
    )
    if change.state != "pending":
        ctx.refuse(f"change-{change.state}", "confirm", code=change.state, **base)
        return
    if ownership.is_expired(change, ctx.now):
        ownership.mark_done(change, "expired", ctx.now)
        ctx.refuse("change-expired", "confirm", code="expired", **base)
        return
    if change.kind == "orders":
        from app.mail.commands.orders import confirm_orders

        confirm_orders(ctx, change, entry, base)
        return
    try:
        svc.check_open(league, ctx.now)
    except svc.LeagueError:
        ownership.mark_done(change, "expired", ctx.now, "entries closed")
        ctx.refuse("change-expired", "confirm", code="closed", **base)
        return
    try:
        if change.kind == "withdraw":
            svc.withdraw(ctx.s, league, player, now=ctx.now)
            ownership.mark_done(change, "done", ctx.now)
            ctx.reply(
                "withdrawn",
                league=league.name,
                key=ownership.ensure_key(entry),
                always_open=always_open(league),
            )
            return
        before = entry.status
        if not challenges_left(ctx, league, entry):
            ownership.mark_done(change, "refused", ctx.now, "challenges per day")
            return
        name_before = player.display_name or ""
        rs = rules(league)
        text, orders_text = split_orders(change.sheet_text or "", rs)
        outcome = svc.submit_entry(
            ctx.s,
            league,
            player,
            text,
            inbound_id=change.inbound_id,
            now=ctx.now,
            name_default=False,
        )  # settle_name names it
        orders = None
        if outcome.accepted and orders_text.strip():  # checked when it came in
            from app.league.orders import submit_orders
            from app.mail.commands.orders import orders_context

            got = submit_orders(
                ctx.s, league, player, orders_text, rs, inbound_id=change.inbound_id, now=ctx.now
            )
            orders = orders_context(rs, got.sheet, ctx.lang)
    except svc.LeagueError as exc:
        ownership.mark_done(change, "refused", ctx.now, str(exc))
        ctx.refuse(exc.code, "error", code=exc.code, league=league.name, detail=str(exc))
        return
    ctx.lang = getattr(outcome.sheet, "lang", None) or ctx.lang
    ownership.mark_done(change, "done" if outcome.accepted else "refused", ctx.now)
    key = ownership.ensure_key(entry)
    named = ctx.settle_name(player, key, name_before) if outcome.accepted else {}
    hill = _hill_challenge(ctx, league, player) if outcome.accepted else None
    ctx.reply(
        "entry",
        league=league.name,
        accepted=outcome.accepted,
        replaced=bool(outcome.replaced and before == "active"),
        reopened=bool(outcome.accepted and before == "withdrawn"),
        version=outcome.version,
        key=key,
        hill=hill,
        orders=orders,
        **named,
        **sheet_context(ctx, outcome.sheet, text),
    )


@command(
    "standings",
    en=("standings",),
    ja=("順位表", "順位", "成績"),
    usage_ja="順位 / 順位表",
    help_en=N_("the current standings"),
)
def cmd_standings(ctx: MailContext, cmd: Command) -> None:
    svc = _svc()
    league = ctx.league(cmd, any_state=True, mine="standings")
    if league is None:
        return
    from app.league.queries import sheets_public

    if not sheets_public(league):
        # secret until entries close, by mail as on the web (issue 12.3): a count, and the
        # entrants' public names only where the organizer lists them; never a unit
        from app.db.models import Player
        from app.league.privacy import public_name

        rows = ctx.s.execute(
            select(Player.display_name, Player.address, Player.id)
            .join(Entry, Entry.player_id == Player.id)
            .where(Entry.league_id == league.id, Entry.status == "active")
            .order_by(Entry.id)
        ).all()
        names = [public_name(n, a, i) for n, a, i in rows] if league.show_entrants else []
        ctx.reply(
            "standings_open",
            league=league.name,
            count=len(rows),
            names=names,
            deadline=when(league.entry_deadline) if league.entry_deadline else "",
        )
        return
    text = svc.render_standings(ctx.s, league, lang=ctx.lang, fmt="text")
    ctx.out.html = svc.render_standings(
        ctx.s, league, lang=ctx.lang, fmt="html", public_url=ctx.settings.public_url
    )
    ctx.reply("standings", league=league.name, standings=text)


def help_lines(lang: str) -> list[tuple[str, str]]:
    """``(usage, what it does)`` of every listed players' command, in registry order."""
    return [
        (c.usage if lang == "en" else c.usage_ja or c.usage, c.help(lang))
        for c in REGISTRY.values()
        if c.listed and not c.organizer
    ]


@command("help", en=("help",), ja=("ヘルプ", "使い方", "説明"), help_en=N_("this text"))
def cmd_help(ctx: MailContext, cmd: Command, *, no_command: bool = False) -> None:
    """The help text (the registry's commands); ``no_command``: led by "no command or sheet
    found" (a chatty mail)."""
    from app.mail.commands import WORDS

    svc = _svc()
    from app.league.formats import format_of
    from app.rules import league_ruleset, ruleset

    # the example is in the game of the league the mail names (plus address or [NAME] tag),
    # else of the sender's leagues, else of the open leagues, when they all play one game
    named = ctx.plus_names() or ([str(cmd.tag)] if cmd.tag else [])
    league = svc.find_league(ctx.s, named[0]) if named else None
    open_now = list(svc.open_leagues(ctx.s))
    if league is not None:
        candidates = [league]
    else:
        mine = (
            list(
                ctx.s.scalars(
                    select(League)
                    .join(Entry, Entry.league_id == League.id)
                    .where(
                        Entry.player_id == ctx.player.id,
                        Entry.status == "active",
                        League.state != "finished",
                    )
                )
            )
            if ctx.player is not None
            else []
        )
        candidates = mine or open_now
    games = {league_ruleset(lg).name: league_ruleset(lg) for lg in candidates}
    game = next(iter(games.values())) if len(games) == 1 else ruleset()
    lang = ctx.lang if ctx.lang in ("ja", "en") else "en"
    about = {
        lg.name: [
            league_ruleset(lg).titles.get(lang, lg.ruleset),
            format_of(lg).titles.get(lang, lg.format),
        ]
        for lg in open_now
    }
    ctx.reply(
        "help",
        words=WORDS,
        commands=help_lines(ctx.lang),
        leagues=[lg.name for lg in open_now],
        about=about,
        example=game.example_sheet(ctx.lang),
        game=game.titles.get(lang, game.name),
        server=ctx.settings.server_address,
        no_command=no_command,
    )


@command(
    "charset",
    en=("charset",),
    ja=("文字コード",),
    usage="charset iso-2022-jp",
    usage_ja="文字コード JIS",
    help_en=N_('send replies in ISO-2022-JP ("charset utf-8" to go back)'),
)
def cmd_charset(ctx: MailContext, cmd: Command) -> None:
    want = (cmd.args[0] if cmd.args else "").lower().replace("_", "-")[:40]
    table = {
        "iso-2022-jp": "iso-2022-jp",
        "jis": "iso-2022-jp",
        "iso2022jp": "iso-2022-jp",
        "utf-8": "utf-8",
        "utf8": "utf-8",
        "unicode": "utf-8",
    }
    if want not in table:
        ctx.refuse("bad-charset", "error", code="bad-charset", value=want)
        return
    assert ctx.player is not None
    ctx.player.charset = table[want]
    ctx.reply("charset", charset=table[want])
