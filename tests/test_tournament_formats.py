"""``amaryllis tournament DIR --format …``: the offline command drives the same ``app.formats``
code as leagues (every battle with its round; the format's own checks hold on real battles)."""

from __future__ import annotations

import hashlib
import json
import random
from collections import Counter
from fractions import Fraction
from pathlib import Path

import pytest
from click.testing import CliRunner

from app.cli import main
from app.rules.amaryllis import battle, format_sheet, parse_sheet, result_json
from app.rules.amaryllis.generate import random_unit
from tests.formats.helpers import berger_schedule


def _field(tmp_path: Path, n: int, seed: int = 5) -> Path:
    rng = random.Random(seed)
    for i in range(n):
        (tmp_path / f"{i:02d}.txt").write_text(
            format_sheet(random_unit(rng, f"U{i}")), encoding="utf-8"
        )
    return tmp_path


def _run(folder: Path, *args: str) -> dict:
    out = CliRunner().invoke(main, ["tournament", str(folder), "--json", *args])
    assert out.exit_code == 0, out.output
    return json.loads(out.stdout)


def _check_battles(folder: Path, data: dict) -> None:
    units = {p.name: parse_sheet(p.read_text(encoding="utf-8")).unit for p in folder.glob("*.txt")}
    for row in data["battles"]:
        expected = result_json(battle(units[row["a"]], units[row["b"]], log=False), events=False)
        assert {k: row[k] for k in expected} == expected
        assert isinstance(row["round"], int) and row["round"] >= 1


@pytest.mark.parametrize("n", [6, 7])
def test_round_robin_rounds_are_the_berger_table(tmp_path: Path, n: int) -> None:
    folder = _field(tmp_path, n)
    data = _run(folder, "--format", "round-robin")
    # every format prints the same shape: the format, its byes, its own standings columns
    assert set(data) == {"battles", "invalid", "format", "byes", "standings"}
    assert data["format"]["columns"] == ["head_to_head", "sonneborn_berger", "margin"]
    assert all(set(s["tiebreaks"]) == set(data["format"]["columns"]) for s in data["standings"])
    _check_battles(folder, data)
    names = sorted(p.name for p in folder.glob("*.txt"))
    got = [(b["round"], b["board"], b["a"], b["b"]) for b in data["battles"]]
    want = [
        (k, p.board, names[p.a], names[p.b])
        for k, boards in enumerate(berger_schedule(n), start=1)
        for p in boards
        if p.b is not None
    ]
    assert got == want


def test_swiss_never_repeats_a_pair_and_one_bye_at_most(tmp_path: Path) -> None:
    folder = _field(tmp_path, 9)
    data = _run(folder, "--format", "swiss", "--rounds", "5")
    _check_battles(folder, data)
    pairs = [frozenset((b["a"], b["b"])) for b in data["battles"]]
    assert len(pairs) == len(set(pairs)) == 5 * 4
    byes = Counter(b["file"] for b in data["byes"])
    assert len(byes) == 5 and set(byes.values()) == {1}
    assert sorted({b["round"] for b in data["byes"]}) == [1, 2, 3, 4, 5]
    st = data["standings"]
    assert [s["rank"] for s in st] == sorted(s["rank"] for s in st)
    for s in st:
        assert s["points"] == 3 * s["wins"] + s["draws"] + 3 * s["byes"]
        assert set(s["tiebreaks"]) == {"buchholz", "sonneborn_berger", "margin"}


def _key(seed: str, purpose: str, rnd: int, entry: int) -> str:
    return hashlib.sha256(f"{seed}/{purpose}/{rnd}/{entry}".encode()).hexdigest()


def test_knockout_is_complete_and_its_draw_rechecks_with_hashlib(tmp_path: Path) -> None:
    folder = _field(tmp_path, 8)
    data = _run(folder, "--format", "knockout", "--reseed-every-round", "--seed", "spring")
    _check_battles(folder, data)
    names = sorted(p.name for p in folder.glob("*.txt"))
    ident = {n: i for i, n in enumerate(names, start=1)}
    rounds: dict[int, list[dict]] = {}
    for b in data["battles"]:
        rounds.setdefault(b["round"], []).append(b)
    assert [len(rounds[k]) for k in sorted(rounds)] == [4, 2, 1]
    alive = list(names)
    for k in sorted(rounds):
        order = sorted(alive, key=lambda f: _key("spring", "knockout-draw", k, ident[f]))
        assert [(b["a"], b["b"]) for b in rounds[k]] == list(
            zip(order[::2], order[1::2], strict=False)
        )
        for b in rounds[k]:
            win = b["winner"]
            if win is not None:
                assert b["decided"] == {"winner": b[win.lower()], "by": "win"}
            else:
                assert b["decided"]["by"] in ("margin", "lot")
        alive = [b["decided"]["winner"] for b in rounds[k]]
    assert data["format"]["stop"] == "champion"
    assert data["standings"][0]["file"] == alive[0]
    assert data["standings"][0]["detail"]["status"] == "champion"


def test_double_elimination_ends_with_one_entry_under_two_losses(tmp_path: Path) -> None:
    folder = _field(tmp_path, 7)
    data = _run(folder, "--format", "knockout", "--double-elimination", "--seed", "x")
    losses: Counter[str] = Counter()
    for b in data["battles"]:
        d = b["decided"]["winner"]
        losses[b["b"] if d == b["a"] else b["a"]] += 1
    assert max(losses.values()) == 2
    assert [f for f in sorted(p.name for p in folder.glob("*.txt")) if losses[f] < 2] == [
        data["standings"][0]["file"]
    ]


def test_hill_takes_the_files_one_by_one_and_pushes_off(tmp_path: Path) -> None:
    folder = _field(tmp_path, 9)
    data = _run(folder, "--format", "hill", "--size", "5")
    _check_battles(folder, data)
    names = sorted(p.name for p in folder.glob("*.txt"))
    # challenge k: file k against everyone on the hill (at most 5 after each push-off)
    for k in range(1, 10):
        boards = [b for b in data["battles"] if b["round"] == k]
        assert {b["a"] for b in boards} <= {names[k - 1]}
        assert len(boards) == min(k - 1, 5)
    assert len(data["pushed_off"]) == 4 and all(p["place"] == 6 for p in data["pushed_off"])
    assert len(data["standings"]) == 5
    assert not {p["file"] for p in data["pushed_off"]} & {s["file"] for s in data["standings"]}


def test_accumulating_totals_are_the_sum_of_the_updates(tmp_path: Path) -> None:
    folder = _field(tmp_path, 5)
    data = _run(folder, "--format", "accumulating", "--updates", "3")
    assert len(data["battles"]) == 3 * 10
    assert Counter(b["round"] for b in data["battles"]) == {1: 10, 2: 10, 3: 10}
    for s in data["standings"]:
        assert len(s["detail"]["updates"]) == 3
        assert Fraction(s["points"]) == sum(Fraction(u) for u in s["detail"]["updates"])
    text = CliRunner().invoke(
        main, ["tournament", str(folder), "--format", "accumulating", "--updates", "2"]
    )
    assert text.exit_code == 0 and "points per update" in text.stdout


def test_output_does_not_depend_on_jobs(tmp_path: Path) -> None:
    folder = _field(tmp_path, 8)
    for args in (["--format", "swiss", "--rounds", "3"], ["--format", "hill", "--size", "4"]):
        assert _run(folder, *args, "--jobs", "1") == _run(folder, *args, "--jobs", "2")


def test_bad_format_options_are_refused_clearly(tmp_path: Path) -> None:
    folder = _field(tmp_path, 4)
    for args, words in (
        (["--format", "chess"], "unknown format"),
        (["--format", "knockout", "--rounds", "3"], "--rounds is not an option"),
        (["--format", "swiss"], "needs option 'rounds'"),
        (["--format", "hill", "--format-option", "size"], "KEY=VALUE"),
        (["--format", "swiss", "--rounds", "2", "--format-option", "x=1"], "unknown option"),
    ):
        out = CliRunner().invoke(main, ["tournament", str(folder), *args])
        assert out.exit_code == 2 and words in out.output, (args, out.output)
