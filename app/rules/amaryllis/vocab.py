"""The words of the sheet notation, in Japanese and English. Source: rules §1.1-§1.3.

Matching is done on a *key*: the text after NFKC normalization (plus the explicit mappings of
``normalize``), lower-cased, with all whitespace removed. So ``Direct Attack``, ``direct attack``
and ``DIRECTATTACK`` are the same key, and ``ＨＰ減殺`` and ``HP減殺`` are too.
"""

from __future__ import annotations

import difflib
import functools
import re
import unicodedata
from typing import NamedTuple

from .model import ActionClass


class L(NamedTuple):
    """A message parameter with a Japanese and an English form."""

    ja: str
    en: str


# NFKC does not map these (rules §1.3 rulings); a few dashes and minus signs also become "-".
_EXTRA = str.maketrans(
    {
        "、": ",",
        "〈": "<",
        "〉": ">",
        "《": "<",
        "》": ">",
        "−": "-",
        "‐": "-",
        "‑": "-",
        "–": "-",
        "—": "-",
        "〜": "~",
        "\u3000": " ",
    }
)

_WS = re.compile(r"\s+")


def normalize(text: str) -> str:
    """NFKC plus the explicit mappings of rules §1.3 (``、`` → ``,``, ``〈〉《》`` → ``<>``, minus
    signs → ``-``). The result uses ASCII punctuation and digits."""
    return unicodedata.normalize("NFKC", text.translate(_EXTRA)).translate(_EXTRA)


def normalize_name(text: str) -> str:
    """A name as stored: ``normalize``, trimmed, inner runs of whitespace collapsed to one space."""
    return _WS.sub(" ", normalize(text)).strip()


def key(text: str) -> str:
    """The matching key of a class or customization word: normalized, lower-case, no spaces."""
    return _WS.sub("", normalize(text)).lower()


# Class words without N: key -> (class, language of the word).
CLASS_WORDS: dict[str, tuple[ActionClass, str]] = {
    "直接攻撃": (ActionClass.DIRECT, "ja"),
    "防御無視攻撃": (ActionClass.PIERCING, "ja"),
    "hp減殺": (ActionClass.HALVING, "ja"),
    "ガード与え": (ActionClass.GUARD, "ja"),
    "ガード付与": (ActionClass.GUARD, "ja"),
    "反射与え": (ActionClass.REFLECT, "ja"),
    "反射付与": (ActionClass.REFLECT, "ja"),
    "ライフ与え": (ActionClass.LIFE, "ja"),
    "ライフ付与": (ActionClass.LIFE, "ja"),
    "hp回復": (ActionClass.HEAL, "ja"),
    "hp全回復": (ActionClass.HEAL, "ja"),
    "directattack": (ActionClass.DIRECT, "en"),
    "direct": (ActionClass.DIRECT, "en"),
    "piercingattack": (ActionClass.PIERCING, "en"),
    "piercing": (ActionClass.PIERCING, "en"),
    "pierce": (ActionClass.PIERCING, "en"),
    "hphalving": (ActionClass.HALVING, "en"),
    "halving": (ActionClass.HALVING, "en"),
    "halvehp": (ActionClass.HALVING, "en"),
    "guard": (ActionClass.GUARD, "en"),
    "giveguard": (ActionClass.GUARD, "en"),
    "reflect": (ActionClass.REFLECT, "en"),
    "givereflect": (ActionClass.REFLECT, "en"),
    "life": (ActionClass.LIFE, "en"),
    "givelife": (ActionClass.LIFE, "en"),
    "fullheal": (ActionClass.HEAL, "en"),
    "heal": (ActionClass.HEAL, "en"),
}

# Prefixes of the +N classes: key -> (class, language).
N_CLASS_WORDS: dict[str, tuple[ActionClass, str]] = {
    "攻撃力": (ActionClass.ATK_UP, "ja"),
    "防御力": (ActionClass.DEF_UP, "ja"),
    "素早さ": (ActionClass.SPD_UP, "ja"),
    "atk": (ActionClass.ATK_UP, "en"),
    "attack": (ActionClass.ATK_UP, "en"),
    "def": (ActionClass.DEF_UP, "en"),
    "defense": (ActionClass.DEF_UP, "en"),
    "defence": (ActionClass.DEF_UP, "en"),
    "spd": (ActionClass.SPD_UP, "en"),
    "speed": (ActionClass.SPD_UP, "en"),
}

# Canonical spelling of each class per language; "{n}" is replaced by N.
CLASS_NAMES: dict[ActionClass, dict[str, str]] = {
    ActionClass.DIRECT: {"ja": "直接攻撃", "en": "Direct Attack"},
    ActionClass.PIERCING: {"ja": "防御無視攻撃", "en": "Piercing Attack"},
    ActionClass.HALVING: {"ja": "ＨＰ減殺", "en": "HP Halving"},
    ActionClass.ATK_UP: {"ja": "攻撃力＋{n}", "en": "ATK+{n}"},
    ActionClass.DEF_UP: {"ja": "防御力＋{n}", "en": "DEF+{n}"},
    ActionClass.SPD_UP: {"ja": "素早さ＋{n}", "en": "SPD+{n}"},
    ActionClass.GUARD: {"ja": "ガード与え", "en": "Guard"},
    ActionClass.REFLECT: {"ja": "反射与え", "en": "Reflect"},
    ActionClass.LIFE: {"ja": "ライフ与え", "en": "Life"},
    ActionClass.HEAL: {"ja": "ＨＰ回復", "en": "Full Heal"},
}

# Customizations: identifier -> canonical spelling per language ("{n}" replaced by N).
CUSTOM_NAMES: dict[str, dict[str, str]] = {
    "limited": {"ja": "リミテッド", "en": "Limited"},
    "delay": {"ja": "遅延起動{n}", "en": "Delay {n}"},
    "quick": {"ja": "高速起動", "en": "Quick"},
    "effect": {"ja": "効果{n}倍", "en": "Effect x{n}"},
    "stun": {"ja": "スタン与え", "en": "Stun"},
    "poison": {"ja": "毒与え", "en": "Poison"},
}

# Customization words without N: key -> (identifier, language).
CUSTOM_WORDS: dict[str, tuple[str, str]] = {
    "リミテッド": ("limited", "ja"),
    "高速起動": ("quick", "ja"),
    "スタン与え": ("stun", "ja"),
    "スタン付与": ("stun", "ja"),
    "毒与え": ("poison", "ja"),
    "毒付与": ("poison", "ja"),
    "limited": ("limited", "en"),
    "quick": ("quick", "en"),
    "stun": ("stun", "en"),
    "poison": ("poison", "en"),
}

# Customizations with N, on the key: (regex, identifier, language). The N group may be empty
# (reported as missing-n) or signed (reported as too small).
NUM = r"([+-]?[0-9]+)"
CUSTOM_PATTERNS: tuple[tuple[re.Pattern[str], str, str], ...] = (
    (re.compile(r"遅延起動(.*)"), "delay", "ja"),
    (re.compile(r"効果(.*)倍"), "effect", "ja"),
    (re.compile(r"delay(.*)"), "delay", "en"),
    (re.compile(r"effect[x×*]?(.*)"), "effect", "en"),
    (re.compile(r"[x×*]([+-]?[0-9]+)effect"), "effect", "en"),
)

STATUS_NAMES: dict[str, dict[str, str]] = {
    "life": {"ja": "ライフ", "en": "Life"},
    "guard": {"ja": "ガード", "en": "Guard"},
    "reflect": {"ja": "反射", "en": "Reflect"},
    "stun": {"ja": "スタン", "en": "Stun"},
    "poison": {"ja": "毒", "en": "Poison"},
}

_ZEN = str.maketrans("0123456789-+", "０１２３４５６７８９－＋")


def zen(text: str) -> str:
    """ASCII digits and signs to full width, as the Japanese notation writes numbers."""
    return text.translate(_ZEN)


def num(n: int, lang: str) -> str:
    """A number in ``lang``'s notation: full-width digits and minus (``－１``) for Japanese."""
    return zen(str(n)) if lang == "ja" else str(n)


def class_name(cls: ActionClass, n: int | None, lang: str) -> str:
    """The canonical spelling of a class, with N for the +N classes (``防御力＋２``, ``DEF+2``)."""
    word = CLASS_NAMES[cls][lang]
    return word.replace("{n}", num(n if n is not None else 0, lang)) if cls.takes_n else word


def custom_name(ident: str, n: int | None, lang: str) -> str:
    """The canonical spelling of a customization (``遅延起動４``, ``Effect x2``)."""
    word = CUSTOM_NAMES[ident][lang]
    return word.replace("{n}", num(n if n is not None else 0, lang))


@functools.cache
def all_class_names(lang: str) -> str:
    """Every class, canonical spelling, for messages (``攻撃力＋Ｎ`` style)."""
    sep = "、" if lang == "ja" else ", "
    return sep.join(
        CLASS_NAMES[c][lang].replace("{n}", "Ｎ" if lang == "ja" else "N") for c in ActionClass
    )


@functools.cache
def all_custom_names(lang: str) -> str:
    """Every customization, canonical spelling, in brackets, for messages."""
    if lang == "ja":
        return "".join("＜" + v["ja"].replace("{n}", "Ｎ") + "＞" for v in CUSTOM_NAMES.values())
    return " ".join("<" + v["en"].replace("{n}", "N") + ">" for v in CUSTOM_NAMES.values())


def suggest_class(class_key: str, lang: str) -> str | None:
    """The nearest class spelling (canonical, in ``lang``) for a mistyped class key, or None."""
    m = re.fullmatch(r"(.*?)\+?([+-]?[0-9]+)", class_key)
    if m:  # looks like a +N class with a bad prefix
        best = difflib.get_close_matches(m.group(1), list(N_CLASS_WORDS), n=1, cutoff=0.5)
        if best:
            return class_name(N_CLASS_WORDS[best[0]][0], int(m.group(2)), lang)
    candidates = list(CLASS_WORDS) + [k + "+n" for k in N_CLASS_WORDS]
    best = difflib.get_close_matches(class_key, candidates, n=1, cutoff=0.5)
    if not best:
        return None
    if best[0].endswith("+n"):
        cls = N_CLASS_WORDS[best[0][:-2]][0]
        return CLASS_NAMES[cls][lang].replace("{n}", "Ｎ" if lang == "ja" else "N")
    return CLASS_NAMES[CLASS_WORDS[best[0]][0]][lang]


def suggest_custom(custom_key: str, lang: str) -> str | None:
    """The nearest customization spelling (canonical, in ``lang``) for a mistyped key, or None."""
    stripped = re.sub(r"[0-9x×*+-]", "", custom_key)
    candidates = {
        **{k: v[0] for k, v in CUSTOM_WORDS.items()},
        "遅延起動": "delay",
        "効果倍": "effect",
        "delay": "delay",
        "effect": "effect",
    }
    best = difflib.get_close_matches(stripped, list(candidates), n=1, cutoff=0.5)
    if not best:
        return None
    digits = re.search(r"[0-9]+", custom_key)
    n = digits.group(0) if digits else ("Ｎ" if lang == "ja" else "N")
    word = CUSTOM_NAMES[candidates[best[0]]][lang].replace("{n}", zen(n) if lang == "ja" else n)
    return "＜" + word + "＞" if lang == "ja" else "<" + word + ">"
