"""Report templates: every context field is documented, every template renders in both languages
and formats, and an undefined variable fails loudly (StrictUndefined)."""

from __future__ import annotations

import dataclasses
from fractions import Fraction

import pytest
from jinja2 import UndefinedError

from app.formats.round_robin import RoundRobin
from app.reports.league_battle import LeagueBattleContext, render_league_battle, subject
from app.reports.render import environment, render, template_name
from app.reports.standings import (
    PairingView,
    StandingLine,
    StandingsContext,
    StandingsTable,
    render_standings_context,
)


@pytest.mark.parametrize(
    "cls", [StandingsContext, PairingView, LeagueBattleContext, StandingLine, StandingsTable]
)
def test_every_context_field_is_documented(cls: type) -> None:
    doc = cls.__doc__ or ""
    for f in dataclasses.fields(cls):
        assert f.name in doc, f"{cls.__name__}.{f.name} is not documented"


def _standings() -> StandingsContext:
    fmt = RoundRobin()
    row = StandingLine(
        rank=1,
        shared=True,
        entry_id=1,
        player_id=1,
        name="<Ann>",
        unit="グリスク",
        played=2,
        wins=1,
        draws=1,
        losses=0,
        byes=0,
        points=Fraction(4),
        values=(Fraction(1), Fraction(7, 2), Fraction(-3)),
    )
    table = StandingsTable(fmt.name, fmt.view, fmt.primary_column(), fmt.columns(), (row,))
    return StandingsContext(
        league="Cup",
        state="running",
        after_round=2,
        rounds_total=5,
        points="3/1/0",
        table=table,
        next_round=3,
        next_round_at="2026-12-05 12:00 UTC",
        next_pairings=[
            PairingView(1, "<Ann>", "グリスク", "Bob", "ヌト"),
            PairingView(2, "Cy", "Nut", None, None),
        ],
        disqualified=["Dee"],
    )


@pytest.mark.parametrize("lang", ["ja", "en"])
def test_standings_templates_render(lang: str) -> None:
    ctx = _standings()
    text = render_standings_context(ctx, lang=lang, fmt="text")
    html = render_standings_context(ctx, lang=lang, fmt="html")
    assert "1=" in text and "3.5" in text and "-3" in text and "<Ann>" in text
    assert "&lt;Ann&gt;" in html and "<Ann>" not in html
    assert "Dee" in text and "Bob" in text and "2026-12-05 12:00 UTC" in html


@pytest.mark.parametrize("lang", ["ja", "en"])
@pytest.mark.parametrize(
    "side,winner,reason",
    [("A", "グリスク", "death"), ("B", "ヌト", "overkill"), ("B", "ヌト", "hp"), ("", "", "draw")],
)
def test_league_battle_templates_render(lang: str, side: str, winner: str, reason: str) -> None:
    ctx = LeagueBattleContext(
        league="Cup",
        round=3,
        board=2,
        player_a="Ann",
        unit_a="グリスク",
        player_b="Bob",
        unit_b="ヌト",
        winner=side,
        winner_unit=winner,
        reason=reason,
        turns=4,
        hp=(-1, 1),
        report="LOG <here>",
        engine_version="1",
        engine_note="",
    )
    text = render_league_battle(ctx, lang=lang, fmt="text")
    html = render_league_battle(ctx, lang=lang, fmt="html")
    assert "LOG <here>" in text and "LOG &lt;here&gt;" in html
    if winner:
        assert winner in text
    for part in (text, html):  # the final HP named by unit, not in board order alone
        assert (
            "final HP: グリスク -1, ヌト 1" if lang == "en" else "最終ＨＰ：グリスク -1、ヌト 1"
        ) in part
    subj = subject(ctx, lang)
    assert subj.startswith("[Cup] ") and "グリスク vs ヌト" in subj


def test_strict_undefined_and_bad_choices() -> None:
    @dataclasses.dataclass
    class Empty:
        pass

    with pytest.raises(UndefinedError):
        render("standings", Empty(), lang="en")
    with pytest.raises(ValueError):
        template_name("standings", "fr", "text")
    with pytest.raises(ValueError):
        template_name("standings", "en", "pdf")
    with pytest.raises(TypeError):
        render("standings", {"league": "x"}, lang="en")
    assert template_name("standings", "ja", "html") == template_name("standings", "en", "html")
    assert environment().autoescape("reports/x.html") is True  # type: ignore[operator]
    assert environment().autoescape("reports/x.txt") is False  # type: ignore[operator]
