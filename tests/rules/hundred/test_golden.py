"""Golden battles of Margaret Hundred: two sheets, the report expected (derived by hand in each
file's comments) and the result, in ``tests/rules/hundred/golden/``. The test shows the first line
that differs. File sections: ``[A]``, ``[B]``, optional ``[options]`` (``key=value`` lines),
``[lang]``, ``[report]``, ``[result]``; ``#`` lines are comments."""

from __future__ import annotations

from pathlib import Path

import pytest

from app.rules.base import BattleReport
from app.rules.hundred import MargaretHundred

GOLDEN = Path(__file__).with_name("golden")


def load(path: Path) -> dict[str, list[str]]:
    sections: dict[str, list[str]] = {}
    current = None
    for line in path.read_text(encoding="utf-8").split("\n"):
        if line.startswith("#") or (not line.strip() and current != "report"):
            continue
        if (
            line.startswith("[")
            and line.endswith("]")
            and line[1:-1] in ("A", "B", "options", "lang", "report", "result")
        ):
            current = line[1:-1]
            sections[current] = []
        elif current is not None and line.strip():
            sections[current].append(line)
    return sections


def render(rep: BattleReport) -> tuple[list[str], list[str]]:
    """The report as plain lines (turn headings, lines, children indented, state lines) and the
    result lines (the template adds only layout)."""
    ja = rep.lang == "ja"
    out: list[str] = []
    for t in rep.turns:
        out.append(
            f"第{str(t.turn).translate(str.maketrans('0123456789', '０１２３４５６７８９'))}ターン"
            if ja
            else f"Turn {t.turn}"
        )
        for line in t.lines:
            out.append(line.text)
            out.extend(("　" if ja else "  ") + c.text for c in line.children)
        out.extend(s.text for side in t.states for s in side)
    return out, [rep.verdict, *rep.explanation]


@pytest.mark.parametrize("path", sorted(GOLDEN.glob("*.txt")), ids=lambda p: p.stem)
def test_golden_battle(path: Path) -> None:
    g = load(path)
    options = dict(x.split("=", 1) for x in g.get("options", []))
    rs = MargaretHundred(options)
    a, b = rs.parse_sheet("\n".join(g["A"])), rs.parse_sheet("\n".join(g["B"]))
    assert a.ok and b.ok
    result = rs.battle(a.entry, b.entry)
    lines, verdict = render(rs.report(a.entry, b.entry, result, lang=g["lang"][0]))
    for i, (got, want) in enumerate(zip(lines, g["report"], strict=False)):
        assert got == want, (
            f"{path.name}: report line {i + 1} differs:\n  got  {got}\n  want {want}"
        )
    assert len(lines) == len(g["report"]), (
        f"{path.name}: {len(lines)} lines, want {len(g['report'])}"
    )
    assert verdict == g["result"]
    # the engine agrees with itself: the same battle mirrored, and without the log
    assert rs.battle(a.entry, b.entry, log=False) == result
