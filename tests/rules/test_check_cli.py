"""``amaryllis check SHEET`` through click's CliRunner: exit codes and output."""

from __future__ import annotations

from pathlib import Path

from click.testing import CliRunner

from app.cli import main

CORPUS = Path(__file__).resolve().parents[1] / "corpus" / "sheets"


def run(*args: str, stdin: bytes | None = None):  # type: ignore[no-untyped-def]
    return CliRunner().invoke(main, ["check", *args], input=stdin)


def test_valid_sheet_prints_normalized_sheet_and_costs() -> None:
    result = run(str(CORPUS / "good" / "grisk-halfwidth.txt"))
    assert result.exit_code == 0, result.output
    lines = result.output.splitlines()
    assert lines[0] == "グリスク：１０／１／１／２／シールド、スピア、スピア、ブースト"
    assert lines[1] == "技術４"
    assert "・スピア：１（直接攻撃）×４（効果２倍）÷４（遅延起動４）＝１、セット２回で２" in lines
    assert "合計４／技術４（残り０）" in lines


def test_lang_option_overrides_output_language() -> None:
    result = run("--lang", "en", str(CORPUS / "good" / "grisk-seed-cp932.txt"))
    assert result.exit_code == 0, result.output
    assert result.output.splitlines()[0] == "グリスク: 10/1/1/2/シールド, スピア, スピア, ブースト"
    assert "Total 4 / TECH 4 (0 left)" in result.output


def test_valid_sheet_with_warning_still_exits_0() -> None:
    result = run(str(CORPUS / "good" / "every-class-en.txt"))
    assert result.exit_code == 0
    assert 'warning (rules §1.3): Action "Haste" is defined but not set on the unit.' in (
        result.output
    )


def test_invalid_sheet_prints_every_error_and_exits_1() -> None:
    result = run(str(CORPUS / "40-many-errors-at-once.txt"))
    assert result.exit_code == 1
    assert result.output.startswith("This sheet is not valid.")
    assert result.output.count("error (rules §") == 10
    ja = run("--lang", "ja", str(CORPUS / "40-many-errors-at-once.txt"))
    assert ja.exit_code == 1 and ja.output.count("エラー（ルール§") == 10


def test_japanese_sheet_errors_in_japanese() -> None:
    result = run(str(CORPUS / "16-shift-jis.txt"))
    assert result.exit_code == 1
    assert "２行目：「・命の剣（１）：ライフ与え」" in result.output
    assert "ライフ与えには＜リミテッド＞が必須です。" in result.output


def test_unreadable_files() -> None:
    binary = run(str(CORPUS / "15-binary-junk.bin"))
    assert binary.exit_code == 1 and "not text" in binary.output
    missing = run(str(CORPUS / "no-such-file.txt"))
    assert missing.exit_code == 2  # click's usage error


def test_sheet_from_standard_input_in_shift_jis() -> None:
    sheet = "Ｎｕｔ：１０／３／１／１／剣\n・剣（１）：防御無視攻撃＜遅延起動３＞\n".encode("cp932")
    result = run("-", stdin=sheet)
    assert result.exit_code == 0, result.output
    assert result.output.splitlines()[0] == "Nut：１０／３／１／１／剣"
    assert run("-", stdin=b"\x00\x01binary").exit_code == 1
