"""Default names at scale (issue 22): a player who gives no name gets the first free flower of
the order drawn from their address, then ``FLOWER 2``, ``FLOWER 3``…; finding it costs a bounded
number of statements however many nameless players came before (it had cost one look-up per
name tried: hundreds per mail in a big league), and the names stay unique."""

from __future__ import annotations

from sqlalchemy import event, select

from app.db.models import Player
from app.db.session import transaction
from app.league.names import FLOWERS, default_candidates, default_name, free_variant


def test_every_nameless_player_gets_a_distinct_name_in_a_few_statements(factory) -> None:
    n = len(FLOWERS["en"]) * 3 + 5  # every flower taken, then variants
    engine = factory.kw["bind"]
    counts: list[int] = []
    with transaction(factory) as s:
        for i in range(n):
            p = Player(address=f"nameless{i}@example.org", display_name="", lang="en")
            s.add(p)
            s.flush()
            seen = [0]

            def count(*_args: object, seen: list[int] = seen) -> None:
                seen[0] += 1

            event.listen(engine, "before_cursor_execute", count)
            try:
                name = default_name(s, p, "en")
            finally:
                event.remove(engine, "before_cursor_execute", count)
            counts.append(seen[0])
            p.display_name = name
            s.flush()
            flowers = default_candidates(p.address, "en")
            if i < len(FLOWERS["en"]):
                assert name in flowers  # a flower while one is free
            else:
                assert any(name.startswith(f + " ") for f in flowers), name
        names = list(s.scalars(select(Player.display_name)))
        keys = list(s.scalars(select(Player.name_key)))
    assert len(set(names)) == n and len(set(keys)) == n
    assert max(counts) <= 3, counts  # flowers in one query, then variants a hundred a query


def test_a_free_variant_skips_every_look_alike_taken(factory) -> None:
    with transaction(factory) as s:
        for name in ("Aki", "AKI 2", "ａｋｉ 3", "Aki  4"):
            s.add(Player(address=f"{len(name)}-{name}@example.org", display_name=name))
        s.flush()
        assert free_variant(s, "Aki") == "Aki 5"
        owner = s.scalar(select(Player).where(Player.display_name == "AKI 2"))
        assert free_variant(s, "Aki", owner) == "Aki 2"  # its own name is free for it
