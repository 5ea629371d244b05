"""One report for every environment: open `vf-eval -s` result folders, recognise each run's
environment from its metadata.json and ask that environment's report hook for its tables and
charts.

An environment registers its hook as an entry point in the group `smol_envs.report` (name: the
environment id vf-eval records, e.g. `pico-dsl-v1`; value: a function `(Results) -> EnvReport`),
so the core imports no environment. The hook reads the rows with the environment's own
summary code and returns plain tables and bar series; `report_text` and `report_html` render
them, always headed by the model, the endpoint, the date, the dataset version and the run path.
Pure apart from reading the folders and loading the hooks.
"""

from __future__ import annotations

import datetime as dt
from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass, field
from importlib.metadata import entry_points
from pathlib import Path

from .errors import SmolEnvsError
from .results import RESULTS_FILE, Results, ResultsError, read_results

HOOK_GROUP = "smol_envs.report"
FAILED_SUFFIX = "-FAILED"


class ReportError(SmolEnvsError, ValueError):
    """A run cannot be reported (no results, unknown or other environment, bad rows); the
    message is one line naming the path."""


@dataclass(frozen=True)
class Table:
    """A table to show: a title, column names and rows of ready-formatted cells."""

    title: str
    columns: tuple[str, ...]
    rows: tuple[tuple[str, ...], ...]


@dataclass(frozen=True)
class Bars:
    """A bar chart: one bar per label and series, values in `unit` (None = no value, drawn as
    an empty bar labelled n/a); `limit` is the axis maximum (None: from the data)."""

    title: str
    labels: tuple[str, ...]
    series: tuple[tuple[str, tuple[float | None, ...]], ...]
    unit: str
    limit: float | None = 100.0


@dataclass(frozen=True)
class EnvReport:
    """What an environment's hook returns for one run.

    dataset_version: which data the run used (e.g. edition and sha256 prefix).
    status: the run's standing in one phrase (e.g. "official", "partial: no score").
    headline: (name, value) pairs, the figures a reader looks for first.
    """

    dataset_version: str
    status: str
    headline: tuple[tuple[str, str], ...] = ()
    tables: tuple[Table, ...] = ()
    charts: tuple[Bars, ...] = ()
    notes: tuple[str, ...] = ()


@dataclass(frozen=True)
class RunHeader:
    """Who and what a run was: environment id, model, endpoint, date (ISO, UTC) and path."""

    env_id: str
    model: str
    endpoint: str
    date: str
    path: Path


@dataclass(frozen=True)
class RunReport:
    """One run's header and its environment's report."""

    header: RunHeader
    body: EnvReport
    skipped: tuple[str, ...] = field(default=())


Hook = Callable[[Results], EnvReport]


def find_runs(paths: Iterable[str | Path]) -> tuple[list[Path], list[str]]:
    """The results.jsonl files named by `paths` (a results.jsonl, a run folder, or a folder
    searched recursively), in the order given, and notes on failed runs skipped in searched
    folders.

    Raises:
        ReportError: a path does not exist, a run folder given by name is a failed run
            (`<hash>-FAILED`), or a searched folder holds no results.jsonl.
    """
    found: list[Path] = []
    skipped: list[str] = []
    for given in map(Path, paths):
        if not given.exists():
            raise ReportError(f"{given}: no such file or folder")
        run_dir = given.parent if given.is_file() else given
        if run_dir.name.endswith(FAILED_SUFFIX):
            raise ReportError(f"{run_dir}: a failed run (see its FAILED.txt), nothing to report")
        if given.is_file():
            found.append(given)
        elif (given / RESULTS_FILE).is_file():
            found.append(given / RESULTS_FILE)
        else:
            inside = sorted(given.rglob(RESULTS_FILE))
            kept = [p for p in inside if not p.parent.name.endswith(FAILED_SUFFIX)]
            skipped += [f"skipped failed run {p.parent}" for p in inside if p not in kept]
            if not kept:
                raise ReportError(f"{given}: no {RESULTS_FILE} inside (expected a `vf-eval -s` "
                                  "result folder)")
            found += kept
    return list(dict.fromkeys(found)), skipped


def run_header(results: Results) -> RunHeader:
    """The header of a run from its metadata.json (the results file's time when vf-eval did
    not record a date).

    Raises:
        ReportError: no metadata.json, or it names no environment.
    """
    meta = results.metadata
    if not meta:
        raise ReportError(f"{results.path.parent}: no metadata.json beside {RESULTS_FILE} "
                          "(not a `vf-eval -s` run folder?)")
    env_id = meta.get("env_id") or meta.get("env")
    if not env_id:
        raise ReportError(f"{results.path.parent}: metadata.json names no environment")
    date = meta.get("date")
    if not date:
        stamp = dt.datetime.fromtimestamp(results.path.stat().st_mtime, tz=dt.UTC)
        date = stamp.strftime("%Y-%m-%d %H:%M UTC")
    return RunHeader(env_id=str(env_id), model=str(meta.get("model") or "?"),
                     endpoint=str(meta.get("base_url") or "?"), date=str(date),
                     path=results.path.parent)


def env_key(env_id: str) -> str:
    """An environment id as hooks are looked up: `pico_dsl_v1` and `pico-dsl-v1` are one."""
    return env_id.strip().lower().replace("_", "-")


def hooks() -> dict[str, Callable[[], Hook]]:
    """Loaders of the installed report hooks by `env_key` (entry-point group
    `smol_envs.report`); a hook is imported only when a run needs it."""
    return {env_key(ep.name): ep.load for ep in entry_points(group=HOOK_GROUP)}


def expect_environment(results: Results, env_id: str) -> None:
    """Refuse a run of another environment (by metadata.json's env_id) in an environment's
    own report command.

    Raises:
        ReportError: the run's metadata names another environment.
    """
    found = results.metadata.get("env_id")
    if found and env_key(found) != env_key(env_id):
        raise ReportError(f"{results.path.parent} is a {found} run, not {env_id}: report it with "
                          f"`smol-envs report {results.path.parent}`")


def report_run(path: Path, available: dict[str, Callable[[], Hook]] | None = None) -> RunReport:
    """Read one results.jsonl, recognise its environment and build its report.

    Raises:
        ReportError: unreadable results, no metadata, no hook for the environment, or the hook
            refused the rows (its ValueError or SmolEnvsError, one line).
    """
    try:
        results = read_results(path)
    except ResultsError as exc:
        raise ReportError(str(exc)) from exc
    header = run_header(results)
    available = hooks() if available is None else available
    if env_key(header.env_id) not in available:
        known = ", ".join(sorted(available)) or "none installed"
        raise ReportError(f"{header.path}: no report for environment {header.env_id!r} "
                          f"(known: {known})")
    hook = available[env_key(header.env_id)]()
    if not results.rows:
        raise ReportError(f"{path}: no rollouts")
    try:
        body = hook(results)
    except (ValueError, SmolEnvsError) as exc:
        raise ReportError(f"{header.path}: {exc}") from exc
    return RunReport(header=header, body=body)


def report_runs(paths: Sequence[str | Path]) -> list[RunReport]:
    """`report_run` over every run `find_runs` finds; the first failure raises ReportError."""
    found, skipped = find_runs(paths)
    available = hooks()
    reports = [report_run(path, available) for path in found]
    if skipped and reports:
        reports[0] = RunReport(reports[0].header, reports[0].body, tuple(skipped))
    return reports
