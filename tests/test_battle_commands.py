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
    assert (
        "ヌトの勝利" in out.output
        and "グリスク：－１／４／３／２／スピア、スピア、ブースト" in out.output
    )


def test_battle_json_has_the_documented_shape(seed_files) -> None:
    out = CliRunner().invoke(main, ["battle", "--json", *map(str, seed_files)])
    assert out.exit_code == 0, out.output
    data = json.loads(out.output)
    assert set(data) == {"winner", "reason", "turns", "final", "events"}
    assert (data["winner"], data["reason"], data["turns"]) == ("B", "death", 4)
    assert (data["final"]["A"]["hp"], data["final"]["B"]["hp"]) == (-1, 1)
    assert {"hp", "atk", "def", "spd"} <= set(data["final"]["A"])
    # A is the first file given: swapping the files swaps the sides
    swapped = json.loads(
        CliRunner().invoke(main, ["battle", "--json", *map(str, seed_files[::-1])]).output
    )
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
        (tmp_path / f"{i:02d}.txt").write_text(
            format_sheet(random_unit(rng, f"U{i}")), encoding="utf-8"
        )
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
    assert "4 units, 3 rounds, 6 battles; stopped: every round played" in out.stdout
    assert "rank" in out.stdout and "head-to-head  Sonneborn-Berger  HP margin" in out.stdout


# -- other rulesets: --ruleset, or guessed from the notation ----------------------------------

LAIKA = "15/0/1/2/速熱衝絶/徘徊するライカ"
AIZAWA = "あいざわ：15/0/4/1/斬撃剣、デス剣"


def _write(tmp_path: Path, name: str, text: str, codec: str = "utf-8") -> Path:
    path = tmp_path / name
    path.write_bytes(text.encode(codec))
    return path


def test_margaret_battle_is_guessed_and_prints_its_report(tmp_path: Path) -> None:
    a, b = _write(tmp_path, "a.txt", LAIKA), _write(tmp_path, "b.txt", AIZAWA, "cp932")
    out = CliRunner().invoke(main, ["battle", str(a), str(b)])
    assert out.exit_code == 0, out.output
    assert out.stderr == "ruleset: margaret (guessed from the notation; --ruleset to choose)\n"
    assert out.stdout.startswith("ルール：マーガレット（剣１５種）\n")
    assert "徘徊するライカの勝利" in out.stdout and "あいざわ死亡" in out.stdout
    en = CliRunner().invoke(
        main, ["battle", "--lang", "en", "--ruleset", "margaret", str(a), str(b)]
    )
    assert en.exit_code == 0 and en.stderr == "" and "徘徊するライカ uses Haste Sword" in en.stdout


def test_margaret_battle_json_follows_section_7(tmp_path: Path) -> None:
    a, b = _write(tmp_path, "a.txt", LAIKA), _write(tmp_path, "b.txt", AIZAWA)
    data = json.loads(CliRunner().invoke(main, ["battle", "--json", str(a), str(b)]).stdout)
    assert set(data) == {"winner", "reason", "turns", "by", "final", "events"}
    assert (data["winner"], data["reason"], data["by"]) == ("A", "death", "death")
    assert [len(data["final"][s]) for s in "AB"] == [1, 1]
    (fa,), (fb,) = data["final"]["A"], data["final"]["B"]
    assert {"name", "hp", "max_hp", "mp", "alive", "exited"} <= set(fa)
    assert (fa["name"], fa["alive"], fb["name"], fb["alive"], fb["exited"]) == (
        "徘徊するライカ",
        True,
        "あいざわ",
        False,
        True,
    )


def test_ruleset_option_reads_the_sheets_with_that_ruleset(tmp_path: Path, seed_files) -> None:
    a = _write(tmp_path, "a.txt", LAIKA)
    out = CliRunner().invoke(main, ["battle", "--ruleset", "amaryllis", str(a), str(a)])
    assert out.exit_code == 1 and "a.txt" in out.stderr
    assert "どれでもありません" in out.stderr  # Amaryllis: not a unit line
    out = CliRunner().invoke(main, ["battle", "--ruleset", "margaret", *map(str, seed_files)])
    assert out.exit_code == 1 and "剣師の行でも剣技の行でもありません" in out.stderr
    out = CliRunner().invoke(main, ["battle", "--ruleset", "chess", str(a), str(a)])
    assert out.exit_code == 2 and "unknown ruleset 'chess'" in out.output
    assert "amaryllis" in out.output and "margaret" in out.output


def test_check_guesses_margaret_and_prints_the_budget(tmp_path: Path) -> None:
    sheet = _write(tmp_path, "aizawa.txt", AIZAWA, "euc_jp")
    out = CliRunner().invoke(main, ["check", str(sheet)])
    assert out.exit_code == 0, out.output
    assert out.stdout.splitlines()[0] == AIZAWA
    assert "合計１０／１０点（残り０）" in out.stdout and "あいざわ病" in out.stdout
    bad = _write(tmp_path, "bad.txt", "15/0/1/2/速熱衝X/x")
    out = CliRunner().invoke(main, ["check", "--lang", "en", str(bad)])
    assert out.exit_code == 1 and 'There is no sword code "X".' in out.stdout
    stdin = CliRunner().invoke(main, ["check", "-"], input=LAIKA.encode("cp932"))
    assert stdin.exit_code == 0 and stdin.stdout.startswith(LAIKA + "\n")


def _margaret_field(tmp_path: Path, n: int) -> Path:
    from app.rules.margaret import BASIC
    from app.rules.margaret.generate import random_swordmaster
    from app.rules.margaret.notation import format_swordmaster

    rng = random.Random(11)
    for i in range(n):
        m = random_swordmaster(rng, f"S{i}")
        (tmp_path / f"{i:02d}.txt").write_text(format_swordmaster(m, BASIC), encoding="utf-8")
    (tmp_path / "zz-amaryllis.txt").write_text(SEED.sheet_a, encoding="utf-8")
    return tmp_path


@pytest.mark.parametrize("jobs", [1, 2])
def test_margaret_tournament_json(tmp_path: Path, jobs: int) -> None:
    from app.rules import find_ruleset

    M = find_ruleset("margaret")()
    folder = _margaret_field(tmp_path, 6)
    out = CliRunner().invoke(main, ["tournament", str(folder), "--json", "--jobs", str(jobs)])
    assert out.exit_code == 0, out.output
    assert "ruleset: margaret" in out.stderr and "left out zz-amaryllis.txt" in out.stderr
    data = json.loads(out.stdout)
    assert set(data) == {"battles", "invalid", "format", "byes", "standings"}
    assert len(data["battles"]) == 15
    entries = {
        p.name: M.parse_sheet(p.read_text(encoding="utf-8")).entry for p in folder.glob("0*.txt")
    }
    for row in data["battles"]:
        expected = M.result_json(
            M.battle(entries[row["a"]], entries[row["b"]], log=False), events=False
        )
        # the result plus the two files, the round and the board (issue 13: every battle with
        # its round number)
        assert row == {
            "a": row["a"],
            "b": row["b"],
            "round": row["round"],
            "board": row["board"],
            **expected,
        }
        assert isinstance(row["final"]["A"], list) and row["by"] in ("death", "overkill", "hp")
    margins = {x["file"]: x["tiebreaks"]["margin"] for x in data["standings"]}
    assert sum(margins.values()) == 0 and sorted(margins) == sorted(entries)
