"""Golden battles of base Margaret: ``tests/rules/margaret/golden/*.txt``, each derived by hand from
``rules/margaret.md`` (M6: the Amaryllis battle) with the derivation in its comments.

The format is the Amaryllis one (``tests/rules/golden_runner.py``): ``[A]`` and ``[B]`` sheets in
Margaret notation, the ``[events]`` of the engine's log in the same compact lines (actions named by
the swords' Japanese names, as the compiled units carry them), and a ``[result]`` line
``winner A|B|none reason … turns T by …`` read from ``battle --json`` (so ``turns`` follows M10).
The runner reports the first line that differs. Run all of them alone with
``python -m tests.rules.margaret.golden_runner``.
"""

from __future__ import annotations

import sys
from pathlib import Path

from app.rules import find_ruleset
from tests.rules.golden_runner import Golden, describe, load

GOLDEN = Path(__file__).with_name("golden")
MARGARET = find_ruleset("margaret")()


def describe_result(data: dict[str, object]) -> str:
    """The ``[result]`` line of a ``battle --json`` object."""
    winner = data["winner"] or "none"
    return f"winner {winner} reason {data['reason']} turns {data['turns']} by {data['by']}"


def check(g: Golden) -> str | None:
    """None when the battle matches the golden file, else a message naming the first difference."""
    a, b = MARGARET.parse_sheet(g.sheet_a), MARGARET.parse_sheet(g.sheet_b)
    if not (a.ok and b.ok):
        return f"{g.path.name}: a sheet does not parse: {[p.message for p in a.errors + b.errors]}"
    r = MARGARET.battle(a.entry, b.entry)
    got = [line for e in r.events for line in describe(e)]
    for i, (want, have) in enumerate(zip(g.events, got, strict=False)):
        if want != have:
            return (
                f"{g.path.name}: event line {i + 1} differs:\n  expected {want}\n  got      {have}"
            )
    if len(got) != len(g.events):
        extra = (got[len(g.events) :] or g.events[len(got) :])[0]
        return (
            f"{g.path.name}: {len(got)} event lines, expected {len(g.events)}; first extra: {extra}"
        )
    result = describe_result(MARGARET.result_json(r, events=False))
    if result != g.result:
        return f"{g.path.name}: result {result!r}, expected {g.result!r}"
    return None


def all_goldens() -> list[Path]:
    return sorted(GOLDEN.glob("*.txt"))


if __name__ == "__main__":
    failures = [m for m in (check(load(p)) for p in all_goldens()) if m]
    print("\n".join(failures) or f"{len(all_goldens())} golden battles match")
    sys.exit(1 if failures else 0)
