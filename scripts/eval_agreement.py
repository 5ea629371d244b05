"""Row-by-row agreement of two `smol-envs eval` run sets of the same weights (e.g. a GGUF and the
Hugging Face folder it came from): for each multiple-choice run both hold, the largest absolute
difference of a choice's log-likelihood (nats) and how many rows choose the same answer; for each
generation run, how many rows produced the same completion text. Prints numbers only (no
question or reply text: GPQA rows must never be shown).

Usage:
    uv run python scripts/eval_agreement.py RUN_SET_A RUN_SET_B [--tolerance 0.05]
"""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path


def rows(folder: Path) -> dict:
    """{example_id: row} of a run folder's results.jsonl."""
    out = {}
    for line in (folder / "results.jsonl").read_text().splitlines():
        if line.strip():
            row = json.loads(line)
            out[row["example_id"]] = row
    return out


def completion_text(row: dict) -> str:
    """The completion as text (chat messages joined, or the raw completion)."""
    value = row.get("completion")
    if isinstance(value, list):
        return "\n".join(str(m.get("content") or "") for m in value if isinstance(m, dict))
    return str(value or "")


def agreement(a: Path, b: Path, tolerance: float) -> list[str]:
    """One line per run present in both run sets."""
    lines = []
    for run in sorted(p.parent.name for p in a.glob("*/results.jsonl")):
        if not (b / run / "results.jsonl").is_file():
            continue
        ra, rb = rows(a / run), rows(b / run)
        shared = sorted(set(ra) & set(rb))
        mc = [(ra[i].get("mc_record"), rb[i].get("mc_record")) for i in shared]
        if mc and all(x and y for x, y in mc):
            diffs = [abs(p - q) for x, y in mc for p, q in zip(x["logliks"], y["logliks"],
                                                                strict=True)]
            same = sum(x["pred_norm"] == y["pred_norm"] and x["pred"] == y["pred"] for x, y in mc)
            worst = max(diffs)
            lines.append(f"{run}: {len(shared)} rows, max |loglik A - B| = {worst:.4f} nats "
                         f"({'within' if worst <= tolerance else 'OUTSIDE'} {tolerance}); same "
                         f"answers (acc and acc_norm) on {same} of {len(shared)}")
        else:
            same = sum(completion_text(ra[i]) == completion_text(rb[i]) for i in shared)
            lines.append(f"{run}: {len(shared)} rows, identical greedy completions on {same} of "
                         f"{len(shared)}; reward equal on "
                         f"{sum(ra[i]['reward'] == rb[i]['reward'] for i in shared)}")
    return lines


def main(argv: list[str] | None = None) -> int:
    """Entry point; see the module docstring."""
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("a", type=Path)
    parser.add_argument("b", type=Path)
    parser.add_argument("--tolerance", type=float, default=0.05,
                        help="largest log-likelihood difference (nats) called agreement")
    args = parser.parse_args(argv)
    for line in agreement(args.a, args.b, args.tolerance):
        print(line)
    return 0


if __name__ == "__main__":
    sys.exit(main())
