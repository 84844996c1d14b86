"""Bugs found by the user test: one league's bad data must not stop the others, absurd
settings are refused at creation, and the CLI answers bad input with one line, never a
traceback."""

from __future__ import annotations

import datetime as dt
import logging
from pathlib import Path

import pytest
from click.testing import Result
from sqlalchemy import select
from sqlalchemy.orm import Session, sessionmaker

from app.config import Settings
from app.db.models import League
from app.db.session import session_factory, transaction
from app.league import play
from app.league import service as svc
from app.mail.league_mail import LeagueMail
from tests.league.helpers import DEADLINE, T0, enter_players, fill_league

Factory = sessionmaker[Session]
#: a clock late enough that a stored interval of ~68 years (the largest a 32-bit column holds,
#: as a row from before the range check could have) pushes round 3 past the year 9999
LATE = dt.datetime(9990, 1, 1, tzinfo=dt.timezone.utc)
BAD_EVERY = 2**31 - 1


def _one_line_error(result: Result, code: int) -> None:
    """The command failed with ``code`` and said why without a traceback."""
    assert result.exit_code == code, (result.exit_code, result.output, result.exception)
    assert "Traceback" not in result.output
    assert not isinstance(result.exception, Exception) or isinstance(result.exception, SystemExit)


# --------------------------------------------------------------------------- 1: bad schedules


@pytest.mark.parametrize(
    "args",
    [
        ["--rounds-every", "99999999d"],
        ["--rounds-every", "366d"],
        ["--rounds-every", "59s"],
        ["--entry-deadline", "+3654d"],
        ["--points", "1001/1/0"],
    ],
)
def test_create_refuses_absurd_settings(cli, args: list[str]) -> None:  # type: ignore[no-untyped-def]
    base = {"--entry-deadline": "+1d"}
    opts = dict(base, **dict(zip(args[::2], args[1::2], strict=True)))
    result = cli("league", "create", "big3", *[x for kv in opts.items() for x in kv])
    _one_line_error(result, 1 if args[0] != "--entry-deadline" or "9999" not in args[1] else 2)
    assert "Error:" in result.output
    assert cli("league", "list").output.strip() == "no leagues"


def test_create_accepts_the_bounds(cli) -> None:  # type: ignore[no-untyped-def]
    assert (
        cli(
            "league",
            "create",
            "a",
            "--entry-deadline",
            "+3650d",
            "--rounds-every",
            "1m",
            "--points",
            "1000/1000/1000",
        ).exit_code
        == 0
    )
    assert (
        cli("league", "create", "b", "--entry-deadline", "+1d", "--rounds-every", "365d").exit_code
        == 0
    )


def test_one_leagues_bad_schedule_does_not_stop_tick(
    factory: Factory,
    settings: Settings,
    caplog: pytest.LogCaptureFixture,
    expect_error_log: list[bool],
) -> None:
    fill_league(factory, "big3", 3, rounds_every=dt.timedelta(days=1))
    fill_league(factory, "good", 2, rounds_every=dt.timedelta(days=1))
    with transaction(factory) as s:  # a row written before create_league checked the range
        s.execute(
            League.__table__.update().where(League.name == "big3").values(rounds_every_s=BAD_EVERY)
        )
    with caplog.at_level(logging.ERROR, logger="amaryllis.league"):
        done = svc.tick(factory, LeagueMail.of(settings), now=LATE)
    assert "closed entries of good" in done and "played round 1 of good" in done
    errors = [line for line in done if line.startswith("error in league big3:")]
    assert len(errors) == 1 and "year 9999" in errors[0]
    assert any("big3" in r.getMessage() and r.levelno == logging.ERROR for r in caplog.records)
    with transaction(factory) as s:
        states = dict(s.execute(select(League.name, League.state)).all())
    assert states == {"big3": "open", "good": "finished"}  # big3's step was rolled back


def test_an_unexpected_error_while_playing_is_isolated(
    factory: Factory,
    settings: Settings,
    monkeypatch: pytest.MonkeyPatch,
    expect_error_log: list[bool],
) -> None:
    fill_league(factory, "a", 2, rounds_every=dt.timedelta(days=1))
    fill_league(factory, "b", 2, rounds_every=dt.timedelta(days=1))
    real = play._prepare_rounds

    def broken(factory, settings, league_id, *args, **kwargs):  # type: ignore[no-untyped-def]
        with transaction(factory) as s:
            name = s.get(League, league_id).name  # type: ignore[union-attr]
        if name == "a":
            raise RuntimeError("disk on fire")
        return real(factory, settings, league_id, *args, **kwargs)

    monkeypatch.setattr(play, "_prepare_rounds", broken)
    done = svc.tick(factory, LeagueMail.of(settings), now=DEADLINE)
    assert "played round 1 of b" in done
    assert "error in league a: playing rounds failed: RuntimeError: disk on fire" in done


def test_tick_cli_reports_the_failed_league_and_exits_1(cli, db_url: str, expect_error_log) -> None:  # type: ignore[no-untyped-def]
    assert (
        cli("league", "create", "big3", "--entry-deadline", "+1d", "--rounds-every", "1d").exit_code
        == 0
    )
    assert cli("league", "create", "ok", "--entry-deadline", "+1d").exit_code == 0
    enter_players(db_url, "big3", 3)
    f = session_factory(db_url)
    with transaction(f) as s:
        s.execute(
            League.__table__.update().where(League.name == "big3").values(rounds_every_s=BAD_EVERY)
        )
    f.kw["bind"].dispose()
    closing = cli("league", "close-entries", "big3", now=LATE.isoformat())
    _one_line_error(closing, 1)
    assert "year 9999" in closing.output
    ticked = cli("tick", now=LATE.isoformat())
    _one_line_error(ticked, 1)
    assert "closed entries of ok" in ticked.output
    assert "error in league big3" in ticked.output


# --------------------------------------------------------------------------- 2: no tracebacks


@pytest.mark.parametrize(
    "args",
    [
        [
            "league",
            "create",
            "x",
            "--entry-deadline",
            "+7d",
            "--points",
            "99999999999999999999/1/0",
        ],
        ["league", "create", "x", "--entry-deadline", "+99999999d"],
        ["league", "create", "x", "--entry-deadline", "+1d", "--rounds-every", "99999999999999w"],
        ["league", "create", "x", "--entry-deadline", "99999-01-01"],
    ],
)
def test_overflowing_numbers_are_one_line_errors(cli, args: list[str]) -> None:  # type: ignore[no-untyped-def]
    result = cli(*args)
    assert result.exit_code in (1, 2)
    _one_line_error(result, result.exit_code)
    assert cli("league", "list").output.strip() == "no leagues"


def test_standings_to_an_unwritable_path_fails_before_printing(
    cli,
    db_url: str,  # type: ignore[no-untyped-def]
    tmp_path: Path,
) -> None:
    assert cli("league", "create", "spring", "--entry-deadline", "+1d").exit_code == 0
    result = cli("league", "standings", "spring", "--html", str(tmp_path / "no" / "x.html"))
    _one_line_error(result, 2)
    assert "does not exist" in result.output and "Points:" not in result.output  # nothing printed
    ok = cli("league", "standings", "spring", "--html", str(tmp_path / "x.html"))
    assert ok.exit_code == 0 and (tmp_path / "x.html").read_text(encoding="utf-8")


def test_db_downgrade_unknown_revision_is_one_line(cli) -> None:  # type: ignore[no-untyped-def]
    result = cli("db", "downgrade", "nosuchrev", "--yes")
    _one_line_error(result, 1)
    assert "nosuchrev" in result.output
    _one_line_error(cli("db", "upgrade", "--revision", "nosuchrev"), 1)


def test_db_downgrade_asks_before_dropping_data(cli) -> None:  # type: ignore[no-untyped-def]
    assert cli("league", "create", "keep", "--entry-deadline", "+1d").exit_code == 0
    refused = cli("db", "downgrade", "base", input="n\n")
    assert refused.exit_code == 1 and "Aborted" in refused.output
    assert "keep" in cli("league", "list").output  # nothing dropped
    agreed = cli("db", "downgrade", "base", input="y\n")
    assert agreed.exit_code == 0 and "database at revision base" in agreed.output
    assert cli("db", "upgrade").exit_code == 0
    assert cli("league", "list").output.strip() == "no leagues"


@pytest.mark.parametrize("args", [["tick"], ["league", "create", "x", "--entry-deadline", "+1d"]])
def test_a_bad_clock_variable_is_named(cli, args: list[str]) -> None:  # type: ignore[no-untyped-def]
    result = cli(*args, now="garbage")
    _one_line_error(result, 1)
    assert "AMARYLLIS_NOW" in result.output and "--entry-deadline" not in result.output


# --------------------------------------------------------------------------- 3: league names


@pytest.mark.parametrize("name", ["春", "spring-2026", "Cup_2.0", "ÉtéCup", "リーグ１"])
def test_league_names_of_letters_digits_and_dot_dash_underscore(
    factory: Factory, name: str
) -> None:
    with transaction(factory) as s:
        made = svc.create_league(s, name, entry_deadline=DEADLINE, now=T0)
        assert made.name == name
        assert svc.get_league(s, name.upper()).id == made.id
        assert svc.get_league(s, name.lower()).id == made.id


@pytest.mark.parametrize(
    "name",
    [
        "two words",
        "a[b]",
        "x+y",
        "a@b",
        "a/b",
        "<x>",
        "a,b",
        "",
        "x" * 65,
        "tab\there",
        "a'b",
        "a;b",
        ".",
        "..",
        ".hidden",
        "end.",
        "a..b",
    ],
)
def test_league_names_with_punctuation_are_refused(factory: Factory, name: str) -> None:
    with transaction(factory) as s, pytest.raises(svc.BadState) as err:
        svc.create_league(s, name, entry_deadline=DEADLINE, now=T0)
    assert err.value.code == "bad-name"


def test_league_names_ignore_case(factory: Factory) -> None:
    with transaction(factory) as s:
        svc.create_league(s, "Spring", entry_deadline=DEADLINE, now=T0)
        with pytest.raises(svc.BadState) as err:
            svc.create_league(s, "SPRING", entry_deadline=DEADLINE, now=T0)
        assert err.value.code == "league-exists" and "'Spring'" in str(err.value)
        svc.create_league(s, "Straße", entry_deadline=DEADLINE, now=T0)
        assert svc.get_league(s, "STRASSE").name == "Straße"  # Unicode case folding
        assert svc.find_league(s, "spring").name == "Spring"  # type: ignore[union-attr]
        assert svc.find_league(s, "autumn") is None
        with pytest.raises(svc.BadState) as err:  # full width is the same name (NFKC)
            svc.create_league(s, "ｓｐｒｉｎｇ", entry_deadline=DEADLINE, now=T0)
        assert err.value.code == "league-exists"


def test_league_names_through_the_cli(cli) -> None:  # type: ignore[no-untyped-def]
    bad = cli("league", "create", "a b", "--entry-deadline", "+1d")
    _one_line_error(bad, 1)
    assert "bad-name" in bad.output
    assert cli("league", "create", "Spring", "--entry-deadline", "+1d").exit_code == 0
    _one_line_error(cli("league", "create", "spring", "--entry-deadline", "+1d"), 1)
    shown = cli("league", "show", "SPRING")
    assert shown.exit_code == 0 and "league Spring (open)" in shown.output


# --------------------------------------------------------------------------- 5: durations


@pytest.mark.parametrize(
    ("seconds", "text"),
    [
        (48 * 3600, "2d"),
        (36 * 3600, "1d 12h"),
        (90 * 60, "1h 30m"),
        (3600, "1h"),
        (1, "1s"),
        (7 * 86400 + 61, "7d 1m 1s"),
        (0, "0s"),
    ],
)
def test_durations_print_in_the_syntax_rounds_every_reads(seconds: int, text: str) -> None:
    from app.league.timeparse import format_duration, parse_duration

    assert format_duration(dt.timedelta(seconds=seconds)) == text
    assert format_duration(seconds) == text
    if seconds:
        assert parse_duration(text) == dt.timedelta(seconds=seconds)


def test_league_show_and_create_print_durations_readably(cli) -> None:  # type: ignore[no-untyped-def]
    made = cli("league", "create", "d", "--entry-deadline", "+1d", "--rounds-every", "36h")
    assert made.exit_code == 0 and "rounds every 1d 12h" in made.output
    shown = cli("league", "show", "d")
    assert "rounds every: 1d 12h;" in shown.output and "day" not in shown.output
    cli("league", "create", "m", "--entry-deadline", "+1d", "--rounds-every", "90m")
    assert "rounds every: 1h 30m;" in cli("league", "show", "m").output


# --------------------------------------------------------------------------- 6: one entry


@pytest.mark.parametrize("lang", ["ja", "en"])
def test_a_league_of_one_mails_the_player_it_did_not_take_place(
    factory: Factory, settings: Settings, lang: str
) -> None:
    import email
    from email import policy

    from app.db.models import OutboxMessage

    fill_league(factory, "solo", 1, langs=(lang,))
    with transaction(factory) as s:
        svc.close_entries(s, svc.get_league(s, "solo"), now=DEADLINE, mail=LeagueMail.of(settings))
    with transaction(factory) as s:
        assert svc.get_league(s, "solo").state == "finished"
        mails = list(s.scalars(select(OutboxMessage)))
        text = svc.render_standings(s, svc.get_league(s, "solo"), lang="en")
        html = svc.render_standings(s, svc.get_league(s, "solo"), lang=lang, fmt="html")
    assert len(mails) == 1 and mails[0].recipient == "p0@example.org"
    msg = email.message_from_bytes(mails[0].raw, policy=policy.default)
    assert msg["In-Reply-To"] == "<sheet-solo-0@example.org>"  # threaded under the entry
    body = msg.get_body(("plain",)).get_content()  # type: ignore[union-attr]
    if lang == "ja":
        assert msg["Subject"] == "[solo] リーグは開催されませんでした（参加者が2名未満）"
        assert "開催されませんでした" in body and "2名以上" in body
    else:
        assert msg["Subject"] == "[solo] The league did not take place (fewer than two entries)"
        assert "did not take place" in body and "at least two" in body
    assert "before round 1" not in text and "did not take place" in text
    assert "Player 0" in text and "<th " not in html  # no standings table
    # no games, so no points rule: nothing left over after the explanation
    for shown in (body, text, html):
        assert "3/1/0" not in shown and "Points" not in shown and "勝ち点" not in shown
    assert body.rstrip().endswith(
        (
            "two. No round was played (entry: Player 0, U0).",
            "対戦は行われていません（エントリー：Player 0（U0））。",
        )
    )
    with transaction(factory) as s:  # closing again is refused: no second mail
        with pytest.raises(svc.BadState):
            svc.close_entries(
                s, svc.get_league(s, "solo"), now=DEADLINE, mail=LeagueMail.of(settings)
            )


def test_a_league_of_none_mails_nobody(factory: Factory, settings: Settings) -> None:
    from app.db.models import OutboxMessage

    fill_league(factory, "empty", 0)
    with transaction(factory) as s:
        svc.close_entries(s, svc.get_league(s, "empty"), now=DEADLINE, mail=LeagueMail.of(settings))
        assert s.scalar(select(OutboxMessage.id)) is None
        text = svc.render_standings(s, svc.get_league(s, "empty"), lang="ja")
    assert "開催されませんでした" in text and "0名" in text and "勝ち点" not in text


def test_standings_cli_of_a_league_of_one(cli, db_url: str) -> None:  # type: ignore[no-untyped-def]
    assert cli("league", "create", "solo", "--entry-deadline", "+1d").exit_code == 0
    enter_players(db_url, "solo", 1)
    assert cli("league", "close-entries", "solo").exit_code == 0
    shown = cli("league", "standings", "solo")
    assert shown.exit_code == 0 and "did not take place" in shown.output
    assert "before round 1" not in shown.output and "Points" not in shown.output
