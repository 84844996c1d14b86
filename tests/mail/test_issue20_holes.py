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
from tests.mail.hostile import BOLT, cycle, mk, reply_of, replies_to, row_of

pytestmark = pytest.mark.dovecot

ALICE = "alice@example.org"
OURS = "Authentication-Results: mx.example.net; "


def active_unit(factory, address: str = ALICE) -> str | None:
    with factory() as s:
        return s.scalar(select(SheetVersion.unit_name).join(Entry, Entry.id == SheetVersion.entry_id)
                        .join(Player, Player.id == Entry.player_id)
                        .where(Player.address == address, SheetVersion.active, Entry.status == "active"))


# ------------------------------------------------------------------ 1. DMARC alignment


@pytest.mark.parametrize(("result", "status", "rules"), [
    # the hole: a pass for another From domain than the one we read
    ("dmarc=pass header.from=evil.test", "refused", ["not-aligned"]),
    # nothing of a header that judged another From is trusted, not even an aligned DKIM pass
    ("dkim=pass header.d=example.org; dmarc=pass header.from=evil.test", "refused", ["not-aligned"]),
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
])
def test_1_a_dmarc_pass_counts_only_for_the_from_domain(result: str, status: str, rules, mail_user,
                                                        smtp_sink, db_url, factory) -> None:
    settings = make_settings(db_url, imap_url=mail_user.imap_url, smtp_url=smtp_sink.url,
                             server_address=mail_user.address, require_auth_results=True,
                             authserv_id="mx.example.net")
    cycle(settings, factory, mail_user,
          [mk(ALICE, "help", "", "<d1@x.org>", to=mail_user.address, headers=OURS + result + "\n")])
    row = row_of(factory, "<d1@x.org>")
    assert (row.status, row.rules) == (status, rules)
    assert len(replies_to(smtp_sink, ALICE)) == (status == "done")


def test_1_a_misaligned_dmarc_pass_replaces_nobodys_unit(mail_user, smtp_sink, db_url, factory) -> None:
    """The reported case: Alice entered with her domain's DMARC pass; a mail ``From: alice@…``
    whose (real) DMARC pass names ``evil.test`` replaced her unit. Now it is refused without a
    reply with ``require_auth_results``, and without that setting it is no proof of ownership: the
    change waits for Alice's confirmation."""
    to = mail_user.address
    for required in (True, False):
        settings = make_settings(db_url, imap_url=mail_user.imap_url, smtp_url=smtp_sink.url,
                                 server_address=to, require_auth_results=required,
                                 authserv_id="mx.example.net")
        if required:
            open_league(factory, "spring")
            cycle(settings, factory, mail_user, [mk(ALICE, "entry", BOLT, "<e1@example.org>", to=to,
                                                    headers=OURS + "dmarc=pass header.from=example.org\n")])
            assert active_unit(factory) == "Bolt"
        evil = OURS + "dmarc=pass header.from=evil.test\n"
        mid = f"<r-{required}@evil.test>"
        cycle(settings, factory, mail_user, [mk(ALICE, "replace", BOLT.replace("Bolt", "Evil"), mid, to=to,
                                                headers=evil)])
        assert active_unit(factory) == "Bolt"
        row = row_of(factory, mid)
        if required:
            assert (row.status, row.rules) == ("refused", ["not-aligned"])
            assert reply_of(factory, row.id)[0] is None
        else:
            _out, reply = reply_of(factory, row.id)
            assert "nothing changes until you confirm" in reply
