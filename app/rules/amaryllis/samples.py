"""Sample Amaryllis sheets: the seed's two units and two more (rules §1.3).

The opponents of a one-sheet test battle by mail (``Ruleset.sample_sheets``, read by
``app.mail.sheets.sample_units``).
"""

from __future__ import annotations

GRISK_JA = """グリスク：１０／１／１／２／シールド、スピア、スピア、ブースト
・シールド（１）：防御力＋２＜リミテッド＞
・スピア（１）：直接攻撃＜遅延起動４＞＜効果２倍＞
・ブースト（１）：攻撃力＋１"""

GRISK_EN = """Grisk: 10/1/1/2/Shield, Spear, Spear, Boost
- Shield (1): DEF+2 <Limited>
- Spear (1): Direct Attack <Delay 4> <Effect x2>
- Boost (1): ATK+1"""

NUT_JA = """ヌト：１０／３／１／１／命の剣、魔法剣、絶対剣
・命の剣（１）：ライフ与え＜リミテッド＞
・魔法剣（１）：ＨＰ減殺＜リミテッド＞＜遅延起動２＞
・絶対剣（１）：防御無視攻撃＜遅延起動３＞"""

MIRA_JA = """ミラ：１５／２／１／１／ガード、ガード、突き
・ガード（１）：ガード与え
・突き（１）：直接攻撃"""

BOLT_EN = """Bolt: 10/2/2/2/Spark, Spark
- Spark (1): Direct Attack"""

SAMPLES: tuple[str, ...] = (GRISK_JA, NUT_JA, MIRA_JA, BOLT_EN)
"""Valid sheets of the sample units, in the order the mail layer lists them."""
