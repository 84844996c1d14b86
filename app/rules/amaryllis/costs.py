"""Action costs with a step-by-step breakdown. Source: rules §1.2.

Cost = base × every multiplier, then ÷ each divisor rounding up after each division
(⌈⌈a/b⌉/c⌉ = ⌈a/(bc)⌉, so the order of divisors does not matter).
"""

from __future__ import annotations

from dataclasses import dataclass

from .model import Action, Unit


@dataclass(frozen=True, slots=True)
class CostStep:
    """One factor of a cost: ``op`` is ``"base"``, ``"*"`` or ``"/"``; ``label`` names the source
    (class or customization identifier: ``direct``, ``quick``, ``effect``, ``stun``, ``poison``,
    ``limited``, ``delay``); ``value`` is the factor; ``running`` the cost after this step.
    ``count`` is the number of stacked enchantments a ``stun``/``poison`` step stands for (its
    ``value`` is then 2**count), 1 otherwise."""

    op: str
    label: str
    value: int
    running: int
    count: int = 1


@dataclass(frozen=True, slots=True)
class CostBreakdown:
    """The cost of one action: its steps and the resulting cost in TECH points."""

    action: Action
    steps: tuple[CostStep, ...]

    @property
    def cost(self) -> int:
        """The final cost (TECH points)."""
        return self.steps[-1].running


def _ceil_div(a: int, b: int) -> int:
    return -(-a // b)


def cost_breakdown(action: Action) -> CostBreakdown:
    """Compute the cost of ``action`` with every step (rules §1.2).

    Invalid customizations (Delay 1, Effect ×1, N < 1) are computed as written; the validator
    reports them. A zero or negative divisor is skipped rather than raising.
    """
    base = action.cls.base_cost
    if base is None:
        base = action.n if action.n is not None else 0
    running = base
    steps = [CostStep("base", action.cls.value, base, running)]
    if action.quick:
        running *= 2
        steps.append(CostStep("*", "quick", 2, running))
    if action.effect is not None:
        factor = action.effect * action.effect
        running *= factor
        steps.append(CostStep("*", "effect", factor, running))
    for label, count in (("stun", action.stun), ("poison", action.poison)):
        if count > 0:  # each enchantment ×2: one step per stack, cheap even for 10,000 Stuns
            running <<= count
            steps.append(CostStep("*", label, 1 << count, running, count))
    if action.limited:
        running = _ceil_div(running, 2)
        steps.append(CostStep("/", "limited", 2, running))
    if action.delay is not None and action.delay > 0:
        running = _ceil_div(running, action.delay)
        steps.append(CostStep("/", "delay", action.delay, running))
    return CostBreakdown(action, tuple(steps))


def action_cost(action: Action) -> int:
    """The cost of one action in TECH points (rules §1.2)."""
    return cost_breakdown(action).cost


def loadout_cost(unit: Unit) -> int:
    """Sum of the costs of every action set on ``unit`` (each copy counts), in TECH points."""
    return sum(action_cost(a) for a in unit.loadout)
