"""Problems found on a sheet, and their messages in Japanese and English. Source: rules §1.3.

A :class:`Problem` carries a stable ``code`` plus the parameters of its message, so it can be
rendered again in another language (``localize``). Every code has a catalogue entry naming the rule
section it enforces, what is wrong, and how to fix it, in both languages.
"""

from __future__ import annotations

import unicodedata
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field, replace

from app.rules.base import ProblemLike

from .vocab import L

MAX_LISTED = 50
"""``format_problems`` lists at most this many problems, then says how many more there are."""

QUOTE_MAX = 100
"""Quoted lines are cut to this many characters."""

LONG_PARAM = 80
"""A fix's parameter at least this long (a list of every sword, every class) is printed once
per reply: a later problem that would repeat it points to the one above (``SEE_ABOVE``)."""
SEE_ABOVE = {"ja": "（上の一覧のとおり）", "en": "(see the list above)"}


@dataclass(frozen=True, slots=True)
class Problem:
    """One problem on a sheet (rules §1.3: line, quote, rule, fix).

    Attributes:
        code: stable identifier, e.g. ``unknown-class`` (see ``CATALOGUE``).
        line: 1-based line number, or ``None`` for the whole sheet.
        text: the offending line as written (control characters replaced, cut to ``QUOTE_MAX``).
        message: what is wrong, in ``lang``.
        fix: how to fix it, in ``lang``.
        severity: ``"error"`` (the sheet is rejected) or ``"warning"``.
        section: the rules section broken, e.g. ``"1.2"``.
        lang: the language of ``message`` and ``fix`` (``"ja"`` or ``"en"``).
        params: the message parameters as ``(name, Japanese form, English form)``, so that
            ``localize`` can render the problem again in the other language.
    """

    code: str
    line: int | None
    text: str
    message: str
    fix: str
    severity: str = "error"
    section: str = "1"
    lang: str = "ja"
    params: tuple[tuple[str, str, str], ...] = field(default=(), repr=False)


Entry = tuple[str, str, str, str, str, str]
"""A catalogue entry: (rules section, severity, ja message, ja fix, en message, en fix)."""

Catalogue = Mapping[str, Entry]
"""Problem code -> entry. Another ruleset of the family passes its own catalogue to
:func:`make_problem`, :func:`localize` and :func:`format_problems`."""

# code: (section, severity, ja message, ja fix, en message, en fix)
CATALOGUE: dict[str, Entry] = {
    "empty-sheet": (
        "1.3",
        "error",
        "シートが空です。",
        "ユニット行（例：グリスク：１０／１／１／２／シールド）と、アクションごとに１行ずつアクション行を書いてください。",
        "The sheet is empty.",
        "Write a unit line (e.g. Grisk: 10/1/1/2/Shield) and one line per action.",
    ),
    "too-large": (
        "1.3",
        "error",
        "シートが大きすぎます（{size}、上限{limit}）。",
        "シートだけを送ってください。",
        "The sheet is too large ({size}; the limit is {limit}).",
        "Send the sheet only.",
    ),
    "no-unit-line": (
        "1.3",
        "error",
        "ユニット行（名前：ＨＰ／攻撃力／防御力／素早さ／アクション、…）が見つかりません。",
        "例のように書いてください：グリスク：１０／１／１／２／シールド、スピア",
        "No unit line (Name: HP/ATK/DEF/SPD/action, action, …) was found.",
        "Write one like this: Grisk: 10/1/1/2/Shield, Spear",
    ),
    "duplicate-unit-line": (
        "1.3",
        "error",
        "ユニット行が２つ以上あります（最初のユニット行は{first}行目）。",
        "１枚のシートにユニットは１体です。余分なユニット行を消してください。",
        "There is more than one unit line (the first is on line {first}).",
        "A sheet holds one unit: delete the extra unit line.",
    ),
    "empty-unit-name": (
        "1.3",
        "error",
        "ユニットの名前がありません。",
        "「：」の前にユニットの名前を書いてください。",
        "The unit has no name.",
        "Write the unit's name before the colon.",
    ),
    "unit-line-numbers": (
        "1",
        "error",
        "ユニット行の数値は４つ（ＨＰ／攻撃力／防御力／素早さ）ですが、{count}個あります。",
        "ＨＰ／攻撃力／防御力／素早さの４つだけを書いてください。技術を書くときは別の行に「技術４」のように書きます。",
        "The unit line must give four numbers (HP/ATK/DEF/SPD) but gives {count}.",
        "Give exactly HP/ATK/DEF/SPD. To state TECH, put it on its own line, e.g. TECH 4.",
    ),
    "bad-number": (
        "1.3",
        "error",
        "{what}の「{value}」は整数ではありません。",
        "数字（半角でも全角でも可）だけで書いてください。",
        '{what} "{value}" is not a whole number.',
        "Write digits only.",
    ),
    "negative-number": (
        "1",
        "error",
        "{what}に負の数（{value}）は使えません。",
        "０以上の数にしてください。",
        "{what} cannot be negative ({value}).",
        "Use a number of 0 or more.",
    ),
    "number-too-large": (
        "1",
        "error",
        "{what}の数値が大きすぎます（{digits}桁、上限{limit}）。",
        "現実的な数にしてください（ボーナスは合計１０点です）。",
        "{what} is too large ({digits} digits; at most {limit}).",
        "Use a realistic number (there are only 10 bonus points).",
    ),
    "hp-not-multiple-of-5": (
        "1",
        "error",
        "ＨＰ{hp}が５の倍数ではありません（ＨＰはボーナス１点につき５です）。",
        "ＨＰを５の倍数（たとえば{lower}か{upper}）にしてください。",
        "HP {hp} is not a multiple of 5 (each bonus point gives 5 HP).",
        "Make HP a multiple of 5 (e.g. {lower} or {upper}).",
    ),
    "bonus-not-ten": (
        "1",
        "error",
        "ボーナスの合計がＨＰ{hp}÷５＋攻撃力{atk}＋防御力{defense}＋素早さ{spd}＋技術{tech}＝{total}で、１０ではありません。",
        "合計がちょうど１０になるように配分してください（技術を書かなければ残りが技術になります）。",
        "The bonus points add up to HP {hp}/5 + ATK {atk} + DEF {defense} + SPD {spd} + TECH {tech} = {total}, not 10.",
        "Distribute exactly 10 points (without a TECH line, TECH is whatever is left).",
    ),
    "bonus-over": (
        "1",
        "error",
        "ＨＰ{hp}÷５＋攻撃力{atk}＋防御力{defense}＋素早さ{spd}＝{total}で、ボーナス１０点を超えています。",
        "ＨＰ÷５・攻撃力・防御力・素早さの合計を１０以下にしてください。残りが技術になります。",
        "HP {hp}/5 + ATK {atk} + DEF {defense} + SPD {spd} = {total}, more than the 10 bonus points.",
        "Keep HP/5 + ATK + DEF + SPD at 10 or less; what is left is TECH.",
    ),
    "duplicate-tech-line": (
        "1",
        "error",
        "技術の行が２つ以上あります（最初は{first}行目）。",
        "技術の行は１つにしてください。",
        "TECH is stated more than once (first on line {first}).",
        "Keep a single TECH line.",
    ),
    "unknown-line": (
        "1.3",
        "error",
        "この行はユニット行・技術の行・アクション行・コメントのどれでもありません。",
        "アクション行は「・名前（コスト）：クラス＜カスタマイズ＞」の形です。不要な行は消すか、行頭に＃をつけてコメントにしてください。",
        "This line is none of: unit line, TECH line, action line, comment.",
        'An action line reads "- Name (cost): Class <customization>". Delete other lines or start them with # to make them comments.',
    ),
    "line-too-long": (
        "1.3",
        "error",
        "行が長すぎます（{length}文字、上限{limit}文字）。",
        "１行を短くしてください。",
        "The line is too long ({length} characters; at most {limit}).",
        "Shorten the line.",
    ),
    "too-many-problems": (
        "1.3",
        "error",
        "問題が多すぎるため、ここで読むのをやめました（{limit}件以上）。",
        "シートだけを送っているか確かめ、上の問題を直してからもう一度送ってください。",
        "Too many problems: reading stopped at this line ({limit} or more).",
        "Check that you sent only the sheet, fix the problems above and send it again.",
    ),
    "too-many-lines": (
        "1.3",
        "error",
        "行が多すぎます（空行以外{count}行、上限{limit}行）。",
        "シートだけを送ってください。",
        "The sheet has too many lines ({count} non-blank; at most {limit}).",
        "Send the sheet only.",
    ),
    "empty-action-name": (
        "1.3",
        "error",
        "アクションの並びに空の名前があります（「、」が続いているか、先頭か末尾にあります）。",
        "余分な「、」を消してください。",
        "The action list has an empty name (two commas in a row, or one at the start or end).",
        "Delete the extra comma.",
    ),
    "undefined-action": (
        "1.3",
        "error",
        "「{name}」がセットされていますが、アクション行で定義されていません。",
        "「・{name}（コスト）：クラス」の行を加えるか、名前を直してください。{suggest}",
        '"{name}" is set on the unit but no action line defines it.',
        'Add a line "- {name} (cost): Class" or correct the name.{suggest}',
    ),
    "missing-action-name": (
        "1.3",
        "error",
        "アクションの名前がありません。",
        "「：」の前にアクションの名前を書いてください。",
        "The action has no name.",
        "Write the action's name before the colon.",
    ),
    "duplicate-definition": (
        "1.3",
        "error",
        "アクション「{name}」は{first}行目ですでに定義されています。",
        "別の名前にするか、どちらかの行を消してください。",
        'Action "{name}" is already defined on line {first}.',
        "Rename one of them or delete one line.",
    ),
    "missing-class": (
        "1.1",
        "error",
        "アクションクラスが書かれていません。",
        "「：」の後にクラスを書いてください：{classes}",
        "No action class is given.",
        "Write a class after the colon: {classes}",
    ),
    "unknown-class": (
        "1.1",
        "error",
        "「{cls}」というアクションクラスはありません。",
        "{suggest}クラスは次のどれかです：{classes}",
        'There is no action class "{cls}".',
        "{suggest}The classes are: {classes}",
    ),
    "missing-n": (
        "1.2",
        "error",
        "「{word}」にはＮの数値が必要です。",
        "たとえば「{example}」のように数を書いてください。",
        '"{word}" needs a number N.',
        'Give the number, e.g. "{example}".',
    ),
    "n-too-small": (
        "1.1",
        "error",
        "{cls}のＮは１以上です（{n}と書かれています）。",
        "Ｎを１以上にしてください。",
        "N of {cls} must be at least 1 (it is {n}).",
        "Use N of 1 or more.",
    ),
    "unknown-customization": (
        "1.2",
        "error",
        "「{custom}」というカスタマイズはありません。",
        "{suggest}カスタマイズは次のどれかです：{customs}",
        'There is no customization "{custom}".',
        "{suggest}The customizations are: {customs}",
    ),
    "unclosed-bracket": (
        "1.2",
        "error",
        "カスタマイズの「＜」と「＞」が対応していません。",
        "カスタマイズは１つずつ＜＞で囲んでください。例：＜リミテッド＞＜遅延起動２＞",
        "The customization brackets < and > do not match.",
        "Put each customization in its own brackets, e.g. <Limited> <Delay 2>.",
    ),
    "trailing-text": (
        "1.2",
        "error",
        "カスタマイズの外に余分な文字「{extra}」があります。",
        "＜＞の外には何も書かないでください。",
        'Unexpected text "{extra}" outside the customization brackets.',
        "Write nothing outside the < > brackets after the class.",
    ),
    "customization-repeated": (
        "1.2",
        "error",
        "{custom}は１つのアクションに１回しかつけられません（{count}回あります）。",
        "{custom}を１つにしてください。",
        "{custom} can be given only once per action (it is given {count} times).",
        "Keep one {custom}.",
    ),
    "delay-too-small": (
        "1.2",
        "error",
        "遅延起動のＮは２以上です（{n}と書かれています）。",
        "＜遅延起動２＞以上にするか、外してください。",
        "Delay N must be at least 2 (it is {n}).",
        "Use <Delay 2> or more, or remove it.",
    ),
    "quick-with-delay": (
        "1.2",
        "error",
        "高速起動と遅延起動は同時につけられません。",
        "どちらか一方を外してください。",
        "Quick and Delay cannot be given together.",
        "Remove one of them.",
    ),
    "effect-too-small": (
        "1.2",
        "error",
        "効果Ｎ倍のＮは２以上です（{n}と書かれています）。",
        "＜効果２倍＞以上にするか、外してください。",
        "Effect ×N needs N of at least 2 (it is {n}).",
        "Use <Effect x2> or more, or remove it.",
    ),
    "attack-only": (
        "1.2",
        "error",
        "{custom}は攻撃アクション（直接攻撃・防御無視攻撃・ＨＰ減殺）にしかつけられませんが、{cls}は補助です。",
        "{custom}を外すか、攻撃クラスのアクションにつけてください。",
        "{custom} is for attacks only (Direct Attack, Piercing Attack, HP Halving); {cls} is a support.",
        "Remove {custom} or use it on an attack.",
    ),
    "must-be-limited": (
        "1.1",
        "error",
        "{cls}には＜リミテッド＞が必須です。",
        "＜リミテッド＞をつけてください（コストは÷２になります）。",
        "{cls} must be Limited.",
        "Add <Limited> (it halves the cost).",
    ),
    "declared-cost-mismatch": (
        "1.2",
        "error",
        "書かれたコスト{declared}と、計算したコスト{computed}が違います（{steps}）。",
        "（{computed}）と書くか、カスタマイズを見直してください。",
        "The cost written is {declared} but the computed cost is {computed} ({steps}).",
        "Write ({computed}) or change the customizations.",
    ),
    "over-budget": (
        "1.2",
        "error",
        "セットしたアクションのコスト合計{total}が技術{tech}を超えています。",
        "セットするアクションを減らすか、＜リミテッド＞や＜遅延起動Ｎ＞で安くしてください（内訳：{detail}）。",
        "The actions set cost {total} in total, more than TECH {tech}.",
        "Set fewer actions or make them cheaper with <Limited> or <Delay N> (costs: {detail}).",
    ),
    "unused-action": (
        "1.3",
        "warning",
        "アクション「{name}」は定義されていますが、ユニットにセットされていません。",
        "使うならユニット行のアクションの並びに加えてください。",
        'Action "{name}" is defined but not set on the unit.',
        "Add it to the action list on the unit line if you mean to use it.",
    ),
    "delay-never-usable": (
        "2.1",
        "warning",
        "遅延起動{n}は最終の第２０ターンより後なので、このアクションは使われません。",
        "Ｎを２０以下にしてください。",
        "Delay {n} starts after the last turn (20), so this action is never used.",
        "Use a Delay of 20 or less.",
    ),
}


def _fill(template: str, params: dict[str, str]) -> str:
    try:
        return template.format(**params)
    except (KeyError, IndexError, ValueError):  # a catalogue bug must not crash a reply
        return template


def make_problem(code: str, line: int | None, text: str, lang: str, **params: object) -> Problem:
    """Build a :class:`Problem` with its message and fix in ``lang`` (``"ja"``/``"en"``).

    ``params`` values may be ``vocab.L`` pairs (Japanese, English), ints (written with full-width
    digits in Japanese) or anything else (``str()`` in both languages).
    Raises ``KeyError`` for a code missing from ``CATALOGUE`` (a programming error).
    """
    return build_problem(CATALOGUE, code, line, text, lang, params)


def build_problem(
    catalogue: Catalogue,
    code: str,
    line: int | None,
    text: str,
    lang: str,
    params: Mapping[str, object],
) -> Problem:
    """:func:`make_problem` over another ruleset's ``catalogue``. Raises ``KeyError`` for a code
    missing from it."""
    triples = []
    for k, v in sorted(params.items()):
        if isinstance(v, L):
            triples.append((k, v.ja, v.en))
        elif isinstance(v, int):
            triples.append((k, _zen(str(v)), str(v)))
        else:
            triples.append((k, str(v), str(v)))
    return _render(code, line, quote(text), lang, tuple(triples), catalogue)


def _render(
    code: str,
    line: int | None,
    text: str,
    lang: str,
    triples: tuple[tuple[str, str, str], ...],
    catalogue: Catalogue = CATALOGUE,
) -> Problem:
    section, severity, ja_msg, ja_fix, en_msg, en_fix = catalogue[code]
    msg, fix = (ja_msg, ja_fix) if lang == "ja" else (en_msg, en_fix)
    p = {k: (ja if lang == "ja" else en) for k, ja, en in triples}
    return Problem(
        code=code,
        line=line,
        text=text,
        message=_fill(msg, p),
        fix=_fill(fix, p),
        severity=severity,
        section=section,
        lang=lang,
        params=triples,
    )


def localize(problem: Problem, lang: str, catalogue: Catalogue = CATALOGUE) -> Problem:
    """The same problem with ``message`` and ``fix`` rendered in ``lang`` (from ``catalogue``;
    a code it lacks is returned unchanged)."""
    if problem.lang == lang or problem.code not in catalogue:
        return problem
    return _render(problem.code, problem.line, problem.text, lang, problem.params, catalogue)


def quote(text: str) -> str:
    """``text`` made safe to quote in a reply: control characters shown as U+FFFD, cut to
    ``QUOTE_MAX`` characters with an ellipsis."""
    cut = text[: QUOTE_MAX + 1]
    cleaned = (
        cut
        if cut.isprintable()
        else "".join(
            "\ufffd" if (unicodedata.category(c) in ("Cc", "Cs", "Co", "Cn") and c != "\t") else c
            for c in cut
        )
    )
    if len(text) > QUOTE_MAX:
        cleaned = cleaned[:QUOTE_MAX] + "…"
    return cleaned


def format_problems(
    problems: Sequence[ProblemLike], lang: str, *, catalogue: Catalogue = CATALOGUE
) -> str:
    """Render problems as text, one block per problem: line number, quoted line, rule and fix.

    Errors come before warnings, each group in line order. At most ``MAX_LISTED`` blocks are
    printed, then a line saying how many more there are. A long list in a fix (``LONG_PARAM``:
    every sword of the league, …) is printed once; later fixes point to it. Rules §1.3.

    >>> p = make_problem("must-be-limited", 3, "- Life (1): Life", "en", cls="Life")
    >>> print(format_problems([p], "en"))
    Line 3: "- Life (1): Life"
      error (rules §1.1): Life must be Limited.
      fix: Add <Limited> (it halves the cost).
    """
    ordered = sorted(
        problems, key=lambda p: (p.severity != "error", p.line if p.line is not None else 0)
    )
    blocks: list[str] = []
    shown: set[str] = set()  # long lists already printed in a fix
    for p in ordered[:MAX_LISTED]:
        if isinstance(p, Problem):
            p = localize(p, lang, catalogue)
            fix = p.fix
            for _name, ja, en in p.params:
                value = ja if lang == "ja" else en
                if len(value) >= LONG_PARAM and value in fix:
                    if value in shown:
                        fix = fix.replace(value, SEE_ABOVE.get(lang, SEE_ABOVE["en"]))
                    shown.add(value)
            p = replace(p, fix=fix)
        if lang == "ja":
            where = f"{_zen(str(p.line))}行目：「{p.text}」" if p.line is not None else "シート全体"
            kind = "エラー" if p.severity == "error" else "警告"
            blocks.append(
                f"{where}\n  {kind}（ルール§{p.section}）：{p.message}\n  直し方：{p.fix}"
            )
        else:
            where = f'Line {p.line}: "{p.text}"' if p.line is not None else "Whole sheet"
            blocks.append(
                f"{where}\n  {p.severity} (rules §{p.section}): {p.message}\n  fix: {p.fix}"
            )
    rest = len(ordered) - MAX_LISTED
    if rest > 0:
        blocks.append(
            f"……ほか{_zen(str(rest))}件の問題があります。"
            if lang == "ja"
            else f"… and {rest} more problems."
        )
    return "\n".join(blocks)


_ZEN = str.maketrans("0123456789-+", "０１２３４５６７８９－＋")


def _zen(s: str) -> str:
    """ASCII digits and signs to full width (Japanese notation)."""
    return s.translate(_ZEN)
