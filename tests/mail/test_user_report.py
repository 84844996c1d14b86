"""Bugs found by a user test of the mail interface, each reproduced with inline RFC 5322 text:
sheets whose unit name starts with a command word, line numbers of the mail body, organizer
replies, league addresses, test battles with several sheets, password and re-entry wording,
folded subjects."""

from __future__ import annotations

import email
import email.policy
import re

import pytest
from sqlalchemy import select

from app.mail.commands import parse_command
from app.mail.pipeline import process_pending
from tests.mail.conftest import NOW, entry_key, make_settings, open_league
from tests.mail.test_rules_and_commands import mail_from, outcome, store

GUARD = "- G: Guard"


# ------------------------------------------------------------ 1. a sheet alone is an entry


@pytest.mark.parametrize(
    "unit_line",
    [
        "Test Pilot: 10/1/1/2/G",
        "Check Mate: 10/1/1/2/G",
        "Battle Angel: 10/1/1/2/G",
        "Pass: 10/1/1/2/G",
        "Password: 10/1/1/2/G",
        "Help Desk: 10/1/1/2/G",
    ],
)
@pytest.mark.parametrize("subject", ["", "[春]"])
def test_a_unit_line_is_never_a_command_nor_a_password(unit_line: str, subject: str) -> None:
    body = f"{unit_line}\n{GUARD}\n"
    cmd = parse_command(subject, body)
    assert cmd.name == "entry" and cmd.source == "default"
    assert cmd.password is None
    assert cmd.body.split("\n")[:2] == [unit_line, GUARD]


def test_sheet_only_mails_are_entered(db_url, factory) -> None:
    settings = make_settings(db_url)
    open_league(factory, "春")
    ids = [
        store(factory, mail_from(f"p{i}@example.com", subject, f"{line}\n{GUARD}\n", i))
        for i, (subject, line) in enumerate(
            [
                ("", "Test Pilot: 10/1/1/2/G"),
                ("[春]", "Check Mate: 10/1/1/2/G"),
                ("", "Battle Angel: 10/1/1/2/G"),
                ("[春]", "Pass: 10/1/1/2/G"),
            ]
        )
    ]
    process_pending(settings, factory, now=NOW)
    for rid in ids:
        row, text = outcome(factory, rid)
        assert row.command == "entry" and row.status == "done", (row.command, text)
        assert "is accepted" in text and "No unit line" not in text, text


# ------------------------------------------------------------ 2. line numbers of the mail body


def test_command_and_password_lines_are_blanked_not_removed() -> None:
    cmd = parse_command("", "check\n\nGrisk: 12/1/1/1/A\n")
    assert cmd.name == "check" and cmd.body.split("\n")[2] == "Grisk: 12/1/1/1/A"
    cmd = parse_command("entry", "password: sesame\nGrisk: 10/1/1/2/G\n")
    assert cmd.password == "sesame" and cmd.body.split("\n") == ["", "Grisk: 10/1/1/2/G"]


def test_problem_line_numbers_are_those_of_the_mail(db_url, factory) -> None:
    settings = make_settings(db_url)
    open_league(factory, "spring", password="sesame")
    sheet = "Grisk: 12/1/1/2/G\n- G: Guard\n"
    with_cmd = store(factory, mail_from("a@example.com", "", "check\n\n" + sheet, 1))
    without = store(
        factory, mail_from("b@example.com", "check", "\n\n" + sheet.replace("Grisk", "Nut"), 2)
    )
    entry = store(factory, mail_from("c@example.com", "entry", "password: sesame\n" + sheet, 3))
    process_pending(settings, factory, now=NOW)
    text = outcome(factory, with_cmd)[1]
    assert 'Line 3: "Grisk: 12/1/1/2/G"' in text, text
    assert "greeting" not in text  # a blanked command line is no greeting
    text = outcome(factory, without)[1]
    assert 'Line 3: "Nut: 12/1/1/2/G"' in text and "greeting" not in text, text
    text = outcome(factory, entry)[1]
    assert 'Line 2: "Grisk: 12/1/1/2/G"' in text and "greeting" not in text, text
    quoted = store(
        factory, mail_from("d@example.com", "Re: check", "check\n> old line\n" + sheet, 4)
    )
    process_pending(settings, factory, now=NOW)
    text = outcome(factory, quoted)[1]
    assert 'Line 3: "Grisk: 12/1/1/2/G"' in text and "greeting" not in text, text


# ------------------------------------------------------------ 3. organizer replies


def org(subject: str, n: int, password: str = "orgpw") -> str:
    return mail_from("org@example.com", subject, f"password: {password}\n", n)


def test_organizer_bad_input_always_gets_a_clear_answer(db_url, factory) -> None:
    settings = make_settings(db_url)
    cases = {
        "open winter2 +99999999d": "too far in the future",
        "open winter2 +200000d": "more than 10 years ahead",
        "open winter2 tomorrow": "not a time",
        "open winter2 +2d 99999999999d": "duration too long",
        "open winter2 +2d 400d": "longer than a year",
        "open": "Usage: open NAME",
        "open a b c d": "Usage: open NAME",
        "resend w 99999999999999999999": "Usage: resend",
        "resend w x": "Usage: resend",
        "close nosuch": 'no league called "nosuch"',
        "run nosuch": 'no league called "nosuch"',
        "run a b c": "Usage: run",
    }
    ids = {subject: store(factory, org(subject, i)) for i, subject in enumerate(cases)}
    process_pending(settings, factory, now=NOW)
    for subject, expected in cases.items():
        row, text = outcome(factory, ids[subject])
        assert row.status == "refused" and text is not None, (subject, row.status, row.error)
        assert expected in text, (subject, text)
        assert "Error" not in text and "BadState" not in text, text


def test_organizer_replies_say_what_was_done(db_url, factory) -> None:
    settings = make_settings(db_url)
    opened = store(factory, org("open w +3d 1d", 1))
    process_pending(settings, factory, now=NOW)
    text = outcome(factory, opened)[1]
    for line in (
        "League w opened.",
        "Entries until: 2026-12-02 12:00 UTC",
        "Rounds: one every 1 day",
        "Format: round robin",
        "Ruleset: Amaryllis",
    ):
        assert line in text, (line, text)
    twice = store(factory, org("open W +3d", 2))
    process_pending(settings, factory, now=NOW)
    row, text = outcome(factory, twice)
    assert row.status == "refused" and "exists already" in text and "BadState" not in text, text
    sheet = "P{0}: 10/1/1/2/G\n- G: Guard\n"
    for i in range(3):
        store(factory, mail_from(f"p{i}@example.com", "[w]", sheet.format(i), 10 + i))
    process_pending(settings, factory, now=NOW)
    close = store(factory, org("close w", 20))
    process_pending(settings, factory, now=NOW)
    text = outcome(factory, close)[1]
    assert "Entries of w closed: 3 players, 3 rounds; round 1 at 2026-11-29 12:00 UTC." in text, (
        text
    )
    run = store(factory, org("run w", 21))
    bad_round = store(factory, org("resend w 99", 22))
    resend = store(factory, org("resend w 1", 23))
    process_pending(settings, factory, now=NOW)
    assert outcome(factory, run)[1] is None  # recorded; the scheduler does it and answers
    from app.mail.requests import run_pending

    assert len(run_pending(factory, settings, now=NOW)) == 3
    text = outcome(factory, run)[1]
    assert "Round 1 of w played: 1 battles, 2 reports queued." in text, text
    row, text = outcome(factory, bad_round)
    assert "has no round 99" in text and "BadState" not in text and "Details" not in text, text
    text = outcome(factory, resend)[1]
    assert "Round 1 of w sent again:" in text and "Details" not in text, text


def test_organizer_run_without_a_name_asks_which_league(db_url, factory) -> None:
    from app.db.models import League
    from app.db.session import transaction
    from app.league.service import close_entries, find_league

    settings = make_settings(db_url)
    open_league(factory, "spring")
    with transaction(factory) as s:  # no entries: closing finishes the league at once
        close_entries(s, find_league(s, "spring"), now=NOW)
    open_league(factory, "autumn")
    rid = store(factory, org("run", 1))
    process_pending(settings, factory, now=NOW)
    row, text = outcome(factory, rid)
    assert row.status == "refused" and 'Which league should "run" work on?' in text, text
    assert 'No league is in a state where "run" can work.' in text, text
    with factory() as s:
        assert {lg.name: lg.state for lg in s.scalars(select(League))} == {
            "spring": "finished",
            "autumn": "open",
        }


# ------------------------------------------------------------ 4. real league addresses


def test_replies_give_the_real_plus_address_and_name_unknown_leagues(db_url, factory) -> None:
    settings = make_settings(db_url)
    open_league(factory, "spring")
    open_league(factory, "autumn")
    sheet = "Grisk: 10/1/1/2/G\n- G: Guard\n"
    ids = {
        "help-en": store(factory, mail_from("a@example.com", "help", "", 1)),
        "help-ja": store(factory, mail_from("b@example.com", "ヘルプ", "", 2)),
        "which-en": store(factory, mail_from("c@example.com", "entry", sheet, 3)),
        "which-ja": store(factory, mail_from("d@example.com", "登録", sheet, 4)),
        "tag": store(factory, mail_from("e@example.com", "[winterr] entry", sheet, 5)),
        "tag-case": store(factory, mail_from("f@example.com", "[SPRING] entry", sheet, 6)),
        "plus-case": store(
            factory,
            mail_from("g@example.com", "entry", sheet, 7).replace(
                "To: tourney@localhost", "To: tourney+Autumn@localhost"
            ),
        ),
    }
    process_pending(settings, factory, now=NOW)
    texts = {k: outcome(factory, v)[1] for k, v in ids.items()}
    for key in ("help-en", "help-ja", "which-en", "which-ja"):
        assert "league+" not in texts[key] and "@…" not in texts[key], texts[key]
    assert "write to tourney+NAME@localhost" in texts["help-en"]
    assert "spring: tourney+spring@localhost" in texts["help-en"]
    assert "tourney+リーグ名@localhost" in texts["help-ja"]
    assert "Write to tourney+NAME@localhost" in texts["which-en"]
    assert "autumn (tourney+autumn@localhost)" in texts["which-en"]
    assert "tourney+リーグ名@localhost" in texts["which-ja"]
    row, text = outcome(factory, ids["tag"])
    assert row.rules == ["no-such-league"] and 'There is no league called "winterr"' in text, text
    assert "Which league" not in text and "spring (tourney+spring@localhost)" in text
    assert 'league "spring" is accepted' in texts["tag-case"], texts["tag-case"]
    assert 'league "autumn" is accepted' in texts["plus-case"], texts["plus-case"]


def test_an_unknown_tag_is_named_even_when_one_league_is_open(db_url, factory) -> None:
    settings = make_settings(db_url)
    open_league(factory, "spring")
    rid = store(
        factory, mail_from("a@example.com", "[sprnig] entry", "Grisk: 10/1/1/2/G\n- G: Guard\n", 1)
    )
    process_pending(settings, factory, now=NOW)
    row, text = outcome(factory, rid)
    assert row.status == "refused" and 'no league called "sprnig"' in text, text
    with factory() as s:
        from app.db.models import Entry

        assert s.scalars(select(Entry)).all() == []


# ------------------------------------------------------------ 5. send --once while serve runs


@pytest.mark.parametrize("args", [["send", "--once"], ["send"]])
def test_send_while_another_sender_holds_the_lock_is_one_line(tmp_path, db_url, args) -> None:
    import os
    import subprocess
    import sys

    from app.mail.send import sender_lock
    from tests.mail.conftest import empty_config
    from tests.servers import free_port

    settings = make_settings(db_url, data_dir=tmp_path)
    env = dict(
        os.environ,
        AMARYLLIS_CONFIG=str(empty_config(tmp_path)),
        AMARYLLIS_DATABASE_URL=db_url,
        AMARYLLIS_DATA_DIR=str(tmp_path),
        AMARYLLIS_SMTP_URL=f"smtp://127.0.0.1:{free_port()}",
    )
    with sender_lock(settings):  # what a running `amaryllis serve` holds
        res = subprocess.run(
            [sys.executable, "-m", "app.cli", *args],
            env=env,
            capture_output=True,
            text=True,
            timeout=60,
        )
    assert res.returncode == 1, (res.stdout, res.stderr)
    assert "Traceback" not in res.stderr and len(res.stderr.strip().splitlines()) == 1, res.stderr
    assert "sender.lock" in res.stderr and "another" in res.stderr


# ------------------------------------------------------------ 6. test battles with several sheets


def test_a_bad_second_sheet_is_named_with_the_mails_line_numbers(db_url, factory) -> None:
    settings = make_settings(db_url)
    body = "Grisk: 10/1/1/2/G\n- G: Guard\n\nNut: 10/1/1/2/X\n- X (1): Direkt Attack\n"
    rid = store(factory, mail_from("a@example.com", "test", body, 1))
    process_pending(settings, factory, now=NOW)
    text = outcome(factory, rid)[1]
    assert "No test battle was fought" in text and "it was not entered" not in text, text
    assert "The second sheet (lines 4–5 of your mail) has these problems" in text, text
    assert 'Line 5: "- X (1): Direkt Attack"' in text, text


def test_a_third_sheet_is_not_silently_ignored(db_url, factory) -> None:
    settings = make_settings(db_url)
    body = (
        "テスト\nGrisk: 10/1/1/2/G\n- G: Guard\n"
        "Nut: 10/1/1/2/G\n- G: Guard\n"
        "Mira: 10/1/1/2/G\n- G: Guard\n"
    )
    rid = store(factory, mail_from("a@example.com", "", body, 1))
    process_pending(settings, factory, now=NOW)
    text = outcome(factory, rid)[1]
    assert "Grisk" in text and "Nut" in text, text
    assert "your mail holds 3 sheets; a test battle uses only the first two" in text, text


# ------------------------------------------------------------ 7. password and re-entry wording


def test_wrong_password_and_reentry_after_withdrawal_are_said_so(db_url, factory) -> None:
    settings = make_settings(db_url)
    open_league(factory, "spring", password="sesame")
    sheet = "Grisk: 10/1/1/2/G\n- G: Guard\n"
    steps = [
        ("none", "entry", sheet),
        ("wrong", "entry", "password: sezame\n" + sheet),
        ("wrong-ja", "登録", "パスワード：せさみ\n" + sheet.replace("Grisk", "グリスク")),
        ("first", "entry", "password: sesame\n" + sheet),
        ("replace", "entry", "password: sesame\nkey: {key}\n" + sheet.replace("Grisk", "Grisk2")),
        ("withdraw", "withdraw", "password: sesame\nkey: {key}\n"),
        ("again", "entry", "password: sesame\nkey: {key}\n" + sheet.replace("Grisk", "Grisk3")),
    ]
    texts = {}
    for n, (key, subject, body) in enumerate(steps):
        if "{key}" in body:  # the entry key the acceptance reply gave
            body = body.replace("{key}", entry_key(factory, "a@example.com"))
        rid = store(factory, mail_from("a@example.com", subject, body, n))
        process_pending(settings, factory, now=NOW)
        texts[key] = outcome(factory, rid)[1]
    assert 'League "spring" needs a password: add a line' in texts["none"]
    assert 'The password for league "spring" is wrong' in texts["wrong"], texts["wrong"]
    assert "needs a password" not in texts["wrong"]
    assert "パスワードが違います" in texts["wrong-ja"], texts["wrong-ja"]
    assert 'Your entry for league "spring" is accepted' in texts["first"]
    assert "replacement unit (version 2)" in texts["replace"]
    assert 'Your entry for league "spring" is re-opened' in texts["again"], texts["again"]
    assert "replacement" not in texts["again"]


# ------------------------------------------------------------ 8. folded subjects keep their spaces


@pytest.mark.parametrize("charset", ["utf-8", "iso-2022-jp"])
@pytest.mark.parametrize(
    "subject",
    [
        "[spring] 第1回戦：グリスク vs ヌト — ヌトの勝利",
        "Re: [spring] 第1回戦：グリスク vs ヌト — ヌトの勝利（第4ターン、ヌトのHPが多い）",
        "[spring] Round 1: Grisk vs Nut — Nut wins on turn 4 " + "(a long subject) " * 5,
        "[春] 第12回戦：ミラ　vs  Bolt — 引き分け ✓",
    ],
)
def test_a_folded_subject_parses_back_unchanged(subject: str, charset: str) -> None:
    from app.mail.compose import build_message, to_jis

    msg = build_message(
        sender="tourney@localhost", to="a@example.com", subject=subject, text="x", charset=charset
    )
    raw = msg.as_bytes()
    head = raw.split(b"\n\n", 1)[0]
    assert all(len(line) <= 78 for line in head.split(b"\n")), head  # RFC 5322 §2.1.1
    assert b"Subject:" in head and head.isascii()
    back = email.message_from_bytes(raw, policy=email.policy.default)
    expected = subject
    if charset == "iso-2022-jp" and "✓" not in subject:  # ✓ has no JIS form: sent in UTF-8
        expected = to_jis(subject)  # "—" goes out as JIS X 0208's "―"
    assert back["Subject"] == expected


def test_organizer_opens_a_league_of_another_format_by_mail(db_url, factory) -> None:
    from sqlalchemy import select

    from app.db.models import League

    settings = make_settings(db_url)
    ok = store(factory, org("open sw +3d 1d format=swiss rounds=5", 1))
    hill = store(factory, org("open hill +3d format=hill size=20", 2))
    bad = store(factory, org("open sw2 +3d format=swiss", 3))
    loose = store(factory, org("open sw3 +3d rounds=5", 4))
    process_pending(settings, factory, now=NOW)
    assert "League sw opened" in outcome(factory, ok)[1]
    assert "always open" in outcome(factory, hill)[1]
    row, text = outcome(factory, bad)
    assert row.status == "refused" and "needs option 'rounds'" in text, text
    row, text = outcome(factory, loose)
    assert row.status == "refused" and "format=NAME" in text, text
    with factory() as s:
        got = {lg.name: (lg.format, lg.format_options) for lg in s.scalars(select(League))}
    assert got == {"sw": ("swiss", {"rounds": 5}), "hill": ("hill", {"size": 20})}


def test_a_test_battle_reply_opens_with_one_line_per_battle(db_url, factory) -> None:
    """A test against the sample units answers with every battle's verdict at the top (the
    logs below run to hundreds of lines): one line per sample, each naming both units."""
    from app.mail.sheets import rules, sample_units

    settings = make_settings(db_url)
    body = "Bolt: 10/2/2/2/Spark, Spark\n- Spark (1): Direct Attack\n"
    rid = store(factory, mail_from("a@example.com", "test", body, 1))
    process_pending(settings, factory, now=NOW)
    text = outcome(factory, rid)[1]
    head = text.split("=" * 40, 1)[0]
    lines = [ln.strip() for ln in head.splitlines() if ln.strip().startswith("Bolt vs ")]
    assert len(lines) == len(sample_units(rules(None))), head
    assert all(re.search(r": (.+ wins|Draw) \(turn \d+\)$", ln) for ln in lines), lines
