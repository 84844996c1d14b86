"""Every reply template renders in both languages with the context the pipeline gives it
(StrictUndefined: a missing variable fails), and ends with the footer."""

from __future__ import annotations

from pathlib import Path

import pytest

from app.mail.commands import WORDS
from app.mail.pipeline import render_mail

TEMPLATES = Path(__file__).resolve().parents[2] / "templates" / "mail"
BASE = {"subject": "x", "cut_lines": 0, "max_lines": 500, "notes": [], "server": "t@localhost",
        "league": "spring", "detail": "", "open": [], "mine": [], "code": "", "action": "", "summary": "",
        "plus_local": "t", "plus_domain": "localhost", "key": ""}
SHEET = {"ok": True, "normalized": "N", "costs": "C", "problems": "", "warnings": ""}
CONFIRM = {"kind": "replace", "token": "abc", "expires": "2026-12-01 12:00 UTC", "deadline": "2026-12-06 12:00 UTC",
           "hours": 48, "wrong_key": False}
HILL = {"number": 3, "replaced": False, "place": 1, "on_hill": True, "size": 2,
        "boards": [{"opponent": "B", "unit": "UB", "outcome": "win", "margin": 5, "battle_id": 9}],
        "table": [{"rank": "1", "name": "A", "unit": "UA", "points": "3", "wins": 1, "draws": 0,
                   "losses": 0, "margin": 5, "age": 0, "me": True}],
        "pushed_off": [{"entry_id": 7, "name": "C", "unit": "UC", "place": 3, "points": "0",
                        "age": 2}]}
CONTEXTS = {
    "entry": [dict(SHEET, accepted=True, replaced=False, reopened=False, version=1),
              dict(SHEET, accepted=True, replaced=False, reopened=False, version=1, key="7F3K-Q9PD"),
              dict(SHEET, accepted=True, replaced=True, reopened=False, version=2, warnings="W"),
              dict(SHEET, accepted=True, replaced=False, reopened=True, version=2),
              dict(SHEET, ok=False, accepted=False, replaced=False, reopened=False, version=None,
                   problems="P"),
              dict(SHEET, accepted=True, replaced=False, reopened=False, version=1, hill=HILL)],
    "check": [SHEET, dict(SHEET, ok=False, problems="P")],
    "test": [{"reports": ["R1", "R2"], "samples": True, "bad": [], "extra": 0},
             {"reports": [], "samples": False, "extra": 1,
              "bad": [{"which": 1, "first": 3, "last": 4, "single": False, "problems": "P"}]}],
    "withdrawn": [{}, {"key": "7F3K-Q9PD"}],
    "standings": [{"standings": "S"}],
    "help": [{"words": WORDS, "commands": [("entry", "enter")], "leagues": ["spring"], "no_command": False},
             {"words": WORDS, "commands": [("entry", "enter")], "leagues": ["spring"], "no_command": True}],
    "confirm": [dict(CONFIRM, code=c, wrong_key=w) for c, w in (("request", False), ("request", True))]
               + [dict(CONFIRM, code=c) for c in ("done", "superseded", "expired", "closed", "refused", "unknown")],
    "charset": [{"charset": "iso-2022-jp"}],
    "hill_off": [{"name": "C", "league": "h", "size": 2, "number": 3, "unit": "UC", "place": 3,
                  "points": "0", "age": 2}],
    "organizer": [{"action": "run", "summary": "Round 1 of spring played: 1 battles, 2 reports queued."}],
    "error": [{"code": c, "size": 5, "limit": 1, "value": "v", "usage": "u", "detail": "d", "open": ["a"]}
              for c in ("no-such-league", "which-league", "too-large", "rate-limit", "bad-charset",
                        "no-sheet", "password", "wrong-password", "not-organizer", "entries-closed", "not-entered",
                        "disqualified", "bad-arguments", "organizer-failed", "league-error")]
             + [{"code": "which-league", "action": "run", "open": ["a"]},
                {"code": "which-league", "mine": ["spring", "autumn"], "open": ["autumn"]}],
}


def test_every_template_file_is_covered() -> None:
    names = {p.name.split(".")[0] for p in TEMPLATES.glob("*.txt") if not p.name.startswith("_")}
    assert names == set(CONTEXTS)
    for name in names:
        assert (TEMPLATES / f"{name}.ja.txt").exists() and (TEMPLATES / f"{name}.en.txt").exists()


@pytest.mark.parametrize("lang", ["ja", "en"])
@pytest.mark.parametrize("name", sorted(CONTEXTS))
def test_renders(name: str, lang: str) -> None:
    outputs = set()
    for ctx in CONTEXTS[name]:
        text = render_mail(name, lang, **dict(BASE, **ctx))
        assert "t@localhost" in text and "\n\n-- \n" in text, text  # a blank line before the signature
        outputs.add(text)
    assert len(outputs) == len(CONTEXTS[name])  # every variant says something different
    cut = render_mail(name, lang, **dict(BASE, **CONTEXTS[name][0], cut_lines=7, notes=["n1"]))
    assert "7" in cut and "n1" in cut and "\n\n-- \n" in cut, cut
