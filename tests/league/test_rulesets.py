"""Leagues of every ruleset (issue 10): ``league create --ruleset … --option …/--options FILE``
validated by the ruleset, shown by ``league show``, fixed once entries close; Margaret and
Margaret Hundred leagues played to the end with the generic outcome stored, the ruleset record in
every battle report mail, and the standings' margin from ``Outcome.margin``."""

from __future__ import annotations

import email
from email import policy
from pathlib import Path

import pytest
from sqlalchemy import select

from app.db.models import Battle, League, OutboxMessage, Round
from app.db.session import session_factory, transaction
from app.league import service as svc
from app.mail.league_mail import LeagueMail
from app.rules import find_ruleset
from app.rules.base import Outcome
from tests.league.helpers import DEADLINE, enter_players, fill_league


def test_create_with_options_show_and_refuse_changes_after_close(
    cli, db_url: str, tmp_path: Path
) -> None:  # type: ignore[no-untyped-def]
    bad = cli(
        "league",
        "create",
        "H",
        "--entry-deadline",
        "+2d",
        "--ruleset",
        "margaret-hundred",
        "--option",
        "budgett=12",
    )
    assert bad.exit_code == 1 and "budgett" in bad.output and "bad-option" in bad.output
    bad = cli(
        "league",
        "create",
        "H",
        "--entry-deadline",
        "+2d",
        "--ruleset",
        "margaret-hundred",
        "--option",
        "party_cap=zero",
    )
    assert bad.exit_code == 1 and "party_cap" in bad.output
    unknown = cli("league", "create", "X", "--entry-deadline", "+2d", "--ruleset", "chess")
    assert (
        unknown.exit_code == 1 and "bad-ruleset" in unknown.output and "margaret" in unknown.output
    )
    toml = tmp_path / "hundred.toml"
    toml.write_text('budget = 12\npool = "basic"\n[mp_costs]\n"精霊剣" = 3\n', encoding="utf-8")
    made = cli(
        "league",
        "create",
        "H",
        "--entry-deadline",
        "+2d",
        "--ruleset",
        "hundred",
        "--options",
        str(toml),
        "--option",
        "party_cap=4",
    )
    assert made.exit_code == 0, made.output
    assert "ruleset margaret-hundred" in made.output
    factory = session_factory(db_url)
    with factory() as s:
        league = s.scalar(select(League).where(League.name == "H"))
        assert league is not None and league.ruleset == "margaret-hundred"
        stored = dict(league.options)
    assert stored["budget"] == 12 and stored["party_cap"] == 4 and stored["pool"] == "basic"
    # a single round robin applies no Heaven's Door rewrite (H58): the record says so
    described = find_ruleset("margaret-hundred")(stored).without_rewrites().describe("en")
    shown = cli("league", "show", "H")
    assert shown.exit_code == 0 and "ruleset: margaret-hundred" in shown.output
    for line in described:
        assert line in shown.output
    assert "Heaven's Door: ignored" in shown.output
    changed = cli("league", "set", "H", "--option", "budget=11")
    assert changed.exit_code == 0, changed.output
    with factory() as s:
        assert s.scalar(select(League.options).where(League.name == "H"))["budget"] == 11
    enter_players(db_url, "H", 3)
    refused = cli("league", "set", "H", "--option", "budget=5")  # the entered sheets spend 11
    assert refused.exit_code == 1 and "options-refuse-sheets" in refused.output
    assert cli("league", "close-entries", "H").exit_code == 0
    fixed = cli("league", "set", "H", "--option", "budget=11")
    assert fixed.exit_code == 1 and "closed" in fixed.output
    assert "(options fixed)" in cli("league", "show", "H").output
    factory.kw["bind"].dispose()


@pytest.mark.parametrize(
    "ruleset,options",
    [
        ("margaret", None),
        ("margaret-hundred", {"budget": 10, "mp_costs": {"精": 2}, "party_cap": 6}),
    ],
)
def test_a_league_of_another_ruleset_is_played_to_the_end(
    factory,
    settings,
    ruleset: str,  # type: ignore[no-untyped-def]
    options: dict | None,
) -> None:
    fill_league(factory, "R", 5, ruleset=ruleset, options=options)
    with transaction(factory) as s:
        svc.close_entries(s, svc.get_league(s, "R"), now=DEADLINE)
    svc.run_round(factory, LeagueMail.of(settings), "R", all_rounds=True, now=DEADLINE)
    rs = find_ruleset(ruleset)(options)
    with factory() as s:
        league = svc.get_league(s, "R")
        assert league.state == "finished"
        battles = list(
            s.scalars(
                select(Battle)
                .join(Round)
                .where(Round.league_id == league.id, Battle.entry_b_id.is_not(None))
            )
        )
        assert len(battles) == 10
        for b in battles:
            assert b.engine_version == rs.engine_version
            outcome = Outcome.from_json(b.outcome)
            assert (outcome.winner, outcome.termination, outcome.turns, outcome.margin) == (
                b.winner,
                b.reason,
                b.turns,
                b.margin,
            )
        rows = svc.standings(s, league)
        margins = {r.entry_id: 0 for r in rows}
        for b in battles:
            margins[b.entry_a_id] += b.margin
            margins[b.entry_b_id] -= b.margin
        table = svc.standings_context(s, league).table
        assert {r.entry_id: table.value(r, "margin") for r in rows} == margins
        reports = list(s.scalars(select(OutboxMessage).where(OutboxMessage.kind == "report")))
        assert len(reports) == 20
        for mail in reports:
            msg = email.message_from_bytes(mail.raw, policy=policy.default)
            text = msg.get_body(("plain",)).get_content()  # type: ignore[union-attr]
            lang = "ja" if "回戦" in text else "en"
            for line in rs.without_rewrites().describe(lang):  # a single round robin: H58
                assert line in text, (line, text[:600])
            assert ("最終状態" if lang == "ja" else "Final state") in text
