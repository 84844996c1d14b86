"""Margaret Magicalized as a :class:`~app.rules.base.Ruleset` (registered as
``margaret-magicalized``), the first ruleset with hidden information and per-pairing orders
(``takes_orders``).

The entry is base Margaret's :class:`~app.rules.margaret.model.Swordmaster` built from list 1;
the orders are an :class:`~.plays.OrdersText` (sections of a hand and versions of standing
orders); ``orders_for`` narrows it to one opponent's :class:`~.plays.SideOrders`; the result is
a :class:`~.events.MagicResult`. Source: ``rules/margaret-magicalized.md``.

Options (league settings, §3.2, §4.1, G21): ``checkpoints`` (``"none"``, ``"every"`` or a list of
turns) and ``reveal_hands`` (the unplayed cards are public after the battle; default true).
"""

from __future__ import annotations

import hashlib
from collections.abc import Mapping, Sequence
from typing import Any, ClassVar

from app.rules.base import (
    BattleInputs,
    BattleReport,
    Fighter,
    OrdersSheet,
    Outcome,
    ProblemLike,
    RandomSource,
    Ruleset,
    Sheet,
    has_stat_slashes,
    register,
)
from app.rules.margaret.model import Swordmaster
from app.rules.margaret.notation import is_swordmaster_line, read_sheet

from . import notation
from .deciders import StandingOrders, trace_of
from .engine import ENGINE_VERSION, Decider, run_battle
from .events import CardRecord, MagicResult, SmState, event_json
from .generate import random_swordmaster
from .orders import is_orders_text, orders_command, orders_start, parse_orders, parse_revision
from .plays import OrdersText, SideOrders
from .problems import format_problems, orders_problem
from .report import build_report, display_names
from .swords import BUDGET, HAND_SIZE, LAST_TURN
from .text import format_orders_text, format_side_orders

EXAMPLES = {
    "ja": "ミラ：10/1/0/3/導来剣、デス剣、加速剣、盾の剣",
    "en": "Mira: 10/1/0/3/Guide Sword, Death Sword, Haste Sword, Shield Sword",
}

SAMPLES: tuple[str, ...] = (
    "10/1/0/3/導死速盾/ミラ",
    "15/0/1/2/速熱衝絶/徘徊するライカ",
    "紫電：5/0/0/4/加速剣、衝撃剣、加熱剣、衝撃剣、加熱剣",
    "10/2/0/2/衝毒鏡回/鏡花",
    "15/2/1/1/重盾命/鉄壁",
)


#: orders the demo mails below three of its sheets (``demo_sheets``: a sheet and its orders in one
#: mail, §4.2), so that its reports show cards played and each player's private block
DEMO_ORDERS: tuple[str, ...] = (
    # (the side of HIT is the side hit: ``ON enemy HIT … PLAY 燃`` doubles the damage dealt,
    # ``ON my HIT … PLAY 凍`` halves the damage taken)
    "既定\n手札 愛×2、燃×2、凍、無、覆\n命令\nON my ACT PLAY 愛 my ONCE\n"
    "ON enemy ACT 死 PLAY 無 enemy THIS\nON enemy CARD 無 IF targets my PLAY 覆\n"
    "ON enemy HIT IF damage >= 3 PLAY 燃\nON my HIT IF damage >= 3 PLAY 凍\n終わり",
    "DEFAULT\nHAND 愛×3、燃×2、凍、星\nORDERS\nON my ACT PLAY 愛 my ONCE\n"
    "ON enemy HIT IF damage >= 2 PLAY 燃\nON my HIT IF damage >= 4 PLAY 凍\nEND",
    "既定\n手札 燃×3、凍×2、愛×2\n命令\nON enemy HIT PLAY 燃\nON my HIT IF damage >= 2 PLAY 凍\n"
    "ON my ACT PLAY 愛 my ONCE\n終わり",
)


def _entry(entry: Any) -> Swordmaster:
    if not isinstance(entry, Swordmaster):
        raise TypeError(f"a Magicalized entry is a Swordmaster, not {type(entry).__name__}")
    return entry


def _result(result: Any) -> MagicResult:
    if not isinstance(result, MagicResult):
        raise TypeError(f"a Magicalized result is a MagicResult, not {type(result).__name__}")
    return result


def _side_orders(orders: Any) -> SideOrders | None:
    if orders is None or isinstance(orders, SideOrders):
        return orders
    raise TypeError(
        f"Magicalized orders are SideOrders (Ruleset.orders_for), not {type(orders).__name__}"
    )


def lead_draw(seed: str, name_a: str, name_b: str) -> int:
    """G20: 0 (side A leads simultaneous windows in even turns) when the first byte of SHA-256
    of the UTF-8 text ``magicalized-lead:<seed>:<A>:<B>`` is even, else 1.

    >>> lead_draw("", "a", "b") in (0, 1)
    True
    """
    digest = hashlib.sha256(f"magicalized-lead:{seed}:{name_a}:{name_b}".encode()).digest()
    return 0 if digest[0] % 2 == 0 else 1


def _parse_options(options: Mapping[str, Any] | None) -> tuple[tuple[int, ...] | str, bool]:
    opts = dict(options or {})
    checkpoints: tuple[int, ...] | str = "none"
    reveal = True
    for key, value in opts.items():
        k = key.replace("-", "_")
        if k == "checkpoints":
            if isinstance(value, str) and value.strip().lower() in ("none", "every"):
                checkpoints = value.strip().lower()
            else:
                if isinstance(value, bool):
                    items: Any = None  # neither a turn nor a list of turns
                elif isinstance(value, int):
                    items = (value,)  # one turn: checkpoints=5 (a command line or TOML number)
                elif isinstance(value, str):
                    items = [x for x in value.split(",") if x.strip()]
                else:
                    items = value
                try:
                    turns = tuple(sorted({int(x) for x in items}))
                except (TypeError, ValueError):
                    raise ValueError(
                        "option checkpoints: expected none, every or a list of turns"
                    ) from None
                if any(t < 0 or t >= LAST_TURN for t in turns):
                    raise ValueError(f"option checkpoints: turns are 0 to {LAST_TURN - 1}")
                checkpoints = turns or "none"
        elif k == "reveal_hands":
            if isinstance(value, bool):
                reveal = value
            elif str(value).strip().lower() in ("true", "yes", "1", "false", "no", "0"):
                reveal = str(value).strip().lower() in ("true", "yes", "1")
            else:
                raise ValueError("option reveal_hands: expected true or false")
        else:
            raise ValueError(
                f"unknown option {key!r} (margaret-magicalized takes checkpoints, reveal_hands)"
            )
    return checkpoints, reveal


@register
class MargaretMagicalized(Ruleset):
    """Margaret Magicalized (seed 002): Margaret battles that both players interrupt with a
    hidden hand of 7 magic cards, played on a stack by standing orders.

    Args:
        options: ``checkpoints`` and ``reveal_hands`` (module docstring); ``None`` or ``{}``
            for the defaults (no checkpoints, hands revealed).

    Raises:
        ValueError: an option is unknown or out of range (the message names it).
    """

    name: ClassVar[str] = "margaret-magicalized"
    aliases: ClassVar[tuple[str, ...]] = (
        "magicalized",
        "mgz",
        "マーガレット・マジカライズド",
        "マジカライズド",
    )
    titles: ClassVar[Mapping[str, str]] = {
        "ja": "マーガレット・マジカライズド",
        "en": "Margaret Magicalized",
    }
    engine_version: ClassVar[str] = ENGINE_VERSION
    takes_orders: ClassVar[bool] = True

    def __init__(self, options: Mapping[str, Any] | None = None) -> None:
        self._checkpoints, self._reveal = _parse_options(options)

    @property
    def options(self) -> dict[str, Any]:
        """``{"checkpoints": "none" | "every" | [turns], "reveal_hands": bool}``."""
        cp = self._checkpoints
        return {
            "checkpoints": cp if isinstance(cp, str) else list(cp),
            "reveal_hands": self._reveal,
        }

    def checkpoint_turns(self) -> tuple[int, ...]:
        """The turns after which a league stops the battle for revisions (§3.2): ``()`` for
        none, 0-19 for every."""
        cp = self._checkpoints
        if cp == "none":
            return ()
        if cp == "every":
            return tuple(range(LAST_TURN))
        assert not isinstance(cp, str)
        return cp

    def describe(self, lang: str) -> list[str]:
        """The header of §4.1: list 1, budget, hand, the draw's rule, checkpoints, reveal."""
        ja = lang == "ja"
        cp = self._checkpoints
        cps = (
            ("なし" if ja else "none")
            if cp == "none"
            else ("毎ターン" if ja else "every turn")
            if cp == "every"
            else ", ".join(str(t) for t in cp)
        )
        if ja:
            return [
                f"ルール：{self.titles['ja']}",
                f"剣リスト1（15種）、途心{BUDGET}、手札{HAND_SIZE}枚（18種から重複可）",
                '先介入の抽選：SHA-256("magicalized-lead:<シード>:<A>:<B>") の先頭バイトが偶数なら'
                "偶数ターンはA（G20）",
                f"チェックポイント：{cps}",
                f"手札の公開（戦闘後）：{'あり' if self._reveal else 'なし'}",
            ]
        return [
            f"Ruleset: {self.titles['en']}",
            f"sword list 1 (15 swords), budget {BUDGET}, hand of {HAND_SIZE} (18 kinds, copies "
            f"allowed)",
            'lead draw: A leads even turns when the first byte of SHA-256("magicalized-lead:'
            '<seed>:<A>:<B>") is even (G20)',
            f"checkpoints: {cps}",
            f"unplayed cards revealed after the battle: {'yes' if self._reveal else 'no'}",
        ]

    # -- sheets -------------------------------------------------------------------------------

    def parse_sheet(self, text: str, *, lang: str | None = None) -> Sheet:
        """Read and validate a sheet (§4.1: list 1, 途心 10; ``notation.parse_sheet``)."""
        r = notation.parse_sheet(text if isinstance(text, str) else "", lang=lang)
        return Sheet(self.name, r.entry, r.problems, r.lang, r.name)

    def format_sheet(self, entry: Any, lang: str | None = None) -> str:
        """The normalized sheet (デス剣 as ``死``)."""
        return notation.format_sheet(_entry(entry), lang)

    def format_costs(self, entry: Any, lang: str | None = None) -> str:
        """The points against 途心 10."""
        m = _entry(entry)
        return notation.format_costs(m, lang or m.lang)

    def format_problems(self, problems: Sequence[ProblemLike], lang: str) -> str:
        """One block per problem of a sheet or of orders: line, quote, rule, fix."""
        return format_problems(problems, lang)

    def label(self, entry: Any) -> str:
        """The swordmaster's name (its compact line when it has none)."""
        m = _entry(entry)
        return m.name or notation.format_sheet(m).split("\n")[0]

    def starts_sheet(self, line: str) -> bool:
        """A swordmaster line in either notation with HP/ATK/DEF/SPD's slashes."""
        return isinstance(line, str) and is_swordmaster_line(line) and has_stat_slashes(line)

    def recognizes(self, text: str) -> bool:
        """True when ``text`` holds a swordmaster line whose swords all read as list 1-2 codes
        or names (and 高速剣), and no line but the 剣技 line. A base Margaret sheet of list-1
        swords is recognized too; a guess prefers base Margaret (earlier in the registry) unless
        the sheet uses 導来剣 or reads only here."""
        if not isinstance(text, str) or len(text) > 1_000_000:
            return False
        read = read_sheet(text, notation.TABLE)
        if read.master is None:
            return False
        bad = {"unknown-code", "unknown-sword", "extra-line", "theki-notation"}
        return not any(p.code in bad for p in read.pending)

    def example_sheet(self, lang: str) -> str:
        """ミラ in ``lang``'s full form."""
        return EXAMPLES["ja" if lang == "ja" else "en"]

    def sample_sheets(self) -> list[str]:
        """Valid sample sheets."""
        return list(SAMPLES)

    def demo_sheets(self) -> list[str]:
        """The samples, the first three with standing orders below the sheet (:data:`DEMO_ORDERS`)."""
        return [
            f"{sheet}\n{DEMO_ORDERS[i]}" if i < len(DEMO_ORDERS) else sheet
            for i, sheet in enumerate(self.sample_sheets())
        ]

    def random_entry(self, rng: RandomSource, name: str | None = None) -> Swordmaster:
        """A random valid list-1 swordmaster (``generate.random_swordmaster``)."""
        return random_swordmaster(rng, name=name)

    # -- orders -------------------------------------------------------------------------------

    def is_orders(self, text: str) -> bool:
        """A line starting with ``HAND`` or ``ORDERS`` (手札, 命令) (§5)."""
        return is_orders_text(text)

    def parse_orders(self, text: str, *, lang: str | None = None) -> OrdersSheet:
        """Read a hand-and-orders text (§4.2, §4.3; ``orders.parse_orders``): ``orders`` is an
        :class:`~.plays.OrdersText`, ``sections`` the ``VS`` names (``None`` = DEFAULT)."""
        r = parse_orders(text if isinstance(text, str) else "", lang=lang)
        sections = tuple(s.vs for s in r.orders.sections) if r.orders is not None else ()
        return OrdersSheet(self.name, r.orders, r.problems, r.lang, sections)

    def format_orders(self, orders: Any, lang: str | None = None) -> str:
        """The normalized text of an :class:`~.plays.OrdersText` or a
        :class:`~.plays.SideOrders` (English keywords, codes), which parses back to it."""
        if isinstance(orders, SideOrders):
            return format_side_orders(orders)
        if isinstance(orders, OrdersText):
            return format_orders_text(orders)
        raise TypeError(f"not Magicalized orders: {type(orders).__name__}")

    def orders_for(self, orders: Any, opponent: str | None) -> SideOrders | None:
        """G57-G60: against ``opponent`` (its unit name) the section naming it, else DEFAULT,
        else ``None`` (no cards, G59); ``opponent=None`` (offline ``battle``): DEFAULT or the only
        section. Raises ``ValueError`` offline for several sections and no DEFAULT (G60)."""
        if orders is None:
            return None
        if not isinstance(orders, OrdersText):
            raise TypeError(f"not Magicalized orders: {type(orders).__name__}")
        if opponent is None:
            return orders.offline()
        return orders.for_opponent(opponent)

    def revise_orders(
        self, current: Any, text: str, *, from_turn: int, lang: str | None = None
    ) -> OrdersSheet:
        """A checkpoint revision (§3.2, G53): ``text`` holds ``ORDERS FROM TURN t … END``
        block(s), t >= ``from_turn`` and after ``current``'s last version (the hand is fixed: no
        ``HAND`` line); the result's ``orders`` is ``current`` (a :meth:`orders_for` value, or
        ``None`` for no cards) with the new versions. A version for an earlier turn is refused
        (``revision-too-early``)."""
        cur = _side_orders(current) or SideOrders(())
        versions, problems, out_lang = parse_revision(text, lang=lang)
        if versions is None:
            return OrdersSheet(self.name, None, problems, out_lang, ())
        lines = text.split("\n")
        out = cur
        for v in versions:
            last = out.versions[-1].start if out.versions else 0
            if v.start < from_turn or v.start <= last:
                raw = lines[v.line - 1] if v.line and 0 < v.line <= len(lines) else ""
                p = orders_problem(
                    "revision-too-early",
                    v.line,
                    raw,
                    out_lang,
                    t=v.start,
                    first=max(from_turn, last + 1),
                )
                return OrdersSheet(self.name, None, (*problems, p), out_lang, ())
            out = out.with_version(v)
        return OrdersSheet(self.name, out, problems, out_lang, (), tuple(v.start for v in versions))

    def lead_draw(self, seed: str, name_a: str, name_b: str) -> int:
        """G20's draw (:func:`lead_draw`)."""
        return lead_draw(seed, name_a, name_b)

    def lead_text(self, seed: str, name_a: str, name_b: str, lang: str) -> str:
        """G20 in words: who leads simultaneous windows in even turns, and the SHA-256 input
        and byte anyone checks it with."""
        key = f"magicalized-lead:{seed}:{name_a}:{name_b}"
        byte = hashlib.sha256(key.encode()).digest()[0]
        lead = "AB"[lead_draw(seed, name_a, name_b)]
        other = "AB"[1 - "AB".index(lead)]
        if lang == "ja":
            return (
                f"先介入の抽選（G20）：偶数ターン（第0ターンを含む）は{lead}側、奇数ターンは{other}側が"
                f"先に介入します。検算：UTF-8の文字列「{key}」のSHA-256の先頭バイトは{byte}"
                f"（{'偶数' if byte % 2 == 0 else '奇数'}）です。"
            )
        return (
            f"lead draw (G20): side {lead} leads simultaneous windows in even turns (turn 0 "
            f"included), side {other} in odd turns. Check: the first byte of SHA-256 of the "
            f'UTF-8 text "{key}" is {byte} ({"even" if byte % 2 == 0 else "odd"}).'
        )

    def orders_start(self, text: str) -> int | None:
        """The first line of a hand-and-orders text in ``text`` (``orders.orders_start``)."""
        return orders_start(text)

    def orders_form(self, league: str, key: str, opponent: str, lang: str) -> str:
        """§4.2's hand mail for one opponent (``""``: a ``DEFAULT`` section for every
        opponent): the command line, ``VS``, ``HAND``, ``ORDERS``, ``END`` (in Japanese: 対戦,
        既定, 手札, 命令, 終わり)."""
        if lang == "ja":
            head = f"対戦 {opponent}" if opponent else "既定"
            return (
                f"MAGICALIZED {league} HAND {key}\n{head}\n手札 （カード7枚）\n命令\n"
                "  （規則を1行に1つ）\n終わり"
            )
        head = f"VS {opponent}" if opponent else "DEFAULT"
        return (
            f"MAGICALIZED {league} HAND {key}\n{head}\nHAND (7 cards)\nORDERS\n"
            "  (your rules, one per line)\nEND"
        )

    def revision_form(self, from_turn: int, lang: str) -> str:
        """§3.2's ``ORDERS FROM TURN t … END`` (命令 第tターンから … 終わり) with a placeholder."""
        if lang == "ja":
            return f"命令 第{from_turn}ターンから\n  （規則を1行に1つ）\n終わり"
        return f"ORDERS FROM TURN {from_turn}\n  (your rules, one per line)\nEND"

    def orders_command(self, text: str) -> tuple[str | None, str | None] | None:
        """§4.2's ``MAGICALIZED <league> HAND <entry key>`` line (``orders.orders_command``)."""
        return orders_command(text)

    # -- battles ------------------------------------------------------------------------------

    def battle(self, a: Any, b: Any, *, log: bool = True) -> MagicResult:
        """A battle without cards (both sides always pass), side A leading (G51)."""
        return self.fight(a, b, None, log=log)

    def fight(
        self, a: Any, b: Any, inputs: BattleInputs | None = None, *, log: bool = True
    ) -> MagicResult:
        """The battle with both sides' orders (:meth:`orders_for` values), the lead and an
        optional checkpoint (``inputs``; default: no cards, A leads, to the end)."""
        inp = inputs or BattleInputs()
        hands: list[tuple[str, ...]] = []
        deciders: list[Decider | None] = []
        for o in inp.orders:
            so = _side_orders(o)
            if so is None:
                hands.append(())
                deciders.append(None)
            else:
                hands.append(so.hand)
                deciders.append(StandingOrders(so, trace=log))
        return self.fight_with(
            _entry(a),
            _entry(b),
            (hands[0], hands[1]),
            (deciders[0], deciders[1]),
            lead=inp.lead,
            log=log,
            stop_after=inp.stop_after,
        )

    def fight_with(
        self,
        a: Swordmaster,
        b: Swordmaster,
        hands: tuple[Sequence[str], Sequence[str]],
        deciders: tuple[Decider | None, Decider | None],
        *,
        lead: int = 0,
        log: bool = True,
        stop_after: int | None = None,
    ) -> MagicResult:
        """The battle with any two deciders (tests: scripted ones) and hands."""
        if lead not in (0, 1):
            raise ValueError(f"lead is 0 (A) or 1 (B), not {lead!r}")
        d = run_battle(
            a, b, hands=hands, deciders=deciders, lead=lead, log=log, stop_after=stop_after
        )
        final = (SmState(*d["final"][0]), SmState(*d["final"][1]))
        return MagicResult(
            d["winner"],
            d["reason"],
            d["by"],
            d["turns"],
            d["where"],
            final,
            d["totals"],
            d["push"],
            tuple(CardRecord(*c) for c in d["cards"]),
            d["hands"],
            d["bans"],
            lead,
            d["windows"],
            (trace_of(deciders[0]), trace_of(deciders[1])),
            d["events"],
        )

    def checkpoint(self, result: Any) -> int | None:
        """The turn after which a battle fought with ``stop_after`` stopped, or ``None``."""
        return _result(result).checkpoint

    def outcome(self, result: Any) -> Outcome:
        """The generic outcome (§8.12 vocabulary). Raises ``ValueError`` for a checkpoint
        result (the battle has not ended)."""
        r = _result(result)
        if r.checkpoint is not None:
            raise ValueError(f"the battle stopped at a checkpoint after turn {r.turns}")
        return self._outcome(r)

    def _outcome(self, r: MagicResult) -> Outcome:
        final = tuple(
            (
                Fighter(
                    s.name,
                    s.hp,
                    s.max_hp,
                    0,
                    not s.dead,
                    s.dead,
                    {
                        k: v
                        for k, v in s.to_json().items()
                        if k not in ("name", "hp", "max_hp", "mp", "alive", "exited")
                    },
                ),
            )
            for s in r.final
        )
        ta, tb = r.totals
        margin = tb - ta if r.by == "overkill" else ta - tb
        reason = r.reason if r.reason in ("death", "overkill", "hp", "push", "draw") else "draw"
        return Outcome(
            r.winner,
            reason,
            r.turns,
            margin,
            (final[0], final[1]),
            r.by,
            {
                "totals": {"A": ta, "B": tb},
                "push": {"A": r.push[0], "B": r.push[1]},
                "lead": "AB"[r.lead],
                "cards": len(r.cards),
                **({"checkpoint": r.turns} if r.checkpoint is not None else {}),
            },
        )

    def winner_and_margin(self, result: Any) -> tuple[int | None, int]:
        """``(winner, margin)`` of :meth:`outcome`."""
        r = _result(result)
        ta, tb = r.totals
        return r.winner, (tb - ta if r.by == "overkill" else ta - tb)

    def public_json(self, result: Any, *, events: bool = True) -> dict[str, Any]:
        """The §5 object (what ``battle --json`` prints): ``winner``, ``reason``, ``turns``,
        ``by``, ``final.A``/``final.B`` (lists of one swordmaster with ``name``, ``hp``,
        ``max_hp``, ``mp``, ``alive``, ``exited``, …), ``cards``, ``hands`` (when the league
        reveals them, G21), ``bans``, ``lead``, plus ``ruleset``, ``engine_version``, the judge
        ``totals`` and ``push``, ``windows``, and ``events`` when asked. At a checkpoint:
        ``reason`` ``"checkpoint"``, ``winner`` ``null``, ``checkpoint`` the turn, and
        ``hand_sizes`` instead of ``hands``."""
        r = _result(result)
        out: dict[str, Any] = {
            "ruleset": self.name,
            "engine_version": ENGINE_VERSION,
            "winner": None if r.winner is None else "AB"[r.winner],
            "reason": r.reason,
            "turns": r.turns,
            "by": r.by,
            "final": {"A": [r.final[0].to_json()], "B": [r.final[1].to_json()]},
            "cards": [c.to_json() for c in r.cards],
        }
        if r.checkpoint is not None:
            out["winner"] = None
            out["checkpoint"] = r.checkpoint
            out["hand_sizes"] = {"A": len(r.hands[0]), "B": len(r.hands[1])}
        elif self._reveal:
            out["hands"] = {"A": list(r.hands[0]), "B": list(r.hands[1])}
        out.update(
            {
                "bans": {"A": list(r.bans[0]), "B": list(r.bans[1])},
                "lead": "AB"[r.lead],
                "totals": {"A": r.totals[0], "B": r.totals[1]},
                "push": {"A": r.push[0], "B": r.push[1]},
                "windows": r.windows,
            }
        )
        if events:
            out["events"] = [event_json(e) for e in r.events]
        return out

    def private_json(self, result: Any, side: int) -> dict[str, Any]:
        """What only ``side`` may read (§4.4): its remaining ``hand`` and its rule ``trace``
        (``{"turn", "window", "window_id", "version", "rule", "outcome"}`` items) with the
        number of entries ``omitted``."""
        r = _result(result)
        trace, omitted = r.traces[side]
        return {
            "hand": list(r.hands[side]),
            "trace": [
                {"turn": t, "window": k, "window_id": w, "version": v, "rule": n, "outcome": o}
                for t, k, w, v, n, o in trace
            ],
            "omitted": omitted,
        }

    def result_json(self, result: Any, *, events: bool = True) -> dict[str, Any]:
        """§4.4's JSON: ``{"public": public_json, "private": {"A": …, "B": …}}``. Pages, feeds
        and the opponent read ``public`` only."""
        return {
            "public": self.public_json(result, events=events),
            "private": {"A": self.private_json(result, 0), "B": self.private_json(result, 1)},
        }

    def report(self, a: Any, b: Any, result: Any, *, lang: str) -> BattleReport:
        """The public report (§4.4). Raises ``ValueError`` for a result without a log."""
        return self.report_for(a, b, result, lang=lang, side=None)

    def report_for(
        self, a: Any, b: Any, result: Any, *, lang: str, side: int | None = None
    ) -> BattleReport:
        """The public report plus ``side``'s private block (remaining hand, rule trace)."""
        ma, mb, r = _entry(a), _entry(b), _result(result)
        return build_report(
            r,
            self._outcome(r),
            lang=lang,
            header=tuple(self.describe(lang)),
            sheets=(notation.format_sheet(ma, lang), notation.format_sheet(mb, lang)),
            reveal=self._reveal,
            side=side,
        )


__all__ = ["MargaretMagicalized", "display_names", "lead_draw"]
