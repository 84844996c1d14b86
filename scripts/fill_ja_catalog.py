"""Fill the Japanese catalog's empty entries from the table below (run after `pybabel update`;
entries already translated are left alone). Usage: .venv/bin/python scripts/fill_ja_catalog.py"""

from __future__ import annotations

from pathlib import Path

from babel.messages.pofile import read_po, write_po

PO = Path(__file__).resolve().parents[1] / "templates/locale/ja/LC_MESSAGES/messages.po"

JA: dict[str | tuple[str, str], str | tuple[str, ...]] = {
    "%(done)s of %(total)s battles fought.": "%(total)s戦中%(done)s戦終了。",
    "%(done)s of %(total)s played": "全%(total)s回戦中%(done)s回戦終了",
    "%(num)s entry so far; the organizer does not list the entrants before entries close.":
        ("現在%(num)s件のエントリー。エントリー締切まで参加者は公開されません。",),
    "%(unit)s wins": "%(unit)sの勝利",
    "A one-sheet test battle by mail fights these.": "メールの模擬戦（ユニット表1枚）ではこれらと戦います。",
    "A stored sheet can no longer be read, so the log cannot be recomputed. The recorded result stands.":
        "保存されたユニット表を読めないため、ログを再計算できません。記録された結果が有効です。",
    "After round %(n)s of %(total)s.": "全%(total)s回戦中、第%(n)s回戦終了時点。",
    "All leagues": "リーグ一覧",
    "Also called: %(names)s.": "別名：%(names)s。",
    "Amaryllis league %(name)s": "アマリリス リーグ %(name)s",
    "Amaryllis leagues": "アマリリス リーグ",
    "Battles": "対戦",
    "Before round 1.": "第1回戦の前。",
    "Board": "卓",
    "Board %(board)s: %(a)s has the bye": "第%(board)s卓：%(a)s は不戦（バイ）",
    "Board %(board)s: %(a)s vs %(b)s: %(result)s": "第%(board)s卓：%(a)s 対 %(b)s：%(result)s",
    "Board %(n)s": "第%(n)s卓",
    "Byes": "不戦",
    "Columns": "列",
    "Cross-table": "星取表",
    "Cross-table blocks": "星取表の区画",
    ("result letter", "D"): "分",
    "Disqualified (their games do not count):": "失格（対戦は数えません）：",
    "Draw": "引き分け",
    "Draws": "引き分け",
    "Due": "予定",
    "English notation": "英語表記",
    "Entries": "エントリー",
    "Entries are open until %(deadline)s. Sheets stay secret until entries close.":
        "エントリー受付は %(deadline)s までです。ユニット表は締切まで非公開です。",
    "Entries until %(deadline)s.": "エントリー締切：%(deadline)s。",
    "Entry deadline": "エントリー締切",
    "Final.": "最終結果。",
    "Finished": "終了",
    "Format": "形式",
    "Games played": "対戦数",
    "H2H": "直接",
    "HP by turn": "ターンごとのＨＰ",
    "HP compared after the last turn": "最終ターン終了時のＨＰ比較",
    "HP margin": "ＨＰ差",
    "HP of each side over the turns": "ターンごとの両者のＨＰ",
    "HP over the turns": "ＨＰの推移",
    "HP ±": "ＨＰ差",
    "Head-to-head points among the tied": "同点者どうしの直接対決の勝ち点",
    "JSON Schema": "JSONスキーマ",
    "Japanese notation": "日本語表記",
    ("result letter", "L"): "負",
    "Language": "言語",
    "League": "リーグ",
    "League %(name)s": "リーグ %(name)s",
    "League %(name)s opened": "リーグ %(name)s 開設",
    "League %(name)s: results of round %(n)s": "リーグ %(name)s：第%(n)s回戦の結果",
    "Leagues": "リーグ",
    "Losses": "負け",
    "Next round": "次の回戦",
    "No entry yet.": "まだエントリーはありません。",
    "No league yet.": "まだリーグはありません。",
    "Not found": "ページが見つかりません",
    "Open for entries": "エントリー受付中",
    "Opponent": "相手",
    "Other rounds: see each round's page in the schedule.": "ほかの回戦は日程表から各回戦のページを見てください。",
    "Password": "パスワード",
    "Pl": "戦",
    "Played": "実施",
    "Player": "プレイヤー",
    "Points": "勝ち点",
    "Pts": "点",
    "Published seed": "公開シード",
    "Rank": "順位",
    "Rank %(rank)s, %(points)s points (%(w)s wins, %(d)s draws, %(l)s losses).":
        "%(rank)s位、勝ち点%(points)s（%(w)s勝%(d)s分%(l)s敗）。",
    "Result": "結果",
    "Round": "回戦",
    "Round %(n)s": "第%(n)s回戦",
    "Round results": "各回戦の結果",
    "Round results of every league": "全リーグの各回戦の結果",
    "Rounds": "回戦",
    "Rows": "行",
    "Ruleset": "ルール",
    "Ruleset %(name)s, engine version %(version)s.": "ルール %(name)s、エンジン版 %(version)s。",
    "Running": "進行中",
    "Sample units": "サンプルユニット",
    "Schedule": "日程",
    "Settings": "設定",
    "Sheet notation: examples": "ユニット表の書き方（例）",
    "Sheets": "ユニット表",
    "Side": "側",
    "Sonneborn-Berger": "ゾンネボルン・ベルガー",
    "Standings": "順位表",
    "State": "状態",
    "State after the turn": "ターン終了時の状態",
    "The league did not take place (fewer than two entries).": "リーグは開催されませんでした（参加者が2名未満）。",
    "The server reads it as:": "サーバはこう読みます：",
    "The table has %(n)s entries; it is shown in blocks of %(k)s.": "参加者が%(n)s名いるため、%(k)s名ずつの区画で表示します。",
    "There is no such page, or it is not public yet (a league's sheets are secret until entries close).":
        "そのページはないか、まだ公開されていません（リーグのユニット表はエントリー締切まで非公開です）。",
    "This result was recorded with engine version %(old)s; the current version %(new)s gives another result, so the log is not shown. The recorded result stands.":
        "この結果はエンジン版 %(old)s で記録されました。現在のエンジン版 %(new)s では結果が変わるため、ログは表示できません。記録された結果が有効です。",
    "This result was recorded with engine version %(old)s; the log below was recomputed with version %(new)s and gives the same result.":
        "この結果はエンジン版 %(old)s で記録されました。下のログはエンジン版 %(new)s で再計算したもので、同じ結果になりました。",
    "Tiebreaks": "同点時の順位決定",
    "Times are UTC.": "時刻はUTCです。",
    "Turn %(n)s": "第%(n)sターン",
    "Turn by turn": "ターンごとの経過",
    "Unit": "ユニット",
    ("result letter", "W"): "勝",
    "Wins": "勝ち",
    "active": "参加中",
    "battles": "対戦",
    "both died (HP compared)": "両者死亡（ＨＰ比較）",
    "by the organizer": "主催者が実行",
    "bye": "不戦（バイ）",
    "death": "死亡",
    "disqualified": "失格",
    "double round robin": "2回総当たり",
    "draw": "引き分け",
    "entries closed": "締切済み",
    "entries need the league password": "エントリーにはリーグのパスワードが必要",
    "every %(d)s": "%(d)sごと",
    "final HP": "最終ＨＰ",
    "finished": "終了",
    "head-to-head, Sonneborn-Berger, HP margin": "直接対決、ゾンネボルン・ベルガー、ＨＰ差",
    "loss": "負け",
    "open for entries": "受付中",
    "played": "実施済み",
    "push": "押し出し",
    "round robin": "総当たり",
    "rows in standings order; each result links to its battle.": "行は順位順。各結果から対戦のページへ移れます。",
    "rules and sheet notation": "ルールとユニット表の書き方",
    "run by the organizer": "主催者が実行",
    "running": "進行中",
    "scheduled": "予定",
    "standings": "順位表",
    "to be fought": "未対戦",
    "turn": "ターン",
    "turn %(n)s": "第%(n)sターン",
    "version %(n)s": "第%(n)s版",
    "void": "無効",
    "void (disqualified)": "無効（失格）",
    "win": "勝ち",
    "win %(w)s, draw %(d)s, loss %(l)s": "勝ち%(w)s・引き分け%(d)s・負け%(l)s",
    "withdrawn": "辞退",
    "… and %(n)s more boards": "……ほか%(n)s卓",
    "A unit at HP 0 or below dies; the other wins. Both dead: the higher HP wins. After turn 20: the higher HP wins. Equal HP: a draw.":
        "ＨＰが０以下になったユニットは死亡し、相手の勝ち。両者死亡ならＨＰの高い方（オーバーキルの少ない方）の勝ち。第２０ターン終了時はＨＰの高い方の勝ち。ＨＰが同じなら引き分け。",
    "A unit distributes exactly 10 bonus points over HP (5 HP per point), ATK, DEF, SPD and TECH. The sheet gives HP/ATK/DEF/SPD and the list of actions; TECH is the rest, and the costs of all the actions set must fit in it.":
        "ユニットはボーナスポイントちょうど１０をＨＰ（１点で５）、攻撃力、防御力、素早さ、技術に振り分けます。ユニット表にはＨＰ／攻撃力／防御力／素早さと行動の並びを書き、残りが技術です。セットした行動のコストの合計は技術以下でなければなりません。",
    "ATK damage": "攻撃力ぶんのダメージ",
    "ATK − the target's DEF damage": "攻撃力−相手の防御力のダメージ",
    "Action class": "行動",
    "Building a unit": "ユニットの作り方",
    "Cost": "コスト",
    "Customizations change the cost: Limited ÷2 (used once), Delay N ÷N (usable from turn N), Quick ×2 (usable from turn 0), Effect ×N ×N² (attacks), Stun ×2 and Poison ×2 (attacks); costs round up.":
        "カスタマイズでコストが変わります：リミテッド÷２（一度だけ）、遅延起動Ｎ÷Ｎ（第Ｎターンから）、高速起動×２（第０ターンから）、効果Ｎ倍×Ｎ²（攻撃）、スタン与え×２・毒与え×２（攻撃）。端数は切り上げ。",
    "Each turn a unit gets as many actions as its SPD; the faster unit acts first, equal SPD act simultaneously. A unit runs the first usable action of its list, each action at most once a turn.":
        "各ターン、ユニットは素早さと同じ回数だけ行動します。素早い方が先に動き、同じなら同時行動。行動の並びのうち使える最初のものを実行し、同じ行動は１ターンに１度までです。",
    "Effect": "効果",
    "HP back to its start (must be Limited)": "ＨＰを初期値に戻す（リミテッド必須）",
    "No dice: two sheets decide the battle. Turn 0 (Quick actions only), then turns 1 to 20.":
        "乱数はありません。２枚のユニット表で戦闘が決まります。第０ターン（高速起動のみ）のあと第１〜２０ターン。",
    "The battle": "戦闘",
    "The rules in short": "ルールのあらまし",
    "half the target's HP, rounded up": "相手の現在ＨＰの半分（切り上げ）のダメージ",
    "raise an ability of the unit itself": "自分の能力を上げる",
    "revive once with HP 1 (must be Limited)": "一度だけＨＰ１で復活（リミテッド必須）",
    "the next attack is sent back": "次の攻撃を相手に跳ね返す",
    "the next attack's damage is halved": "次の攻撃のダメージを半分にする",
}


def main() -> None:
    with PO.open("rb") as fh:
        catalog = read_po(fh, locale="ja")
    missing = []
    for message in catalog:
        if not message.id:
            continue
        msgid = message.id[0] if isinstance(message.id, tuple) else message.id
        key = (message.context, msgid) if message.context else msgid
        if message.string and (message.string if isinstance(message.string, str)
                               else all(message.string)):
            continue
        if key not in JA:
            missing.append(key)
            continue
        value = JA[key]
        message.string = value if isinstance(message.id, tuple) else value  # type: ignore[assignment]
        if isinstance(message.id, tuple) and isinstance(value, str):
            message.string = (value,)
        message.flags.discard("fuzzy")
    with PO.open("wb") as fh:
        write_po(fh, catalog, width=100, no_location=True, sort_output=True)
    if missing:
        raise SystemExit(f"no Japanese for: {missing}")


if __name__ == "__main__":
    main()
