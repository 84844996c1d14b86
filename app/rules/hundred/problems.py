"""Problems of a Margaret Hundred sheet, in Japanese and English.

The records are the Amaryllis :class:`~app.rules.amaryllis.problems.Problem` (code, line, quote,
message, fix, severity, rule section, language, parameters), built and rendered by the Amaryllis
functions with this :data:`CATALOGUE`: ``make_problem(…, catalogue=CATALOGUE)``,
``localize(p, lang, CATALOGUE)``, ``format_problems(ps, lang, catalogue=CATALOGUE)``. Sections
are those of ``rules/margaret-hundred.md`` (``3.1`` budget, ``3.2`` parameters, ``3.3``
notation, …) and ``rules/margaret.md`` for M1/M2 (written ``M1``).
"""

from __future__ import annotations

from collections.abc import Sequence

from app.rules.amaryllis import problems as _p
from app.rules.amaryllis.problems import Catalogue, Problem
from app.rules.base import ProblemLike

# code: (section, severity, ja message, ja fix, en message, en fix)
CATALOGUE: dict[str, tuple[str, str, str, str, str, str]] = {
    "empty-sheet": (
        "3.3", "error",
        "シートが空です。",
        "剣師の行を1行書いてください。例：{example}",
        "The sheet is empty.",
        "Write one swordmaster line, e.g. {example}",
    ),
    "too-large": (
        "3.3", "error",
        "シートが大きすぎます（{size}、上限{limit}）。",
        "シートだけを送ってください。",
        "The sheet is too large ({size}; the limit is {limit}).",
        "Send the sheet only.",
    ),
    "too-many-lines": (
        "3.3", "error",
        "行が多すぎます（空行以外{count}行、上限{limit}行）。",
        "剣師の行（と剣技の行）だけを送ってください。",
        "The sheet has too many lines ({count} non-blank; at most {limit}).",
        "Send the swordmaster line (and a SKILL line) only.",
    ),
    "line-too-long": (
        "3.3", "error",
        "行が長すぎます（{length}文字、上限{limit}文字）。",
        "1行を短くしてください。",
        "The line is too long ({length} characters; at most {limit}).",
        "Shorten the line.",
    ),
    "no-swordmaster-line": (
        "3.3", "error",
        "剣師の行が見つかりません。",
        "「名前：HP／攻撃力／防御力／素早さ／剣名、剣名…」か「HP/攻撃力/防御力/素早さ/剣コード/名前」の形で書いてください。例：{example}",
        "No swordmaster line was found.",
        "Write \"Name: HP/ATK/DEF/SPD/sword, sword, …\" or \"HP/ATK/DEF/SPD/codes/name\", e.g. {example}",
    ),
    "duplicate-swordmaster-line": (
        "3.3", "error",
        "剣師の行が2つ以上あります（最初は{first}行目）。",
        "1枚のシートに剣師は1人です（H60）。余分な行を消してください。",
        "There is more than one swordmaster line (the first is on line {first}).",
        "A sheet holds one swordmaster (H60): delete the extra line.",
    ),
    "unknown-line": (
        "3.3", "error",
        "この行は剣師の行でも剣技の行でもありません。",
        "シートに書けるのは剣師の行と剣技の行（例：剣技4）だけです（H60）。不要な行は消すか、行頭に＃をつけてコメントにしてください。",
        "This line is neither a swordmaster line nor a SKILL line.",
        "A sheet holds a swordmaster line and optionally a SKILL line (e.g. SKILL 4) (H60). Delete other lines or start them with # to make them comments.",
    ),
    "theki-notation": (
        "3.3", "error",
        "この行はアマリリスのユニットの書き方（THEKI式）で、マーガレットの剣コードではありません。",
        "ハンドレッドの剣コード（例：{example}）で書き直すか、アマリリスのリーグに送ってください。",
        "This line is an Amaryllis unit in THEKI's notation, not Margaret sword codes.",
        "Rewrite it with Hundred sword codes (e.g. {example}) or send it to an Amaryllis league.",
    ),
    "too-few-numbers": (
        "3.3", "error",
        "HP／攻撃力／防御力／素早さの4つの数値が必要ですが、{count}個しかありません。",
        "例のように書いてください：{example}",
        "HP/ATK/DEF/SPD need four numbers but {count} are given.",
        "Write it like this: {example}",
    ),
    "bad-number": (
        "3.3", "error",
        "{what}の「{value}」は整数ではありません。",
        "数字（半角でも全角でも可）だけで書いてください。",
        "{what} \"{value}\" is not a whole number.",
        "Write digits only.",
    ),
    "negative-number": (
        "3.1", "error",
        "{what}に負の数（{value}）は使えません。",
        "0以上の数にしてください。",
        "{what} cannot be negative ({value}).",
        "Use a number of 0 or more.",
    ),
    "number-too-large": (
        "3.1", "error",
        "{what}の数値が大きすぎます（{digits}桁）。",
        "予算の範囲の数にしてください。",
        "{what} is too large ({digits} digits).",
        "Use a number within the budget.",
    ),
    "hp-not-multiple-of-5": (
        "3.1", "error",
        "HP{hp}が5の倍数ではありません（HPは1点につき5です）。",
        "HPを5の倍数（たとえば{lower}か{upper}）にしてください。",
        "HP {hp} is not a multiple of 5 (each point gives 5 HP).",
        "Make HP a multiple of 5 (e.g. {lower} or {upper}).",
    ),
    "empty-name": (
        "3.3", "error",
        "剣師の名前がありません。",
        "「：」の前に名前を書いてください（名前を書かないなら「HP/攻撃力/防御力/素早さ/剣コード」の形にします）。",
        "The swordmaster has no name.",
        "Write the name before the colon (or use the compact form HP/ATK/DEF/SPD/codes, where the name is optional).",
    ),
    "empty-sword-name": (
        "3.3", "error",
        "剣の並びに空の名前があります（「、」が続いているか、先頭か末尾にあります）。",
        "余分な「、」を消してください。",
        "The sword list has an empty name (two commas in a row, or one at the start or end).",
        "Delete the extra comma.",
    ),
    "unknown-sword": (
        "4", "error",
        "「{name}」という剣はありません。",
        "{suggest}剣名は{pool}のどれかです（コードを使うなら「HP/攻撃力/防御力/素早さ/コード」の形で）。",
        "There is no sword \"{name}\".",
        "{suggest}Sword names are those of {pool} (codes go in the compact form HP/ATK/DEF/SPD/codes).",
    ),
    "unknown-code": (
        "3.3", "error",
        "「{ch}」という剣コードはありません（剣コードの{position}文字目）。",
        "コードは次のどれかです：{codes}",
        "There is no sword code \"{ch}\" (character {position} of the codes).",
        "The codes are: {codes}",
    ),
    "missing-n": (
        "3.2", "error",
        "{sword}にはNの数値が必要です（H2）。",
        "たとえば「{example}」のように数を書いてください（Nは{min}以上）。",
        "{sword} needs a number N (H2).",
        "Give the number, e.g. \"{example}\" (N is at least {min}).",
    ),
    "n-too-small": (
        "3.2", "error",
        "{sword}のNは{min}以上です（{n}と書かれています、H2）。",
        "「{example}」のようにNを{min}以上にしてください。",
        "N of {sword} must be at least {min} (it is {n}, H2).",
        "Use N of {min} or more, e.g. \"{example}\".",
    ),
    "n-too-large": (
        "3.2", "error",
        "{sword}のNが大きすぎます。",
        "Nは6桁までにしてください。",
        "N of {sword} is too large.",
        "Use at most 6 digits.",
    ),
    "delay-needs-dot": (
        "3.3", "error",
        "遅延剣のNの前には「.」が必要です（「{written}」、H60）。",
        "「{example}」と書いてください。",
        "The Delay Sword needs a dot before its N (\"{written}\", H60).",
        "Write \"{example}\".",
    ),
    "not-in-pool": (
        "3.1", "error",
        "{sword}はこのリーグでは使えません（使える剣：{pool}）。",
        "この剣を外すか、使える剣に替えてください。",
        "{sword} is not allowed in this league (allowed: {pool}).",
        "Remove it or use an allowed sword.",
    ),
    "over-budget": (
        "3.1", "error",
        "合計{total}点で、予算{budget}点を超えています（{detail}）。",
        "HP・攻撃力・防御力・素早さか剣を減らして、合計を{budget}点以下にしてください。",
        "The total is {total} points, more than the budget of {budget} ({detail}).",
        "Lower HP, ATK, DEF, SPD or drop swords until the total is {budget} or less.",
    ),
    "duplicate-skill-line": (
        "3.1", "error",
        "剣技の行が2つ以上あります（最初は{first}行目）。",
        "剣技の行は1つにしてください。",
        "SKILL is stated more than once (first on line {first}).",
        "Keep a single SKILL line.",
    ),
    "skill-mismatch": (
        "3.1", "error",
        "剣技を書いた場合は HP{hp}÷5＋攻撃力{atk}＋防御力{defense}＋素早さ{spd}＋剣技{skill}＝{total} がちょうど{budget}点でなければなりません。",
        "剣技を{right}にするか、剣技の行を消してください（書かなければ残りが剣技です）。",
        "With SKILL stated, HP {hp}/5 + ATK {atk} + DEF {defense} + SPD {spd} + SKILL {skill} = {total} must be exactly {budget}.",
        "State SKILL {right}, or delete the SKILL line (then SKILL is whatever is left).",
    ),
    "skill-exceeded": (
        "3.1", "error",
        "剣のコスト合計{cost}が剣技{skill}を超えています。",
        "剣を減らすか、剣技を見直してください。",
        "The swords cost {cost}, more than SKILL {skill}.",
        "Carry fewer swords or change SKILL.",
    ),
    "unspent-points": (
        "3.1", "warning",
        "予算{budget}点のうち{left}点が使われていません。",
        "このままでも登録できます。剣を足すか能力値に振り分けられます。",
        "{left} of the {budget} points are unspent.",
        "The sheet is accepted as it is; you may add swords or raise a value.",
    ),
    "never-active": (
        "3.2", "warning",
        "{sword}は第{n}ターンからなので、通常の20ターンの戦闘では使われません（H2）。",
        "Nを20以下にしてください（星霜剣や導来剣で早まる場合はこのままで構いません）。",
        "{sword} is usable from turn {n}, after the last regular turn (20): it is never used (H2).",
        "Use N of 20 or less (keep it if 星霜剣 or 導来剣 bring it earlier).",
    ),
    "period-never-ends": (
        "3.2", "warning",
        "{sword}は第20ターンまで消えないので、次の剣を最後まで使用済みにし続けます（H2）。",
        "意図どおりならこのままで構いません。",
        "{sword} does not expire within 20 turns: it holds the next sword to the end (H2).",
        "Keep it if that is what you mean.",
    ),
    "costless-builder": (
        "4.6", "warning",
        "このリーグでは{sword}にMPコストがないため、毎ターン剣師をビルドし、パーティ上限（{cap}人）までHP判定を有利にします（H53）。",
        "このままでも登録できます。",
        "{sword} has no MP cost in this league, so it builds every turn up to the party cap ({cap}) and dominates HP judges (H53).",
        "The sheet is accepted as it is.",
    ),
    "never-fires": (
        "12.11", "warning",
        "{swords}は使われない見込みです：その前に毎ターン使える剣が素早さ（{spd}）以上あり、APが届きません（あいざわ病）。",
        "並び順を見直してください。この判定はAPの増加や剣の変化を考えない目安なので、外れることがあります。",
        "{swords} will likely never fire: at least SPD ({spd}) swords before them are usable every turn, so AP never reaches them (\"Aizawa's disease\").",
        "Check the order. This heuristic ignores AP gains and list changes, so it can be wrong.",
    ),
    "never-acts": (
        "3.1", "warning",
        "素早さが0なので、この剣師は一度も行動しません（APは素早さと同じ）。",
        "剣を使うなら素早さを1以上にしてください。",
        "SPD is 0, so this swordmaster never acts (AP = SPD).",
        "Give it SPD 1 or more if it is to use its swords.",
    ),
    "too-many-problems": (
        "3.3", "error",
        "問題が多すぎるため、ここで読むのをやめました（{limit}件以上）。",
        "シートだけを送っているか確かめてください。",
        "Too many problems: reading stopped at this line ({limit} or more).",
        "Check that you sent only the sheet.",
    ),
}

_CAT: Catalogue = CATALOGUE


def make_problem(code: str, line: int | None, text: str, lang: str, **params: object) -> Problem:
    """A :class:`Problem` from this catalogue (see ``amaryllis.problems.make_problem``)."""
    return _p.make_problem(code, line, text, lang, catalogue=_CAT, **params)


def localize(problem: Problem, lang: str) -> Problem:
    """``problem`` rendered again in ``lang``."""
    return _p.localize(problem, lang, _CAT)


def format_problems(problems: Sequence[ProblemLike], lang: str) -> str:
    """One block per problem: line, quote, rule and fix (``amaryllis.problems.format_problems``)."""
    return _p.format_problems(problems, lang, catalogue=_CAT)
