"""The battle report mail of a league round: a header (league, round, board, both players, the
result and why, an engine note) around the battle report of
``app.reports.battle.render_battle`` (both sheets and the turn-by-turn log, rules §3).

The body is the same for both players of a battle (in each one's language), so it is built once
per language (see ``app.mail.outbox``). Templates:
``templates/reports/league_battle.{txt,html}`` (words shared by both in ``reports/_league_battle.txt``).
"""

from __future__ import annotations

from dataclasses import dataclass

from app.reports import i18n
from app.reports.render import render
from app.rules.base import BattleReport


@dataclass(frozen=True, slots=True)
class LeagueBattleContext:
    """Everything the ``league_battle`` templates may use.

    Attributes:
        league: the league name.
        round: the round number (1-based); board: the board number in the round.
        player_a, unit_a: side A's player (display name) and unit name.
        player_b, unit_b: side B's player and unit name.
        winner: ``"A"``, ``"B"``, or ``""`` for a draw.
        winner_unit: the winning unit's name, or ``""`` for a draw.
        reason: the engine's reason (``death``, ``overkill``, ``hp``, ``draw``; rules §2.5).
        turns: the last turn played (0-20).
        hp: the final HP of units A and B.
        report: the battle report text (``render_battle``, text format), or ``""`` when the log
            cannot be shown (see ``engine_note``).
        engine_version: the engine version that decided the recorded result.
        decision: a knockout's drawn battle: who goes through and by which stated rule
            (``""`` otherwise).
        engine_note: ``""`` normally; otherwise why the log was recomputed with another engine
            version and whether that reproduced the recorded result.
        battle: the ruleset's :class:`~app.rules.base.BattleReport` of the battle in the mail's
            language, for the HTML part's layout (sheets side by side, per turn the lines and a
            state table with HP bars), or ``None`` (the HTML part then shows ``report`` as text,
            or no log at all when ``report`` is empty too).
        url: the battle's page on the web view (``app.reports.urls.mail_link``, with the
            ``public_url`` setting), or ``""`` for no link.
        ruleset: the league's ruleset name (``League.ruleset``).
        header: the ruleset and its league options, one line each (``Ruleset.describe``);
            empty for an Amaryllis league without options (its mails never printed one).
        finals: each side's final swordmasters in words, present ones first (``Outcome.final``);
            empty for Amaryllis (its one unit's final HP is ``hp``).
        checkpoint: a ruleset with orders and checkpoints: the turn after which the battle
            stopped (the mail is the state so far, to one player), else ``None``.
        until: when a stopped battle goes on (``app.reports.dates.human_time``).
        revision: how the recipient writes a revision from the next turn on (the ruleset's
            words, e.g. ``ORDERS FROM TURN 6 … END``).
        key: the recipient's entry key (a stopped battle's mail goes to its owner only).
        orders: the recipient's rules in force, normalized (``Ruleset.format_orders``), or
            ``""``. **Private**: only in the mail to their owner.
    """

    league: str
    round: int
    board: int
    player_a: str
    unit_a: str
    player_b: str
    unit_b: str
    winner: str
    winner_unit: str
    reason: str
    turns: int
    hp: tuple[int, int]
    report: str
    engine_version: str
    engine_note: str
    battle: BattleReport | None = None
    url: str = ""
    decision: str = ""
    ruleset: str = ""
    header: tuple[str, ...] = ()
    finals: tuple[tuple[str, ...], tuple[str, ...]] = ((), ())
    checkpoint: int | None = None
    until: str = ""
    revision: str = ""
    key: str = ""
    orders: str = ""


def subject(ctx: LeagueBattleContext, lang: str, *, resent: bool = False) -> str:
    """The mail subject, e.g. ``[LEAGUE] 第3回戦：グリスク vs ヌト — ヌトの勝利`` or
    ``[LEAGUE] Round 3: Grisk vs Nut — Nut wins``; ``resent`` (a copy queued again by
    ``league resend``) appends ``（再送）`` / `` (resent)``. The words come from the catalogs."""
    _, pgettext = i18n.gettext(lang), i18n.pgettext(lang)
    verdict = (
        _("%(unit)s wins") % {"unit": ctx.winner_unit}
        if ctx.winner_unit
        else pgettext("a report's subject", "draw")
    )
    if ctx.checkpoint is not None:
        verdict = _("stopped after turn %(turn)s") % {"turn": ctx.checkpoint}
    text = _("[%(league)s] Round %(round)s: %(a)s vs %(b)s — %(verdict)s") % {
        "league": ctx.league,
        "round": ctx.round,
        "a": ctx.unit_a,
        "b": ctx.unit_b,
        "verdict": verdict,
    }
    return text + (resent_mark(lang) if resent else "")


def resent_mark(lang: str) -> str:
    """What a subject of a copy queued again by ``league resend`` ends with: `` (resent)`` /
    ``（再送）``."""
    pgettext = i18n.pgettext(lang)
    return pgettext("appended to the subject of a mail sent again", " (resent)")


def engine_note(recorded: str, current: str, same: bool, lang: str) -> str:
    """Why a report's log was recomputed with engine version ``current`` although the battle
    was fought with ``recorded``, and whether that gave the same result (``same``; when not,
    the log is withheld and the recorded result stands), in ``lang``."""
    _ = i18n.gettext(lang)
    if same:
        return _(
            "this result was recorded with engine version %(recorded)s; the log was "
            "recomputed with engine version %(current)s and gives the same result."
        ) % {"recorded": recorded, "current": current}
    return _(
        "this result was recorded with engine version %(recorded)s; the current engine "
        "version %(current)s gives a different result, so the log cannot be shown. The "
        "recorded result stands."
    ) % {"recorded": recorded, "current": current}


def render_league_battle(ctx: LeagueBattleContext, *, lang: str, fmt: str = "text") -> str:
    """Render the mail body in ``lang`` as ``fmt`` (``text``/``html``). Raises ``ValueError`` for
    an unknown language or format."""
    return render("league_battle", ctx, lang=lang, fmt=fmt)
