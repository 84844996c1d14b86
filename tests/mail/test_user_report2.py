"""Bugs found by the second user test of the mail interface, each reproduced with a real text or
inline RFC 5322 mail: ISO-2022-JP replies with characters outside JIS X 0208, league choice by the
sender's entries, chatty replies to a report, the greeting note, sign-offs below the sheet, the
blank line before the signature."""

from __future__ import annotations

import email
import email.policy
import logging

import pytest
from sqlalchemy import select

from app.mail.compose import build_message, to_jis
from app.mail.league_mail import LeagueMail
from app.mail.pipeline import process_pending
from tests.mail.conftest import NOW, entry_key, make_settings, open_league
from tests.mail.test_rules_and_commands import mail_from, outcome, store

GRISK = (
    "グリスク：１０／１／１／２／シールド、スピア、スピア、ブースト\n"
    "・シールド（１）：防御力＋２＜リミテッド＞\n"
    "・スピア（１）：直接攻撃＜遅延起動４＞＜効果２倍＞\n"
    "・ブースト（１）：攻撃力＋１\n"
)
BOLT = "Bolt: 10/2/2/2/Spark, Spark\n- Spark (1): Direct Attack\n"

# ------------------------------------------------------------ 1. ISO-2022-JP after the JIS mapping


def _league_report() -> tuple[str, str]:
    """A real league battle report (ja, text) and its subject: グリスク vs ヌト, whose log has
    negative HP (``ＨＰ－１``) and whose header and subject have the em dash."""
    import app.rules.amaryllis as rules
    from app.mail.sheets import sample_units
    from app.reports.battle import render_battle
    from app.reports.league_battle import LeagueBattleContext, render_league_battle, subject

    a, b = (rules.parse_sheet(t).unit for t in sample_units()[:2])
    result = rules.battle(a, b, log=True)
    report = render_battle(a, b, result, lang="ja", fmt="text", title=f"{a.name} ― {b.name}")
    ctx = LeagueBattleContext(
        league="spring",
        round=5,
        board=1,
        player_a="Ann",
        unit_a=a.name,
        player_b="Bob",
        unit_b=b.name,
        winner="A",
        winner_unit=a.name,
        reason="death",
        turns=4,
        hp=(3, -1),
        report=report,
        engine_version="1",
        engine_note="",
    )
    return render_league_battle(ctx, lang="ja", fmt="text"), subject(ctx, "ja")


def test_a_battle_report_goes_out_in_iso_2022_jp(caplog: pytest.LogCaptureFixture) -> None:
    text, subj = _league_report()
    assert "－" in text and "—" in subj, (text, subj)
    with pytest.raises(UnicodeEncodeError):
        text.encode("iso-2022-jp")  # the bug: this made the whole mail UTF-8
    caplog.set_level(logging.INFO, logger="app.mail.compose")
    msg = build_message(
        sender="tourney@localhost",
        to="a@example.com",
        subject=subj,
        text=text,
        charset="iso-2022-jp",
    )
    raw = msg.as_bytes()
    assert raw.isascii()
    back = email.message_from_bytes(raw, policy=email.policy.default)
    part = back.get_body(("plain",))
    assert part.get_content_charset() == "iso-2022-jp"
    assert part.get_content().rstrip("\n") == to_jis(text).rstrip("\n")
    assert "ＨＰ−" in part.get_content() or "−" in part.get_content()
    assert b"=?iso-2022-jp?" in raw.split(b"\n\n", 1)[0].lower()
    assert back["Subject"] == to_jis(subj) and "―" in back["Subject"]
    assert not [r for r in caplog.records if r.name == "app.mail.compose"]  # no fallback


@pytest.mark.parametrize(
    ("cp932", "jis"),
    [
        ("—", "―"),
        ("－", "−"),
        ("～", "〜"),
        ("∥", "‖"),
        ("￠", "¢"),
        ("￡", "£"),
        ("￢", "¬"),
        ("ｶﾞﾝﾀﾞﾑ", "ガンダム"),
    ],
)
def test_the_cp932_jis_mismatches_are_mapped(cp932: str, jis: str) -> None:
    assert to_jis(cp932) == jis
    msg = build_message(
        sender="tourney@localhost",
        to="a@example.com",
        subject=f"件名{cp932}",
        text=f"本文{cp932}\n",
        charset="iso-2022-jp",
    )
    back = email.message_from_bytes(msg.as_bytes(), policy=email.policy.default)
    assert back.get_body(("plain",)).get_content_charset() == "iso-2022-jp"
    assert back.get_body(("plain",)).get_content() == f"本文{jis}\n"
    assert back["Subject"] == f"件名{jis}"


def test_only_what_jis_cannot_hold_falls_back_to_utf8(caplog: pytest.LogCaptureFixture) -> None:
    caplog.set_level(logging.INFO, logger="app.mail.compose")
    msg = build_message(
        sender="tourney@localhost",
        to="a@example.com",
        subject="勝利 — ①",
        text="ＨＰ－１ ✓\n",
        charset="iso-2022-jp",
    )
    back = email.message_from_bytes(msg.as_bytes(), policy=email.policy.default)
    part = back.get_body(("plain",))
    assert part.get_content_charset() == "utf-8" and part.get_content() == "ＨＰ－１ ✓\n"
    assert back["Subject"] == "勝利 — ①"
    logged = [r.getMessage() for r in caplog.records if r.name == "app.mail.compose"]
    assert len(logged) == 2 and all(
        r.levelno == logging.INFO for r in caplog.records if r.name == "app.mail.compose"
    ), logged


# ------------------------------------------------------------ 4. the greeting note counts text lines


def test_the_greeting_note_counts_only_lines_with_text(db_url, factory) -> None:
    settings = make_settings(db_url)
    open_league(factory, "spring")
    sheet = GRISK
    first = store(factory, mail_from("a@example.com", "", "登録\n" + sheet, 1))
    process_pending(settings, factory, now=NOW)
    key = entry_key(factory, "a@example.com")
    rid = store(
        factory,
        mail_from(
            "a@example.com",
            "",
            f"差し替え\nこんにちは、よろしくお願いします。\nキー：{key}\n" + sheet,
            2,
        ),
    )
    process_pending(settings, factory, now=NOW)
    assert "挨拶" not in outcome(factory, first)[1]
    row, text = outcome(factory, rid)
    assert row.command == "entry" and "差し替え（第2版）" in text, text
    assert "ユニット行より前の1行（2行目）は挨拶として読み飛ばしました" in text, text
    assert "3行" not in text


# ------------------------------------------------------------ 2. the sender's own league first


def _enter(factory, settings, league: str, address: str, n: int) -> None:
    rid = store(
        factory, mail_from(address, f"[{league}] entry", BOLT.replace("Bolt", f"B{n}"), 100 + n)
    )
    process_pending(settings, factory, now=NOW)
    assert "is accepted" in outcome(factory, rid)[1]


def _close(factory, settings, league: str) -> None:
    from app.db.session import transaction
    from app.league.service import close_entries, find_league

    with transaction(factory) as s:
        close_entries(s, find_league(s, league), now=NOW, mail=LeagueMail.of(settings))


def _ask(factory, settings, address: str, subject: str, body: str, n: int) -> str:
    rid = store(factory, mail_from(address, subject, body, 200 + n))
    process_pending(settings, factory, now=NOW)
    return outcome(factory, rid)[1]


def test_an_untagged_mail_goes_to_the_senders_own_league(db_url, factory) -> None:
    settings = make_settings(db_url)
    open_league(factory, "spring")
    for n, who in enumerate(("carol", "dave")):
        _enter(factory, settings, "spring", f"{who}@example.com", n)
    _close(factory, settings, "spring")  # spring is running now
    open_league(factory, "autumn")
    text = _ask(factory, settings, "carol@example.com", "", "順位表\n", 1)
    assert "リーグ「spring」の現在の順位" in text and "autumn" not in text, text
    text = _ask(factory, settings, "carol@example.com", "", "辞退\n", 2)
    assert "リーグ「spring」のエントリー受付は終了しています" in text and "autumn" not in text, text
    # someone with no entry: the only open league, as before
    text = _ask(factory, settings, "erin@example.com", "standings", "", 3)
    assert 'League "autumn" takes entries' in text, text  # open: the secrecy notice
    # carol enters autumn too: two current leagues, so she is asked which, with her leagues listed
    _enter(factory, settings, "autumn", "carol@example.com", 4)
    text = _ask(factory, settings, "carol@example.com", "standings", "", 5)
    assert (
        "more than one league" in text
        and "Your leagues: autumn (tourney+autumn@localhost), spring (tourney+spring@localhost)"
        in text
    ), text
    # a replacement goes to the open league she is entered in, though two leagues are open
    open_league(factory, "winter")
    key = entry_key(factory, "carol@example.com", "autumn")
    text = _ask(
        factory,
        settings,
        "carol@example.com",
        "replace",
        f"key: {key}\n" + BOLT.replace("Bolt", "Volt"),
        6,
    )
    assert 'replacement unit (version 2) for league "autumn"' in text, text
    # withdraw works only while entries are open: the open league she is entered in
    text = _ask(factory, settings, "carol@example.com", "withdraw", f"key: {key}\n", 7)
    assert 'entry in league "autumn" is withdrawn' in text, text
    # a fresh entry from someone with no entry still needs the league named
    text = _ask(factory, settings, "frank@example.com", "entry", BOLT, 8)
    assert "Which league is this for?" in text, text


# ------------------------------------------------------------ 3. a chatty reply is no entry


def test_a_chatty_reply_to_a_report_gets_no_command_found(db_url, factory) -> None:
    settings = make_settings(db_url)
    open_league(factory, "spring")
    for n, who in enumerate(("carol", "dave")):
        _enter(factory, settings, "spring", f"{who}@example.com", n)
    _close(factory, settings, "spring")
    chat = store(
        factory,
        mail_from(
            "carol@example.com",
            "Re: [spring] Round 5: B0 vs B1 — B1 wins",
            "Great game!\n\nOn Sun, 29 Nov 2026, Amaryllis wrote:\n> Round 5 of spring: B0 vs B1\n",
            1,
        ),
    )
    chat_ja = store(
        factory,
        mail_from(
            "dave@example.com",
            "Re: [spring] 第5回戦：B0 vs B1 — B1の勝利",
            "対戦ありがとうございました！\n> 第5回戦：B0 vs B1\n",
            2,
        ),
    )
    fresh = store(factory, mail_from("erin@example.com", "", "Hello, how do I join?\n", 3))
    process_pending(settings, factory, now=NOW)
    row, text = outcome(factory, chat)
    assert row.status == "done" and row.command == "help", (row.command, text)
    assert "No command and no unit sheet were found" in text and "closed" not in text, text
    assert "How to use the Amaryllis tournament server" in text
    row, text = outcome(factory, chat_ja)
    assert "コマンドもユニットのシートも見つからなかった" in text and "受付は終了" not in text, text
    assert "アマリリス対戦サーバの使い方" in text
    assert "No command and no unit sheet" in outcome(factory, fresh)[1]


def test_a_fresh_broken_sheet_still_gets_the_sheet_errors(db_url, factory) -> None:
    settings = make_settings(db_url)
    open_league(factory, "autumn")
    rid = store(factory, mail_from("erin@example.com", "", "Grisk: 10/1\n- G: Guard\n", 1))
    reply_rid = store(
        factory, mail_from("erin@example.com", "Re: hello", "Grisk: 10/1/1/2/G\n- G: Guard\n", 2)
    )
    process_pending(settings, factory, now=NOW)
    row, text = outcome(factory, rid)
    assert row.command == "entry" and "was not accepted" in text, text
    assert "No command" not in text
    assert "is accepted" in outcome(factory, reply_rid)[1]  # a sheet in a reply is an entry


# ------------------------------------------------------------ 5. a sign-off below the sheet


def test_a_sign_off_below_the_sheet_gets_the_signature_hint(db_url, factory) -> None:
    settings = make_settings(db_url)
    open_league(factory, "spring")
    en = store(factory, mail_from("bob@example.com", "entry", BOLT + "\nThanks,\nBob\n", 1))
    ja = store(
        factory,
        mail_from("kei@example.com", "チェック", GRISK + "\nよろしくお願いします。\n圭\n", 2),
    )
    signed = store(
        factory, mail_from("amy@example.com", "entry", BOLT + "\n-- \nThanks,\nAmy\n", 3)
    )
    other = store(
        factory, mail_from("cy@example.com", "check", BOLT.replace("Direct", "Direkt"), 4)
    )
    process_pending(settings, factory, now=NOW)
    text = outcome(factory, en)[1]
    assert "Delete other lines or start them with #" in text, text
    assert 'closing remarks ("Thanks," and your name) go below a signature line "-- "' in text, text
    text = outcome(factory, ja)[1]
    assert "「-- 」（ハイフン2つと空白1つ）だけの署名区切り行" in text, text
    assert "is accepted" in outcome(factory, signed)[1]
    text = outcome(factory, other)[1]
    assert "problems" in text and "signature line" not in text, text


def test_the_test_battle_reply_to_a_jis_player_is_iso_2022_jp(db_url, factory) -> None:
    from app.db.models import OutboxMessage

    settings = make_settings(db_url)
    store(factory, mail_from("kei@example.com", "文字コード JIS", "", 1))
    rid = store(factory, mail_from("kei@example.com", "テスト", GRISK, 2))
    process_pending(settings, factory, now=NOW)
    with factory() as s:
        raw = s.scalars(select(OutboxMessage).where(OutboxMessage.inbound_id == rid)).one().raw
    part = email.message_from_bytes(raw, policy=email.policy.default).get_body(("plain",))
    assert part.get_content_charset() == "iso-2022-jp", raw[:600]
    text = part.get_content()
    assert "テスト対戦の結果" in text and "−" in text and "－" not in text, text


def test_withdraw_without_any_entry_says_so_even_with_several_open_leagues(db_url, factory) -> None:
    """A black-box test: with two open leagues, "withdraw" from an address that entered none
    asked "which league?"; nothing can be withdrawn, and the reply now says so."""
    settings = make_settings(db_url)
    open_league(factory, "spring")
    open_league(factory, "autumn")
    text = _ask(factory, settings, "nobody@example.com", "withdraw", "withdraw\n", 7)
    assert "You have no entry in any league" in text and "Which league" not in text, text


def test_help_for_a_league_shows_an_example_in_that_leagues_game(db_url, factory) -> None:
    """A black-box test: "help" to a Margaret league showed only an Amaryllis example, which that
    league then refuses as the wrong game. The example is now the named league's ruleset's."""
    from app.rules import find_ruleset

    settings = make_settings(db_url)
    open_league(factory, "m1", ruleset="margaret")
    open_league(factory, "spring")
    text = _ask(factory, settings, "nobody@example.com", "[m1] help", "help\n", 8)
    margaret = find_ruleset("margaret")().example_sheet("en").strip().splitlines()[0]
    amaryllis = find_ruleset("amaryllis")().example_sheet("en").strip().splitlines()[0]
    assert margaret in text and amaryllis not in text, text
    plain = _ask(factory, settings, "nobody@example.com", "help", "help\n", 9)
    assert amaryllis in plain, plain  # no league named: the default game, as before
