"""A sword table: the codes and names a sheet may use, and how each is written.

Source: ``rules/margaret-hundred.md`` §3.3 and H60, ``rules/margaret.md`` M4, M7, M8. The sheet
parser (``notation.py``) works over any :class:`SwordTable`, so base Margaret (the first 15 rows,
:data:`BASIC_TABLE`) and Margaret Hundred (:data:`HUNDRED`) share one reader. Matching is done
after the Amaryllis normalization (``app.rules.amaryllis.vocab.normalize``: NFKC plus ``、`` →
``,``), so ``ｺｳ`` and ``コウ``, ``１０`` and ``10``, ``／`` and ``/`` are the same.
"""

from __future__ import annotations

import difflib
import re
from collections.abc import Iterable
from dataclasses import dataclass

from app.rules.amaryllis.vocab import normalize

from .model import Sword
from .swords import SWORDS, SwordDef

_WS = re.compile(r"\s+")


def name_key(text: str) -> str:
    """The matching key of a sword name: normalized, no whitespace, lower-case."""
    return _WS.sub("", normalize(text)).lower()


@dataclass(frozen=True, slots=True)
class NameMatch:
    """The reading of one full-form sword name.

    ``sword`` is set when it was read; otherwise ``problem`` is one of ``unknown-sword``,
    ``missing-n``, ``n-too-small``, ``delay-needs-dot``, with ``d`` the sword recognised (if any).
    ``lang`` is the language of the name (``"ja"``/``"en"``).
    """

    sword: Sword | None
    d: SwordDef | None = None
    problem: str = ""
    n: int | None = None
    lang: str = "ja"


class SwordTable:
    """The swords of one ruleset, in list order, with their accepted spellings.

    Args:
        defs: the sword definitions (``swords.SwordDef``), in the order messages list them.
        label: the pool's name for messages (``{"ja": …, "en": …}``).
    """

    def __init__(self, defs: Iterable[SwordDef], label: dict[str, str]) -> None:
        self.defs: tuple[SwordDef, ...] = tuple(defs)
        self.label = label
        self.by_code: dict[str, SwordDef] = {d.code: d for d in self.defs}
        codes: dict[str, SwordDef] = {}
        for d in self.defs:
            for c in (d.code, *d.alt):
                codes[normalize(c)] = d
        self.codes = codes
        self._code_keys = sorted(codes, key=len, reverse=True)
        names: dict[str, tuple[SwordDef, str]] = {}
        for d in self.defs:
            names[name_key(d.name)] = (d, "ja")
            names[name_key(d.en)] = (d, "en")
        self.names = names
        self._name_keys = sorted(names, key=len, reverse=True)

    def __contains__(self, code: str) -> bool:
        return code in self.by_code

    def code_at(self, text: str, i: int) -> SwordDef | None:
        """The sword whose code starts ``text`` (normalized) at ``i``, longest first; None."""
        for key in self._code_keys:
            if text.startswith(key, i):
                return self.codes[key]
        return None

    def code_length(self, text: str, i: int) -> int:
        """The length of the code matched by :meth:`code_at` at ``i`` (0 when none)."""
        for key in self._code_keys:
            if text.startswith(key, i):
                return len(key)
        return 0

    def read_name(self, item: str) -> NameMatch:
        """One full-form sword name with its N (``回復剣3``, ``遅延剣.19``, ``Healing Sword 3``)."""
        key = name_key(item)
        for k in self._name_keys:
            if not key.startswith(k):
                continue
            d, lang = self.names[k]
            rest = key[len(k):]
            if d.param is None:
                if rest:
                    continue
                return NameMatch(Sword(d.code), d, lang=lang)
            if d.period:
                if rest[:1] != ".":
                    if rest.isdigit() and rest.isascii():
                        return NameMatch(None, d, "delay-needs-dot", int(rest[:6]), lang)
                    if rest:
                        continue
                    return NameMatch(None, d, "missing-n", lang=lang)
                rest = rest[1:]
            if not rest:
                return NameMatch(None, d, "missing-n", lang=lang)
            if not (rest.isdigit() and rest.isascii()):
                continue
            if len(rest) > 6:
                return NameMatch(None, d, "n-too-large", lang=lang)
            n = int(rest)
            if n < d.param:
                return NameMatch(None, d, "n-too-small", n, lang)
            return NameMatch(Sword(d.code, n), d, lang=lang)
        return NameMatch(None, problem="unknown-sword")

    def suggest_name(self, item: str) -> str | None:
        """The nearest sword name (in the language of the closest match), or None."""
        key = re.sub(r"[.0-9]+$", "", name_key(item))
        best = difflib.get_close_matches(key, list(self.names), n=1, cutoff=0.6)
        if not best:
            return None
        d, lang = self.names[best[0]]
        return d.name if lang == "ja" else d.en

    def compact(self, sword: Sword) -> str:
        """The compact code of ``sword`` with N: ``回3``, ``遅.19``."""
        return self.by_code[sword.code].compact(sword.n)

    def full_name(self, sword: Sword, lang: str) -> str:
        """The full-form name of ``sword`` in ``lang``: ``回復剣3``, ``Healing Sword 3``."""
        return self.by_code[sword.code].full_name(sword.n, lang)

    def code_list(self) -> str:
        """Every code (with ``N`` for the parametrised ones), for messages."""
        return "".join(f"{d.code}.N" if d.period else f"{d.code}N" if d.param is not None
                       else d.code for d in self.defs)


HUNDRED = SwordTable(SWORDS, {"ja": "ハンドレッドの100種", "en": "the 100 Hundred swords"})
"""All 100 swords (§4)."""

BASIC_TABLE = SwordTable(SWORDS[:15], {"ja": "ベーシック15種", "en": "the 15 basic swords"})
"""Base Margaret's 15 swords (§4.1, ``rules/margaret.md`` §2)."""
