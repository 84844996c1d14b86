"""Fill the Japanese catalog's empty entries from the table below (run after `pybabel update`;
entries already translated are left alone). Usage: .venv/bin/python scripts/fill_ja_catalog.py"""

from __future__ import annotations

from pathlib import Path

from babel.messages.pofile import read_po, write_po

PO = Path(__file__).resolve().parents[1] / "templates/locale/ja/LC_MESSAGES/messages.po"

JA: dict[str | tuple[str, str], str | tuple[str, ...]] = {
    "VS %(name)s: no other unit in this league has that name now; the section is used only against a unit of exactly that name.":
        "VS %(name)s：このリーグには今その名前のユニットがありません。このセクションは名前が完全に一致するユニットとの対戦にだけ使われます。",
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
    "No action; the states stay as above.": "行動なし。状態は上のとおり。",
    "Turns %(first)s–%(last)s": "第%(first)s〜%(last)sターン",
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

# --- mail replies and reports (templates/mail/*.txt, templates/reports/*) -----------------------
JA.update({
    ("indent of a line under a report line", "  "): "　",
    "See this page on the web": "ウェブで見る",
    "%(why)s %(detail)s": "%(why)s%(detail)s",
    "winner": "勝者",
    ("list separator", ", "): "、",
    ("a remark in parentheses", "(%(text)s)"): "（%(text)s）",
    ("standings table header: align with the row",
     "Rank  Pts  Pl   W   D   L  H2H     SB   HP+/-  Player (unit)"):
        "順位  勝点  試合  勝  分  負  直接    SB   HP差  プレイヤー（ユニット）",
    ("standings table row: printf widths align it with the header",
     "%(rank)-4s %(points)4d %(played)3d %(wins)3d %(draws)3d %(losses)3d %(h2h)4d %(sb)6s %(hp)+7d  %(name)s (%(unit)s)"):
        "%(rank)-4s %(points)4d %(played)5d %(wins)3d %(draws)3d %(losses)3d %(h2h)4d %(sb)6s %(hp)+6d  %(name)s（%(unit)s）",
    "%(a)s (%(unit_a)s) vs %(b)s (%(unit_b)s)": "%(a)s（%(unit_a)s） 対 %(b)s（%(unit_b)s）",
    "%(a)s (%(unit_a)s): bye": "%(a)s（%(unit_a)s）：不戦（バイ）",
    "%(unit)s killed its opponent": "%(unit)sが相手を倒しました",
    "both units died; %(unit)s had the higher HP (less overkill)": "両者死亡、ＨＰの高い（オーバーキルの少ない）%(unit)sの勝ち",
    "both alive after turn 20; %(unit)s had the higher HP": "２０ターン終了時に両者生存、ＨＰの高い%(unit)sの勝ち",
    "equal HP at the end": "最終ＨＰが同じ",
    "%(verdict)s — %(why)s %(detail)s": "%(verdict)s — %(why)s%(detail)s",
    "(turn %(turns)s; final HP %(a)s to %(b)s).": "（%(turns)sターン目、最終ＨＰ %(a)s 対 %(b)s）。",
    "League %(league)s, round %(round)s, board %(board)s: %(unit_a)s (%(player_a)s) vs %(unit_b)s (%(player_b)s)":
        "リーグ %(league)s 第%(round)s回戦 第%(board)s試合：%(unit_a)s（%(player_a)s） 対 %(unit_b)s（%(player_b)s）",
    "Note: %(note)s": "注意：%(note)s",
    "League %(league)s did not take place: when entries closed it had 1 entry with a valid sheet, and a league needs at least two. No round was played (entry: %(name)s, %(unit)s).":
        "リーグ %(league)s は開催されませんでした。エントリー締切の時点で有効なシートの参加者が1名で、リーグには2名以上が必要です。対戦は行われていません（エントリー：%(name)s（%(unit)s））。",
    "League %(league)s did not take place: when entries closed it had %(n)s entries with a valid sheet, and a league needs at least two. No round was played.":
        "リーグ %(league)s は開催されませんでした。エントリー締切の時点で有効なシートの参加者が%(n)s名で、リーグには2名以上が必要です。対戦は行われていません。",
    "League %(league)s — standings after round %(n)s of %(total)s": "リーグ %(league)s 順位表（第%(n)s回戦終了時／全%(total)s回戦）",
    "League %(league)s — standings after round %(n)s of %(total)s (final)": "リーグ %(league)s 順位表（第%(n)s回戦終了時／全%(total)s回戦・最終）",
    "League %(league)s — standings before round 1": "リーグ %(league)s 順位表（第1回戦前）",
    "League %(league)s — standings before round 1 (final)": "リーグ %(league)s 順位表（第1回戦前・最終）",
    "Points: win/draw/loss = %(points)s. Tiebreaks: head-to-head, Sonneborn-Berger, HP margin.":
        "勝ち点：勝／分／負 = %(points)s。同点時：直接対決、ゾンネボルン・ベルガー、ＨＰ差の順。",
    "Disqualified (their games do not count): %(names)s": "失格（対戦結果は数えません）：%(names)s",
    "Next: round %(n)s at %(at)s": "次回：第%(n)s回戦（%(at)s）",
    "Next: round %(n)s": "次回：第%(n)s回戦",
    # replies
    "Note: the mail was too long; the %(cut)s line(s) after line %(max)s were not read.":
        "※ 本文が長すぎるため、%(max)s 行を超えた %(cut)s 行は読んでいません。",
    "Notes from reading your mail:": "※ メールの読み取りで気づいたこと:",
    "Amaryllis tournament server": "アマリリス対戦サーバ",
    'Send a mail with the subject "help" for instructions.': "使い方は件名に「ヘルプ」と書いて送ってください。",
    "From now on, replies to you are sent in %(charset)s.": "これからの返信は文字コード %(charset)s で送ります。",
    "The sheet is valid (it was not entered).": "シートに問題はありません（エントリーはしていません）。",
    "== Unit (normalized notation)": "■ ユニット（正規化した表記）",
    "== Warnings": "■ 注意",
    "The sheet has these problems (it was not entered):": "シートに次の問題があります（エントリーはしていません）。",
    "The entry key in your mail is not the key of this entry, so nothing was changed yet.":
        "メールのエントリーキーがこのエントリーのものと違うため、まだ何も変更していません。",
    'Someone asked to withdraw your entry from league "%(league)s" from your address. To make sure it was you, nothing changes until you confirm:':
        "あなたのアドレスから、リーグ「%(league)s」のエントリーの取り消しの依頼がありました。ご本人か確かめるため、確認があるまで何も変更しません。",
    'Someone asked to replace your unit in league "%(league)s" from your address. To make sure it was you, nothing changes until you confirm:':
        "あなたのアドレスから、リーグ「%(league)s」のユニットの差し替えの依頼がありました。ご本人か確かめるため、確認があるまで何も変更しません。",
    'Just reply to this mail (keep the subject: it holds the code "confirm %(token)s").':
        "このメールにそのまま返信してください（件名の「confirm %(token)s」が確認コードです。件名は変えないでください）。",
    "The request expires at %(expires)s (%(hours)s hours) or when entries close (%(deadline)s), whichever comes first; a later request for this entry replaces this one.":
        "この依頼の期限は %(expires)s（%(hours)s時間）、またはエントリー締切（%(deadline)s）のどちらか早いほうです。同じエントリーに新しい依頼が来ると、この依頼は無効になります。",
    "The request expires at %(expires)s (%(hours)s hours); a later request for this entry replaces this one.":
        "この依頼の期限は %(expires)s（%(hours)s時間）です。同じエントリーに新しい依頼が来ると、この依頼は無効になります。",
    "If you did not ask for this, ignore this mail: your entry stays as it is.":
        "心当たりがなければ、このメールは無視してください。エントリーはそのままです。",
    'Next time you can skip this step: put the line "key: XXXX-XXXX" with the entry key from your acceptance mail in the body, and the change is made at once.':
        "次からは、受付メールにあるエントリーキーを「キー：XXXX-XXXX」の行で本文に入れれば、確認なしですぐに変更されます。",
    "This change was already made; nothing more to do.": "この変更はすでに行われています。",
    'This confirmation is for an older request: a later withdrawal of your entry in league "%(league)s" replaced it. Reply to the latest confirmation mail instead.':
        "この確認は古い依頼のものです。リーグ「%(league)s」のエントリーに新しい取り消しの依頼があったため無効になりました。最新の確認メールに返信してください。",
    'This confirmation is for an older request: a later change of your entry in league "%(league)s" replaced it. Reply to the latest confirmation mail instead.':
        "この確認は古い依頼のものです。リーグ「%(league)s」のエントリーに新しい変更の依頼があったため無効になりました。最新の確認メールに返信してください。",
    'This confirmation expired (%(expires)s): nothing was changed in league "%(league)s". Send the withdrawal again if you still want it.':
        "この確認は期限（%(expires)s）を過ぎたため、リーグ「%(league)s」では何も変更していません。必要なら取り消しをもう一度送ってください。",
    'This confirmation expired (%(expires)s): nothing was changed in league "%(league)s". Send the sheet again if you still want it.':
        "この確認は期限（%(expires)s）を過ぎたため、リーグ「%(league)s」では何も変更していません。必要ならシートをもう一度送ってください。",
    'Entries to league "%(league)s" closed before this was confirmed, so nothing was changed.':
        "確認の前にリーグ「%(league)s」のエントリーが締め切られたため、何も変更していません。",
    "This change could not be made; nothing was changed.": "この変更はできませんでした。何も変更していません。",
    "No pending change has this confirmation code (it may be mistyped or from another server). Nothing was changed.":
        "この確認コードの依頼は見つかりません（打ち間違いか、ほかのサーバのものかもしれません）。何も変更していません。",
    'Your entry for league "%(league)s" is re-opened (you had withdrawn it): this unit is your entry now.':
        "リーグ「%(league)s」へのエントリーを再開しました（辞退を取り消しました）。このユニットでエントリーしています。",
    'Your replacement unit (version %(version)s) for league "%(league)s" is accepted.':
        "リーグ「%(league)s」へのユニットの差し替え（第%(version)s版）を受け付けました。",
    'Your entry for league "%(league)s" is accepted.': "リーグ「%(league)s」へのエントリーを受け付けました。",
    "== Your unit (normalized notation)": "■ 登録されたユニット（正規化した表記）",
    "== Your entry key: %(key)s": "■ エントリーキー：%(key)s",
    "== Your name": "■ 名前",
    'The name "%(wanted)s" is taken: another player has it or one that looks the same (names are compared ignoring case, width and spaces).':
        "名前「%(wanted)s」は使えません。ほかのプレイヤーが同じ名前か、同じに見える名前を使っています（大文字・小文字、全角・半角、空白の違いは同じ名前とみなします）。",
    '"%(free)s" is free. To take it, send your sheet again with the lines "name: %(free)s" and "key: %(key)s".':
        "「%(free)s」なら使えます。使うには、「名前：%(free)s」と「キー：%(key)s」の行を入れてシートをもう一度送ってください。",
    'Your name was not changed to "%(wanted)s": a name already set changes only with your entry key. Send your sheet again with the lines "name: %(wanted)s" and "key: %(key)s".':
        "名前は「%(wanted)s」に変わっていません。一度決まった名前はエントリーキーがあるときだけ変更できます。「名前：%(wanted)s」と「キー：%(key)s」の行を入れてシートをもう一度送ってください。",
    'Other players see you as "%(name)s".': "他のプレイヤーには「%(name)s」と表示されます。",
    'You gave no name, so the server chose this one. To choose your own, send your sheet again with the lines "name: YOUR NAME" and "key: %(key)s".':
        "名前の指定がなかったので、サーバーがこの名前を選びました。自分で決めるには、「名前：好きな名前」と「キー：%(key)s」の行を入れてシートをもう一度送ってください。",
    'Keep this mail. To replace or withdraw this entry later, put the line "key: %(key)s" in the body: the change is made at once. Without it, the server first mails this address to ask you to confirm (anyone can write your address in From; only you get this mail).':
        "このメールは保存してください。あとで差し替えや取り消しをするときは、本文に「キー：%(key)s」の行を入れるとすぐに変更されます。この行がないと、まずこのアドレスに確認のメールを送ります（差出人のアドレスは誰でも書けますが、このメールが届くのはあなただけです）。",
    'Your entry for league "%(league)s" was not accepted. The sheet has these problems:':
        "リーグ「%(league)s」へのエントリーを受け付けられませんでした。シートに次の問題があります。",
    "Please fix them and send the sheet again.": "直したシートをもう一度送ってください。",
    'There is no league called "%(league)s".': "リーグ「%(league)s」は見つかりません。",
    "Leagues taking entries:": "受付中のリーグ:",
    "You have entries in more than one league; which one is this for? Write to %(local)s+NAME@%(domain)s or put [NAME] in the subject.":
        "複数のリーグにエントリーしているため、どのリーグ宛てか分かりませんでした。宛先を %(local)s+リーグ名@%(domain)s にするか、件名に [リーグ名] を入れてください。",
    "Your leagues:": "エントリーしているリーグ:",
    'Which league should "%(action)s" work on? Write "%(action)s NAME" in the subject.':
        "「%(action)s」をどのリーグに行うか分かりませんでした。件名に「%(action)s リーグ名」と書いてください。",
    "Leagues it can work on:": "対象にできるリーグ:",
    'No league is in a state where "%(action)s" can work.': "「%(action)s」を行える状態のリーグはありません。",
    "Which league is this for? Write to %(local)s+NAME@%(domain)s or put [NAME] in the subject.":
        "どのリーグ宛てか分かりませんでした。宛先を %(local)s+リーグ名@%(domain)s にするか、件名に [リーグ名] を入れてください。",
    "No league is taking entries now.": "いま受付中のリーグはありません。",
    "Your mail is too large to read (%(size)s bytes; the limit is %(limit)s). Please send the sheet in the body, without attachments.":
        "メールが大きすぎるため読みませんでした（%(size)s バイト、上限 %(limit)s バイト）。添付ファイルを外し、シートを本文に書いて送ってください。",
    "This address has reached today's limit of %(limit)s mails; there will be no replies until tomorrow (UTC). This notice is sent once.":
        "本日このアドレスからのメールが上限（%(limit)s 通）に達したため、明日まで返信しません。このお知らせは一度だけ送ります。",
    'Unknown charset "%(value)s". Write "charset iso-2022-jp" or "charset utf-8".':
        "文字コード「%(value)s」は指定できません。「charset iso-2022-jp」または「charset utf-8」と書いてください。",
    'No sheet found. Put your unit sheet in the body of the mail (send "help" for instructions).':
        "シートが見つかりませんでした。本文にユニットのシートを書いて送ってください（使い方は件名「ヘルプ」で）。",
    'League "%(league)s" needs a password: add a line "password: …" to the body.':
        "リーグ「%(league)s」はパスワードが必要です。本文に「パスワード：…」の行を入れてください。",
    'The password for league "%(league)s" is wrong: check the line "password: …" in the body.':
        "リーグ「%(league)s」のパスワードが違います。本文の「パスワード：…」の行を確かめてください。",
    "Organizer commands are only done for mail from an organizer address that carries the right password line.":
        "主催者コマンドは、登録された主催者のアドレスから正しいパスワード行をつけて送ったときだけ実行します。",
    'Entries to league "%(league)s" are closed.': "リーグ「%(league)s」のエントリー受付は終了しています。",
    'You have no entry in league "%(league)s".': "リーグ「%(league)s」にあなたのエントリーはありません。",
    'You are disqualified from league "%(league)s".': "リーグ「%(league)s」では失格となっているため、受け付けられません。",
    'Organizer command "%(action)s" (league "%(league)s") was not done: %(detail)s':
        "主催者コマンド「%(action)s」（リーグ「%(league)s」）は実行されませんでした: %(detail)s",
    'Organizer command "%(action)s" was not done: %(detail)s': "主催者コマンド「%(action)s」は実行されませんでした: %(detail)s",
    "The command is not written right. Usage: %(usage)s": "コマンドの書き方が違います。書式: %(usage)s",
    "The mail could not be processed (%(code)s).": "処理できませんでした（%(code)s）。",
    "No command and no unit sheet were found in your mail, so nothing was done. To enter, send a\nsheet; for anything else, a command (see below).":
        "メールにコマンドもユニットのシートも見つからなかったため、何もしていません。エントリーするには\nシートを、ほかはコマンドを送ってください（下の使い方を参照）。",
    "How to use the Amaryllis tournament server": "アマリリス対戦サーバの使い方",
    "Mail your unit sheet in the body to this address to enter (send again to replace your unit).\nCommands go in the subject or on the first line of the body:":
        "このアドレスにユニットのシートを本文に書いて送るとエントリーになります（同じリーグに再送すると差し替え）。\nコマンドは件名か本文の1行目に書きます。",
    'Choosing the league: write to %(local)s+NAME@%(domain)s, put [NAME] in the subject, or, when only one league\ntakes entries, that one. Leagues with a password need a line "password: …" in the body.\nReplacing or withdrawing an entry needs the line "key: XXXX-XXXX" with the entry key from your\nacceptance mail; without it the server first asks you to confirm by mail. A line "name: …" sets\nthe name others see in standings (never your address).\nQuoted lines (starting with >) and your signature (below a "-- " line) are not read.':
        "リーグの選び方: 宛先を %(local)s+リーグ名@%(domain)s にする、件名に [リーグ名] を入れる、受付中のリーグが一つならそのリーグ。\nパスワードの必要なリーグでは本文に「パスワード：…」の行を入れてください。\n差し替えと取り消しには、受付メールにあるエントリーキーを「キー：XXXX-XXXX」の行で入れてください。ないときは、\nまず確認のメールを送ります。「名前：…」の行で順位表に出る名前を決められます（アドレスは表示しません）。\n引用行（> で始まる行）と署名（「-- 」の行から下）は読みません。",
    "Example sheet:": "シートの例:",
    'Current standings of league "%(league)s".': "リーグ「%(league)s」の現在の順位です。",
    "No test battle was fought: both sheets have problems.": "テスト対戦は行いませんでした（2枚のシートの両方に問題があります）。",
    "No test battle was fought.": "テスト対戦は行いませんでした。",
    "The sheet (lines %(first)s–%(last)s of your mail) has these problems:": "シート（メールの%(first)s～%(last)s行目）に次の問題があります。",
    "The first sheet (lines %(first)s–%(last)s of your mail) has these problems:": "1枚目のシート（メールの%(first)s～%(last)s行目）に次の問題があります。",
    "The second sheet (lines %(first)s–%(last)s of your mail) has these problems:": "2枚目のシート（メールの%(first)s～%(last)s行目）に次の問題があります。",
    "Test battle results (they do not count in any league). Your unit fought the %(n)s sample units.":
        "テスト対戦の結果です（リーグの成績には関係しません）。サンプルユニット%(n)s体と対戦しました。",
    "Test battle results (they do not count in any league).": "テスト対戦の結果です（リーグの成績には関係しません）。",
    "Note: your mail holds %(n)s sheets; a test battle uses only the first two, the other %(extra)s were not read.":
        "注意: メールにシートが%(n)s枚ありました。テスト対戦に使うのは最初の2枚だけで、残りの%(extra)s枚は読んでいません。",
    'Your entry in league "%(league)s" is withdrawn. Until entries close you can enter again by sending a sheet with the line "key: %(key)s".':
        "リーグ「%(league)s」へのエントリーを取り消しました。締切までならシートに「キー：%(key)s」の行をつけて送り直すと再エントリーできます。",
    'Your entry in league "%(league)s" is withdrawn. Until entries close you can enter again by sending a sheet.':
        "リーグ「%(league)s」へのエントリーを取り消しました。締切までならシートを送り直すと再エントリーできます。",
})

# --- words of the Python code (app/mail, app/reports): subjects, notes, organizer summaries ---
JA.update({
    "%(unit)s wins": "%(unit)sの勝利",
    ("a report's subject", "draw"): "引き分け",
    ("appended to the subject of a mail sent again", " (resent)"): "（再送）",
    "[%(league)s] Round %(round)s: %(a)s vs %(b)s — %(verdict)s": "[%(league)s] 第%(round)s回戦：%(a)s vs %(b)s — %(verdict)s",
    "[%(league)s] The league did not take place (fewer than two entries)": "[%(league)s] リーグは開催されませんでした（参加者が2名未満）",
    "[%(league)s] Entries closed: the pairings of round 1": "[%(league)s] エントリー締切：第1回戦の組み合わせ",
    "[%(league)s] Standings after round %(n)s (final)": "[%(league)s] 第%(n)s回戦終了時の順位表（最終）",
    "[%(league)s] Standings after round %(n)s": "[%(league)s] 第%(n)s回戦終了時の順位表",
    "this result was recorded with engine version %(recorded)s; the log was recomputed with engine version %(current)s and gives the same result.":
        "この結果はエンジン版 %(recorded)s で記録されました。ログはエンジン版 %(current)s で再計算したもので、同じ結果になりました。",
    "this result was recorded with engine version %(recorded)s; the current engine version %(current)s gives a different result, so the log cannot be shown. The recorded result stands.":
        "この結果はエンジン版 %(recorded)s で記録されました。現在のエンジン版 %(current)s では結果が変わるため、ログは表示できません。記録された結果が有効です。",
    "rounds are played when you run them.": "対戦は主催者が実行コマンドで行います。",
    "a round every %(span)s.": "対戦は%(span)sごと。",
    "League %(name)s opened: entries until %(until)s; %(rounds)s": "リーグ %(name)s を開設しました。エントリー締切 %(until)s、%(rounds)s",
    "Entries of %(name)s closed: %(players)s player(s), too few for a battle; the league is finished.":
        "リーグ %(name)s のエントリーを締め切りました。参加者 %(players)s 人で対戦がないため、リーグは終了です。",
    "round 1 at %(when)s": "第1回戦は %(when)s",
    "round 1 when you run it": "第1回戦は実行コマンドで行います",
    "Entries of %(name)s closed: %(players)s players, %(rounds)s rounds; %(at)s.":
        "リーグ %(name)s のエントリーを締め切りました。参加者 %(players)s 人、全 %(rounds)s 回戦、%(at)s。",
    "Entries of %(name)s closed: %(players)s, %(rounds)s; %(at)s.":
        "リーグ %(name)s のエントリーを締め切りました。参加者 %(players)s、全 %(rounds)s、%(at)s。",
    "%(n)s player": ("%(n)s 人",), "%(n)s round": ("%(n)s 回戦",),
    "the round is a number from 1": "回戦は 1 以上の数で指定してください",
    "Round %(number)s of %(name)s sent again: %(n)s mails (reports and standings) queued.":
        "リーグ %(name)s の第%(number)s回戦の対戦報告と順位表を再送します（%(n)s 通）。",
    "Nothing to run in %(name)s: every round is played.": "リーグ %(name)s に実行する回戦はありません（すべて実行済み）。",
    "Round %(number)s of %(name)s played: %(battles)s battles, %(reports)s reports queued.":
        "リーグ %(name)s の第%(number)s回戦を実行しました。対戦 %(battles)s、対戦報告 %(reports)s 通。",
    "Every round is played: the league is finished.": "全回戦が終わり、リーグは終了しました。",
    "%(n)s day": ("%(n)s日",), "%(n)s hour": ("%(n)s時間",), "%(n)s minute": ("%(n)s分",),
    "%(n)s second": ("%(n)s秒",),
    "%(n)s line(s) above the unit line (line %(where)s) were read as a greeting and skipped":
        "ユニット行より前の%(n)s行（%(where)s行目）は挨拶として読み飛ばしました",
    'line %(line)s: the unit name "%(name)s" holds an invisible character (a control, bidi or zero-width character, shown as <U+…>): other players could see it differently, so it cannot be used.\n  Fix: remove that character.':
        "%(line)s行目：ユニット名「%(name)s」に見えない文字（制御文字・双方向制御文字・ゼロ幅文字など、<U+…> の所）があります。ほかのプレイヤーには同じ名前が違って見えたり、違う名前が同じに見えたりするため使えません。\n  直し方：その文字を消してください。",
    "line %(line)s: the unit name has %(n)s characters; at most %(max)s are allowed.\n  Fix: shorten it.":
        "%(line)s行目：ユニット名が%(n)s文字あります。%(max)s文字までにしてください。",
    "(%(more)s more problem(s) not shown: fix these and send the sheet again)":
        "（ほかに%(more)s件の問題があります。上の問題を直してから送り直してください）",
    'Hint: closing remarks ("Thanks," and your name) go below a signature line "-- " (two hyphens and a space, alone on a line) after the sheet; nothing below that line is read.':
        "ヒント: 結びの挨拶や名前はシートの下に書かず、シートの後に「-- 」（ハイフン2つと空白1つ）だけの署名区切り行を置いて、その下に書いてください。その行から下は読みません。",
    "%(a)s vs %(b)s": "%(a)s ― %(b)s",
    # the mail commands' help lines (app/mail/commands: help_en=N_("…"))
    "enter (or replace) a sheet; a mail holding only a sheet does the same": "シートをエントリー（差し替え）。シートだけのメールも同じです",
    "check a sheet without entering it": "シートを検査するだけ（エントリーしない）",
    "test battle (two sheets: against each other; one: against the sample units)": "テスト対戦（シート2枚なら互いに、1枚ならサンプルユニットと）",
    "withdraw your entry": "エントリーを取り消す",
    "(the answer to a confirmation request: just reply to it)": "（確認のお願いへの返事：そのメールに返信するだけです）",
    "the current standings": "現在の順位表",
    "this text": "この説明",
    'send replies in ISO-2022-JP ("charset utf-8" to go back)': "返信を ISO-2022-JP で送る（「文字コード UTF-8」で元に戻す）",
    "create a league": "リーグを開設する",
    "close entries": "エントリーを締め切る",
    "play the next round (or all)": "次の回戦（または全部）を行う",
    "queue a round's reports again": "回戦の対戦報告を再送する",
})


# issue 19: every format first-class (standings in each format's own columns, the hill, the
# knockout bracket, ratings per game, rewrites between rounds)
JA.update({
    "%(num)s challenge": ("%(num)s回の挑戦",),
    "%(num)s round played": ("%(num)s回戦終了",),
    "%(unit)s goes through: %(how)s": "%(unit)sが勝ち上がり（%(how)s）",
    "After round %(n)s.": "第%(n)s回戦終了時点。",
    "Bracket": "トーナメント表",
    ("standings column", "Byes"): "不戦",
    "Challenge": "挑戦",
    "Challenge %(n)s": "挑戦%(n)s",
    "Challenges": "挑戦",
    "Entries are open. Sheets stay secret until entries close.":
        "エントリー受付中です。締切までユニット表は公開されません。",
    "Entries rewritten after this round:": "この回戦のあとに書き換えられたエントリー：",
    "Format: %(format)s": "形式：%(format)s",
    "League %(league)s — standings after round %(n)s": "リーグ %(league)s — 第%(n)s回戦終了時点の順位",
    "League %(league)s — standings after round %(n)s (final)":
        "リーグ %(league)s — 第%(n)s回戦終了時点の順位（最終）",
    ("standings column", "Pl"): "戦",
    ("standings column", "Rank"): "順位",
    "Rank %(rank)s, %(primary)s %(points)s (%(w)s wins, %(d)s draws, %(l)s losses).":
        "%(rank)s位、%(primary)s %(points)s（%(w)s勝%(d)s分%(l)s敗）。",
    ("standings column", "Rating"): "レート",
    "Rating %(r)s in this game (OpenSkill: mu %(mu)s, sigma %(sigma)s; %(n)s games).":
        "このゲームのレーティング %(r)s（OpenSkill：mu %(mu)s、sigma %(sigma)s、%(n)s戦）。",
    "Rating in %(game)s": "%(game)sのレーティング",
    "Rating in this game (OpenSkill, mu - 3 sigma)": "このゲームのレーティング（OpenSkill、mu − 3 sigma）",
    "Ratings are each player's rating in this game (OpenSkill, mu - 3 sigma).":
        "レートは各プレイヤーのこのゲームでのレーティングです（OpenSkill、mu − 3 sigma）。",
    "Recent challenges": "最近の挑戦",
    "Round %(round)s board %(board)s: %(name)s's entry %(old)s is now %(new)s (a rewrite the "
    "battle asked for)":
        "第%(round)s回戦第%(board)s卓：%(name)sのエントリー %(old)s は %(new)s になりました"
        "（戦闘の結果による書き換え）",
    "The hill": "ヒル",
    "The hill is empty: the first entry becomes its first member.":
        "ヒルは空です。最初のエントリーが最初のメンバーになります。",
    ("standings column", "Unit (player)"): "ユニット（プレイヤー）",
    ("hill table header", "W/D/L"): "勝/分/敗",
    "Winner": "優勝",
    "Your earlier unit's results no longer count; the new unit's do.":
        "以前のユニットの成績は数えられなくなり、新しいユニットの成績が数えられます。",
    "a draw with equal HP margins, decided by the seeded lot":
        "引き分け・HP差も同じため、公開シードの抽選で決定",
    "a draw, decided by the HP margin": "引き分け、HP差で決定",
    "always open": "常時受付",
    "always open: every entry or replacement is fought at once":
        "常時受付：エントリーや差し替えはすぐに対戦します",
    "place %(n)s": "%(n)s位",
    ("hill table header", "points"): "勝ち点",
    "pushed off:": "押し出し：",
    ("hill table header", "rank"): "順位",
    "replaced its unit": "ユニットを差し替え",
    ("hill table header", "unit (player)"): "ユニット（プレイヤー）",
    "won": "勝ち",
})


# issue 21: Margaret Magicalized by mail (orders, pairings, checkpoints, READY); and words whose
# gettext call pybabel could not see before (``gettext(lang)("…")``)
JA.update({
    " (exited)": "（退場）",
    "[%(league)s] Pushed off the hill (challenge %(n)s)": "[%(league)s] 山から押し出されました（挑戦%(n)s）",
    "[%(league)s] Round %(round)s: %(a)s vs %(b)s — send your orders":
        "[%(league)s] 第%(round)s回戦：%(a)s 対 %(b)s — 命令を送ってください",
    "== How to send your hand and orders (reply to this mail, or write a new one)":
        "■ 手札と命令の送り方（このメールに返信するか、新しいメールで）",
    "== Your hand and orders (as the server keeps them; only you see them)":
        "■ あなたの手札と命令（サーバが保管する形。見られるのはあなただけです）",
    "== Your opponent's unit": "■ 相手のユニット",
    "== The hill (challenge %(n)s, size %(size)s)": "■ ヒル（第%(n)s挑戦、定員%(size)s）",
    "== Your rules in force (only you get this)": "■ 現在有効なあなたの規則（あなただけに送られます）",
    "A battle of yours is stopped at a checkpoint: it keeps its hand and rules. To change its rules from the next turn on, send a revision:":
        "あなたの対戦がチェックポイントで止まっています。その対戦の手札と規則はそのままです。次のターンからの規則を変えるには、改訂を送ってください：",
    'League "%(league)s" is finished: it takes no more orders.':
        "リーグ「%(league)s」は終了しました。命令はもう受け付けません。",
    'League "%(league)s" plays %(game)s, which takes no orders: the lines from your orders on were not read. Send a sheet alone.':
        "リーグ「%(league)s」は%(game)sで、命令はありません。命令以降の行は読んでいません。シートだけを送ってください。",
    'League "%(league)s", round %(round)s, board %(board)s: your %(unit)s (side %(side)s) meets %(opponent)s (%(player)s).':
        "リーグ「%(league)s」第%(round)s回戦 第%(board)s卓：あなたの%(unit)s（%(side)s側）の相手は%(opponent)s（%(player)s）です。",
    'None of your battles in league "%(league)s" is stopped at a checkpoint, so there is nothing to be READY for (and nothing to revise). To change your orders for later battles, send them whole.':
        "リーグ「%(league)s」でチェックポイントに止まっているあなたの対戦はありません（準備完了も改訂も不要です）。次からの対戦の命令を変えるには、命令を全部送ってください。",
    'Nothing was changed in league "%(league)s": a revision or READY must carry your entry key, on a line "key: XXXX-XXXX" (it is in your acceptance mail and in the mail of the stopped battle).':
        "リーグ「%(league)s」では何も変わっていません。改訂や準備完了には、エントリーキーを「キー：XXXX-XXXX」の行で書いてください（受付メールと、止まった対戦のメールにあります）。",
    "Please fix them and send the orders again.": "直して、命令をもう一度送ってください。",
    'Someone sent new orders for your entry in league "%(league)s" from your address. To make sure it was you, nothing changes until you confirm:':
        "あなたのアドレスから、リーグ「%(league)s」のあなたのエントリーに新しい命令が届きました。ご本人か確かめるため、確認があるまで何も変わりません：",
    "The battle goes on when both players are READY or when its wait is over; you may send another revision until then.":
        "対戦は、両者が準備完了になるか待ち時間が終わると再開します。それまでは改訂を送り直せます。",
    "The battle is then fought again from turn 0 with every version of both players' rules: what happened up to here happens again, the same.":
        "再開すると、両者の規則のすべての版で第0ターンから戦い直します。ここまでに起きたことは同じように起きます。",
    "The battle stopped after turn %(turn)s (a checkpoint of this league). It goes on at %(until)s, or as soon as both players have said READY.":
        "対戦は第%(turn)sターンの後で止まりました（このリーグのチェックポイント）。%(until)sに、または両者が準備完了と言いしだい再開します。",
    "The battle stops after turn(s) %(turns)s; each time you get the state so far and may revise your rules.":
        "対戦は第%(turns)sターンの後で止まります。そのたびにそこまでの状況が届き、規則を改訂できます。",
    "The orders have these problems:": "命令に次の問題があります：",
    "The round is played at %(deadline)s, or as soon as every player of the round has sent orders.":
        "この回戦は%(deadline)sに、またはこの回戦の全員が命令を送りしだい行われます。",
    "The round is played when the organizer starts it, or as soon as every player of the round has sent orders.":
        "この回戦は主催者が始めたとき、またはこの回戦の全員が命令を送りしだい行われます。",
    'This confirmation expired (%(expires)s): nothing was changed in league "%(league)s". Send the orders again if you still want them.':
        "この確認は期限切れです（%(expires)s）。リーグ「%(league)s」では何も変わっていません。必要なら命令をもう一度送ってください。",
    'You are READY in %(num)s battle of league "%(league)s": it goes on as soon as your opponent is READY too, or when its wait is over.':
        ("リーグ「%(league)s」の%(num)s戦で準備完了です。相手も準備完了になるか、待ち時間が終わりしだい再開します。",),
    "You have no orders yet: without them you hold no cards and always pass.":
        "まだ命令がありません。命令がなければ手札なしで、常にパスします。",
    "You may revise your rules from turn %(next)s on (your hand stays as it is): reply with":
        "第%(next)sターンからの規則を改訂できます（手札はそのまま）。次の形で返信してください：",
    'Your entry for league "%(league)s" was not accepted: the sheet is fine, but the orders below it are not (a sheet and its orders are entered together or not at all).':
        "リーグ「%(league)s」へのエントリーは受け付けられませんでした。シートは正しいのですが、その下の命令に問題があります（シートと命令は一緒に登録され、片方だけにはなりません）。",
    "Your hand and rules stay on the server: nobody but you sees them. The reports show the cards played.":
        "手札と規則はサーバに保管され、あなた以外は見られません。対戦報告には使われたカードが載ります。",
    'Your orders for league "%(league)s" are accepted (version %(version)s): they serve each of your battles fought from now on, until you send new ones.':
        "リーグ「%(league)s」への命令を受け付けました（第%(version)s版）。新しい命令を送るまで、これから行われるあなたの対戦すべてに使われます。",
    'Your orders for league "%(league)s" were not accepted; your orders in force stay as they were.':
        "リーグ「%(league)s」への命令は受け付けられませんでした。有効な命令は元のままです。",
    "Your orders played for your unit; its opponents held no cards and always passed (a test never uses anyone's real hand).":
        "あなたのユニットは命令どおりに動き、相手は手札なしで常にパスしました（テストで他人の本当の手札は使いません）。",
    'Your revision for league "%(league)s":': "リーグ「%(league)s」への改訂：",
    "Your standing orders serve this battle unless you send new ones before it is played.":
        "対戦までに新しい命令を送らなければ、今の命令がこの対戦に使われます。",
    "against %(opponent)s: accepted, in force from turn %(turn)s. You are READY in this battle.":
        "%(opponent)s戦：受け付けました。第%(turn)sターンから有効です。この対戦では準備完了です。",
    "against %(opponent)s: not accepted (the rules stay as they were):":
        "%(opponent)s戦：受け付けられませんでした（規則は元のままです）：",
    "at a checkpoint: go on with your orders as they are (with your key line)":
        "チェックポイントで：今の命令のまま続ける（キーの行を添えて）",
    'or with "READY" to go on with your rules as they are. Silence keeps them too. A revision or READY needs the line "key: %(key)s" (your entry key).':
        "今の規則のまま続けるなら「準備完了」と返信してください。返信しなくても規則はそのままです。改訂にも準備完了にも「キー：%(key)s」（あなたのエントリーキー）の行が必要です。",
    "stopped after turn %(turn)s": "第%(turn)sターン後で中断",
    "stopped at a checkpoint": "チェックポイントで中断中",
    "Round %(number)s of %(name)s: %(n)s battles stopped at a checkpoint; the round goes on when their players are ready or their wait is over (or at the next run).":
        "%(name)s 第%(number)s回戦：%(n)s戦がチェックポイントで中断中です。両者の準備完了か待ち時間の終わり（または次の実行）で再開します。",
    "The change asked for, as it was mailed (check that it is yours):":
        "求められた変更（届いたままの内容です。あなたのものか確かめてください）：",
    'Nothing was changed in league "%(league)s": the entry key in your mail is not the key of your entry. Copy it from your acceptance mail or from the mail of the stopped battle.':
        "リーグ「%(league)s」では何も変わっていません。メールのエントリーキーがあなたのエントリーのキーと違います。受付メールか、止まった対戦のメールから写してください。",
    "Send your hand and rules below your sheet, or in a mail of their own like this one (each pairing mail shows it again):":
        "手札と規則は、シートの下に書くか、次のような別のメールで送ってください（組み合わせのメールにも毎回載ります）：",
})


# mail preferences, digests and logs by mail (issues 20 and 22)
JA.update({
    '"%(word)s" is not a mail setting; nothing was changed.':
        "「%(word)s」はメール設定の言葉ではありません。何も変えていません。",
    "%(turns)s turns": "%(turns)sターン",
    "== Standings after round %(round)s": "== 第%(round)s回戦後の順位表",
    "== The full logs of your battles": "== あなたの対戦の全ログ",
    "== Your results (board, result, opponent, turns, HP yours : theirs)":
        "== あなたの結果（卓、結果、相手、ターン数、HP 自分 : 相手）",
    "Board %(board)s: %(title)s": "第%(board)s卓：%(title)s",
    'For the full logs of these battles, send "logs %(league)s %(round)s"; "mail logs always" puts them in every digest.':
        "これらの対戦の全ログは「ログ %(league)s %(round)s」と送ると届きます。"
        "「メール設定 ログ 常に」で毎回のまとめメールに載せます。",
    'League "%(league)s", round %(round)s: the full logs of your %(n)s battles.':
        "リーグ「%(league)s」第%(round)s回戦：あなたの%(n)s戦の全ログです。",
    'League "%(league)s", round %(round)s: you had no battle in that round.':
        "リーグ「%(league)s」第%(round)s回戦：その回戦にあなたの対戦はありません。",
    'League "%(league)s", round %(round)s: your %(n)s battles (%(wins)s won, %(draws)s drawn, %(losses)s lost).':
        "リーグ「%(league)s」第%(round)s回戦：あなたの%(n)s戦"
        "（%(wins)s勝 %(draws)s分 %(losses)s敗）。",
    'League "%(league)s": no round has been played yet.':
        "リーグ「%(league)s」：まだ回戦が行われていません。",
    "Standings: %(url)s": "順位表：%(url)s",
    "To change it, send one of these lines:": "変えるには、次のどれかの行を送ってください：",
    "What the server mails you now:": "サーバがあなたに送るメール（現在）：",
    "You are unsubscribed from league mail: from now on the server mails you only replies to your own mails. Results stay on the web.":
        "リーグのメール配信を停止しました。今後はあなたのメールへの返信だけを送ります。"
        "結果はウェブで見られます。",
    "Your mail setting is changed.": "メール設定を変更しました。",
    "Your unit: %(unit)s": "あなたのユニット：%(unit)s",
    'digests carry no logs (send "logs LEAGUE ROUND" for them)':
        "まとめメールにログは載せません（「ログ リーグ名 回」で届きます）",
    "digests carry the full logs of your battles": "まとめメールにあなたの対戦の全ログを載せます",
    "every report of your battles and the standings after each round":
        "あなたの対戦の報告すべてと、各回戦後の順位表",
    "mail all": "メール設定 全部",
    "mail logs always": "メール設定 ログ 常に",
    "mail logs request": "メール設定 ログ 請求時",
    "mail none": "メール設定 なし",
    "mail own": "メール設定 自分",
    'no more league mail, only replies (same as "mail none")':
        "リーグのメールを止め、返信だけにする（「メール設定 なし」と同じ）",
    "nothing but replies to your own mails (results stay on the web)":
        "あなたのメールへの返信だけ（結果はウェブで見られます）",
    "only your own battles (reports or digests), no standings":
        "自分の対戦だけ（報告またはまとめメール）、順位表なし",
    "the full logs of your own battles of a round (default: the last one)":
        "ある回戦のあなたの対戦の全ログ（省略時は最後の回戦）",
    "vs %(unit)s (%(player)s)": "対 %(unit)s（%(player)s）",
    'what the server mails you: all (reports and standings), own (only your battles), none (only replies); "mail logs always" puts the logs in digests':
        "サーバが送るメール：全部（報告と順位表）、自分（自分の対戦だけ）、なし（返信だけ）。"
        "「メール設定 ログ 常に」でまとめメールにログを載せます",
    "[%(league)s] Round %(round)s: your %(n)s battles":
        "[%(league)s] 第%(round)s回戦：あなたの%(n)s戦",
})


# issue 20 (organizer branch): organizer commands read and confirm every argument; a hill caps
# the challenges of an entry a day; replies that no longer mislead
JA.update({
    'the subject says "%(subject)s" and the body "%(body)s"; write the command once':
        "件名は「%(subject)s」、本文は「%(body)s」で食い違っています。コマンドは一度だけ書いてください",
    "words not understood: %(words)s": "読めない語：%(words)s",
    "Format: %(text)s": "形式：%(text)s",
    "Ruleset: %(text)s": "ルール：%(text)s",
    "Entries until: %(until)s": "受付締切：%(until)s",
    "Rounds: played when you run them": "回戦：実行コマンドで行います",
    "Rounds: one every %(span)s": "回戦：%(span)sごと",
    "League %(name)s opened.": "リーグ %(name)s を開設しました。",
    'Your entry in league "%(league)s" has made %(limit)s challenges today, the most the league '
    'allows in a day. This sheet was not entered and did not fight: your entered unit stays as it '
    'was. Send it again after %(until)s.':
        "リーグ「%(league)s」でのあなたのエントリーは今日すでに%(limit)s回挑戦しました。"
        "1日の上限です。このユニット表は登録されず、対戦もしていません。登録済みのユニットは"
        "そのままです。%(until)s以降にもう一度送ってください。",
    'Nothing changed: your unit %(unit)s stays entered in league "%(league)s".':
        "変更はありません。リーグ「%(league)s」には引き続きユニット %(unit)s が登録されています。",
    'Your entry in league "%(league)s" is withdrawn. The league takes entries at any time: you '
    'can enter again by sending a sheet with the line "key: %(key)s".':
        "リーグ「%(league)s」へのエントリーを取り消しました。このリーグはいつでもエントリーを"
        "受け付けています。「キー：%(key)s」の行を付けてユニット表を送れば、再びエントリーできます。",
    'Your entry in league "%(league)s" is withdrawn. The league takes entries at any time: you '
    'can enter again by sending a sheet.':
        "リーグ「%(league)s」へのエントリーを取り消しました。このリーグはいつでもエントリーを"
        "受け付けています。ユニット表を送れば、再びエントリーできます。",
    ("a league's game and format", "%(game)s, %(format)s"): "%(game)s・%(format)s",
    "Example sheet (%(game)s):": "ユニット表の例（%(game)s）：",
})


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
