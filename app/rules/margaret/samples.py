"""Sample base Margaret swordmasters: the legal 10-point sheets of ``rules/margaret.md`` §6 (build
targets printed in seed 000, all base swords) and 日路 [R], each in full and compact form."""

from __future__ import annotations

SWORDMASTERS: tuple[tuple[str, str, str], ...] = (
    # (name, full form after the colon, compact codes) — rules/margaret.md §6
    (
        "デスエリーナ",
        "5/0/0/3/加速剣、加護剣、加護剣、衝撃剣、衝撃剣、デス剣",
        "5/0/0/3/速護護衝衝デ",
    ),
    ("あいざわ", "15/0/4/1/斬撃剣、デス剣", "15/0/4/1/斬デ"),
    ("紫電", "5/0/0/4/加速剣、衝撃剣、加熱剣、衝撃剣、加熱剣", "5/0/0/4/速衝熱衝熱"),
    ("無考オランダ", "5/3/0/3/デス剣、デス剣、デス剣", "5/3/0/3/デデデ"),
    ("しゃるる", "5/3/0/2/高速剣、高速剣、蟲毒剣、蟲毒剣", "5/3/0/2/高高毒毒"),
    ("るーしえ君", "40/0/0/1/デス剣", "40/0/0/1/デ"),
    ("徘徊するライカ", "15/0/1/2/加速剣、加熱剣、衝撃剣、絶対剣", "15/0/1/2/速熱衝絶"),
    ("コウ", "5/5/0/2/高速剣、高速剣", "5/5/0/2/高高"),
    ("武本吉宏", "10/0/0/3/加速剣、加熱剣、加熱剣、加熱剣、重撃剣", "10/0/0/3/速熱熱熱重"),
    ("日路", "5/0/0/3/加速剣、加速剣、魔法剣、加熱剣、衝撃剣、絶対剣", "5/0/0/3/速速魔熱衝絶"),
)

FULL: tuple[str, ...] = tuple(f"{name}：{full}" for name, full, _ in SWORDMASTERS)
"""The samples in full form: ``徘徊するライカ：15/0/1/2/加速剣、加熱剣、衝撃剣、絶対剣``."""

COMPACT: tuple[str, ...] = tuple(f"{codes}/{name}" for name, _, codes in SWORDMASTERS)
"""The samples in compact form: ``15/0/1/2/速熱衝絶/徘徊するライカ``."""

EXAMPLE_JA = "徘徊するライカ：15/0/1/2/加速剣、加熱剣、衝撃剣、絶対剣"
EXAMPLE_EN = "Laika: 15/0/1/2/Haste Sword, Heat Sword, Shock Sword, Absolute Sword"
