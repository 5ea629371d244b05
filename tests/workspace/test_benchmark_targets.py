"""Benchmarks judge their targets only on complete runs (issue 43, item 5): the shared closing
lines (benchmarks/target_lines.py), every benchmark's use of them, and a real benchmark run
forced to fail against the real scoring service."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest

from benchmarks.target_lines import FAILED_EXIT, Outcome
from tests.support.smolscript_edition import PREFIX, TinyTask, adder_tasks, write_edition

REPO = Path(__file__).resolve().parents[2]
BENCHMARKS = REPO / "benchmarks"
# Benchmarks that print figures and judge no check (a failure there is an exception, which
# exits non-zero and prints nothing after it). Every other benchmark ends through Outcome.
MEASURE_ONLY = {
    "bench_pico_dsl_v1_rubric.py", "bench_pico_dsl_v1_shaped.py", "bench_serve_tokens.py",
    "bench_smol_slm_eval_loglik.py", "bench_smol_slm_eval_rubric.py",
    "bench_smolscript_inprocess_agreement.py", "bench_smolscript_replicas.py",
    "bench_smoltalkbench_judge.py", "bench_serve_prompt_rows.py", "bench_vf_eval_startup.py",
    "bench_eval_first_request.py",
}


@pytest.mark.unit
def test_a_failed_check_prints_no_target_and_exits_non_zero(capsys):
    outcome = Outcome()
    outcome.target("full validation <= 120 s", True, "39.5 s")
    assert outcome.check(False, "full validation failed after 300 of 939 checks") is False
    assert outcome.finish() == FAILED_EXIT != 0
    printed = capsys.readouterr().out
    assert "FAILED: full validation failed after 300 of 939 checks" in printed
    assert "met" not in printed.replace("no target is judged", "")
    assert "39.5" not in printed


@pytest.mark.unit
def test_a_complete_run_judges_every_target(capsys):
    outcome = Outcome()
    assert outcome.check(True, "never shown")
    outcome.target("full validation <= 120 s", True, "39.5 s")
    outcome.target(">= 10x the baseline", False, "6.2x projected")
    assert outcome.finish() == 0
    assert capsys.readouterr().out.splitlines() == [
        "target: full validation <= 120 s: met (39.5 s)",
        "target: >= 10x the baseline: NOT met (6.2x projected)"]


@pytest.mark.unit
def test_every_benchmark_that_judges_a_target_uses_the_shared_lines():
    """A benchmark printing its own "met" would bypass the complete-run rule."""
    own = [path.name for path in BENCHMARKS.glob("*.py")
           if path.name != "target_lines.py"
           and ("'met'" in (text := path.read_text()) or '"met"' in text
                or "NOT met" in text)]
    assert own == []


@pytest.mark.unit
def test_every_benchmark_ends_through_the_shared_lines_or_judges_nothing():
    """A new benchmark must either end through `Outcome.finish` or be listed as measuring
    only, so that none can print success on a run whose checks failed."""
    scripts = {path.name for path in BENCHMARKS.glob("bench_*.py")} | {"smolscript_verdicts.py"}
    ending = {name for name in scripts
              if "from target_lines import Outcome" in (BENCHMARKS / name).read_text()}
    assert scripts - ending == MEASURE_ONLY


def _validation_bench(data: Path, url: str) -> subprocess.CompletedProcess:
    """benchmarks/bench_smolscript_validation.py on the edition at `data`, one task per
    language in the sample, against the service at `url`."""
    return subprocess.run(
        [sys.executable, str(BENCHMARKS / "bench_smolscript_validation.py"), "--data",
         str(data), "--per-language", "1", "--url", url],
        capture_output=True, text=True, timeout=600, cwd=REPO,
        env={**os.environ, "SMOLSCRIPT_SANDBOX_URL": url})


@pytest.mark.integration
def test_validation_benchmark_on_a_failing_edition_prints_no_target(tmp_path, scoring_service):
    """The reference of the second task is wrong: the full validation stops at that check, so
    the benchmark exits non-zero, names it, and judges no target (before: "met" and a
    projection from the partial run). A correct edition, the positive control, judges both
    targets and exits 0."""
    from smolscript_sandbox.testing import TEST_URL

    good = adder_tasks(2)
    broken = TinyTask(id="python-easy-009", reference=f"{PREFIX}    return n * 2 + 1\n",
                      negative=f"{PREFIX}    return -1\n", tests=((0, 0), (1, 1), (2, 2)))
    write_edition(tmp_path / "broken", [*good, broken])
    failed = _validation_bench(tmp_path / "broken", TEST_URL)
    assert failed.returncode != 0, failed.stdout + failed.stderr
    assert "FAILED: full validation failed" in failed.stdout, failed.stdout + failed.stderr
    assert not [line for line in failed.stdout.splitlines()
                if line.startswith("target:") or " met" in line], failed.stdout

    write_edition(tmp_path / "good", good)
    passed = _validation_bench(tmp_path / "good", TEST_URL)
    assert passed.returncode == 0, passed.stdout + passed.stderr
    targets = [line for line in passed.stdout.splitlines() if line.startswith("target:")]
    assert len(targets) == 2 and all(" met (" in t or "NOT met (" in t for t in targets), \
        passed.stdout
