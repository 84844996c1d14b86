"""Reading sheet files in the encodings players use (``app/cli/sheetfile.py``)."""

from __future__ import annotations

from pathlib import Path

import pytest

from app.cli.sheetfile import MAX_BYTES, SheetFileError, decode_sheet_bytes, read_sheet_file

SHEET = (
    "グリスク：１０／１／１／２／シールド、スピア、スピア、ブースト\n"
    "・シールド（１）：防御力＋２＜リミテッド＞\n"
    "・スピア（１）：直接攻撃＜遅延起動４＞＜効果２倍＞\n"
    "・ブースト（１）：攻撃力＋１\n"
)


@pytest.mark.parametrize(
    "codec",
    [
        "utf-8",
        "utf-8-sig",
        "utf-16",
        "shift_jis",
        "cp932",
        "euc_jp",
        "iso2022_jp",
    ],
)
def test_each_encoding_round_trips(tmp_path: Path, codec: str) -> None:
    path = tmp_path / f"sheet-{codec}.txt"
    path.write_bytes(SHEET.encode(codec))
    assert read_sheet_file(path) == SHEET


@pytest.mark.parametrize(
    "text",
    [
        "ヌト\n",
        "ア",
        "命の剣",
        "ｱｲｳ ﾊﾝｶｸ：直接攻撃",
        "Grisk: 10/1/1/2",
        "魔法剣：ＨＰ減殺",
    ],
)
def test_short_ambiguous_texts(text: str) -> None:
    for codec in ("cp932", "euc_jp", "utf-8"):
        assert decode_sheet_bytes(text.encode(codec)) == text, codec


def test_cp932_only_characters() -> None:
    text = "①番目の剣：直接攻撃～\n"  # NEC/IBM extensions present in CP932 only
    assert decode_sheet_bytes(text.encode("cp932")) == text


def test_non_japanese_text_falls_back_to_charset_detection() -> None:
    # valid neither as EUC-JP nor as CP932, so charset-normalizer decides
    text = "Épée à la crème brûlée, façade\n" * 4
    assert decode_sheet_bytes(text.encode("latin-1")) == text


def test_binary_and_oversized_files_are_refused(tmp_path: Path) -> None:
    with pytest.raises(SheetFileError, match="not text"):
        decode_sheet_bytes(b"\x00\x01\x02PK\x03\x04" * 50)
    with pytest.raises(SheetFileError, match="not text"):
        decode_sheet_bytes(bytes(range(1, 32)) * 20)
    big = tmp_path / "big.txt"
    big.write_bytes(b"a" * (MAX_BYTES + 1))
    with pytest.raises(SheetFileError, match="too large"):
        read_sheet_file(big)
    with pytest.raises(OSError):
        read_sheet_file(tmp_path / "missing.txt")
