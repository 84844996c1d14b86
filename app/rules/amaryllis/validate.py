"""Build and cost validation of a read sheet: every rule of rules §1 and its input rulings.

``validate(lexed)`` turns the raw records of ``lexer.lex`` into a ``Unit`` plus the list of
problems (as ``Pending`` records, rendered later in the sheet's language). It never stops at the
first problem: every independent rule is checked.
"""

from __future__ import annotations

import difflib
from collections import Counter

from .costs import action_cost
from .costtext import show, steps_text
from .lexer import WHAT_COST, WHAT_TECH, WHAT_UNIT, Lexed, Pending, RawAction
from .model import Action, Kind, Unit
from .vocab import L, class_name, custom_name

LAST_TURN = 20
MAX_SUGGESTED = 5
"""Undefined names for which a close defined name is looked for (difflib is slow)."""
SUGGEST_FROM = 100
"""At most this many defined names of about the same length are compared with each one."""

_ONCE = ("limited", "delay", "quick", "effect")


def _both(fn, *args) -> L:  # type: ignore[no-untyped-def]
    return L(fn(*args, "ja"), fn(*args, "en"))


def _custom_label(ident: str, n: int | None = None) -> L:
    ja = "＜" + custom_name(ident, n, "ja").replace("０", "Ｎ") + "＞"
    en = "<" + custom_name(ident, n, "en").replace(" 0", " N").replace("x0", "xN") + ">"
    return L(ja, en)


def check_action(raw: RawAction, pending: list[Pending], unsure: bool = False) -> Action | None:
    """Check one action line against rules §1.1-§1.2 and build its ``Action``.

    Returns ``None`` when the class could not be read. Records ``customization-repeated``,
    ``delay-too-small``, ``delay-never-usable`` (warning), ``quick-with-delay``,
    ``effect-too-small``, ``attack-only``, ``must-be-limited``, ``n-too-small``,
    ``negative-number`` (declared cost) and ``declared-cost-mismatch`` (not when ``unsure``:
    the line has a syntax problem, so the computed cost would be a guess).
    """
    line, text = raw.line, raw.text
    counts: Counter[str] = Counter()
    for c in raw.customs:
        counts[c.ident] += c.count
    for ident in _ONCE:
        if counts[ident] > 1:
            pending.append(
                Pending(
                    "customization-repeated",
                    line,
                    text,
                    {"custom": _custom_label(ident), "count": counts[ident]},
                )
            )
    delay = next((c.n for c in raw.customs if c.ident == "delay" and c.n is not None), None)
    effect = next((c.n for c in raw.customs if c.ident == "effect" and c.n is not None), None)
    if delay is not None:
        if delay < 2:
            pending.append(Pending("delay-too-small", line, text, {"n": delay}))
        elif delay > LAST_TURN:
            pending.append(Pending("delay-never-usable", line, text, {"n": delay}))
    if counts["quick"] and counts["delay"]:
        pending.append(Pending("quick-with-delay", line, text))
    if effect is not None and effect < 2:
        pending.append(Pending("effect-too-small", line, text, {"n": effect}))
    if raw.declared is not None and raw.declared < 0:
        pending.append(
            Pending("negative-number", line, text, {"what": WHAT_COST, "value": raw.declared})
        )
    if raw.cls is None:
        return None
    cls = raw.cls
    if cls.kind is Kind.SUPPORT:
        for ident in ("effect", "stun", "poison"):
            if counts[ident]:
                pending.append(
                    Pending(
                        "attack-only",
                        line,
                        text,
                        {"custom": _custom_label(ident), "cls": _both(class_name, cls, raw.n)},
                    )
                )
    if cls.must_be_limited and not counts["limited"]:
        pending.append(
            Pending("must-be-limited", line, text, {"cls": _both(class_name, cls, raw.n)})
        )
    if cls.takes_n and raw.n is not None and raw.n < 1:
        pending.append(
            Pending(
                "n-too-small",
                line,
                text,
                {
                    "cls": L(
                        class_name(cls, None, "ja").replace("０", "Ｎ"),
                        class_name(cls, None, "en").replace("0", "N"),
                    ),
                    "n": raw.n,
                },
            )
        )
    action = Action(
        name=raw.name,
        cls=cls,
        n=raw.n if cls.takes_n else None,
        limited=counts["limited"] > 0,
        delay=delay,
        quick=counts["quick"] > 0,
        effect=effect,
        stun=counts["stun"],
        poison=counts["poison"],
        declared_cost=raw.declared,
    )
    if raw.declared is not None and raw.declared >= 0 and not unsure:
        if (not cls.takes_n or raw.n is not None) and (delay is None or delay >= 1):
            cost = action_cost(action)
            if cost != raw.declared:
                pending.append(
                    Pending(
                        "declared-cost-mismatch",
                        line,
                        text,
                        {
                            "declared": L(show(raw.declared, "ja"), str(raw.declared)),
                            "computed": L(show(cost, "ja"), show(cost, "en")),
                            "steps": L(steps_text(action, "ja"), steps_text(action, "en")),
                        },
                    )
                )
    return action


def validate(lexed: Lexed, lang: str) -> tuple[Unit | None, list[Pending]]:
    """Apply every rule of §1 to ``lexed``; return the unit (``None`` on any error) and all
    problems, syntax problems from the lexer included. ``lang`` is the sheet's notation
    (stored as ``Unit.lang``)."""
    pending = list(lexed.pending)
    if lexed.nonblank == 0 and not pending:
        pending.append(Pending("empty-sheet", None, ""))
        return None, pending
    unit_line = lexed.units[0] if lexed.units else None
    if unit_line is None:
        if not any(
            p.code in ("too-large", "too-many-lines", "line-too-long", "too-many-problems")
            for p in pending
        ):
            pending.append(Pending("no-unit-line", None, ""))

    # TECH line(s)
    tech: int | None = None
    tech_ok = True
    if lexed.techs:
        first_line, first_text, tech = lexed.techs[0]
        for line, text, _ in lexed.techs[1:]:
            pending.append(Pending("duplicate-tech-line", line, text, {"first": first_line}))
        if tech is None:
            tech_ok = False
        elif tech < 0:
            pending.append(
                Pending(
                    "negative-number", first_line, first_text, {"what": WHAT_TECH, "value": tech}
                )
            )
            tech_ok = False

    # the four numbers and the bonus points
    stats: list[int] | None = None
    if unit_line is not None:
        ok = True
        for i, value in enumerate(unit_line.numbers):
            if value is None:
                ok = False
            elif value < 0:
                ok = False
                pending.append(
                    Pending(
                        "negative-number",
                        unit_line.line,
                        unit_line.text,
                        {"what": WHAT_UNIT[i], "value": value},
                    )
                )
        hp = unit_line.numbers[0]
        if hp is not None and hp >= 0 and hp % 5:
            ok = False
            pending.append(
                Pending(
                    "hp-not-multiple-of-5",
                    unit_line.line,
                    unit_line.text,
                    {
                        "hp": L(show(hp, "ja"), str(hp)),
                        "lower": L(show(hp - hp % 5, "ja"), str(hp - hp % 5)),
                        "upper": L(show(hp - hp % 5 + 5, "ja"), str(hp - hp % 5 + 5)),
                    },
                )
            )
        if ok and tech_ok:
            hp_, atk, defense, spd = (v for v in unit_line.numbers if v is not None)
            spent = hp_ // 5 + atk + defense + spd
            params = {"hp": hp_, "atk": atk, "defense": defense, "spd": spd}
            jparams = {k: L(show(v, "ja"), str(v)) for k, v in params.items()}
            if tech is not None:
                if spent + tech != 10:
                    pending.append(
                        Pending(
                            "bonus-not-ten",
                            unit_line.line,
                            unit_line.text,
                            {
                                **jparams,
                                "tech": L(show(tech, "ja"), str(tech)),
                                "total": L(show(spent + tech, "ja"), str(spent + tech)),
                            },
                        )
                    )
                else:
                    stats = [hp_, atk, defense, spd, tech]
            elif spent > 10:
                pending.append(
                    Pending(
                        "bonus-over",
                        unit_line.line,
                        unit_line.text,
                        {**jparams, "total": L(show(spent, "ja"), str(spent))},
                    )
                )
            else:
                stats = [hp_, atk, defense, spd, 10 - spent]

    # action definitions
    defined: dict[str, Action] = {}
    first_line_of: dict[str, int] = {}
    unsure_lines = {p.line for p in lexed.pending}
    for raw in lexed.actions:
        action = check_action(raw, pending, raw.line in unsure_lines)
        if not raw.name:
            continue
        if raw.name in first_line_of:
            pending.append(
                Pending(
                    "duplicate-definition",
                    raw.line,
                    raw.text,
                    {"name": raw.name, "first": first_line_of[raw.name]},
                )
            )
            continue
        first_line_of[raw.name] = raw.line
        if action is not None:
            defined[raw.name] = action

    # the action list of the unit line
    loadout: list[Action] = []
    if unit_line is not None:
        reported: set[str] = set()
        suggested = 0
        for name in unit_line.names:
            if name in defined:
                loadout.append(defined[name])
            elif name not in first_line_of and name not in reported:
                reported.add(name)
                hint = L("", "")
                parts = [p.strip() for p in name.replace("・", ",").split(",") if p.strip()]
                if len(parts) > 1 and all(p in first_line_of for p in parts):
                    hint = L("名前の区切りは「、」です。", " Separate names with commas.")
                elif suggested < MAX_SUGGESTED and len(name) <= 40:
                    suggested += 1
                    near = [d for d in first_line_of if abs(len(d) - len(name)) <= 2]
                    close = difflib.get_close_matches(name, near[:SUGGEST_FROM], n=1, cutoff=0.6)
                    if close:
                        hint = L(f"もしかして「{close[0]}」？", f' Did you mean "{close[0]}"?')
                pending.append(
                    Pending(
                        "undefined-action",
                        unit_line.line,
                        unit_line.text,
                        {"name": name, "suggest": hint},
                    )
                )
        set_names = set(unit_line.names)
        text_of = {r.line: r.text for r in lexed.actions}
        for name, line in first_line_of.items():
            if name not in set_names:
                pending.append(Pending("unused-action", line, text_of[line], {"name": name}))

    # the budget (not judged when a set action's line could not be fully read)
    if stats is not None and not any(first_line_of[a.name] in unsure_lines for a in loadout):
        total = sum(action_cost(a) for a in loadout)
        if total > stats[4]:
            counts: dict[str, int] = {}
            for a in loadout:
                counts[a.name] = counts.get(a.name, 0) + 1
            parts_ja, parts_en = [], []
            for name, times in list(counts.items())[:20]:
                c = action_cost(defined[name])
                parts_ja.append(f"{name}{show(c, 'ja')}×{show(times, 'ja')}")
                parts_en.append(f"{name} {show(c, 'en')}×{times}")
            more = len(counts) > 20
            pending.append(
                Pending(
                    "over-budget",
                    unit_line.line if unit_line else None,
                    unit_line.text if unit_line else "",
                    {
                        "total": L(show(total, "ja"), show(total, "en")),
                        "tech": L(show(stats[4], "ja"), str(stats[4])),
                        "detail": L(
                            "＋".join(parts_ja) + ("…" if more else ""),
                            " + ".join(parts_en) + (" …" if more else ""),
                        ),
                    },
                )
            )

    from .problems import CATALOGUE

    errors = [p for p in pending if CATALOGUE[p.code][1] == "error"]
    if errors or stats is None or unit_line is None:
        return None, pending
    unit = Unit(
        name=unit_line.name,
        hp=stats[0],
        atk=stats[1],
        defense=stats[2],
        spd=stats[3],
        tech=stats[4],
        loadout=tuple(loadout),
        definitions=tuple(defined.values()),
        tech_explicit=bool(lexed.techs),
        lang=lang,
    )
    return unit, pending
