"""List the models whose training seeds reached different numbers of steps at one preset (issue 67): the units still
to retrain since budgets became steps. ``python scripts/training_steps.py [RESULTS] [--all]``: every record with
``--all``; exits 1 when some disagree."""
from __future__ import annotations

import argparse
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from reproducer.report.training_steps import training_steps, unequal_steps  # noqa: E402


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("results", nargs="?", default=str(Path(__file__).resolve().parents[1] / "results"))
    parser.add_argument("--all", action="store_true", help="print every training record, not only the disagreeing")
    args = parser.parse_args(argv)
    if not Path(args.results).is_dir():
        parser.error(f"no results folder at {args.results}")
    steps = training_steps(args.results)
    shown = steps if args.all else unequal_steps(steps)
    if shown.empty:
        print(f"every model's seeds trained the same steps ({len(steps)} training records)")
        return 0
    table = shown.pivot_table(index=["chapter", "preset", "model"], columns="seed", values="steps")
    print(table.to_string(float_format=lambda v: f"{v:,.0f}"))
    return 1 if not unequal_steps(steps).empty else 0


if __name__ == "__main__":
    sys.exit(main())
