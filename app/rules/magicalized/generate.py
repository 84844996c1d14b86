"""Random valid Magicalized swordmasters and orders, for property tests and benchmarks.

The caller passes the random source (``random.Random(seed)`` or a Hypothesis-backed one), so this
module stays pure and reproducible. Every swordmaster is a legal list-1 sheet (途心 10; base
Margaret's generator over list 1); every orders text parses without an error
(``orders.parse_orders``): a hand of 7 and ``rules`` random rules over every event, condition and
card of §4.3, typical of what players write (the plays need not be legal when they come up: the
standing orders then skip them, G41).
"""

from __future__ import annotations

from app.rules.amaryllis.generate import Rng
from app.rules.margaret.generate import random_swordmaster as _margaret
from app.rules.margaret.model import Swordmaster
from app.rules.margaret.swords import SwordTable

from .notation import TABLE
from .swords import BY_CODE, CARD, CARD_CODES, HAND_SIZE, LIST1, LIST2, STATUSES

TABLE1 = SwordTable("magicalized-list-1", tuple(s for s in TABLE.swords if s.code in LIST1))
"""List 1 only: what a sheet may carry."""

_ATTACKS = tuple(c for c in LIST1 + LIST2 if BY_CODE[c].kind == 4)
_LIMITED = tuple(c for c in LIST1 + LIST2 if BY_CODE[c].limited)
_STATUS_EN = tuple(en for _, _, en in STATUSES)


def random_swordmaster(rng: Rng, name: str | None = None) -> Swordmaster:
    """A random legal list-1 swordmaster (``margaret.generate`` over :data:`TABLE1`)."""
    return _margaret(rng, name, table=TABLE1)


def _side(rng: Rng, any_ok: bool = True) -> str:
    return str(rng.choice(("my", "enemy", "any") if any_ok else ("my", "enemy")))


def _ref(rng: Rng) -> str:
    r = rng.random()
    side = _side(rng, False)
    if r < 0.5:
        return f"{side} THIS"
    if r < 0.8:
        copy = f"#{rng.randint(2, 3)}" if rng.random() < 0.1 else ""
        return f"{side} {rng.choice(LIST1)}{copy}"
    return f"{side} @{rng.randint(1, 6)}"


def _pos(rng: Rng) -> str:
    r = rng.random()
    if r < 0.3:
        return "AT END"
    if r < 0.5:
        return "AT FRONT"
    if r < 0.8:
        return f"AT {rng.randint(1, 6)}"
    return f"AT {rng.choice(('BEFORE', 'AFTER'))} my @{rng.randint(1, 4)}"


def random_play(rng: Rng, card: str | None = None, depth: int = 0) -> str:
    """A syntactically valid play text of ``card`` (random when ``None``)."""
    code = card or str(rng.choice(CARD_CODES))
    schema = CARD[code].schema
    if schema == "":
        return code
    if schema == "ref":
        return f"{code} {_ref(rng)}"
    if schema == "ref-enchant":
        return f"{code} {_ref(rng)} {rng.choice(('unseen', 'poisoning', 'stunning'))}"
    if schema == "trail":
        return f"{code} {_side(rng, False)} {rng.choice(CARD[code].swords)} {_pos(rng)}"
    if schema == "twilight":
        return (
            f"{code} DISCARD {rng.choice(CARD_CODES)} {_side(rng, False)} "
            f"{rng.choice(CARD[code].swords)} {_pos(rng)}"
        )
    if schema == "side":
        return f"{code} {_side(rng, False)}"
    if schema == "order":
        return f"{code} {_side(rng, False)} ORDER " + " ".join(
            rng.choice(LIST1) for _ in range(rng.randint(1, 3))
        )
    if schema == "statuses":
        parts = []
        for _ in range(rng.randint(1, 2)):
            parts.append(rng.choice(_STATUS_EN) + rng.choice(("", "", " ALL", " 2")))
        return f"{code} {_side(rng, False)} " + " ".join(parts)
    if schema == "counter":
        return f"{code} {_side(rng, False)} {rng.choice(CARD_CODES)}"
    inner = random_play(
        rng, str(rng.choice([c for c in CARD_CODES if depth < 1 or c != "虹"])), depth + 1
    )
    return f"{code} DISCARD {rng.choice(CARD_CODES)} AS {inner}"


def _event(rng: Rng) -> str:
    side = _side(rng)
    kind = rng.choice(
        (
            "ACT",
            "ACT",
            "ACT",
            "VANISH",
            "REFLECT",
            "HIT",
            "HIT",
            "HIT",
            "EFFECT",
            "DEATH",
            "CARD",
            "CARD",
        )
    )
    if kind == "ACT":
        r = rng.random()
        extra = (
            ""
            if r < 0.3
            else " WHIFF"
            if r < 0.35
            else " STUN"
            if r < 0.4
            else f" {rng.choice(LIST1 + LIST2)}"
        )
    elif kind == "VANISH":
        extra = f" {rng.choice(_LIMITED)}" if rng.random() < 0.5 else ""
    elif kind == "HIT":
        extra = f" {rng.choice(_ATTACKS)}" if rng.random() < 0.5 else ""
    elif kind == "EFFECT":
        r = rng.random()
        if r < 0.4:
            extra = ""
        elif r < 0.7:
            extra = f" {rng.choice(('Stun', 'Poison', 'Shield', 'Life'))}"
        else:
            extra = f" {rng.choice(LIST1)}"
    elif kind == "CARD":
        extra = f" {rng.choice([c for c in CARD_CODES if c != '策'])}"
    else:
        extra = ""
    return f"{side} {kind}{extra}"


def _cond(rng: Rng) -> str:
    r = rng.randint(0, 12)
    side = _side(rng, False)
    k = rng.randint(0, 12)
    neg = "NOT " if rng.random() < 0.15 else ""
    body = (
        f"damage >= {k}",
        f"{side} hp < {k * 2}",
        f"{_side(rng)} critical",
        f"{_side(rng)} has {rng.choice(_STATUS_EN)}",
        f"{_side(rng)} holds {rng.choice(LIST1)}",
        f"{_side(rng)} used {rng.choice(CARD_CODES)}",
        f"hand {rng.choice(CARD_CODES)}",
        "stack empty",
        f"stack has {rng.choice(CARD_CODES)}",
        f"targets {_side(rng)}",
        "lead",
        f"turn > {k}",
        f"{side} ap >= {k % 4}",
    )[r]
    return neg + body


def random_rule(rng: Rng, cards: tuple[str, ...] = CARD_CODES) -> str:
    """A random rule whose card is one of ``cards``."""
    conds = [_cond(rng) for _ in range(rng.choice((0, 0, 1, 1, 2)))]
    text = f"ON {_event(rng)}"
    if conds:
        text += " IF " + " AND ".join(conds)
    text += f" PLAY {random_play(rng, str(rng.choice(cards)))}"
    return text + (" ONCE" if rng.random() < 0.15 else "")


def random_orders_text(rng: Rng, rules: int | None = None, *, versions: int = 1) -> str:
    """A random valid hand-and-orders text: a hand of 7 and ``rules`` rules (10-20 when
    ``None``) in ``versions`` versions (later ones from increasing turns)."""
    hand = [str(rng.choice(CARD_CODES)) for _ in range(HAND_SIZE)]
    n = rules if rules is not None else rng.randint(10, 20)
    lines = ["HAND " + "、".join(hand)]
    start = 0
    for v in range(versions):
        if v:
            start += rng.randint(1, 6)
            lines.append(f"ORDERS FROM TURN {start}")
        else:
            lines.append("ORDERS")
        for _ in range(n):
            while True:
                rule = random_rule(rng, tuple(hand))
                if len(rule) <= 200:
                    break
            lines.append(rule)
        lines.append("END")
    return "\n".join(lines) + "\n"
