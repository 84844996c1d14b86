"""The notation table of Margaret Hundred: base Margaret's :class:`SwordTable` extended to 100.

Source: ``rules/margaret-hundred.md`` §3.3, §4 and H60. The sheet reader of base Margaret
(``app.rules.margaret.notation``) works over any :class:`~app.rules.margaret.swords.SwordTable`;
Hundred's table is base Margaret's 15 rows (:data:`app.rules.margaret.swords.BASIC`, the same
objects) followed by the 85 Hundred rows, each derived from this package's sword data
(``swords.SWORDS``: codes, names, kind, timing, <リミ>, <ピリN>, the parameter and 遅延剣's
``.`` separator). The engine keeps its own effect programs in ``swords.py``; this table is only
what the notation needs.
"""

from __future__ import annotations

from app.rules.margaret.swords import BASIC, SwordSpec, SwordTable

from .swords import KIND_NAMES, N_ACT, SWORDS, SwordDef


def _spec(d: SwordDef) -> SwordSpec:
    """The notation row of one Hundred sword (the tags as the seed writes them)."""
    tags: list[str] = []
    if d.period:
        tags += ["高速", "ピリN"]
    elif d.act == 0:
        tags.append("高速")
    elif d.act == N_ACT:
        tags.append("遅延N")
    elif d.act > 1:
        tags.append(f"遅延{d.act}")
    if d.limited:
        tags.append("リミ")
    return SwordSpec(
        d.code,
        d.name,
        d.en,
        KIND_NAMES[d.kind]["tag"],
        tuple(tags),
        d.param,
        # ｺｳ and コウ are one code after normalization (H60): listing コウ again would clash
        tuple(a for a in d.alt if a != "コウ"),
        "." if d.period else "",
        changes_ap=d.op in ("ap", "double") or (d.op == "stat" and d.arg == "spd"),
    )


TABLE = SwordTable("margaret-hundred", (*BASIC.swords, *(_spec(d) for d in SWORDS[15:])))
"""All 100 swords in §4 order: base Margaret's 15 rows, then Hundred's 85."""

assert [s.code for s in BASIC.swords] == [d.code for d in SWORDS[:15]]
assert [(s.ja, s.en) for s in BASIC.swords] == [(d.name, d.en) for d in SWORDS[:15]]
assert len(TABLE) == 100
