"""Line-by-line reading of a sheet into raw records (no rule checks). Source: rules §1.3.

Each line is normalized (``vocab.normalize``) and classified as blank, comment (``#``, ``＃`` or
``//`` first), TECH line (``技術４``, ``技術：４``, ``TECH 4``), unit line (``NAME: n/n/n/n[/list]``),
action line (``[bullet] NAME [(cost)]: CLASS <custom>…``) or unknown. Syntax problems are
collected as :class:`Pending` records; their messages are rendered later, once the language of
the sheet is known. Nothing here raises on any input string.
"""

from __future__ import annotations

import re
from collections import Counter
from dataclasses import dataclass, field

from .model import ActionClass
from .vocab import (
    CLASS_WORDS,
    CUSTOM_PATTERNS,
    CUSTOM_WORDS,
    N_CLASS_WORDS,
    L,
    all_class_names,
    all_custom_names,
    class_name,
    custom_name,
    key,
    normalize,
    normalize_name,
    suggest_class,
    suggest_custom,
)

MAX_CHARS = 1_000_000
"""A longer text is refused outright (``too-large``)."""
MAX_LINE_CHARS = 20_000
"""A longer line is reported (``line-too-long``) and not read (a unit line setting 500 actions
is about 5,000 characters)."""
MAX_SUGGESTIONS = 10
"""Unknown class/customization words for which a nearest word is looked for (difflib is slow)."""
MAX_LINES = 1_000
"""Non-blank lines read; past this the sheet is reported as ``too-many-lines``."""
MAX_PROBLEMS = 500
"""Reading stops at the line where this many problems have been found (``too-many-problems``)."""
MAX_DIGITS = 6
"""Numbers with more digits are reported as ``number-too-large`` (and never converted)."""

BULLETS = "・-*•◦●○◆◇■□"
_INT = re.compile(r"[+-]?[0-9]+")
_TECH = re.compile(r"(?i)(技術|tech)\s*[:=]?\s*([+-]?[0-9]+)")
# a unit line's body starts with a number followed by a slash, another number or the end of the
# line ("10/1/1/2", "10 1 1 2", "10"); "2 questions first" is not one
_UNIT_BODY = re.compile(r"\s*[+-]?[0-9]+\s*(?:[/,]|$|[+-]?[0-9])")
_BRACKETS_RUN = re.compile(r"(?:\s*<[^<>]*>)*")
_BRACKET_INNER = re.compile(r"<([^<>]*)>")
_CJK = re.compile(r"[\u3040-\u30ff\u3400-\u9fff\uf900-\ufaff]")


@dataclass(slots=True)
class Pending:
    """A problem waiting for the sheet's language: ``code``, 1-based ``line`` (or None), the raw
    line ``text`` and message parameters (``L`` values are picked by language)."""

    code: str
    line: int | None
    text: str
    params: dict[str, object] = field(default_factory=dict)


@dataclass(slots=True)
class RawUnit:
    """A unit line: ``numbers`` holds HP, ATK, DEF, SPD (``None`` where unreadable)."""

    line: int
    text: str
    name: str
    numbers: list[int | None]
    names: list[str]
    empty_names: int = 0


@dataclass(slots=True)
class RawCustom:
    """One ``<…>`` customization: identifier (``limited``, ``delay``…), N if any, and how many
    times this exact spelling was given."""

    ident: str
    n: int | None = None
    count: int = 1


@dataclass(slots=True)
class RawAction:
    """An action line. ``cls`` is ``None`` when the class could not be read (already reported)."""

    line: int
    text: str
    name: str
    declared: int | None
    cls: ActionClass | None
    n: int | None
    customs: list[RawCustom]


@dataclass(slots=True)
class Lexed:
    """Everything read from a sheet, plus the syntax problems and language evidence."""

    units: list[RawUnit] = field(default_factory=list)
    techs: list[tuple[int, str, int | None]] = field(default_factory=list)
    actions: list[RawAction] = field(default_factory=list)
    pending: list[Pending] = field(default_factory=list)
    votes: Counter[str] = field(default_factory=Counter)
    hints: Counter[str] = field(default_factory=Counter)
    nonblank: int = 0
    suggestions: int = 0

    def lang(self, default: str = "ja") -> str:
        """The sheet's language: class/customization words, then the TECH keyword, then the width
        of the unit line's colon, then Japanese script in unknown class words; else ``default``."""
        for counter in (self.votes, self.hints):
            if counter["ja"] or counter["en"]:
                return "ja" if counter["ja"] >= counter["en"] else "en"
        return default


def read_int(s: str, what: L, line: int, text: str, pending: list[Pending]) -> int | None:
    """``s`` as an int, or ``None`` after recording ``bad-number``/``number-too-large``.

    Never converts more than ``MAX_DIGITS`` digits (so a 10**100-digit number costs nothing)."""
    s = s.strip()
    if not _INT.fullmatch(s):
        pending.append(Pending("bad-number", line, text, {"what": what, "value": s[:30]}))
        return None
    digits = s.lstrip("+-").lstrip("0")
    if len(digits) > MAX_DIGITS:
        pending.append(
            Pending(
                "number-too-large",
                line,
                text,
                {"what": what, "digits": len(digits), "limit": MAX_DIGITS},
            )
        )
        return None
    return int(s)


WHAT_UNIT = (L("ＨＰ", "HP"), L("攻撃力", "ATK"), L("防御力", "DEF"), L("素早さ", "SPD"))
WHAT_TECH = L("技術", "TECH")
WHAT_COST = L("コスト", "The cost")
WHAT_N = L("Ｎ", "N")


def lex(text: str) -> Lexed:
    """Read ``text`` line by line into a :class:`Lexed` record. Never raises for any ``str``."""
    out = Lexed()
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
    for index, raw in enumerate(text.splitlines(), start=1):
        if not raw.strip():
            continue
        out.nonblank += 1
        if out.nonblank > MAX_LINES:
            count = out.nonblank + sum(1 for r in text.splitlines()[index:] if r.strip())
            out.pending.append(
                Pending("too-many-lines", index, raw, {"count": count, "limit": MAX_LINES})
            )
            break
        if len(raw) > MAX_LINE_CHARS:
            out.pending.append(
                Pending("line-too-long", index, raw, {"length": len(raw), "limit": MAX_LINE_CHARS})
            )
            continue
        _lex_line(out, index, raw)
        if len(out.pending) >= MAX_PROBLEMS:
            out.pending.append(Pending("too-many-problems", index, raw, {"limit": MAX_PROBLEMS}))
            break
    return out


def _content(raw: str) -> str | None:
    """The normalized text of a line without its bullet, or ``None`` for a blank or comment."""
    s = normalize(raw).strip()
    if not s or s.startswith("#") or s.startswith("//"):
        return None
    if s[0] in BULLETS and not _INT.match(s):
        s = s[1:].lstrip()
    return s


def _is_unit(head: str, body: str) -> bool:
    # a unit line: numbers after the colon (or at least HP/ATK/DEF/SPD slashes: action lines
    # never hold a slash, so "ＨＰ１０／攻撃力１／…" is read as a unit line with bad numbers)
    return bool(
        (_UNIT_BODY.match(body) or body.count("/") >= 3) and "(" not in head and ")" not in head
    )


def is_unit_line(raw: str) -> bool:
    """True when the lexer reads ``raw`` as a unit line (``名前：ＨＰ／攻撃力／防御力／素早さ…``,
    rules §1.3): what starts a sheet. Linear in ``len(raw)``; a line longer than
    ``MAX_LINE_CHARS`` is never one (the lexer does not read it)."""
    if len(raw) > MAX_LINE_CHARS:
        return False
    s = _content(raw)
    if s is None or _TECH.fullmatch(s):
        return False
    head, colon, body = s.partition(":")
    return bool(colon) and _is_unit(head, body)


# THEKI's one-line form of an Amaryllis unit (rules/margaret.md §4.4 "Not Margaret notation"):
# HP/ATK/DEF/SPD/labels/label:name:code,label:name:code…[/name]
_THEKI = re.compile(
    r"\s*[0-9]+\s*/\s*[0-9]+\s*/\s*[0-9]+\s*/\s*[0-9]+\s*/[^/]*/"
    r"[^/:,]+:[^/:,]*:[^/:,]*(?:,[^/:,]+:[^/:,]*:[^/:,]*)*(?:/.*)?"
)


def is_theki_line(raw: str) -> bool:
    """True for THEKI's one-line notation of an Amaryllis unit, e.g.
    ``10/1/1/2/守槍槍加/守:シールド:防2L,槍:スピア:直D4E2,加:ブースト:攻/グリスク``: a compact
    line whose sixth field defines its labels as ``label:name:code`` items. It is Amaryllis, not
    Margaret (``rules/margaret.md`` §4.4); this parser does not read it."""
    return len(raw) <= MAX_LINE_CHARS and bool(_THEKI.fullmatch(normalize(raw).strip()))


def _lex_line(out: Lexed, line: int, raw: str) -> None:
    s = _content(raw)
    if s is None:
        return
    m = _TECH.fullmatch(s)
    if m:
        out.hints["ja" if m.group(1) == "技術" else "en"] += 1
        out.techs.append((line, raw, read_int(m.group(2), WHAT_TECH, line, raw, out.pending)))
        return
    head, colon, body = s.partition(":")
    if not colon:
        out.pending.append(Pending("unknown-line", line, raw))
        return
    if _is_unit(head, body):
        if out.units:  # only the first unit line counts; later ones are reported, not read
            out.pending.append(
                Pending("duplicate-unit-line", line, raw, {"first": out.units[0].line})
            )
            return
        _lex_unit(out, line, raw, head, body)
    else:
        _lex_action(out, line, raw, head, body)


def _lex_unit(out: Lexed, line: int, raw: str, head: str, body: str) -> None:
    colon_at = len(raw) - len(raw.lstrip())
    full = raw.find("：", colon_at)
    half = raw.find(":", colon_at)
    if full >= 0 and (half < 0 or full < half):
        out.hints["ja"] += 1
    elif half >= 0:
        out.hints["en"] += 1
    name = normalize_name(head)
    if not name:
        out.pending.append(Pending("empty-unit-name", line, raw))
    parts = body.split("/")
    numbers: list[int | None] = []
    count = 0
    for part in parts:
        if _INT.fullmatch(part.strip()):
            count += 1
        else:
            break
    if count != 4 and (count > 4 or len(parts) < 4 or count == len(parts)):
        out.pending.append(Pending("unit-line-numbers", line, raw, {"count": count}))
    for i in range(4):
        if i < len(parts):
            numbers.append(read_int(parts[i], WHAT_UNIT[i], line, raw, out.pending))
        else:
            numbers.append(None)
    rest = parts[max(4, count) :]
    names: list[str] = []
    empty = 0
    if rest and "".join(rest).strip():
        for item in ",".join(rest).split(","):
            item_name = normalize_name(item)
            if item_name:
                names.append(item_name)
            else:
                empty += 1
    if empty:
        out.pending.append(Pending("empty-action-name", line, raw))
    out.units.append(RawUnit(line, raw, name, numbers, names, empty))


def _lex_action(out: Lexed, line: int, raw: str, head: str, body: str) -> None:
    head = head.strip()
    declared: int | None = None
    if head.endswith(")") and "(" in head:
        open_at = head.rindex("(")
        inner = head[open_at + 1 : -1]
        head = head[:open_at]
        if inner.strip():
            declared = read_int(inner, WHAT_COST, line, raw, out.pending)
    if "(" in head or ")" in head:
        out.pending.append(Pending("unknown-line", line, raw))
        return
    name = normalize_name(head)
    if not name:
        out.pending.append(Pending("missing-action-name", line, raw))
    lt = body.find("<")
    class_text = body if lt < 0 else body[:lt]
    rest = "" if lt < 0 else body[lt:]
    if ">" in class_text:
        out.pending.append(Pending("unclosed-bracket", line, raw))
        class_text = class_text[: class_text.index(">")]
    cls, n = _read_class(out, line, raw, class_text)
    customs: list[RawCustom] = []
    run = _BRACKETS_RUN.match(rest)
    pos = run.end() if run else 0
    # each distinct spelling is read once (a hostile line may stack thousands of <Stun>)
    for inner, count in Counter(_BRACKET_INNER.findall(rest, 0, pos)).items():
        custom = _read_custom(out, line, raw, inner)
        if custom is not None:
            custom.count = count
            customs.append(custom)
    leftover = rest[pos:].strip()
    if leftover:
        if "<" in leftover or ">" in leftover:
            out.pending.append(Pending("unclosed-bracket", line, raw))
        else:
            out.pending.append(Pending("trailing-text", line, raw, {"extra": leftover[:30]}))
    out.actions.append(RawAction(line, raw, name, declared, cls, n, customs))


_N_PREFIXES = sorted(N_CLASS_WORDS, key=len, reverse=True)


def _read_class(
    out: Lexed, line: int, raw: str, class_text: str
) -> tuple[ActionClass | None, int | None]:
    k = key(class_text)
    if not k:
        out.pending.append(
            Pending(
                "missing-class",
                line,
                raw,
                {"classes": L(all_class_names("ja"), all_class_names("en"))},
            )
        )
        return None, None
    if k in CLASS_WORDS:
        cls, lang = CLASS_WORDS[k]
        out.votes[lang] += 1
        return cls, None
    for prefix in _N_PREFIXES:
        if not k.startswith(prefix):
            continue
        tail = k[len(prefix) :]
        if tail and not tail.startswith(("+", "-")) and not tail[0].isdigit() and tail != "n":
            continue
        cls, lang = N_CLASS_WORDS[prefix]
        out.votes[lang] += 1
        if tail in ("", "+", "n", "+n"):
            out.pending.append(
                Pending(
                    "missing-n",
                    line,
                    raw,
                    {
                        "word": class_text.strip()[:30],
                        "example": L(class_name(cls, 2, "ja"), class_name(cls, 2, "en")),
                    },
                )
            )
            return cls, None
        number = tail[1:] if tail.startswith("+") else tail
        return cls, read_int(number, WHAT_N, line, raw, out.pending)
    if _CJK.search(k):
        out.hints["ja"] += 1
    elif k.isascii():
        out.hints["en"] += 1
    sja = sen = None
    if len(k) <= 60 and out.suggestions < MAX_SUGGESTIONS:
        out.suggestions += 1
        sja, sen = suggest_class(k, "ja"), suggest_class(k, "en")
    out.pending.append(
        Pending(
            "unknown-class",
            line,
            raw,
            {
                "cls": class_text.strip()[:40],
                "suggest": L(
                    f"もしかして「{sja}」？　" if sja else "",
                    f'Did you mean "{sen}"? ' if sen else "",
                ),
                "classes": L(all_class_names("ja"), all_class_names("en")),
            },
        )
    )
    return None, None


def _read_custom(out: Lexed, line: int, raw: str, inner: str) -> RawCustom | None:
    k = key(inner)
    if k in CUSTOM_WORDS:
        ident, lang = CUSTOM_WORDS[k]
        out.votes[lang] += 1
        return RawCustom(ident)
    for pattern, ident, lang in CUSTOM_PATTERNS:
        m = pattern.fullmatch(k)
        if not m:
            continue
        out.votes[lang] += 1
        value = m.group(1)
        if value in ("", "n"):
            out.pending.append(
                Pending(
                    "missing-n",
                    line,
                    raw,
                    {
                        "word": inner.strip()[:30],
                        "example": L(
                            f"＜{custom_name(ident, 2, 'ja')}＞", f"<{custom_name(ident, 2, 'en')}>"
                        ),
                    },
                )
            )
            return RawCustom(ident, None)
        n = read_int(value, WHAT_N, line, raw, out.pending)
        return RawCustom(ident, n) if n is not None else RawCustom(ident, None)
    if _CJK.search(k):
        out.hints["ja"] += 1
    sja = sen = None
    if len(k) <= 60 and out.suggestions < MAX_SUGGESTIONS:
        out.suggestions += 1
        sja, sen = suggest_custom(k, "ja"), suggest_custom(k, "en")
    out.pending.append(
        Pending(
            "unknown-customization",
            line,
            raw,
            {
                "custom": inner.strip()[:40],
                "suggest": L(
                    f"もしかして{sja}？　" if sja else "", f"Did you mean {sen}? " if sen else ""
                ),
                "customs": L(all_custom_names("ja"), all_custom_names("en")),
            },
        )
    )
    return None
