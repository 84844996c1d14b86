"""Benchmark: the work of one battle report mail in a league, stage by stage (what a round
worker does per battle and language, ``app.league.play._report_rows``): the battle, the
``BattleReport``, the text log, the text and HTML parts, the MIME message, its compression.

Run by hand (not a timed test)::

    .venv/bin/python benchmarks/report_stages.py            # 400 battles of random units
    .venv/bin/python benchmarks/report_stages.py --battles 100 --repeat 3

Prints, after a warm-up pass (templates compiled), the median over ``--repeat`` passes of each stage's mean time per report (ms), and the
mean sizes of the parts; languages alternate (Japanese in ISO-2022-JP, English in UTF-8).
"""

from __future__ import annotations

import argparse
import datetime as dt
import random
import statistics
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from app.mail.compose import shared_bytes
from app.mail.outbox import compressed
from app.reports.battle import render_report
from app.reports.league_battle import LeagueBattleContext, render_league_battle, subject
from app.rules import find_ruleset

NOW = dt.datetime(2026, 12, 1, 12, 0, tzinfo=dt.timezone.utc)
STAGES = ("battle", "report", "text log", "text part", "HTML part", "MIME", "compression")


def one_pass(rs, pairs) -> tuple[dict[str, float], tuple[float, float]]:  # type: ignore[no-untyped-def]
    """Each stage's mean time per report (ms) over ``pairs``, and the mean text/HTML bytes."""
    spent = dict.fromkeys(STAGES, 0.0)
    sizes = [0, 0]
    for k, (a, b) in enumerate(pairs):
        lang = "ja" if k % 2 else "en"
        marks = [time.perf_counter()]
        result = rs.battle(a, b, log=True)
        outcome = rs.outcome(result)
        marks.append(time.perf_counter())
        report = rs.report(a, b, result, lang=lang)
        marks.append(time.perf_counter())
        log = render_report(report, fmt="text")
        marks.append(time.perf_counter())
        ctx = LeagueBattleContext(
            league="Bench",
            round=3,
            board=1,
            player_a="Player A",
            unit_a=rs.label(a),
            player_b="Player B",
            unit_b=rs.label(b),
            winner="A",
            winner_unit=rs.label(a),
            reason="hp",
            turns=outcome.turns,
            hp=(1, 2),
            report=log,
            engine_version="1",
            engine_note="",
            battle=report,
            url="https://leagues.example.org/b/1",
        )
        text = render_league_battle(ctx, lang=lang, fmt="text")
        marks.append(time.perf_counter())
        html = render_league_battle(ctx, lang=lang, fmt="html")
        marks.append(time.perf_counter())
        body = shared_bytes(
            now=NOW,
            sender="league@example.net",
            sender_name="League",
            subject=subject(ctx, lang),
            text=text,
            html=html,
            charset="iso-2022-jp" if lang == "ja" else "utf-8",
            auto_submitted="auto-generated",
        )
        marks.append(time.perf_counter())
        compressed(body)
        marks.append(time.perf_counter())
        for stage, start, end in zip(STAGES, marks, marks[1:], strict=False):
            spent[stage] += end - start
        sizes[0] += len(text.encode())
        sizes[1] += len(html.encode())
    n = len(pairs)
    return {k: v / n * 1000 for k, v in spent.items()}, (sizes[0] / n, sizes[1] / n)


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--battles", type=int, default=400)
    ap.add_argument("--repeat", type=int, default=5)
    args = ap.parse_args()
    rs = find_ruleset("amaryllis")()
    rng = random.Random(2026)
    units = [rs.random_entry(rng, f"Unit{i}") for i in range(100)]
    pairs = [(units[i], units[j]) for i in range(100) for j in range(i + 1, 100)]
    pairs = pairs[:: max(1, len(pairs) // args.battles)][: args.battles]
    one_pass(rs, pairs[:10])  # warm-up: templates compiled, catalogs loaded
    passes = [one_pass(rs, pairs) for _ in range(args.repeat)]
    for stage in STAGES:
        print(f"  {stage:12s} {statistics.median(p[0][stage] for p in passes):.3f} ms")
    total = statistics.median(sum(p[0].values()) for p in passes)
    text, html = passes[-1][1]
    print(f"  total        {total:.3f} ms per report; text {text:.0f} B, HTML {html:.0f} B")


if __name__ == "__main__":
    main()
