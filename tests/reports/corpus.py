"""The Amaryllis battle-report corpus: the bytes the report renderer printed before reports went
generic (``BattleReport``, ``app/reports/battle.py``), so that a test proves they stay identical.

``battle_corpus.json`` holds, for each case, the two sheets, the title, whether the sheets are
shown, and the SHA-256 of the rendered report in ja/en × text/html (the seed's battle and its
mirror match also in full, to read a difference). It was written by this module from the renderer
of commit 5055dbc (templates ``reports/battle.{ja,en}.{txt,html}`` over engine events), its HTML
hashes rewritten since for intended layout changes (the last: quiet turns folded into one block,
``app.reports.layout``; the text hashes unchanged); rerun it
(``python -m tests.reports.corpus``) only when a change of the report text is intended, and say so
in the commit.
"""

from __future__ import annotations

import hashlib
import json
import random
import sys
from pathlib import Path
from typing import Any

CORPUS = Path(__file__).with_name("battle_corpus.json")
VARIANTS = (("ja", "text"), ("ja", "html"), ("en", "text"), ("en", "html"))
RANDOM_PAIRS = 160


def digest(text: str) -> str:
    """The SHA-256 of ``text`` in UTF-8, hex."""
    return hashlib.sha256(text.encode("utf-8")).hexdigest()


def cases() -> list[dict[str, Any]]:
    """The sheets of every case: the seed battle, its mirror, then seeded random valid pairs
    (some mirror matches, some with a title, some without sheets)."""
    from app.rules.amaryllis import format_sheet
    from app.rules.amaryllis.generate import random_unit
    from tests.rules.golden_runner import all_goldens, load

    seed = load(next(p for p in all_goldens() if p.stem == "seed_grisk_vs_nut"))
    out: list[dict[str, Any]] = [
        {"a": seed.sheet_a, "b": seed.sheet_b, "title": "", "sheets": True, "full": True},
        {
            "a": seed.sheet_a,
            "b": seed.sheet_a,
            "title": "グリスク ― グリスク",
            "sheets": True,
            "full": True,
        },
    ]
    rng = random.Random(20240610)
    for i in range(RANDOM_PAIRS):
        a = random_unit(rng)
        b = a if i % 17 == 3 else random_unit(rng)
        out.append(
            {
                "a": format_sheet(a),
                "b": format_sheet(b),
                "title": ("" if i % 3 else f"Round {i} ― board 1"),
                "sheets": i % 5 != 4,
                "full": False,
            }
        )
    # rarer paths, taken from further draws of the same generator: overkill, a draw with both
    # dead, something in turn 0, Stun spent, a Life revival, a reflected attack
    wanted = {
        "overkill": 10,
        "dead-draw": 5,
        "turn0": 8,
        "stunned": 6,
        "revived": 6,
        "reflected": 6,
    }
    for _ in range(200_000):
        if not any(wanted.values()):
            break
        a, b = random_unit(rng), random_unit(rng)
        tags = _tags(a, b)
        hit = [t for t in tags if wanted.get(t, 0) > 0]
        if hit:
            for t in hit:
                wanted[t] -= 1
            out.append(
                {
                    "a": format_sheet(a),
                    "b": format_sheet(b),
                    "title": "",
                    "sheets": True,
                    "full": False,
                }
            )
    return out


def _tags(a: Any, b: Any) -> set[str]:
    from app.rules.amaryllis import battle
    from app.rules.amaryllis.engine import event_json

    r = battle(a, b)
    tags = set()
    if r.reason.value == "overkill":
        tags.add("overkill")
    if r.reason.value == "draw" and r.final[0].dead:
        tags.add("dead-draw")
    flat = []
    for e in r.events:
        flat += list(e.events) if type(e).__name__ == "Simultaneous" else [e]
    turn = 0
    for e in flat:
        j = event_json(e)
        if j["type"] == "turn":
            turn = j["turn"]
        elif j["type"] != "turn_end" and turn == 0:
            tags.add("turn0")
        if j["type"] == "stunned":
            tags.add("stunned")
        if j["type"] == "died" and j["revived"]:
            tags.add("revived")
        if j["type"] == "attack" and j["reflected_by"]:
            tags.add("reflected")
    return tags


def render_case(case: dict[str, Any], lang: str, fmt: str) -> str:
    """The report of ``case`` as the current ``render_battle`` prints it."""
    from app.reports.battle import render_battle
    from app.rules.amaryllis import battle, parse_unit

    a, b = parse_unit(case["a"]), parse_unit(case["b"])
    return render_battle(
        a, b, battle(a, b), lang=lang, fmt=fmt, title=case["title"], sheets=case["sheets"]
    )


def build() -> list[dict[str, Any]]:
    """Every case with the digests (and, for ``full`` cases, the texts) of its four renders."""
    out = []
    for case in cases():
        renders = {f"{lang}.{fmt}": render_case(case, lang, fmt) for lang, fmt in VARIANTS}
        entry = dict(case, sha256={k: digest(v) for k, v in renders.items()})
        if case["full"]:
            entry["text"] = renders
        out.append(entry)
    return out


if __name__ == "__main__":
    data = build()
    CORPUS.write_text(json.dumps(data, ensure_ascii=False, indent=0) + "\n", encoding="utf-8")
    print(f"wrote {len(data)} cases to {CORPUS}", file=sys.stderr)
