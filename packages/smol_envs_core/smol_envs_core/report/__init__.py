"""The collection's one report: a results model (`model`), its one reader (`read`), the
behaviour-version check (`versions`), statistics computed once in the model (`statistics`),
what part of a benchmark a run covers (`coverage`), the pipeline from run folders to reports
through each environment's hook (`build`), one renderer for the terminal (`text`), HTML
(`html`), charts (`charts`) and Markdown (`markdown`, with the `leaderboard`), and the paired
comparison of two runs (`compare`, its statistics in `paired`, its tables in
`compare_tables`), through each environment's compare hook.

The names below are what environments' report hooks and commands use; rich, matplotlib, numpy
and scipy are imported only by the functions that draw or compute intervals.
"""

from ..env_ids import env_key
from .build import HOOK_GROUP, apply_hook, hooks, read_run, report_results, report_runs
from .model import (
    FULL_BENCHMARK,
    UNVERSIONED,
    Bars,
    Cell,
    EnvReport,
    Estimate,
    Provenance,
    ReportError,
    Results,
    ResultsError,
    Row,
    RunReport,
    Standing,
    Table,
)
from .read import (
    expect_environment,
    find_runs,
    make_row,
    provenance,
    read_results,
    results_path,
)
from .rollouts import by_example
from .statistics import (
    binary,
    describe,
    fmt,
    mean,
    mean_score,
    mean_stderr,
    pass_at_k,
    stratified_bootstrap,
)
from .versions import ALLOW_FLAG, MixedVersionsError, check_versions

__all__ = [
    "ALLOW_FLAG", "FULL_BENCHMARK", "HOOK_GROUP", "UNVERSIONED", "Bars", "Cell", "EnvReport",
    "Estimate", "MixedVersionsError", "Provenance", "ReportError", "Results", "ResultsError",
    "Row", "RunReport", "Standing", "Table", "apply_hook", "binary", "by_example",
    "check_versions", "describe", "env_key", "expect_environment", "find_runs", "fmt", "hooks",
    "make_row", "mean", "mean_score", "mean_stderr", "pass_at_k", "provenance", "read_results",
    "read_run", "report_results", "report_runs", "results_path", "stratified_bootstrap",
]
