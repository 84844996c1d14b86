"""The sheet check of base Margaret: the budget (M1, M2) and the warnings of
``rules/margaret.md`` §4.5, over the raw records of :func:`.notation.read_sheet`.

``parse_sheet`` is the whole check: read, validate, render every problem in the sheet's
language. It never raises for a ``str`` and never stops at the first problem.
"""

from __future__ import annotations

from app.rules.amaryllis.lexer import WHAT_UNIT, Pending
from app.rules.amaryllis.vocab import L, num
from app.rules.base import Sheet

from .model import Sword, Swordmaster
from .notation import LAST_TURN, WHAT_SKILL, ReadSheet, read_sheet
from .problems import CATALOGUE, problem
from .swords import BASIC, SwordTable

BUDGET = 10
"""Bonus points of a swordmaster (``rules/margaret.md`` §1): HP/5 + ATK + DEF + SPD + 剣技."""

_LIMITS = ("too-large", "too-many-lines", "line-too-long", "too-many-problems")


def _n(value: int) -> L:
    return L(num(value, "ja"), str(value))


def always_usable(table: SwordTable, sword: Sword) -> bool:
    """True for a sword usable in every turn from turn 1 on that changes no AP or SPD: not
    <リミ>, not <高速>, no delay beyond turn 1, not :attr:`~.swords.SwordSpec.changes_ap`
    (斬 熱 護 盾 among the basic swords). Once it stands in the list it takes an AP every turn
    (M3)."""
    spec = table.spec(sword)
    return (
        not spec.limited
        and not spec.quick
        and not spec.changes_ap
        and spec.start_turn(sword.n) <= 1
    )


def unreachable(table: SwordTable, master: Swordmaster) -> list[int]:
    """Indexes of the swords that can never fire by the "あいざわ病" heuristic (§4.5): at
    least SPD swords before it are :func:`always_usable`, so AP never reaches it from turn 1
    on; a <高速> sword still fires in turn 0 when fewer than SPD <高速> swords precede it. A
    sword usable only after turn 20 is left out (it has its own warning), and nothing after a
    reachable 加速剣 (SPD then grows every turn) is flagged. Heuristic: it does
    not play the battle (Stun, a sword used up, a swordmaster that dies early), so it may be
    wrong either way; the warning says so."""
    out: list[int] = []
    always = quick = 0
    for i, sword in enumerate(master.swords):
        spec = table.spec(sword)
        lost = always >= master.spd and not (spec.quick and quick < master.spd)
        if lost and spec.start_turn(sword.n) <= LAST_TURN:
            out.append(i)
        if (
            not lost
            and spec.changes_ap
            and not spec.limited
            and not spec.quick
            and spec.start_turn(sword.n) <= 1
        ):
            break  # a reachable 加速剣 raises SPD every turn: AP reaches every later sword
        if always_usable(table, sword):
            always += 1
        if spec.quick:
            quick += 1
    return out


def validate(
    read: ReadSheet, lang: str, *, table: SwordTable = BASIC, budget: int = BUDGET
) -> tuple[Swordmaster | None, list[Pending]]:
    """Apply M1, M2, M5 and §4.5 to ``read``; return the swordmaster (``None`` on any error)
    and every problem (the reader's included). ``lang`` is the sheet's language, stored with
    the swordmaster."""
    pending = list(read.pending)
    if read.nonblank == 0 and not pending:
        pending.append(Pending("empty-sheet", None, ""))
        return None, pending
    raw = read.master
    if raw is None and not any(p.code in _LIMITS or p.code == "theki-notation" for p in pending):
        pending.append(Pending("no-swordmaster-line", None, ""))

    skill: int | None = None
    skill_ok = True
    if read.skills:
        first_line, first_text, skill = read.skills[0]
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
        if ok and skill_ok:
            hp_, atk, defense, spd = (v for v in raw.numbers if v is not None)
            points = hp_ // 5 + atk + defense + spd
            count = len(raw.swords)
            written = count + raw.unread  # an unknown sword still takes a point
            params = {"hp": _n(hp_), "atk": _n(atk), "defense": _n(defense), "spd": _n(spd)}
            over = False
            if skill is not None:  # M2: stated 剣技
                if points + skill != budget:
                    over = True
                    pending.append(
                        Pending(
                            "bonus-not-ten",
                            raw.line,
                            raw.text,
                            {**params, "skill": _n(skill), "total": _n(points + skill)},
                        )
                    )
                elif written > skill:
                    over = True
                    pending.append(
                        Pending(
                            "too-many-swords",
                            raw.line,
                            raw.text,
                            {"swords": _n(written), "skill": _n(skill)},
                        )
                    )
                final_skill = skill
            else:  # M1: 剣技 is what is left
                final_skill = budget - points
                if points + written > budget:
                    over = True
                    pending.append(
                        Pending(
                            "bonus-over",
                            raw.line,
                            raw.text,
                            {**params, "swords": _n(written), "total": _n(points + written)},
                        )
                    )
            if not over and not raw.sword_errors and count < final_skill:
                pending.append(
                    Pending(
                        "unspent-points",
                        raw.line,
                        raw.text,
                        {
                            "unspent": _n(final_skill - count),
                            "skill": _n(final_skill),
                            "swords": _n(count),
                        },
                    )
                )
            master = Swordmaster(
                name=raw.name,
                hp=hp_,
                atk=atk,
                defense=defense,
                spd=spd,
                skill=final_skill,
                swords=tuple(raw.swords),
                skill_explicit=bool(read.skills),
                notation=raw.form,
                lang=lang,
            )

    errors = [p for p in pending if CATALOGUE[p.code][1] == "error"]
    if errors or master is None or raw is None:
        return None, pending
    if master.swords:
        if master.spd == 0:
            pending.append(Pending("spd-zero", raw.line, raw.text))
        else:
            lost = unreachable(table, master)
            if lost:
                ja = "、".join(
                    f"{num(i + 1, 'ja')}本目の「{table.sword_name(master.swords[i], 'ja')}」"
                    for i in lost
                )
                en = ", ".join(
                    f'"{table.sword_name(master.swords[i], "en")}" (sword {i + 1})' for i in lost
                )
                pending.append(
                    Pending(
                        "unreachable-sword",
                        raw.line,
                        raw.text,
                        {
                            "swords": L(ja, en[0].upper() + en[1:] if en else en),
                            "spd": _n(master.spd),
                        },
                    )
                )
    return master, pending


def parse_sheet(
    text: str,
    *,
    lang: str | None = None,
    default_lang: str = "ja",
    table: SwordTable = BASIC,
    budget: int = BUDGET,
    ruleset: str = "margaret",
) -> Sheet:
    """Read and check a Margaret sheet (``rules/margaret.md`` §1, §4). Never raises.

    Args:
        text: the sheet text (a non-``str`` is read as the empty sheet).
        lang: write the messages in this language instead of the sheet's.
        default_lang: the language when the sheet gives no clue.
        table: the swords allowed (the league's pool); budget: the bonus points.
        ruleset: the name stored in the returned :class:`Sheet`.

    Returns:
        A :class:`~app.rules.base.Sheet` whose entry is the :class:`Swordmaster` (``None`` on
        any error); problems sorted by line (sheet-wide ones first).

    >>> s = parse_sheet("15/0/1/2/速熱衝絶/徘徊するライカ")
    >>> s.ok, s.name, s.entry.skill, len(s.entry.swords)
    (True, '徘徊するライカ', 4, 4)
    """
    read = read_sheet(text if isinstance(text, str) else "", table)
    sheet_lang = read.lang(default_lang)
    master, pending = validate(read, sheet_lang, table=table, budget=budget)
    out_lang = lang or sheet_lang
    problems = sorted(
        (problem(p.code, p.line, p.text, out_lang, **p.params) for p in pending),
        key=lambda p: p.line if p.line is not None else 0,
    )
    name = read.master.name if read.master is not None else ""
    return Sheet(ruleset, master, tuple(problems), out_lang, name)
