"""One report for every environment: read `vf-eval -s` result folders into the results model,
recognise each run's environment from its metadata.json, check that runs of one environment
share a behaviour version, and ask that environment's report hook for its tables and charts.

An environment registers its hook as an entry point in the group `smol_envs.report` (name: the
environment id vf-eval records, e.g. `pico-dsl-v1`; value: a function `(Results) -> EnvReport`),
so the core imports no environment; a run recorded under a former id (`smol_envs.renamed`, see
`env_ids`) goes to the environment's current hook, with a note saying so. The hook reads only
the `Results` it is given (never the disk) and returns plain tables, estimates and bar series;
`text` and `html` render them, always headed by the run's provenance. Pure apart from reading
the folders and the installed entry points, and loading the hooks.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import replace
from importlib.metadata import entry_points
from pathlib import Path
from typing import Any

from ..env_ids import REPORT_GROUP, canonical_key, env_key, renamed_environments
from ..errors import SmolEnvsError
from .model import EnvReport, Hook, ReportError, Results, Row, RunReport, Table, errored_note
from .read import RESULTS_FILE, find_runs, read_results
from .rollouts import by_example, rollouts_note
from .statistics import is_binary, pass_at_k_estimates
from .versions import check_versions

HOOK_GROUP = REPORT_GROUP
# The k of the pass@k table of a multi-rollout run (those up to its rollouts per example).
PASS_KS = (1, 2, 5, 10, 20, 50, 100)


def hooks(group: str = HOOK_GROUP) -> dict[str, Callable[[], Any]]:
    """Loaders of the installed hooks of an entry-point group by `env_key` (default
    `smol_envs.report`; `smol_envs.compare` for `compare`); a hook is imported only when a run
    needs it."""
    return {env_key(ep.name): ep.load for ep in entry_points(group=group)}


def apply_hook(hook: Hook, results: Results) -> RunReport:
    """Run an environment's hook on one run.

    Raises:
        ReportError: the run has no rollouts, every rollout errored, or the hook refused the
            rows (its ValueError or SmolEnvsError, one line naming the run folder). Errored
            rollouts are left out of the hook's rows and said in the report.
    """
    if not results.rows:
        raise ReportError(f"{results.path}: no rollouts")
    clean, errored = results.split_errored("report")
    examples = by_example(clean)
    try:
        body: EnvReport = hook(examples)
    except (ValueError, SmolEnvsError) as exc:
        raise ReportError(f"{results.path.parent}: {exc}") from exc
    body = with_rollouts(body, clean, examples)
    if errored:
        body = _less_errored(body, errored)
    return RunReport(header=results.provenance, body=body)


def with_rollouts(body: EnvReport, rollouts: Results, examples: Results) -> EnvReport:
    """`body` with the note on how rollouts were counted and, when every example has several
    rollouts and the headline reward is pass/fail in each, a pass@k table of the reward (k up
    to the fewest rollouts of an example). The same for one rollout per example."""
    note = rollouts_note(rollouts)
    if note is None:
        return body
    tables = body.tables
    samples = [[r.optional_metric("reward") for r in (row.rollouts or (row,))]
               for row in examples.rows]
    if all(len(s) > 1 and None not in s and is_binary(s) for s in samples):
        estimates = pass_at_k_estimates(samples, PASS_KS)
        rows = tuple((f"pass@{k}", e) for k, e in estimates.items())
        tables = (*tables, Table("pass@k of the reward (x100; examples are the unit)",
                                 ("k", "pass@k"), rows))
    return replace(body, notes=(note, *body.notes), tables=tables)


def _less_errored(body: EnvReport, errored: Sequence[Row]) -> EnvReport:
    """`body` marked as resting on the rollouts that finished: a note, the status, and a
    subset (so neither the report nor the leaderboard presents it as the whole run)."""
    less = f"less {len(errored)} errored rollout(s)"

    def subset(current: str | None) -> str:
        return f"{current}, {less}" if current else f"the benchmark {less}"

    return replace(
        body, status=f"{body.status}; {less}", notes=(errored_note(errored), *body.notes),
        subset=subset(body.subset),
        leaderboard=tuple(replace(s, subset=subset(s.subset)) for s in body.leaderboard))


def read_run(path: str | Path) -> Results:
    """Read one run for `smol-envs report`: its results and the metadata.json naming its
    environment.

    Raises:
        ReportError: unreadable results, no metadata.json, or it names no environment.
    """
    results = read_results(path)
    if not results.metadata:
        raise ReportError(f"{results.path.parent}: no metadata.json beside {RESULTS_FILE} "
                          "(not a `vf-eval -s` run folder?)")
    if not (results.metadata.get("env_id") or results.metadata.get("env")):
        raise ReportError(f"{results.path.parent}: metadata.json names no environment")
    return results


def report_results(runs: Sequence[Results], available: dict[str, Callable[[], Hook]] | None = None,
                   allow_mixed_versions: bool = False) -> list[RunReport]:
    """The reports of runs already read, in order, after the behaviour-version check.

    A run recorded under an environment's former id is reported by its current hook, with a
    note naming both ids.
    Raises:
        MixedVersionsError: runs of one environment carry different behaviour versions and
            `allow_mixed_versions` is false (when true, the first report carries a note).
        ReportError: no hook for a run's environment, or a hook refused its rows.
    """
    allowed = check_versions([r.provenance for r in runs], allow_mixed_versions)
    available = hooks() if available is None else available
    renamed = renamed_environments()
    reports = []
    for results in runs:
        recorded = results.provenance.env_id
        key = canonical_key(recorded, renamed)
        if key not in available:
            known = ", ".join(sorted(available)) or "none installed"
            raise ReportError(f"{results.path.parent}: no report for environment "
                              f"{recorded!r} (known: {known})")
        report = apply_hook(available[key](), results)
        if key != env_key(recorded):
            report = RunReport(report.header, report.body,
                               (f"recorded as {recorded}, the former id of {key}",
                                *report.skipped))
        reports.append(report)
    if allowed and reports:
        reports[0] = RunReport(reports[0].header, reports[0].body,
                               (*reports[0].skipped, *allowed))
    return reports


def report_runs(paths: Sequence[str | Path], allow_mixed_versions: bool = False) -> list[RunReport]:
    """`smol-envs report`: every run `find_runs` finds, read, version-checked and reported;
    notes on skipped failed runs go on the first report. The first failure raises ReportError
    (MixedVersionsError for mixed behaviour versions)."""
    found, skipped = find_runs(paths)
    reports = report_results([read_run(path) for path in found],
                             allow_mixed_versions=allow_mixed_versions)
    if skipped and reports:
        reports[0] = RunReport(reports[0].header, reports[0].body,
                               (*skipped, *reports[0].skipped))
    return reports
