"""End to end: ``amaryllis demo`` as a real process (embedded IMAP + SMTP servers, SQLite), then every
mail it delivered is read back from the folder and checked against the database and the rules.

Path of each player mail: SMTP (smtplib -> aiosmtpd) -> IMAP INBOX (pymap) -> ``poll_once`` -> pipeline
-> outbox -> SMTP -> ``<out>/mail/NNNN-<recipient>.eml``. Organizer steps use the league service.
"""

from __future__ import annotations

import email
import os
import subprocess
import sys
from collections import Counter
from email.message import EmailMessage
from email.policy import default as default_policy
from pathlib import Path

import pytest
from sqlalchemy import create_engine, select
from sqlalchemy.orm import Session

from app.db.models import (
    Battle,
    Entry,
    InboundMessage,
    League,
    OutboxMessage,
    Player,
    Round,
    SheetVersion,
)
from app.ops.demo import MARKER, REPLACEMENT, SCRIPT, DemoError, _prepare, sheet_text
from app.ops.embedded import message_text
from app.rules.amaryllis import format_sheet, parse_sheet

ROOT = Path(__file__).resolve().parents[2]


class Mail:
    """One delivered mail read back from the demo's folder."""

    def __init__(self, path: Path) -> None:
        self.path = path
        self.index = int(path.name[:4])
        self.recipient = path.stem[5:]
        msg = email.message_from_bytes(path.read_bytes(), policy=default_policy)
        assert isinstance(msg, EmailMessage)
        self.msg = msg
        self.subject = str(msg["Subject"])
        self.text = message_text(msg)
        self.txt = path.with_suffix(".txt").read_text(encoding="utf-8")


@pytest.fixture(scope="module")
def demo(tmp_path_factory: pytest.TempPathFactory):
    out = tmp_path_factory.mktemp("e2e") / "amaryllis-demo"
    # a previous run's leftovers: the marker makes the folder wipeable, the junk must be gone after
    out.mkdir()
    (out / MARKER).write_text("old run\n")
    (out / "mail").mkdir()
    (out / "mail" / "9999-stale@example.org.eml").write_text("stale")
    env = {k: v for k, v in os.environ.items() if not k.startswith("AMARYLLIS_")}
    (out.parent / "no-config.toml").write_text("")  # an empty file: a missing one is an error now
    env["AMARYLLIS_CONFIG"] = str(out.parent / "no-config.toml")
    done = subprocess.run(
        [sys.executable, "-m", "app.cli", "demo", "--out", str(out)],
        env=env,
        cwd=out.parent,
        capture_output=True,
        text=True,
        timeout=150,
    )
    assert done.returncode == 0, done.stdout[-3000:] + done.stderr[-3000:]
    mails = [Mail(p) for p in sorted((out / "mail").glob("*.eml"))]
    engine = create_engine(f"sqlite:///{out / 'data' / 'amaryllis.sqlite3'}")
    with Session(engine) as session:
        yield out, done.stdout, mails, session
    engine.dispose()


def _expected_players() -> list[str]:
    return [m.address for m in SCRIPT]


def test_the_demo_starts_clean_and_prints_progress_and_summary(demo) -> None:
    out, stdout, mails, _ = demo
    assert not (out / "mail" / "9999-stale@example.org.eml").exists()
    assert [m.index for m in mails] == list(range(1, len(mails) + 1))
    for m in mails:
        assert m.path.with_suffix(".txt").exists()
    for mail in SCRIPT:
        assert f"[player] {mail.address}" in stdout
    assert "[organizer] entries closed: 8 units, 7 rounds" in stdout
    assert "[organizer] rounds played: 1, 2, 3, 4, 5, 6, 7" in stdout
    assert f"{len(mails)} mails were delivered to players" in stdout
    assert str(out / "mail") in stdout
    # the standings table is printed, one row per active unit
    for name in ("グリスク", "ヌト", "Iron Wall", "Viper", "ハヤテ", "カガミ", "Medic", "ドク"):
        assert f"{name}（" in stdout.split("Standings:")[1]  # unit（player）


def test_every_player_mail_went_through_imap_and_got_exactly_one_threaded_reply(demo) -> None:
    _, _, mails, session = demo
    inbound = session.scalars(select(InboundMessage).order_by(InboundMessage.id)).all()
    assert [r.sender for r in inbound] == _expected_players() + [REPLACEMENT.address]
    assert all(r.status == "done" and r.uid is not None and r.uidvalidity for r in inbound)
    replies = mails[: len(inbound)]
    for row, reply in zip(inbound, replies, strict=True):
        assert reply.recipient == row.sender
        assert reply.msg["In-Reply-To"] == row.message_key
        assert reply.msg["Auto-Submitted"] == "auto-replied"
        assert reply.msg["From"].addresses[0].addr_spec == "tourney@localhost"
    # no other mail answers a player's mail
    assert not [m for m in mails[len(inbound) :] if m.msg["Auto-Submitted"] == "auto-replied"]


def test_accepted_replies_carry_the_normalized_sheet_and_the_rejection_lists_every_error(
    demo,
) -> None:
    _, _, mails, _ = demo
    for mail, reply in zip((*SCRIPT, REPLACEMENT), mails, strict=False):
        result = parse_sheet(sheet_text(mail.sheet))
        if mail.expect == "rejected":
            assert not result.ok
            errors = [p for p in result.problems if p.severity == "error"]
            assert len(errors) >= 2
            for problem in errors:  # every error, quoted by line
                assert problem.text.strip() in reply.text
            assert "ヌト" not in reply.text
        else:
            assert result.ok, mail.sheet
            assert format_sheet(result.unit, result.lang).strip() in reply.text
    # language of the reply follows the sheet
    assert "受け付けました" in mails[0].text and "accepted" in mails[2].text
    assert "version 2" in mails[len(SCRIPT)].text


def test_the_database_holds_eight_entries_with_the_replacement_active(demo) -> None:
    _, _, _, session = demo
    league = session.scalar(select(League).where(League.name == "demo"))
    assert league.state == "finished"
    entries = session.scalars(select(Entry).where(Entry.league_id == league.id)).all()
    addresses = {session.get(Player, e.player_id).address for e in entries}
    assert addresses == set(_expected_players()) - {"newbie@example.jp"}
    viper = next(
        e for e in entries if session.get(Player, e.player_id).address == "viper@example.org"
    )
    versions = session.scalars(
        select(SheetVersion).where(SheetVersion.entry_id == viper.id).order_by(SheetVersion.version)
    ).all()
    assert [(v.version, v.active) for v in versions] == [(1, False), (2, True)]
    assert "Venom Fang" in versions[1].normalized


def test_every_battle_report_and_standings_mail_arrived_once_threaded_to_the_entry(demo) -> None:
    _, _, mails, session = demo
    reports = mails[len(SCRIPT) + 1 :]
    outbox = session.scalars(select(OutboxMessage)).all()
    assert {r.status for r in outbox} == {"sent"}
    assert len(outbox) == len(mails)  # nothing sent twice, nothing left behind
    assert Counter(m.msg["Message-ID"] for m in mails).most_common(1)[0][1] == 1

    battles = session.scalars(select(Battle).join(Round).order_by(Round.number, Battle.board)).all()
    rounds = session.scalars(select(Round)).all()
    assert len(battles) == 8 * 7 // 2 and all(b.state == "done" for b in battles)
    assert {r.state for r in rounds} == {"done"} and len(rounds) == 7
    sheet_unit = {s.id: s.unit_name for s in session.scalars(select(SheetVersion))}
    entry_addr = {
        e.id: session.get(Player, e.player_id).address for e in session.scalars(select(Entry))
    }
    # the mail that entered each player's active sheet: reports thread to it (In-Reply-To)
    active_msgid = {}
    for sv in session.scalars(select(SheetVersion).where(SheetVersion.active.is_(True))):
        active_msgid[entry_addr[sv.entry_id]] = session.get(
            InboundMessage, sv.inbound_id
        ).message_key

    by_recipient: dict[str, list[Mail]] = {}
    for m in reports:
        by_recipient.setdefault(m.recipient, []).append(m)
        assert m.msg["Auto-Submitted"] == "auto-generated"
        assert m.msg["In-Reply-To"] == active_msgid[m.recipient]
    for b in battles:
        a_name, b_name = sheet_unit[b.sheet_a_id], sheet_unit[b.sheet_b_id]
        for addr in (entry_addr[b.entry_a_id], entry_addr[b.entry_b_id]):
            hits = [
                m
                for m in by_recipient[addr]
                if a_name in m.subject and b_name in m.subject and "vs" in m.subject
            ]
            assert len(hits) == 1, (addr, a_name, b_name)
    # per player: the round-1 pairings at close + 7 battle reports + 7 standings mails
    assert {addr: len(ms) for addr, ms in by_recipient.items()} == {a: 15 for a in active_msgid}
    for addr, ms in by_recipient.items():
        first = ms[0]  # sent when entries closed, before any battle
        assert "vs" not in first.subject and "1" in first.text, (addr, first.subject)


def test_the_seed_battle_report_shows_nut_winning_in_turn_4_exactly_as_in_the_seed(demo) -> None:
    _, _, mails, _ = demo
    report = [
        m
        for m in mails
        if m.recipient == "grisk@example.jp" and "グリスク" in m.subject and "ヌト" in m.subject
    ]
    assert len(report) == 1
    # grisk reads ISO-2022-JP: the report's "－" (U+FF0D) travels as JIS X 0208's minus, which
    # Python decodes as "−" (U+2212) and CP932 mailers show as "－" (app.mail.compose.to_jis)
    text = report[0].text.replace("\u2212", "\uff0d")
    # the state lines printed after turns 1-4 in the seed (001_b9e65eb61b3550bc.txt, 戦闘例)
    seed_turns = {
        "第１ターン": (
            "グリスク：１０／２／３／２／スピア、スピア、ブースト",
            "ヌト：１０／３／１／１／魔法剣、絶対剣　＜ライフ＞",
        ),
        "第２ターン": (
            "グリスク：５／３／３／２／スピア、スピア、ブースト",
            "ヌト：１０／３／１／１／絶対剣　＜ライフ＞",
        ),
        "第３ターン": (
            "グリスク：２／４／３／２／スピア、スピア、ブースト",
            "ヌト：１０／３／１／１／絶対剣　＜ライフ＞",
        ),
        "第４ターン": (
            "グリスク：－１／４／３／２／スピア、スピア、ブースト",
            "ヌト：１／３／１／１／絶対剣",
        ),
    }
    lines = [ln.strip() for ln in text.splitlines()]
    pos = 0
    for turn, (grisk, nut) in seed_turns.items():
        pos = lines.index(turn, pos)
        end = lines.index("第５ターン", pos) if "第５ターン" in lines[pos:] else len(lines)
        block = lines[pos:end]
        assert grisk in block and nut in block, (turn, block)
    assert "第５ターン" not in lines  # it ends in turn 4
    # the seed's turn-4 actions, in order
    turn4 = lines[lines.index("第４ターン") :]
    order = [
        turn4.index(ln)
        for ln in (
            "グリスクがスピアでヌトを攻撃　⇒７ダメージ　⇒ＨＰ３",
            "グリスクがスピアでヌトを攻撃　⇒７ダメージ　⇒ＨＰ－４",
            "ヌトのライフが発動　⇒ヌト復活　⇒ＨＰ１　（ライフは消滅）",
            "ヌトが絶対剣でグリスクを攻撃　⇒３ダメージ　⇒ＨＰ－１",
        )
    ]
    assert order == sorted(order)
    assert "ヌトの勝利" in lines[lines.index("結果") :]
    # and ヌト's player got the same battle with the same verdict
    nut_report = [
        m
        for m in mails
        if m.recipient == "nut@example.jp" and "グリスク" in m.subject and "ヌト" in m.subject
    ]
    assert len(nut_report) == 1 and "ヌトの勝利" in nut_report[0].text


def test_the_demo_refuses_to_wipe_a_folder_it_did_not_make(tmp_path: Path) -> None:
    precious = tmp_path / "precious"
    precious.mkdir()
    (precious / "thesis.tex").write_text("do not delete")
    with pytest.raises(DemoError, match="refusing to wipe"):
        _prepare(precious)
    assert (precious / "thesis.tex").read_text() == "do not delete"
    empty = tmp_path / "empty"
    empty.mkdir()
    _prepare(empty)
    assert (empty / MARKER).exists() and (empty / "mail").is_dir() and (empty / "data").is_dir()
