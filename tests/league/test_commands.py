"""The organizer CLI through click's CliRunner: every command, with its exit code."""

from __future__ import annotations

from pathlib import Path

import pytest
from sqlalchemy import select

from app.db.models import Battle, Entry, OutboxMessage
from app.db.session import session_factory, transaction
from tests.league.helpers import DEADLINE, enter_players


def test_db_upgrade_and_downgrade(cli) -> None:  # type: ignore[no-untyped-def]
    up = cli("db", "upgrade")
    assert up.exit_code == 0 and "head" in up.output
    down = cli("db", "downgrade", "base", "--yes")
    assert down.exit_code == 0 and "base" in down.output
    assert cli("db", "upgrade").exit_code == 0


def test_league_lifecycle_through_the_cli(cli, db_url: str, tmp_path: Path) -> None:  # type: ignore[no-untyped-def]
    assert cli("league", "list").output.strip() == "no leagues"
    made = cli(
        "league",
        "create",
        "Cup",
        "--entry-deadline",
        "+2d",
        "--points",
        "2/1/0",
        "--rounds-every",
        "48h",
    )
    assert made.exit_code == 0, made.output
    assert "entries until 2026-12-03T12:00Z" in made.output
    assert cli("league", "create", "Cup", "--entry-deadline", "+2d").exit_code == 1  # taken
    enter_players(db_url, "Cup", 3)
    listed = cli("league", "list")
    assert listed.exit_code == 0 and "Cup\topen\t3 entries" in listed.output
    closed = cli("league", "close-entries", "Cup")
    assert closed.exit_code == 0 and "3 rounds scheduled" in closed.output
    shown = cli("league", "show", "Cup")
    assert shown.exit_code == 0
    assert "points: 2/1/0" in shown.output and "seat 1" in shown.output
    assert "round 1 (scheduled, 2026-12-01T12:00Z)" in shown.output and ": bye" in shown.output
    played = cli("league", "run-round", "Cup")
    assert played.exit_code == 0 and "played round 1 of Cup" in played.output
    again = cli("league", "run-round", "Cup", "--round", "1")
    assert again.exit_code == 0 and "nothing to play" in again.output
    html = tmp_path / "out" / "cup.html"
    html.parent.mkdir()
    table = cli("league", "standings", "Cup", "--html", str(html))
    assert table.exit_code == 0 and "standings after round 1 of 3" in table.output
    assert "<th " in html.read_text(encoding="utf-8")  # the standings table
    ja = cli("league", "standings", "Cup", "--lang", "ja")
    assert ja.exit_code == 0 and "順位表" in ja.output
    resent = cli("league", "resend", "Cup", "1")
    assert resent.exit_code == 0 and "queued 5 mails" in resent.output
    assert cli("league", "resend", "Cup", "3").exit_code == 1  # not played yet
    dq = cli("league", "disqualify", "Cup", "p2@example.org")
    assert dq.exit_code == 0
    assert cli("league", "disqualify", "Cup", "ghost@example.org").exit_code == 1
    assert cli("league", "disqualify", "Cup", "not-an-address").exit_code == 2
    rest = cli("league", "run-round", "Cup", "--all")
    assert rest.exit_code == 0 and "played rounds 2, 3 of Cup" in rest.output
    shown = cli("league", "show", "Cup")
    assert "league Cup (finished)" in shown.output and "disqualified" in shown.output
    factory = session_factory(db_url)
    with transaction(factory) as s:
        assert {b.state for b in s.scalars(select(Battle))} == {"done", "void"}
        assert s.scalar(select(Entry).where(Entry.status == "disqualified")) is not None
        assert len(list(s.scalars(select(OutboxMessage)))) > 5
    factory.kw["bind"].dispose()


def test_tick_through_the_cli(cli, db_url: str) -> None:  # type: ignore[no-untyped-def]
    assert (
        cli(
            "league",
            "create",
            "T",
            "--entry-deadline",
            DEADLINE.isoformat(),
            "--rounds-every",
            "1d",
        ).exit_code
        == 0
    )
    enter_players(db_url, "T", 2)
    early = cli("tick")
    assert early.exit_code == 0 and "nothing due" in early.output
    due = cli("tick", now=DEADLINE.isoformat())
    assert due.exit_code == 0
    assert due.output.splitlines() == ["closed entries of T", "played round 1 of T"]
    assert "nothing due" in cli("tick", now=DEADLINE.isoformat()).output


@pytest.mark.parametrize(
    "args",
    [
        ["league", "create", "X", "--entry-deadline", "tomorrow"],
        ["league", "create", "X", "--entry-deadline", "+2d", "--points", "3-1-0"],
        ["league", "create", "X", "--entry-deadline", "+2d", "--rounds-every", "soon"],
        ["league", "create", "X"],
        ["league", "resend", "X", "one"],
    ],
)
def test_bad_arguments_exit_2(cli, args: list[str]) -> None:  # type: ignore[no-untyped-def]
    result = cli(*args)
    assert result.exit_code == 2, result.output


@pytest.mark.parametrize(
    "args",
    [
        ["league", "show", "Nope"],
        ["league", "close-entries", "Nope"],
        ["league", "run-round", "Nope"],
        ["league", "standings", "Nope"],
        ["league", "disqualify", "Nope", "a@example.org"],
        ["league", "resend", "Nope", "1"],
    ],
)
def test_unknown_league_exits_1(cli, args: list[str]) -> None:  # type: ignore[no-untyped-def]
    result = cli(*args)
    assert result.exit_code == 1 and "no league named 'Nope'" in result.output


def test_run_round_before_closing_exits_1(cli, db_url: str) -> None:  # type: ignore[no-untyped-def]
    assert cli("league", "create", "Open", "--entry-deadline", "+1d").exit_code == 0
    result = cli("league", "run-round", "Open")
    assert result.exit_code == 1 and "entries-open" in result.output


def test_show_gives_when_a_done_round_was_played(cli, db_url: str) -> None:  # type: ignore[no-untyped-def]
    assert (
        cli(
            "league", "create", "Early", "--entry-deadline", "+2d", "--rounds-every", "48h"
        ).exit_code
        == 0
    )
    enter_players(db_url, "Early", 3)
    assert cli("league", "close-entries", "Early").exit_code == 0
    shown = cli("league", "show", "Early").output
    assert "round 2 (scheduled, 2026-12-03T12:00Z)" in shown
    # round 2 run by hand long before its time
    assert (
        cli("league", "run-round", "Early", "--all", now="2026-12-01T13:05:07+00:00").exit_code == 0
    )
    shown = cli("league", "show", "Early").output
    assert "round 2 (done, played 2026-12-01T13:05:07Z)" in shown, shown
    assert "round 2 (done, 2026-12-03T12:00Z)" not in shown
