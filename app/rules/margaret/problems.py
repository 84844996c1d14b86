"""Problems of a base Margaret sheet, with their messages in Japanese and English.

Same shape and machinery as Amaryllis (``app.rules.amaryllis.problems``: a :class:`Problem` per
finding, with its code, line, quoted text, rule section, message and fix, rendered again in the
other language on demand); only the catalogue differs. Sections name ``rules/margaret.md``: the
section and, where one applies, the ruling (``4.4 M7``). The limits and number checks the two
notations share keep the Amaryllis wording.
"""

from __future__ import annotations

from collections.abc import Sequence

from app.rules.amaryllis.problems import CATALOGUE as AMARYLLIS
from app.rules.amaryllis.problems import Entry, Problem, build_problem, format_problems
from app.rules.base import ProblemLike

_SHARED = {
    # Amaryllis code: the rules/margaret.md section it enforces here
    "too-large": "4.4 M7",
    "too-many-lines": "4.4 M7",
    "line-too-long": "4.4 M7",
    "too-many-problems": "4.4 M7",
    "bad-number": "4.4",
    "number-too-large": "1 M1",
    "negative-number": "1 M1",
    "hp-not-multiple-of-5": "1 M1",
}


def _shared(code: str, section: str) -> Entry:
    _, severity, ja_msg, ja_fix, en_msg, en_fix = AMARYLLIS[code]
    return section, severity, ja_msg, ja_fix, en_msg, en_fix


CATALOGUE: dict[str, Entry] = {
    **{code: _shared(code, section) for code, section in _SHARED.items()},
    "empty-sheet": (
        "4.4 M7",
        "error",
        "シートが空です。",
        "剣師の行を１行書いてください。例：徘徊するライカ：15/0/1/2/加速剣、加熱剣、衝撃剣、絶対剣　または　15/0/1/2/速熱衝絶/徘徊するライカ",
        "The sheet is empty.",
        "Write one swordmaster line, e.g. Laika: 15/0/1/2/Haste Sword, Heat Sword, Shock Sword, Absolute Sword or 15/0/1/2/速熱衝絶/Laika",
    ),
    "no-swordmaster-line": (
        "4.4 M7",
        "error",
        "剣師の行（名前：ＨＰ／攻撃力／防御力／素早さ／剣名、…　または　ＨＰ／攻撃力／防御力／素早さ／剣コード／名前）が見つかりません。",
        "例のように書いてください：徘徊するライカ：15/0/1/2/加速剣、加熱剣、衝撃剣、絶対剣",
        "No swordmaster line (Name: HP/ATK/DEF/SPD/sword, sword, … or HP/ATK/DEF/SPD/codes/name) was found.",
        "Write one like this: Laika: 15/0/1/2/Haste Sword, Heat Sword, Shock Sword, Absolute Sword",
    ),
    "duplicate-swordmaster-line": (
        "4.4 M7",
        "error",
        "剣師の行が２つ以上あります（最初の剣師の行は{first}行目）。",
        "１枚のシートに剣師は１人です。余分な行を消してください。",
        "There is more than one swordmaster line (the first is on line {first}).",
        "A sheet holds one swordmaster: delete the extra line.",
    ),
    "extra-line": (
        "4.4 M7",
        "error",
        "この行は剣師の行でも剣技の行でもありません（シートは剣師の行１行と、書くなら剣技の行だけです）。",
        "不要な行は消すか、行頭に＃をつけてコメントにしてください。",
        "This line is neither the swordmaster line nor the SKILL line (a sheet is one swordmaster line, plus an optional SKILL line).",
        "Delete it, or start it with # to make it a comment.",
    ),
    "theki-notation": (
        "4.4",
        "error",
        "これはTHEKI表記のアマリリスのユニットです（６番目の欄が「記号:名前:定義」の並び）。マーガレットの剣とは読み方が違います。",
        "マーガレットの剣師として書くなら、剣コード（{codes}）か剣名で書いてください。例：15/0/1/2/速熱衝絶/徘徊するライカ",
        "This is an Amaryllis unit in THEKI's notation (its sixth field holds label:name:definition items); it does not read as Margaret swords.",
        "To enter a Margaret swordmaster, write sword codes ({codes}) or sword names, e.g. 15/0/1/2/速熱衝絶/Laika",
    ),
    "empty-name": (
        "4.1",
        "error",
        "剣師の名前がありません。",
        "「：」の前に名前を書いてください（名前のない剣師は 15/0/1/2/速熱衝絶 のように短縮表記で書けます）。",
        "The swordmaster has no name.",
        "Write the name before the colon (a swordmaster without a name is written in the compact form, e.g. 15/0/1/2/速熱衝絶).",
    ),
    "swordmaster-line-numbers": (
        "4.4 M7",
        "error",
        "剣師の行はＨＰ／攻撃力／防御力／素早さの４つの数で始まりますが、{count}個しかありません。",
        "「15/0/1/2/剣コード/名前」か「名前：15/0/1/2/剣名、剣名」の形にしてください。",
        "A swordmaster line starts with four numbers, HP/ATK/DEF/SPD, but this one gives {count}.",
        'Write "15/0/1/2/codes/name" or "Name: 15/0/1/2/sword, sword".',
    ),
    "extra-field": (
        "4.1",
        "error",
        "剣の並びの後に余分な欄「{extra}」があります（名前は「：」の前に書きます）。",
        "剣の並びの後ろの「／」以降を消してください。",
        'Unexpected field "{extra}" after the sword list (the name goes before the colon).',
        'Delete the "/" and what follows the sword list.',
    ),
    "duplicate-skill-line": (
        "1 M2",
        "error",
        "剣技の行が２つ以上あります（最初は{first}行目）。",
        "剣技の行は１つにしてください。",
        "SKILL is stated more than once (first on line {first}).",
        "Keep a single SKILL line.",
    ),
    "bonus-over": (
        "1 M1",
        "error",
        "ＨＰ{hp}÷５＋攻撃力{atk}＋防御力{defense}＋素早さ{spd}＋剣{swords}本＝{total}で、１０点を超えています。",
        "合計が１０点以下になるように、能力値か剣を減らしてください。",
        "HP {hp}/5 + ATK {atk} + DEF {defense} + SPD {spd} + {swords} swords = {total}, more than 10 points.",
        "Lower an ability or carry fewer swords so that the total is 10 or less.",
    ),
    "bonus-not-ten": (
        "1 M2",
        "error",
        "ＨＰ{hp}÷５＋攻撃力{atk}＋防御力{defense}＋素早さ{spd}＋剣技{skill}＝{total}で、１０ではありません。",
        "剣技を書くときは、合計がちょうど１０になるようにしてください（書かなければ残りが剣技になります）。",
        "HP {hp}/5 + ATK {atk} + DEF {defense} + SPD {spd} + SKILL {skill} = {total}, not 10.",
        "With a SKILL line the total must be exactly 10 (without one, SKILL is what is left).",
    ),
    "too-many-swords": (
        "1 M2",
        "error",
        "剣が{swords}本ありますが、剣技は{skill}です（剣技１につき剣１本）。",
        "剣を{skill}本以下にするか、剣技の行を直してください。",
        "The swordmaster carries {swords} swords but its SKILL is {skill} (one sword per point).",
        "Carry {skill} swords or fewer, or correct the SKILL line.",
    ),
    "unspent-points": (
        "1 M1",
        "warning",
        "使っていないポイントが{unspent}点あります（剣技{skill}に対して剣{swords}本）。",
        "このままでも受け付けます。剣を{unspent}本足すか、能力値に回すこともできます。",
        "{unspent} point(s) are unspent (SKILL {skill}, {swords} swords).",
        "The sheet is accepted as it is; you may add {unspent} sword(s) or raise an ability instead.",
    ),
    "unknown-code": (
        "4.4 M7",
        "error",
        "「{char}」という剣コードはありません。",
        "剣コードは次のどれかです：{codes}（回Nには数を添えます、例：回3）",
        'There is no sword code "{char}".',
        "The codes are: {codes} (回N takes a number, e.g. 回3).",
    ),
    "unknown-sword": (
        "2.2",
        "error",
        "「{sword}」という剣はありません。",
        "{suggest}剣は次のどれかです：{names}",
        'There is no sword "{sword}".',
        "{suggest}The swords are: {names}",
    ),
    "empty-sword-name": (
        "4.1 M8",
        "error",
        "剣の並びに空の名前があります（「、」が続いているか、先頭か末尾にあります）。",
        "余分な「、」を消してください。",
        "The sword list has an empty name (two commas in a row, or one at the start or end).",
        "Delete the extra comma.",
    ),
    "missing-n": (
        "2.2 M5",
        "error",
        "「{word}」にはＮ（何ターン目から使えるか）が必要です。",
        "たとえば「{example}」のように数を書いてください。",
        '"{word}" needs its N (the turn from which it is usable).',
        'Give the number, e.g. "{example}".',
    ),
    "n-too-small": (
        "2.2 M5",
        "error",
        "{word}のＮは{min}以上です（{n}と書かれています）。",
        "Ｎを{min}以上にしてください。",
        "N of {word} must be at least {min} (it is {n}).",
        "Use N of {min} or more.",
    ),
    "never-usable": (
        "4.5 M5",
        "warning",
        "{word}は第{n}ターンからしか使えず、最終の第２０ターンより後なので使われません。",
        "Ｎを２０以下にしてください。",
        "{word} is usable only from turn {n}, after the last turn (20), so it never fires.",
        "Use N of 20 or less.",
    ),
    "spd-zero": (
        "4.5",
        "warning",
        "素早さが０なので、ＡＰがなく、剣は１本も実行されません。",
        "素早さを１以上にすると剣が使えます。",
        "SPD is 0, so the swordmaster has no AP and never executes a sword.",
        "Give it SPD 1 or more to use its swords.",
    ),
    "unreachable-sword": (
        "4.5",
        "warning",
        "{swords}はおそらく使われません（あいざわ病）：その前に、毎ターン使える剣（リミテッドでも遅延起動でもなく、素早さを変えない剣）が素早さと同じ{spd}本以上並んでいて、ＡＰが届きません。戦闘を追わない推定です（スタンや剣の消滅は考えていません）。",
        "使いたい剣を前に並べるか、その前の剣を減らしてください。",
        '{swords} will probably never fire ("Aizawa syndrome"): at least as many swords as its SPD ({spd}) stand before it that are usable every turn (neither Limited nor delayed, and not changing SPD), so the AP never reaches it. This is an estimate that does not play the battle (Stun, swords used up).',
        "Put the swords you want to use earlier, or carry fewer swords before them.",
    ),
}
"""Every problem code of a base Margaret sheet: (section, severity, ja message, ja fix,
en message, en fix)."""


def problem(code: str, line: int | None, text: str, lang: str, **params: object) -> Problem:
    """A Margaret :class:`Problem` (``build_problem`` over :data:`CATALOGUE`)."""
    return build_problem(CATALOGUE, code, line, text, lang, params)


def format_margaret_problems(problems: Sequence[ProblemLike], lang: str) -> str:
    """One block per problem: line, quote, rule (``rules/margaret.md`` §…), fix; errors first."""
    return format_problems(problems, lang, catalogue=CATALOGUE)
