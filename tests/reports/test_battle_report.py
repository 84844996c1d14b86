"""Battle reports stay byte-identical for Amaryllis (``battle_corpus.json``, written from the
renderer that printed engine events directly; see ``tests/reports/corpus.py``)."""

from __future__ import annotations

import difflib
import json

import pytest

from tests.reports.corpus import CORPUS, VARIANTS, digest, render_case

CASES = json.loads(CORPUS.read_text(encoding="utf-8"))


def test_the_corpus_covers_the_report_paths() -> None:
    # the seed battle, its mirror match, 160 random pairs and 41 rarer ones
    assert len(CASES) >= 200 and CASES[0]["full"] and CASES[1]["a"] == CASES[1]["b"]
    assert any(not c["sheets"] for c in CASES) and any(c["title"] for c in CASES)


@pytest.mark.parametrize("index", range(len(CASES)))
def test_report_bytes_are_unchanged(index: int) -> None:
    case = CASES[index]
    for lang, fmt in VARIANTS:
        key = f"{lang}.{fmt}"
        got = render_case(case, lang, fmt)
        if case.get("text"):
            want = case["text"][key]
            assert got == want, "\n".join(
                difflib.unified_diff(
                    want.splitlines(), got.splitlines(), "before", "now", lineterm=""
                )
            )
        assert digest(got) == case["sha256"][key], f"case {index} {key} changed:\n{got}"
