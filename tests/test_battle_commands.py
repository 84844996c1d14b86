"""``amaryllis battle`` and ``amaryllis tournament`` through click's CliRunner."""

from __future__ import annotations

import json
import random
from pathlib import Path

import pytest
from click.testing import CliRunner

from app.cli import main
from app.rules.amaryllis import battle, format_sheet, parse_sheet, result_json
from app.rules.amaryllis.generate import random_unit
from tests.rules.golden_runner import all_goldens, load

SEED = load(next(p for p in all_goldens() if p.stem == "seed_grisk_vs_nut"))


@pytest.fixture
def seed_files(tmp_path: Path) -> tuple[Path, Path]:
    a, b = tmp_path / "grisk.txt", tmp_path / "nut.txt"
    a.write_text(SEED.sheet_a, encoding="utf-8")
    b.write_bytes(SEED.sheet_b.encode("shift_jis"))  # a Shift_JIS file is read too
    return a, b


def test_battle_prints_the_report(seed_files) -> None:
    out = CliRunner().invoke(main, ["battle", *map(str, seed_files)])
    assert out.exit_code == 0, out.output
    assert "ヌトの勝利" in out.output and "グリスク：－１／４／３／２／スピア、スピア、ブースト" in out.output


def test_battle_json_has_the_documented_shape(seed_files) -> None:
    out = CliRunner().invoke(main, ["battle", "--json", *map(str, seed_files)])
    assert out.exit_code == 0, out.output
    data = json.loads(out.output)
    assert set(data) == {"winner", "reason", "turns", "final", "events"}
    assert (data["winner"], data["reason"], data["turns"]) == ("B", "death", 4)
    assert (data["final"]["A"]["hp"], data["final"]["B"]["hp"]) == (-1, 1)
    assert {"hp", "atk", "def", "spd"} <= set(data["final"]["A"])
    # A is the first file given: swapping the files swaps the sides
    swapped = json.loads(CliRunner().invoke(main, ["battle", "--json", *map(str, seed_files[::-1])]).output)
    assert swapped["winner"] == "A" and swapped["final"]["A"]["hp"] == 1


def test_battle_english_report(seed_files) -> None:
    out = CliRunner().invoke(main, ["battle", "--lang", "en", *map(str, seed_files)])
    assert out.exit_code == 0 and "ヌト wins" in out.output and "Turn 4" in out.output


def test_battle_with_invalid_sheets_lists_the_errors_of_both(tmp_path: Path, seed_files) -> None:
    bad = tmp_path / "bad.txt"
    bad.write_text("ダメ：１１／１／１／２\n", encoding="utf-8")
    worse = tmp_path / "worse.txt"
    worse.write_text("Worse: 10/1/1/2/Nothing\n", encoding="utf-8")
    out = CliRunner().invoke(main, ["battle", str(bad), str(worse)])
    assert out.exit_code == 1
    assert "bad.txt" in out.stderr and "worse.txt" in out.stderr and "Nothing" in out.stderr
    out = CliRunner().invoke(main, ["battle", "--json", str(bad), str(seed_files[1])])
    assert out.exit_code == 1 and set(json.loads(out.stdout)["errors"]) == {"A"}
    out = CliRunner().invoke(main, ["battle", "--json", "--html", *map(str, seed_files)])
    assert out.exit_code == 2


def _field(tmp_path: Path, n: int) -> Path:
    rng = random.Random(5)
    for i in range(n):
        (tmp_path / f"{i:02d}.txt").write_text(format_sheet(random_unit(rng, f"U{i}")), encoding="utf-8")
    (tmp_path / "zz-invalid.txt").write_text("Broken: 10/1/1/2/Nothing\n", encoding="utf-8")
    return tmp_path


@pytest.mark.parametrize("jobs", [1, 2])
def test_tournament_json_matches_single_battles(tmp_path: Path, jobs: int) -> None:
    folder = _field(tmp_path, 7)
    out = CliRunner().invoke(main, ["tournament", str(folder), "--json", "--jobs", str(jobs)])
    assert out.exit_code == 0, out.output
    data = json.loads(out.stdout)
    assert len(data["battles"]) == 21  # 7 valid sheets, each pair once
    assert [x["file"] for x in data["invalid"]] == ["zz-invalid.txt"]
    units = {p.name: parse_sheet(p.read_text(encoding="utf-8")).unit for p in folder.glob("0*.txt")}
    for row in data["battles"]:
        expected = result_json(battle(units[row["a"]], units[row["b"]], log=False), events=False)
        assert {k: row[k] for k in expected} == expected
    # standings: every unit once; points = 3 per win + 1 per draw; 6 games each
    st = data["standings"]
    assert sorted(x["file"] for x in st) == sorted(units)
    for x in st:
        assert x["wins"] + x["draws"] + x["losses"] == 6
        assert x["points"] == 3 * x["wins"] + x["draws"]
    assert [x["points"] for x in st] == sorted((x["points"] for x in st), reverse=True)


def test_tournament_text_lists_invalid_sheets_and_standings(tmp_path: Path) -> None:
    folder = _field(tmp_path, 4)
    out = CliRunner().invoke(main, ["tournament", str(folder)])
    assert out.exit_code == 0
    assert "left out zz-invalid.txt" in out.stderr
    assert "4 units, 6 battles" in out.stdout and "rank" in out.stdout
