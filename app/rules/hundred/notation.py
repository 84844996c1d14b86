"""Margaret Hundred sheets: read, validate and print one swordmaster, in both notations.

Source: ``rules/margaret-hundred.md`` §3 (H1, H2, H53, H60) and ``rules/margaret.md`` §4 (M1, M2,
M4, M7, M8). The reader works over any :class:`~.table.SwordTable` (base Margaret's 15 swords or
the Hundred's 100) and reuses the Amaryllis input layer: its normalization
(``amaryllis.vocab.normalize``: NFKC plus ``、`` ``〈〉`` ``《》`` and minus signs), its limits
(``amaryllis.lexer``), its THEKI-line detector and its :class:`Problem` records.

Full form (name first; sword names in Japanese or English, separated by ``、`` ``,`` ``，``)::

    撃鉄Act.6：55/0/3/6/黙祷剣、黙祷剣、抑制剣、滅奏剣、遅延剣.19、滅奏剣
    Koh: 5/5/0/2/Swift Sword, Swift Sword

Compact form (``HP/ATK/DEF/SPD/codes/name``; the name is optional and may contain ``/``)::

    55/0/3/6/黙黙抑滅遅.19滅/撃鉄Act.6

A sheet is one swordmaster line; blank lines and ``#`` comments are ignored, a leading ``<100>`` is
dropped, and the only other line allowed is a stated 剣技 line (``剣技4``, ``SKILL 4``, M2).
:func:`parse_sheet` never raises for a ``str``; every problem comes back with its line, rule and
fix in the sheet's language.
"""

from __future__ import annotations

import re
from collections import Counter
from dataclasses import dataclass, field

from app.rules.amaryllis.lexer import (
    MAX_CHARS, MAX_DIGITS, MAX_LINE_CHARS, MAX_LINES, MAX_PROBLEMS, is_theki_line,
)
from app.rules.amaryllis.problems import Problem
from app.rules.amaryllis.vocab import L, normalize, normalize_name

from .model import Sword, Swordmaster
from .options import Options
from .problems import CATALOGUE, make_problem
from .swords import ADDITION, BY_CODE, CONTROL, N_ACT, SwordDef
from .table import HUNDRED, SwordTable

EXAMPLE = {"ja": "あいざわ：15/0/4/1/斬撃剣、デス剣", "en": "Aizawa: 15/0/4/1/Slash Sword, Death Sword"}
COMPACT_EXAMPLE = "15/0/1/2/速熱衝絶/徘徊するライカ"

_SKILL = re.compile(r"(?i)(剣技|skill)\s*[:=]?\s*([+-]?[0-9]+)")
_COMPACT = re.compile(r"[+-]?[0-9]+\s*/")
_FULL_BODY = re.compile(r"\s*[+-]?[0-9]+\s*(?:/|$)")
_POOL_PREFIX = re.compile(r"<\s*100\s*>\s*")
_INT = re.compile(r"[+-]?[0-9]+")

_WHAT = {
    "hp": L("HP", "HP"), "atk": L("攻撃力", "ATK"), "def": L("防御力", "DEF"),
    "spd": L("素早さ", "SPD"), "skill": L("剣技", "SKILL"),
}


@dataclass(slots=True)
class _Pending:
    code: str
    line: int | None
    text: str
    params: dict[str, object] = field(default_factory=dict)


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


def _content(raw: str) -> str | None:
    """The normalized text of a line, ``None`` for a blank line or a comment."""
    text = normalize(raw).strip()
    if not text or text.startswith("#") or text.startswith("//"):
        return None
    return text


def _split_form(text: str) -> tuple[str, str, str] | None:
    """``("full", name, body)`` or ``("compact", "", text)`` for a swordmaster line (M7), else
    ``None``. ``text`` is normalized; a leading ``<100>`` is dropped (H60)."""
    m = _POOL_PREFIX.match(text)
    if m:
        text = text[m.end():]
    colon = text.find(":")
    slash = text.find("/")
    if colon >= 0 and (slash < 0 or colon < slash):
        body = text[colon + 1:]
        if _FULL_BODY.match(body):
            return "full", text[:colon], body
        return None
    if _COMPACT.match(text):
        return "compact", "", text
    return None


def is_swordmaster_line(raw: str) -> bool:
    """True when ``raw`` is a swordmaster line in either notation (linear in its length)."""
    if len(raw) > MAX_LINE_CHARS:
        return False
    text = _content(raw)
    return text is not None and _split_form(text) is not None and not is_theki_line(raw)


def _read_int(s: str, what: str, line: int, raw: str, out: list[_Pending]) -> int | None:
    s = s.strip()
    if not _INT.fullmatch(s):
        out.append(_Pending("bad-number", line, raw, {"what": _WHAT[what], "value": s}))
        return None
    digits = len(s.lstrip("+-"))
    if digits > MAX_DIGITS:
        out.append(_Pending("number-too-large", line, raw, {"what": _WHAT[what], "digits": digits}))
        return None
    v = int(s)
    if v < 0:
        out.append(_Pending("negative-number", line, raw, {"what": _WHAT[what], "value": v}))
        return None
    return v


def _n_params(d: SwordDef, n: int | None = None) -> dict[str, object]:
    example_n = max(d.param or 0, 1) if not d.period else 19
    return {"sword": L(d.name, d.en), "min": d.param or 0,
            "example": L(d.full_name(example_n, "ja"), d.full_name(example_n, "en")),
            **({"n": n} if n is not None else {})}


def _read_codes(codes: str, table: SwordTable, line: int, raw: str,
                out: list[_Pending]) -> list[Sword]:
    """The swords of a compact code field (M7, H60): codes left to right, N greedy."""
    swords: list[Sword] = []
    i = 0
    n_codes = len(codes)
    while i < n_codes and len(out) < MAX_PROBLEMS:
        c = codes[i]
        if c.isspace():
            i += 1
            continue
        d = table.code_at(codes, i)
        if d is None:  # one problem for a run of unknown characters ("Slash Sword")
            j = i + 1
            while j < n_codes and table.code_at(codes, j) is None and j - i < 40:
                j += 1
            out.append(_Pending("unknown-code", line, raw,
                                {"ch": codes[i:j].strip(), "position": i + 1,
                                 "codes": table.code_list()}))
            i = j
            continue
        start = i
        i += table.code_length(codes, i)
        if d.param is None:
            swords.append(Sword(d.code))
            continue
        dot = d.period and i < n_codes and codes[i] == "."
        if dot:
            i += 1
        j = i
        while j < n_codes and codes[j].isascii() and codes[j].isdigit():
            j += 1
        digits = codes[i:j]
        if d.period and not dot:
            if digits:
                out.append(_Pending("delay-needs-dot", line, raw,
                                    {"written": codes[start:j],
                                     "example": f"{d.code}.{digits[:MAX_DIGITS]}"}))
                i = j
            else:
                out.append(_Pending("missing-n", line, raw, _n_params(d)))
            continue
        if not digits:
            out.append(_Pending("missing-n", line, raw, _n_params(d)))
            continue
        i = j
        if len(digits) > MAX_DIGITS:
            out.append(_Pending("n-too-large", line, raw, {"sword": L(d.name, d.en)}))
            continue
        n = int(digits)
        if n < (d.param or 0):
            out.append(_Pending("n-too-small", line, raw, _n_params(d, n)))
            continue
        swords.append(Sword(d.code, n))
    return swords


def _read_names(listing: str, table: SwordTable, line: int, raw: str, out: list[_Pending],
                votes: Counter[str]) -> list[Sword]:
    """The swords of a full-form name list (M8: separated by ``,`` after normalization)."""
    if not listing.strip():
        return []
    swords: list[Sword] = []
    items = listing.split(",")
    empty = 0
    for item in items:
        item = item.strip()
        if not item:
            empty += 1
            continue
        m = table.read_name(item)
        if m.sword is not None:
            votes[m.lang] += 1
            swords.append(m.sword)
        elif m.problem == "unknown-sword":
            guess = table.suggest_name(item)
            code_d = table.codes.get(normalize(item))  # a compact code in the full form
            if code_d is not None:
                suggest = L(f"「{code_d.name}」のことですか？", f"Did you mean \"{code_d.en}\"? ")
            elif guess:
                suggest = L(f"「{guess}」のことですか？", f"Did you mean \"{guess}\"? ")
            else:
                suggest = L("", "")
            out.append(_Pending("unknown-sword", line, raw,
                                {"name": item, "suggest": suggest,
                                 "pool": L(table.label["ja"], table.label["en"])}))
        else:
            d = m.d
            assert d is not None
            votes[m.lang] += 1
            if m.problem == "delay-needs-dot":
                out.append(_Pending("delay-needs-dot", line, raw,
                                    {"written": item,
                                     "example": L(d.full_name(m.n, "ja"), d.full_name(m.n, "en"))}))
            elif m.problem == "n-too-large":
                out.append(_Pending("n-too-large", line, raw, {"sword": L(d.name, d.en)}))
            else:
                out.append(_Pending(m.problem, line, raw, _n_params(d, m.n)))
        if len(out) >= MAX_PROBLEMS:
            break
    if empty:
        out.append(_Pending("empty-sword-name", line, raw))
    return swords


def _never_fires(m: Swordmaster, opts: Options) -> list[int]:
    """Indexes of swords that AP never reaches ("あいざわ病", §12.11): at least SPD swords before
    them are usable every turn (no <リミ>, no period, active from turn 1 or 0, no MP cost, and
    not a sword that changes AP or the list)."""
    every = 0
    out = []
    for i, s in enumerate(m.swords):
        if every >= m.spd:
            out.append(i)
        d = BY_CODE[s.code]
        act = (s.n or 0) if d.act == N_ACT else d.act
        if (not d.limited and not d.period and act <= 1 and d.kind not in (CONTROL, ADDITION)
                and d.op != "ap" and opts.mp_cost(s.code) == 0):
            if d.op == "stat" and d.arg == "spd":
                break  # 加速剣 every turn: SPD, and so AP, grows turn by turn
            every += 1
    return out


def _validate(m: Swordmaster, opts: Options, skill: int | None, line: int, raw: str,
              skill_line: tuple[int, str] | None, out: list[_Pending]) -> None:
    """Budget (H1, M1, M2), pool (§3.1) and the warnings of §12.11."""
    if m.hp % 5:
        out.append(_Pending("hp-not-multiple-of-5", line, raw,
                            {"hp": m.hp, "lower": m.hp - m.hp % 5, "upper": m.hp - m.hp % 5 + 5}))
    pool = set(opts.pool_codes)
    seen: set[str] = set()
    for s in m.swords:
        if s.code not in pool and s.code not in seen:
            seen.add(s.code)
            d = BY_CODE[s.code]
            label = (HUNDRED.label if opts.pool == "all" else
                     {"ja": "ベーシック15種", "en": "the 15 basic swords"} if opts.pool == "basic"
                     else {"ja": "、".join(BY_CODE[c].name for c in opts.pool_codes),
                           "en": ", ".join(BY_CODE[c].en for c in opts.pool_codes)})
            out.append(_Pending("not-in-pool", line, raw,
                                {"sword": L(d.name, d.en), "pool": L(label["ja"], label["en"])}))
    stats = m.hp // 5 + m.atk + m.defense + m.spd
    cost = sum(opts.cost(s.code) for s in m.swords)
    budget = opts.budget
    if skill is not None:
        sl, sraw = skill_line or (line, raw)
        if stats + skill != budget:
            out.append(_Pending("skill-mismatch", sl, sraw, {
                "hp": m.hp, "atk": m.atk, "defense": m.defense, "spd": m.spd, "skill": skill,
                "total": stats + skill, "budget": budget, "right": max(0, budget - stats)}))
        elif cost > skill:
            out.append(_Pending("skill-exceeded", line, raw, {"cost": cost, "skill": skill}))
        elif cost < skill:
            out.append(_Pending("unspent-points", line, raw,
                                {"left": skill - cost, "budget": budget}))
    else:
        total = stats + cost
        if total > budget:
            detail = L(f"HP{m.hp}÷5＋攻撃力{m.atk}＋防御力{m.defense}＋素早さ{m.spd}＋剣{cost}",
                       f"HP {m.hp}/5 + ATK {m.atk} + DEF {m.defense} + SPD {m.spd} + swords {cost}")
            out.append(_Pending("over-budget", line, raw,
                                {"total": total, "budget": budget, "detail": detail}))
        elif total < budget:
            out.append(_Pending("unspent-points", line, raw,
                                {"left": budget - total, "budget": budget}))
    warned: set[tuple[str, int | None]] = set()
    for s in m.swords:
        d = BY_CODE[s.code]
        if (s.code, s.n) in warned:
            continue
        warned.add((s.code, s.n))
        name = L(d.full_name(s.n, "ja"), d.full_name(s.n, "en"))
        if d.act == N_ACT and (s.n or 0) > 20:
            out.append(_Pending("never-active", line, raw, {"sword": name, "n": s.n or 0}))
        if d.period and (s.n or 0) >= 20:
            out.append(_Pending("period-never-ends", line, raw, {"sword": name}))
        if s.code in ("精", "泡") and opts.mp_cost(s.code) == 0:
            out.append(_Pending("costless-builder", line, raw,
                                {"sword": L(d.name, d.en), "cap": opts.party_cap}))
    if m.swords and m.spd == 0:
        out.append(_Pending("never-acts", line, raw))
    elif m.swords:
        idle = _never_fires(m, opts)
        if idle:
            ja = "、".join(f"{i + 1}番目の{BY_CODE[m.swords[i].code].full_name(m.swords[i].n)}"
                          for i in idle)
            en = ", ".join(f"{BY_CODE[m.swords[i].code].full_name(m.swords[i].n, 'en')} "
                           f"(#{i + 1})" for i in idle)
            out.append(_Pending("never-fires", line, raw, {"swords": L(ja, en), "spd": m.spd}))


def parse_sheet(text: str, *, options: Options | None = None, table: SwordTable = HUNDRED,
                lang: str | None = None, default_lang: str = "ja") -> SheetResult:
    """Read and validate one sheet (§3). Never raises for a ``str``.

    Args:
        text: the sheet (at most ``amaryllis.lexer.MAX_CHARS`` characters and ``MAX_LINES``
            non-blank lines are read).
        options: the league options (budget, pool, costs, MP table, party cap).
        table: the codes and names the reader knows (the pool decides which are allowed).
        lang: write the messages in this language instead of the sheet's.
        default_lang: the language when the sheet gives no clue.

    Returns:
        A :class:`SheetResult`; ``entry`` is ``None`` when there is any error.
    """
    opts = options or Options()
    out: list[_Pending] = []
    votes: Counter[str] = Counter()
    if not isinstance(text, str):
        text = ""
    entry: Swordmaster | None = None
    name = ""
    if len(text) > MAX_CHARS:
        out.append(_Pending("too-large", None, "", {"size": f"{len(text):,}", "limit": f"{MAX_CHARS:,}"}))
    else:
        lines = text.split("\n")
        found: tuple[int, str, str, str, str] | None = None
        skill: tuple[int, str, int | None] | None = None
        nonblank = 0
        for no, raw in enumerate(lines, 1):
            raw = raw.rstrip("\r")
            if len(out) >= MAX_PROBLEMS:
                out.append(_Pending("too-many-problems", no, raw, {"limit": MAX_PROBLEMS}))
                break
            if len(raw) > MAX_LINE_CHARS:
                out.append(_Pending("line-too-long", no, raw[:100],
                                    {"length": len(raw), "limit": MAX_LINE_CHARS}))
                nonblank += 1
                continue
            content = _content(raw)
            if content is None:
                continue
            nonblank += 1
            if nonblank > MAX_LINES:
                out.append(_Pending("too-many-lines", None, "", {"count": f"{nonblank:,}+",
                                                                 "limit": MAX_LINES}))
                break
            sk = _SKILL.fullmatch(content)
            if sk:
                votes["ja" if sk.group(1) == "剣技" else "en"] += 1
                if skill is not None:
                    out.append(_Pending("duplicate-skill-line", no, raw, {"first": skill[0]}))
                    continue
                v = _read_int(sk.group(2), "skill", no, raw, out)
                skill = (no, raw, v)
                continue
            if is_theki_line(raw):
                out.append(_Pending("theki-notation", no, raw, {"example": COMPACT_EXAMPLE}))
                continue
            form = _split_form(content)
            if form is None:
                out.append(_Pending("unknown-line", no, raw))
                continue
            if found is not None:
                out.append(_Pending("duplicate-swordmaster-line", no, raw, {"first": found[0]}))
                continue
            found = (no, raw, *form)
        if found is None and not any(p.code in ("too-many-lines",) for p in out):
            if not text.strip() and not out:
                out.append(_Pending("empty-sheet", None, "", {"example": L(EXAMPLE["ja"], EXAMPLE["en"])}))
            elif not any(p.code == "theki-notation" for p in out):
                out.append(_Pending("no-swordmaster-line", None, "",
                                    {"example": L(EXAMPLE["ja"], EXAMPLE["en"])}))
        if found is not None:
            no, raw, form_kind, head, body = found
            errors_before = len(out)
            if form_kind == "full":
                name = normalize_name(head)
                if not name:
                    out.append(_Pending("empty-name", no, raw))
                parts = body.split("/", 4)
                listing = parts[4] if len(parts) > 4 else ""
            else:
                parts = body.split("/", 5)
                listing = parts[4] if len(parts) > 4 else ""
                name = normalize_name(parts[5]) if len(parts) > 5 else ""
            numbers = parts[:4]
            if len(numbers) < 4 or any(not x.strip() for x in numbers):
                count = sum(1 for x in numbers if x.strip())
                out.append(_Pending("too-few-numbers", no, raw,
                                    {"count": count,
                                     "example": L(EXAMPLE["ja"], EXAMPLE["en"]) if form_kind == "full"
                                     else COMPACT_EXAMPLE}))
                values: list[int | None] = [None] * 4
            else:
                values = [_read_int(x, w, no, raw, out)
                          for x, w in zip(numbers, ("hp", "atk", "def", "spd"))]
            if form_kind == "full":
                swords = _read_names(listing, table, no, raw, out, votes)
            else:
                swords = _read_codes(listing, table, no, raw, out)
            stated = skill[2] if skill is not None else None
            known = [v for v in values if v is not None]
            if len(known) == 4 and not (skill is not None and stated is None):
                hp, atk, df, spd = known
                sheet_lang = _lang(votes, None, default_lang)
                candidate = Swordmaster(name, hp, atk, df, spd, tuple(swords), stated,
                                        sheet_lang, form_kind)
                if len(out) == errors_before:
                    _validate(candidate, opts, stated, no, raw,
                              (skill[0], skill[1]) if skill is not None else None, out)
                    if not any(_severity(p.code) == "error" for p in out):
                        entry = candidate
                else:
                    _validate(candidate, opts, stated, no, raw,
                              (skill[0], skill[1]) if skill is not None else None, out)
    out_lang = lang or _lang(votes, None, default_lang)
    problems = [make_problem(p.code, p.line, p.text, out_lang, **p.params) for p in out]
    problems.sort(key=lambda p: p.line if p.line is not None else 0)
    return SheetResult(entry, tuple(problems), out_lang, name)


def _severity(code: str) -> str:
    return CATALOGUE[code][1]


def _lang(votes: Counter[str], lang: str | None, default: str) -> str:
    if lang:
        return lang
    if votes["ja"] or votes["en"]:
        return "ja" if votes["ja"] >= votes["en"] else "en"
    return default


# --------------------------------------------------------------------------- printing


def format_sheet(m: Swordmaster, lang: str | None = None, table: SwordTable = HUNDRED) -> str:
    """The normalized sheet of ``m`` in its notation (``m.notation``; a full-form swordmaster
    without a name is printed compact) and ``lang`` (default ``m.lang``): the seed's spelling,
    half-width digits and ``/``, ``、`` between Japanese names, ``ｺｳ`` and ``デ`` as printed by
    the seed (H60, M4). ``parse_sheet(format_sheet(m)).entry == m``."""
    lang = lang or m.lang
    stats = f"{m.hp}/{m.atk}/{m.defense}/{m.spd}"
    if m.notation == "full" and m.name:
        names = [table.full_name(s, lang) for s in m.swords]
        if lang == "ja":
            line = f"{m.name}：{stats}/" + "、".join(names)
        else:
            line = f"{m.name}: {stats}/" + ", ".join(names)
    else:
        line = f"{stats}/" + "".join(table.compact(s) for s in m.swords)
        if m.name:
            line += f"/{m.name}"
    if m.skill is not None:
        line += "\n" + (f"剣技{m.skill}" if lang == "ja" else f"SKILL {m.skill}")
    return line


def format_costs(m: Swordmaster, opts: Options, lang: str) -> str:
    """The point breakdown of ``m`` against the budget (H1), for the acceptance reply."""
    ja = lang == "ja"
    parts = []
    groups: Counter[str] = Counter()
    for s in m.swords:
        groups[s.code] += 1
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
        parts.append(f"HP{m.hp}÷5={m.hp // 5}、攻撃力{m.atk}、防御力{m.defense}、素早さ{m.spd}")
        parts.append(f"剣{len(m.swords)}本={cost}点" + (f"（{'、'.join(items)}）" if items else ""))
        return "\n".join(parts) + f"\n合計{total}点／予算{opts.budget}点"
    parts.append(f"HP {m.hp}/5 = {m.hp // 5}, ATK {m.atk}, DEF {m.defense}, SPD {m.spd}")
    parts.append(f"{len(m.swords)} swords = {cost} points" + (f" ({', '.join(items)})" if items else ""))
    return "\n".join(parts) + f"\ntotal {total} of {opts.budget} points"
