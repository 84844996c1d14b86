"""The typed battle log and the battle result. Source: rules §2 and §3.

Sides are ``0`` (unit A, the first sheet) and ``1`` (unit B). Every event is a frozen, slotted
dataclass; a simultaneous action (rules §2.3) is one :class:`Simultaneous` event holding the
events of both halves in processing order (Stun processing, supports, then attacks by tempo).
Within one processing step the two halves are listed side 0 first; so are the two units'
entries of one status phase (PoisonDamage) and of one death check (Died). Such events happen at
once: a consumer that compares logs across mirrored battles treats them as unordered.
"""

from __future__ import annotations

import enum
from dataclasses import dataclass, field


class Reason(enum.Enum):
    """Why a battle ended the way it did (rules §2.5)."""

    DEATH = "death"  # one unit dead, the other wins
    OVERKILL = "overkill"  # both dead, the higher HP (smaller overkill) wins
    HP = "hp"  # turn 20 over, both alive, the higher HP wins
    DRAW = "draw"  # equal HP at the end (both dead or both alive)


@dataclass(frozen=True, slots=True)
class UnitState:
    """A unit's state as printed on a state line (rules §3).

    ``actions`` lists the names of the set actions not yet removed, in list order.
    Status counts are numbers of stacked instances (0 when absent).
    """

    name: str
    hp: int
    atk: int
    defense: int
    spd: int
    actions: tuple[str, ...]
    guard: int = 0
    reflect: int = 0
    life: int = 0
    stun: int = 0
    poison: int = 0
    dead: bool = False


@dataclass(frozen=True, slots=True)
class TurnStarted:
    """Start of a turn (0-20)."""

    turn: int


@dataclass(frozen=True, slots=True)
class PoisonDamage:
    """Status phase: ``side`` takes ``damage`` (= its Poison count) and is left at ``hp``."""

    side: int
    damage: int
    hp: int


@dataclass(frozen=True, slots=True)
class StunSpent:
    """``side`` acted while stunned: one Stun consumed, 1 AP spent, nothing executed."""

    side: int
    stun_left: int


@dataclass(frozen=True, slots=True)
class SupportDone:
    """``side`` executed support ``action`` (class ``cls``, an ActionClass value).

    ``value`` is the new value of what changed: the stat for ATK/DEF/SPD+N, the HP for a full heal,
    the new count of Guard/Reflect/Life. ``removed`` is True when the action was Limited.
    """

    side: int
    action: str
    cls: str
    value: int
    removed: bool


@dataclass(frozen=True, slots=True)
class AttackDone:
    """An attack by ``side`` with ``action`` resolved on ``target`` (rules §2.4).

    Attributes:
        reflected_by: sides whose Reflect redirected it, in order (empty when not reflected).
        tempo: the tempo of a simultaneous action in which it landed (0 when not reflected).
        raw: damage before Guard; ``damage`` after Guard (``guarded`` tells whether one was used).
        failed: True when the final damage was negative (no HP change, no Stun or Poison).
        hp: the target's HP afterwards.
        stun, poison: statuses given (0 unless damage >= 1).
        removed: True when the action was Limited.
    """

    side: int
    action: str
    cls: str
    target: int
    reflected_by: tuple[int, ...]
    tempo: int
    raw: int
    damage: int
    guarded: bool
    failed: bool
    hp: int
    stun: int
    poison: int
    removed: bool


@dataclass(frozen=True, slots=True)
class Died:
    """A death check found ``side`` at ``hp`` <= 0. ``revived`` when a Life was consumed (HP 1)."""

    side: int
    hp: int
    revived: bool


@dataclass(frozen=True, slots=True)
class Simultaneous:
    """A simultaneous action (rules §2.3): the events of both halves, in processing order."""

    events: tuple[object, ...]


@dataclass(frozen=True, slots=True)
class TurnEnded:
    """End of a turn with both units' states, index 0 = side A."""

    turn: int
    states: tuple[UnitState, UnitState]


Event = (
    TurnStarted
    | PoisonDamage
    | StunSpent
    | SupportDone
    | AttackDone
    | Died
    | Simultaneous
    | TurnEnded
)


@dataclass(frozen=True, slots=True)
class BattleResult:
    """The outcome of a battle.

    Attributes:
        winner: 0 (A), 1 (B) or ``None`` for a draw.
        reason: why (rules §2.5).
        turns: the last turn played (0-20).
        final: both units' final states, index 0 = A.
        events: the event log, or ``()`` when the battle ran with ``log=False``.
        max_hp: both units' initial HP (HP points), index 0 = A: the value a full heal assigns
            (rules §1.1), the maximum of an HP bar.
        ended_at: where the battle ended (rules §2.5): ``"start"`` (the death check at the
            start of turn 1, before its status phase), ``"status"`` (after a status phase),
            ``"action"`` (after an action) or ``"end"`` (turn 20 over).
    """

    winner: int | None
    reason: Reason
    turns: int
    final: tuple[UnitState, UnitState]
    events: tuple[object, ...] = field(default=(), compare=False)
    max_hp: tuple[int, int] = (0, 0)
    ended_at: str = "end"
