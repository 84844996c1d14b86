"""Sheet-check speed on hostile inputs (Amaryllis and Margaret) and on ordinary sheets.

Usage: .venv/bin/python benchmarks/sheets.py [--repeat 3]

Prints the time to read, check and print the problems of each hostile sheet of the tests
(``tests/rules/test_validate.py`` and ``tests/rules/margaret/test_sheets.py``, which only bound
the work) and the rate for the ordinary sample sheets; asserts nothing (timings are not tests).
Reference: the tests used to assert under 0.25 s for each hostile sheet; on this shared machine the
slowest (Amaryllis, 500 long undefined names) measured about 0.19 s under load.
"""

from __future__ import annotations

import argparse
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from app.rules import all_rulesets  # noqa: E402
from tests.rules.margaret.test_sheets import HOSTILE as MARGARET_HOSTILE  # noqa: E402
from tests.rules.test_validate import HOSTILE as AMARYLLIS_HOSTILE  # noqa: E402


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--repeat", type=int, default=3)
    args = parser.parse_args()
    rulesets = {cls.name: cls() for cls in all_rulesets()}
    for ruleset, cases in (("amaryllis", AMARYLLIS_HOSTILE), ("margaret", MARGARET_HOSTILE)):
        rs = rulesets[ruleset]
        for name, text, _code in cases:
            best = float("inf")
            for _ in range(args.repeat):
                start = time.perf_counter()
                sheet = rs.parse_sheet(text)
                rs.format_problems(sheet.problems, sheet.lang)
                best = min(best, time.perf_counter() - start)
            print(f"{ruleset:10} {name:32} {best * 1000:7.1f} ms  ({len(sheet.problems)} problems)")
    for name, rs in rulesets.items():
        samples = rs.sample_sheets()
        start = time.perf_counter()
        count = 0
        while time.perf_counter() - start < 1.0:
            for text in samples:
                rs.parse_sheet(text)
            count += len(samples)
        print(f"{name:10} sample sheets: {count / (time.perf_counter() - start):,.0f} checks/s")


if __name__ == "__main__":
    main()
