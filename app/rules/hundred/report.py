"""The battle report of a Margaret Hundred battle, in Japanese (the seed's style) or English.

Source: ``rules/margaret-hundred.md`` §12.12. Built from the event log of ``events.py`` into the
generic :class:`~app.rules.base.BattleReport`: one line per action (the sword, then every effect
joined with ``⇒``), the status phase, exits and expiries as their own lines, and after each turn
the state line of every swordmaster of both parties (present ones front first, then exited ones).

A long battle must still read well in a mail, so repeats are folded: identical hits of one
attack (光速剣's 100) become ``１ダメージ×１００``, identical effects on several swords one effect
with a count, and consecutive identical action lines one line ending in ``×１２``. A procedure
with several holders is one ``【同時行動】`` line whose children are its actions in processing
order; the actions of a super-simultaneous pair are marked ``（超同時）``.

Pure: no I/O, no templates.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Mapping, Sequence
from typing import Any

from app.rules.amaryllis.vocab import zen
from app.rules.base import BattleReport, Outcome, ReportLine, ReportTurn, StateLine

from .events import HundredResult, SmState
from .model import Sword
from .swords import KIND_NAMES, STATUS_NAME
from .table import TABLE

SIM = {"ja": "【同時行動】", "en": "[simultaneous]"}
SUPER = {"ja": "（超同時）", "en": "(super-simultaneous) "}
_STAT = {
    "atk": ("攻撃力", "ATK"),
    "df": ("防御力", "DEF"),
    "spd": ("素早さ", "SPD"),
    "mp": ("MP", "MP"),
    "ap": ("AP", "AP"),
    "max_hp": ("最大ＨＰ", "max HP"),
    "hp": ("ＨＰ", "HP"),
}
_ENCH = {
    "se": ("スタン与え", "Stun"),
    "pe": ("毒与え", "Poison"),
    "whole": ("全体化", "Whole"),
    "elim": ("リミテッド", "Limited"),
    "early": ("早期起動", "Early"),
}
_WHY = {
    "eternal": ("永絶", "eternity: built this turn"),
    "abort": ("流産", "Abort"),
    "full": ("パーティ上限", "party full"),
    "no-target": ("対象なし", "no target"),
    "vanished": ("対象が消滅", "its target vanished"),
    "hp-below-half": ("ＨＰが半分未満", "HP below half"),
    "already-limited": ("すでに＜リミテッド＞", "already limited"),
    "wrong-kind": ("対象の種別が違う", "wrong kind of target"),
}

Who = Callable[[int, int], str]


def _z(n: int, lang: str) -> str:
    return zen(str(n)) if lang == "ja" else str(n)


def sword_name(label: str, lang: str) -> str:
    """The name of a sword logged by its compact code (``回3`` → ``回復剣3``/``Heal Sword 3``)."""
    m = re.fullmatch(r"(.+?)(\.?)([0-9]*)", label)
    code, digits = (m.group(1), m.group(3)) if m else (label, "")
    try:
        return TABLE.sword_name(Sword(code, int(digits) if digits else None), lang)
    except KeyError:
        return label


def display_names(roster: Mapping[tuple[int, int], str], lang: str) -> dict[tuple[int, int], str]:
    """Every swordmaster's display name: its name; a built one adds ``#serial``; when the two
    sides share a name, each adds its side (``（Ａ）``/``(A)``)."""
    sides: dict[str, set[int]] = {}
    for (side, _sm), name in roster.items():
        sides.setdefault(name, set()).add(side)
    out = {}
    for (side, sm), name in roster.items():
        shown = name if sm == 0 else f"{name}#{sm}"
        if len(sides[name]) > 1:
            shown += ("（Ａ）", "（Ｂ）")[side] if lang == "ja" else (" (A)", " (B)")[side]
        out[(side, sm)] = shown
    return out


def state_text(s: SmState, who: str, lang: str) -> str:
    """A state line: ``名前：ＨＰ／攻撃力／防御力／素早さ／剣、剣　＜状態＞　ＭＰn`` (§12.12)."""
    ja = lang == "ja"
    ench = {e[0]: e for e in s.enchants}
    names = []
    for i, label in enumerate(s.swords):
        text = sword_name(label, lang)
        if i in ench:
            _, se, pe, whole, elim, early = ench[i]
            tags = (
                [_ENCH["se"][0 if ja else 1]] * se
                + [_ENCH["pe"][0 if ja else 1]] * pe
                + ([_ENCH["whole"][0 if ja else 1]] if whole else [])
                + ([_ENCH["elim"][0 if ja else 1]] if elim else [])
                + [_ENCH["early"][0 if ja else 1]] * early
            )
            text += "".join(f"＜{t}＞" if ja else f" <{t}>" for t in tags)
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
        if s.mp:
            line += f"　ＭＰ{_z(s.mp, lang)}"
        if s.exited:
            line += "　（退場）"
        return line
    line = f"{who}: " + "/".join(str(v) for v in nums)
    if names:
        line += "/" + ", ".join(names)
    if statuses:
        line += " " + "".join(f"<{x}>" for x in statuses)
    if s.mp:
        line += f" MP {s.mp}"
    if s.exited:
        line += " (exited)"
    return line


class _Lines:
    """Turns events into report lines for one battle."""

    def __init__(self, who: Who, lang: str) -> None:
        self.who = who
        self.lang = lang
        self.ja = lang == "ja"

    # -- one effect ---------------------------------------------------------------------------

    def effect(self, e: tuple[Any, ...], count: int = 1, each: bool = False) -> str:
        ja, lang, who = self.ja, self.lang, self.who
        k = e[0]

        def z(n: int) -> str:
            return _z(n, lang)

        times = (f"×{z(count)}" if ja else f" x{count}") if count > 1 else ""
        if k == "hit":
            _, side, sm, tempo, raw, dv, pr, dmg, failed, mp, value = e
            t = who(side, sm)
            notes = []
            if dv == 2:
                notes.append("ドライブ＋３" if ja else "Drive +3")
            elif dv == 1:
                notes.append("ドライブ（攻撃力０）" if ja else "Drive (ATK 0)")
            if pr:
                name = STATUS_NAME[pr][lang]
                notes.append(
                    f"{name} {z(raw + (3 if dv == 2 else 0))}→{z(dmg)}"
                    if ja
                    else f"{name} {raw + (3 if dv == 2 else 0)} -> {dmg}"
                )
            note = (
                ("（" + "、".join(notes) + "）" if ja else " (" + ", ".join(notes) + ")")
                if notes
                else ""
            )
            if failed:
                return f"{t}への攻撃失敗{times}{note}" if ja else f"fails on {t}{times}{note}"
            unit = "MP" if mp else ("ＨＰ" if ja else "HP")
            if ja:
                return (
                    f"{t}{'のMP' if mp else ''}に{'各' if each else ''}{z(dmg)}ダメージ"
                    f"{times}{note}（{unit}{z(value)}）"
                )
            return (
                f"{dmg} damage{times}{' each' if each else ''} to {t}{'’s MP' if mp else ''}"
                f"{note} ({unit} {value})"
            )
        if k == "reflect":
            return (
                f"{who(e[1], e[2])}の反射で{who(e[3], e[4])}へ"
                if ja
                else f"reflected by {who(e[1], e[2])} to {who(e[3], e[4])}"
            )
        if k == "dodge":
            return f"{who(e[1], e[2])}が見切り" if ja else f"dodged by {who(e[1], e[2])}"
        if k == "taunt":
            return f"{who(e[1], e[2])}の挑発" if ja else f"drawn by {who(e[1], e[2])}'s Taunt"
        if k == "gain":
            name = STATUS_NAME[e[3]][lang]
            n = f"×{z(e[4])}" if e[4] > 1 else ""
            return (
                f"{who(e[1], e[2])}に状態「{name}」{n}{times}"
                if ja
                else f"{who(e[1], e[2])} gains {name}" + (f" ({e[4]})" if e[4] > 1 else "") + times
            )
        if k == "stat":
            ja_w, en_w = _STAT[e[3]]
            return (
                f"{who(e[1], e[2])}の{ja_w}{z(e[4])}"
                if ja
                else f"{who(e[1], e[2])}'s {en_w} {e[4]}"
            )
        if k == "heal":
            return (
                f"{who(e[1], e[2])}のＨＰが{z(e[3])}回復（ＨＰ{z(e[4])}）"
                if ja
                else f"{who(e[1], e[2])} recovers {e[3]} (HP {e[4]})"
            )
        if k == "self":
            return (
                f"{who(e[1], e[2])}に{z(e[3])}ダメージ（ＨＰ{z(e[4])}）"
                if ja
                else f"{e[3]} damage to {who(e[1], e[2])} itself (HP {e[4]})"
            )
        if k == "die":
            return (
                f"{who(e[1], e[2])}死亡（ＨＰ{z(e[3])}）"
                if ja
                else f"{who(e[1], e[2])} dies (HP {e[3]})"
            )
        if k == "revive":
            w = who(e[1], e[2])
            by = e[3]
            if by == "soul-failed":
                return (
                    f"{w}のソウル発動、ＨＰ{z(e[4])}で復活できず"
                    if ja
                    else f"{w}'s Soul fires: HP {e[4]}, stays dead"
                )
            if by == "hp":
                return f"{w}が生き返った（ＨＰ{z(e[4])}）" if ja else f"{w} lives again (HP {e[4]})"
            name = STATUS_NAME[by][lang]
            return (
                f"{w}の{name}発動、復活（ＨＰ{z(e[4])}）"
                if ja
                else f"{w}'s {name} fires: revived (HP {e[4]})"
            )
        if k == "effect":
            w = who(e[1], e[2])
            what, v = e[3], e[4]
            if what.startswith("reset-"):
                ja_w, en_w = _STAT[
                    {"reset-atk": "atk", "reset-def": "df", "reset-spd": "spd"}[what]
                ]
                return f"{w}の{ja_w}が初期値に（{z(v)}）" if ja else f"{w}'s {en_w} reset to {v}"
            if what == "assign-maxhp":
                return (
                    f"{w}のＨＰが最大値に（ＨＰ{z(v)}）"
                    if ja
                    else f"{w}'s HP set to its maximum ({v})"
                )
            if what == "burn":
                return (
                    f"{w}の剣がすべて炸撃剣に"
                    if ja
                    else f"every sword of {w} becomes a Burst Sword"
                )
            if what == "cure":
                return f"{w}の悪い状態がすべて消えた" if ja else f"{w}'s bad statuses are removed"
            if what == "double":
                mh, hp, mp, atk, df, spd = v
                return (
                    f"{w}が竜化（ＨＰ{z(hp)}／{z(mh)}、攻撃力{z(atk)}、防御力{z(df)}、素早さ{z(spd)}、MP{z(mp)}）"
                    if ja
                    else f"{w} doubles (HP {hp}/{mh}, ATK {atk}, DEF {df}, SPD {spd}, MP {mp})"
                )
            return str(what)
        if k == "sword":
            return self.sword(e, times)
        if k == "fizzle":
            why = _WHY.get(e[3], (e[3], e[3]))
            return f"効果なし（{why[0]}）" if ja else f"no effect ({why[1]})"
        if k == "build":
            return f"{who(e[1], e[3])}をビルド" if ja else f"builds {who(e[1], e[3])}"
        if k == "nobuild":
            why = _WHY[e[3]]
            return f"ビルド失敗（{why[0]}）" if ja else f"the build fails ({why[1]})"
        if k == "years":
            return f"ターン数が{z(e[3])}に" if ja else f"the turn number is now {e[3]}"
        if k == "venom":
            return (
                f"{who(e[1], e[2])}の猛毒で毒が増えた（毒×{z(e[3])}）"
                if ja
                else f"{who(e[1], e[2])}'s Venom adds Poison ({e[3]})"
            )
        if k == "poison":
            return (
                f"{who(e[1], e[2])}に毒で{z(e[3])}ダメージ（ＨＰ{z(e[4])}）"
                if ja
                else f"{who(e[1], e[2])} takes {e[3]} Poison damage (HP {e[4]})"
            )
        if k == "sleep":
            return (
                f"{who(e[1], e[2])}はスリープで行動できない（ＡＰ０）"
                if ja
                else f"{who(e[1], e[2])} sleeps: AP 0"
            )
        if k == "exit":
            return (
                f"{who(e[1], e[2])}が退場（ＨＰ{z(e[3])}）"
                if ja
                else f"{who(e[1], e[2])} exits (HP {e[3]})"
            )
        return " ".join(str(x) for x in e)

    def sword(self, e: tuple[Any, ...], times: str) -> str:
        ja, lang = self.ja, self.lang
        w = self.who(e[1], e[2])
        op, label, detail = e[3], e[4], e[5]
        name = sword_name(label, lang) if label else ""
        if op == "destroyed":
            return f"{w}の{name}が破壊された{times}" if ja else f"{w}'s {name} is destroyed{times}"
        if op == "jammed":
            return f"{w}の{name}が使用済みに" if ja else f"{w}'s {name} is marked used"
        if op == "held":
            return f"{w}の{name}を使用済みに" if ja else f"{w}'s {name} is held (marked used)"
        if op == "reversed":
            return f"{w}の剣の順序が逆に" if ja else f"{w}'s sword list is reversed"
        if op == "stolen":
            thief = self.who(detail[0], detail[1])
            return (
                f"{w}の{name}が{thief}の剣の末尾に移った"
                if ja
                else f"{w}'s {name} moves to the end of {thief}'s list"
            )
        if op == "added":
            return f"{w}に{name}が加わった{times}" if ja else f"{w} adds {name}{times}"
        if op == "changed":
            old = sword_name(detail, lang)
            return f"{w}の{old}が{name}に{times}" if ja else f"{w}'s {old} becomes {name}{times}"
        if op == "enchanted":
            ench = _ENCH[detail][0 if ja else 1]
            return f"{w}の{name}に＜{ench}＞" if ja else f"{w}'s {name} gains <{ench}>"
        if op == "removed":
            return f"{w}の{name}が消滅" if ja else f"{w}'s {name} vanishes"
        if op == "unused":
            return f"{w}の{name}が未使用に" if ja else f"{w}'s {name} is unused again"
        if op == "renewed":
            return f"{w}の剣がすべて未使用に" if ja else f"every sword of {w} is unused again"
        if op == "expired":
            return (
                f"{w}の{name}が消滅（ピリオド）{times}"
                if ja
                else f"{w}'s {name} expires (period){times}"
            )
        return f"{w} {op} {name}"

    # -- one action ---------------------------------------------------------------------------

    def action(self, events: Sequence[tuple[Any, ...]]) -> tuple[str, str]:
        """One action as ``(actor, rest)``; the line is ``actor + rest``:
        ``("Ａ", "の斬撃剣　⇒Ｂに２ダメージ（ＨＰ１８）")``."""
        ja, lang = self.ja, self.lang
        actor = ""
        head = ""
        parts: list[str] = []
        for pairs, targets in _segments(events):
            saved = self.who
            joined = ""
            if len(targets) > 1:
                joined = ("、" if ja else ", ").join(saved(*t) for t in targets)
                first = targets[0]

                def merged(
                    side: int,
                    sm: int,
                    _f: tuple[int, int] = first,
                    _j: str = joined,
                    _w: Who = saved,
                ) -> str:
                    return _j if (side, sm) == _f else _w(side, sm)

                self.who = merged
            try:
                for e, n in pairs:
                    k = e[0]
                    if k == "act":
                        _, side, sm, label, kind, vanished, mp = e
                        actor = self.who(side, sm)
                        head = (
                            f"の{sword_name(label, lang)}" if ja else f": {sword_name(label, lang)}"
                        )
                        notes = []
                        if vanished:
                            notes.append("消滅" if ja else "used up")
                        if mp:
                            notes.append(f"MP－{_z(mp, lang)}" if ja else f"MP -{mp}")
                        if notes:
                            head += (
                                ("（" + "、".join(notes) + "）")
                                if ja
                                else " (" + ", ".join(notes) + ")"
                            )
                    elif k == "skip":
                        _, side, sm, why = e
                        actor = self.who(side, sm)
                        if why == "stun":
                            head = (
                                "はスタンで行動できない"
                                if ja
                                else " is stunned and loses the action"
                            )
                        else:
                            head = "は実行できる剣がない" if ja else " has no sword to execute"
                    else:
                        parts.append(self.effect(e, n, each=bool(joined) and k == "hit"))
            finally:
                self.who = saved
        sep = "　⇒" if ja else " => "
        if actor:
            return actor, head + "".join(sep + p for p in parts)
        return "", sep.join(parts)


def _segment_key(seg: Sequence[tuple[Any, ...]]) -> tuple[Any, ...] | None:
    """What a hit segment (a hit and the events it caused) says, HP values and counts aside."""
    if seg[0][0] != "hit":
        return None
    h = seg[0]
    rest = []
    for x in seg[1:]:
        if x[0] in ("die", "revive", "stat", "heal", "self"):
            return None  # these are told once each
        rest.append(x[:4] if x[0] == "gain" else x)
    return (h[1], h[2], h[4:10], tuple(rest))


def _fold(events: Sequence[tuple[Any, ...]]) -> list[tuple[tuple[Any, ...], int]]:
    """Consecutive events that say the same thing again become one with a count (sword changes,
    additions, destructions and expiries in a row)."""
    out: list[tuple[tuple[Any, ...], int]] = []
    for e in events:
        if out:
            last, m = out[-1]
            if (
                e[0] == last[0] == "sword"
                and e[3] in ("changed", "added", "expired", "destroyed")
                and e[1:] == last[1:]
            ):
                out[-1] = (e, m + 1)
                continue
        out.append((e, 1))
    return out


def _target_key(seg: Sequence[tuple[Any, ...]]) -> tuple[Any, ...] | None:
    """What a hit segment says with its target left out (to merge a whole attack's members)."""
    if seg[0][0] != "hit":
        return None
    h = seg[0]
    rest = []
    for x in seg[1:]:
        if x[0] not in ("die", "gain", "revive") or x[1:3] != h[1:3]:
            return None
        rest.append((x[0], *x[3:]))
    return (h[1], h[4:], tuple(rest))


def _segments(
    events: Sequence[tuple[Any, ...]],
) -> list[tuple[list[tuple[tuple[Any, ...], int]], list[tuple[int, int]]]]:
    """An action's events as segments (a hit and what it caused), with repeats folded: the same
    hit again on one target counts (``×n``), the same hit on the next members of a whole attack
    lists its targets; sword changes in a row count too."""
    segments: list[list[tuple[Any, ...]]] = []
    for e in events:
        if e[0] == "hit" or not segments:
            segments.append([e])
        else:
            segments[-1].append(e)
    folded: list[tuple[list[tuple[Any, ...]], int, list[tuple[int, int]]]] = []
    for seg in segments:
        key = _segment_key(seg)
        if folded and key is not None and _segment_key(folded[-1][0]) == key:
            folded[-1] = (seg, folded[-1][1] + 1, folded[-1][2])
            continue
        tkey = _target_key(seg)
        if (
            folded
            and tkey is not None
            and folded[-1][1] == 1
            and _target_key(folded[-1][0]) == tkey
        ):
            prev = folded[-1]
            folded[-1] = (prev[0], 1, prev[2] + [(seg[0][1], seg[0][2])])
            continue
        tgt = [(seg[0][1], seg[0][2])] if seg[0][0] == "hit" else []
        folded.append((seg, 1, tgt))
    out = []
    for seg, n, targets in folded:
        pairs = _fold(seg)
        if seg[0][0] == "hit":
            pairs[0] = (pairs[0][0], n)
        out.append((pairs, targets))
    return out


_HP_NUM = re.compile(r"(ＨＰ|HP |ＭＰ|MP )[－\-]?[0-9０-９]+")

_Pair = tuple[str, str, str, str, int | None]
"""A line before folding: (prefix, actor, rest, kind, side); its text is prefix + actor + rest."""


def _fold_lines(pairs: Sequence[_Pair], lang: str) -> list[ReportLine]:
    """Consecutive lines that say the same thing become one: the same actor again (only the HP
    it ends on differs) gets ``×n``; the same line of several actors lists them."""
    ja = lang == "ja"
    # prefix, actors, rest, kind, side, n
    merged: list[tuple[str, list[str], str, str, int | None, int]] = []
    for prefix, actor, rest, kind, side in pairs:
        if merged:
            pfx, actors, prev, pkind, pside, n = merged[-1]
            if (
                actor
                and actors == [actor]
                and pfx == prefix
                and _HP_NUM.sub(r"\1#", prev) == _HP_NUM.sub(r"\1#", rest)
            ):
                merged[-1] = (pfx, actors, rest, pkind, pside, n + 1)
                continue
            if (
                actor
                and n == 1
                and prev == rest
                and pkind == kind
                and pfx == prefix
                and actor not in actors
            ):
                merged[-1] = (
                    pfx,
                    actors + [actor],
                    rest,
                    pkind,
                    pside if pside == side else None,
                    1,
                )
                continue
        merged.append((prefix, [actor] if actor else [], rest, kind, side, 1))
    out = []
    for prefix, actors, rest, kind, side, n in merged:
        if not ja and len(actors) > 1:
            for one, many in ((" has ", " have "), (" is ", " are ")):
                if rest.startswith(one):
                    rest = many + rest[len(one) :]
        text = prefix + ("、" if ja else ", ").join(actors) + rest
        if n > 1:
            text += f"　×{_z(n, lang)}" if ja else f" x{n}"
        out.append(ReportLine(text, kind, side))
    return out


_LABELS = {
    "phase": ("状態の効果", "status phase"),
    "apphase": ("行動回数の決定", "AP phase"),
    "check": ("第０ターン直後の死亡判定", "death check after turn 0"),
    "settle": ("事象確定", "settlement"),
    "turnend": ("ターン終了", "turn end"),
}


def _bucket_pairs(
    kind: str, buckets: Sequence[Sequence[tuple[Any, ...]]], lines: _Lines, lang: str
) -> list[_Pair]:
    """The lines of a bucketed event (status phase, settlement, …): exits of one side in one
    line, everything else one line per event."""
    ja = lang == "ja"
    label = _LABELS[kind][0 if ja else 1]
    prefix = f"［{label}］" if ja else f"[{label}] "
    out: list[_Pair] = []
    for side, bucket in enumerate(buckets):
        exits = [e for e in bucket if e[0] == "exit"]
        if exits:
            names = ("、" if ja else ", ").join(
                f"{lines.who(e[1], e[2])}（ＨＰ{_z(e[3], lang)}）"
                if ja
                else f"{lines.who(e[1], e[2])} (HP {e[3]})"
                for e in exits
            )
            out.append((prefix, "", f"退場：{names}" if ja else f"exit: {names}", kind, side))
        for x, n in _fold([e for e in bucket if e[0] != "exit"]):
            out.append((prefix, "", lines.effect(x, n), kind, side))
    return out


def _actions(events: Sequence[tuple[Any, ...]]) -> list[list[tuple[Any, ...]]]:
    """Split a part's or a procedure's events into actions (a taunt precedes its action)."""
    groups: list[list[tuple[Any, ...]]] = []
    pending: list[tuple[Any, ...]] = []
    for e in events:
        if e[0] in ("act", "skip"):
            groups.append(pending + [e])
            pending = []
        elif e[0] == "taunt":
            pending.append(e)
        elif groups:
            groups[-1].append(e)
        else:
            pending.append(e)
    if pending:
        groups.append(pending)
    return groups


def report_turns(
    result: HundredResult, who: Who, lang: str, names: Mapping[tuple[int, int], str]
) -> list[ReportTurn]:
    """Every turn of a logged result as lines and state lines (turn 0 only when something
    happened in it). The state lines list every present swordmaster of both parties, front
    first, and those that exited during that turn. Raises ``ValueError`` for a result computed
    with ``log=False``."""
    if not result.events:
        raise ValueError("the battle was resolved without a log; run it with log=True")
    lines = _Lines(who, lang)
    ja = lang == "ja"
    turns: list[ReportTurn] = []
    current: list[Any] = []  # _Pair items and finished ReportLines (simultaneous groups)
    start = 0
    solo: list[tuple[Any, ...]] = []
    shown_exited: set[tuple[int, int]] = set()

    def flush_solo() -> None:
        for action in _actions(solo):
            side = next((x[1] for x in action if x[0] in ("act", "skip")), None)
            actor, rest = lines.action(action)
            current.append(("", actor, rest, "action", side))
        solo.clear()

    def finish(items: list[Any]) -> tuple[ReportLine, ...]:
        out: list[ReportLine] = []
        run: list[_Pair] = []
        groups: list[int] = []  # how many identical simultaneous groups each line stands for
        for x in items:
            if isinstance(x, ReportLine):
                folded = _fold_lines(run, lang)
                out.extend(folded)
                groups.extend([1] * len(folded))
                run = []
                if out and groups[-1] and out[-1].children and out[-1] == x:
                    groups[-1] += 1  # the same simultaneous procedure again
                else:
                    out.append(x)
                    groups.append(1)
            else:
                run.append(x)
        folded = _fold_lines(run, lang)
        out.extend(folded)
        groups.extend([1] * len(folded))
        for i, n in enumerate(groups):
            if n > 1:
                line = out[i]
                mark = f"　×{_z(n, lang)}" if ja else f" x{n}"
                out[i] = ReportLine(line.text + mark, line.kind, line.side, line.children)
        return tuple(out)

    for e in result.events:
        k = e[0]
        if k == "turn":
            current, start = [], e[1]
            continue
        if k in ("act", "skip", "taunt") or (
            solo
            and k not in ("end", "phase", "apphase", "check", "settle", "turnend", "simul", "limit")
        ):
            solo.append(e)
            continue
        flush_solo()
        if k == "end":
            if e[1] > 0 or current or start > 0:
                states = []
                for side in e[2]:
                    row = []
                    for st in side:
                        key = (st.side, st.sm)
                        if st.exited and key in shown_exited:
                            continue
                        if st.exited:
                            shown_exited.add(key)
                        shown = names[key]
                        row.append(
                            StateLine(
                                shown,
                                state_text(st, shown, lang),
                                st.hp,
                                st.max_hp,
                                not st.dead and not st.exited,
                                st.exited,
                            )
                        )
                    states.append(tuple(row))
                turns.append(ReportTurn(start, finish(current), (states[0], states[1])))
            current = []
        elif k == "simul":
            children: list[_Pair] = []
            for part in e[1]:
                if part[0] == "part":
                    for action in _actions(part[2]):
                        actor, rest = lines.action(action)
                        children.append(("", actor, rest, "action", part[1]))
                else:  # a super-simultaneous pair
                    kind = KIND_NAMES[part[1]]["en"]
                    for side, bucket in enumerate(part[2]):
                        for action in _actions(bucket):
                            actor, rest = lines.action(action)
                            children.append((SUPER[lang], actor, rest, kind, side))
            current.append(
                ReportLine(SIM[lang], "simultaneous", None, tuple(_fold_lines(children, lang)))
            )
        elif k == "limit":
            current.append(
                (
                    "",
                    "",
                    f"行動処理が{_z(e[2], lang)}回に達したため、このターンを終了"
                    if ja
                    else f"{e[2]:,} action procedures reached: the turn ends",
                    "limit",
                    None,
                )
            )
        else:
            current.extend(_bucket_pairs(k, e[1], lines, lang))
    return turns


def verdict(result: HundredResult, side_names: Mapping[str, str], lang: str) -> str:
    """``Ａの勝利`` / ``A wins``, or the draw."""
    if result.winner is None:
        return "引き分け" if lang == "ja" else "Draw"
    name = side_names["AB"[result.winner]]
    return f"{name}の勝利" if lang == "ja" else f"{name} wins"


def explanation(
    result: HundredResult,
    side_names: Mapping[str, str],
    lang: str,
    hd_policy: str = "between-rounds",
) -> tuple[str, ...]:
    """Why: the judge and its numbers (§8.4, H55-H58), Heaven's Door and the procedure limit."""
    ja = lang == "ja"
    na, nb = side_names["A"], side_names["B"]
    t = _z(result.turns, lang)
    ta, tb = result.totals
    pa, pb = result.push
    out = []
    where = (
        ("事象確定" if ja else "a settlement")
        if result.where == "settlement"
        else ("ターン終了" if ja else "the turn end")
    )
    if result.reason == "death":
        loser = nb if result.winner == 0 else na
        out.append(
            f"（第{t}ターン、{loser}のパーティ全滅）"
            if ja
            else f"(turn {result.turns}: {loser}'s party is annihilated)"
        )
    else:
        if result.by == "overkill":
            judge = (
                f"両パーティ全滅。オーバーキル判定：{na} {_z(ta, lang)}、{nb} {_z(tb, lang)}（少ない方の勝ち）"
                if ja
                else f"both parties annihilated; overkill judge: {na} {ta}, {nb} {tb} (smaller wins)"
            )
        else:
            judge = (
                f"オーバーターン判定：生存剣師のＨＰ合計 {na} {_z(ta, lang)}、{nb} {_z(tb, lang)}"
                if ja
                else f"over-turn judge: HP of the survivors {na} {ta}, {nb} {tb}"
            )
        out.append(
            f"（第{t}ターン、{where}で終了。{judge}）"
            if ja
            else f"(turn {result.turns}, ended at {where}; {judge})"
        )
        if pa or pb:
            if result.reason == "push":
                winner = na if result.winner == 0 else nb
                out.append(
                    f"プッシュ {na} {_z(pa, lang)}、{nb} {_z(pb, lang)}：多い{winner}がＨＰ比較なしで勝利（H57）"
                    if ja
                    else f"Push {na} {pa}, {nb} {pb}: {winner} holds more and wins without comparing HP (H57)"
                )
            else:
                out.append(
                    f"プッシュ {na} {_z(pa, lang)}、{nb} {_z(pb, lang)}：同数なのでＨＰで比較（H57）"
                    if ja
                    else f"Push {na} {pa}, {nb} {pb}: equal, so HP decides (H57)"
                )
    if result.heavens_door is not None:
        w = "AB"[result.heavens_door]
        other = "AB"[1 - result.heavens_door]
        policy = {
            "between-rounds": ("ラウンド間に適用", "applied between rounds"),
            "ignore": ("適用しない", "ignored"),
        }[hd_policy]
        out.append(
            f"ヘヴンズドア：{side_names[w]}の登録を{side_names[other]}の登録剣師で書き換える要求（リーグの方針：{policy[0]}、H58）"
            if ja
            else f"Heaven's Door: request to rewrite {side_names[w]}'s entry with {side_names[other]}'s registered swordmaster (league policy: {policy[1]}, H58)"
        )
    if result.limit_hits:
        out.append(
            f"行動処理の上限で打ち切られたターン：{_z(result.limit_hits, lang)}（H61）"
            if ja
            else f"turns cut by the procedure limit: {result.limit_hits} (H61)"
        )
    return tuple(out)


def build_report(
    result: HundredResult,
    outcome: Outcome,
    *,
    sheets: tuple[str, str],
    lang: str,
    header: tuple[str, ...],
    hd_policy: str = "between-rounds",
) -> BattleReport:
    """The :class:`BattleReport` of a logged result (§12.12)."""
    names = display_names(result.roster, lang)
    side_names = {"A": names[(0, 0)], "B": names[(1, 0)]}
    turns = report_turns(result, lambda side, sm: names[(side, sm)], lang, names)
    return BattleReport(
        lang=lang,
        header=header,
        names=side_names,
        sheets=sheets,
        turns=tuple(turns),
        verdict=verdict(result, side_names, lang),
        explanation=explanation(result, side_names, lang, hd_policy),
        outcome=outcome,
    )
