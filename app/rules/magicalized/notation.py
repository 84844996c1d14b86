"""Margaret Magicalized sheets: base Margaret's reader over list 1 (§4.1, G2).

Source: ``rules/margaret-magicalized.md`` §1.2, §4.1 and G2 (M1, M2, M4, M7, M8 of
``rules/margaret.md``). A sheet is one swordmaster line in the full or the compact form, built
with 途心 10 from sword list 1, each sword one point::

    ミラ：10/1/0/3/導来剣、デス剣、加速剣、盾の剣
    10/1/0/3/導死速盾/ミラ

Reading is ``app.rules.margaret.notation.read_sheet`` over :data:`TABLE` (list 1, list 2 and
高速剣, so that the last two are refused by name rather than as unknown characters), and the
budget and warnings are base Margaret's ``validate``. This module adds what Magicalized changes:

* a list-2 sword (滅奏剣, 魂の剣, 押分剣) is an error ``list2-sword`` (they enter play only through
  黄昏の軌跡を, §1.2);
* 高速剣 is an error ``no-swift-sword`` (list 1 has none);
* ``回3`` / ``回復剣3`` (and ``導0``) is an error ``takes-no-n``: 回復剣 and 導来剣 take no N (G2);
* デス剣 is printed ``死`` (the seed's list 1), ``デ`` is accepted (G2).

Never raises for any string.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

from app.rules.amaryllis.lexer import Pending
from app.rules.amaryllis.problems import Problem
from app.rules.amaryllis.vocab import L, normalize
from app.rules.margaret.model import Sword, Swordmaster
from app.rules.margaret.notation import (
    ReadSheet,
    format_swordmaster,
    is_swordmaster_line,
    line_content,
    read_sheet,
)
from app.rules.margaret.swords import SwordSpec, SwordTable
from app.rules.margaret.validate import validate as margaret_validate

from .problems import SHEET_CATALOGUE, make_problem
from .swords import BUDGET, BY_CODE, SWORDS, SwordDef

__all__ = [
    "TABLE",
    "SheetResult",
    "format_costs",
    "format_sheet",
    "is_swordmaster_line",
    "parse_sheet",
]


def _spec(d: SwordDef) -> SwordSpec:
    tags = tuple(t for t in d.tags[1:])
    return SwordSpec(
        d.code, d.name, d.en, d.tags[0], tags, None, d.alt, "", changes_ap=d.op == "spd"
    )


TABLE = SwordTable("margaret-magicalized", tuple(_spec(d) for d in SWORDS))
"""The notation table: list 1 (15), list 2 (3) and 高速剣 (refused by the check)."""

_BUILDING = SwordTable("margaret-magicalized", tuple(_spec(d) for d in SWORDS if d.in_list == 1))
"""List 1 alone: the swords a sheet may name, as an unknown sword's fix lists them (list 2 and
高速剣 are read, then refused, so the reader's table holds them; the fix must not offer them)."""

_NO_N_CODE = re.compile(r"([回導])([0-9]+)")
_NO_N_NAME = re.compile(r"(?i)(回復剣|導来剣|heal\s*sword|guide\s*sword)\s*([0-9]+)")


@dataclass(frozen=True, slots=True)
class SheetResult:
    """What :func:`parse_sheet` read: the entry (``None`` on any error), every problem (sorted by
    line), the language of the messages and the swordmaster's name as written."""

    entry: Swordmaster | None
    problems: tuple[Problem, ...]
    lang: str
    name: str = ""


def _no_n(read: ReadSheet) -> list[Pending]:
    """G2: ``回3``/``導0``/``回復剣3`` are read by the base reader as the sword plus stray digits
    (or an unknown name); replace those problems by one ``takes-no-n`` each."""
    raw = read.master
    if raw is None:
        return []
    s = line_content(raw.text) or ""
    found: list[tuple[str, str]] = []  # (as written, the sword's code)
    if raw.form == "compact":
        fields = s.split("/", 5)
        for m in _NO_N_CODE.finditer(fields[4] if len(fields) > 4 else ""):
            found.append((m.group(0), m.group(1)))
    else:
        listing = s.partition(":")[2].split("/", 4)
        for item in listing[4].split(",") if len(listing) > 4 else []:
            hit = _NO_N_NAME.fullmatch(normalize(item).strip())
            if hit:
                word = hit.group(1).lower().replace(" ", "")
                found.append((item.strip(), "回" if word in ("回復剣", "healsword") else "導"))
            else:
                for m in _NO_N_CODE.finditer(normalize(item)):
                    found.append((m.group(0), m.group(1)))
    if not found:
        return []
    digits = {c for written, _ in found for c in written if c.isdigit()}
    keep: list[Pending] = []
    dropped = 0
    for p in read.pending:
        if p.line == raw.line and p.code == "unknown-code" and str(p.params.get("char")) in digits:
            dropped += 1
            continue
        if (
            p.line == raw.line
            and p.code == "unknown-sword"
            and any(str(p.params.get("sword")) == w for w, _ in found)
        ):
            dropped += 1
            continue
        keep.append(p)
    read.pending[:] = keep
    raw.unread = max(0, raw.unread - dropped)
    if raw.form == "full":  # an item with N was not read as a sword: count it (budget)
        raw.swords.extend(Sword(code) for _, code in found)
    raw.sword_errors = True
    out = []
    for written, code in found:
        d = BY_CODE[code]
        out.append(
            Pending(
                "takes-no-n",
                raw.line,
                raw.text,
                {"written": written, "sword": L(d.name, d.en), "short": d.code},
            )
        )
    return out


def validate(read: ReadSheet, lang: str) -> tuple[Swordmaster | None, list[Pending]]:
    """The Magicalized check of a read sheet: base Margaret's (途心 10, M1, M2, the warnings of
    ``margaret.md`` §4.5) over :data:`TABLE`, then the lists of §1.2 and G2. Returns the
    swordmaster (``None`` on any error) and every problem."""
    extra = _no_n(read)
    listed = L(_BUILDING.names_text("ja"), _BUILDING.names_text("en"))
    for p in read.pending:
        if p.code == "unknown-sword":
            p.params["names"] = listed
    master, pending = margaret_validate(read, lang, table=TABLE, budget=BUDGET)
    raw = read.master
    if raw is not None:
        for code in dict.fromkeys(s.code for s in raw.swords):
            d = BY_CODE[code]
            if d.in_list == 2:
                extra.append(Pending("list2-sword", raw.line, raw.text, {"sword": L(d.name, d.en)}))
            elif d.in_list == 0:
                extra.append(Pending("no-swift-sword", raw.line, raw.text))
    if extra:
        pending.extend(extra)
        if any(SHEET_CATALOGUE[p.code][1] == "error" for p in extra):
            master = None
    return master, pending


def parse_sheet(text: str, *, lang: str | None = None, default_lang: str = "ja") -> SheetResult:
    """Read and check one sheet (§4.1). Never raises for any value of ``text``.

    Args:
        text: the sheet (a non-``str`` is read as the empty sheet).
        lang: write the messages in this language instead of the sheet's.
        default_lang: the language when the sheet gives no clue.

    Returns:
        A :class:`SheetResult`; ``entry`` is ``None`` when there is any error.

    >>> r = parse_sheet("10/1/0/3/導死速盾/ミラ")
    >>> r.entry is not None, [s.code for s in r.entry.swords]
    (True, ['導', '死', '速', '盾'])
    >>> [p.code for p in parse_sheet("10/1/0/3/回3滅高/X").problems]
    ['takes-no-n', 'list2-sword', 'no-swift-sword']
    """
    read = read_sheet(text if isinstance(text, str) else "", TABLE)
    sheet_lang = read.lang(default_lang)
    master, pending = validate(read, sheet_lang)
    out_lang = lang or sheet_lang
    problems = sorted(
        (make_problem(p.code, p.line, p.text, out_lang, **p.params) for p in pending),
        key=lambda p: p.line if p.line is not None else 0,
    )
    name = read.master.name if read.master is not None else ""
    return SheetResult(master, tuple(problems), out_lang, name)


def format_sheet(m: Swordmaster, lang: str | None = None) -> str:
    """The normalized sheet in its notation and ``lang`` (base Margaret's printer over
    :data:`TABLE`; デス剣 as ``死``). ``parse_sheet(format_sheet(m)).entry == m``."""
    return format_swordmaster(m, TABLE, lang)


def format_costs(m: Swordmaster, lang: str) -> str:
    """The point breakdown of ``m`` against 途心 10 (each sword one point, G2)."""
    stats = m.hp // 5 + m.atk + m.defense + m.spd
    total = stats + len(m.swords)
    if lang == "ja":
        return (
            f"HP{m.hp}÷5={m.hp // 5}、攻撃力{m.atk}、防御力{m.defense}、素早さ{m.spd}、"
            f"剣{len(m.swords)}本={len(m.swords)}点\n合計{total}点／途心{BUDGET}"
        )
    return (
        f"HP {m.hp}/5 = {m.hp // 5}, ATK {m.atk}, DEF {m.defense}, SPD {m.spd}, "
        f"{len(m.swords)} swords = {len(m.swords)} points\ntotal {total} of {BUDGET}"
    )
