"""Cost breakdowns as text, in Japanese or English. Source: rules §1.2."""

from __future__ import annotations

from .costs import CostBreakdown, cost_breakdown
from .model import Action, Unit
from .vocab import class_name, custom_name, num

BIG = 10**12
"""Numbers at or above this are shown as ``>10^12`` (stacked Stun can make costs astronomical)."""


def show(n: int, lang: str) -> str:
    """``n`` in ``lang``'s digits, or ``>10^12`` / ``１０^１２超`` when it is that large."""
    if n >= BIG:
        return "１０^１２超" if lang == "ja" else ">10^12"
    return num(n, lang)


def _label(action: Action, label: str, lang: str, count: int = 1) -> str:
    if label in ("stun", "poison") and count > 1:
        word = custom_name(label, None, lang)
        return f"{word}×{num(count, lang)}" if lang == "ja" else f"{word} ×{count}"
    if label == "effect":
        return custom_name("effect", action.effect, lang)
    if label == "delay":
        return custom_name("delay", action.delay, lang)
    if label in ("limited", "quick", "stun", "poison"):
        return custom_name(label, None, lang)
    return class_name(action.cls, action.n, lang)


def format_steps(breakdown: CostBreakdown, lang: str) -> str:
    """One action's cost as ``1 (Direct Attack) ×4 (Effect x2) ÷4 (Delay 4) = 1`` (en) or
    ``１（直接攻撃）×４（効果２倍）÷４（遅延起動４）＝１`` (ja)."""
    parts: list[str] = []
    for step in breakdown.steps:
        label = _label(breakdown.action, step.label, lang, step.count)
        value = show(step.value, lang)
        if step.count > 1 and step.value >= BIG:  # a long stack of Stun/Poison: ×2^count
            value = f"２^{num(step.count, lang)}" if lang == "ja" else f"2^{step.count}"
        op = "" if step.op == "base" else ("×" if step.op == "*" else "÷")
        parts.append(f"{op}{value}（{label}）" if lang == "ja" else f"{op}{value} ({label})")
    eq = "＝" if lang == "ja" else " = "
    sep = "" if lang == "ja" else " "
    return sep.join(parts) + eq + show(breakdown.cost, lang)


def steps_text(action: Action, lang: str) -> str:
    """The cost computation of ``action`` as text (``format_steps`` of ``cost_breakdown``)."""
    return format_steps(cost_breakdown(action), lang)


def format_costs(unit: Unit, lang: str | None = None) -> str:
    """The cost breakdown of ``unit``: one line per defined action (steps, result, how many times
    it is set and what that costs), then the total against TECH. Rules §1.2.

    ``lang`` defaults to ``unit.lang``.
    """
    lang = lang or unit.lang
    counts: dict[str, int] = {}
    for a in unit.loadout:
        counts[a.name] = counts.get(a.name, 0) + 1
    lines = ["コスト内訳" if lang == "ja" else "Costs"]
    total = 0
    for action in unit.definitions:
        b = cost_breakdown(action)
        times = counts.get(action.name, 0)
        total += b.cost * times
        steps = format_steps(b, lang)
        if lang == "ja":
            set_text = (
                f"セット{num(times, lang)}回で{show(b.cost * times, lang)}"
                if times
                else "セットなし"
            )
            lines.append(f"・{action.name}：{steps}、{set_text}")
        else:
            set_text = f"set {times}× = {show(b.cost * times, lang)}" if times else "not set"
            lines.append(f"- {action.name}: {steps}; {set_text}")
    left = unit.tech - total
    if lang == "ja":
        lines.append(
            f"合計{show(total, lang)}／技術{num(unit.tech, lang)}（残り{num(left, lang)}）"
            if left >= 0
            else f"合計{show(total, lang)}／技術{num(unit.tech, lang)}（超過）"
        )
    else:
        lines.append(
            f"Total {show(total, lang)} / TECH {unit.tech}"
            + (f" ({left} left)" if left >= 0 else " (over budget)")
        )
    return "\n".join(lines)
