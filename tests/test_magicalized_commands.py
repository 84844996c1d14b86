"""The offline contract of Margaret Magicalized (``rules/margaret-magicalized.md`` §5): ``battle``
with orders files and ``--lead``, ``tournament`` with ``X.orders.txt`` and the lead draws, and
``check`` of an orders file, through click's CliRunner (and one real process)."""

from __future__ import annotations

import hashlib
import json
import subprocess
import sys
from pathlib import Path

import pytest
from click.testing import CliRunner

from app.cli import main

ROOT = Path(__file__).resolve().parents[1]
GOLDEN = ROOT / "tests" / "rules" / "magicalized" / "golden"
FIELDS = {"winner", "reason", "turns", "final", "by", "cards", "hands", "bans", "lead"}
USUAL = {"ruleset", "engine_version", "totals", "push", "windows", "events"}


def _write(folder: Path, name: str, text: str, codec: str = "utf-8") -> Path:
    path = folder / name
    path.write_bytes(text.encode(codec))
    return path


def _golden_files(tmp_path: Path, stem: str) -> dict[str, Path]:
    """The sheets and orders files of one golden battle (``golden_runner`` format)."""
    from tests.rules.magicalized.golden_runner import load

    g = load(next(GOLDEN.glob(f"{stem}*.txt")))
    out = {}
    for section, name in (
        ("A", "a.txt"),
        ("B", "b.txt"),
        ("orders A", "a.orders.txt"),
        ("orders B", "b.orders.txt"),
    ):
        text = g.text(section)
        if text is not None:
            out[section] = _write(tmp_path, name, text)
    out["result"] = json.loads("\n".join(g.sections["result"]))  # type: ignore[assignment]
    return out


def _battle(*args: str) -> tuple[int, str, str]:
    res = CliRunner().invoke(main, ["battle", *args, "--ruleset", "margaret-magicalized"])
    return res.exit_code, res.stdout, res.stderr


def test_battle_json_prints_exactly_the_section_5_fields(tmp_path: Path) -> None:
    f = _golden_files(tmp_path, "19")  # 策 forbids 燃: cards of both sides, a ban, a draw
    code, out, err = _battle(
        str(f["A"]),
        str(f["B"]),
        "--orders-a",
        str(f["orders A"]),
        "--orders-b",
        str(f["orders B"]),
        "--json",
    )
    assert code == 0, err
    data = json.loads(out)
    assert set(data) == FIELDS | USUAL
    want = f["result"]
    for key in ("winner", "reason", "turns", "by", "cards", "hands", "bans", "lead"):
        assert data[key] == want[key], key  # type: ignore[index]
    assert [len(data["final"][s]) for s in "AB"] == [1, 1]
    assert list(data["final"]["A"][0])[:6] == ["name", "hp", "max_hp", "mp", "alive", "exited"]
    assert "private" not in data and "trace" not in json.dumps(data)


def test_battle_lead_and_the_defaults(tmp_path: Path) -> None:
    f = _golden_files(tmp_path, "22")  # the lead decides the winner (G20)
    args = [
        str(f["A"]),
        str(f["B"]),
        "--orders-a",
        str(f["orders A"]),
        "--orders-b",
        str(f["orders B"]),
        "--json",
    ]
    a_leads = json.loads(_battle(*args)[1])
    b_leads = json.loads(_battle(*args, "--lead", "B")[1])
    assert (a_leads["lead"], a_leads["winner"]) == ("A", "B")
    assert (b_leads["lead"], b_leads["winner"]) == ("B", "A")
    # no orders files: no cards, always pass (§5)
    bare = json.loads(_battle(str(f["A"]), str(f["B"]), "--json")[1])
    assert bare["cards"] == [] and bare["hands"] == {"A": [], "B": []} and bare["lead"] == "A"


def test_battle_text_report_offline_shows_both_private_blocks(tmp_path: Path) -> None:
    f = _golden_files(tmp_path, "19")
    code, out, _ = _battle(
        str(f["A"]),
        str(f["B"]),
        "--orders-a",
        str(f["orders A"]),
        "--orders-b",
        str(f["orders B"]),
        "--lang",
        "en",
    )
    assert code == 0
    assert "For 策師 only" in out and "For 燃師 only" in out
    assert "[HIT window] 燃師 plays Burning World (燃)" in out
    assert "forbidden by 対策" in out and "Draw" in out


def test_battle_refuses_bad_orders_files(tmp_path: Path) -> None:
    a = _write(tmp_path, "a.txt", "5/3/0/1/斬/甲\n")
    b = _write(tmp_path, "b.txt", "5/3/0/1/斬/乙\n")
    bad = _write(tmp_path, "bad.orders.txt", "HAND 燃×6\nORDERS\nON enemy HIT PLAY 燃\nEND\n")
    code, out, _ = _battle(str(a), str(b), "--orders-b", str(bad), "--json")
    assert code == 1 and set(json.loads(out)["errors"]) == {"B"}
    assert "exactly 7" in json.loads(out)["errors"]["B"] or "７枚" in json.loads(out)["errors"]["B"]
    # several sections and no DEFAULT: refused offline (G60)
    two = _write(
        tmp_path, "two.orders.txt", "VS 乙\nHAND 燃×7\nORDERS\nEND\nVS 丙\nHAND 燃×7\nORDERS\nEND\n"
    )
    code, _, err = _battle(str(a), str(b), "--orders-a", str(two))
    assert code == 1 and "G60" in err
    # orders options with a ruleset that takes none
    res = CliRunner().invoke(
        main, ["battle", str(a), str(b), "--ruleset", "margaret", "--orders-a", str(bad)]
    )
    assert res.exit_code == 2 and "takes no orders" in res.stderr


def test_tournament_with_orders_files_sections_and_the_lead_draws(tmp_path: Path) -> None:
    _write(tmp_path, "c.txt", "5/3/0/1/斬/丙\n")
    _write(tmp_path, "a.txt", "5/3/0/1/斬/甲\n")
    _write(tmp_path, "b.txt", "5/3/0/1/斬/乙\n", "cp932")
    # a: vanish the opponent's sword, but only against 乙; against everyone else no cards
    _write(
        tmp_path,
        "a.orders.txt",
        "VS 乙\nHAND 無×7\nORDERS\nON enemy ACT 斬 PLAY 無 enemy THIS ONCE\nEND\n",
    )
    # c: burn every hit, against everyone (DEFAULT)
    _write(tmp_path, "c.orders.txt", "HAND 燃×7\nORDERS\nON enemy HIT PLAY 燃\nEND\n")
    _write(tmp_path, "d.orders.txt", "HAND 燃×7\nORDERS\nEND\n")  # no d.txt beside it
    res = CliRunner().invoke(
        main,
        [
            "tournament",
            str(tmp_path),
            "--ruleset",
            "margaret-magicalized",
            "--json",
            "--seed",
            "s-1",
        ],
    )
    assert res.exit_code == 0, res.output
    data = json.loads(res.stdout)
    # G61: every two sheets once, in file-name order, side A the earlier file
    assert [(x["a"], x["b"]) for x in data["battles"]] == [
        ("a.txt", "b.txt"),
        ("a.txt", "c.txt"),
        ("b.txt", "c.txt"),
    ]
    names = {"a.txt": "a", "b.txt": "b", "c.txt": "c"}
    for row in data["battles"]:
        assert FIELDS | {"a", "b"} <= set(row) and "events" not in row
        byte = hashlib.sha256(
            f"magicalized-lead:s-1:{names[row['a']]}:{names[row['b']]}".encode()
        ).digest()[0]
        assert row["lead"] == ("A" if byte % 2 == 0 else "B")
    ab, ac, bc = data["battles"]
    assert [c["card"] for c in ab["cards"]] == ["無"]  # a's VS 乙 section
    assert all(c["side"] == "B" for c in ac["cards"])  # a has no section against 丙
    assert all(c["card"] == "燃" for c in ac["cards"] + bc["cards"]) and ac["cards"]
    assert [x["file"] for x in data["invalid"]] == ["d.orders.txt"]
    assert sorted(x["file"] for x in data["standings"]) == ["a.txt", "b.txt", "c.txt"]
    text = CliRunner().invoke(
        main, ["tournament", str(tmp_path), "--ruleset", "magicalized", "--jobs", "2"]
    )
    assert text.exit_code == 0 and "3 units, 3 rounds, 3 battles" in text.stdout
    assert "left out d.orders.txt" in text.stderr


def test_check_reads_orders_files(tmp_path: Path) -> None:
    good = _write(
        tmp_path,
        "o.txt",
        "手札 無×2、覆、燃、凍、闇、策\n命令\n時 敵 行動 死 使う 無 敵 これ\n終わり\n",
    )
    res = CliRunner().invoke(main, ["check", str(good)])
    assert res.exit_code == 0 and "ON enemy ACT 死 PLAY 無 enemy THIS" in res.stdout
    assert "margaret-magicalized" in res.stderr
    bad = _write(tmp_path, "bad.txt", "HAND 燃×7\nORDERS\nON enemy HITT PLAY 燃\nEND\n")
    res = CliRunner().invoke(
        main, ["check", str(bad), "--ruleset", "margaret-magicalized", "--lang", "ja"]
    )
    assert res.exit_code == 1 and "３行目" in res.stdout and "直し方" in res.stdout
    sheet = _write(tmp_path, "s.txt", "10/1/0/3/導死速盾/ミラ\n")
    res = CliRunner().invoke(main, ["check", str(sheet)])
    assert res.exit_code == 0 and "途心10" in res.stdout
    assert "ruleset: margaret-magicalized" in res.stderr  # 導来剣 is list 1's


def test_battle_as_a_process(tmp_path: Path) -> None:
    f = _golden_files(tmp_path, "01")
    out = subprocess.run(
        [
            sys.executable,
            "-m",
            "app.cli",
            "battle",
            str(f["A"]),
            str(f["B"]),
            "--ruleset",
            "margaret-magicalized",
            "--orders-a",
            str(f["orders A"]),
            "--json",
        ],
        capture_output=True,
        text=True,
        cwd=ROOT,
        check=True,
    )
    data = json.loads(out.stdout)
    want = f["result"]
    keys = ("winner", "reason", "turns", "cards", "hands", "lead")
    assert {k: data[k] for k in keys} == {k: want[k] for k in keys}  # type: ignore[index]


@pytest.mark.parametrize("stem", ["05", "13", "28"])
def test_battle_json_matches_the_golden_results(tmp_path: Path, stem: str) -> None:
    f = _golden_files(tmp_path, stem)
    args = [str(f["A"]), str(f["B"]), "--json"]
    for section, flag in (("orders A", "--orders-a"), ("orders B", "--orders-b")):
        if section in f:
            args += [flag, str(f[section])]
    data = json.loads(_battle(*args)[1])
    want = f["result"]
    for key in ("winner", "reason", "turns", "by", "cards", "hands", "bans", "lead"):
        assert data[key] == want[key], key  # type: ignore[index]
