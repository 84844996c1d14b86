"""The hand-and-orders language of Margaret Magicalized (§4.2, §4.3, G22-G63): the parser.

:func:`parse_orders` reads a hand mail's body (or an offline orders file) into an
:class:`~.plays.OrdersText` and a list of problems. It never raises, and its work is bounded on
hostile input: at most :data:`MAX_CHARS` characters, :data:`MAX_LINES` non-blank lines,
:data:`MAX_LINE` characters a line (:data:`MAX_RULE` for a rule), :data:`MAX_PROBLEMS` problems;
each rule line is read in one pass over its words.

Layout (§4.2, G56, G57)::

    VS ヤミ                  (or DEFAULT; lines before the first header are DEFAULT)
    HAND 無×2、覆、燃、凍、闇、策
    ORDERS
    ON enemy ACT 死 PLAY 無 enemy THIS
    END
    ORDERS FROM TURN 8
    ON enemy HIT IF damage >= 4 PLAY 燃
    END

Words are separated by spaces; text is read after NFKC, English keywords case-insensitively.
Every English keyword has Japanese aliases (:data:`ALIASES`, ``docs/magicalized.md``), e.g.
``時 敵 行動 死 使う 無 敵 これ`` is ``ON enemy ACT 死 PLAY 無 enemy THIS``. Cards and swords are
written by code, Japanese name, or English name without spaces (``SlashSword``, ``burning``);
statuses and enchantments by G63's spellings.
"""

from __future__ import annotations

import re
import unicodedata
from dataclasses import dataclass, field

from app.rules.amaryllis.problems import Problem
from app.rules.amaryllis.vocab import L, normalize
from app.rules.hundred.swords import CODES as HUNDRED

from .plays import (
    Cond,
    Event,
    OrdersText,
    PlaySpec,
    Pos,
    Ref,
    Rule,
    Section,
    SideOrders,
    Value,
    Version,
)
from .problems import orders_problem
from .swords import (
    ATTACK,
    BY_CODE,
    CARD,
    CARDS,
    ENCHANTS,
    HAND_SIZE,
    LAST_TURN,
    STATUSES,
    SWORDS,
)

MAX_CHARS = 2_000_000
"""A longer text is refused outright (``orders-too-large``)."""
MAX_LINES = 2_000
"""Non-blank lines read at most (``orders-too-many-lines``)."""
MAX_LINE = 1_000
"""Characters of a header line at most (longer: ``unknown-line``, not read)."""
MAX_RULE = 200
"""Characters of a rule (§4.3)."""
MAX_RULES = 40
"""Rules per version (§4.3, G56)."""
MAX_PROBLEMS = 50
"""Problems reported at most; reading stops there."""
MAX_DEPTH = 4
"""虹紡ぎ nested in 虹紡ぎ at most this deep (a rule of 200 characters cannot go much further)."""

# -- vocabulary ---------------------------------------------------------------------------------

ALIASES: dict[str, tuple[str, ...]] = {
    # keyword: (English, Japanese aliases…) — docs/magicalized.md lists them
    "VS": ("vs", "対戦"),
    "DEFAULT": ("default", "既定"),
    "HAND": ("hand", "手札"),
    "ORDERS": ("orders", "命令"),
    "END": ("end", "終わり", "終了"),
    "FROM": ("from", "から"),
    "TURN": ("turn", "ターン"),
    "ON": ("on", "時", "とき"),
    "IF": ("if", "もし"),
    "AND": ("and", "かつ"),
    "NOT": ("not", "でない"),
    "PLAY": ("play", "使う"),
    "ONCE": ("once", "一度"),
    "my": ("my", "自分", "味方"),
    "enemy": ("enemy", "敵", "相手"),
    "any": ("any", "どちらか", "双方"),
    "ACT": ("act", "行動"),
    "WHIFF": ("whiff", "空振り"),
    "STUN": ("stun", "スタン"),
    "VANISH": ("vanish", "消滅"),
    "REFLECT": ("reflect", "反射"),
    "HIT": ("hit", "命中"),
    "EFFECT": ("effect", "効果"),
    "DEATH": ("death", "死亡"),
    "CARD": ("card", "カード"),
    "critical": ("critical", "危殆"),
    "has": ("has", "状態", "有"),
    "holds": ("holds", "所持"),
    "used": ("used", "使用済", "使用済み"),
    "hand": ("hand", "手札"),
    "stack": ("stack", "スタック"),
    "empty": ("empty", "空"),
    "targets": ("targets", "対象"),
    "lead": ("lead", "先導", "先介入"),
    "turn": ("turn", "ターン"),
    "damage": ("damage", "ダメージ"),
    "hp": ("hp",),
    "maxhp": ("maxhp", "最大hp"),
    "atk": ("atk", "攻撃力"),
    "def": ("def", "防御力"),
    "spd": ("spd", "素早さ"),
    "ap": ("ap",),
    "THIS": ("this", "これ", "この剣"),
    "AT": ("at", "位置"),
    "FRONT": ("front", "先頭"),
    "ENDPOS": ("end", "末尾"),
    "BEFORE": ("before", "前"),
    "AFTER": ("after", "後"),
    "ALL": ("all", "全部", "すべて", "全て"),
    "DISCARD": ("discard", "捨て"),
    "AS": ("as", "として"),
    "ORDER": ("order", "順", "順番"),
}
_WORD: dict[str, dict[str, str]] = {}
"""keyword -> {word as written (lower-case): keyword}."""
for _k, _ws in ALIASES.items():
    _WORD[_k] = {w: _k for w in _ws}

_SIDE_WORDS = {**_WORD["my"], **_WORD["enemy"], **_WORD["any"]}
_EVENT_WORDS = {
    w: k for k in ("ACT", "VANISH", "REFLECT", "HIT", "EFFECT", "DEATH", "CARD") for w in ALIASES[k]
}
_SIDE_COND = {w: k for k in ("critical", "has", "holds", "used") for w in ALIASES[k]}
_ATTR = {w: k for k in ("hp", "maxhp", "atk", "def", "spd", "ap") for w in ALIASES[k]}
_STATUS = {**{ja.lower(): a for a, ja, _ in STATUSES}, **{en.lower(): a for a, _, en in STATUSES}}
_ENCHANT = {
    **{ja: a for a, ja, _ in ENCHANTS if a != "early"},
    **{en: a for a, _, en in ENCHANTS if a != "early"},
}
_CMP = {
    "<": "<",
    "<=": "<=",
    "=<": "<=",
    "≤": "<=",
    "≦": "<=",
    "=": "=",
    "==": "=",
    "!=": "!=",
    "<>": "!=",
    "≠": "!=",
    ">=": ">=",
    "=>": ">=",
    "≥": ">=",
    "≧": ">=",
    ">": ">",
}
_CMP_SPLIT = re.compile(r"(<=|>=|=<|=>|!=|<>|==|[<>=≤≥≠≦≧])")
_COUNT = re.compile(r"(.*?)\s*[×xX*]\s*([0-9]+)")
_INT = re.compile(r"[0-9]+")
_HEADER_FROM = re.compile(r"(?:fromturn|からターン)([0-9]+)|第?([0-9]+)ターン目?から")
_JA_HEADERS = ("対戦", "既定", "手札", "命令")


def _key(word: str) -> str:
    """A word's matching key: NFKC, lower-case, without spaces, hyphens or underscores."""
    return re.sub(r"[\s_\-]+", "", unicodedata.normalize("NFKC", word)).lower()


_CARD_KEYS: dict[str, str] = {}
for _c in CARDS:
    for _w in (_c.code, _c.name, _c.en, _c.word):
        _CARD_KEYS[_key(_w)] = _c.code
_SWORD_KEYS: dict[str, str] = {}
for _d in SWORDS:
    for _w in (_d.code, *_d.alt, _d.name, _d.en):
        _SWORD_KEYS[_key(_w)] = _d.code


def card_of(word: str) -> str | None:
    """The card code ``word`` names (code, Japanese name, English name, one-word alias), or
    ``None``."""
    return _CARD_KEYS.get(_key(word))


def sword_of(word: str) -> str | None:
    """The sword code ``word`` names (lists 1-2 and 高速剣; code, alternative code, Japanese or
    English name), or ``None``."""
    return _SWORD_KEYS.get(_key(word))


def _is(word: str | None, keyword: str) -> bool:
    return word is not None and word.lower() in _WORD[keyword]


# -- messages -----------------------------------------------------------------------------------

_EXAMPLE = "ON enemy ACT 死 PLAY 無 enemy THIS"
_WHAT = {
    "side": L("側（my／enemy／any、自分／敵／どちらか）", "a side (my, enemy, any)"),
    "arg-side": L("側（my／enemy、自分／敵）", "a side (my, enemy)"),
    "event": L(
        "契機（ACT VANISH REFLECT HIT EFFECT DEATH CARD、行動 消滅 反射 命中 効果 死亡 カード）",
        "an event (ACT, VANISH, REFLECT, HIT, EFFECT, DEATH, CARD)",
    ),
    "cond": L(
        "条件（critical has holds used hand stack targets lead、値と比較）",
        "a condition (critical, has, holds, used, hand, stack, targets, lead, or a comparison)",
    ),
    "value": L(
        "値（数、turn、damage、HP などの能力値や状態）",
        "a value (a number, turn, damage, or hp/maxhp/atk/def/spd/ap/a status)",
    ),
    "cmp": L("比較（< <= = != >= >）", "a comparison (<, <=, =, !=, >=, >)"),
    "play": L("PLAY（使う）", "PLAY"),
    "if-play": L("IF（もし）か PLAY（使う）", "IF or PLAY"),
    "on": L("ON（時）", "ON"),
    "card": L("魔法カード", "a magic card"),
    "sword": L("剣", "a sword"),
    "status": L(
        "状態（スタン 毒 反射 シールド ライフ ソウル プッシュ クイック）",
        "a status (Stun, Poison, Reflect, Shield, Life, Soul, Push, Quick)",
    ),
    "enchant": L(
        "エンチャント（不可識 毒与え スタン与え）", "an enchantment (unseen, poisoning, stunning)"
    ),
    "ref": L("剣の指定（THIS、剣、剣#2、@1）", "a sword (THIS, a sword, sword#2, @1)"),
    "pos": L(
        "位置（FRONT END 数 BEFORE 剣 AFTER 剣）",
        "a position (FRONT, END, a number, BEFORE/AFTER a sword)",
    ),
    "stack": L("empty か has", "empty or has"),
}
_CHOICES = {
    "event": L(
        "ACT VANISH REFLECT HIT EFFECT DEATH CARD（行動 消滅 反射 命中 効果 死亡 カード）",
        "ACT VANISH REFLECT HIT EFFECT DEATH CARD",
    ),
    "cond": L(
        "critical has holds used hand stack targets lead NOT（危殆 状態 所持 使用済 手札 スタック 対象 先導 でない）",
        "critical has holds used hand stack targets lead NOT",
    ),
    "status": L(
        "スタン 毒 反射 シールド ライフ ソウル プッシュ クイック",
        "Stun Poison Reflect Shield Life Soul Push Quick",
    ),
    "enchant": L("不可識 毒与え スタン与え", "unseen poisoning stunning"),
    "side": L("my enemy any（自分 敵 どちらか）", "my enemy any"),
}
_SCHEMA = {
    "": "{c}",
    "ref": "{c} enemy THIS / {c} enemy 斬#2 / {c} my @1",
    "ref-enchant": "{c} my THIS 不可識 (unseen / poisoning / stunning)",
    "trail": "{c} my {s} AT END (AT FRONT / AT 2 / AT BEFORE my 斬)",
    "twilight": "{c} DISCARD 燃 my {s} AT END",
    "side": "{c} my",
    "order": "{c} my ORDER 斬 衝 熱",
    "statuses": "{c} enemy 反射 ALL シールド 2",
    "counter": "{c} enemy 無",
    "rainbow": "{c} DISCARD 燃 AS 無 enemy THIS",
}


class _Err(Exception):
    def __init__(self, code: str, **params: object) -> None:
        super().__init__(code)
        self.code = code
        self.params = params


def _got(tok: str | None) -> str:
    return "（なし）" if tok is None else tok[:30]


def _syntax(after: str, what: str, tok: str | None, example: str = _EXAMPLE) -> _Err:
    return _Err(
        "rule-syntax", after=after[:30], expected=_WHAT[what], got=_got(tok), example=example
    )


def _card_label(code: str) -> L:
    c = CARD[code]
    return L(f"{c.name}（{c.code}）", f"{c.en} ({c.code})")


def _bad_arg(card: str, detail: L) -> _Err:
    schema = _SCHEMA[CARD[card].schema]
    swords = CARD[card].swords
    text = schema.format(c=card, s=swords[0] if swords else "")
    return _Err("bad-argument", card=_card_label(card), detail=detail, schema=text)


# -- one rule -------------------------------------------------------------------------------------


class _Reader:
    """One rule's words, read left to right."""

    def __init__(self, words: list[str]) -> None:
        self.w = words
        self.i = 0

    def peek(self) -> str | None:
        return self.w[self.i] if self.i < len(self.w) else None

    def take(self) -> str | None:
        t = self.peek()
        if t is not None:
            self.i += 1
        return t

    def prev(self) -> str:
        return self.w[self.i - 1] if self.i > 0 else ""

    # -- pieces ------------------------------------------------------------------------------

    def side(self, what: str = "side") -> str:
        after = self.prev()
        t = self.take()
        s = _SIDE_WORDS.get(t.lower()) if t is not None else None
        if s is None:
            raise _syntax(after, what, t)
        if what == "arg-side" and s == "any":
            raise _Err("any-argument")
        return s

    def sword(self, t: str | None, after: str) -> str:
        if t is None:
            raise _syntax(after, "sword", t)
        code = sword_of(t)
        if code is None:
            if unicodedata.normalize("NFKC", t) in HUNDRED:
                raise _Err("sword-not-in-lists", sword=t[:30])
            raise _Err("unknown-sword-word", word=t[:30])
        if BY_CODE[code].in_list == 0:
            raise _Err("sword-not-in-lists", sword=L(BY_CODE[code].name, BY_CODE[code].en))
        return code

    def card(self, t: str | None, after: str) -> str:
        if t is None:
            raise _syntax(after, "card", t)
        code = card_of(t)
        if code is None:
            raise _Err("unknown-card", word=t[:30], suggest=L("", ""))
        return code

    def status(self, t: str | None, after: str) -> str:
        if t is None:
            raise _syntax(after, "status", t)
        s = _STATUS.get(_key(t))
        if s is None:
            raise _Err(
                "unknown-word", word=t[:30], what=_WHAT["status"], choices=_CHOICES["status"]
            )
        return s

    def number(self, t: str | None, what: L) -> int:
        if t is None or not _INT.fullmatch(t) or len(t) > 6 or int(t) < 1:
            raise _Err("bad-index", word=_got(t), what=what)
        return int(t)

    # -- event ---------------------------------------------------------------------------------

    def event(self) -> Event:
        side = self.side()
        t = self.take()
        kind = _EVENT_WORDS.get(t.lower()) if t is not None else None
        if kind is None:
            if t is None:
                raise _syntax(side, "event", t)
            raise _Err("unknown-word", word=t[:30], what=_WHAT["event"], choices=_CHOICES["event"])
        assert t is not None
        nxt = self.peek()
        optional = nxt is not None and not (_is(nxt, "IF") or _is(nxt, "PLAY"))
        if kind == "CARD":
            return Event(side, kind, what=self.card(self.take(), t))
        if kind in ("REFLECT", "DEATH") or not optional:
            return Event(side, kind)
        assert nxt is not None
        if kind == "ACT" and nxt.lower() in ("whiff", "空振り", "stun", "スタン"):
            self.take()
            return Event(side, kind, what="WHIFF" if nxt.lower() in ("whiff", "空振り") else "STUN")
        if kind == "EFFECT":
            status = _STATUS.get(_key(nxt))
            code = sword_of(nxt)
            if status is not None or code is not None:
                self.take()
                if code is not None and BY_CODE[code].in_list == 0:
                    raise _Err("sword-not-in-lists", sword=L(BY_CODE[code].name, BY_CODE[code].en))
                return Event(side, kind, sword=code, what=status)  # 毒: both (G34)
        if (
            sword_of(nxt) is None
            and unicodedata.normalize("NFKC", nxt) not in HUNDRED
            and not nxt.endswith("剣")
            and "sword" not in nxt.lower()
        ):
            raise _syntax(t, "if-play", nxt)  # not a sword: PLAY forgotten, most likely
        return Event(side, kind, sword=self.sword(self.take(), t))

    # -- conditions ----------------------------------------------------------------------------

    def value(self) -> Value:
        after = self.prev()
        t = self.take()
        if t is None:
            raise _syntax(after, "value", t)
        low = t.lower()
        if _INT.fullmatch(t):
            if len(t) > 9:
                raise _Err("bad-index", word=t[:30], what=_WHAT["value"])
            return Value("int", int(t))
        if low in _WORD["turn"]:
            return Value("turn")
        if low in _WORD["damage"]:
            return Value("damage")
        side = _SIDE_WORDS.get(low)
        if side is None:
            raise _syntax(after, "value", t)
        a = self.take()
        attr = _ATTR.get(a.lower()) if a is not None else None
        if attr is None and a is not None:
            attr = _STATUS.get(_key(a))
        if attr is None:
            raise _syntax(t, "value", a)
        if side == "any":
            raise _Err("any-value", word=f"{t} {a}")
        return Value("attr", side=side, attr=attr)

    def comparison(self, left: Value) -> Cond:
        after = self.prev()
        t = self.take()
        op = _CMP.get(t) if t is not None else None
        if op is None:
            raise _syntax(after, "cmp", t)
        return Cond("cmp", op=op, a=left, b=self.value())

    def cond(self) -> Cond:
        neg = False
        while _is(self.peek(), "NOT"):
            self.take()
            neg = not neg
        after = self.prev()
        t = self.peek()
        if t is None:
            raise _syntax(after, "cond", t)
        low = t.lower()
        c: Cond
        if low in _SIDE_WORDS:
            side = _SIDE_WORDS[low]
            self.take()
            w = self.peek()
            kind = _SIDE_COND.get(w.lower()) if w is not None else None
            if kind is not None:
                self.take()
                if kind == "critical":
                    c = Cond("critical", side=side)
                elif kind == "has":
                    c = Cond("has", side=side, name=self.status(self.take(), w or ""))
                elif kind == "holds":
                    c = Cond("holds", side=side, name=self.sword(self.take(), w or ""))
                else:
                    c = Cond("used", side=side, name=self.card(self.take(), w or ""))
            else:
                self.i -= 1
                c = self.comparison(self.value())
        elif low in _WORD["hand"]:
            self.take()
            c = Cond("hand", name=self.card(self.take(), t))
        elif low in _WORD["stack"]:
            self.take()
            w = self.take()
            if _is(w, "empty"):
                c = Cond("stack-empty")
            elif w is not None and w.lower() in _WORD["has"]:
                c = Cond("stack-has", name=self.card(self.take(), w))
            else:
                raise _syntax(t, "stack", w)
        elif low in _WORD["targets"]:
            self.take()
            c = Cond("targets", side=self.side())
        elif low in _WORD["lead"]:
            self.take()
            c = Cond("lead")
        elif _INT.fullmatch(t) or low in _WORD["turn"] or low in _WORD["damage"]:
            c = self.comparison(self.value())
        else:
            raise _Err("unknown-word", word=t[:30], what=_WHAT["cond"], choices=_CHOICES["cond"])
        while _is(self.peek(), "NOT"):  # Japanese postfix: … でない
            self.take()
            neg = not neg
        if neg:
            c = Cond(c.kind, c.side, c.name, c.op, c.a, c.b, True)
        return c

    # -- plays ---------------------------------------------------------------------------------

    def ref(self, card: str) -> Ref:
        side = self.side("arg-side")
        t = self.take()
        if t is None:
            raise _bad_arg(card, L("剣の指定がありません", "no sword named"))
        if _is(t, "THIS"):
            return Ref(side, "this")
        if t.startswith("@"):
            return Ref(side, "pos", k=self.number(t[1:], L("位置（@）", "position (@)")))
        name, sep, k = t.partition("#")
        code = self.sword(name, side)
        return Ref(side, "sword", code, self.number(k, L("何本目（#）", "copy (#)")) if sep else 1)

    def pos(self, card: str) -> Pos:
        t = self.take()
        if not _is(t, "AT"):
            raise _bad_arg(card, L("位置（AT …）がありません", "no position (AT …)"))
        t = self.take()
        if _is(t, "FRONT"):
            return Pos("front")
        if _is(t, "ENDPOS"):
            return Pos("end")
        if _is(t, "BEFORE") or _is(t, "AFTER"):
            return Pos("before" if _is(t, "BEFORE") else "after", ref=self.ref(card))
        if t is not None and _INT.fullmatch(t):
            return Pos("index", self.number(t, L("位置", "position")))
        raise _syntax("AT", "pos", t)

    def discard(self, card: str) -> str:
        t = self.take()
        if not _is(t, "DISCARD"):
            raise _bad_arg(
                card,
                L(
                    "DISCARD（捨て）で捨てるカードを先に書きます",
                    "DISCARD and the card to discard come first",
                ),
            )
        return self.card(self.take(), t or "")

    def play(self, depth: int = 0) -> PlaySpec:
        after = self.prev()
        card = self.card(self.take(), after)
        c = CARD[card]
        s = c.schema
        if s == "":
            return PlaySpec(card)
        if s == "ref":
            return PlaySpec(card, ref=self.ref(card))
        if s == "ref-enchant":
            ref = self.ref(card)
            t = self.take()
            e = _ENCHANT.get(_key(t)) if t is not None else None
            if e is None:
                if t is None:
                    raise _bad_arg(card, L("エンチャントがありません", "no enchantment"))
                raise _Err(
                    "unknown-word", word=t[:30], what=_WHAT["enchant"], choices=_CHOICES["enchant"]
                )
            return PlaySpec(card, ref=ref, enchant=e)
        if s in ("trail", "twilight"):
            discard = self.discard(card) if s == "twilight" else None
            side = self.side("arg-side")
            t = self.take()
            sword = self.sword(t, side)
            if sword not in c.swords:
                names = "、".join(BY_CODE[x].name for x in c.swords)
                raise _Err(
                    "wrong-trail-sword",
                    card=_card_label(card),
                    sword=t or "",
                    swords=L(names, ", ".join(f"{BY_CODE[x].en} ({x})" for x in c.swords)),
                )
            return PlaySpec(card, side=side, sword=sword, pos=self.pos(card), discard=discard)
        if s == "side":
            return PlaySpec(card, side=self.side("arg-side"))
        if s == "order":
            side = self.side("arg-side")
            t = self.take()
            if not _is(t, "ORDER"):
                raise _bad_arg(
                    card, L("ORDER（順）と剣の並びが必要です", "ORDER and the swords are needed")
                )
            order: list[str] = []
            while self.peek() is not None and not _is(self.peek(), "ONCE"):
                order.append(self.sword(self.take(), "ORDER"))
            if not order:
                raise _bad_arg(card, L("並べる剣がありません", "no sword to order"))
            return PlaySpec(card, side=side, order=tuple(order))
        if s == "statuses":
            side = self.side("arg-side")
            statuses: list[tuple[str, int | None]] = []
            while self.peek() is not None and not _is(self.peek(), "ONCE"):
                st = self.status(self.take(), side)
                n: int | None = 1
                nxt = self.peek()
                if _is(nxt, "ALL"):
                    self.take()
                    n = None
                elif nxt is not None and _INT.fullmatch(nxt):
                    n = self.number(self.take(), L("個数", "count"))
                statuses.append((st, n))
            if not statuses:
                raise _bad_arg(card, L("消す状態がありません", "no status to remove"))
            return PlaySpec(card, side=side, statuses=tuple(statuses))
        if s == "counter":
            side = self.side("arg-side")
            return PlaySpec(card, side=side, target=self.card(self.take(), side))
        assert s == "rainbow"
        discard = self.discard(card)
        t = self.take()
        if not _is(t, "AS"):
            raise _bad_arg(
                card, L("AS（として）と得る効果が必要です", "AS and the effect gained are needed")
            )
        if depth >= MAX_DEPTH:
            raise _bad_arg(card, L("虹紡ぎの入れ子が深すぎます", "虹紡ぎ nested too deep"))
        return PlaySpec(card, discard=discard, inner=self.play(depth + 1))

    def rule(self) -> tuple[Event, tuple[Cond, ...], PlaySpec, bool]:
        t = self.take()
        if not _is(t, "ON"):
            raise _syntax("", "on", t)
        event = self.event()
        conds: list[Cond] = []
        t = self.peek()
        if _is(t, "IF"):
            self.take()
            conds.append(self.cond())
            while _is(self.peek(), "AND"):
                self.take()
                conds.append(self.cond())
        after = self.prev()
        t = self.take()
        if not _is(t, "PLAY"):
            raise _syntax(after, "play", t)
        play = self.play()
        once = False
        if _is(self.peek(), "ONCE"):
            self.take()
            once = True
        if self.peek() is not None:
            raise _Err("extra-words", words=" ".join(self.w[self.i :])[:40])
        return event, tuple(conds), play, once


def read_rule(text: str) -> tuple[Event, tuple[Cond, ...], PlaySpec, bool]:
    """One rule line as ``(event, conditions, play, once)``. Raises ``ValueError`` (with the
    problem code) when it does not read; :func:`parse_orders` reports the same as problems."""
    try:
        return _Reader(_words(text)).rule()
    except _Err as exc:
        raise ValueError(exc.code) from None


def read_play(text: str) -> PlaySpec:
    """A play text (``無 enemy THIS``) as a :class:`~.plays.PlaySpec`. Raises ``ValueError``
    when it does not read (tests, scripted deciders)."""
    r = _Reader(["PLAY", *_words(text)])
    r.i = 1
    try:
        p = r.play()
    except _Err as exc:
        raise ValueError(exc.code) from None
    if r.peek() is not None:
        raise ValueError("extra-words")
    return p


def _words(text: str) -> list[str]:
    return _CMP_SPLIT.sub(r" \1 ", normalize(text)).split()


# -- impossible events (warnings) -----------------------------------------------------------------

_GIVEN = frozenset({"stun", "poison", "shield", "reflect", "life", "soul", "push"})


def _impossible(ev: Event) -> L | None:
    d = BY_CODE.get(ev.sword) if ev.sword is not None else None
    if ev.kind in ("HIT",) and d is not None and d.kind != ATTACK:
        return L(f"{d.name}は攻撃しません", f"{d.en} never attacks")
    if ev.kind == "VANISH" and d is not None and not d.limited:
        return L(
            f"ステップ4で消えるのは＜リミ＞の剣だけです（{d.name}は違います、G45）",
            f"only a <リミ> sword vanishes at step 4, and {d.en} is not one (G45)",
        )
    if ev.kind == "EFFECT" and ev.sword is None and ev.what is not None and ev.what not in _GIVEN:
        return L("その状態を与える剣はありません", "no sword gives that status")
    if ev.kind == "CARD" and ev.what == "策":
        return L("対策には介入機会がありません（G11）", "対策 gives no opportunity (G11)")
    return None


# -- the whole text -------------------------------------------------------------------------------


@dataclass(frozen=True, slots=True)
class OrdersResult:
    """What :func:`parse_orders` read: ``orders`` (``None`` when there is any error), every
    problem (in line order) and the language of the messages."""

    orders: OrdersText | None
    problems: tuple[Problem, ...]
    lang: str

    @property
    def errors(self) -> list[Problem]:
        """The problems that refuse the text."""
        return [p for p in self.problems if p.severity == "error"]

    @property
    def warnings(self) -> list[Problem]:
        """The problems that do not refuse it."""
        return [p for p in self.problems if p.severity != "error"]

    @property
    def ok(self) -> bool:
        """True when the text has no error (``orders`` is then set)."""
        return self.orders is not None and not self.errors


@dataclass
class _Sec:
    vs: str | None
    line: int
    explicit: bool = False
    hand: tuple[str, ...] | None = None
    hand_line: int = 0
    hand_raw: str = ""
    versions: list[Version] = field(default_factory=list)
    warn: list[tuple[str, int, str, dict[str, object]]] = field(default_factory=list)


@dataclass
class _Block:
    start: int
    line: int
    raw: str = ""
    rules: list[Rule] = field(default_factory=list)
    count: int = 0


class _Parse:
    def __init__(self, revision: bool = False) -> None:
        self.revision = revision
        self.pending: list[tuple[str, int | None, str, dict[str, object]]] = []
        self.sections: list[_Sec] = []
        self.cur: _Sec | None = None
        self.block: _Block | None = None
        self.votes = {"ja": 0, "en": 0}
        self.stopped = False

    def add(self, code: str, line: int | None, text: str, **params: object) -> None:
        if self.stopped:
            return
        self.pending.append((code, line, text, params))
        if len(self.pending) >= MAX_PROBLEMS:
            self.pending.append(("orders-too-many-problems", line, text, {"limit": MAX_PROBLEMS}))
            self.stopped = True

    def vote(self, word: str) -> None:
        self.votes["en" if word.isascii() else "ja"] += 1

    def section(self, line: int) -> _Sec:
        if self.cur is None:  # G57: lines before the first header form the DEFAULT section
            self.cur = _Sec(None, line)
            self.sections.append(self.cur)
        return self.cur

    def close_block(self) -> None:
        b = self.block
        if b is None:
            return
        self.block = None
        sec = self.section(b.line)
        sec.versions.append(Version(b.start, tuple(b.rules), b.line))

    def header(self, n: int, raw: str, s: str) -> bool:
        """Read ``s`` as a header line; False when it is none."""
        head, _, rest = s.partition(" ")
        low = head.lower()
        word = None
        for ja in _JA_HEADERS:  # Japanese keywords may touch what follows: 手札：無×2…
            if s.startswith(ja) and low not in ("vs", "default", "hand", "orders"):
                word, rest = ja, s[len(ja) :]
                break
        if word is None:
            word = low
        rest = rest.strip().lstrip(":").strip()
        if self.revision and (
            word in _WORD["VS"] or word in _WORD["DEFAULT"] or word in _WORD["HAND"]
        ):
            self.add("revision-header", n, raw)
            return True
        if word in _WORD["VS"] or word in _WORD["DEFAULT"]:
            self.vote(word)
            if self.block is not None:
                self.add("block-in-block", n, raw, start=self.block.line)
                self.close_block()
            vs: str | None = None
            if word in _WORD["VS"]:
                vs = unicodedata.normalize("NFKC", rest).strip()
                if not vs:
                    self.add("vs-empty", n, raw)
                    return True
            for other in self.sections:
                if other.vs == vs and (other.explicit or other.hand is not None or other.versions):
                    if vs is None:
                        self.add("default-twice", n, raw, first=other.line)
                    else:
                        self.add("vs-twice", n, raw, name=vs, first=other.line)
                    break
            self.cur = _Sec(vs, n, True)
            self.sections.append(self.cur)
            return True
        if word in _WORD["HAND"]:
            self.vote(word)
            if self.block is not None:
                self.add("block-in-block", n, raw, start=self.block.line)
                self.close_block()
            sec = self.section(n)
            if sec.hand is not None:
                self.add("hand-twice", n, raw, first=sec.hand_line)
                return True
            if sec.versions:
                self.add("hand-after-orders", n, raw)
            self.hand(n, raw, rest, sec)
            return True
        if word in _WORD["ORDERS"]:
            self.vote(word)
            if self.block is not None:
                self.add("block-in-block", n, raw, start=self.block.line)
                self.close_block()
            sec = self.section(n)
            start = 0
            if rest:
                m = _HEADER_FROM.fullmatch(re.sub(r"\s+", "", rest).lower())
                if m is None:
                    self.add("bad-orders-header", n, raw)
                    start = -1
                else:
                    start = int((m.group(1) or m.group(2))[:6])
                    if self.revision:
                        if start == 0:
                            self.add("from-turn-zero", n, raw)
                        elif sec.versions and start <= sec.versions[-1].start:
                            self.add(
                                "from-turn-order", n, raw, t=start, previous=sec.versions[-1].start
                            )
                        elif start > LAST_TURN:
                            sec.warn.append(("version-past-20", n, raw, {"t": start}))
                    elif not sec.versions:
                        self.add("first-block-from", n, raw, t=start)
                    elif start == 0:
                        self.add("from-turn-zero", n, raw)
                    elif start <= sec.versions[-1].start:
                        self.add(
                            "from-turn-order", n, raw, t=start, previous=sec.versions[-1].start
                        )
                    elif start > LAST_TURN:
                        sec.warn.append(("version-past-20", n, raw, {"t": start}))
            elif sec.versions or self.revision:
                self.add("revision-needs-from" if self.revision else "bad-orders-header", n, raw)
            self.block = _Block(start, n, raw)
            return True
        if word in _WORD["END"] and not rest:
            self.add("end-without-orders", n, raw)
            return True
        return False

    def hand(self, n: int, raw: str, rest: str, sec: _Sec) -> None:
        items = [x.strip() for x in rest.split(",")] if "," in rest else rest.split()
        cards: list[str] = []
        bad = False
        for item in items:
            if not item:
                continue
            m = _COUNT.fullmatch(item)
            name, count = (m.group(1), m.group(2)) if m else (item, "1")
            code = card_of(name)
            if code is None and m is not None:  # a name that ends in x: read it whole
                code, count = card_of(item), "1"
            if code is None:
                self.add("unknown-card", n, raw, word=name[:30], suggest=L("", ""))
                bad = True
                continue
            if len(count) > 3 or int(count) < 1:
                self.add("hand-bad-count", n, raw, item=item[:30])
                bad = True
                continue
            cards.extend([code] * int(count))
            if len(cards) > 100:
                break
        sec.hand_line = n
        sec.hand_raw = raw
        sec.hand = tuple(cards)
        if not bad and len(cards) != HAND_SIZE:
            self.add("hand-count", n, raw, count=len(cards))

    def rule(self, n: int, raw: str, s: str) -> None:
        b = self.block
        assert b is not None
        b.count += 1
        if b.count == MAX_RULES + 1:
            self.add("too-many-rules", n, raw, count=MAX_RULES + 1, limit=MAX_RULES)
        if b.count > MAX_RULES:
            return
        if len(s) > MAX_RULE:
            self.add("rule-too-long", n, raw, length=len(s), limit=MAX_RULE)
            return
        words = _words(s)
        if words:
            self.vote(words[0])
        try:
            event, conds, play, once = _Reader(words).rule()
        except _Err as exc:
            self.add(exc.code, n, raw, **exc.params)
            return
        b.rules.append(Rule(len(b.rules) + 1, n, s, event, conds, play, once))

    def run(self, text: str) -> None:
        if len(text) > MAX_CHARS:
            self.add(
                "orders-too-large",
                None,
                "",
                size=L(f"{len(text):,}文字", f"{len(text):,} characters"),
                limit=L(f"{MAX_CHARS:,}文字", f"{MAX_CHARS:,} characters"),
            )
            return
        nonblank = 0
        lines = text.splitlines()
        for n, raw in enumerate(lines, start=1):
            if self.stopped:
                return
            if not raw.strip():
                continue
            nonblank += 1
            if nonblank > MAX_LINES:
                self.add(
                    "orders-too-many-lines",
                    n,
                    raw,
                    count=nonblank + sum(1 for r in lines[n:] if r.strip()),
                    limit=MAX_LINES,
                )
                return
            if len(raw) > MAX_LINE:
                self.add(
                    "rule-too-long" if self.block is not None else "unknown-line",
                    n,
                    raw,
                    length=len(raw),
                    limit=MAX_RULE,
                )
                continue
            s = normalize(raw).strip()
            if s.startswith("#") or s.startswith("//"):
                continue
            if s.upper().startswith("MAGICALIZED"):  # the hand mail's command line (§4.2)
                continue
            if self.block is not None:
                if s.lower() in _WORD["END"]:
                    self.close_block()
                    continue
                head = s.split(" ", 1)[0].lower()
                if head in ("vs", "default", "hand", "orders") or s.startswith(_JA_HEADERS):
                    self.header(n, raw, s)
                    continue
                self.rule(n, raw, s)
                continue
            if not self.header(n, raw, s):
                self.add("unknown-line", n, raw)
        if self.block is not None:
            self.add("block-unclosed", self.block.line, self.block.raw, start=self.block.line)
            self.close_block()


def parse_orders(text: str, *, lang: str | None = None, default_lang: str = "ja") -> OrdersResult:
    """Read a hand-and-orders text (§4.2, §4.3, §5). Never raises for any value of ``text``.

    Args:
        text: the text (a non-``str`` is read as empty).
        lang: write the messages in this language (default: the text's keywords' language).
        default_lang: the language when the text gives no clue.

    Returns:
        An :class:`OrdersResult`: the sections (``orders`` is ``None`` on any error) and every
        problem with its line, the line quoted, the rule section and the fix, errors and
        warnings (a card not in the hand, an event that cannot occur, a version past turn 20,
        several sections with no DEFAULT).

    >>> r = parse_orders("HAND 無×2、覆、燃、凍、闇、策\\nORDERS\\nON enemy ACT 死 PLAY 無 enemy THIS\\nEND")
    >>> r.ok, r.orders.sections[0].orders.hand
    (True, ('無', '無', '覆', '燃', '凍', '闇', '策'))
    """
    p = _Parse()
    src = text if isinstance(text, str) else ""
    p.run(src)
    if not p.sections and not p.pending:
        p.add("orders-empty", None, "")
    for sec in p.sections:
        label = sec.vs if sec.vs is not None else "DEFAULT"
        if sec.hand is None and sec.versions:
            p.add("hand-missing", sec.line, "", section=label)
        if sec.hand is not None and not sec.versions:
            p.add("no-orders", sec.hand_line, sec.hand_raw, section=label)
        hand = set(sec.hand or ())
        for code, line, raw, params in sec.warn:
            p.add(code, line, raw, **params)
        for v in sec.versions:
            for r in v.rules:
                missing = [c for c in (r.play.card, *r.play.discards()) if c not in hand]
                if sec.hand is not None and missing:
                    p.add("card-not-in-hand", r.line, r.text, card=_card_label(missing[0]))
                why = _impossible(r.event)
                if why is not None:
                    p.add("impossible-event", r.line, r.text, why=why)
    if len(p.sections) > 1 and not any(s.vs is None for s in p.sections):
        p.add(
            "sections-without-default",
            None,
            "",
            names=", ".join(s.vs or "" for s in p.sections)[:80],
        )
    votes = p.votes
    text_lang = (
        ("en" if votes["en"] > votes["ja"] else "ja") if any(votes.values()) else default_lang
    )
    out_lang = lang or text_lang
    problems = tuple(
        sorted(
            (
                orders_problem(code, line, raw, out_lang, **params)
                for code, line, raw, params in p.pending
            ),
            key=lambda q: q.line if q.line is not None else 0,
        )
    )
    errors = any(q.severity == "error" for q in problems)
    orders = (
        None
        if errors
        else OrdersText(
            tuple(
                Section(s.vs, SideOrders(s.hand or (), tuple(s.versions)), s.line)
                for s in p.sections
            )
        )
    )
    return OrdersResult(orders, problems, out_lang)


def parse_revision(
    text: str, *, lang: str | None = None, default_lang: str = "ja"
) -> tuple[tuple[Version, ...] | None, tuple[Problem, ...], str]:
    """Read a checkpoint revision (§3.2, G53): only ``ORDERS FROM TURN t … END`` blocks, t
    increasing (the hand is fixed, so no ``HAND``, ``VS`` or ``DEFAULT``). Never raises.
    Returns ``(versions or None on any error, problems, language)``."""
    p = _Parse(revision=True)
    p.run(text if isinstance(text, str) else "")
    versions: list[Version] = []
    for sec in p.sections:
        for code, line, raw, params in sec.warn:
            p.add(code, line, raw, **params)
        versions.extend(sec.versions)
    if not versions and not p.pending:
        p.add("revision-needs-from", None, "")
    out_lang = lang or (
        ("en" if p.votes["en"] > p.votes["ja"] else "ja") if any(p.votes.values()) else default_lang
    )
    problems = tuple(
        sorted(
            (
                orders_problem(code, line, raw, out_lang, **params)
                for code, line, raw, params in p.pending
            ),
            key=lambda q: q.line if q.line is not None else 0,
        )
    )
    if any(q.severity == "error" for q in problems):
        return None, problems, out_lang
    return tuple(versions), problems, out_lang


def is_orders_text(text: str) -> bool:
    """True when ``text`` looks like a hand-and-orders text: a ``HAND`` line with cards after
    the word, or an ``ORDERS`` line alone or with ``FROM TURN t`` (手札…, 命令, 命令 第tターンから):
    a line of talk that merely starts with the word ("Orders are fun", 命令されたい) is not one.
    Linear in ``len(text)`` (the first 2,000 lines are looked at)."""
    if not isinstance(text, str):
        return False
    for i, raw in enumerate(text.splitlines()):
        if i >= MAX_LINES:
            break
        s = normalize(raw[:MAX_LINE]).strip()
        if not s:
            continue
        low = s.lower()
        for word, rest in (("hand", low[4:]), ("手札", s[2:])):
            if low.startswith(word) and rest[:1] in (" ", "\t", ":", "：") and rest.strip(" \t:："):
                return True
        for word, rest in (("orders", low[6:]), ("命令", s[2:])):
            if low.startswith(word):
                tail = re.sub(r"\s+", "", rest).lower()
                if not tail or _HEADER_FROM.fullmatch(tail):
                    return True
    return False


def orders_start(text: str) -> int | None:
    """The index (0-based) of the first line of ``text`` that begins a hand-and-orders text: a
    ``MAGICALIZED`` command line or a ``VS``/``DEFAULT``/``HAND``/``ORDERS`` header (対戦, 既定,
    手札, 命令), or ``None``. A mail that carries a sheet and then its orders is split there.
    Linear in ``len(text)`` (the first :data:`MAX_LINES` lines are looked at)."""
    if not isinstance(text, str):
        return None
    for i, raw in enumerate(text.split("\n")):
        if i >= MAX_LINES:
            break
        s = normalize(raw[:MAX_LINE]).strip()
        head = s.split(" ", 1)[0].lower() if s else ""
        if head in ("magicalized", "vs", "default", "hand", "orders") or s.startswith(_JA_HEADERS):
            return i
    return None


_COMMAND = re.compile(r"magicalized(?:\s+(?!hand\b)(\S+))?\s+hand(?:\s+(\S+))?\s*", re.IGNORECASE)


def orders_command(text: str) -> tuple[str | None, str | None] | None:
    """The league and the entry key of the hand mail's command line (§4.2: ``MAGICALIZED
    <league> HAND <entry key>``, the league and the key optional), or ``None`` without one.
    Only the first :data:`MAX_LINES` lines are looked at."""
    if not isinstance(text, str):
        return None
    for i, raw in enumerate(text.split("\n")):
        if i >= MAX_LINES:
            break
        m = _COMMAND.fullmatch(normalize(raw[:MAX_LINE]).strip())
        if m:
            return m.group(1), m.group(2)
    return None
