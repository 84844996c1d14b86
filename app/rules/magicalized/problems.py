"""Problems of a Magicalized sheet and of a hand-and-orders text, in Japanese and English.

Same shape and machinery as the rest of the family (``app.rules.amaryllis.problems``: a
:class:`~app.rules.amaryllis.problems.Problem` per finding with its code, line, quoted text, rule
section, message and fix, rendered again in the other language on demand). Sheets use base
Margaret's catalogue plus :data:`SHEET_OWN`; orders use :data:`ORDERS_CATALOGUE`. Sections name
``rules/margaret-magicalized.md``: a section and, where one applies, the ruling (``4.3 G56``).
"""

from __future__ import annotations

from collections.abc import Sequence

from app.rules.amaryllis.problems import Entry, Problem, build_problem
from app.rules.amaryllis.problems import format_problems as _format
from app.rules.amaryllis.problems import localize as _localize
from app.rules.base import ProblemLike
from app.rules.margaret.problems import CATALOGUE as MARGARET

# code: (section, severity, ja message, ja fix, en message, en fix)
SHEET_OWN: dict[str, Entry] = {
    "unknown-code": (
        "4.1",
        "error",
        "「{char}」という剣コードはありません。",
        "剣リスト1のコードは次のとおりです：{codes}（高速剣はありません。回と導には数をつけません）",
        'There is no sword code "{char}".',
        "The codes of sword list 1 are: {codes} (there is no 高速剣; 回 and 導 take no number).",
    ),
    "list2-sword": (
        "1.2",
        "error",
        "{sword}は剣リスト2の剣で、黄昏の軌跡をでしか場に出ません（剣師の構成には使えません）。",
        "剣リスト1の剣に替えてください（斬 衝 毒 絶 重 魔 死 熱 護 速 盾 命 鏡 回 導）。",
        "{sword} belongs to sword list 2: it enters play only through 黄昏の軌跡を, never at building.",
        "Use a sword of list 1 instead (斬 衝 毒 絶 重 魔 死 熱 護 速 盾 命 鏡 回 導).",
    ),
    "no-swift-sword": (
        "1.2",
        "error",
        "マジカライズドの剣リスト1には高速剣がありません。",
        "高速剣を外すか、別の剣（たとえば斬撃剣）に替えてください。",
        "Magicalized's sword list 1 has no 高速剣 (Swift Sword).",
        "Drop it, or use another sword (e.g. 斬撃剣).",
    ),
    "takes-no-n": (
        "4.1 G2",
        "error",
        "{sword}には数をつけません（「{written}」）。",
        "「{short}」とだけ書いてください（回復剣は＜危殆＞で、HPが最大値の半分以下のとき使えます）。",
        '{sword} takes no number ("{written}").',
        'Write just "{short}" (回復剣 is <危殆>: usable while HP is at most half its maximum).',
    ),
}

SHEET_CATALOGUE: dict[str, Entry] = {**MARGARET, **SHEET_OWN}
"""Every problem code of a Magicalized sheet: base Margaret's, partly reworded."""

ORDERS_CATALOGUE: dict[str, Entry] = {
    "orders-too-large": (
        "4.3",
        "error",
        "命令文が大きすぎます（{size}、上限{limit}）。",
        "手札と命令だけを送ってください（命令は１版40行まで、１行200文字まで）。",
        "The orders are too large ({size}; the limit is {limit}).",
        "Send the hand and the orders only (at most 40 rules of 200 characters per version).",
    ),
    "orders-too-many-lines": (
        "4.3",
        "error",
        "行が多すぎます（空行を除いて{count}行、上限{limit}行）。ここから先は読みませんでした。",
        "手札と命令だけを送ってください。",
        "Too many lines ({count} non-blank lines; at most {limit}); the rest was not read.",
        "Send the hand and the orders only.",
    ),
    "orders-too-many-problems": (
        "4.3",
        "error",
        "問題が多すぎるため（{limit}件）、ここで読むのをやめました。",
        "ここまでの問題を直してからもう一度送ってください。",
        "Too many problems ({limit}); reading stopped here.",
        "Fix the problems above and send the orders again.",
    ),
    "orders-empty": (
        "4.2",
        "error",
        "手札の行も命令もありません。",
        "「HAND 無×2、覆、燃、凍、闇、策」のような手札の行と、ORDERS … END の命令を書いてください。",
        "There is neither a HAND line nor an ORDERS block.",
        'Write a hand line such as "HAND 無×2、覆、燃、凍、闇、策" and an ORDERS … END block.',
    ),
    "unknown-line": (
        "4.2",
        "error",
        "この行は見出し（VS／DEFAULT／HAND／ORDERS）でも、ORDERS … END の中の命令でもありません。",
        "命令は ORDERS と END の間に書きます。不要な行は消すか、行頭に＃をつけてコメントにしてください。",
        "This line is neither a header (VS, DEFAULT, HAND, ORDERS) nor a rule inside ORDERS … END.",
        "Rules go between ORDERS and END. Delete the line, or start it with # to make it a "
        "comment.",
    ),
    "vs-empty": (
        "4.2 G57",
        "error",
        "VS のあとに相手の剣師の名前がありません。",
        "「VS ヤミ」のように相手の剣師の名前を書くか、「DEFAULT」にしてください。",
        "VS names no opponent.",
        'Write the opponent swordmaster\'s name ("VS ヤミ"), or use DEFAULT.',
    ),
    "default-twice": (
        "4.2 G57",
        "error",
        "DEFAULT の区分が２つあります（最初は{first}行目。最初の見出しより前の行も DEFAULT です）。",
        "DEFAULT は１つにしてください。",
        "There are two DEFAULT sections (the first on line {first}; lines before the first "
        "header are DEFAULT too).",
        "Keep one DEFAULT section.",
    ),
    "vs-twice": (
        "4.2 G57",
        "error",
        "「VS {name}」の区分が２つあります（最初は{first}行目）。",
        "同じ相手への区分は１つにまとめてください。",
        'There are two sections "VS {name}" (the first on line {first}).',
        "Merge them into one section per opponent.",
    ),
    "hand-missing": (
        "4.2 G56",
        "error",
        "{section}の区分に手札（HAND）の行がありません。",
        "ORDERS の前に「HAND 無×2、覆、燃、凍、闇、策」のように７枚の手札を書いてください。",
        "The section {section} has no HAND line.",
        'Write the 7 cards of the hand before ORDERS, e.g. "HAND 無×2、覆、燃、凍、闇、策".',
    ),
    "hand-twice": (
        "4.2 G56",
        "error",
        "この区分には手札の行が２つあります（最初は{first}行目）。",
        "手札の行は区分ごとに１つです。",
        "This section has two HAND lines (the first on line {first}).",
        "Write one HAND line per section.",
    ),
    "hand-after-orders": (
        "4.2 G56",
        "error",
        "手札の行は最初の ORDERS より前に書きます。",
        "この行を ORDERS の前に移してください。",
        "The HAND line must come before the first ORDERS block.",
        "Move this line above ORDERS.",
    ),
    "hand-count": (
        "1.1 G4",
        "error",
        "手札が{count}枚です。手札はちょうど７枚です。",
        "カードを７枚にしてください（同じカードは「無×2」のように何枚でも入れられます）。",
        "The hand holds {count} cards; a hand is exactly 7.",
        'Hold exactly 7 cards (copies are allowed: "無×2").',
    ),
    "hand-bad-count": (
        "4.2",
        "error",
        "「{item}」の枚数が読めません。",
        "「無×2」のように、カード名のあとに×と１以上の数を書いてください。",
        'Cannot read the number of copies in "{item}".',
        'Write the card, then × and a number of 1 or more: "無×2".',
    ),
    "unknown-card": (
        "1.5",
        "error",
        "「{word}」という魔法カードはありません。",
        "{suggest}カードはコード（燃 凍 闇 無 覆 赤 緑 白 青 黒 黄 愛 知 心 払 星 策 虹）か名前で書きます。",
        'There is no magic card "{word}".',
        "{suggest}Cards are written by code (燃 凍 闇 無 覆 赤 緑 白 青 黒 黄 愛 知 心 払 星 策 虹) or name.",
    ),
    "block-unclosed": (
        "4.2",
        "error",
        "{start}行目の ORDERS が END で閉じられていません。",
        "命令の最後に END の行を書いてください。",
        "The ORDERS block of line {start} is not closed by END.",
        "End the rules with a line END.",
    ),
    "end-without-orders": (
        "4.2",
        "error",
        "対応する ORDERS のない END です。",
        "END は ORDERS … END の終わりにだけ書きます。",
        "END without an ORDERS block.",
        "END only closes an ORDERS block.",
    ),
    "block-in-block": (
        "4.2",
        "error",
        "{start}行目の ORDERS が閉じる前に、次の見出しがあります。",
        "前の ORDERS を END で閉じてください。",
        "A header inside the ORDERS block of line {start}.",
        "Close the previous ORDERS block with END first.",
    ),
    "bad-orders-header": (
        "4.2 G53",
        "error",
        "ORDERS の見出しが読めません。",
        "「ORDERS」だけか、「ORDERS FROM TURN 5」（命令 第5ターンから）と書いてください。",
        "Cannot read this ORDERS header.",
        'Write "ORDERS" alone, or "ORDERS FROM TURN 5" (命令 第5ターンから).',
    ),
    "first-block-from": (
        "5 G56",
        "error",
        "最初の命令は「ORDERS」だけで始めます（FROM TURN はつけません）。",
        "最初のブロックを「ORDERS」にしてください。FROM TURN は２つ目以降の版に使います。",
        "The first block is a plain ORDERS (no FROM TURN).",
        'Make the first block a plain "ORDERS"; FROM TURN is for later versions.',
    ),
    "from-turn-zero": (
        "5 G56",
        "error",
        "FROM TURN 0 は使えません（最初の版が第０ターンからの版です）。",
        "１以上のターンを書いてください。",
        "FROM TURN 0 is not allowed (the first version is the one from turn 0).",
        "Give a turn of 1 or more.",
    ),
    "from-turn-order": (
        "5 G56",
        "error",
        "版の開始ターン{t}が、前の版（第{previous}ターンから）より後ではありません。",
        "版は開始ターンが大きくなる順に書いてください。",
        "This version starts at turn {t}, not after the previous one (turn {previous}).",
        "Write versions in strictly increasing order of their turns.",
    ),
    "revision-header": (
        "3.2 G53",
        "error",
        "チェックポイントでの改訂には「ORDERS FROM TURN t … END」だけを書きます（手札は変えられません）。",
        "この行を消してください。",
        'A revision at a checkpoint holds only "ORDERS FROM TURN t … END" blocks (the hand '
        "is fixed).",
        "Delete this line.",
    ),
    "revision-needs-from": (
        "3.2 G53",
        "error",
        "改訂の命令は「ORDERS FROM TURN t」（命令 第tターンから）で始めます。",
        "どのターンから使う版かを書いてください（例：ORDERS FROM TURN 6）。",
        'A revision starts with "ORDERS FROM TURN t" (命令 第tターンから).',
        "Say from which turn the new version applies, e.g. ORDERS FROM TURN 6.",
    ),
    "revision-too-early": (
        "3.2 G53",
        "error",
        "第{t}ターンからの版は受け付けられません（このチェックポイントでは第{first}ターン以降の版だけです）。",
        "第{first}ターン以降から始めてください。",
        "A version from turn {t} is refused: at this checkpoint versions start at turn {first} "
        "or later.",
        "Start it at turn {first} or later.",
    ),
    "too-many-rules": (
        "4.3 G56",
        "error",
        "この版の命令が{count}行あります（上限{limit}行）。",
        "命令を{limit}行以内にしてください。",
        "This version has {count} rules (at most {limit}).",
        "Keep at most {limit} rules per version.",
    ),
    "rule-too-long": (
        "4.3",
        "error",
        "命令が{length}文字あります（上限{limit}文字）。",
        "命令を短くするか、２つに分けてください。",
        "The rule is {length} characters long (at most {limit}).",
        "Shorten it or split it in two.",
    ),
    "rule-syntax": (
        "4.3",
        "error",
        "{after}のあとに{expected}が必要ですが、「{got}」があります。",
        "例：{example}",
        'Expected {expected} after {after}, found "{got}".',
        "Example: {example}",
    ),
    "unknown-word": (
        "4.3",
        "error",
        "「{word}」は{what}として読めません。",
        "次のどれかを書いてください：{choices}",
        '"{word}" is not {what}.',
        "Write one of: {choices}",
    ),
    "unknown-sword-word": (
        "1.2",
        "error",
        "「{word}」という剣はありません。",
        "剣はコード（斬 衝 毒 絶 重 魔 死 熱 護 速 盾 命 鏡 回 導、リスト2は 滅 魂 押）か名前で書きます。",
        'There is no sword "{word}".',
        "Swords are written by code (斬 衝 毒 絶 重 魔 死 熱 護 速 盾 命 鏡 回 導; list 2: 滅 魂 押) or name.",
    ),
    "sword-not-in-lists": (
        "1.2 4.3",
        "error",
        "{sword}は剣リスト1にも2にもないので、この戦闘には現れません。",
        "剣リスト1か2の剣を書いてください。",
        "{sword} is in neither sword list 1 nor 2: it never appears in this battle.",
        "Name a sword of list 1 or 2.",
    ),
    "any-value": (
        "4.3 G40",
        "error",
        "「any」（どちらか）には１つの値がありません（「{word}」）。",
        "my（自分）か enemy（敵）のどちらかにしてください。",
        '"any" has no single value ("{word}").',
        "Use my or enemy.",
    ),
    "any-argument": (
        "4.3 G40",
        "error",
        "カードの引数には my（自分）か enemy（敵）を書きます（「any」は使えません）。",
        "my か enemy にしてください。",
        'A card\'s argument names my or enemy (not "any").',
        "Use my or enemy.",
    ),
    "bad-argument": (
        "4.3",
        "error",
        "{card}の引数が合いません（{detail}）。",
        "{card}の書き方：{schema}",
        "The arguments of {card} do not fit ({detail}).",
        "{card} is played as: {schema}",
    ),
    "wrong-trail-sword": (
        "1.5 4.3",
        "error",
        "{card}で与えられる剣は{swords}だけです（「{sword}」）。",
        "{swords}のどれかにしてください。",
        '{card} gives only {swords} (not "{sword}").',
        "Name one of {swords}.",
    ),
    "bad-index": (
        "4.3",
        "error",
        "「{word}」は{what}として読めません。",
        "{what}には１以上の整数を書いてください。",
        '"{word}" is not a valid {what}.',
        "Write a whole number of 1 or more for the {what}.",
    ),
    "extra-words": (
        "4.3",
        "error",
        "命令の終わりに余分な語「{words}」があります。",
        "余分な語を消してください（ONCE／一度 だけは最後に書けます）。",
        'Extra words at the end of the rule: "{words}".',
        "Delete them (only ONCE may end a rule).",
    ),
    "card-not-in-hand": (
        "4.3",
        "warning",
        "{card}は手札にないので、この命令は使われません。",
        "手札に入れるか、命令を消してください。",
        "{card} is not in the hand, so this rule never fires.",
        "Put the card in the hand, or delete the rule.",
    ),
    "impossible-event": (
        "4.3",
        "warning",
        "この契機は起こりません（{why}）。",
        "契機を見直してください。",
        "This event cannot occur ({why}).",
        "Check the event.",
    ),
    "version-past-20": (
        "5 G56",
        "warning",
        "第{t}ターンからの版は、第20ターンを過ぎるので（星霜絵巻でターンが増えない限り）使われません。",
        "意図どおりならこのままで構いません。",
        "The version from turn {t} starts after turn 20: it is used only if 星霜絵巻 pushes the "
        "turn that far.",
        "Keep it if that is what you mean.",
    ),
    "sections-without-default": (
        "5 G60",
        "warning",
        "区分が複数あり DEFAULT がありません（{names}）。オフラインの battle ではこのファイルは使えません。",
        "オフラインで使うなら DEFAULT の区分を加えてください。",
        "Several sections and no DEFAULT ({names}): offline battle refuses this file.",
        "Add a DEFAULT section to use it offline.",
    ),
    "no-orders": (
        "4.2",
        "warning",
        "{section}の区分に命令（ORDERS … END）がないので、カードは使われません。",
        "カードを使うなら ORDERS … END を書いてください。",
        "The section {section} has no ORDERS block: its cards are never played.",
        "Write an ORDERS … END block to play them.",
    ),
}
"""Every problem code of a hand-and-orders text (§4.2, §4.3, G53-G63)."""

CATALOGUE: dict[str, Entry] = {**SHEET_CATALOGUE, **ORDERS_CATALOGUE}
"""Both catalogues (their codes do not clash), for :func:`format_problems`."""
assert len(CATALOGUE) == len(SHEET_CATALOGUE) + len(ORDERS_CATALOGUE)


def make_problem(code: str, line: int | None, text: str, lang: str, **params: object) -> Problem:
    """A sheet :class:`Problem` from :data:`SHEET_CATALOGUE`. Raises ``KeyError`` for a code
    missing from it."""
    return build_problem(SHEET_CATALOGUE, code, line, text, lang, params)


def orders_problem(code: str, line: int | None, text: str, lang: str, **params: object) -> Problem:
    """An orders :class:`Problem` from :data:`ORDERS_CATALOGUE`. Raises ``KeyError`` for a code
    missing from it."""
    return build_problem(ORDERS_CATALOGUE, code, line, text, lang, params)


def localize(problem: Problem, lang: str) -> Problem:
    """``problem`` (of a sheet or of orders) rendered again in ``lang``."""
    return _localize(problem, lang, CATALOGUE)


def format_problems(problems: Sequence[ProblemLike], lang: str) -> str:
    """One block per problem, of a sheet or of orders: line, quote, rule
    (``rules/margaret-magicalized.md`` §…), fix; errors first
    (``amaryllis.problems.format_problems``)."""
    return _format(problems, lang, catalogue=CATALOGUE)
