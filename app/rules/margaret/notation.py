"""The swordmaster notation of the Margaret family, over any :class:`~.swords.SwordTable`:
reading a sheet into raw records, and printing a swordmaster back. Source: ``rules/margaret.md``
§4 (M7, M8; the Hundred page's H60 uses the same rules).

Full form (name first; sword names, ja or en, separated by ``、`` ``,`` ``，``)::

    徘徊するライカ：15/0/1/2/加速剣、加熱剣、衝撃剣、絶対剣
    Laika: 15/0/1/2/Haste Sword, Heat Sword, Shock Sword, Absolute Sword

Compact form (one code per sword; the name last, optional, and it may contain ``/``)::

    15/0/1/2/速熱衝絶/徘徊するライカ

M7: a line with a colon before its first slash is full form; a line that starts with a number
and a slash is compact (so a name that starts with a digit still parses in full form). A sheet
is one swordmaster line; blank lines and comments (``#``, also ``//`` as in Amaryllis) are
ignored, a leading ``<100>`` is dropped (§4.2), and the only other line is the 剣技 line of M2
(``剣技４``, ``SKILL 4``). In the full form an item that is not a sword name may be a code
string (``日路:5/0/0/3/速速魔熱衝絶``, §1). Text is normalized as in Amaryllis (M8).

Nothing here raises on any input string; problems are collected as
``app.rules.amaryllis.lexer.Pending`` records and rendered once the sheet's language is known.
"""

from __future__ import annotations

import difflib
import re
from collections import Counter
from dataclasses import dataclass, field

from app.rules.amaryllis.lexer import (
    MAX_LINE_CHARS,
    MAX_LINES,
    MAX_PROBLEMS,
    MAX_SUGGESTIONS,
    WHAT_UNIT,
    Pending,
    is_theki_line,
    read_int,
)
from app.rules.amaryllis.vocab import L, normalize, normalize_name

from .model import Sword, Swordmaster
from .swords import SwordSpec, SwordTable

MAX_CHARS = 1_000_000
"""A longer text is refused outright (``too-large``)."""
LAST_TURN = 20
"""The last turn of a battle (``rules/amaryllis.md`` §2.1): a sword usable only later never
fires."""

MAX_UNKNOWN = 20
"""Distinct unknown codes or sword names reported per line (the rest still count as swords)."""

POOL_PREFIX = "<100>"
"""kotha's pool mark (``rules/margaret.md`` §4.2): accepted at the start of the line or of the
code field, and dropped; the league's table still decides which swords are legal."""

_INT = re.compile(r"[+-]?[0-9]+")
_FULL_BODY = re.compile(r"\s*[+-]?[0-9]+\s*(?:/|$)")
_COMPACT = re.compile(r"\s*[+-]?[0-9]+\s*/")
SKILL_LINE = re.compile(r"(?i)(剣技|skill)\s*[:=]?\s*([+-]?[0-9]+)")
_CJK = re.compile(r"[\u3040-\u30ff\u3400-\u9fff\uf900-\ufaff\uff66-\uff9f]")
_ASCII_WORD = re.compile(r"[A-Za-z]")

WHAT_SKILL = L("剣技", "SKILL")


@dataclass(slots=True)
class RawSwordmaster:
    """A swordmaster line as read: ``numbers`` holds HP, ATK, DEF, SPD (``None`` where
    unreadable); ``swords`` the swords that could be read, in order; ``sword_errors`` is True
    when some item of the list could not be read (then the budget is not judged)."""

    line: int
    text: str
    form: str
    name: str
    numbers: list[int | None]
    swords: list[Sword]
    sword_errors: bool = False
    unread: int = 0
    """Swords written but not read (unknown codes or names): the budget still counts them."""


@dataclass(slots=True)
class ReadSheet:
    """Everything read from a sheet: the first swordmaster line, the 剣技 lines ``(line, text,
    value)``, the problems so far, and the language evidence."""

    master: RawSwordmaster | None = None
    skills: list[tuple[int, str, int | None]] = field(default_factory=list)
    pending: list[Pending] = field(default_factory=list)
    votes: Counter[str] = field(default_factory=Counter)
    hints: Counter[str] = field(default_factory=Counter)
    nonblank: int = 0
    suggestions: int = 0

    def lang(self, default: str = "ja") -> str:
        """The sheet's language: sword names and the 剣技/SKILL keyword; without any, the full
        form's colon width and the script of the name (Japanese script ⇒ ja, Latin letters ⇒
        en; a tie is ja); else ``default``."""
        for counter in (self.votes, self.hints):
            if counter["ja"] or counter["en"]:
                return "ja" if counter["ja"] >= counter["en"] else "en"
        return default


def line_content(raw: str) -> str | None:
    """The normalized, trimmed text of a line without the pool mark, or ``None`` for a blank
    line or a comment."""
    s = normalize(raw).strip()
    if not s or s.startswith("#") or s.startswith("//"):
        return None
    if s.startswith(POOL_PREFIX):
        s = s[len(POOL_PREFIX) :].lstrip()
    return s or None


def line_form(s: str) -> str | None:
    """``"full"``, ``"compact"`` or ``None`` for a normalized line (M7)."""
    slash = s.find("/")
    colon = s.find(":")
    if colon >= 0 and (slash < 0 or colon < slash):
        body = s[colon + 1 :]
        return "full" if _FULL_BODY.match(body) or body.count("/") >= 3 else None
    if slash >= 0 and (_COMPACT.match(s) or s.count("/") >= 3):
        return "compact"
    return None


def is_swordmaster_line(raw: str) -> bool:
    """True when ``raw`` reads as a swordmaster line, full or compact (M7), and is not THEKI's
    Amaryllis form. Linear in ``len(raw)``."""
    if len(raw) > MAX_LINE_CHARS:
        return False
    s = line_content(raw)
    return s is not None and line_form(s) is not None and not is_theki_line(raw)


def read_sheet(text: str, table: SwordTable) -> ReadSheet:
    """Read ``text`` line by line against ``table``. Never raises for any ``str``."""
    out = ReadSheet()
    if len(text) > MAX_CHARS:
        out.pending.append(
            Pending(
                "too-large",
                None,
                "",
                {
                    "size": L(f"{len(text):,}文字", f"{len(text):,} characters"),
                    "limit": L(f"{MAX_CHARS:,}文字", f"{MAX_CHARS:,} characters"),
                },
            )
        )
        return out
    lines = text.splitlines()
    for index, raw in enumerate(lines, start=1):
        if not raw.strip():
            continue
        out.nonblank += 1
        if out.nonblank > MAX_LINES:
            count = out.nonblank + sum(1 for r in lines[index:] if r.strip())
            out.pending.append(
                Pending("too-many-lines", index, raw, {"count": count, "limit": MAX_LINES})
            )
            break
        if len(raw) > MAX_LINE_CHARS:
            out.pending.append(
                Pending("line-too-long", index, raw, {"length": len(raw), "limit": MAX_LINE_CHARS})
            )
            continue
        _read_line(out, index, raw, table)
        if len(out.pending) >= MAX_PROBLEMS:
            out.pending.append(Pending("too-many-problems", index, raw, {"limit": MAX_PROBLEMS}))
            break
    return out


def _read_line(out: ReadSheet, line: int, raw: str, table: SwordTable) -> None:
    s = line_content(raw)
    if s is None:
        return
    m = SKILL_LINE.fullmatch(s)
    if m:
        out.votes["ja" if m.group(1) == "剣技" else "en"] += 1
        out.skills.append((line, raw, read_int(m.group(2), WHAT_SKILL, line, raw, out.pending)))
        return
    if is_theki_line(raw):
        out.pending.append(Pending("theki-notation", line, raw, {"codes": table.codes_text()}))
        return
    form = line_form(s)
    if form is None:
        out.pending.append(Pending("extra-line", line, raw))
        return
    if out.master is not None:
        out.pending.append(
            Pending("duplicate-swordmaster-line", line, raw, {"first": out.master.line})
        )
        return
    if form == "full":
        out.master = _read_full(out, line, raw, s, table)
    else:
        out.master = _read_compact(out, line, raw, s, table)


def _numbers(out: ReadSheet, line: int, raw: str, fields: list[str]) -> list[int | None]:
    if len(fields) < 4:
        count = sum(1 for f in fields if _INT.fullmatch(f.strip()))
        out.pending.append(Pending("swordmaster-line-numbers", line, raw, {"count": count}))
        return [None] * 4
    return [read_int(fields[i], WHAT_UNIT[i], line, raw, out.pending) for i in range(4)]


def _script_hint(out: ReadSheet, name: str) -> None:
    if _CJK.search(name):
        out.hints["ja"] += 1
    elif _ASCII_WORD.search(name):
        out.hints["en"] += 1


def _read_full(out: ReadSheet, line: int, raw: str, s: str, table: SwordTable) -> RawSwordmaster:
    head, _, body = s.partition(":")
    colon = raw.find("：")
    half = raw.find(":")
    out.hints["ja" if colon >= 0 and (half < 0 or colon < half) else "en"] += 1
    name = normalize_name(head)
    _script_hint(out, name)
    if not name:
        out.pending.append(Pending("empty-name", line, raw))
    fields = body.split("/", 4)
    numbers = _numbers(out, line, raw, fields)
    rest = fields[4] if len(fields) == 5 else ""
    if "/" in rest:
        rest, extra = rest.split("/", 1)
        if extra.strip():
            out.pending.append(Pending("extra-field", line, raw, {"extra": extra.strip()[:30]}))
    master = RawSwordmaster(line, raw, "full", name, numbers, [])
    if rest.strip():
        _read_list(out, master, rest, table)
    return master


def _read_compact(out: ReadSheet, line: int, raw: str, s: str, table: SwordTable) -> RawSwordmaster:
    fields = s.split("/", 5)
    numbers = _numbers(out, line, raw, fields)
    codes = fields[4].strip() if len(fields) > 4 else ""
    name = normalize_name(fields[5]) if len(fields) > 5 else ""
    _script_hint(out, name)
    master = RawSwordmaster(line, raw, "compact", name, numbers, [])
    if codes.startswith(POOL_PREFIX):
        codes = codes[len(POOL_PREFIX) :]
    unknown: set[str] = set()
    for token in table.read_codes(codes):
        if token.spec is None:
            master.sword_errors = True
            master.unread += 1
            if token.text not in unknown and len(unknown) < MAX_UNKNOWN:
                unknown.add(token.text)
                out.pending.append(
                    Pending(
                        "unknown-code", line, raw, {"char": token.text, "codes": table.codes_text()}
                    )
                )
            continue
        sword = _sword(out, master, token.spec, token.digits, token.text, "code", table)
        if sword is not None:
            master.swords.append(sword)
    return master


def _read_list(out: ReadSheet, master: RawSwordmaster, rest: str, table: SwordTable) -> None:
    """The full form's sword list: names (either language) or code strings, comma-separated."""
    line, raw = master.line, master.text
    empty = False
    unknown: set[str] = set()
    for item in rest.split(","):
        word = item.strip()
        if not word:
            empty = True
            continue
        hit = table.by_name(word)
        if hit is not None:
            spec, digits, lang = hit
            out.votes[lang] += 1
            sword = _sword(out, master, spec, digits, word, lang, table)
            if sword is not None:
                master.swords.append(sword)
            continue
        tokens = table.read_codes(word)
        if tokens and all(t.spec is not None for t in tokens):
            for t in tokens:
                if t.spec is not None:
                    sword = _sword(out, master, t.spec, t.digits, t.text, "code", table)
                    if sword is not None:
                        master.swords.append(sword)
            continue
        master.sword_errors = True
        master.unread += 1
        if word in unknown or len(unknown) >= MAX_UNKNOWN:
            continue
        unknown.add(word)
        out.pending.append(
            Pending(
                "unknown-sword",
                line,
                raw,
                {
                    "sword": word[:40],
                    "suggest": _suggest(out, word, table),
                    "names": L(table.names_text("ja"), table.names_text("en")),
                },
            )
        )
    if empty:
        master.sword_errors = True
        out.pending.append(Pending("empty-sword-name", line, raw))


def _suggest(out: ReadSheet, word: str, table: SwordTable) -> L:
    parts = word.split()
    if len(parts) > 1 and all(table.by_name(p) is not None for p in parts):
        return L("剣名は「、」で区切ります。", "Separate sword names with commas. ")
    if len(word) > 40 or out.suggestions >= MAX_SUGGESTIONS:
        return L("", "")
    out.suggestions += 1
    close = difflib.get_close_matches(word, list(table.names()), n=1, cutoff=0.6)
    if not close:
        return L("", "")
    return L(f"もしかして「{close[0]}」？　", f'Did you mean "{close[0]}"? ')


def _sword(
    out: ReadSheet,
    master: RawSwordmaster,
    spec: SwordSpec,
    digits: str,
    word: str,
    how: str,
    table: SwordTable,
) -> Sword | None:
    """The sword ``spec`` with parameter ``digits`` (M5), or ``None`` after recording why not.
    ``how`` is how it was written: ``"code"``, or the language of its name."""
    line, raw = master.line, master.text
    if spec.param is None:
        return Sword(spec.code)
    label = L(word, word)
    if not digits:
        master.sword_errors = True
        example = (
            f"{spec.code}{spec.param_sep}3"
            if how == "code"
            else table.sword_name(Sword(spec.code, 3), "ja" if how == "ja" else "en")
        )
        out.pending.append(Pending("missing-n", line, raw, {"word": word[:30], "example": example}))
        return None
    n = read_int(digits, L("Ｎ", "N"), line, raw, out.pending)
    if n is None:
        master.sword_errors = True
        return None
    if n < spec.param:
        master.sword_errors = True
        out.pending.append(
            Pending("n-too-small", line, raw, {"word": label, "min": spec.param, "n": n})
        )
        return None
    if spec.start_turn(n) > LAST_TURN:
        out.pending.append(Pending("never-usable", line, raw, {"word": label, "n": n}))
    return Sword(spec.code, n)


# -- printing ----------------------------------------------------------------------------------


def format_full(master: Swordmaster, table: SwordTable, lang: str) -> str:
    """The full form: ``名前：15/0/1/2/加速剣、加熱剣`` (ja, the seed's spelling) or
    ``Name: 15/0/1/2/Haste Sword, Heat Sword`` (en). A swordmaster without a name has no full
    form and is printed compact."""
    if not master.name:
        return format_compact(master, table)
    stats = "/".join(str(v) for v in (master.hp, master.atk, master.defense, master.spd))
    names = [table.sword_name(s, lang) for s in master.swords]
    if lang == "ja":
        return f"{master.name}：{stats}" + ("/" + "、".join(names) if names else "")
    return f"{master.name}: {stats}" + ("/" + ", ".join(names) if names else "")


def format_compact(master: Swordmaster, table: SwordTable) -> str:
    """The compact form: ``15/0/1/2/速熱衝絶/徘徊するライカ`` (``5/0/0/0/`` with neither swords
    nor name; ``5/0/0/0//バブリア`` with a name and no sword)."""
    stats = "/".join(str(v) for v in (master.hp, master.atk, master.defense, master.spd))
    codes = "".join(table.code(s) for s in master.swords)
    return f"{stats}/{codes}/{master.name}" if master.name else f"{stats}/{codes}"


def format_swordmaster(
    master: Swordmaster, table: SwordTable, lang: str | None = None, notation: str | None = None
) -> str:
    """The normalized sheet: the swordmaster line in ``notation`` (default: the sheet's), then
    the 剣技 line when the sheet stated it (``剣技4`` / ``SKILL 4``). ``lang`` defaults to the
    sheet's. ``parse(format_swordmaster(m)) == m`` in both notations."""
    lang = lang or master.lang
    notation = notation or master.notation
    line = (
        format_compact(master, table) if notation == "compact" else format_full(master, table, lang)
    )
    if master.skill_explicit:
        line += "\n" + (f"剣技{master.skill}" if lang == "ja" else f"SKILL {master.skill}")
    return line


def label(master: Swordmaster, table: SwordTable) -> str:
    """The name, or for a swordmaster without one its compact form (standings, reports)."""
    return master.name or format_compact(master, table)


__all__ = [
    "SKILL_LINE",
    "RawSwordmaster",
    "line_content",
    "ReadSheet",
    "format_compact",
    "format_full",
    "format_swordmaster",
    "is_swordmaster_line",
    "label",
    "line_form",
    "read_sheet",
]
