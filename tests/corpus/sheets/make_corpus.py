"""Writes the sheet corpus (run by hand: python tests/corpus/sheets/make_corpus.py).

The expected problems of each bad sheet are in tests/rules/test_corpus.py."""

import pathlib

D = pathlib.Path(__file__).resolve().parent
G = D / "good"
D.mkdir(parents=True, exist_ok=True)
G.mkdir(exist_ok=True)

GRISK = """グリスク：１０／１／１／２／シールド、スピア、スピア、ブースト
・シールド（１）：防御力＋２＜リミテッド＞
・スピア（１）：直接攻撃＜遅延起動４＞＜効果２倍＞
・ブースト（１）：攻撃力＋１
"""
NUT = """ヌト：１０／３／１／１／命の剣、魔法剣、絶対剣
・命の剣（１）：ライフ与え＜リミテッド＞
・魔法剣（１）：ＨＰ減殺＜リミテッド＞＜遅延起動２＞
・絶対剣（１）：防御無視攻撃＜遅延起動３＞
"""
bad = {
    "01-class-typo-ja.txt": GRISK.replace("直接攻撃", "直接攻激"),
    "02-class-typo-en.txt": "Nut: 10/3/1/1/Sword\n- Sword (1): Peircing Attack <Delay 3>\n",
    "03-declared-cost-wrong.txt": GRISK.replace("シールド（１）", "シールド（２）"),
    "04-undefined-action.txt": GRISK.replace("スピア、スピア", "スピア、スピヤ"),
    "05-quick-with-delay.txt": "Grisk: 10/1/1/2/Spear\n- Spear: Direct Attack <Quick> <Delay 2>\n",
    "06-over-budget.txt": "グリスク：１０／２／２／２／槍、槍、盾\n・槍（３）：防御無視攻撃\n・盾（１）：ガード与え\n",
    "07-delay-1.txt": "Grisk: 10/1/1/2/Spear\n- Spear (1): Direct Attack <Delay 1>\n",
    "08-effect-x1-on-support.txt": "Grisk: 10/1/1/2/Boost\n- Boost (1): ATK+1 <Effect x1>\n",
    "09-hp-not-multiple-of-5.txt": GRISK.replace("１０／１／１／２", "１２／１／１／２"),
    "10-eleven-points-tech-stated.txt": "Grisk: 10/1/1/2/Boost\nTECH 5\n- Boost (1): ATK+1\n",
    "11-eleven-points.txt": "Grisk: 30/2/2/3/Boost\n- Boost (1): ATK+1\n",
    "12-negative-number.txt": "Grisk: 10/-1/1/2/Boost\n- Boost (1): ATK+1\n",
    "13-empty.txt": "",
    "14-ten-thousand-lines.txt": GRISK
    + "".join(f"# comment {i}\nhello {i}\n" for i in range(5000)),
    "16-shift-jis.txt": NUT.replace("ライフ与え＜リミテッド＞", "ライフ与え"),
    "17-huge-number.txt": "Grisk: 1" + "0" * 100 + "/1/1/2/Boost\n- Boost (1): ATK+1\n",
    "18-five-hundred-actions.txt": "Legion: 5/0/0/0/"
    + ", ".join(f"A{i}" for i in range(500))
    + "\n"
    + "".join(f"- A{i} (1): Guard\n" for i in range(500)),
    "19-life-not-limited.txt": NUT.replace("ライフ与え＜リミテッド＞", "ライフ与え"),
    "20-heal-not-limited-en.txt": "Medic: 20/1/1/1/Heal\n- Heal (2): Full Heal\n",
    "21-stun-on-support.txt": "Grisk: 10/1/1/2/Shield\n- Shield (2): Guard <Stun>\n",
    "22-poison-on-support-ja.txt": "グリスク：１０／１／１／２／盾\n・盾（２）：ガード与え＜毒与え＞\n",
    "23-limited-twice.txt": "Grisk: 10/1/1/2/Shield\n- Shield (1): DEF+2 <Limited> <Limited>\n",
    "24-delay-twice-ja.txt": "グリスク：１０／１／１／２／槍\n・槍：直接攻撃＜遅延起動２＞＜遅延起動３＞\n",
    "25-duplicate-definition.txt": GRISK + "・スピア（１）：直接攻撃\n",
    "26-empty-name-in-list.txt": GRISK.replace("スピア、スピア", "スピア、、スピア"),
    "27-unknown-line.txt": GRISK + "よろしくお願いします\n",
    "28-no-unit-line.txt": "・シールド（１）：防御力＋２＜リミテッド＞\n",
    "29-two-unit-lines.txt": GRISK + NUT,
    "30-customization-typo-ja.txt": GRISK.replace("＜リミテッド＞", "＜リミッテド＞"),
    "31-n-zero.txt": "Grisk: 10/1/1/2/Boost\n- Boost (0): ATK+0\n",
    "32-missing-n-ja.txt": "グリスク：１０／１／１／２／ブースト\n・ブースト：攻撃力＋Ｎ\n",
    "33-effect-without-n.txt": "Grisk: 10/1/1/2/Spear\n- Spear: Direct Attack <Effect>\n",
    "34-tech-line-twice.txt": "Grisk: 10/1/1/2/Boost\nTECH 4\nTECH 4\n- Boost (1): ATK+1\n",
    "35-five-numbers.txt": "Grisk: 10/1/1/2/4/Boost\n- Boost (1): ATK+1\n",
    "36-euc-jp.txt": GRISK.replace("遅延起動４", "遅延起動１"),
    "37-iso-2022-jp.txt": GRISK.replace("＜効果２倍＞", "＜効果１倍＞"),
    "38-unclosed-bracket.txt": "Grisk: 10/1/1/2/Spear\n- Spear: Direct Attack <Delay 4\n",
    "39-trailing-text.txt": "Grisk: 10/1/1/2/Spear\n- Spear: Direct Attack <Delay 4> please\n",
    "40-many-errors-at-once.txt": (
        "Grisk: 12/1/1/2/Shield, Spaer, Spear, Boost\n"
        "TECH 5\n"
        "- Shield (2): DEF+2 <Limitd>\n"
        "- Spear (1): Direct Atack <Delay 1> <Effect x2>\n"
        "- Boost: ATK+0 <Stun>\n"
        "- Life: Life\n"
        "- Boost: Guard\n"
        "hello world\n"
    ),
    "41-delay-0-ja.txt": "グリスク：１０／１／１／２／槍\n・槍：直接攻撃＜遅延起動０＞\n",
    "42-negative-declared-cost.txt": "Grisk: 10/1/1/2/Boost\n- Boost (-1): ATK+1\n",
    "43-effect-on-heal.txt": "Medic: 20/1/1/1/Heal\n- Heal: Full Heal <Limited> <Effect x2>\n",
    "44-quick-twice-ja.txt": "グリスク：１０／１／１／２／盾\n・盾：ガード与え＜高速起動＞＜高速起動＞\n",
    "45-missing-class.txt": "Grisk: 10/1/1/2/Boost\n- Boost (1):\n",
    "46-unit-without-name.txt": "：１０／１／１／２／ブースト\n・ブースト：攻撃力＋１\n",
    "47-three-numbers.txt": "Grisk: 10/1/1\n",
    "48-nearly-good-en.txt": "Grisk: 10/1/1/2/Shield, Spear, Spear, Boost\n- Shield (1): DEF+2 <Limited>\n- Spear (1): Direct Attack <Delay 4> <Effect x3>\n- Boost (1): ATK+1\n",
}
enc = {
    "16-shift-jis.txt": "shift_jis",
    "36-euc-jp.txt": "euc_jp",
    "37-iso-2022-jp.txt": "iso2022_jp",
}
for name, text in bad.items():
    (D / name).write_bytes(text.encode(enc.get(name, "utf-8")))
junk = bytes((i * 7919 + 13) % 256 for i in range(4096))
(D / "15-binary-junk.bin").write_bytes(junk)

good = {
    "grisk-seed.txt": GRISK,
    "nut-seed.txt": NUT,
    "grisk-en.txt": """Grisk: 10/1/1/2/Shield, Spear, Spear, Boost
TECH 4
- Shield (1): DEF+2 <Limited>
- Spear (1): Direct Attack <Delay 4> <Effect x2>
- Boost (1): ATK+1
""",
    "nut-en.txt": """# Nut, from the rules' example battle
Nut: 10/3/1/1/Life Sword, Magic Sword, Absolute Sword

- Life Sword (1): Life <Limited>
- Magic Sword (1): HP Halving <Limited> <Delay 2>
- Absolute Sword: Piercing Attack <Delay 3>
""",
    "grisk-halfwidth.txt": """グリスク:10/1/1/2/シールド,スピア,スピア,ブースト
技術:4
// half-width forms, no bullets
シールド(1):防御力+2<リミテッド>
スピア(1):直接攻撃〈遅延起動4〉《効果2倍》
ブースト:攻撃力+1
""",
    "every-class-en.txt": """Sampler: 5/0/0/0/Jab, Venom, Halve, Might, Wall, Guard, Mirror, Second Life, Heal
TECH 9
# Haste is defined but not set: a warning, not an error
- Jab (1): Direct Attack <Stun> <Limited>
- Venom (1): Piercing Attack <Poison> <Poison> <Limited> <Delay 12>
- Halve (1): HP Halving <Effect x2> <Limited> <Delay 6>
- Might (1): ATK+1
- Wall (1): DEF+2 <Limited>
- Haste (1): SPD+1
- Guard (1): Guard <Quick> <Limited>
- Mirror (1): Reflect <Limited> <Delay 2>
- Second Life (1): Life <Limited>
- Heal (1): Full Heal <Limited>
""",
}
for name, text in good.items():
    (G / name).write_text(text, encoding="utf-8")
(G / "grisk-seed-cp932.txt").write_bytes(GRISK.encode("cp932"))
