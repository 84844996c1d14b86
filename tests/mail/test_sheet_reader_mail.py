"""The same mail-style sheets the offline commands read (``tests/test_sheet_reader_cli.py``)
are read alike by mail, for every ruleset: one reader (issue 20, item 9). Through real Dovecot,
the poller, the pipeline and the SMTP sink."""

from __future__ import annotations

import pytest

from app.rules import all_rulesets, ruleset
from tests.mail.conftest import make_settings, open_league
from tests.mail.hostile import cycle, mk, reply_of, row_of
from tests.test_sheet_reader_cli import wrapped

pytestmark = pytest.mark.dovecot


@pytest.mark.parametrize("name", [cls.name for cls in all_rulesets()])
def test_mail_reads_the_sheets_the_offline_commands_read(
    name: str, mail_user, smtp_sink, db_url, factory
) -> None:
    settings = make_settings(
        db_url,
        imap_url=mail_user.imap_url,
        smtp_url=smtp_sink.url,
        server_address=mail_user.address,
    )
    open_league(factory, "lg", ruleset=name)
    samples = ruleset(name).sample_sheets()[:3]
    cycle(
        settings,
        factory,
        mail_user,
        [
            mk(
                "ben@example.org",
                "[lg] check",
                wrapped(s, i),
                f"<c{i}@example.org>",
                to=mail_user.address,
            )
            for i, s in enumerate(samples)
        ],
    )
    for i in range(len(samples)):
        _out, reply = reply_of(factory, row_of(factory, f"<c{i}@example.org>").id)
        assert "The sheet is valid" in reply or "シートに問題はありません" in reply, reply
