"""Full (execution) validation: stops at the first failing check with its task ID, records
"unverified" when the service is missing, and passes on a stratified sample of the committed
default edition (the whole edition: benchmarks/bench_smolscript_validation.py)."""

from __future__ import annotations

import asyncio
import json
from pathlib import Path

import pytest
from smolscript_builder.validate import (
    EXIT_FAILED,
    EXIT_PASSED,
    EXIT_UNVERIFIED,
    Check,
    failure_order,
    load_edition,
    plan_checks,
    run_full,
    validate_full,
)
from smolscript_sandbox.testing import TEST_URL, ensure_service

from tests.support.ports import closed_port_url
from tests.support.smolscript_edition import TinyTask, write_edition
from tests.support.smolscript_sample import stratified_ids

pytestmark = pytest.mark.integration

REPO = Path(__file__).resolve().parents[2]
DEFAULT_EDITION = REPO / "data" / "smolscript"
# f(n) = 2n, plus 1 above 5; the near miss's bound (7) differs only at n = 7 (test 2)
TESTS = tuple((n, 2 * n + (n > 5)) for n in (0, 3, 7, -4))


def edition(root: Path, tasks: list[tuple[str, str, str, str | None]]) -> Path:
    """A tiny edition of Python tasks given as (id, reference, negative, near_miss), under
    `root`; returns `root`."""
    write_edition(root, [TinyTask(task_id, reference, negative, TESTS, near_miss=near_miss,
                                  near_miss_tests=(2,))
                         for task_id, reference, negative, near_miss in tasks])
    return root


GOOD = "def solve(n):\n    return 2 * n + (1 if n > 5 else 0)\n"
WRONG = "def solve(n):\n    return 2 * n\n"
NEAR = "def solve(n):\n    return 2 * n + (1 if n > 7 else 0)\n"  # only n=7 tells it apart


@pytest.mark.unit
def test_must_fail_checks_run_distinguishing_tests_first():
    hidden = {"tests": list(range(14)), "near_miss_tests": [9, 2]}
    near = Check("t", "near_miss", "", False)
    negative = Check("t", "negative_control", "", False)
    assert failure_order(near, hidden) == [[9, 2], [0, 1, 3, 4, 5, 6, 7, 8], [10, 11, 12, 13]]
    assert failure_order(negative, hidden) == [[0, 1, 2, 3], [4, 5, 6, 7, 8, 9, 10, 11], [12, 13]]
    assert sorted(i for chunk in failure_order(near, hidden) for i in chunk) == list(range(14))


def test_good_edition_passes_and_report_records_execution(tmp_path):
    ensure_service()
    data = edition(tmp_path / "ed", [("t1", GOOD, WRONG, NEAR), ("t2", GOOD, WRONG, None)])
    report = tmp_path / "validation_report.json"
    report.write_text(json.dumps({"static": {"status": "passed"}}))
    assert run_full(data, report, url=TEST_URL) == EXIT_PASSED
    written = json.loads(report.read_text())
    assert written["static"] == {"status": "passed"}  # the static part is kept
    execution = written["execution"]
    assert execution["status"] == "passed"
    assert execution["by_role"] == {"reference": 2, "negative_control": 2, "near_miss": 1,
                                    "mutant": 0}  # hand-made tasks have no pipeline
    # References run all 4 tests; must-fail checks stop at their first failing chunk: the
    # negatives fail within the first 4 tests, the near-miss on its one distinguishing test.
    assert execution["tests_run"] == 2 * 4 + 2 * 4 + 1
    assert execution["references_executed"] == 2


def test_first_failure_stops_with_task_id(tmp_path, capsys):
    ensure_service()
    data = edition(tmp_path / "ed", [("ok1", GOOD, WRONG, None), ("bad2", WRONG, WRONG, None)])
    report = tmp_path / "validation_report.json"
    assert run_full(data, report, url=TEST_URL, concurrency=1) == EXIT_FAILED
    execution = json.loads(report.read_text())["execution"]
    assert execution["status"] == "failed"
    assert execution["failure"]["task_id"] == "bad2"
    assert execution["failure"]["role"] == "reference"
    assert execution["checks_run"] < execution["checks_planned"]  # stopped early
    assert "FAILED at task bad2" in capsys.readouterr().err


def test_missing_service_is_unverified(tmp_path):
    data = edition(tmp_path / "ed", [("t1", GOOD, WRONG, None)])
    report = tmp_path / "validation_report.json"
    code = run_full(data, report, url=closed_port_url(), start_service=False)
    assert code == EXIT_UNVERIFIED
    execution = json.loads(report.read_text())["execution"]
    assert execution["status"] == "unverified" and execution["checks_run"] == 0


def test_default_edition_stratified_validation():
    """Every check (reference, negative control, near-miss, fragile mutants) of a stratified
    sample of the committed default edition: one task of each (language, modality,
    difficulty) stratum, near-miss tasks first (`tests.support.smolscript_sample`), through the
    same `validate_full` path. Every planned check must run and come out as expected.

    The full version (every task of the edition: 350 references, their negative controls,
    near-misses and mutants; 155 s of the suite before) is the benchmark
    `benchmarks/bench_smolscript_validation.py`, which runs it and prints its figures."""
    ensure_service()
    rows, solutions, hidden = load_edition(DEFAULT_EDITION)
    ids = stratified_ids(rows, solutions)
    assert len(ids) == 30  # nine languages; JavaScript's programs and DOM pages apart
    planned = plan_checks([r for r in rows if r["id"] in ids], solutions, hidden, "fragile")
    summary = asyncio.run(validate_full(DEFAULT_EDITION, url=TEST_URL, task_ids=set(ids)))
    assert summary.status == "passed", summary.failure or summary.reason
    assert summary.checks_run == summary.checks_planned == len(planned)
    assert dict(summary.by_role) == {role: sum(c.role == role for c in planned)
                                     for role in ("reference", "negative_control", "near_miss",
                                                  "mutant")}
    assert summary.by_role["reference"] == 30 and summary.by_role["near_miss"] >= 27
    assert summary.by_role["mutant"] > 0
