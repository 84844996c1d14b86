"""League configuration of Margaret Hundred: the options a league sets (H1, H3, H53, H58, H61).

Source: ``shared/rules/margaret-hundred.md`` §3.1 and §12.10. The seed gives no costs, so each of
these settings can decide battles, and every report header prints them (:func:`describe`).

=================== ======================================================= ==================
option              meaning                                                 default
=================== ======================================================= ==================
``budget``          points per registered swordmaster (H1)                  10
``pool``            ``"all"`` (the 100), ``"basic"`` (Margaret's 15) or a   ``"all"``
                    list of swords (codes or names)
``costs``           per-sword point cost, ``{sword: n}``, n ≥ 0; a sword    every sword 1
                    not listed costs 1 (0 = free, unlimited copies)
``mp_costs``        the MP cost table, ``{sword: x}``, x ≥ 0 (H3, H17)      none (all 0)
``party_cap``       swordmasters per party at most; a build beyond fails    8
                    (H53)
``procedure_limit`` action procedures per turn at most; the turn then       10000
                    ends (H61)
``heavens_door``    ``"between-rounds"`` (a winner's rewrite request is     ``"between-rounds"``
                    applied between rounds, H58) or ``"ignore"``
=================== ======================================================= ==================

Option names may be written with ``-`` or ``_``. Sword keys may be codes (``滅``, ``回``) or names
(``滅奏剣``, ``Requiem Sword``); parametrised swords are named without N (one cost for every N).
"""

from __future__ import annotations

import unicodedata
from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any

from .swords import ALL, BASIC, BY_CODE, CODES, SWORDS

HEAVENS_DOOR_POLICIES: tuple[str, ...] = ("between-rounds", "ignore")

DEFAULTS: dict[str, Any] = {
    "budget": 10,
    "pool": "all",
    "costs": {},
    "mp_costs": {},
    "party_cap": 8,
    "procedure_limit": 10_000,
    "heavens_door": "between-rounds",
}

#: a bound on numbers in options, so that a typo cannot make a battle unbounded in size
MAX_OPTION_VALUE = 10**6


def _key(text: str) -> str:
    return "".join(unicodedata.normalize("NFKC", text).split()).lower()


_SWORD_KEYS: dict[str, str] = {}
for _d in SWORDS:
    for _k in (_d.code, *_d.alt, _d.name, _d.en):
        _SWORD_KEYS[_key(_k)] = _d.code
for _k, _d in CODES.items():
    _SWORD_KEYS[_key(_k)] = _d.code


def sword_code(word: str) -> str | None:
    """The canonical code of a sword written as a code or a name (ja/en), or ``None``."""
    return _SWORD_KEYS.get(_key(word)) if isinstance(word, str) else None


def _int(option: str, value: Any, minimum: int) -> int:
    if isinstance(value, bool):
        raise ValueError(f"option {option}: expected a whole number, got {value!r}")
    if isinstance(value, str) and value.strip().lstrip("+").isdigit():
        value = int(value.strip())
    if not isinstance(value, int):
        raise ValueError(f"option {option}: expected a whole number, got {value!r}")
    if value < minimum:
        raise ValueError(f"option {option}: must be at least {minimum}, got {value}")
    if value > MAX_OPTION_VALUE:
        raise ValueError(f"option {option}: must be at most {MAX_OPTION_VALUE}, got {value}")
    return value


def _table(option: str, value: Any) -> dict[str, int]:
    if value is None:
        return {}
    if not isinstance(value, Mapping):
        raise ValueError(f"option {option}: expected a table {{sword: number}}, got {value!r}")
    out: dict[str, int] = {}
    for k, v in value.items():
        code = sword_code(k)
        if code is None:
            raise ValueError(f"option {option}: unknown sword {k!r}")
        out[code] = _int(f"{option}.{k}", v, 0)
    return {c: out[c] for c in ALL if c in out}


@dataclass(frozen=True, slots=True)
class Options:
    """The validated league options (see the module docstring). Build with :func:`parse_options`.

    ``costs`` and ``mp_costs`` hold only the listed swords (canonical codes, §4 order); ``pool`` is
    ``"all"``, ``"basic"`` or a tuple of codes in §4 order.
    """

    budget: int = 10
    pool: str | tuple[str, ...] = "all"
    costs: Mapping[str, int] = field(default_factory=dict)
    mp_costs: Mapping[str, int] = field(default_factory=dict)
    party_cap: int = 8
    procedure_limit: int = 10_000
    heavens_door: str = "between-rounds"

    @property
    def pool_codes(self) -> tuple[str, ...]:
        """The codes of the swords a sheet may use, in §4 order."""
        if self.pool == "all":
            return ALL
        if self.pool == "basic":
            return BASIC
        return tuple(self.pool)

    def cost(self, code: str) -> int:
        """The point cost of one copy of sword ``code`` (H1)."""
        return self.costs.get(code, 1)

    def mp_cost(self, code: str) -> int:
        """The MP cost of sword ``code`` (H3; 0 = no <MPコスト>)."""
        return self.mp_costs.get(code, 0)

    def to_json(self) -> dict[str, Any]:
        """Every option, normalized and JSON-ready (``Ruleset.options``)."""
        return {
            "budget": self.budget,
            "pool": self.pool if isinstance(self.pool, str) else list(self.pool),
            "costs": dict(self.costs),
            "mp_costs": dict(self.mp_costs),
            "party_cap": self.party_cap,
            "procedure_limit": self.procedure_limit,
            "heavens_door": self.heavens_door,
        }


def parse_options(options: Mapping[str, Any] | None) -> Options:
    """Validate league options (names with ``-`` or ``_``). Raises ``ValueError`` naming the bad
    option (an unknown name, a value of the wrong type or out of range, an unknown sword)."""
    raw: dict[str, Any] = {}
    for name, value in (options or {}).items():
        key = str(name).strip().replace("-", "_")
        if key not in DEFAULTS:
            raise ValueError(f"unknown option {name!r} (known: {', '.join(DEFAULTS)})")
        raw[key] = value
    budget = _int("budget", raw.get("budget", 10), 0)
    pool_v = raw.get("pool", "all")
    pool: str | tuple[str, ...]
    if isinstance(pool_v, str) and pool_v.strip().lower() in ("all", "100", "hundred"):
        pool = "all"
    elif isinstance(pool_v, str) and pool_v.strip().lower() in ("basic", "15", "margaret"):
        pool = "basic"
    else:
        items = pool_v.replace("、", ",").split(",") if isinstance(pool_v, str) else pool_v
        if not isinstance(items, (list, tuple)) or not items:
            raise ValueError(
                f"option pool: expected 'all', 'basic' or a list of swords, got {pool_v!r}"
            )
        codes = set()
        for item in items:
            code = sword_code(item.strip() if isinstance(item, str) else item)
            if code is None:
                raise ValueError(f"option pool: unknown sword {item!r}")
            codes.add(code)
        pool = tuple(c for c in ALL if c in codes)
        if pool == ALL:
            pool = "all"
        elif pool == BASIC:
            pool = "basic"
    costs = _table("costs", raw.get("costs"))
    costs = {c: v for c, v in costs.items() if v != 1}
    mp_costs = {c: v for c, v in _table("mp_costs", raw.get("mp_costs")).items() if v}
    cap = _int("party_cap", raw.get("party_cap", 8), 1)
    limit = _int("procedure_limit", raw.get("procedure_limit", 10_000), 1)
    hd = raw.get("heavens_door", "between-rounds")
    if not isinstance(hd, str) or hd.strip().lower().replace("_", "-") not in HEAVENS_DOOR_POLICIES:
        raise ValueError(
            f"option heavens_door: expected one of {', '.join(HEAVENS_DOOR_POLICIES)}, got {hd!r}"
        )
    return Options(budget, pool, costs, mp_costs, cap, limit, hd.strip().lower().replace("_", "-"))


def _swords_text(codes: Mapping[str, int], lang: str) -> str:
    sep = "、" if lang == "ja" else ", "
    return sep.join(
        f"{BY_CODE[c].name if lang == 'ja' else BY_CODE[c].en} {v}" for c, v in codes.items()
    )


def describe(opts: Options, lang: str) -> list[str]:
    """The §12.10 record, one line each, in ``lang``: ruleset, pool, budget and costs, MP table,
    party cap, procedure limit, Heaven's Door policy (every report header, ``league show``)."""
    ja = lang == "ja"
    if opts.pool == "all":
        pool = "全100種" if ja else "all 100 swords"
    elif opts.pool == "basic":
        pool = "ベーシック15種（マーガレット）" if ja else "the 15 basic swords (Margaret)"
    else:
        names = ("、" if ja else ", ").join(
            BY_CODE[c].name if ja else BY_CODE[c].en for c in opts.pool
        )
        pool = f"{len(opts.pool)}種：{names}" if ja else f"{len(opts.pool)} swords: {names}"
    costs = "剣1本1点" if ja else "1 point per sword"
    if opts.costs:
        costs += (
            "（例外：" + _swords_text(opts.costs, lang) + "）"
            if ja
            else " (except " + _swords_text(opts.costs, lang) + ")"
        )
    mp = (
        ("なし（すべて0、H3）" if ja else "none (every MP cost 0, H3)")
        if not opts.mp_costs
        else _swords_text(opts.mp_costs, lang)
    )
    hd = {
        "between-rounds": ("ラウンド間に適用" if ja else "applied between rounds"),
        "ignore": ("適用しない" if ja else "ignored"),
    }[opts.heavens_door]
    if ja:
        return [
            "ルール：マーガレット・ハンドレッド 1.6.a",
            f"剣：{pool}",
            f"予算：{opts.budget}点（HP5ごとに1点、攻撃力・防御力・素早さ1ごとに1点、{costs}）",
            f"MPコスト：{mp}",
            f"パーティ上限：{opts.party_cap}人",
            f"1ターンの行動処理上限：{opts.procedure_limit:,}回",
            f"ヘヴンズドア：{hd}",
        ]
    return [
        "Ruleset: Margaret Hundred 1.6.a",
        f"Swords: {pool}",
        f"Budget: {opts.budget} points (1 per 5 HP, 1 per ATK/DEF/SPD, {costs})",
        f"MP costs: {mp}",
        f"Party cap: {opts.party_cap} swordmasters",
        f"Procedure limit: {opts.procedure_limit:,} action procedures per turn",
        f"Heaven's Door: {hd}",
    ]
