"""`smoltalkbench-report`: print the report table for a results file and write its PNG chart."""

from __future__ import annotations

import argparse
import json
from pathlib import Path

from smoltalkbench import report


def main(argv: list[str] | None = None) -> int:
    """Entry point: `smoltalkbench-report RESULTS [--png PATH] [--json PATH]`; returns 0."""
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument(
        "results", help="results.jsonl from `vf-eval smoltalkbench -s`, or its folder"
    )
    parser.add_argument(
        "--png", help="chart path (default: smoltalkbench_report.png beside the results)"
    )
    parser.add_argument("--json", help="also write the figures as JSON to this path")
    args = parser.parse_args(argv)

    from rich.console import Console

    results = Path(args.results)
    summary = report.summarize(report.load_samples(results), model=report.run_model(results))
    Console().print(report.render(summary))
    folder = results if results.is_dir() else results.parent
    png = report.plot(summary, args.png or folder / "smoltalkbench_report.png")
    print(f"chart: {png}")
    if args.json:
        Path(args.json).write_text(json.dumps(report.to_dict(summary), indent=2) + "\n")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
