"""Rounds of a ruleset with orders and checkpoints (Margaret Magicalized), on SQLite and
PostgreSQL: standing orders fixed on a battle when it is first fought, pairing mails, battles
stopped at each checkpoint and taken up again, and a round killed part-way (a real SIGKILL of
``amaryllis league run-round``) that resumes with no battle advanced twice and no mail twice."""

from __future__ import annotations

import signal
from collections import Counter
from pathlib import Path

from sqlalchemy import select
from sqlalchemy.orm import Session, sessionmaker

from app.db.models import Battle, Entry, OutboxMessage, Player, Round
from app.db.session import transaction
from app.league import service as svc
from app.league.orders import BoardInputs, submit_orders
from app.mail.league_mail import LeagueMail
from tests.league.helpers import DEADLINE, fill_league
from tests.league.test_crash import _cli

RULESET = "margaret-magicalized"
ORDERS = (
    "DEFAULT\nHAND 愛×3、燃×2、凍、星\nORDERS\nON my ACT PLAY 愛 my ONCE\n"
    "ON enemy HIT IF damage >= 3 PLAY 凍\nEND\n"
)


def _league(factory: sessionmaker[Session], name: str, n: int, *, orders: int) -> None:
    """A league of ``n`` entries, the first ``orders`` of them with standing orders, closed at
    ``DEADLINE`` with its pairing mails queued."""
    fill_league(factory, name, n, ruleset=RULESET, options={"checkpoints": [1, 3]})
    mail = LeagueMail(sender="league@example.net")
    with transaction(factory) as s:
        league = svc.get_league(s, name)
        rs = svc.league_ruleset(league)
        for p in list(
            s.scalars(
                select(Player).join(Entry).where(Entry.league_id == league.id).order_by(Entry.id)
            )
        )[:orders]:
            assert submit_orders(s, league, p, ORDERS, rs, now=DEADLINE).accepted
        svc.close_entries(s, league, now=DEADLINE, mail=mail)


def _round1(factory: sessionmaker[Session]) -> list[Battle]:
    with factory() as s:
        return list(
            s.scalars(
                select(Battle)
                .join(Round)
                .where(Round.number == 1, Battle.entry_b_id.is_not(None))
                .order_by(Battle.board)
            )
        )


def _keys(factory: sessionmaker[Session]) -> list[str]:
    with factory() as s:
        return list(s.scalars(select(OutboxMessage.dedupe_key)))


def test_standing_orders_are_fixed_on_each_battle_and_checkpoints_stop_it(
    factory: sessionmaker[Session],
) -> None:
    _league(factory, "Cp", 6, orders=3)
    keys = _keys(factory)
    pairings = [k for k in keys if k.startswith("pairing:")]
    assert len(pairings) == 6 and len(set(pairings)) == 6  # each seated player once
    mail = LeagueMail(sender="league@example.net")
    stops: list[int | None] = []
    for _ in range(4):  # each forced run goes on to the next checkpoint
        svc.run_round(factory, mail, "Cp", now=DEADLINE)
        battles = _round1(factory)
        stops.append(max((b.stop_turn or -1) for b in battles))
        if all(b.state == "done" for b in battles):
            break
    assert all(b.state == "done" for b in _round1(factory))
    with factory() as s:
        seats = {e.id: e.player_id for e in s.scalars(select(Entry))}
        with_orders = set(sorted(seats)[:3])
    for b in _round1(factory):
        inputs = BoardInputs.from_json(b.inputs)
        for side, eid in ((0, b.entry_a_id), (1, b.entry_b_id)):
            assert (inputs.orders[side] is not None) == (eid in with_orders)
    keys = Counter(_keys(factory))
    assert all(n == 1 for n in keys.values())  # no mail twice
    stop_keys = [k for k in keys if k.startswith("stop:")]
    assert stop_keys and all(k.split(":")[2] in ("1", "3") for k in stop_keys)
    reports = Counter(k.rsplit(":", 1)[0] for k in keys if k.startswith("report:"))
    assert reports == {f"report:{b.id}": 2 for b in _round1(factory)}
    assert stops[0] == 1  # the first run stopped every long battle after turn 1


def test_a_checkpoint_round_killed_part_way_resumes_without_duplicates(
    db_url: str, factory: sessionmaker[Session], tmp_path: Path
) -> None:
    _league(factory, "CpKill", 9, orders=9)  # 4 battles and a bye per round
    killed = _cli(db_url, tmp_path, "league", "run-round", "CpKill", kill_after=3, batch=2)
    assert killed.returncode == -signal.SIGKILL, killed.stderr
    first = {b.id: (b.state, b.stop_turn) for b in _round1(factory)}
    assert Counter(state for state, _ in first.values())["pending"] == 2  # one batch of 2 stored
    for _ in range(4):
        again = _cli(db_url, tmp_path, "league", "run-round", "CpKill", batch=2)
        assert again.returncode == 0, again.stderr
        if all(b.state == "done" for b in _round1(factory)):
            break
    assert all(b.state == "done" for b in _round1(factory))
    keys = _keys(factory)
    assert len(keys) == len(set(keys))
    stops = Counter(k.rsplit(":", 1)[0] for k in keys if k.startswith("stop:"))
    assert all(n == 2 for n in stops.values())  # both players of each stop, once
    with transaction(factory) as s:
        rounds = {r.number: r.state for r in s.scalars(select(Round))}
    assert rounds[1] == "done"


def test_disqualifying_a_player_voids_their_stopped_battles(factory: sessionmaker[Session]) -> None:
    _league(factory, "CpDq", 4, orders=4)
    svc.run_round(factory, None, "CpDq", now=DEADLINE)
    paused = [b for b in _round1(factory) if b.state == "paused"]
    assert paused
    with factory() as s:
        address = s.scalar(
            select(Player.address)
            .join(Entry, Entry.player_id == Player.id)
            .where(Entry.id == paused[0].entry_a_id)
        )
    with transaction(factory) as s:
        svc.disqualify(s, svc.get_league(s, "CpDq"), address, now=DEADLINE)
    after = {b.id: b for b in _round1(factory)}
    assert after[paused[0].id].state == "void" and after[paused[0].id].stop_turn is None
    svc.run_round(factory, None, "CpDq", now=DEADLINE)
    assert (
        after[paused[0].id].state
        == "void"
        == {b.id: b for b in _round1(factory)}[paused[0].id].state
    )  # never fought to its end


def test_a_revision_says_the_turn_it_is_in_force_from(factory: sessionmaker[Session]) -> None:
    from app.league.orders import revise_orders

    _league(factory, "CpRev", 6, orders=6)
    svc.run_round(factory, None, "CpRev", now=DEADLINE)
    battle = next(b for b in _round1(factory) if b.state == "paused")
    assert battle.stop_turn == 1
    with transaction(factory) as s:
        league = svc.get_league(s, "CpRev")
        player = s.scalar(
            select(Player)
            .join(Entry, Entry.player_id == Player.id)
            .where(Entry.id == battle.entry_a_id)
        )
        rs = svc.league_ruleset(league)
        (early,) = revise_orders(
            s,
            league,
            player,
            "ORDERS FROM TURN 1\nON my ACT PLAY 愛 my\nEND",
            rs,
            {},
            now=DEADLINE,
            lang="en",
        )
        assert not early.accepted and early.from_turn == 2
        assert "ORDERS FROM TURN 1" in rs.format_problems(list(early.sheet.problems), "en")
        (later,) = revise_orders(
            s,
            league,
            player,
            "ORDERS FROM TURN 4\nON my ACT PLAY 愛 my\nEND",
            rs,
            {},
            now=DEADLINE,
            lang="en",
        )
        assert later.accepted and later.from_turn == 4
