"""Validate the smolscript dataset under data/smolscript/.

--static-only: counts, uniqueness, oracle cases, Python renderings of references and mutants,
selection manifest, hashes and Parquet (smolscript_builder.checks); exit 0 only when all hold.
Both modes print the share of pipeline mutants (smolscript_builder.mutants) the hidden tests
catch, per language, for the default edition and each frozen earlier default edition.
Without it, the execution checks run too, through the scoring service:
``smolscript_builder.validate.run_execution_checks(data_dir, files) -> dict`` (the
"execution" section of validation_report.json, with a "status" of "passed" or "failed").
When that hook or the service is unavailable the script exits 2 and execution stays
"unverified". Exit codes: 0 all passed, 1 a check failed, 2 execution not possible.
"""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path

DEFAULT_DIR = Path(__file__).resolve().parents[1] / "data" / "smolscript"


def read_files(root: Path) -> dict[str, bytes]:
    """Every file under ``root`` as ``{relative posix path: bytes}``."""
    return {
        p.relative_to(root).as_posix(): p.read_bytes()
        for p in sorted(root.rglob("*"))
        if p.is_file()
    }


def _refresh_card(data_dir: Path) -> None:
    from smolscript_builder.validate import refresh_card

    if refresh_card(data_dir):
        print("README.md: status re-rendered from validation_report.json (checksum updated)")


def print_mutant_table(files: dict[str, bytes]) -> None:
    """Print the mutant-catch share per language of each frozen default edition and the
    current one (`smolscript_builder.mutant_catch`)."""
    from smolscript_builder.checks import load_edition
    from smolscript_builder.editions import DATASET_VERSION, FROZEN_ARCHIVES
    from smolscript_builder.mutant_catch import catch_table, format_table

    cache: dict = {}
    tables = {}
    for edition, prefix in FROZEN_ARCHIVES.items():
        public = [json.loads(line) for line in files[prefix + "smolscript.jsonl"].splitlines()]
        hidden = [json.loads(line)
                  for line in files[prefix + "private_tests/hidden.jsonl"].splitlines()]
        tables[edition] = catch_table(public, hidden, cache)
    current = load_edition(files, "default")
    tables[f"default ({DATASET_VERSION})"] = catch_table(current["public"], current["hidden"],
                                                         cache)
    print("pipeline mutants caught / not equivalent, share, tasks with a survivor:")
    print(format_table(tables))


def main(argv: list[str] | None = None) -> int:
    """Run the checks, print one line per check, return the exit code."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0],
                                     formatter_class=argparse.ArgumentDefaultsHelpFormatter)
    parser.add_argument("--data-dir", type=Path, default=DEFAULT_DIR,
                        help="dataset folder to check")
    parser.add_argument("--static-only", action="store_true",
                        help="file, schema and audit checks only (no scoring service)")
    parser.add_argument("--full", action="store_true",
                        help="execution checks too (the default unless --static-only)")
    parser.add_argument("--mutants", choices=("fragile", "all", "none"), default="fragile",
                        help="mutants executed in the service: those exactly one hidden test "
                        "catches, all non-equivalent ones, or none")
    parser.add_argument("--task", action="append", dest="tasks", metavar="ID",
                        help="execute only these task ids (repeatable; a development subset: "
                        "the report is not written)")
    args = parser.parse_args(argv)

    from smolscript_builder.checks import static_checks

    if not (args.data_dir / "selection_manifest.json").is_file():
        print(f"no dataset in {args.data_dir}")
        return 1
    files = read_files(args.data_dir)
    include_web = json.loads(files["selection_manifest.json"])["include_web"]
    results = static_checks(files, include_web)
    for name, result in results.items():
        mark = "ok  " if result["passed"] else "FAIL"
        print(f"{mark} {name}" + ("" if result["passed"] else f": {result['errors'][:3]}"))
    if not all(r["passed"] for r in results.values()):
        return 1
    print_mutant_table(files)
    if args.static_only:
        print("static checks passed (execution not checked: --static-only)")
        _refresh_card(args.data_dir)
        return 0
    try:
        from smolscript_builder.validate import run_execution_checks
    except ImportError as exc:
        print(f"execution checks unavailable ({exc}); execution stays unverified")
        return 2
    if args.tasks:
        execution = run_execution_checks(args.data_dir, files, mutants=args.mutants,
                                         task_ids=set(args.tasks))
        print(f"execution of {len(args.tasks)} task(s): {execution.get('status')} "
              f"({execution.get('detail', '')}; by role {execution.get('by_role')})")
        return {"passed": 0, "failed": 1}.get(execution.get("status"), 2)
    execution = run_execution_checks(args.data_dir, files, mutants=args.mutants)
    report_path = args.data_dir / "validation_report.json"
    report = json.loads(report_path.read_text())
    report["execution"] = execution
    report_path.write_text(json.dumps(report, indent=1, sort_keys=True) + "\n")
    status = execution.get("status")
    print(f"execution: {status} ({execution.get('detail', '')})")
    _refresh_card(args.data_dir)
    return {"passed": 0, "failed": 1}.get(status, 2)


if __name__ == "__main__":
    sys.exit(main())
