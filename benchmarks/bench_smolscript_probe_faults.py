"""Benchmark: how many HTML/CSS tasks an answer that does less than the task passes, per edition.

For every HTML and CSS task of the current default edition and of `default-0.3.0` (the same
tasks with 0.3.0's probes), builds the exploits of `smolscript_builder.web.exploits` (hidden
markup six ways, a wrong second copy, a stylesheet styling only the first matching element,
a breakpoint moved by -60 / +60 px) and scores each through the real scoring service with the
same `score_code` that scores a model. Prints, per exploit and edition, tasks passed / tasks
the exploit applies to, and the mean share of hidden tests passed. Exits 1 if any exploit
passes any task of the current edition.

Usage: uv run python benchmarks/bench_smolscript_probe_faults.py [--service-url URL]
"""

from __future__ import annotations

import argparse
import asyncio
import sys
from collections import defaultdict

EDITIONS = ("default-0.3.0", "default")


async def measure(url: str | None) -> dict[tuple[str, str], list[dict]]:
    """{(edition, exploit): [verdict, ...]} over every applicable HTML/CSS task."""
    from smolscript.data import load_hidden, load_references, load_tasks
    from smolscript.verdict import resolve_service_url, score_code
    from smolscript_builder.web.exploits import exploits
    from smolscript_sandbox.client import SandboxClient

    out: dict[tuple[str, str], list[dict]] = defaultdict(list)
    async with SandboxClient(resolve_service_url(url, start=True)) as client:
        for edition in EDITIONS:
            refs, hidden = load_references(edition), load_hidden(edition)
            for row in load_tasks(edition, languages=["html", "css"]):
                for name, source in sorted(exploits(row, refs[row["id"]]).items()):
                    verdict = await score_code(row, hidden[row["id"]], source, client,
                                               credit_rate=False)
                    out[(edition, f"{row['language']} {name}")].append(verdict)
    return out


def main(argv: list[str] | None = None) -> int:
    """Measure, print the table, return 1 if an exploit passes a current task."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--service-url", default=None,
                        help="scoring service (default: reuse or start the local one)")
    args = parser.parse_args(argv)
    results = asyncio.run(measure(args.service_url))
    names = sorted({name for _, name in results})
    print(f"| exploit | {' | '.join(f'{e} passed' for e in EDITIONS)} | "
          f"{' | '.join(f'{e} tests passed %' for e in EDITIONS)} |")
    print("|---|" + "---|" * (2 * len(EDITIONS)))
    leaks = 0
    for name in names:
        cells, rates = [], []
        for edition in EDITIONS:
            verdicts = results[(edition, name)]
            passed = sum(v["passed"] for v in verdicts)
            cells.append(f"{passed}/{len(verdicts)}")
            share = sum(v["hidden_test_pass_rate"] for v in verdicts) / len(verdicts)
            rates.append(f"{100 * share:.1f}")
            if edition == "default":
                leaks += passed
        print(f"| {name} | {' | '.join(cells)} | {' | '.join(rates)} |")
    print(f"exploits passing a task of the current edition: {leaks}")
    from target_lines import Outcome

    outcome = Outcome()
    outcome.check(not leaks, f"{leaks} exploit verdicts pass a task of the current edition")
    return outcome.finish()


if __name__ == "__main__":
    sys.exit(main())
