"""Issue #8, problems 3, 5 and 6: forged senders against entry ownership, authentication before
the rate limit, password lockout, and addresses in what others read. Through real Dovecot, the
poller, the pipeline and the SMTP sink; the ownership flow on SQLite and PostgreSQL."""

from __future__ import annotations

import datetime as dt
import re

import pytest
from sqlalchemy import select

from app.db.models import Entry, PendingChange, Player, SheetVersion
from app.db.session import transaction
from app.mail.league_mail import LeagueMail
from tests.mail.conftest import NOW, make_settings, open_league
from tests.mail.hostile import BOLT, cycle, mk, replies_to, reply_of, row_of, text

pytestmark = pytest.mark.dovecot

ALICE = "alice@example.org"


@pytest.fixture(params=["sqlite", "postgres"])
def database(request, db_url, factory):
    if request.param == "sqlite":
        return db_url, factory
    return request.getfixturevalue("postgres_url"), request.getfixturevalue("pg_factory")


def active_unit(factory, address: str = ALICE) -> str | None:
    with factory() as s:
        return s.scalar(
            select(SheetVersion.unit_name)
            .join(Entry, Entry.id == SheetVersion.entry_id)
            .join(Player, Player.id == Entry.player_id)
            .where(Player.address == address, SheetVersion.active, Entry.status == "active")
        )


def key_in(reply: str) -> str:
    return re.search(r"key: (\w{4}-\w{4})", reply).group(1)


# ------------------------------------------------------------------ 3. ownership


def test_3_a_forged_from_neither_replaces_nor_withdraws(database, mail_user, smtp_sink) -> None:
    """Anyone could replace or withdraw anyone's entry by writing the owner's address in From;
    the owner heard of it after the fact. Now a change without the entry key waits for the owner
    to answer a confirmation mail sent to the registered address (never to a Reply-To); with the
    key it is made at once."""
    _url, factory = database
    settings = make_settings(
        database[0],
        imap_url=mail_user.imap_url,
        smtp_url=smtp_sink.url,
        server_address=mail_user.address,
    )
    open_league(factory, "spring")
    to = mail_user.address
    cycle(
        settings,
        factory,
        mail_user,
        [mk(f"Alice <{ALICE}>", "entry", BOLT, "<a1@example.org>", to=to)],
    )
    accepted = reply_of(factory, row_of(factory, "<a1@example.org>").id)[1]
    key = key_in(accepted)
    assert "Keep this mail" in accepted

    forged = [
        mk(
            ALICE,
            "replace",
            BOLT.replace("Bolt", "Evil"),
            "<f1@evil.test>",
            to=to,
            headers="Reply-To: m@evil.test\n",
        ),
        mk(ALICE, "withdraw", "", "<f2@evil.test>", to=to, headers="Reply-To: m@evil.test\n"),
        mk(
            ALICE,
            "replace",
            "key: AAAA-BBBB\n" + BOLT.replace("Bolt", "Evil"),
            "<f3@evil.test>",
            to=to,
        ),
    ]
    cycle(settings, factory, mail_user, forged)
    assert active_unit(factory) == "Bolt"  # nothing changed
    assert not [m for m in smtp_sink.messages if "m@evil.test" in m.rcpt_tos]
    asks = [
        m for m in replies_to(smtp_sink, ALICE) if str(m.parsed()["Subject"]).startswith("confirm ")
    ]
    assert len(asks) == 3
    assert "nothing changes until you confirm" in text(
        asks[0]
    ) and "Just reply to this mail" in text(asks[0])
    assert "not the key of this entry" in text(asks[2])
    with factory() as s:
        states = [c.state for c in s.scalars(select(PendingChange).order_by(PendingChange.id))]
    assert states == [
        "superseded",
        "superseded",
        "pending",
    ]  # the latest request is the one that counts

    # the owner answers the first request: superseded, nothing happens; the last: done
    first_token = str(asks[0].parsed()["Subject"]).split()[1]
    last_subject = str(asks[2].parsed()["Subject"])
    cycle(
        settings,
        factory,
        mail_user,
        [
            mk(
                ALICE, f"Re: {asks[0].parsed()['Subject']}", "> quoted\n", "<c1@example.org>", to=to
            ),
            mk(
                f"Alice <{ALICE}>",
                f"Re: {last_subject}",
                "ok\n\n> the confirmation mail\n",
                "<c2@example.org>",
                to=to,
            ),
        ],
    )
    assert "older request" in reply_of(factory, row_of(factory, "<c1@example.org>").id)[1]
    assert first_token not in last_subject
    done = reply_of(factory, row_of(factory, "<c2@example.org>").id)[1]
    assert "replacement unit (version 2)" in done and active_unit(factory) == "Evil"

    # with the key: at once
    cycle(
        settings,
        factory,
        mail_user,
        [
            mk(
                ALICE,
                "replace",
                f"キー：{key.lower()}\n" + BOLT.replace("Bolt", "Good"),
                "<k1@example.org>",
                to=to,
            )
        ],
    )
    assert "version 3" in reply_of(factory, row_of(factory, "<k1@example.org>").id)[1]
    assert active_unit(factory) == "Good"
    cycle(
        settings,
        factory,
        mail_user,
        [mk(ALICE, "withdraw", f"key: {key}\n", "<k2@example.org>", to=to)],
    )
    assert "is withdrawn" in reply_of(factory, row_of(factory, "<k2@example.org>").id)[1]
    assert active_unit(factory) is None


def test_3_pending_changes_expire_and_closing_entries_ends_them(
    mail_user, smtp_sink, db_url, factory
) -> None:
    settings = make_settings(
        db_url,
        imap_url=mail_user.imap_url,
        smtp_url=smtp_sink.url,
        server_address=mail_user.address,
        confirm_hours=24,
    )
    open_league(factory, "spring")
    to = mail_user.address
    cycle(
        settings,
        factory,
        mail_user,
        [
            mk(ALICE, "entry", BOLT, "<e1@x.org>", to=to),
            mk("bob@example.org", "entry", BOLT.replace("Bolt", "Bob"), "<e2@x.org>", to=to),
        ],
    )
    cycle(
        settings,
        factory,
        mail_user,
        [
            mk(ALICE, "withdraw", "", "<e3@x.org>", to=to),
            mk("bob@example.org", "withdraw", "", "<e4@x.org>", to=to),
        ],
    )
    tokens = {
        m.rcpt_tos[0]: str(m.parsed()["Subject"]).split()[1]
        for m in smtp_sink.messages
        if str(m.parsed()["Subject"]).startswith("confirm ")
    }
    # alice answers after 25 hours: expired
    cycle(
        settings,
        factory,
        mail_user,
        [mk(ALICE, f"Re: confirm {tokens[ALICE]}", "", "<e5@x.org>", to=to)],
        now=NOW + dt.timedelta(hours=25),
    )
    assert "expired" in reply_of(factory, row_of(factory, "<e5@x.org>").id)[1]
    assert active_unit(factory) == "Bolt"
    # entries close while bob's request waits: it expires, his answer changes nothing
    from app.league.service import close_entries, find_league

    with transaction(factory) as s:
        close_entries(
            s,
            find_league(s, "spring"),
            now=NOW + dt.timedelta(hours=1),
            mail=LeagueMail.of(settings),
        )
    cycle(
        settings,
        factory,
        mail_user,
        [
            mk(
                "bob@example.org",
                f"Re: confirm {tokens['bob@example.org']}",
                "",
                "<e6@x.org>",
                to=to,
            )
        ],
        now=NOW + dt.timedelta(hours=2),
    )
    assert active_unit(factory, "bob@example.org") == "Bob"
    with factory() as s:
        assert {c.state for c in s.scalars(select(PendingChange))} == {"expired"}


def test_3_require_auth_results_refuses_mail_our_server_did_not_vouch_for(
    mail_user, smtp_sink, db_url, factory
) -> None:
    """``require_auth_results`` failed open without an ``Authentication-Results`` header and
    trusted the topmost header of any server; a ``dkim=fail`` anywhere refused a mail whose DMARC
    passed. Now only our server's header (by authserv-id, parsed by ``authres``) counts."""
    settings = make_settings(
        db_url,
        imap_url=mail_user.imap_url,
        smtp_url=smtp_sink.url,
        server_address=mail_user.address,
        require_auth_results=True,
        authserv_id="mx.example.net",
    )
    to = mail_user.address
    ours = "Authentication-Results: mx.example.net; "
    cycle(
        settings,
        factory,
        mail_user,
        [
            mk(ALICE, "help", "", "<h1@x.org>", to=to),  # no header at all
            mk(
                ALICE,
                "help",
                "",
                "<h2@x.org>",
                to=to,
                headers="Authentication-Results: evil.test; dmarc=pass\n",
            ),
            mk(
                ALICE,
                "help",
                "",
                "<h3@x.org>",
                to=to,
                headers=ours + "dmarc=fail header.from=example.org\n"
                "Authentication-Results: mx.example.net; dmarc=pass\n",
            ),  # a forged copy below ours
            mk(
                ALICE,
                "help",
                "",
                "<h4@x.org>",
                to=to,
                headers=ours + "dkim=fail (bad sig; dkim=pass) "
                "header.d=other.test; dkim=pass header.d=example.org; spf=fail smtp.mailfrom=example.org; "
                "dmarc=pass (p=reject; dkim=fail) header.from=example.org\n",
            ),
            mk(
                ALICE,
                "help",
                "",
                "<h5@x.org>",
                to=to,
                headers=ours + "dkim=pass header.d=example.org\n",
            ),
            mk(
                ALICE,
                "help",
                "",
                "<h6@x.org>",
                to=to,
                headers=ours + "dkim=pass header.d=evil.test\n",
            ),
        ],
    )
    status = {mid: row_of(factory, mid) for mid in (f"<h{i}@x.org>" for i in range(1, 7))}
    assert [(r.status, r.rules) for r in status.values()] == [
        ("refused", ["auth-missing"]),
        ("refused", ["auth-missing"]),
        ("refused", ["dmarc-fail"]),
        ("done", None),
        ("done", None),
        ("refused", ["not-aligned"]),
    ]
    assert len(replies_to(smtp_sink, ALICE)) == 2  # no reply to a refused mail


@pytest.mark.parametrize(
    ("sender", "reason"),
    [
        (f"{ALICE} (Alice) <m@evil.test>", "a phrase with an @"),
        ("alice@=?utf-8?q?example=2Eorg?=", "an encoded word inside the domain"),
        (f"{ALICE}, m@evil.test", "two mailboxes"),
        ("Team: alice@example.org;", "a group"),
    ],
)
def test_3_a_from_header_is_one_rfc5322_mailbox_never_decoded(
    sender: str, reason: str, mail_user, smtp_sink, db_url, factory
) -> None:
    settings = make_settings(
        db_url,
        imap_url=mail_user.imap_url,
        smtp_url=smtp_sink.url,
        server_address=mail_user.address,
    )
    cycle(settings, factory, mail_user, [mk(sender, "help", "", "<s@x.org>", to=mail_user.address)])
    row = row_of(factory, "<s@x.org>")
    assert (row.status, row.rules) == ("ignored", ["bad-sender"]), reason
    assert row.sender == "" and not replies_to(smtp_sink, ALICE)
    with factory() as s:
        assert s.scalar(select(Player).where(Player.address == ALICE)) is None


# ------------------------------------------------------------------ 5. the order of the limits


def test_5_forged_mail_uses_up_no_quota_once_authentication_is_required(
    mail_user, smtp_sink, db_url, factory
) -> None:
    """The rate limit ran before the authentication check: forged mail used up the victim's quota,
    sent the victim a notice and silenced their real mail. Authentication now comes first."""
    settings = make_settings(
        db_url,
        imap_url=mail_user.imap_url,
        smtp_url=smtp_sink.url,
        server_address=mail_user.address,
        require_auth_results=True,
        authserv_id="mx.example.net",
        rate_limit_per_day=3,
    )
    to = mail_user.address
    cycle(
        settings,
        factory,
        mail_user,
        [mk(ALICE, "help", "", f"<x{i}@evil.test>", to=to) for i in range(10)],
    )
    real = "Authentication-Results: mx.example.net; dmarc=pass header.from=example.org\n"
    cycle(
        settings,
        factory,
        mail_user,
        [mk(ALICE, "help", "", "<real@example.org>", to=to, headers=real)],
    )
    assert row_of(factory, "<real@example.org>").status == "done"
    [only] = replies_to(smtp_sink, ALICE)
    assert "How to use" in text(only)  # the help, not a rate-limit notice


def test_5_proven_mail_is_not_silenced_by_forgeries_without_auth_results(
    mail_user, smtp_sink, db_url, factory
) -> None:
    """Without authentication results, forgeries still count against the address's quota, but a
    mail that proves its sender (the entry key) is not counted and gets its answer."""
    settings = make_settings(
        db_url,
        imap_url=mail_user.imap_url,
        smtp_url=smtp_sink.url,
        server_address=mail_user.address,
        rate_limit_per_day=3,
    )
    open_league(factory, "spring")
    to = mail_user.address
    cycle(settings, factory, mail_user, [mk(ALICE, "entry", BOLT, "<p0@x.org>", to=to)])
    key = key_in(reply_of(factory, row_of(factory, "<p0@x.org>").id)[1])
    cycle(
        settings,
        factory,
        mail_user,
        [mk(ALICE, "help", "", f"<p{i}@evil.test>", to=to) for i in range(1, 8)],
    )
    cycle(
        settings,
        factory,
        mail_user,
        [mk(ALICE, "replace", f"key: {key}\n" + BOLT.replace("Bolt", "Volt"), "<p9@x.org>", to=to)],
    )
    assert "version 2" in reply_of(factory, row_of(factory, "<p9@x.org>").id)[1]


def test_5_wrong_keys_in_the_owners_name_do_not_lock_the_owner_out(
    mail_user, smtp_sink, db_url, factory
) -> None:
    """Forged mail with wrong entry keys from the owner's address reaches the lockout: later
    wrong keys are refused unanswered, but the owner's right key still goes through (a forger
    must not be able to lock an owner out of their entry)."""
    settings = make_settings(
        db_url,
        imap_url=mail_user.imap_url,
        smtp_url=smtp_sink.url,
        server_address=mail_user.address,
        password_attempts=3,
        rate_limit_per_day=50,
    )
    open_league(factory, "spring")
    to = mail_user.address
    cycle(settings, factory, mail_user, [mk(ALICE, "entry", BOLT, "<w0@x.org>", to=to)])
    key = key_in(reply_of(factory, row_of(factory, "<w0@x.org>").id)[1])
    cycle(
        settings,
        factory,
        mail_user,
        [
            mk(
                ALICE,
                "replace",
                f"key: ZZZZ-ZZZ{i}\n" + BOLT.replace("Bolt", "Evil"),
                f"<w{i}@evil.test>",
                to=to,
            )
            for i in range(1, 6)
        ],
    )
    assert [row_of(factory, f"<w{i}@evil.test>").rules for i in (4, 5)] == [["locked-out"]] * 2
    assert active_unit(factory) == "Bolt"
    cycle(
        settings,
        factory,
        mail_user,
        [mk(ALICE, "replace", f"key: {key}\n" + BOLT.replace("Bolt", "Volt"), "<w9@x.org>", to=to)],
    )
    assert "version 2" in reply_of(factory, row_of(factory, "<w9@x.org>").id)[1]
    assert active_unit(factory) == "Volt"


def test_5_wrong_organizer_passwords_lock_out_with_one_alert(
    mail_user, smtp_sink, db_url, factory
) -> None:
    """50 wrong organizer passwords silenced the organizer for the day with no lockout and no
    alert. Now ``password_attempts`` wrong ones lock that address out of organizer commands until
    the next UTC day, with one alert to the organizers; its other mail is still answered."""
    settings = make_settings(
        db_url,
        imap_url=mail_user.imap_url,
        smtp_url=smtp_sink.url,
        server_address=mail_user.address,
        password_attempts=3,
        rate_limit_per_day=50,
    )
    open_league(factory, "spring")
    to = mail_user.address
    org = "org@example.com"
    cycle(
        settings,
        factory,
        mail_user,
        [
            mk(org, "close spring", f"password: guess{i}\n", f"<o{i}@evil.test>", to=to)
            for i in range(6)
        ],
    )
    rows = [row_of(factory, f"<o{i}@evil.test>") for i in range(6)]
    assert [r.rules for r in rows] == [["not-organizer"]] * 3 + [["locked-out"]] * 3
    cycle(
        settings,
        factory,
        mail_user,
        [
            mk(org, "close spring", "password: orgpw\n", "<o9@x.org>", to=to),
            mk(org, "help", "", "<o10@x.org>", to=to),
        ],
    )
    assert row_of(factory, "<o9@x.org>").rules == ["locked-out"]
    assert row_of(factory, "<o10@x.org>").status == "done"
    to_org = replies_to(smtp_sink, org)
    alerts = [m for m in to_org if "locked out" in str(m.parsed()["Subject"])]
    assert len(alerts) == 1 and "password:organizer" in text(alerts[0])
    refusals = [m for m in to_org if str(m.parsed()["Subject"]).startswith("Re:")]
    assert len(refusals) == 4  # 3 refusals + help
    # the refusal of the failure that started the lockout says so, once, with its end
    told = [m for m in refusals if "refused without a reply" in text(m)]
    until = f"{(NOW + dt.timedelta(days=1)).date()} 00:00 UTC"
    assert len(told) == 1 and until in text(told[0]), [text(m) for m in refusals]
    # the next UTC day the organizer is heard again
    cycle(
        settings,
        factory,
        mail_user,
        [mk(org, "close spring", "password: orgpw\n", "<o11@x.org>", to=to)],
        now=NOW + dt.timedelta(days=1),
    )
    assert row_of(factory, "<o11@x.org>").status == "done"


def test_7_a_refused_forged_mail_changes_nothing_of_its_victim(
    mail_user, smtp_sink, db_url, factory
) -> None:
    """A refused forged mail still set the victim's reply charset."""
    settings = make_settings(
        db_url,
        imap_url=mail_user.imap_url,
        smtp_url=smtp_sink.url,
        server_address=mail_user.address,
        require_auth_results=True,
        authserv_id="mx.example.net",
    )
    with transaction(factory) as s:
        s.add(Player(address=ALICE, display_name="Alice", lang="en", charset="utf-8"))
    forged = mk(
        "Mallory <alice@example.org>",
        "help",
        "help\n".encode("iso-2022-jp"),
        "<j@evil.test>",
        to=mail_user.address,
        ctype="text/plain; charset=iso-2022-jp",
    )
    cycle(settings, factory, mail_user, [forged])
    assert row_of(factory, "<j@evil.test>").status == "refused"
    with factory() as s:
        p = s.scalar(select(Player).where(Player.address == ALICE))
        assert (p.charset, p.display_name, p.lang) == ("utf-8", "Alice", "en")


# ------------------------------------------------------------------ 6. addresses


def test_6_no_mail_to_others_shows_a_players_address(mail_user, smtp_sink, db_url, factory) -> None:
    """A ``standings`` mail from anyone listed every player's address. Standings, pairings and
    battle reports now name players by display name (From phrase or a ``name:`` line) or a
    masked address."""
    from app.league.service import run_round

    settings = make_settings(
        db_url,
        imap_url=mail_user.imap_url,
        smtp_url=smtp_sink.url,
        server_address=mail_user.address,
    )
    open_league(factory, "spring")
    with transaction(factory) as s:  # the organizer lists the entrants (league set)
        from app.league.service import find_league

        find_league(s, "spring").show_entrants = True
    to = mail_user.address
    cycle(
        settings,
        factory,
        mail_user,
        [
            mk(f"Alice Liddell <{ALICE}>", "entry", BOLT, "<d1@x.org>", to=to),
            mk(
                "bob@example.org",
                "entry",
                "name: Bob the Builder\n" + BOLT.replace("Bolt", "Volt"),
                "<d2@x.org>",
                to=to,
            ),
            mk("carol@example.org", "entry", BOLT.replace("Bolt", "Colt"), "<d3@x.org>", to=to),
            mk(
                "d@example.org",
                "entry",
                "name: eve@example.org\n" + BOLT.replace("Bolt", "Dolt"),
                "<d4@x.org>",
                to=to,
            ),
        ],
    )
    # while entries are open: a count and, as the organizer lists entrants, their public names;
    # no unit (secret until entries close, as on the web) and no address
    cycle(
        settings,
        factory,
        mail_user,
        [mk("stranger@example.net", "standings", "", "<d0@x.org>", to=to)],
    )
    _, early = reply_of(factory, row_of(factory, "<d0@x.org>").id)
    assert "4 entries so far" in early, early
    with factory() as s:  # no name given: a readable default (issue 20.1), no "player #3"
        carol, dee = (
            s.scalar(select(Player.display_name).where(Player.address == a))
            for a in ("carol@example.org", "d@example.org")
        )
    assert carol.startswith("Nameless ") and dee.startswith("Nameless ")
    assert "Alice Liddell" in early and "Bob the Builder" in early and carol in early
    assert "player #" not in early
    assert "@example.org" not in early and not any(
        u in early for u in ("Bolt", "Volt", "Colt", "Dolt")
    )
    with transaction(factory) as s:
        from app.league.service import close_entries, find_league

        close_entries(s, find_league(s, "spring"), now=NOW, mail=LeagueMail.of(settings))
    cycle(
        settings,
        factory,
        mail_user,
        [mk("stranger@example.net", "standings", "", "<d5@x.org>", to=to)],
    )
    out, standings = reply_of(factory, row_of(factory, "<d5@x.org>").id)
    import email
    import email.policy

    html = (
        email.message_from_bytes(out.raw, policy=email.policy.default)
        .get_body(("html",))
        .get_content()
    )
    for body in (standings, html):
        assert "@example.org" not in body, body
        assert (
            "Alice Liddell" in body and "Bob the Builder" in body and carol in body and dee in body
        )
        assert "Volt" in body  # the units, once entries are closed
    run_round(factory, LeagueMail.of(settings), "spring", now=NOW)
    from app.mail.send import send_once

    send_once(settings, factory)
    league_mail = [
        m
        for m in smtp_sink.messages
        if m.rcpt_tos[0].endswith("@example.org")
        and not str(m.parsed()["Subject"]).startswith("Re:")
    ]
    assert league_mail
    for m in league_mail:
        body = m.parsed().get_body(("plain",)).get_content()
        others = [
            a
            for a in (ALICE, "bob@example.org", "carol@example.org", "d@example.org")
            if a not in m.rcpt_tos
        ]
        assert not [a for a in others if a in body], (m.rcpt_tos, body)
