"""Issue 20, item 1, a player's identity by mail: a rejected or refused mail renames nobody;
display names are unique after NFKC and case folding, a taken one is refused with a free
variant; a player who gives no name gets a readable default in their language, the same on
every surface. Through real Dovecot, the poller, the pipeline and the SMTP sink."""

from __future__ import annotations

import re

import pytest
from sqlalchemy import select

from app.db.models import League, Player
from app.db.session import transaction
from app.rules import ruleset
from tests.mail.conftest import make_settings, open_league
from tests.mail.hostile import BOLT, cycle, mk, reply_of, row_of

pytestmark = pytest.mark.dovecot

ALICE, BOB, CAROL = "alice@example.org", "bob@example.org", "carol@example.org"
BROKEN = "Broken: 10/1/1/2/Nothing\n"


def name_of(factory, address: str) -> str | None:
    with factory() as s:
        return s.scalar(select(Player.display_name).where(Player.address == address))


def key_in(reply: str) -> str:
    found = re.search(r"(?:key: |キー：)(\w{4}-\w{4})", reply)
    assert found is not None, reply
    return found.group(1)


@pytest.fixture
def settings(mail_user, smtp_sink, db_url):
    return make_settings(
        db_url,
        imap_url=mail_user.imap_url,
        smtp_url=smtp_sink.url,
        server_address=mail_user.address,
    )


def test_a_rejected_or_refused_mail_renames_nobody(settings, mail_user, factory) -> None:
    """The reported case: a sheet refused in one league, with a ``名前：秋`` line, renamed its
    sender. Neither a rejected sheet, a refused mail (a league password missing) nor a check
    changes the name; the accepted entry does."""
    to = mail_user.address
    open_league(factory, "spring")
    open_league(factory, "locked", password="sesame")
    cycle(
        settings,
        factory,
        mail_user,
        [mk(ALICE, "[spring] entry", "name: Alice\n" + BOLT, "<n1@example.org>", to=to)],
    )
    assert name_of(factory, ALICE) == "Alice"
    cycle(
        settings,
        factory,
        mail_user,
        [
            mk(ALICE, "[spring] replace", "名前：秋\n" + BROKEN, "<n2@example.org>", to=to),
            mk(ALICE, "[locked] entry", "名前：秋\n" + BOLT, "<n3@example.org>", to=to),
            mk(ALICE, "check", "名前：秋\n" + BOLT, "<n4@example.org>", to=to),
        ],
    )
    assert row_of(factory, "<n3@example.org>").status == "refused"
    assert name_of(factory, ALICE) == "Alice"
    # a new sender whose first sheet is rejected is left without a name, not given one
    cycle(
        settings,
        factory,
        mail_user,
        [
            mk(
                f"Bob Namesake <{BOB}>",
                "[spring] entry",
                "名前：秋\n" + BROKEN,
                "<n5@example.org>",
                to=to,
            )
        ],
    )
    assert name_of(factory, BOB) in ("", None)


def test_names_are_unique_after_nfkc_and_case_folding(settings, mail_user, factory) -> None:
    to = mail_user.address
    open_league(factory, "spring")
    cycle(
        settings,
        factory,
        mail_user,
        [mk(CAROL, "entry", "name: aki\n" + BOLT, "<u1@example.org>", to=to)],
    )
    assert name_of(factory, CAROL) == "aki"
    cycle(
        settings,
        factory,
        mail_user,
        [
            mk(
                BOB,
                "entry",
                "name: ＡＫＩ\n" + BOLT.replace("Bolt", "Volt"),
                "<u2@example.org>",
                to=to,
            )
        ],
    )
    _out, reply = reply_of(factory, row_of(factory, "<u2@example.org>").id)
    assert "is accepted" in reply
    bob = name_of(factory, BOB)
    assert bob and bob.startswith("Nameless "), bob  # Bob's entry stands, under a default
    assert 'The name "AKI" is taken' in reply
    assert f'Other players see you as "{bob}".' in reply
    assert '"AKI 2" is free' in reply and '"name: AKI 2"' in reply
    # the suggestion, with the key, is taken at once; a spaced look-alike is not
    key = key_in(reply)
    cycle(
        settings,
        factory,
        mail_user,
        [mk(BOB, "replace", f"key: {key}\nname: AKI 2\n" + BOLT, "<u3@example.org>", to=to)],
    )
    assert name_of(factory, BOB) == "AKI 2"
    _out, reply = reply_of(factory, row_of(factory, "<u3@example.org>").id)
    assert 'Other players see you as "AKI 2".' in reply
    cycle(
        settings,
        factory,
        mail_user,
        [mk("dave@example.org", "entry", "name: A k I\n" + BOLT, "<u4@example.org>", to=to)],
    )
    assert name_of(factory, "dave@example.org").startswith("Nameless ")
    with factory() as s:
        keys = list(s.scalars(select(Player.name_key).where(Player.name_key.is_not(None))))
    assert len(keys) == len(set(keys)) == 3


@pytest.mark.parametrize("lang", ["ja", "en"])
def test_no_name_line_gets_a_readable_default_in_the_players_language(
    lang: str, settings, mail_user, factory
) -> None:
    """13 of 21 players of the trial appeared as "player #17": a database id, in English even
    in Japanese mails. A default is a flower in the player's language, the same in the reply,
    the standings mail, and the league's pages."""
    to = mail_user.address
    open_league(factory, "spring")
    with transaction(factory) as s:
        s.scalar(select(League)).show_entrants = True
    sheets = ruleset().sample_sheets()
    sheet = sheets[0] if lang == "ja" else next(t for t in sheets if t.isascii())
    cycle(settings, factory, mail_user, [mk(ALICE, "", sheet, "<d1@example.org>", to=to)])
    name = name_of(factory, ALICE)
    assert name and "#" not in name
    assert name.startswith("名無しの" if lang == "ja" else "Nameless "), name
    _out, reply = reply_of(factory, row_of(factory, "<d1@example.org>").id)
    seen = (
        f"他のプレイヤーには「{name}」と表示されます。"
        if lang == "ja"
        else f'Other players see you as "{name}".'
    )
    assert seen in reply, reply
    cycle(settings, factory, mail_user, [mk(ALICE, "standings", "", "<d2@example.org>", to=to)])
    _out, table = reply_of(factory, row_of(factory, "<d2@example.org>").id)
    assert name in table and "player #" not in table


def test_a_set_name_changes_only_with_a_proof(settings, mail_user, factory) -> None:
    """Anyone can write Alice's address in From: a first entry in another league (no key
    needed) does not rename her; the reply says so and how; with her key the name changes."""
    to = mail_user.address
    open_league(factory, "spring")
    open_league(factory, "autumn")
    cycle(
        settings,
        factory,
        mail_user,
        [mk(ALICE, "[spring] entry", "name: Alice\n" + BOLT, "<p1@example.org>", to=to)],
    )
    cycle(
        settings,
        factory,
        mail_user,
        [mk(ALICE, "[autumn] entry", "name: Mallory\n" + BOLT, "<p2@example.org>", to=to)],
    )
    _out, reply = reply_of(factory, row_of(factory, "<p2@example.org>").id)
    assert "is accepted" in reply and name_of(factory, ALICE) == "Alice"
    assert 'Your name was not changed to "Mallory"' in reply
    assert 'Other players see you as "Alice".' in reply
    key = key_in(reply)
    cycle(
        settings,
        factory,
        mail_user,
        [
            mk(
                ALICE,
                "[autumn] replace",
                f"key: {key}\nname: Alicia\n" + BOLT,
                "<p3@example.org>",
                to=to,
            )
        ],
    )
    assert name_of(factory, ALICE) == "Alicia"
