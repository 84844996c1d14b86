"""Printing orders back as text (``Ruleset.format_orders``): canonical English keywords, codes
for cards and swords, G63's English spellings. ``parse_orders(format_orders_text(o)).orders ==
o`` up to line numbers and rule texts."""

from __future__ import annotations

from .plays import OrdersText, SideOrders


def format_side_orders(o: SideOrders) -> str:
    """``HAND …`` then each version's block (``ORDERS`` / ``ORDERS FROM TURN t`` … ``END``)."""
    lines = ["HAND " + "、".join(o.hand)] if o.hand else []
    for v in o.versions:
        lines.append("ORDERS" if v.start == 0 else f"ORDERS FROM TURN {v.start}")
        lines.extend(r.canonical() for r in v.rules)
        lines.append("END")
    return "\n".join(lines) + "\n"


def format_orders_text(o: OrdersText) -> str:
    """Every section (``DEFAULT`` / ``VS name``) with its hand and versions."""
    parts = []
    for s in o.sections:
        parts.append(
            ("DEFAULT" if s.vs is None else f"VS {s.vs}") + "\n" + format_side_orders(s.orders)
        )
    return "".join(parts)
