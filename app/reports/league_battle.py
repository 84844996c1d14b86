"""The battle report mail of a league round: a header (league, round, board, both players, the
result and why, an engine note) around the battle report of
``app.reports.battle.render_battle`` (both sheets and the turn-by-turn log, rules §3).

The body is the same for both players of a battle (in each one's language), so it is built once
per language (see ``app.league.outbox``). Templates:
``templates/reports/league_battle.{ja,en}.{txt,html}``.
"""

from __future__ import annotations

from dataclasses import dataclass

from app.reports.render import render


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
        engine_note: ``""`` normally; otherwise why the log was recomputed with another engine
            version and whether that reproduced the recorded result.
        ruleset: the league's ruleset name (``League.ruleset``).
        header: the ruleset and its league options, one line each (``Ruleset.describe``);
            empty for an Amaryllis league without options (its mails never printed one).
        finals: each side's final swordmasters in words, present ones first (``Outcome.final``);
            empty for Amaryllis (its one unit's final HP is ``hp``).
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
    ruleset: str = "amaryllis"
    header: tuple[str, ...] = ()
    finals: tuple[tuple[str, ...], tuple[str, ...]] = ((), ())


def subject(ctx: LeagueBattleContext, lang: str, *, resent: bool = False) -> str:
    """The mail subject, e.g. ``[LEAGUE] 第3回戦：グリスク vs ヌト — ヌトの勝利`` or
    ``[LEAGUE] Round 3: Grisk vs Nut — Nut wins``; ``resent`` (a copy queued again by
    ``league resend``) appends ``（再送）`` / `` (resent)``."""
    if lang == "ja":
        verdict = f"{ctx.winner_unit}の勝利" if ctx.winner_unit else "引き分け"
        return (f"[{ctx.league}] 第{ctx.round}回戦：{ctx.unit_a} vs {ctx.unit_b} — {verdict}"
                + ("（再送）" if resent else ""))
    verdict = f"{ctx.winner_unit} wins" if ctx.winner_unit else "draw"
    return (f"[{ctx.league}] Round {ctx.round}: {ctx.unit_a} vs {ctx.unit_b} — {verdict}"
            + (" (resent)" if resent else ""))


def render_league_battle(ctx: LeagueBattleContext, *, lang: str, fmt: str = "text") -> str:
    """Render the mail body in ``lang`` as ``fmt`` (``text``/``html``). Raises ``ValueError`` for
    an unknown language or format."""
    return render("league_battle", ctx, lang=lang, fmt=fmt)
