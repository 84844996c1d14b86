"""Margaret Hundred sheets: base Margaret's reader and printers over the Hundred table, with
Hundred's budget, pool and warnings.

Source: ``rules/margaret-hundred.md`` §3 (H1, H2, H53, H60) and ``rules/margaret.md`` §4 (M1, M2,
M4, M7, M8). Reading is ``app.rules.margaret.notation.read_sheet`` over ``table.TABLE``: both
notations, the 100 codes and names (Japanese and English), parameters, ``<100>``, comments, the
剣技 line, the Amaryllis normalization and limits. This module adds what Hundred changes:

* H60's dot: ``遅19`` and ``遅延剣19`` are read by the base reader as a 遅延剣 without N plus
  stray digits; they are reported as one ``delay-needs-dot`` problem whose fix shows ``遅.19``;
* the budget with the league's cost table (H1): HP/5 + ATK + DEF + SPD + Σ sword costs ≤
  budget; with a stated 剣技 (M2) the stats and 剣技 make exactly the budget and the swords
  cost at most 剣技;
* the league's pool (§3.1), and the warnings of §12.11: unspent points, a sword usable only
  after turn 20 (the reader's ``never-usable``), a 遅延剣.N that never expires, 精霊剣 or 泡溢剣
  without an MP cost (H53), SPD 0, and "あいざわ病" (base Margaret's heuristic).

Full form::

    撃鉄：10/0/0/4/詠唱剣、爆炎剣、詠唱剣、爆炎剣
    Gekitetsu: 10/0/0/4/Chant Sword, Blast Sword, Chant Sword, Blast Sword

Compact form::

    10/0/0/4/詠爆詠爆/撃鉄
"""

from __future__ import annotations

import re
from collections import Counter
from dataclasses import dataclass

from app.rules.amaryllis.lexer import WHAT_UNIT, Pending
from app.rules.amaryllis.problems import Problem
from app.rules.amaryllis.vocab import L, normalize
from app.rules.margaret.notation import (
    SKILL_LINE,
    WHAT_SKILL,
    ReadSheet,
    format_swordmaster,
    is_swordmaster_line,
    line_content,
    read_sheet,
)
from app.rules.margaret.validate import unreachable

from .model import Sword, Swordmaster
from .options import Options
from .problems import CATALOGUE, make_problem
from .swords import BY_CODE
from .table import TABLE

__all__ = [
    "SKILL_LINE",
    "SheetResult",
    "format_costs",
    "format_sheet",
    "is_swordmaster_line",
    "parse_sheet",
]

_LIMITS = ("too-large", "too-many-lines", "line-too-long", "too-many-problems")
# 遅 followed by digits with no dot (H60), in a compact code field or as a full-form name
_DELAY_NO_DOT = re.compile(r"遅(?!\.)([0-9]+)")
_DELAY_NAME_NO_DOT = re.compile(r"(?i)(遅延剣|delay\s*sword)\s*([0-9]+)")


@dataclass(frozen=True, slots=True)
class SheetResult:
    """What :func:`parse_sheet` read: the entry (``None`` on any error), every problem (sorted
    by line), the language of the messages and the swordmaster's name as written."""

    entry: Swordmaster | None
    problems: tuple[Problem, ...]
    lang: str
    name: str = ""

    @property
    def errors(self) -> list[Problem]:
        return [p for p in self.problems if p.severity == "error"]

    @property
    def warnings(self) -> list[Problem]:
        return [p for p in self.problems if p.severity != "error"]


def _n(value: int) -> L:
    return L(str(value), str(value))


def _delay_dots(read: ReadSheet) -> None:
    """H60: replace the base reader's view of ``遅19`` / ``遅延剣19`` (a 遅延剣 without N and
    stray digits, or an unknown sword) by one ``delay-needs-dot`` problem showing ``遅.19``."""
    raw = read.master
    if raw is None:
        return
    s = line_content(raw.text) or ""
    found: list[tuple[str, str]] = []  # (written, example)
    if raw.form == "compact":
        fields = s.split("/", 5)
        codes = fields[4] if len(fields) > 4 else ""
        for m in _DELAY_NO_DOT.finditer(codes):
            found.append((m.group(0), f"遅.{m.group(1)}"))
    else:
        listing = s.partition(":")[2].split("/", 4)
        items = listing[4].split(",") if len(listing) > 4 else []
        for item in items:
            hit = _DELAY_NAME_NO_DOT.fullmatch(normalize(item).strip())
            if hit:
                name = "遅延剣" if hit.group(1).startswith("遅") else "Delay Sword"
                found.append((item.strip(), f"{name}.{hit.group(2)}"))
    if not found:
        return
    digits = {c for written, _ in found for c in written if c.isdigit()}
    keep: list[Pending] = []
    dropped_missing = 0
    for p in read.pending:
        if p.line == raw.line and raw.form == "compact":
            if (
                p.code == "missing-n"
                and p.params.get("word") == "遅"
                and dropped_missing < len(found)
            ):
                dropped_missing += 1
                continue
            if p.code == "unknown-code" and str(p.params.get("char")) in digits:
                continue
        if p.line == raw.line and raw.form == "full" and p.code == "unknown-sword":
            if any(str(p.params.get("sword")) == written for written, _ in found):
                continue
        keep.append(p)
    for written, example in found:
        keep.append(
            Pending("delay-needs-dot", raw.line, raw.text, {"written": written, "example": example})
        )
    read.pending[:] = keep
    raw.sword_errors = True


def _pool_label(opts: Options) -> L:
    if opts.pool == "all":
        return L("ハンドレッドの100種", "the 100 Hundred swords")
    if opts.pool == "basic":
        return L("ベーシック15種", "the 15 basic swords")
    return L(
        "、".join(BY_CODE[c].name for c in opts.pool_codes),
        ", ".join(BY_CODE[c].en for c in opts.pool_codes),
    )


def validate(read: ReadSheet, lang: str, opts: Options) -> tuple[Swordmaster | None, list[Pending]]:
    """The Hundred check of a read sheet: base Margaret's structure (empty sheet, the 剣技 line,
    negative values, HP in fives) with the league's budget, cost table and pool (H1, §3.1), then
    the warnings of §12.11. Returns the swordmaster (``None`` on any error) and every problem."""
    _delay_dots(read)
    pending = list(read.pending)
    if read.nonblank == 0 and not pending:
        pending.append(Pending("empty-sheet", None, ""))
        return None, pending
    raw = read.master
    if raw is None and not any(p.code in _LIMITS or p.code == "theki-notation" for p in pending):
        pending.append(Pending("no-swordmaster-line", None, ""))
    skill: int | None = None
    skill_ok = True
    skill_where: tuple[int, str] | None = None
    if read.skills:
        first_line, first_text, skill = read.skills[0]
        skill_where = (first_line, first_text)
        for line, text, _ in read.skills[1:]:
            pending.append(Pending("duplicate-skill-line", line, text, {"first": first_line}))
        if skill is None:
            skill_ok = False
        elif skill < 0:
            pending.append(
                Pending(
                    "negative-number", first_line, first_text, {"what": WHAT_SKILL, "value": skill}
                )
            )
            skill_ok = False
    master: Swordmaster | None = None
    if raw is not None:
        ok = True
        for i, value in enumerate(raw.numbers):
            if value is None:
                ok = False
            elif value < 0:
                ok = False
                pending.append(
                    Pending(
                        "negative-number",
                        raw.line,
                        raw.text,
                        {"what": WHAT_UNIT[i], "value": value},
                    )
                )
        hp = raw.numbers[0]
        if hp is not None and hp >= 0 and hp % 5:
            ok = False
            pending.append(
                Pending(
                    "hp-not-multiple-of-5",
                    raw.line,
                    raw.text,
                    {"hp": _n(hp), "lower": _n(hp - hp % 5), "upper": _n(hp - hp % 5 + 5)},
                )
            )
        pool = set(opts.pool_codes)
        for code in dict.fromkeys(s.code for s in raw.swords if s.code not in pool):
            d = BY_CODE[code]
            pending.append(
                Pending(
                    "not-in-pool",
                    raw.line,
                    raw.text,
                    {"sword": L(d.name, d.en), "pool": _pool_label(opts)},
                )
            )
        if ok and skill_ok:
            hp_, atk, defense, spd = (v for v in raw.numbers if v is not None)
            stats = hp_ // 5 + atk + defense + spd
            cost = sum(opts.cost(s.code) for s in raw.swords) + raw.unread  # unread: 1 each
            budget = opts.budget
            final_skill = budget - stats
            if skill is not None:  # M2 with the league's budget and costs
                sl, st = skill_where or (raw.line, raw.text)
                final_skill = skill
                if stats + skill != budget:
                    pending.append(
                        Pending(
                            "skill-mismatch",
                            sl,
                            st,
                            {
                                "hp": hp_,
                                "atk": atk,
                                "defense": defense,
                                "spd": spd,
                                "skill": skill,
                                "total": stats + skill,
                                "budget": budget,
                                "right": max(0, budget - stats),
                            },
                        )
                    )
                elif cost > skill:
                    pending.append(
                        Pending(
                            "skill-exceeded", raw.line, raw.text, {"cost": cost, "skill": skill}
                        )
                    )
                elif cost < skill and not raw.sword_errors:
                    pending.append(
                        Pending(
                            "unspent-points",
                            raw.line,
                            raw.text,
                            {"left": skill - cost, "budget": budget},
                        )
                    )
            elif stats + cost > budget:
                detail = L(
                    f"HP{hp_}÷5＋攻撃力{atk}＋防御力{defense}＋素早さ{spd}＋剣{cost}",
                    f"HP {hp_}/5 + ATK {atk} + DEF {defense} + SPD {spd} + swords {cost}",
                )
                pending.append(
                    Pending(
                        "over-budget",
                        raw.line,
                        raw.text,
                        {"total": stats + cost, "budget": budget, "detail": detail},
                    )
                )
            elif stats + cost < budget and not raw.sword_errors:
                pending.append(
                    Pending(
                        "unspent-points",
                        raw.line,
                        raw.text,
                        {"left": budget - stats - cost, "budget": budget},
                    )
                )
            master = Swordmaster(
                raw.name,
                hp_,
                atk,
                defense,
                spd,
                final_skill,
                tuple(raw.swords),
                bool(read.skills),
                raw.form,
                lang,
            )
    if master is None or raw is None or any(CATALOGUE[p.code][1] == "error" for p in pending):
        return None, pending
    warned: set[Sword] = set()
    for s in master.swords:
        d = BY_CODE[s.code]
        if s in warned:
            continue
        warned.add(s)
        if d.period and (s.n or 0) >= 20:
            pending.append(
                Pending(
                    "period-never-ends",
                    raw.line,
                    raw.text,
                    {"sword": L(d.full_name(s.n, "ja"), d.full_name(s.n, "en"))},
                )
            )
        if s.code in ("精", "泡") and opts.mp_cost(s.code) == 0:
            pending.append(
                Pending(
                    "costless-builder",
                    raw.line,
                    raw.text,
                    {"sword": L(d.name, d.en), "cap": opts.party_cap},
                )
            )
    if master.swords:
        if master.spd == 0:
            pending.append(Pending("spd-zero", raw.line, raw.text))
        else:
            lost = unreachable(TABLE, master)
            if lost:
                ja = "、".join(
                    f"{i + 1}本目の「{TABLE.sword_name(master.swords[i], 'ja')}」" for i in lost
                )
                en = ", ".join(
                    f'"{TABLE.sword_name(master.swords[i], "en")}" (sword {i + 1})' for i in lost
                )
                pending.append(
                    Pending(
                        "unreachable-sword",
                        raw.line,
                        raw.text,
                        {"swords": L(ja, en), "spd": _n(master.spd)},
                    )
                )
    return master, pending


def parse_sheet(
    text: str, *, options: Options | None = None, lang: str | None = None, default_lang: str = "ja"
) -> SheetResult:
    """Read and check one sheet (§3). Never raises for any value of ``text``.

    Args:
        text: the sheet (a non-``str`` is read as the empty sheet).
        options: the league options (budget, pool, costs, MP table, party cap).
        lang: write the messages in this language instead of the sheet's.
        default_lang: the language when the sheet gives no clue.

    Returns:
        A :class:`SheetResult`; ``entry`` is ``None`` when there is any error.
    """
    opts = options or Options()
    read = read_sheet(text if isinstance(text, str) else "", TABLE)
    sheet_lang = read.lang(default_lang)
    master, pending = validate(read, sheet_lang, opts)
    out_lang = lang or sheet_lang
    problems = sorted(
        (make_problem(p.code, p.line, p.text, out_lang, **p.params) for p in pending),
        key=lambda p: p.line if p.line is not None else 0,
    )
    name = read.master.name if read.master is not None else ""
    return SheetResult(master, tuple(problems), out_lang, name)


def format_sheet(m: Swordmaster, lang: str | None = None) -> str:
    """The normalized sheet in its notation and ``lang`` (base Margaret's printer over the
    Hundred table: ``ｺｳ`` and ``デ`` as the seed prints them, ``遅.19``).
    ``parse_sheet(format_sheet(m)).entry == m``."""
    return format_swordmaster(m, TABLE, lang)


def format_costs(m: Swordmaster, opts: Options, lang: str) -> str:
    """The point breakdown of ``m`` against the league's budget and cost table (H1)."""
    ja = lang == "ja"
    groups: Counter[str] = Counter(s.code for s in m.swords)
    cost = 0
    items = []
    for code, count in groups.items():
        d = BY_CODE[code]
        c = opts.cost(code) * count
        cost += c
        label = d.name if ja else d.en
        items.append(f"{label}×{count}={c}" if count > 1 else f"{label}={c}")
    stats = m.hp // 5 + m.atk + m.defense + m.spd
    total = stats + cost
    if ja:
        return (
            f"HP{m.hp}÷5={m.hp // 5}、攻撃力{m.atk}、防御力{m.defense}、素早さ{m.spd}\n"
            f"剣{len(m.swords)}本={cost}点"
            + (f"（{'、'.join(items)}）" if items else "")
            + f"\n合計{total}点／予算{opts.budget}点"
        )
    return (
        f"HP {m.hp}/5 = {m.hp // 5}, ATK {m.atk}, DEF {m.defense}, SPD {m.spd}\n"
        f"{len(m.swords)} swords = {cost} points"
        + (f" ({', '.join(items)})" if items else "")
        + f"\ntotal {total} of {opts.budget} points"
    )
