"""The players' mail preferences and logs by mail: ``mail all|own|none``, ``mail logs
always|request``, ``unsubscribe`` (what a ``List-Unsubscribe`` link sends) and ``logs LEAGUE
[ROUND]`` (the full logs of the sender's own battles of a round; ``docs/mail.md``, Mail
preferences and digests)."""

from __future__ import annotations

import dataclasses
from typing import Any

from sqlalchemy import select

from app.db.models import Battle, Entry, Round
from app.mail.commands.context import MailContext
from app.mail.commands.registry import N_, command
from app.mail.grammar import Command

#: a word of ``mail …`` (after NFKC and lower case) -> the preference it chooses
PREF_WORDS: dict[str, str] = {
    "all": "all",
    "every": "all",
    "everything": "all",
    "全部": "all",
    "すべて": "all",
    "全て": "all",
    "own": "own",
    "mine": "own",
    "自分": "own",
    "自分のみ": "own",
    "none": "none",
    "off": "none",
    "nothing": "none",
    "replies": "none",
    "なし": "none",
    "停止": "none",
    "返信のみ": "none",
}
#: words that say the next word is about logs
LOG_WORDS = frozenset({"logs", "log", "ログ"})
#: a word after ``logs`` -> digests carry the logs (True) or not (False)
LOG_CHOICES: dict[str, bool] = {
    "always": True,
    "on": True,
    "常に": True,
    "毎回": True,
    "request": False,
    "off": False,
    "ask": False,
    "請求時": False,
    "請求": False,
    "依頼時": False,
}


def _player(ctx: MailContext) -> Any:
    assert ctx.player is not None
    return ctx.player


@command(
    "mail",
    en=("mail",),
    ja=("メール設定", "配信設定"),
    usage="mail all|own|none",
    usage_ja="メール設定 全部/自分/なし",
    help_en=N_(
        "what the server mails you: all (reports and standings), own (only your "
        'battles), none (only replies); "mail logs always" puts the logs in '
        "digests"
    ),
)
def cmd_mail(ctx: MailContext, cmd: Command) -> None:
    """Set ``Player.mail_pref`` and/or ``Player.digest_logs`` from the words after the command
    and confirm the setting now; a word it does not know changes nothing and is quoted."""
    player = _player(ctx)
    pref, logs = player.mail_pref or "all", bool(player.digest_logs)
    args = list(cmd.args)
    i = 0
    while i < len(args):
        word = args[i]
        if word in LOG_WORDS:
            choice = args[i + 1] if i + 1 < len(args) else ""
            if choice not in LOG_CHOICES:
                _refuse(ctx, f"{word} {choice}".strip())
                return
            logs = LOG_CHOICES[choice]
            i += 2
            continue
        if word not in PREF_WORDS:
            if _sheet_instead(ctx, cmd):
                return
            _refuse(ctx, word)
            return
        pref = PREF_WORDS[word]
        i += 1
    changed = (pref, logs) != (player.mail_pref or "all", bool(player.digest_logs))
    player.mail_pref, player.digest_logs = pref, logs
    ctx.reply("prefs", pref=pref, logs=logs, changed=changed)


def _sheet_instead(ctx: MailContext, cmd: Command) -> bool:
    """A subject such as "Mail from Alice" above a sheet is no preference: when the word
    after ``mail`` is none of its words, the subject was the command and the body holds a
    unit line, the mail is handled as the entry it is. Returns True when it was."""
    from app.mail.commands.player import cmd_entry
    from app.mail.sheets import starts_sheet

    if cmd.source != "subject" or not any(starts_sheet(line) for line in cmd.body.split("\n")):
        return False
    cmd_entry(ctx, dataclasses.replace(cmd, name="entry", args=[], source="default", lang=None))
    return True


def _refuse(ctx: MailContext, word: str) -> None:
    player = _player(ctx)
    ctx.refuse(
        "bad-mail-pref",
        "prefs",
        pref=player.mail_pref or "all",
        logs=bool(player.digest_logs),
        unknown=word[:60],
    )


@command(
    "unsubscribe",
    en=("unsubscribe",),
    ja=("配信停止",),
    help_en=N_('no more league mail, only replies (same as "mail none")'),
)
def cmd_unsubscribe(ctx: MailContext, cmd: Command) -> None:
    """The ``List-Unsubscribe`` mailto: the quietest choice (``none``), confirmed."""
    player = _player(ctx)
    player.mail_pref = "none"
    ctx.reply("prefs", pref="none", logs=bool(player.digest_logs), changed=True, unsubscribed=True)


@command(
    "logs",
    en=("logs",),
    ja=("ログ請求", "ログ"),
    usage="logs LEAGUE [ROUND]",
    usage_ja="ログ リーグ名 [回]",
    help_en=N_("the full logs of your own battles of a round (default: the last one)"),
)
def cmd_logs(ctx: MailContext, cmd: Command) -> None:
    """Reply with the full log of each of the sender's own battles of a round of a league
    (``logs LEAGUE [ROUND]``; the league may also come from the plus address, the ``[NAME]``
    tag or the sender's entries; the round defaults to the last one played). A ruleset with
    hidden information shows the sender's own private block only."""
    from app.league import service as svc
    from app.league.cast import Board, load_cast
    from app.mail.league_mail import LeagueMail

    args = list(cmd.args)
    number = next((int(a) for a in args if a.isdigit()), None)
    names = [a for a in args if not a.isdigit()]
    league = svc.find_league(ctx.s, names[0]) if names else None
    if league is None:
        if names and not ctx.plus_names() and not cmd.tag:
            ctx.refuse(
                "no-such-league",
                "error",
                code="no-such-league",
                league=names[0][:64],
                open=[lg.name for lg in svc.open_leagues(ctx.s)],
            )
            return
        league = ctx.league(cmd, any_state=True, mine="standings")
        if league is None:
            return
    player = _player(ctx)
    rounds = select(Round).where(Round.league_id == league.id, Round.state == "done")
    rnd = (
        ctx.s.scalar(rounds.where(Round.number == number))
        if number is not None
        else ctx.s.scalar(rounds.order_by(Round.number.desc()).limit(1))
    )
    if rnd is None:
        ctx.reply("logs", league=league.name, round=number or 0, logs=[])
        return
    mine = set(
        ctx.s.scalars(
            select(Entry.id).where(Entry.league_id == league.id, Entry.player_id == player.id)
        )
    )
    battles = (
        [
            Board.of(b)
            for b in ctx.s.scalars(
                select(Battle)
                .where(
                    Battle.round_id == rnd.id,
                    Battle.state == "done",
                    Battle.entry_b_id.is_not(None),
                    Battle.entry_a_id.in_(mine) | Battle.entry_b_id.in_(mine),
                )
                .order_by(Battle.board)
            )
        ]
        if mine
        else []
    )
    logs = []
    if battles:
        cast = load_cast(ctx.s, league)
        mail = LeagueMail.of(ctx.settings)
        for b in battles:
            side = 0 if b.entry_a_id in mine else 1
            logs.append(
                dict(
                    board=str(b.board),
                    title=f"{cast.label(b.sheet_a_id)} vs {cast.label(b.sheet_b_id)}",
                    log=mail.battle_log(cast, b, side, ctx.lang),
                )
            )
    ctx.reply("logs", league=league.name, round=rnd.number, logs=logs)
