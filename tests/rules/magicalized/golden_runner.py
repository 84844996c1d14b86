"""Golden battles of Margaret Magicalized: ``tests/rules/magicalized/golden/*.txt``, each derived
by hand from ``rules/margaret-magicalized.md`` with the derivation in its ``#`` comments (never
copied from the engine's output).

File sections (a ``#`` at the start of a line is a comment):

* ``[A]``, ``[B]``: the two sheets;
* ``[orders A]``, ``[orders B]`` (optional): the orders files (§5; a missing one means no cards);
* ``[lead]`` (optional): ``A`` or ``B``, the ``--lead`` option (default A, G51);
* ``[result]``: a JSON object with the §5 fields expected in ``battle --json``: ``winner``,
  ``reason``, ``turns``, ``by``, ``cards``, ``hands``, ``bans``, ``lead`` compared whole, and
  ``final`` as ``{"A": {…}, "B": {…}}`` holding the fields to compare of each swordmaster;
* ``[events]``: key event lines (``events.describe``) that must appear in this order among the
  battle's event lines (other lines may come between them).

The runner reports the first difference: a §5 field, or the first key event not found (with
the battle's lines around the place it was expected). Run all of them with
``python -m tests.rules.magicalized.golden_runner``.
"""

from __future__ import annotations

import json
import sys
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from app.rules import find_ruleset
from app.rules.base import BattleInputs

GOLDEN = Path(__file__).with_name("golden")
RS = find_ruleset("margaret-magicalized")()
SECTIONS = ("A", "B", "orders A", "orders B", "lead", "result", "events")


@dataclass(frozen=True)
class Golden:
    """One golden file's sections (each a list of lines, comments dropped)."""

    path: Path
    sections: dict[str, list[str]]

    def text(self, name: str) -> str | None:
        lines = self.sections.get(name)
        return None if lines is None else "\n".join(lines) + "\n"


def load(path: Path) -> Golden:
    """Read a golden file. Raises ``ValueError`` for an unknown section."""
    sections: dict[str, list[str]] = {}
    current: str | None = None
    for line in path.read_text(encoding="utf-8").split("\n"):
        if line.startswith("#"):
            continue
        if line.startswith("[") and line.rstrip().endswith("]"):
            current = line.strip()[1:-1]
            if current not in SECTIONS:
                raise ValueError(f"{path.name}: unknown section [{current}]")
            sections[current] = []
        elif current is not None and line.strip():
            sections[current].append(line.rstrip())
    return Golden(path, sections)


def fight(g: Golden, *, log: bool = True) -> tuple[Any, Any, Any]:
    """The golden battle: ``(entry A, entry B, result)``. Raises ``AssertionError`` when a sheet
    or an orders file does not read."""
    a, b = RS.parse_sheet(g.text("A") or ""), RS.parse_sheet(g.text("B") or "")
    assert a.ok and b.ok, f"{g.path.name}: a sheet does not read: {a.errors + b.errors}"
    orders = []
    for side in ("orders A", "orders B"):
        text = g.text(side)
        if text is None:
            orders.append(None)
            continue
        o = RS.parse_orders(text)
        assert o.ok, f"{g.path.name}: [{side}] does not read:\n{RS.format_problems(o.errors, 'en')}"
        orders.append(RS.orders_for(o.orders, None))
    lead = 1 if (g.sections.get("lead") or ["A"])[0].strip() == "B" else 0
    result = RS.fight(a.entry, b.entry, BattleInputs((orders[0], orders[1]), lead), log=log)
    return a.entry, b.entry, result


def event_lines(result: Any) -> list[str]:
    """Every event line of a logged result (``events.describe``)."""
    from app.rules.magicalized.events import describe

    return [line for e in result.events for line in describe(e)]


def check(g: Golden) -> str | None:
    """``None`` when the battle matches the golden file, else the first difference."""
    _, _, result = fight(g)
    got = RS.public_json(result, events=False)
    want = json.loads("\n".join(g.sections["result"]))
    for key, value in want.items():
        if key == "final":
            for side, fields in value.items():
                have = got["final"][side][0]
                for f, v in fields.items():
                    if have.get(f) != v:
                        return f"{g.path.name}: final.{side}.{f} is {have.get(f)!r}, expected {v!r}"
        elif got.get(key) != value:
            return (
                f"{g.path.name}: {key} is {json.dumps(got.get(key), ensure_ascii=False)}, "
                f"expected {json.dumps(value, ensure_ascii=False)}"
            )
    lines = event_lines(result)
    at = 0
    for k, want_line in enumerate(g.sections.get("events", []), start=1):
        try:
            at = lines.index(want_line.strip(), at) + 1
        except ValueError:
            near = "\n    ".join(lines[max(0, at - 3) : at + 12])
            return (
                f"{g.path.name}: key event {k} not found after battle line {at}:\n"
                f"  expected {want_line.strip()}\n  the battle goes on with:\n    {near}"
            )
    return None


def all_goldens() -> list[Path]:
    return sorted(GOLDEN.glob("*.txt"))


if __name__ == "__main__":
    paths = [Path(p) for p in sys.argv[1:]] or all_goldens()
    failures = [m for m in (check(load(p)) for p in paths) if m]
    print("\n".join(failures) or f"{len(paths)} golden battles match")
    sys.exit(1 if failures else 0)
