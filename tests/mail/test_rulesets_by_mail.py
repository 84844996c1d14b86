"""End to end by mail (real Dovecot IMAP and an SMTP sink on 127.0.0.1): a Margaret league and a
Margaret Hundred league, each entered, played and reported by mail (issue 10 §6, issue 11).

Margaret: entries in both notations (full ``名前：HP／ATK／DEF／SPD／剣名、…`` and compact
``15/0/1/2/速熱衝絶/徘徊するライカ``) and one sheet in Amaryllis notation, answered with the league's
game and an example sheet of it; battle reports with the ruleset record and the final
swordmasters; standings by mail. Hundred: a party sheet (精霊剣 builds wisps) and the league
options printed in every report header."""

from __future__ import annotations

import datetime as dt

from sqlalchemy import select

from app.db.models import Battle, InboundMessage, Round
from app.db.session import transaction
from app.league import service as svc
from app.mail.league_mail import LeagueMail
from app.mail.send import send_once
from app.rules import find_ruleset
from app.rules.base import Outcome
from tests.mail.conftest import NOW, make_settings, open_league
from tests.mail.hostile import cycle, mk, replies_to, reply_of, text

AMARYLLIS_BOLT = "Bolt: 10/2/2/2/Spark, Spark\n- Spark (1): Direct Attack\n"


def _settings(db_url: str, user, sink):  # type: ignore[no-untyped-def]
    return make_settings(
        db_url, imap_url=user.imap_url, smtp_url=sink.url, server_address=user.address
    )


def _reply(factory, mid: str) -> str:  # type: ignore[no-untyped-def]
    with factory() as s:
        row = s.scalar(select(InboundMessage).where(InboundMessage.message_key == mid))
        assert row is not None, mid
    _out, body = reply_of(factory, row.id)
    return body


def _play(factory, settings, name: str) -> None:  # type: ignore[no-untyped-def]
    deadline = NOW + dt.timedelta(days=7)
    with transaction(factory) as s:
        svc.close_entries(s, svc.get_league(s, name), now=deadline)
    svc.run_round(factory, LeagueMail.of(settings), name, all_rounds=True, now=deadline)
    send_once(settings, factory)


def test_a_margaret_league_by_mail(db_url, factory, mail_user, smtp_sink) -> None:  # type: ignore[no-untyped-def]
    settings = _settings(db_url, mail_user, smtp_sink)
    open_league(factory, "m", ruleset="margaret")
    to = mail_user.address
    full = "ライカ：15／0／1／2／加速剣、加熱剣、衝撃剣、絶対剣\n"
    compact = "15/0/1/2/速熱衝絶/徘徊するライカ\n"
    english = "Nut: 10/1/1/2/Heat Sword, Shock Sword, Absolute Sword, Life Sword\n"
    cycle(
        settings,
        factory,
        mail_user,
        [
            mk("a@example.org", "entry", full, "<m1@example.org>", to=to),
            mk(
                "b@example.org",
                "entry",
                "Hello, my entry:\n\n" + compact,
                "<m2@example.org>",
                to=to,
            ),
            mk("c@example.org", "entry", english, "<m3@example.org>", to=to),
            mk("d@example.org", "entry", AMARYLLIS_BOLT, "<m4@example.org>", to=to),
            mk(
                "e@example.org",
                "entry",
                "ヌト：10/1/1/2/加熱剣、衝撃剣、絶対剣、命の剣、加速剣\n",
                "<m5@example.org>",
                to=to,
            ),
        ],
    )
    rs = find_ruleset("margaret")()
    assert "ライカ：１５／０／１／２／加速剣、加熱剣、衝撃剣、絶対剣" in _reply(
        factory, "<m1@example.org>"
    ) or rs.format_sheet(rs.parse_sheet(full).entry, "ja") in _reply(factory, "<m1@example.org>")
    second = _reply(factory, "<m2@example.org>")
    assert rs.format_sheet(rs.parse_sheet(compact).entry, "ja") in second
    assert "Nut" in _reply(factory, "<m3@example.org>") and "accepted" in _reply(
        factory, "<m3@example.org>"
    )
    wrong = _reply(factory, "<m4@example.org>")
    assert "Amaryllis" in wrong and "Margaret" in wrong and "not accepted" in wrong
    assert rs.example_sheet("en") in wrong  # the example of the league's game
    over = _reply(factory, "<m5@example.org>")  # one sword too many: line and fix, in Japanese
    assert "１行目" in over and "受け付けられませんでした" in over
    _play(factory, settings, "m")
    with factory() as s:
        league = svc.get_league(s, "m")
        assert league.state == "finished"
        battles = list(
            s.scalars(
                select(Battle)
                .join(Round)
                .where(Round.league_id == league.id, Battle.entry_b_id.is_not(None))
            )
        )
        assert len(battles) == 3  # three entries accepted
        for b in battles:
            o = Outcome.from_json(b.outcome)
            assert len(o.final[0]) == len(o.final[1]) == 1 and o.margin == b.margin
    reports = [m for m in smtp_sink.messages if "vs" in str(m.parsed()["Subject"])]
    assert len(reports) == 6
    for m in reports:
        body = text(m)
        lang = "ja" if "回戦" in body else "en"
        for line in rs.describe(lang):
            assert line in body
        assert ("最終状態" if lang == "ja" else "Final state") in body
    cycle(
        settings,
        factory,
        mail_user,
        [mk("a@example.org", "standings", "", "<m6@example.org>", to=to)],
        now=NOW + dt.timedelta(days=8),
    )
    table = _reply(factory, "<m6@example.org>")
    for label in ("ライカ", "徘徊するライカ", "Nut"):
        assert label in table
    assert replies_to(smtp_sink, "a@example.org")


def test_a_margaret_hundred_league_by_mail(db_url, factory, mail_user, smtp_sink) -> None:  # type: ignore[no-untyped-def]
    settings = _settings(db_url, mail_user, smtp_sink)
    options = {"party_cap": 3, "budget": 10, "heavens_door": "ignore"}
    open_league(factory, "h", ruleset="margaret-hundred", options=options)
    rs = find_ruleset("margaret-hundred")(options)
    to = mail_user.address
    party = "5/0/0/3/精速精衝/精霊使い\n"  # 精霊剣 with no MP cost: builds a wisp every turn
    samples = rs.sample_sheets()[:2]
    cycle(
        settings,
        factory,
        mail_user,
        [
            mk("a@example.org", "entry", party, "<h1@example.org>", to=to),
            mk("b@example.org", "entry", samples[0], "<h2@example.org>", to=to),
            mk("c@example.org", "entry", samples[1], "<h3@example.org>", to=to),
        ],
    )
    first = _reply(factory, "<h1@example.org>")
    assert "精霊使い" in first and "受け付けました" in first
    _play(factory, settings, "h")
    with factory() as s:
        league = svc.get_league(s, "h")
        battles = list(
            s.scalars(
                select(Battle)
                .join(Round)
                .where(Round.league_id == league.id, Battle.entry_b_id.is_not(None))
            )
        )
        assert len(battles) == 3
        parties = [Outcome.from_json(b.outcome) for b in battles]
        assert any(len(side) > 1 for o in parties for side in o.final)  # the wisps' party
    reports = [m for m in smtp_sink.messages if "vs" in str(m.parsed()["Subject"])]
    assert len(reports) == 6
    for m in reports:
        body = text(m)
        lang = "ja" if "回戦" in body else "en"
        header = rs.describe(lang)
        assert any("3" in line for line in header)  # the party cap is in the record
        for line in header:
            assert line in body
