"""The battle report of a Magicalized battle (§4.4): the public report and each side's private
block, in Japanese or English, as the generic :class:`~app.rules.base.BattleReport`.

* **Public** (pages, feeds, both players): per turn, the status phase, each action with its
  predicted and actual sword and its effects; for every window where a card was played, the
  stack transcript as indented lines (player, card, declaration, then each resolution:
  resolved, target gone, countered, forbidden by 対策); the all-pass windows as a count; after the
  turn, both state lines, the discards, hand sizes and bans. At the end the §8.12 verdict, the
  cards used and (when the league reveals them, G21) the unplayed cards.
* **Private** (:class:`~app.rules.base.PrivateBlock`, one per side, only in
  ``Ruleset.report_for(…, side=s)``): the remaining hand and the rule trace (which rule fired,
  which were skipped and why).

Pure: no I/O, no templates.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from app.rules.amaryllis.vocab import zen
from app.rules.base import BattleReport, Outcome, PrivateBlock, ReportLine, ReportTurn, StateLine
from app.rules.margaret.model import Sword

from .events import CardRecord, MagicResult, SmState
from .notation import TABLE
from .swords import CARD, ENCHANT_NAME, STATUS_NAME

_KIND = {
    "ACT": ("行動", "ACT"),
    "VANISH": ("消滅", "VANISH"),
    "REFLECT": ("反射", "REFLECT"),
    "HIT": ("命中", "HIT"),
    "EFFECT": ("効果", "EFFECT"),
    "DEATH": ("死亡", "DEATH"),
    "CARD": ("カード", "CARD"),
}
_RESULT = {
    "resolved": ("解決", "resolved"),
    "target gone": ("対象消失", "target gone"),
    "countered": ("打ち消し", "countered"),
    "forbidden": ("対策で禁止", "forbidden by 対策"),
}
_STAT = {
    "atk": ("攻撃力", "ATK"),
    "df": ("防御力", "DEF"),
    "spd": ("素早さ", "SPD"),
    "hp": ("ＨＰ", "HP"),
}


def _z(n: int, lang: str) -> str:
    return zen(str(n)) if lang == "ja" else str(n)


def sword_name(code: str, lang: str) -> str:
    """A sword's name in ``lang`` (``死`` → ``デス剣`` / ``Death Sword``)."""
    try:
        return TABLE.sword_name(Sword(code), lang)
    except KeyError:
        return code


def card_name(code: str, lang: str) -> str:
    """A card's name with its code: ``凍れる世界（凍）`` / ``Frozen World (凍)``."""
    c = CARD[code]
    return f"{c.name}（{c.code}）" if lang == "ja" else f"{c.en} ({c.code})"


def state_text(s: SmState, who: str, lang: str) -> str:
    """A state line in the seed's style (Hundred §12.12):
    ``ミラ：１０／１／０／３／導来剣、デス剣　＜シールド＞``."""
    ja = lang == "ja"
    ench = {e[0]: e for e in s.enchants}
    names = []
    for i, code in enumerate(s.swords):
        text = sword_name(code, lang)
        if i in ench:
            _, unseen, se, pe, early = ench[i]
            tags = (["unseen"] if unseen else []) + ["se"] * se + ["pe"] * pe + ["early"] * early
            text += "".join(
                f"＜{ENCHANT_NAME[t]['ja']}＞" if ja else f" <{ENCHANT_NAME[t]['en']}>"
                for t in tags
            )
        names.append(text)
    statuses = []
    for attr, count in s.statuses:
        word = STATUS_NAME[attr][lang]
        if count > 1:
            word += f"×{_z(count, lang)}" if ja else f" x{count}"
        statuses.append(word)
    nums = (s.hp, s.atk, s.df, s.spd)
    if ja:
        line = f"{who}：" + "／".join(_z(v, lang) for v in nums)
        if names:
            line += "／" + "、".join(names)
        if statuses:
            line += "　" + "".join(f"＜{x}＞" for x in statuses)
        return line + ("　（死亡）" if s.dead else "")
    line = f"{who}: " + "/".join(str(v) for v in nums)
    if names:
        line += "/" + ", ".join(names)
    if statuses:
        line += " " + "".join(f"<{x}>" for x in statuses)
    return line + (" (dead)" if s.dead else "")


class _Words:
    def __init__(self, names: tuple[str, str], lang: str) -> None:
        self.names = names
        self.lang = lang
        self.ja = lang == "ja"

    def who(self, side: int) -> str:
        return self.names[side]

    def effect(self, e: tuple[Any, ...]) -> str:
        ja, lang, who = self.ja, self.lang, self.who
        k = e[0]
        if k == "hit":
            _, side, _code, raw, shield, burn, freeze, dmg, failed, hp = e
            notes = []
            if shield:
                notes.append("シールド" if ja else "Shield")
            if burn:
                notes.append(f"燃える世界×{_z(burn, lang)}" if ja else f"Burning World x{burn}")
            if freeze:
                notes.append(f"凍れる世界×{_z(freeze, lang)}" if ja else f"Frozen World x{freeze}")
            note = ""
            if notes:
                note = (
                    f"（{_z(raw, lang)}→{_z(dmg, lang)}、" + "、".join(notes) + "）"
                    if ja
                    else f" ({raw} -> {dmg}, " + ", ".join(notes) + ")"
                )
            if failed:
                return f"{who(side)}への攻撃失敗{note}" if ja else f"fails on {who(side)}{note}"
            return (
                f"{who(side)}に{_z(dmg, lang)}ダメージ{note}（ＨＰ{_z(hp, lang)}）"
                if ja
                else f"{dmg} damage to {who(side)}{note} (HP {hp})"
            )
        if k == "reflect":
            return (
                f"{who(e[1])}の反射で{who(e[2])}へ"
                if ja
                else f"reflected by {who(e[1])} to {who(e[2])}"
            )
        if k == "gain":
            name = STATUS_NAME[e[2]][lang]
            n = (f"×{_z(e[3], lang)}" if ja else f" ({e[3]})") if e[3] > 1 else ""
            return f"{who(e[1])}に状態「{name}」{n}" if ja else f"{who(e[1])} gains {name}{n}"
        if k == "stat":
            w = _STAT[e[2]][0 if ja else 1]
            return f"{who(e[1])}の{w}{_z(e[3], lang)}" if ja else f"{who(e[1])}'s {w} {e[3]}"
        if k == "early":
            n = sword_name(e[2], lang)
            return f"{who(e[1])}の{n}に＜早期起動＞" if ja else f"{who(e[1])}'s {n} gains <early>"
        if k == "fizzle":
            why = {
                "no-target": ("次の剣がない", "no next sword"),
                "vanished": ("対象の剣が消滅", "its target vanished"),
            }[e[2]]
            return f"効果なし（{why[0]}）" if ja else f"no effect ({why[1]})"
        if k == "vanish":
            n = sword_name(e[2], lang)
            return f"{who(e[1])}の{n}が消滅" if ja else f"{who(e[1])}'s {n} vanishes"
        if k == "kept":
            n = sword_name(e[2], lang)
            return (
                f"{who(e[1])}の{n}の消滅を打ち消し（使用済み）"
                if ja
                else f"{who(e[1])}'s {n} does not vanish (used)"
            )
        if k == "die":
            return (
                f"{who(e[1])}死亡（ＨＰ{_z(e[2], lang)}）"
                if ja
                else f"{who(e[1])} dies (HP {e[2]})"
            )
        if k == "revive":
            by = e[2]
            if by == "soul-failed":
                return (
                    f"{who(e[1])}のソウル発動、ＨＰ{_z(e[3], lang)}で復活できず"
                    if ja
                    else f"{who(e[1])}'s Soul fires: HP {e[3]}, stays dead"
                )
            if by == "hp":
                return (
                    f"{who(e[1])}が生き返った（ＨＰ{_z(e[3], lang)}）"
                    if ja
                    else f"{who(e[1])} lives again (HP {e[3]})"
                )
            name = STATUS_NAME[by][lang]
            return (
                f"{who(e[1])}の{name}発動、復活（ＨＰ{_z(e[3], lang)}）"
                if ja
                else f"{who(e[1])}'s {name} fires: revived (HP {e[3]})"
            )
        if k == "poison":
            return (
                f"{who(e[1])}に毒で{_z(e[2], lang)}ダメージ（ＨＰ{_z(e[3], lang)}）"
                if ja
                else f"{who(e[1])} takes {e[2]} Poison damage (HP {e[3]})"
            )
        return " ".join(str(x) for x in e)

    def detail(self, d: tuple[Any, ...]) -> str:
        """What a resolved card did."""
        ja, lang, who = self.ja, self.lang, self.who
        if not d:
            return ""
        k = d[0]
        if k == "rainbow":
            return self.detail(d[1])
        if k == "burn":
            return (
                f"このターンのダメージ×２（{_z(d[1], lang)}枚）"
                if ja
                else f"damage x2 this turn ({d[1]})"
            )
        if k == "freeze":
            return (
                f"このターンのダメージ半減（{_z(d[1], lang)}枚）"
                if ja
                else f"damage halved this turn ({d[1]})"
            )
        if k == "years":
            return (
                f"ターン数が{_z(d[1], lang)}に、両世界消滅"
                if ja
                else f"the turn number is now {d[1]}; both worlds end"
            )
        if k == "ap":
            return f"{who(d[1])}のＡＰ{_z(d[2], lang)}" if ja else f"{who(d[1])}'s AP {d[2]}"
        if k == "gain":
            return self.effect(d)
        if k == "enchant":
            n = sword_name(d[2], lang)
            e = ENCHANT_NAME[d[3]]["ja" if ja else "en"]
            return f"{who(d[1])}の{n}に＜{e}＞" if ja else f"{who(d[1])}'s {n} gains <{e}>"
        if k == "vanish":
            return self.effect(("vanish", d[1], d[2]))
        if k == "counter":
            c = card_name(d[2], lang)
            return f"{who(d[1])}の{c}を打ち消し" if ja else f"counters {who(d[1])}'s {c}"
        if k == "keep":
            n = sword_name(d[2], lang)
            return (
                f"{who(d[1])}の{n}の消滅を打ち消し"
                if ja
                else f"cancels the vanishing of {who(d[1])}'s {n}"
            )
        if k == "add":
            n = sword_name(d[2], lang)
            return (
                f"{who(d[1])}の{_z(d[3], lang)}番目に{n}"
                if ja
                else f"{n} at position {d[3]} of {who(d[1])}'s list"
            )
        if k == "order":
            names = ("、" if ja else ", ").join(sword_name(c, lang) for c in d[2])
            return f"{who(d[1])}の剣の順：{names}" if ja else f"{who(d[1])}'s swords: {names}"
        if k == "dispel":
            parts = [
                f"{STATUS_NAME[a][lang]}×{_z(n, lang)}" if ja else f"{STATUS_NAME[a][lang]} x{n}"
                for a, n in d[2]
            ]
            gone = ("、" if ja else ", ").join(parts) or ("なし" if ja else "nothing")
            return f"{who(d[1])}の状態を消去：{gone}" if ja else f"removes {who(d[1])}'s {gone}"
        if k == "ban":
            c = card_name(d[2], lang)
            return (
                f"{who(d[1])}は以後{c}を使えない" if ja else f"{who(d[1])} may no longer play {c}"
            )
        return " ".join(str(x) for x in d)

    def window(self, e: tuple[Any, ...]) -> list[str]:
        """A window's stack transcript, one line per play and per resolution."""
        ja, lang = self.ja, self.lang
        kind = _KIND[e[2]][0 if ja else 1]
        out = []
        for st in e[4]:
            if st[0] == "play":
                where = _KIND[st[4]][0 if ja else 1]
                out.append(
                    f"［{kind}の窓］{self.who(st[1])}：{card_name(st[2], lang)}「{st[3]}」"
                    + (f"（{where}に）" if st[4] == "CARD" else "")
                    if ja
                    else f"[{kind} window] {self.who(st[1])} plays {card_name(st[2], lang)} "
                    f'"{st[3]}"' + (" on a card" if st[4] == "CARD" else "")
                )
            else:
                res = _RESULT[st[3]][0 if ja else 1]
                d = self.detail(st[4]) if st[3] == "resolved" else ""
                out.append(
                    f"　→ {self.who(st[1])}の{card_name(st[2], lang)}：{res}"
                    + (f"（{d}）" if d else "")
                    if ja
                    else f"  -> {self.who(st[1])}'s {card_name(st[2], lang)}: {res}"
                    + (f" ({d})" if d else "")
                )
        return out


def _procedures(events: Sequence[tuple[Any, ...]]) -> list[list[tuple[Any, ...]]]:
    groups: list[list[tuple[Any, ...]]] = []
    for e in events:
        if e[0] in ("action", "check") or not groups:
            groups.append([e])
        else:
            groups[-1].append(e)
    return groups


def _action_lines(proc: Sequence[tuple[Any, ...]], w: _Words) -> list[ReportLine]:
    ja, lang = w.ja, w.lang
    head = proc[0]
    if head[0] != "action":  # events outside an action (the death check after turn 0)
        return [ReportLine(w.effect(e), "status") for e in proc]
    _, leader, sides, predicted = head
    parts: list[str] = []
    children: list[str] = []
    actor_text = {}
    for e in proc[1:]:
        k = e[0]
        if k in ("act", "skip"):
            side = e[1]
            pred = predicted[sides.index(side)]
            if k == "act":
                name = sword_name(e[2], lang)
                note = ""
                if pred != e[2]:
                    p = (
                        ("スタン" if ja else "Stun")
                        if pred == "STUN"
                        else (
                            ("なし" if ja else "none")
                            if pred == "WHIFF"
                            else sword_name(pred, lang)
                        )
                    )
                    note = f"（予測：{p}）" if ja else f" (predicted: {p})"
                text = f"{w.who(side)}の{name}{note}" if ja else f"{w.who(side)}: {name}{note}"
            elif e[2] == "stun":
                text = (
                    f"{w.who(side)}はスタンで行動できない"
                    if ja
                    else f"{w.who(side)} is stunned and loses the action"
                )
            else:
                text = (
                    f"{w.who(side)}は実行できる剣がない"
                    if ja
                    else f"{w.who(side)} has no sword to execute"
                )
            actor_text[side] = text
            parts.append(text)
            children.append(text)
        elif k == "window":
            children.extend(w.window(e))
        else:
            t = w.effect(e)
            parts.append(t)
            children.append(t)
    windows = any(e[0] == "window" for e in proc)
    if len(sides) == 2:
        title = (
            f"【同時行動】（先介入：{w.who(leader)}）"
            if ja
            else f"[simultaneous] (leads: {w.who(leader)})"
        )
        return [
            ReportLine(
                title, "simultaneous", None, tuple(ReportLine(c, "action") for c in children)
            )
        ]
    if windows:
        head_text = actor_text.get(sides[0], "")
        rest = list(children)
        if head_text in rest:
            rest.remove(head_text)
        return [
            ReportLine(head_text, "action", sides[0], tuple(ReportLine(c, "action") for c in rest))
        ]
    sep = "　⇒" if ja else " => "
    return [ReportLine(sep.join(parts), "action", sides[0])]


def _turn_lines(events: Sequence[tuple[Any, ...]], w: _Words) -> list[ReportLine]:
    out: list[ReportLine] = []
    pre: list[tuple[Any, ...]] = []
    body: list[tuple[Any, ...]] = []
    for e in events:
        if e[0] == "poison" or (e[0] in ("die", "revive") and not body):
            pre.append(e)
        else:
            body.append(e)
    for e in pre:
        out.append(
            ReportLine(
                ("［状態の効果］" if w.ja else "[status phase] ") + w.effect(e), "status", e[1]
            )
        )
    for proc in _procedures(body):
        if proc[0][0] != "action":
            for e in proc[1:] if proc[0][0] == "check" else proc:
                if e[0] in ("die", "revive"):
                    label = (
                        "［第０ターン直後の死亡判定］" if w.ja else "[death check after turn 0] "
                    )
                    out.append(ReportLine(label + w.effect(e), "death", e[1]))
            continue
        out.extend(_action_lines(proc, w))
    return out


def report_turns(r: MagicResult, names: tuple[str, str], lang: str) -> list[ReportTurn]:
    """Every turn of a logged result as lines and state lines. Raises ``ValueError`` for a
    result computed with ``log=False``."""
    if not r.events:
        raise ValueError("the battle was fought without a log; fight it with log=True")
    w = _Words(names, lang)
    ja = lang == "ja"
    turns: list[ReportTurn] = []
    current: list[tuple[Any, ...]] = []
    quiet = 0
    for e in r.events:
        k = e[0]
        if k == "turn":
            current, _start, quiet = [], e[1], 0
            continue
        if k == "quiet":
            quiet += e[1]
            continue
        if k != "end":
            current.append(e)
            continue
        lines = _turn_lines(current, w)
        if quiet:
            lines.append(
                ReportLine(
                    f"全員パスの窓：{_z(quiet, lang)}"
                    if ja
                    else f"windows where everyone passed: {quiet}",
                    "quiet",
                )
            )
        _, T, states, discards, hand_sizes, bans = e
        if discards:
            names_d = ("、" if ja else ", ").join(
                f"{CARD[c].code}（{w.who(p)}）" if ja else f"{CARD[c].code} ({w.who(p)})"
                for p, c in discards
            )
            lines.append(
                ReportLine(f"捨て札：{names_d}" if ja else f"discards: {names_d}", "cards")
            )
        hs = (
            f"手札：{w.who(0)} {_z(hand_sizes[0], lang)}枚、{w.who(1)} {_z(hand_sizes[1], lang)}枚"
            if ja
            else f"hand sizes: {w.who(0)} {hand_sizes[0]}, {w.who(1)} {hand_sizes[1]}"
        )
        lines.append(ReportLine(hs, "cards"))
        for side in (0, 1):
            if bans[side]:
                b = ("、" if ja else ", ").join(card_name(c, lang) for c in bans[side])
                lines.append(
                    ReportLine(
                        f"{w.who(side)}の禁止：{b}" if ja else f"forbidden to {w.who(side)}: {b}",
                        "cards",
                        side,
                    )
                )
        row = []
        for st in states:
            s = SmState(*st)
            row.append(
                (
                    StateLine(
                        names[s.side],
                        state_text(s, names[s.side], lang),
                        s.hp,
                        s.max_hp,
                        not s.dead,
                        s.dead,
                    ),
                )
            )
        turns.append(ReportTurn(T, tuple(lines), (row[0], row[1])))
        current = []
    return turns


def display_names(final: tuple[SmState, SmState], lang: str) -> tuple[str, str]:
    """Both names; equal names get their side (``（Ａ）``/``(A)``), an empty one its side."""
    a, b = final[0].name or "A", final[1].name or "B"
    if a == b:
        return (a + "（Ａ）", b + "（Ｂ）") if lang == "ja" else (a + " (A)", b + " (B)")
    return a, b


def verdict(r: MagicResult, names: tuple[str, str], lang: str) -> str:
    """``ミラの勝利`` / ``Mira wins``, the draw, or the checkpoint."""
    ja = lang == "ja"
    if r.checkpoint is not None:
        return (
            f"第{_z(r.turns, lang)}ターン終了時点（チェックポイント）"
            if ja
            else f"State after turn {r.turns} (checkpoint)"
        )
    if r.winner is None:
        return "引き分け" if ja else "Draw"
    return f"{names[r.winner]}の勝利" if ja else f"{names[r.winner]} wins"


def explanation(r: MagicResult, names: tuple[str, str], lang: str, reveal: bool) -> tuple[str, ...]:
    """Why (§8.12 vocabulary, G62), the cards used, and the unplayed cards (G21)."""
    ja = lang == "ja"
    t = _z(r.turns, lang)
    ta, tb = r.totals
    out = []
    if r.checkpoint is not None:
        pass
    elif r.reason == "death":
        loser = names[1 - (r.winner or 0)]
        out.append(f"（第{t}ターン、{loser}死亡）" if ja else f"(turn {r.turns}: {loser} died)")
    elif r.by == "overkill":
        out.append(
            f"（第{t}ターン、両者死亡。オーバーキル {names[0]} {_z(ta, lang)}、"
            f"{names[1]} {_z(tb, lang)}、少ない方の勝ち）"
            if ja
            else f"(turn {r.turns}: both died; overkill {names[0]} {ta}, {names[1]} {tb}, "
            f"smaller wins)"
        )
    else:
        out.append(
            f"（第{t}ターン終了、ＨＰ比較 {names[0]} {_z(ta, lang)}、{names[1]} {_z(tb, lang)}）"
            if ja
            else f"(turn {r.turns} over; HP {names[0]} {ta}, {names[1]} {tb})"
        )
    pa, pb = r.push
    if (pa or pb) and r.checkpoint is None and r.by != "death":
        out.append(
            f"プッシュ {names[0]} {_z(pa, lang)}、{names[1]} {_z(pb, lang)}"
            if ja
            else f"Push {names[0]} {pa}, {names[1]} {pb}"
        )
    for side in (0, 1):
        used = [c for c in r.cards if c.side == side]
        cards = ("、" if ja else ", ").join(c.card for c in used) or ("なし" if ja else "none")
        out.append(
            f"{names[side]}の使用カード：{cards}"
            if ja
            else f"cards played by {names[side]}: {cards}"
        )
    if reveal and r.checkpoint is None:
        for side in (0, 1):
            left = ("、" if ja else ", ").join(r.hands[side]) or ("なし" if ja else "none")
            out.append(
                f"{names[side]}の残りの手札：{left}"
                if ja
                else f"{names[side]}'s unplayed cards: {left}"
            )
    return tuple(out)


_REASON = {
    "fired in this window": ("この窓で発動済み", "already fired in this window"),
    "ONCE": ("ONCE：発動済み", "ONCE: fired before"),
    "not in hand": ("手札にない", "card not in hand"),
    "banned": ("対策で禁止", "card banned"),
    "discard not in hand": ("捨てるカードが手札にない", "discard not in hand"),
    "no such sword": ("対象の剣がない", "target gone"),
    "not an attack sword": ("攻撃の剣ではない", "not an attack sword"),
    "position beyond n+1": ("位置が剣の数＋１を超える", "position beyond n+1"),
    "not a sword of the receiver": ("受け取る側の剣ではない", "not a sword of the receiver"),
    "more copies named than present": ("その剣が足りない", "more copies named than present"),
    "holds none of those statuses": ("その状態がない", "holds none of those statuses"),
    "kind not used by that player": ("まだ使われていない種類", "kind not used by that player"),
    "already banned": ("すでに禁止", "already banned"),
    "no pending vanishing": ("打ち消す消滅がない", "no pending vanishing"),
}


def private_block(r: MagicResult, side: int, names: tuple[str, str], lang: str) -> PrivateBlock:
    """``side``'s private block: its remaining hand and its rule trace (§4.4)."""
    ja = lang == "ja"
    lines = []
    hand = ("、" if ja else ", ").join(card_name(c, lang) for c in r.hands[side])
    lines.append(f"残りの手札：{hand or 'なし'}" if ja else f"remaining hand: {hand or 'none'}")
    trace, omitted = r.traces[side]
    played = iter([c for c in r.cards if c.side == side])
    for turn, kind, wid, start, no, outcome in trace:
        where = (
            f"第{_z(turn, lang)}ターン {_KIND[kind][0]}の窓#{wid}"
            if ja
            else f"turn {turn}, {_KIND[kind][1]} window #{wid}"
        )
        ver = (f"版{_z(start, lang)}" if ja else f"version from turn {start}") if start else ""
        rule = f"{ver}規則{_z(no, lang)}" if ja else f"rule {no}" + (f" ({ver})" if ver else "")
        if outcome == "fired":
            card: CardRecord | None = next(played, None)
            res = ""
            if card is not None:
                res = (
                    f"「{card.args}」→{_RESULT[card.result][0]}"
                    if ja
                    else f'"{card.args}" -> {_RESULT[card.result][1]}'
                )
            lines.append(f"{where}：{rule} 発動 {res}" if ja else f"{where}: {rule} fired {res}")
        else:
            if outcome.startswith("condition "):
                k = outcome.split()[1]
                why = f"条件{_z(int(k), lang)}が不成立" if ja else f"condition {k} false"
            else:
                why = _REASON.get(outcome, (outcome, outcome))[0 if ja else 1]
            lines.append(
                f"{where}：{rule} 見送り（{why}）" if ja else f"{where}: {rule} skipped: {why}"
            )
    if omitted:
        lines.append(f"……ほか{_z(omitted, lang)}件" if ja else f"… and {omitted} more")
    title = (
        f"{names[side]}だけへの情報（相手には送られません）"
        if ja
        else f"For {names[side]} only (not sent to the opponent)"
    )
    return PrivateBlock(side, title, tuple(lines))


def build_report(
    r: MagicResult,
    outcome: Outcome,
    *,
    sheets: tuple[str, str],
    lang: str,
    header: tuple[str, ...],
    reveal: bool,
    side: int | None,
) -> BattleReport:
    """The :class:`BattleReport` of a logged result: public, plus ``side``'s private block when
    ``side`` is 0 or 1."""
    names = display_names(r.final, lang)
    ja = lang == "ja"
    lead = (
        f"先介入：偶数ターンは{names[r.lead]}、奇数ターンは{names[1 - r.lead]}"
        if ja
        else f"first to intervene: {names[r.lead]} in even turns, {names[1 - r.lead]} in odd turns"
    )
    private = (private_block(r, side, names, lang),) if side in (0, 1) else ()
    return BattleReport(
        lang=lang,
        header=(*header, lead),
        names={"A": names[0], "B": names[1]},
        sheets=sheets,
        turns=tuple(report_turns(r, names, lang)),
        verdict=verdict(r, names, lang),
        explanation=explanation(r, names, lang, reveal),
        outcome=outcome,
        private=private,
        checkpoint=r.checkpoint,
    )
