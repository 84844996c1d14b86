"""Issue 20, the holes by mail: a DMARC pass counts only for the From domain it names (RFC 7489
§3.1), every mail counts toward the sender's daily limit, and a body that starts with a
byte-order mark reads as the sheet it is. Through real Dovecot, the poller, the pipeline and the
SMTP sink."""

from __future__ import annotations

import re

import pytest
from sqlalchemy import select

from app.db.models import Entry, Player, SheetVersion
from tests.mail.conftest import make_settings, open_league
from tests.mail.hostile import BOLT, cycle, mk, replies_to, reply_of, row_of

pytestmark = pytest.mark.dovecot

ALICE = "alice@example.org"
OURS = "Authentication-Results: mx.example.net; "


def active_unit(factory, address: str = ALICE) -> str | None:
    with factory() as s:
        return s.scalar(
            select(SheetVersion.unit_name)
            .join(Entry, Entry.id == SheetVersion.entry_id)
            .join(Player, Player.id == Entry.player_id)
            .where(Player.address == address, SheetVersion.active, Entry.status == "active")
        )


# ------------------------------------------------------------------ 1. DMARC alignment


@pytest.mark.parametrize(
    ("result", "status", "rules"),
    [
        # the hole: a pass for another From domain than the one we read
        ("dmarc=pass header.from=evil.test", "refused", ["not-aligned"]),
        # nothing of a header that judged another From is trusted, not even an aligned DKIM pass
        (
            "dkim=pass header.d=example.org; dmarc=pass header.from=evil.test",
            "refused",
            ["not-aligned"],
        ),
        ("dmarc=pass header.from=mail.example.org", "refused", ["not-aligned"]),
        ("dmarc=pass", "refused", ["not-aligned"]),  # a pass that names no domain proves nothing
        ("dmarc=pass (p=reject) header.from=EXAMPLE.ORG.", "done", None),
        # DKIM and SPF without a DMARC result: relaxed alignment without the public-suffix list
        ("dkim=pass header.d=mail.example.org", "done", None),
        ("dkim=pass header.d=org", "refused", ["not-aligned"]),
        ("dkim=pass header.d=evil.test", "refused", ["not-aligned"]),
        ("spf=pass smtp.mailfrom=bounce@evil.test", "refused", ["not-aligned"]),
        ("spf=pass smtp.mailfrom=bounce@example.org", "done", None),
        ("dmarc=pass; spf=pass smtp.mailfrom=bounce@bounces.example.org", "done", None),
    ],
)
def test_1_a_dmarc_pass_counts_only_for_the_from_domain(
    result: str, status: str, rules, mail_user, smtp_sink, db_url, factory
) -> None:
    settings = make_settings(
        db_url,
        imap_url=mail_user.imap_url,
        smtp_url=smtp_sink.url,
        server_address=mail_user.address,
        require_auth_results=True,
        authserv_id="mx.example.net",
    )
    cycle(
        settings,
        factory,
        mail_user,
        [mk(ALICE, "help", "", "<d1@x.org>", to=mail_user.address, headers=OURS + result + "\n")],
    )
    row = row_of(factory, "<d1@x.org>")
    assert (row.status, row.rules) == (status, rules)
    assert len(replies_to(smtp_sink, ALICE)) == (status == "done")


def test_1_a_misaligned_dmarc_pass_replaces_nobodys_unit(
    mail_user, smtp_sink, db_url, factory
) -> None:
    """The reported case: Alice entered with her domain's DMARC pass; a mail ``From: alice@…``
    whose (real) DMARC pass names ``evil.test`` replaced her unit. Now it is refused without a
    reply with ``require_auth_results``, and without that setting it is no proof of ownership: the
    change waits for Alice's confirmation."""
    to = mail_user.address
    for required in (True, False):
        settings = make_settings(
            db_url,
            imap_url=mail_user.imap_url,
            smtp_url=smtp_sink.url,
            server_address=to,
            require_auth_results=required,
            authserv_id="mx.example.net",
        )
        if required:
            open_league(factory, "spring")
            passed = OURS + "dmarc=pass header.from=example.org\n"
            cycle(
                settings,
                factory,
                mail_user,
                [mk(ALICE, "entry", BOLT, "<e1@example.org>", to=to, headers=passed)],
            )
            assert active_unit(factory) == "Bolt"
        evil = OURS + "dmarc=pass header.from=evil.test\n"
        mid = f"<r-{required}@evil.test>"
        cycle(
            settings,
            factory,
            mail_user,
            [mk(ALICE, "replace", BOLT.replace("Bolt", "Evil"), mid, to=to, headers=evil)],
        )
        assert active_unit(factory) == "Bolt"
        row = row_of(factory, mid)
        if required:
            assert (row.status, row.rules) == ("refused", ["not-aligned"])
            assert reply_of(factory, row.id)[0] is None
        else:
            _out, reply = reply_of(factory, row.id)
            assert "nothing changes until you confirm" in reply


# ------------------------------------------------------------------ 2. every mail counts


def key_in(reply: str) -> str:
    return re.search(r"key: (\w{4}-\w{4})", reply).group(1)


def test_2_keyed_mail_counts_toward_the_daily_limit(mail_user, smtp_sink, db_url, factory) -> None:
    """Mail with the entry key skipped the daily limit: 60 keyed replacements got 61 replies with
    the limit at 50. Now every mail counts; proven mail on a count of its own, so the forgeries
    of the same day (counted on the other) still cannot silence it."""
    limit = 4
    to = mail_user.address
    settings = make_settings(
        db_url,
        imap_url=mail_user.imap_url,
        smtp_url=smtp_sink.url,
        server_address=to,
        rate_limit_per_day=limit,
    )
    open_league(factory, "spring")
    cycle(settings, factory, mail_user, [mk(ALICE, "entry", BOLT, "<k0@example.org>", to=to)])
    key = key_in(reply_of(factory, row_of(factory, "<k0@example.org>").id)[1])
    # forgeries use up the unproven count (1 entry + 3 helps = 4, then one notice)
    cycle(
        settings,
        factory,
        mail_user,
        [mk(ALICE, "help", "", f"<f{i}@evil.test>", to=to) for i in range(6)],
    )
    assert [row_of(factory, f"<f{i}@evil.test>").status for i in range(6)] == ["done"] * 3 + [
        "refused"
    ] * 3
    # ten keyed replacements: the first `limit` are made and answered, one notice, then silence
    sheets = [f"key: {key}\n" + BOLT.replace("Bolt", f"Volt{chr(65 + i)}") for i in range(10)]
    cycle(
        settings,
        factory,
        mail_user,
        [
            mk(ALICE, "replace", sheet, f"<k{i + 1}@example.org>", to=to)
            for i, sheet in enumerate(sheets)
        ],
    )
    rows = [row_of(factory, f"<k{i + 1}@example.org>") for i in range(10)]
    assert [r.status for r in rows] == ["done"] * limit + ["refused"] * (10 - limit)
    assert {tuple(r.rules) for r in rows[limit:]} == {("rate-limit",)}
    # nothing past the limit was entered
    assert active_unit(factory) == f"Volt{chr(65 + limit - 1)}"
    notices = [reply_of(factory, r.id)[1] for r in rows[limit:]]
    assert "today's limit of 4 mails" in notices[0] and notices[1:] == [""] * (10 - limit - 1)
    # every mail that reached Alice: 4 + 1 notice unproven, 4 + 1 notice proven
    assert len(replies_to(smtp_sink, ALICE)) == 2 * (limit + 1)


# ------------------------------------------------------------------ 4. a byte-order mark


def _b64(text: str) -> str:
    import base64

    return base64.encodebytes(text.encode("utf-8")).decode("ascii")


def test_4_a_body_or_attachment_that_starts_with_a_bom_is_the_sheet_it_is(
    mail_user, smtp_sink, db_url, factory
) -> None:
    """A UTF-8 sheet beginning with U+FEFF (as some editors and clients write it) was refused for
    an invisible character in the unit name. The mark is dropped where each part's text is
    decoded: a plain body (8bit, base64, quoted-printable), an HTML part, a text attachment."""
    to = mail_user.address
    settings = make_settings(
        db_url, imap_url=mail_user.imap_url, smtp_url=smtp_sink.url, server_address=to
    )
    open_league(factory, "spring")
    bom = "\ufeff"
    sheet = lambda name: BOLT.replace("Bolt", name)  # noqa: E731
    mails = {
        "a@example.org": mk(
            "a@example.org", "entry", bom + sheet("Ann"), "<b1@example.org>", to=to
        ),
        # two marks: a file saved twice by a BOM-writing editor
        "b@example.org": mk(
            "b@example.org",
            "entry",
            (bom * 2 + sheet("Ben")).encode("utf-8"),
            "<b2@example.org>",
            to=to,
        ),
        "c@example.org": mk(
            "c@example.org",
            "entry",
            _b64(bom + sheet("Cid")),
            "<b3@example.org>",
            to=to,
            cte="base64",
        ),
        "d@example.org": mk(
            "d@example.org",
            "entry",
            "=EF=BB=BF" + sheet("Dee"),
            "<b4@example.org>",
            to=to,
            cte="quoted-printable",
        ),
        "e@example.org": mk(
            "e@example.org",
            "entry",
            "--X\nContent-Type: text/plain; charset=utf-8\n\n" + bom + "entry, sheet attached\n"
            "--X\nContent-Type: text/plain; charset=utf-8; name=eve.txt\n"
            "Content-Disposition: attachment; filename=eve.txt\n"
            "Content-Transfer-Encoding: base64\n\n" + _b64(bom + sheet("Eve")) + "--X--\n",
            "<b5@example.org>",
            to=to,
            ctype='multipart/mixed; boundary="X"',
        ),
        "f@example.org": mk(
            "f@example.org",
            "entry",
            bom + "<html><body><p>" + sheet("Fay").replace("\n", "<br>") + "</p></body></html>",
            "<b6@example.org>",
            to=to,
            ctype="text/html; charset=utf-8",
        ),
    }
    cycle(settings, factory, mail_user, list(mails.values()))
    names = ["Ann", "Ben", "Cid", "Dee", "Eve", "Fay"]
    for i, (address, name) in enumerate(zip(mails, names, strict=False), start=1):
        row = row_of(factory, f"<b{i}@example.org>")
        reply = reply_of(factory, row.id)[1]
        assert row.status == "done" and active_unit(factory, address) == name, (address, reply)
        assert "U+FEFF" not in reply and bom not in reply
    # a U+FEFF inside the name is still refused: only the start of a text is a signature
    cycle(
        settings,
        factory,
        mail_user,
        [mk("g@example.org", "entry", sheet("G" + bom + "us"), "<b7@example.org>", to=to)],
    )
    assert "<U+FEFF>" in reply_of(factory, row_of(factory, "<b7@example.org>").id)[1]
    assert active_unit(factory, "g@example.org") is None
