"""Migration 0013 (unique display names, issue 20.1) on a database with namesakes and nameless
entrants: the first of a name keeps it, later look-alikes get the first free variant, an entrant
without a name gets a readable default, and ``name_key`` is unique from then on."""

from __future__ import annotations

import pytest
import sqlalchemy as sa

from app.db.session import downgrade, make_engine, upgrade
from tests.db.test_migration_0007 import _filled


def test_namesakes_and_nameless_entrants_get_distinct_readable_names(db_url: str) -> None:
    upgrade(db_url, "0012")
    engine = make_engine(db_url)
    try:
        meta = sa.MetaData()
        meta.reflect(engine)
        t = meta.tables
        names = {1: "秋", 2: "秋", 3: "ａｋｉ", 4: "AKI", 5: "", 6: "", 7: "秋 2"}
        with engine.begin() as c:
            c.execute(
                t["leagues"]
                .insert()
                .values(
                    **_filled(t["leagues"], id=1, name="old", ruleset="amaryllis", state="open")
                )
            )
            for pid, name in names.items():
                c.execute(
                    t["players"]
                    .insert()
                    .values(
                        **_filled(
                            t["players"],
                            id=pid,
                            address=f"p{pid}@example.org",
                            display_name=name,
                            lang="ja" if pid == 5 else "en",
                        )
                    )
                )
                if pid != 6:  # 6 never entered: nobody sees them
                    c.execute(
                        t["entries"]
                        .insert()
                        .values(
                            **_filled(
                                t["entries"], id=pid, league_id=1, player_id=pid, status="active"
                            )
                        )
                    )
        upgrade(db_url)
        with engine.connect() as c:
            got = dict(c.execute(sa.text("SELECT id, display_name FROM players")).all())
        assert got[1] == "秋" and got[2] == "秋 3" and got[7] == "秋 2"
        assert got[3] == "ａｋｉ" and got[4] == "AKI 2"
        assert got[5].startswith("名無しの") and got[6] == ""
        with engine.begin() as c, pytest.raises(sa.exc.IntegrityError):
            c.execute(sa.text("UPDATE players SET name_key = 'aki' WHERE id = 6"))
        downgrade(db_url, "0012")
        with engine.connect() as c:
            assert c.execute(sa.text("SELECT count(*) FROM players")).scalar() == 7
    finally:
        engine.dispose()
