"""Every reply template renders in both languages with the context the pipeline gives it
(StrictUndefined: a missing variable fails), and ends with the footer. One template per view:
the language comes from the catalogs, not from a copy of the file."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from app.mail.commands import WORDS
from app.mail.replies import OrdersFields
from app.mail.reply import render_mail

TEMPLATES = Path(__file__).resolve().parents[2] / "templates" / "mail"
BASE = {
    "subject": "x",
    "cut_lines": 0,
    "max_lines": 500,
    "notes": [],
    "server": "t@localhost",
    "league": "spring",
    "detail": "",
    "open": [],
    "mine": [],
    "code": "",
    "action": "",
    "summary": "",
    "plus_local": "t",
    "plus_domain": "localhost",
    "key": "",
}
SHEET = {"ok": True, "normalized": "N", "costs": "C", "problems": "", "warnings": ""}
CONFIRM = {
    "kind": "replace",
    "token": "abc",
    "expires": "2026-12-01 12:00 UTC",
    "deadline": "2026-12-06 12:00 UTC",
    "hours": 48,
    "wrong_key": False,
}
HILL = {
    "number": 3,
    "replaced": False,
    "place": 1,
    "on_hill": True,
    "size": 2,
    "boards": [{"opponent": "B", "unit": "UB", "outcome": "win", "margin": 5, "battle_id": 9}],
    "table": [
        {
            "rank": "1",
            "name": "A",
            "unit": "UA",
            "points": "3",
            "wins": 1,
            "draws": 0,
            "losses": 0,
            "cells": {"ja": ("+5", "1", "0"), "en": ("+5", "1", "0")},
            "me": True,
        }
    ],
    "columns": {"ja": ("HP差", "勝", "年齢"), "en": ("HP", "W", "age")},
    "pushed_off": [{"entry_id": 7, "name": "C", "unit": "UC", "place": 3, "points": "0", "age": 2}],
}
ORDERS = OrdersFields(ok=True, normalized="HAND …", sections=["DEFAULT"], warnings="W")
BAD_ORDERS = OrdersFields(ok=False, problems="line 3: …")
CONTEXTS = {
    "entry": [
        dict(SHEET, accepted=True, replaced=False, reopened=False, version=1),
        dict(SHEET, accepted=True, replaced=False, reopened=False, version=1, key="7F3K-Q9PD"),
        dict(SHEET, accepted=True, replaced=True, reopened=False, version=2, warnings="W"),
        dict(SHEET, accepted=True, replaced=False, reopened=True, version=2),
        dict(
            SHEET,
            ok=False,
            accepted=False,
            replaced=False,
            reopened=False,
            version=None,
            problems="P",
        ),
        dict(SHEET, accepted=True, replaced=False, reopened=False, version=1, hill=HILL),
        dict(SHEET, accepted=True, replaced=False, reopened=False, version=1, orders=ORDERS),
        dict(
            SHEET, accepted=False, replaced=False, reopened=False, version=None, orders=BAD_ORDERS
        ),
        dict(
            SHEET,
            accepted=True,
            replaced=False,
            reopened=False,
            version=1,
            orders_form="MAGICALIZED spring HAND K\nDEFAULT",
        ),
    ],
    "check": [
        SHEET,
        dict(SHEET, ok=False, problems="P"),
        dict(
            SHEET,
            ok=False,
            problems="P",
            ruleset="Margaret",
            wrong_ruleset="Amaryllis",
            example="Laika: 15/0/1/2/Haste Sword",
        ),
    ],
    "test": [
        {"reports": ["R1", "R2"], "samples": True, "bad": [], "extra": 0},
        {
            "reports": [],
            "samples": False,
            "extra": 1,
            "bad": [{"which": 1, "first": 3, "last": 4, "single": False, "problems": "P"}],
        },
        {"reports": ["R1"], "samples": True, "bad": [], "extra": 0, "orders": ORDERS},
        {"reports": [], "samples": False, "bad": [], "extra": 0, "orders": BAD_ORDERS},
    ],
    "withdrawn": [{}, {"key": "7F3K-Q9PD"}],
    "standings": [{"standings": "S"}],
    "standings_open": [
        {"count": 1, "names": [], "deadline": "2026-12-06 12:00 UTC"},
        {"count": 3, "names": ["Alice", "player #2"], "deadline": ""},
    ],
    "help": [
        {
            "words": WORDS,
            "commands": [("entry", "enter")],
            "leagues": ["spring"],
            "no_command": False,
            "example": "Grisk: 10/1/1/2/Shield",
        },
        {
            "words": WORDS,
            "commands": [("entry", "enter")],
            "leagues": ["spring"],
            "no_command": True,
            "example": "Grisk: 10/1/1/2/Shield",
        },
    ],
    "confirm": [
        dict(CONFIRM, code=c, wrong_key=w) for c, w in (("request", False), ("request", True))
    ]
    + [
        dict(CONFIRM, code=c)
        for c in ("done", "superseded", "expired", "closed", "refused", "unknown")
    ]
    + [dict(CONFIRM, code=c, kind="orders", deadline="") for c in ("request", "expired")]
    + [dict(CONFIRM, code="request", change="  Grisk: 10/1/1/2/Shield")],
    "charset": [{"charset": "iso-2022-jp"}],
    "hill_off": [
        {
            "name": "C",
            "league": "h",
            "size": 2,
            "number": 3,
            "unit": "UC",
            "place": 3,
            "points": "0",
            "age": 2,
        },
        {
            "name": "Alice",
            "league": "h",
            "size": 10,
            "number": 12,
            "unit": "Grisk",
            "place": 11,
            "points": 4,
            "age": 3,
        },
    ],
    "orders": [
        {"code": "accepted", "orders": ORDERS, "version": 2, "key": "7F3K-Q9PD"},
        {
            "code": "accepted",
            "orders": ORDERS,
            "version": 1,
            "paused": True,
            "revision": "ORDERS FROM TURN 6\nEND",
        },
        {"code": "rejected", "orders": BAD_ORDERS},
        {
            "code": "revised",
            "battles": [
                {"opponent": "Yami", "from_turn": 6, "accepted": True, "problems": ""},
                {"opponent": "Mira", "from_turn": 6, "accepted": False, "problems": "P"},
            ],
        },
        {"code": "ready", "count": 1},
        {"code": "ready", "count": 2},
        {"code": "no-checkpoint"},
        {"code": "unproven"},
        {"code": "unproven", "wrong_key": True},
    ],
    "pairing": [
        {
            "name": "Alice",
            "round": 2,
            "board": 1,
            "side": "A",
            "unit": "Mira",
            "opponent": "Yami",
            "opponent_player": "Bob",
            "opponent_sheet": "Yami: 10/1/0/3",
            "lead": "lead draw: A",
            "deadline": "2026-12-04 01:35 UTC",
            "form": "MAGICALIZED spring HAND K",
            "standing": True,
            "checkpoints": [5, 10],
        },
        {
            "name": "Alice",
            "round": 1,
            "board": 2,
            "side": "B",
            "unit": "Mira",
            "opponent": "Yami",
            "opponent_player": "Bob",
            "opponent_sheet": "Yami: 10/1/0/3",
            "lead": "lead draw: B",
            "deadline": "",
            "form": "F",
            "standing": False,
        },
    ],
    "digest": [
        {
            "name": "Alice",
            "round": 2,
            "unit": "Mira",
            "wins": 1,
            "draws": 0,
            "losses": 1,
            "standings": "S",
            "url": "http://x/leagues/spring",
            "rows": [
                {
                    "board": 1,
                    "opponent": "Bob",
                    "unit": "Yami",
                    "result": "win",
                    "turns": 7,
                    "hp": "12 : 0",
                    "url": "http://x/b/1",
                },
                {
                    "board": 5,
                    "opponent": "Cy",
                    "unit": "Zed",
                    "result": "loss",
                    "turns": 9,
                    "hp": "0 : 3",
                    "url": "",
                },
            ],
        },
        {
            "name": "Alice",
            "round": 1,
            "unit": "",
            "wins": 0,
            "draws": 1,
            "losses": 0,
            "standings": "",
            "url": "",
            "rows": [
                {
                    "board": 1,
                    "opponent": "Bob",
                    "unit": "Yami",
                    "result": "draw",
                    "turns": 30,
                    "hp": "2 : 2",
                    "url": "",
                }
            ],
            "logs": [{"board": "1", "title": "Mira vs Yami", "log": "L"}],
        },
    ],
    "prefs": [
        {"pref": p, "logs": lg, "changed": c}
        for p, lg, c in (("all", False, False), ("own", True, True), ("none", False, True))
    ]
    + [
        {"pref": "all", "logs": False, "unknown": "loud"},
        {"pref": "none", "logs": False, "changed": True, "unsubscribed": True},
    ],
    "logs": [
        {"round": 2, "logs": [{"board": "1", "title": "A vs B", "log": "L"}]},
        {"round": 2, "logs": []},
        {"round": 0, "logs": []},
    ],
    "organizer": [
        {"action": "run", "summary": "Round 1 of spring played: 1 battles, 2 reports queued."}
    ],
    "error": [
        {"code": c, "size": 5, "limit": 1, "value": "v", "usage": "u", "detail": "d", "open": ["a"]}
        for c in (
            "no-such-league",
            "which-league",
            "too-large",
            "rate-limit",
            "bad-charset",
            "no-sheet",
            "password",
            "wrong-password",
            "not-organizer",
            "entries-closed",
            "not-entered",
            "disqualified",
            "bad-arguments",
            "organizer-failed",
            "league-error",
            "no-orders",
            "finished",
        )
    ]
    + [
        {"code": "which-league", "action": "run", "open": ["a"]},
        {"code": "which-league", "mine": ["spring", "autumn"], "open": ["autumn"]},
    ],
}


def _context(name: str, ctx: dict[str, Any], **extra: Any) -> dict[str, Any]:
    """The variables the pipeline renders ``name`` with: ``ctx`` through the template's typed
    context (its defaults filled in, as ``MailContext.reply`` does) plus the footer's."""
    import dataclasses

    from app.mail.replies import REPLIES, reply_context

    fields = {f.name for f in dataclasses.fields(REPLIES[name])}
    given = {k: v for k, v in BASE.items() if k in fields} | ctx
    return dict(BASE, **reply_context(name, given), **extra)


def test_every_template_file_is_covered() -> None:
    names = {p.name.split(".")[0] for p in TEMPLATES.glob("*.txt") if not p.name.startswith("_")}
    assert names == set(CONTEXTS)
    # one file per view, no copy per language
    assert not [p.name for p in TEMPLATES.glob("*.txt") if p.name.count(".") > 1]


@pytest.mark.parametrize("lang", ["ja", "en"])
@pytest.mark.parametrize("name", sorted(CONTEXTS))
def test_renders(name: str, lang: str) -> None:
    outputs = set()
    for ctx in CONTEXTS[name]:
        text = render_mail(name, lang, **_context(name, ctx))
        assert "t@localhost" in text and "\n\n-- \n" in text, (
            text
        )  # a blank line before the signature
        outputs.add(text)
    assert len(outputs) == len(CONTEXTS[name])  # every variant says something different
    cut = render_mail(name, lang, **_context(name, CONTEXTS[name][0], cut_lines=7, notes=["n1"]))
    assert "7" in cut and "n1" in cut and "\n\n-- \n" in cut, cut


@pytest.mark.parametrize("name", sorted(CONTEXTS))
def test_one_template_speaks_both_languages(name: str) -> None:
    """The same file renders Japanese from the catalog and English from the message ids."""
    ja = render_mail(name, "ja", **_context(name, CONTEXTS[name][0]))
    en = render_mail(name, "en", **_context(name, CONTEXTS[name][0]))
    assert ja != en
    assert "アマリリス対戦サーバ" in ja and "Amaryllis tournament server" in en
    assert not any("\u3040" <= ch <= "\u30ff" or "\u4e00" <= ch <= "\u9fff" for ch in en)


@pytest.mark.parametrize("name", sorted(CONTEXTS))
def test_every_template_variable_is_a_field_of_its_typed_context(name: str) -> None:
    """Datasette's rule for mails: each reply template has a frozen dataclass
    (app.mail.replies.REPLIES) whose fields, with the footer's, are every variable it uses,
    each documented."""
    import dataclasses

    from jinja2 import meta

    from app.mail.replies import REPLIES, Footer
    from app.reports.render import environment

    env = environment("en")
    source = env.loader.get_source(env, f"mail/{name}.txt")[0]  # type: ignore[union-attr]
    used = meta.find_undeclared_variables(env.parse(source)) - set(env.globals)
    footer = env.loader.get_source(env, "mail/_footer.txt")[0]  # type: ignore[union-attr]
    used |= meta.find_undeclared_variables(env.parse(footer)) - set(env.globals)
    cls = REPLIES[name]
    fields = {f.name for f in dataclasses.fields(cls)} | {
        f.name for f in dataclasses.fields(Footer)
    }
    assert used <= fields, sorted(used - fields)
    for c in (cls, Footer):
        doc = c.__doc__ or ""
        for f in dataclasses.fields(c):
            assert f.name in doc, f"{c.__name__}.{f.name} is not documented"
    assert cls.__dataclass_params__.frozen  # type: ignore[attr-defined]
    for ctx in CONTEXTS[name]:  # the contexts the tests render are valid typed contexts
        from app.mail.replies import reply_context

        own = {f.name for f in dataclasses.fields(cls)}
        reply_context(name, {k: v for k, v in dict(BASE, **ctx).items() if k in own})


def test_a_reply_with_a_wrong_field_fails_at_the_call_site() -> None:
    from app.mail.replies import reply_context

    with pytest.raises(TypeError):
        reply_context("withdrawn", {"league": "x", "keyy": "typo"})
    with pytest.raises(TypeError):
        reply_context("standings", {"league": "x"})  # the table is missing
    assert reply_context("error", {"code": "no-sheet"})["open"] == []
