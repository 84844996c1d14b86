"""Offline tournament at scale: N random valid sheet files, ``amaryllis tournament DIR --jobs J``.

Usage: .venv/bin/python benchmarks/tournament.py [--sheets 1000] [--jobs 2] [--json]

Target (issue #2): 1,000 sheets (499,500 battles) in under 60 s with ``--jobs 2``, under 1 GB of
memory. Prints wall time and the peak RSS of the command and its workers; asserts nothing.
"""

from __future__ import annotations

import argparse
import random
import resource
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from app.rules.amaryllis import format_sheet  # noqa: E402
from app.rules.amaryllis.generate import random_unit  # noqa: E402


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--sheets", type=int, default=1000)
    parser.add_argument("--jobs", type=int, default=2)
    parser.add_argument("--seed", type=int, default=7)
    parser.add_argument("--json", action="store_true", help="time the --json output too")
    args = parser.parse_args()
    rng = random.Random(args.seed)
    with tempfile.TemporaryDirectory() as tmp:
        folder = Path(tmp)
        for i in range(args.sheets):
            unit = random_unit(rng, f"U{i:04d}")
            (folder / f"{i:04d}.txt").write_text(format_sheet(unit), encoding="utf-8")
        cmd = [
            str(ROOT / ".venv/bin/amaryllis"),
            "tournament",
            str(folder),
            "--jobs",
            str(args.jobs),
        ]
        runs = [cmd] + ([cmd + ["--json"]] if args.json else [])
        battles = args.sheets * (args.sheets - 1) // 2
        for c in runs:
            start = time.perf_counter()
            with open("/dev/null", "w") as sink:
                subprocess.run(c, check=True, stdout=sink)
            wall = time.perf_counter() - start
            rss_mb = resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss / 1024
            print(
                f"{' '.join(c[1:2] + c[3:])}: {battles:,} battles in {wall:.1f} s "
                f"({battles / wall:,.0f}/s); peak RSS of one process so far {rss_mb:.0f} MB"
            )


if __name__ == "__main__":
    main()
