"""Problems of a Margaret Hundred sheet, in Japanese and English.

The sheet reader is base Margaret's (``app.rules.margaret.notation``), so its problems are base
Margaret's, in the Amaryllis :class:`~app.rules.amaryllis.problems.Problem` shape; this
catalogue extends base Margaret's (``app.rules.margaret.problems.CATALOGUE``) with what Hundred
adds or words differently: the league's budget and cost table (H1), the pool, H60's dot, the
warnings of §12.11 (a period that never ends, a costless builder), and ``missing-n`` and
``unknown-code``, whose base texts speak only of 回N. Sections name ``rules/margaret-hundred.md``
(``3.1`` budget, ``3.2`` parameters, ``3.3`` notation, …); base Margaret's name
``rules/margaret.md``.
"""

from __future__ import annotations

from collections.abc import Sequence

from app.rules.amaryllis.problems import Entry, Problem, build_problem
from app.rules.amaryllis.problems import format_problems as _format
from app.rules.amaryllis.problems import localize as _localize
from app.rules.base import ProblemLike
from app.rules.margaret.problems import CATALOGUE as MARGARET

# code: (section, severity, ja message, ja fix, en message, en fix)
OWN: dict[str, Entry] = {
    "missing-n": (
        "3.2 H2",
        "error",
        "「{word}」にはＮの数が必要です。",
        "たとえば「{example}」のように数を書いてください（遅延剣は「遅.19」のように点のあとに書きます）。",
        '"{word}" needs its number N.',
        'Give the number, e.g. "{example}" (遅延剣 takes a dot first: 遅.19).',
    ),
    "unknown-code": (
        "3.3 H60",
        "error",
        "「{char}」という剣コードはありません。",
        "剣コードは次のどれかです：{codes}（数を添えるもの：回3、遅.19 など）",
        'There is no sword code "{char}".',
        "The codes are: {codes} (some take a number: 回3, 遅.19).",
    ),
    "not-in-pool": (
        "3.1",
        "error",
        "{sword}はこのリーグでは使えません（使える剣：{pool}）。",
        "この剣を外すか、使える剣に替えてください。",
        "{sword} is not allowed in this league (allowed: {pool}).",
        "Remove it or use an allowed sword.",
    ),
    "over-budget": (
        "3.1",
        "error",
        "合計{total}点で、予算{budget}点を超えています（{detail}）。",
        "HP・攻撃力・防御力・素早さか剣を減らして、合計を{budget}点以下にしてください。",
        "The total is {total} points, more than the budget of {budget} ({detail}).",
        "Lower HP, ATK, DEF, SPD or drop swords until the total is {budget} or less.",
    ),
    "skill-mismatch": (
        "3.1",
        "error",
        "剣技を書いた場合は HP{hp}÷5＋攻撃力{atk}＋防御力{defense}＋素早さ{spd}＋剣技{skill}＝{total} がちょうど{budget}点でなければなりません。",
        "剣技を{right}にするか、剣技の行を消してください（書かなければ残りが剣技です）。",
        "With SKILL stated, HP {hp}/5 + ATK {atk} + DEF {defense} + SPD {spd} + SKILL {skill} = {total} must be exactly {budget}.",
        "State SKILL {right}, or delete the SKILL line (then SKILL is whatever is left).",
    ),
    "skill-exceeded": (
        "3.1",
        "error",
        "剣のコスト合計{cost}が剣技{skill}を超えています。",
        "剣を減らすか、剣技を見直してください。",
        "The swords cost {cost}, more than SKILL {skill}.",
        "Carry fewer swords or change SKILL.",
    ),
    "unspent-points": (
        "3.1",
        "warning",
        "予算{budget}点のうち{left}点が使われていません。",
        "このままでも登録できます。剣を足すか能力値に振り分けられます。",
        "{left} of the {budget} points are unspent.",
        "The sheet is accepted as it is; you may add swords or raise a value.",
    ),
    "period-never-ends": (
        "3.2",
        "warning",
        "{sword}は第20ターンまで消えないので、次の剣を最後まで使用済みにし続けます（H2）。",
        "意図どおりならこのままで構いません。",
        "{sword} does not expire within 20 turns: it holds the next sword to the end (H2).",
        "Keep it if that is what you mean.",
    ),
    "costless-builder": (
        "4.6",
        "warning",
        "このリーグでは{sword}にMPコストがないため、毎ターン剣師をビルドし、パーティ上限（{cap}人）までHP判定を有利にします（H53）。",
        "このままでも登録できます。",
        "{sword} has no MP cost in this league, so it builds every turn up to the party cap ({cap}) and dominates HP judges (H53).",
        "The sheet is accepted as it is.",
    ),
    "delay-needs-dot": (
        "3.3",
        "error",
        "遅延剣のNの前には「.」が必要です（「{written}」、H60）。",
        "「{example}」と書いてください。",
        'The Delay Sword needs a dot before its N ("{written}", H60).',
        'Write "{example}".',
    ),
}

CATALOGUE: dict[str, Entry] = {**MARGARET, **OWN}
"""Every problem code of a Hundred sheet: base Margaret's, extended and partly reworded."""


def make_problem(code: str, line: int | None, text: str, lang: str, **params: object) -> Problem:
    """A :class:`Problem` from this catalogue (``amaryllis.problems.build_problem``)."""
    return build_problem(CATALOGUE, code, line, text, lang, params)


def localize(problem: Problem, lang: str) -> Problem:
    """``problem`` rendered again in ``lang``."""
    return _localize(problem, lang, CATALOGUE)


def format_problems(problems: Sequence[ProblemLike], lang: str) -> str:
    """One block per problem: line, quote, rule and fix (``amaryllis.problems.format_problems``)."""
    return _format(problems, lang, catalogue=CATALOGUE)
