"""Check a finished `vf-eval -s` run folder: how many rollouts, how many errored, where it is.

Used by `scripts/quickstart.sh` so that a run with any errored rollout exits non-zero even if
the environment let it through; pure apart from reading the folder.

    python -m smol_envs_core.report.runs check OUTPUT_DIR
"""

from __future__ import annotations

import argparse
import sys
from dataclasses import dataclass
from pathlib import Path

from .read import read_results


@dataclass(frozen=True)
class RunCheck:
    """Counts of one run folder (the one holding results.jsonl)."""

    path: Path
    rollouts: int
    errored: int
    first_error: str | None

    @property
    def ok(self) -> bool:
        """True when the run produced rollouts and none of them errored."""
        return self.rollouts > 0 and self.errored == 0


def find_results(root: Path) -> Path:
    """The newest results.jsonl under `root` (vf-eval nests it as env--model/hash/).

    Raises:
        FileNotFoundError: none under `root`.
    """
    found = sorted(root.rglob("results.jsonl"), key=lambda p: p.stat().st_mtime)
    if not found:
        raise FileNotFoundError(f"no results.jsonl under {root} (did the run save with -s?)")
    return found[-1]


def check_run(results: Path) -> RunCheck:
    """Count the rollouts of a results.jsonl and those whose `error` is set."""
    rollouts = errored = 0
    first_error = None
    for row in read_results(results).rows:
        rollouts += 1
        if row.error:
            errored += 1
            first_error = first_error or row.error
    return RunCheck(results.parent, rollouts, errored, first_error)


def main(argv: list[str] | None = None) -> int:
    """`check OUTPUT_DIR`: print the counts and the run folder; exit 1 unless every rollout
    finished without error."""
    parser = argparse.ArgumentParser(prog="python -m smol_envs_core.report.runs",
                                     description=__doc__.split("\n")[0])
    parser.add_argument("command", choices=["check"],
                        help="check: count rollouts and errored ones; exit 1 on any error")
    parser.add_argument("output_dir", type=Path, help="the folder given to vf-eval -o")
    args = parser.parse_args(argv)
    try:
        result = check_run(find_results(args.output_dir))
    except (FileNotFoundError, ValueError) as exc:
        print(f"error: {exc}", file=sys.stderr)
        return 1
    print(f"run folder: {result.path}")
    print(f"rollouts: {result.rollouts}, errored: {result.errored}")
    if not result.ok:
        print(f"error: the run had {result.errored} errored rollout(s) of {result.rollouts}; "
              f"first: {result.first_error}", file=sys.stderr)
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main())
