"""The HTML parts of the report and standings mails are mail layouts: inline styles and tables,
no script, no SVG, no stylesheet link, no class for a stylesheet that is not there; the result
on top with the winner marked; user-written names escaped; never an address; a link to the page
when there is one (``public_url``)."""

from __future__ import annotations

import dataclasses
import re
from fractions import Fraction

import pytest

from app.formats.round_robin import RoundRobin
from app.reports.battle import render_battle, render_report
from app.reports.league_battle import LeagueBattleContext, render_league_battle
from app.reports.standings import (
    PairingView,
    StandingLine,
    StandingsContext,
    StandingsTable,
    render_standings_context,
)
from app.rules import DEFAULT_RULESET, find_ruleset
from app.rules.base import BattleReport

HOSTILE = ("<script>alert(1)</script>", '"><img src=x onerror=alert(1)>')
ADDRESS = "secret.player@example.org"
URL = "https://leagues.example.org/amaryllis/leagues/Cup/battles/7"


def _seed() -> tuple[str, str]:
    """The seed's two sheets (グリスク, ヌト): the golden battle of rules §4."""
    from tests.rules.golden_runner import all_goldens, load

    seed = load(next(p for p in all_goldens() if p.stem == "seed_grisk_vs_nut"))
    return seed.sheet_a, seed.sheet_b


GRISK, NUT = _seed()


def assert_mail_html(html: str) -> None:
    """What every HTML mail part must not contain, and the hostile names only as text."""
    low = html.lower()
    assert "<script" not in low and "<svg" not in low and "<link" not in low
    assert "<style" not in low and " class=" not in low and "javascript:" not in low
    assert "<img" not in low and "onerror=alert" not in low.replace("onerror=alert(1)&gt;", "")
    assert ADDRESS not in html
    for name in HOSTILE:
        assert name not in html


def _battle(lang: str) -> tuple[BattleReport, object]:
    rs = find_ruleset(DEFAULT_RULESET)()
    a, b = rs.parse_sheet(GRISK).entry, rs.parse_sheet(NUT).entry
    assert a is not None and b is not None
    result = rs.battle(a, b, log=True)
    report = rs.report(a, b, result, lang=lang)
    # hostile text where a user's words reach the report: the names and the sheets
    report = dataclasses.replace(
        report,
        names={"A": HOSTILE[0], "B": HOSTILE[1]},
        sheets=(HOSTILE[0] + "\n" + report.sheets[0], HOSTILE[1] + "\n" + report.sheets[1]),
    )
    return report, result


def _context(lang: str, **changes: object) -> LeagueBattleContext:
    report, _ = _battle(lang)
    ctx = LeagueBattleContext(
        league="Cup",
        round=3,
        board=2,
        player_a=HOSTILE[0],
        unit_a="グリスク",
        player_b=HOSTILE[1],
        unit_b="ヌト",
        winner="B",
        winner_unit="ヌト",
        reason="death",
        turns=4,
        hp=(-1, 1),
        report=render_report(report),
        engine_version="1",
        engine_note="",
        battle=report,
        url=URL,
    )
    return dataclasses.replace(ctx, **changes)


@pytest.mark.parametrize("lang", ["ja", "en"])
def test_league_battle_html_is_a_mail_layout(lang: str) -> None:
    ctx = _context(lang)
    html = render_league_battle(ctx, lang=lang, fmt="html")
    assert_mail_html(html)
    assert f'<html lang="{lang}">' in html and 'style="' in html
    assert "&lt;script&gt;alert(1)&lt;/script&gt;" in html
    assert "&#34;&gt;&lt;img src=x onerror=alert(1)&gt;" in html
    # the result comes first, the winner (B) is marked in the heading and on its sheet
    assert html.index("&#9733; ヌト") < html.index(ctx.battle.sheets[0].splitlines()[1][:6])
    assert html.count("&#9733;") >= 3
    # both sheets side by side: one row of two half-width cells
    assert len(re.findall(r'<td width="50%" valign="top"', html)) == 2
    # every turn, with a state table and an HP bar per fighter and turn
    assert ctx.battle is not None
    for t in ctx.battle.turns:
        assert (f"Turn {t.turn}" if lang == "en" else f"第{t.turn}ターン") in html
    bars = len(
        re.findall(
            r'<table role="presentation" cellpadding="0" cellspacing="0" border="0" width="120"',
            html,
        )
    )
    assert bars == sum(len(side) for t in ctx.battle.turns for side in t.states)
    assert f'href="{URL}"' in html


@pytest.mark.parametrize("lang", ["ja", "en"])
@pytest.mark.parametrize("reason", ["death", "overkill", "hp", "draw"])
def test_hostile_unit_names_stay_text_in_every_verdict(lang: str, reason: str) -> None:
    """A unit name reaches the verdict, the reason and the heading: escaped in each (the words
    of the text part are not reused as macros: those would come back unescaped, marked safe)."""
    winner = "" if reason == "draw" else "A"
    ctx = _context(
        lang,
        unit_a=HOSTILE[0],
        unit_b=HOSTILE[1],
        winner=winner,
        winner_unit=HOSTILE[0] if winner else "",
        reason=reason,
    )
    html = render_league_battle(ctx, lang=lang, fmt="html")
    assert_mail_html(html)
    assert html.count("&lt;script&gt;alert(1)&lt;/script&gt;") >= (4 if winner else 3)


@pytest.mark.parametrize("lang", ["ja", "en"])
def test_league_battle_html_without_link_log_or_report(lang: str) -> None:
    html = render_league_battle(_context(lang, url=""), lang=lang, fmt="html")
    assert "href=" not in html
    note = render_league_battle(
        _context(lang, battle=None, report="", engine_note="<b>old</b>"), lang=lang, fmt="html"
    )
    assert_mail_html(note)
    assert "&lt;b&gt;old&lt;/b&gt;" in note and "<pre" not in note
    text_only = render_league_battle(_context(lang, battle=None), lang=lang, fmt="html")
    assert_mail_html(text_only)
    assert "<pre" in text_only


@pytest.mark.parametrize("lang", ["ja", "en"])
def test_test_battle_html_is_a_mail_layout(lang: str) -> None:
    report, _ = _battle(lang)
    html = render_report(report, fmt="html", title=HOSTILE[0])
    assert_mail_html(html)
    assert "&lt;script&gt;" in html and "&#9733;" in html
    rs = find_ruleset(DEFAULT_RULESET)()
    a, b = rs.parse_sheet(GRISK).entry, rs.parse_sheet(NUT).entry
    plain = render_battle(a, b, rs.battle(a, b, log=True), lang=lang, fmt="html", sheets=False)
    assert_mail_html(plain)
    assert '<td width="50%" valign="top"' not in plain


def _standings(url: str = "") -> StandingsContext:
    def row(
        rank: int,
        name: str,
        unit: str,
        *,
        shared: bool = False,
        points: int = 4,
        wins: int = 1,
        draws: int = 1,
        losses: int = 0,
        sb: Fraction = Fraction(7, 2),
        margin: int = -3,
    ) -> StandingLine:
        return StandingLine(
            rank=rank,
            shared=shared,
            entry_id=rank,
            player_id=rank,
            name=name,
            unit=unit,
            played=wins + draws + losses,
            wins=wins,
            draws=draws,
            losses=losses,
            byes=1,
            points=Fraction(points),
            values=(Fraction(1), sb, Fraction(margin)),
        )

    fmt = RoundRobin()
    lines = (
        row(1, HOSTILE[0], "グリスク", shared=True),
        row(1, "Bob", HOSTILE[1], shared=True, margin=12),
        row(3, "Cy", "Nut", points=0, wins=0, draws=0, losses=2, sb=Fraction(0)),
    )
    return StandingsContext(
        league="Cup",
        state="running",
        after_round=2,
        rounds_total=5,
        points="3/1/0",
        table=StandingsTable(fmt.name, fmt.view, fmt.primary_column(), fmt.columns(), lines),
        next_round=3,
        next_round_at="2026-12-05 12:00 UTC",
        next_pairings=[
            PairingView(1, HOSTILE[0], "グリスク", "Bob", HOSTILE[1]),
            PairingView(2, "Cy", "Nut", None, None),
        ],
        disqualified=[HOSTILE[1]],
        url=url,
    )


@pytest.mark.parametrize("lang", ["ja", "en"])
def test_standings_html_is_a_mail_layout(lang: str) -> None:
    link = "https://leagues.example.org/leagues/Cup"
    html = render_standings_context(_standings(link), lang=lang, fmt="html")
    assert_mail_html(html)
    assert f'href="{link}"' in html
    # rank, points and every tiebreak column, with each row's values
    heads = ["Pts", "H2H", "SB", "HP"] if lang == "en" else ["点", "直接", "SB", "HP差"]
    for head in heads:
        assert f">{head}</th>" in html, head
    cells = re.findall(r"<tr style=\"background:[^\"]+\">(.*?)</tr>", html, re.S)
    assert len(cells) == 3
    first = re.findall(r"<td[^>]*>(.*?)</td>", cells[0])
    assert first == [
        "1=",
        "&lt;script&gt;alert(1)&lt;/script&gt;",
        "グリスク",
        "4",
        "2",
        "1",
        "1",
        "0",
        "1",
        "1",
        "3.5",
        "-3",
    ]
    assert re.findall(r"<td[^>]*>(.*?)</td>", cells[1])[-1] == "+12"
    # the next round's boards, the bye, the disqualified player
    assert html.count("2026-12-05 12:00 UTC") == 1
    assert ("bye" if lang == "en" else "不戦") in html
    assert "href=" not in render_standings_context(_standings(), lang=lang, fmt="html")


@pytest.mark.parametrize("lang", ["ja", "en"])
def test_cancelled_standings_html(lang: str) -> None:
    full = _standings()
    ctx = dataclasses.replace(
        full,
        state="finished",
        after_round=0,
        rounds_total=0,
        table=dataclasses.replace(full.table, lines=full.rows[:1]),
        next_round=None,
        next_pairings=[],
    )
    html = render_standings_context(ctx, lang=lang, fmt="html")
    assert_mail_html(html)
    assert "<th" not in html and "グリスク" in html
