"""Protection rules, command parsing, and pipeline decisions (rate limit, ownership, league
password, organizer commands, shunting), with messages written inline as RFC 5322 text."""

from __future__ import annotations

import dataclasses
import email
import email.policy
import re

import pytest
from hypothesis import given
from hypothesis import strategies as st
from sqlalchemy import select

from app.db.models import Entry, InboundMessage, League, OutboxMessage, Player
from app.db.session import transaction
from app.mail.commands import WORDS, match_command, parse_command, strip_subject
from app.mail.inbound import message_key
from app.mail.pipeline import process_pending
from app.mail.protect import check_authentication, check_auto_reply
from app.mail.sheets import split_sheets
from tests.mail.conftest import NOW, make_settings, open_league

BOLT = "Bolt: 10/2/2/2/Spark, Spark\n- Spark (1): Direct Attack\n"


def msg(text: str):
    return email.message_from_string(text, policy=email.policy.default)


@pytest.mark.parametrize(
    ("headers", "rule"),
    [
        ("Return-Path: <>\nFrom: a@b.c\n", "bounce"),
        ("From: MAILER-DAEMON@mx.example.com\n", "bounce"),
        (
            "From: a@b.c\nContent-Type: multipart/report; report-type=delivery-status; boundary=x\n",
            "bounce",
        ),
        ("From: a@b.c\nAuto-Submitted: auto-replied\n", "auto-submitted"),
        ("From: a@b.c\nAuto-Submitted: auto-generated\n", "auto-submitted"),
        ("From: a@b.c\nX-Autoreply: yes\n", "auto-submitted"),
        ("From: a@b.c\nPrecedence: bulk\n", "list"),
        ("From: a@b.c\nPrecedence: junk\n", "list"),
        ("From: a@b.c\nList-Id: <x.example.com>\n", "list"),
        ("From: Tourney <TOURNEY@localhost>\n", "ourselves"),
        ("Subject: no from\n", "no-sender"),
    ],
)
def test_auto_reply_rules(headers: str, rule: str) -> None:
    assert rule in check_auto_reply(msg(headers + "\nbody\n"), ourselves=["tourney@localhost"])


def test_ordinary_mail_may_be_answered() -> None:
    m = msg(
        "Return-Path: <a@b.c>\nFrom: a@b.c\nAuto-Submitted: no\nPrecedence: first-class\n\nhi\n"
    )
    assert check_auto_reply(m, ourselves=["tourney@localhost"]) == []


def test_authentication_results_by_authserv_id() -> None:
    m = msg(
        "Authentication-Results: mx.local; dkim=pass header.d=b.c; spf=softfail\n"
        "Authentication-Results: evil.example; dkim=fail\nFrom: a@b.c\n\nx\n"
    )
    assert check_authentication(m, authserv_id="mx.local", from_domain="b.c") == []  # aligned DKIM
    assert check_authentication(m, authserv_id="mx.local", from_domain="other.org") == ["spf-fail"]
    assert check_authentication(m, authserv_id="other.host", from_domain="b.c") == ["auth-missing"]
    assert check_authentication(m) == [
        "auth-missing"
    ]  # no authserv-id configured: nothing is trusted
    assert check_authentication(msg("From: a@b.c\n\nx\n"), authserv_id="mx.local") == [
        "auth-missing"
    ]


def test_command_words_and_order() -> None:
    for name, words in WORDS.items():
        for word in words:
            assert match_command(word)[0] == name, word
    assert match_command("ＣＨＥＣＫ")[0] == "check"  # full-width
    assert match_command("登録：グリスク") is None  # a sheet line, not a command
    assert strip_subject("Re: Fwd: [spring] 登録") == ("登録", "spring")
    cmd = parse_command("Re: [spring] entry", "standings\n> quoted")
    assert cmd.name == "standings" and cmd.tag == "spring" and cmd.source == "body"
    cmd = parse_command("test battle", "パスワード：ひみつ\n" + BOLT)
    assert cmd.name == "test" and cmd.password == "ひみつ" and cmd.body == "\n" + BOLT.rstrip("\n")
    assert parse_command("", BOLT).name == "entry"
    assert parse_command("hello", "").name == "help"
    assert parse_command("open spring 2026-12-01 7d", "").args == ["spring", "2026-12-01", "7d"]


def test_split_sheets() -> None:
    two = BOLT + "\n" + BOLT.replace("Bolt", "Volt")
    parts = split_sheets(two)
    assert len(parts) == 2 and parts[1].startswith("Volt")


# ------------------------------------------------------------------------- pipeline decisions


def store(factory, raw: str) -> int:
    data = raw.replace("\n", "\r\n").encode()
    with transaction(factory) as s:
        row = InboundMessage(
            message_key=message_key(data),
            raw=data,
            size=len(data),
            status="stored",
            sender="",
            subject="",
        )
        s.add(row)
        s.flush()
        return row.id


def outcome(factory, inbound_id: int) -> tuple[InboundMessage, str | None]:
    with factory() as s:
        row = s.get(InboundMessage, inbound_id)
        out = s.scalar(select(OutboxMessage).where(OutboxMessage.inbound_id == inbound_id))
        text = None
        if out is not None:
            text = (
                email.message_from_bytes(out.raw, policy=email.policy.default)
                .get_body(("plain",))
                .get_content()
            )
        return row, text


def mail_from(sender: str, subject: str, body: str, n: int, extra: str = "") -> str:
    return (
        f"From: {sender}\nTo: tourney@localhost\nSubject: {subject}\nMessage-ID: <r{n}@x>\n{extra}"
        f"Content-Type: text/plain; charset=utf-8\n\n{body}"
    )


def test_rate_limit_sends_one_notice(db_url, factory) -> None:
    settings = make_settings(db_url, rate_limit_per_day=2)
    ids = [store(factory, mail_from("spam@example.com", "help", "", i)) for i in range(5)]
    process_pending(settings, factory, now=NOW)
    results = [outcome(factory, i) for i in ids]
    assert [r.status for r, _ in results] == ["done", "done", "refused", "refused", "refused"]
    assert [t is not None for _, t in results] == [True, True, True, False, False]
    assert "limit of 2" in results[2][1]


def test_only_owner_replaces_and_league_password(db_url, factory) -> None:
    settings = make_settings(db_url)
    open_league(factory, "spring", password="sesame")
    a = store(factory, mail_from("a@example.com", "entry", BOLT, 1))
    b = store(factory, mail_from("a@example.com", "entry", "password: sesame\n" + BOLT, 2))
    c = store(factory, mail_from("b@example.com", "withdraw", "password: sesame\n", 3))
    process_pending(settings, factory, now=NOW)
    key = re.search(r"key: (\w{4}-\w{4})", outcome(factory, b)[1]).group(1)  # in the acceptance
    d = store(
        factory,
        mail_from(
            "a@example.com",
            "entry",
            f"password: sesame\nkey: {key}\n" + BOLT.replace("Bolt", "Bolt2"),
            4,
        ),
    )
    process_pending(settings, factory, now=NOW)
    ra, ta = outcome(factory, a)
    assert ra.status == "refused" and ra.rules == ["password"] and "password" in ta
    rb, tb = outcome(factory, b)
    assert rb.status == "done" and "is accepted" in tb
    rc, tc = outcome(factory, c)  # b@ cannot withdraw a@'s entry: it has none of its own
    assert rc.status == "refused" and "no entry" in tc
    rd, td = outcome(factory, d)
    assert "replacement unit (version 2)" in td
    with factory() as s:
        entries = s.scalars(select(Entry)).all()
        assert len(entries) == 1 and entries[0].status == "active"
        assert s.scalar(select(Player).where(Player.address == "a@example.com")).lang == "en"


def test_league_choice_by_plus_address_and_tag(db_url, factory) -> None:
    settings = make_settings(db_url)
    open_league(factory, "spring")
    open_league(factory, "autumn")
    a = store(factory, mail_from("a@example.com", "entry", BOLT, 1))
    b = store(factory, mail_from("b@example.com", "[autumn] entry", BOLT, 2))
    c = store(
        factory,
        mail_from("c@example.com", "entry", BOLT, 3).replace(
            "To: tourney@localhost", "To: tourney+spring@localhost"
        ),
    )
    d = store(
        factory,
        mail_from("d@example.com", "entry", BOLT, 4).replace(
            "To: tourney@localhost", "To: tourney+winter@localhost"
        ),
    )
    process_pending(settings, factory, now=NOW)
    assert "Which league" in outcome(factory, a)[1]
    assert 'league "autumn"' in outcome(factory, b)[1]
    assert 'league "spring"' in outcome(factory, c)[1]
    assert 'no league called "winter"' in outcome(factory, d)[1]


def test_organizer_commands_by_mail(db_url, factory) -> None:
    settings = make_settings(db_url)
    open_league(factory, "spring")
    ids = [
        store(factory, mail_from(f"p{i}@example.com", "entry", BOLT.replace("Bolt", f"B{i}"), i))
        for i in range(3)
    ]
    close = store(factory, mail_from("org@example.com", "close spring", "password: orgpw\n", 10))
    run = store(factory, mail_from("org@example.com", "run spring all", "password: orgpw\n", 11))
    fake = store(factory, mail_from("p0@example.com", "close spring", "password: orgpw\n", 12))
    process_pending(settings, factory, now=NOW)
    from app.mail.requests import run_pending

    assert run_pending(factory, settings, now=NOW) == ["organizer run of spring: done"]
    assert all(outcome(factory, i)[0].status == "done" for i in ids)
    assert outcome(factory, close)[0].status == "done"
    row, text = outcome(factory, run)
    assert (
        row.status == "done" and "Round 1 of spring played: 1 battles, 2 reports queued." in text
    ), text
    assert outcome(factory, fake)[0].rules == ["not-organizer"]
    with factory() as s:
        league = s.scalar(select(League).where(League.name == "spring"))
        assert league.state != "open"
        reports = s.scalars(select(OutboxMessage).where(OutboxMessage.kind != "reply")).all()
        assert reports, "running the rounds queued battle reports"


def test_unexpected_error_shunts_and_goes_on(
    db_url, factory, monkeypatch, expect_error_log
) -> None:
    settings = make_settings(db_url)
    bad = store(factory, mail_from("a@example.com", "help", "", 1))
    good = store(factory, mail_from("b@example.com", "help", "", 2))
    import app.mail.pipeline as pipeline
    from app.mail.commands import REGISTRY

    real = REGISTRY["help"]

    def boom(ctx, cmd):  # a bug in one command for one sender
        if ctx.mail.sender == "a@example.com":
            raise RuntimeError("bug")
        return real.handler(ctx, cmd)

    monkeypatch.setitem(REGISTRY, "help", dataclasses.replace(real, handler=boom))
    assert process_pending(settings, factory, now=NOW) == 2
    row, text = outcome(factory, bad)
    assert (
        row.status == "shunted" and "command:help: RuntimeError: bug" in row.error and text is None
    )
    assert outcome(factory, good)[0].status == "done"
    monkeypatch.setitem(REGISTRY, "help", real)
    assert pipeline.requeue_shunted(factory) == 1
    process_pending(settings, factory, now=NOW)
    assert outcome(factory, bad)[0].status == "done"


def test_unusable_sender_is_ignored_not_shunted(db_url, factory) -> None:
    settings = make_settings(db_url)
    rid = store(factory, mail_from('"x y"@example.com', "help", "", 1))
    process_pending(settings, factory, now=NOW)
    row, text = outcome(factory, rid)
    assert row.status == "ignored" and row.rules == ["bad-sender"] and text is None


def test_attachment_only_mail_is_an_entry(db_url, factory) -> None:
    settings = make_settings(db_url)
    open_league(factory, "spring")
    raw = (
        "From: a@example.com\nTo: tourney@localhost\nSubject: my unit\nMessage-ID: <att@x>\n"
        "Content-Type: multipart/mixed; boundary=b\n\n--b\nContent-Type: text/plain; charset=utf-8\n"
        "Content-Disposition: attachment; filename=bolt.txt\n\n" + BOLT + "--b--\n"
    )
    rid = store(factory, raw)
    process_pending(settings, factory, now=NOW)
    row, text = outcome(factory, rid)
    assert row.command == "entry" and "is accepted" in text


def test_a_greeting_above_the_sheet_is_skipped_and_line_numbers_stay(db_url, factory) -> None:
    settings = make_settings(db_url)
    open_league(factory, "spring")
    good = store(
        factory, mail_from("a@example.com", "entry", "Hi all,\nhere is my unit.\n\n" + BOLT, 1)
    )
    bad = store(
        factory,
        mail_from(
            "b@example.com", "entry", "Hello!\n" + BOLT.replace("Direct Attack", "Direkt Attack"), 2
        ),
    )
    # an action line above the unit line belongs to the sheet: nothing is skipped
    kept = store(
        factory,
        mail_from(
            "c@example.com", "check", "- Spark (1): Direct Attack\n" + BOLT.split("\n")[0] + "\n", 3
        ),
    )
    process_pending(settings, factory, now=NOW)
    row, text = outcome(factory, good)
    assert row.status == "done" and "is accepted" in text
    assert "2 line(s) above the unit line (line 1, 2) were read as a greeting and skipped" in text
    row, text = outcome(factory, bad)
    assert "is not accepted" in text or "not accepted" in text
    assert "line 3" in text.lower() and "Direkt Attack" in text  # the mail's own line number
    row, text = outcome(factory, kept)
    assert "greeting" not in text


@given(st.text(max_size=80), st.text(max_size=300))
def test_parse_command_never_raises(subject: str, body: str) -> None:
    cmd = parse_command(subject, body)
    assert cmd.name in WORDS or cmd.name in ("entry", "help")
    assert cmd.source in ("subject", "body", "default")
