"""Issue 20, organizer mail and caps: an organizer command reads its arguments wherever it is
written (subject or body) and refuses the whole command, with the reason, when one is
unreadable; ``open`` confirms everything it set; a hill caps the challenges an entry makes a day
(``challenges_per_day``). Through real Dovecot, the poller, the pipeline and the SMTP sink."""

from __future__ import annotations

import re

import pytest
from sqlalchemy import func, select

from app.db.models import League, Round
from tests.mail.conftest import make_settings
from tests.mail.hostile import BOLT, cycle, mk, reply_of, row_of

pytestmark = pytest.mark.dovecot

ORG = "org@example.com"
PW = "password: orgpw\n"


def _settings(db_url, mail_user, smtp_sink):  # type: ignore[no-untyped-def]
    return make_settings(
        db_url,
        imap_url=mail_user.imap_url,
        smtp_url=smtp_sink.url,
        server_address=mail_user.address,
    )


def _league(factory, name: str) -> League | None:
    with factory() as s:
        return s.scalar(select(League).where(League.name == name))


def _send(settings, factory, mail_user, subject: str, body: str, mid: str) -> tuple[str, str]:
    """One organizer mail through the servers: (the row's status, its reply's text)."""
    cycle(settings, factory, mail_user, [mk(ORG, subject, PW + body, mid, to=mail_user.address)])
    row = row_of(factory, mid)
    return row.status, reply_of(factory, row.id)[1]


@pytest.mark.parametrize(
    ("subject", "body", "reason"),
    [
        # the reported case: the subject names the command, the body carries its arguments
        ("open bad", "open bad 2026-13-45 format=swiss\n", "2026-13-45"),
        ("open bad", "open bad +2d format=swizz\n", "unknown format 'swizz'"),
        ("open bad", "open bad +2d format=swiss roundz=3\n", "roundz"),
        ("open bad", "open bad +2d format=swiss rounds=many\n", "rounds"),
        ("open bad", "open bad +2d ruleset=chess\n", "chess"),
        ("open bad", "open bad +2d budget=12\n", "budget"),  # amaryllis takes no budget
        ("open bad", "open bad +2d ruleset=margaret-hundred budget=lots\n", "budget"),
        ("open bad", "open bad +2d 1d extra\n", "extra"),
        ("open bad", "open bad +2d 400d\n", "longer than a year"),
        ("open bad", "open bad +2d format=swiss format=hill\n", "twice"),
        ("open bad", "open good +2d\n", "write the command once"),  # subject and body disagree
        ("", "open bad 2026-13-45 format=swiss\n", "2026-13-45"),  # the body alone
        ("open bad 2026-13-45 format=swiss", "", "2026-13-45"),  # the subject alone
    ],
)
def test_an_unreadable_argument_refuses_the_whole_open(
    subject: str, body: str, reason: str, mail_user, smtp_sink, db_url, factory
) -> None:
    settings = _settings(db_url, mail_user, smtp_sink)
    status, reply = _send(settings, factory, mail_user, subject, body, "<o1@example.com>")
    assert status == "refused", reply
    assert reason in reply, reply
    assert "Usage: open NAME" in reply, reply
    assert _league(factory, "bad") is None and _league(factory, "good") is None


@pytest.mark.parametrize(
    ("subject", "body", "says"),
    [
        (
            "open sw",
            "open sw +2d format=swiss rounds=3\n",
            [
                "Format: Swiss system, 3 rounds",
                "points 3/1/0",
                "Ruleset: Amaryllis",
                "Entries until: 2026-12-01 12:00 UTC",
                "Rounds: played when you run them",
            ],
        ),
        (
            "open sw +2d format=swiss rounds=3",
            "open sw\n",  # the body repeats less: no conflict
            ["Format: Swiss system, 3 rounds", "Entries until: 2026-12-01 12:00 UTC"],
        ),
        (
            "open sw",
            "open sw 2026-12-20 2d format=swiss rounds=3\n",
            [
                "Swiss system, 3 rounds",
                "Entries until: 2026-12-20 00:00 UTC",
                "Rounds: one every 2 days",
            ],
        ),
        (
            "open hh +2d ruleset=margaret-hundred budget=12 format=hill size=5",
            "",
            [
                "Format: hill of 5",
                "at most 10 challenges per entry a day",
                "Hundred",
                "12",
                "Entries until: none (always open)",
            ],
        ),
        (
            "開設 ko",
            "開設 ko +3d format=knockout\n",
            ["形式：勝ち抜きトーナメント", "ルール：アマリリス", "受付締切：2026-12-02 12:00 UTC"],
        ),
    ],
)
def test_open_reads_the_body_and_confirms_every_setting(
    subject: str, body: str, says: list[str], mail_user, smtp_sink, db_url, factory
) -> None:
    settings = _settings(db_url, mail_user, smtp_sink)
    status, reply = _send(settings, factory, mail_user, subject, body, "<o2@example.com>")
    assert status == "done", reply
    for words in says:
        assert words in reply, (words, reply)
    name = subject.split()[1]
    league = _league(factory, name)
    assert league is not None
    assert league.format == {"sw": "swiss", "hh": "hill", "ko": "knockout"}[name]


def test_close_run_and_resend_read_their_arguments_from_the_body(
    mail_user, smtp_sink, db_url, factory
) -> None:
    settings = _settings(db_url, mail_user, smtp_sink)
    for name in ("one", "two"):
        assert (
            _send(settings, factory, mail_user, f"open {name}", "", f"<c-{name}@example.com>")[0]
            == "done"
        )
    # with two open leagues, "close" alone asks which; the body's "close two" says it
    status, reply = _send(settings, factory, mail_user, "close", "close two\n", "<c1@example.com>")
    assert status == "done", reply
    assert "Entries of two closed" in reply, reply
    assert _league(factory, "two").state != "open" and _league(factory, "one").state == "open"
    # a word too many in the body refuses the whole command
    status, reply = _send(
        settings, factory, mail_user, "close", "close one now\n", "<c2@example.com>"
    )
    assert status == "refused" and "words not understood: now" in reply, reply
    assert _league(factory, "one").state == "open"
    status, reply = _send(
        settings, factory, mail_user, "resend", "resend one x\n", "<c3@example.com>"
    )
    assert status == "refused" and "the round is a number from 1" in reply, reply
    status, reply = _send(
        settings, factory, mail_user, "run one", "run two al\n", "<c4@example.com>"
    )
    assert status == "refused" and "write the command once" in reply, reply


def _key(reply: str) -> str:
    found = re.search(r"key: (\w{4}-\w{4})", reply)
    assert found, reply
    return found.group(1)


def test_a_hill_caps_the_challenges_of_an_entry_a_day(
    mail_user, smtp_sink, db_url, factory
) -> None:
    """One member sent 60 keyed replacements and fought 60 challenges in a day. Now the
    league's ``challenges_per_day`` (here 2, set by ``open``) caps them: the third is refused
    with a reply that says so, and nothing changes; the next UTC day it is taken again."""
    import datetime as dt

    from tests.mail.conftest import NOW

    settings = _settings(db_url, mail_user, smtp_sink)
    to = mail_user.address
    status, reply = _send(
        settings,
        factory,
        mail_user,
        "open hill",
        "open hill format=hill size=4 challenges_per_day=2\n",
        "<h0@x.com>",
    )
    assert status == "done" and "at most 2 challenges per entry a day" in reply, reply
    cycle(
        settings,
        factory,
        mail_user,
        [
            mk("bob@example.org", "entry", BOLT.replace("Bolt", "Rock"), "<b0@x.org>", to=to),
            mk("alice@example.org", "entry", BOLT, "<a0@x.org>", to=to),
        ],
    )
    key = _key(reply_of(factory, row_of(factory, "<a0@x.org>").id)[1])
    units = ["Volt", "Watt", "Amp"]
    cycle(
        settings,
        factory,
        mail_user,
        [
            mk(
                "alice@example.org",
                "replace",
                f"key: {key}\n" + BOLT.replace("Bolt", u),
                f"<a-{u}@x.org>",
                to=to,
            )
            for u in units
        ],
    )
    rows = [row_of(factory, f"<a-{u}@x.org>") for u in units]
    assert [r.status for r in rows] == ["done", "refused", "refused"]
    assert rows[1].rules == ["challenge-limit"]
    refusal = reply_of(factory, rows[1].id)[1]
    assert "2 challenges today" in refusal and "stays as it was" in refusal, refusal
    assert "2026-11-30 00:00 UTC" in refusal, refusal
    with factory() as s:
        league = s.scalar(select(League).where(League.name == "hill"))
        arrivals = s.scalar(
            select(func.count()).select_from(Round).where(Round.league_id == league.id)
        )
    assert arrivals == 3  # Bob, Alice, Alice's Volt: nothing fought past the cap
    # the next day the entry challenges again
    cycle(
        settings,
        factory,
        mail_user,
        [
            mk(
                "alice@example.org",
                "replace",
                f"key: {key}\n" + BOLT.replace("Bolt", "Ohm"),
                "<a-next@x.org>",
                to=to,
            )
        ],
        now=NOW + dt.timedelta(days=1),
    )
    assert row_of(factory, "<a-next@x.org>").status == "done"


@pytest.mark.parametrize("fmt", ["", "format=hill size=4", "format=swiss rounds=2"])
def test_a_rejected_replacement_says_the_unit_stays_and_withdraw_fits_the_format(
    fmt: str, mail_user, smtp_sink, db_url, factory
) -> None:
    """A rejected replacement did not say that the previous unit stays entered; a hill's
    withdraw reply spoke of entries closing, which a hill never does."""
    settings = _settings(db_url, mail_user, smtp_sink)
    to = mail_user.address
    assert (
        _send(settings, factory, mail_user, "open lg", f"open lg {fmt}\n", "<w0@x.com>")[0]
        == "done"
    )
    cycle(
        settings, factory, mail_user, [mk("alice@example.org", "entry", BOLT, "<w1@x.org>", to=to)]
    )
    key = _key(reply_of(factory, row_of(factory, "<w1@x.org>").id)[1])
    broken = f"key: {key}\nVolt: 99/2/2/2/Spark\n- Spark (1): Direct Attack\n"
    cycle(
        settings,
        factory,
        mail_user,
        [mk("alice@example.org", "replace", broken, "<w2@x.org>", to=to)],
    )
    reply = reply_of(factory, row_of(factory, "<w2@x.org>").id)[1]
    assert "was not accepted" in reply, reply
    assert 'Nothing changed: your unit Bolt stays entered in league "lg".' in reply, reply
    cycle(
        settings,
        factory,
        mail_user,
        [mk("alice@example.org", "withdraw", f"key: {key}\n", "<w3@x.org>", to=to)],
    )
    reply = reply_of(factory, row_of(factory, "<w3@x.org>").id)[1]
    assert "is withdrawn" in reply, reply
    hill = "hill" in fmt
    assert ("takes entries at any time" in reply) == hill, reply
    assert ("Until entries close" in reply) == (not hill), reply


def test_help_names_each_open_leagues_game_and_format_and_shows_the_players_game(
    mail_user, smtp_sink, db_url, factory
) -> None:
    """The help mail listed open leagues without their game and format, and showed an Amaryllis
    example to a Hundred player."""
    settings = _settings(db_url, mail_user, smtp_sink)
    to = mail_user.address
    for body in ("open hun ruleset=margaret-hundred format=swiss rounds=2\n", "open ama\n"):
        assert (
            _send(settings, factory, mail_user, "open", body, f"<hl-{body[5:8]}@x.com>")[0]
            == "done"
        )
    from app.rules import ruleset

    hundred = ruleset("margaret-hundred")
    local, _, domain = to.partition("@")
    cycle(
        settings,
        factory,
        mail_user,
        [
            mk(
                "h@example.org",
                "entry",
                hundred.example_sheet("en"),
                "<hl1@x.org>",
                to=f"{local}+hun@{domain}",
            ),
            mk("h@example.org", "help", "", "<hl2@x.org>", to=to),  # no league named: the player's
            mk("n@example.org", "help", "", "<hl3@x.org>", to=to),
        ],
    )  # a newcomer: two games open
    assert row_of(factory, "<hl1@x.org>").status == "done"
    player = reply_of(factory, row_of(factory, "<hl2@x.org>").id)[1]
    newcomer = reply_of(factory, row_of(factory, "<hl3@x.org>").id)[1]
    for reply in (player, newcomer):
        assert f"hun: {local}+hun@{domain} (Margaret Hundred, Swiss system)" in reply, reply
        assert f"ama: {local}+ama@{domain} (Amaryllis, round robin)" in reply, reply
    assert "Example sheet (Margaret Hundred):" in player, player
    assert hundred.example_sheet("en").strip().splitlines()[0] in player, player
    assert "Example sheet (Amaryllis):" in newcomer, newcomer


def test_a_hundred_league_names_the_budget_and_lists_its_swords_once(
    mail_user, smtp_sink, db_url, factory
) -> None:
    """A Hundred sheet one point over budget was told it "looks like base Margaret" with an
    example in its own notation; an Amaryllis sheet sent to a Hundred league listed the 100
    swords three times."""
    from app.rules import ruleset

    settings = _settings(db_url, mail_user, smtp_sink)
    to = mail_user.address
    assert (
        _send(
            settings,
            factory,
            mail_user,
            "open hun",
            "open hun ruleset=margaret-hundred\n",
            "<mh0@x.com>",
        )[0]
        == "done"
    )
    local, _, domain = to.partition("@")
    over = "Wandering Laika: 20/0/1/2/Haste Sword, Heat Sword, Shock Sword, Absolute Sword\n"
    cycle(
        settings,
        factory,
        mail_user,
        [
            mk("a@example.org", "check", over, "<mh1@x.org>", to=f"{local}+hun@{domain}"),
            mk("b@example.org", "entry", over, "<mh2@x.org>", to=f"{local}+hun@{domain}"),
            mk(
                "c@example.org",
                "entry",
                ruleset().example_sheet("en"),
                "<mh3@x.org>",
                to=f"{local}+hun@{domain}",
            ),
        ],
    )
    for mid in ("<mh1@x.org>", "<mh2@x.org>"):
        reply = reply_of(factory, row_of(factory, mid).id)[1]
        assert "more than the budget of 10" in reply, reply
        assert "looks written for" not in reply, reply
    amaryllis = reply_of(factory, row_of(factory, "<mh3@x.org>").id)[1]
    assert "This sheet looks written for Amaryllis" in amaryllis, amaryllis
    assert amaryllis.count("Years Sword") == 1, amaryllis
    assert amaryllis.count("(see the list above)") == 2, amaryllis
