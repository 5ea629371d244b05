"""Every environment commits its Hub evidence: one saved `vf-eval -n 5 -r 3 -s` run under
`environments/<pkg>/outputs/evals/<env>--<model>/<run>/` (prime-environments' contribution
template), made by `scripts/make_outputs.py`. The run must be of the environment's current
behaviour version (a verdict change forces regeneration), hold 5 distinct examples x 3
rollouts with no infrastructure error, carry no GPQA row (its licence forbids publishing
examples), stay small, and be read by `smol-envs report` (the reader API, in-process)."""

from __future__ import annotations

import importlib
import json
from collections import Counter
from pathlib import Path

import pytest
from smol_envs_core.report import report_runs

pytestmark = pytest.mark.unit

REPO = Path(__file__).resolve().parents[2]
REGENERATE = "uv run python scripts/make_outputs.py"
ENVIRONMENTS = sorted(p.parent.name for p in (REPO / "environments").glob("*/pyproject.toml"))
EXAMPLES, ROLLOUTS = 5, 3
MAX_RESULTS_BYTES = 256 * 1024


def evidence_run(folder: str) -> Path:
    """The one evidence run, environments/<folder>/outputs/evals/*/evidence/ (fails otherwise;
    a developer's own `vf-eval -s` runs beside it are not evidence)."""
    evals = REPO / "environments" / folder / "outputs" / "evals"
    found = sorted(evals.glob("*/evidence/results.jsonl"))
    assert len(found) == 1, (f"environments/{folder}/outputs/evals/ holds {len(found)} evidence "
                             f"runs, not one: `{REGENERATE}`")
    return found[0].parent


def behaviour_version(folder: str) -> str:
    """The package's current BEHAVIOUR_VERSION (its scorer module)."""
    return importlib.import_module(f"{folder}.scorer").BEHAVIOUR_VERSION


def rows_of(run: Path) -> list[dict]:
    """results.jsonl's rows."""
    lines = (run / "results.jsonl").read_text(encoding="utf-8").splitlines()
    return [json.loads(line) for line in lines if line.strip()]


def test_every_environment_is_covered():
    assert ENVIRONMENTS == ["pico_dsl_v1", "smol_slm_eval", "smolscript", "smoltalkbench"]


@pytest.mark.parametrize("folder", ENVIRONMENTS)
def test_evidence_is_five_examples_by_three_rollouts_of_the_current_version(folder):
    run = evidence_run(folder)
    metadata = json.loads((run / "metadata.json").read_text(encoding="utf-8"))
    rows = rows_of(run)
    current = behaviour_version(folder)
    assert (metadata["num_examples"], metadata["rollouts_per_example"]) == (EXAMPLES, ROLLOUTS)
    assert metadata["behaviour_version"] == current, (
        f"{run.relative_to(REPO)} is of behaviour version {metadata['behaviour_version']}, the "
        f"package is at {current}: `{REGENERATE} --only {metadata['env_id']}`")
    assert {str(r["info"]["behaviour_version"]) for r in rows} == {current}
    assert Counter(r["example_id"] for r in rows) == {i: ROLLOUTS for i in range(EXAMPLES)}
    assert all(not r.get("error") for r in rows), "an infrastructure error in the evidence"
    assert all(isinstance(r["reward"], (int, float)) for r in rows)
    assert (run / "results.jsonl").stat().st_size <= MAX_RESULTS_BYTES
    assert not list(run.glob("*.log")), "vf-eval's worker logs are not evidence"


@pytest.mark.parametrize("folder", ENVIRONMENTS)
def test_evidence_holds_no_gpqa_row(folder):
    run = evidence_run(folder)
    metadata = (run / "metadata.json").read_text(encoding="utf-8")
    assert "gpqa" not in metadata.lower()
    for row in rows_of(run):
        assert "gpqa" not in json.dumps(row.get("info", {})).lower()
        assert "gpqa" not in json.dumps(row.get("prompt", "")).lower()


@pytest.mark.parametrize("folder", ENVIRONMENTS)
def test_smol_envs_report_reads_the_evidence(folder):
    run = evidence_run(folder)
    [report] = report_runs([run])
    assert report.header.path == run
    assert report.header.behaviour_versions == (behaviour_version(folder),)
    assert report.body.headline, f"{run.relative_to(REPO)}: the report has no headline figure"
    assert report.body.subset, "5 examples are a subset, never labelled the benchmark's score"
