"""Golden battles: small text files in ``tests/rules/golden/`` holding two sheets, the expected
events in a compact one-line-per-event form, and the result. The runner reports the first event
that differs. Run all of them alone with ``python -m tests.rules.golden_runner``.

File format: ``[A]`` sheet, ``[B]`` sheet, ``[events]`` lines, ``[result]`` line; ``#`` comments.
"""

from __future__ import annotations

import sys
from dataclasses import dataclass
from pathlib import Path

from app.rules.amaryllis import battle, format_state, parse_sheet
from app.rules.amaryllis.events import (
    AttackDone,
    BattleResult,
    Died,
    PoisonDamage,
    Simultaneous,
    StunSpent,
    SupportDone,
    TurnEnded,
    TurnStarted,
)

GOLDEN = Path(__file__).with_name("golden")


@dataclass
class Golden:
    path: Path
    sheet_a: str
    sheet_b: str
    events: list[str]
    result: str


def load(path: Path) -> Golden:
    sections: dict[str, list[str]] = {}
    current = None
    for line in path.read_text(encoding="utf-8").splitlines():
        if line.startswith("#"):
            continue
        if line.startswith("[") and line.endswith("]"):
            current = line[1:-1]
            sections[current] = []
        elif current is not None:
            sections[current].append(line)
    return Golden(
        path,
        "\n".join(sections["A"]),
        "\n".join(sections["B"]),
        [x for x in sections["events"] if x.strip()],
        " ".join(x for x in sections["result"] if x.strip()),
    )


def describe(event: object, lang: str = "ja") -> list[str]:
    """The compact lines of one event (a simultaneous action: a block of indented lines)."""
    s = "AB"
    if isinstance(event, TurnStarted):
        return [f"turn {event.turn}"]
    if isinstance(event, TurnEnded):
        return [f"state {s[i]} {format_state(st, lang)}" for i, st in enumerate(event.states)]
    if isinstance(event, SupportDone):
        return [
            f"{s[event.side]} support {event.action} {event.cls} {event.value}"
            + (" removed" if event.removed else "")
        ]
    if isinstance(event, AttackDone):
        line = f"{s[event.side]} attack {event.action} {event.cls} -> {s[event.target]}"
        if event.reflected_by:
            line += " reflected by " + ",".join(s[x] for x in event.reflected_by)
        if event.tempo:
            line += f" tempo {event.tempo}"
        line += f" raw {event.raw}"
        if event.guarded:
            line += " guarded"
        line += " failed" if event.failed else f" damage {event.damage} hp {event.hp}"
        if event.stun:
            line += f" stun {event.stun}"
        if event.poison:
            line += f" poison {event.poison}"
        return [line + (" removed" if event.removed else "")]
    if isinstance(event, Died):
        return [f"{s[event.side]} died hp {event.hp}" + (" revived" if event.revived else "")]
    if isinstance(event, PoisonDamage):
        return [f"{s[event.side]} poison {event.damage} hp {event.hp}"]
    if isinstance(event, StunSpent):
        return [f"{s[event.side]} stunned left {event.stun_left}"]
    if isinstance(event, Simultaneous):
        return ["simultaneous"] + ["  " + x for e in event.events for x in describe(e, lang)]
    raise TypeError(event)


def describe_result(r: BattleResult) -> str:
    winner = "none" if r.winner is None else "AB"[r.winner]
    return f"winner {winner} reason {r.reason.value} turns {r.turns}"


def check(g: Golden) -> str | None:
    """None when the battle matches the golden file, else a message naming the first difference."""
    a, b = parse_sheet(g.sheet_a), parse_sheet(g.sheet_b)
    if a.unit is None or b.unit is None:
        return f"{g.path.name}: a sheet does not parse: {a.problems or b.problems}"
    r = battle(a.unit, b.unit)
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
    if describe_result(r) != g.result:
        return f"{g.path.name}: result {describe_result(r)!r}, expected {g.result!r}"
    return None


def all_goldens() -> list[Path]:
    return sorted(GOLDEN.glob("*.txt"))


if __name__ == "__main__":
    failures = [m for m in (check(load(p)) for p in all_goldens()) if m]
    print("\n".join(failures) or f"{len(all_goldens())} golden battles match")
    sys.exit(1 if failures else 0)
