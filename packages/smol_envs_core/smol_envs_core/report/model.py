"""The results model every report works on: one run's rows (info, metrics, the raw row), its
metadata and its provenance (environment, model, endpoint, date, path, behaviour version,
dataset hashes), and what a report is made of (estimates, tables, bar series).

`read.read_results` builds a `Results` from a `vf-eval -s` folder; environments' report hooks
take a `Results` and return an `EnvReport`; `text` and `html` render `RunReport`s. Pure data
and the strict metric lookup; no files, no verifiers.
"""

from __future__ import annotations

import math
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import Any

from ..errors import SmolEnvsError

UNVERSIONED = "unversioned"


class ReportError(SmolEnvsError, ValueError):
    """A run cannot be reported (no results, unknown or other environment, bad rows, mixed
    behaviour versions); the message is one line naming the path."""


class ResultsError(ReportError):
    """A results file is missing, unreadable or not JSON Lines, or a row lacks a metric the
    report needs (the message names the file or the line)."""


@dataclass(frozen=True)
class Row:
    """One rollout of a results.jsonl.

    line: its 1-based line number in the file (0 for rows that come from elsewhere).
    info: the row's `info` (vf-eval may store it as a JSON string; here always a dict).
    metrics: the row's `metrics` dict merged over the top-level numbers vf-eval 0.3.1 also
        writes (its save_utils flattens metrics to top-level keys); `metrics` wins.
    raw: the whole row as read (answer, judge record, error, reward, ...).
    behaviour_version: `info["behaviour_version"]`, else the run's metadata.json
        `behaviour_version`, else UNVERSIONED.
    rollouts: for a row that stands for one example of several rollouts
        (`rollouts.collapse`), those rollouts; empty for a single rollout.
    """

    line: int
    info: Mapping[str, Any]
    metrics: Mapping[str, Any]
    raw: Mapping[str, Any]
    behaviour_version: str = UNVERSIONED
    rollouts: tuple[Row, ...] = ()

    @property
    def where(self) -> str:
        """How messages name the row: "results line N" (or "results row")."""
        return f"results line {self.line}" if self.line else "results row"

    @property
    def error(self) -> str | None:
        """The error vf-eval recorded on this rollout (its `error` field, at most 300
        characters), or None when it finished: such a rollout's reward says nothing about the
        model."""
        error = self.raw.get("error")
        return str(error)[:300] if error else None

    def metric(self, name: str, hint: str = "") -> float:
        """The metric `name` as a float, strictly: a missing value, None, a bool, NaN or a
        string is refused, never read as 0.

        Raises:
            ResultsError: "results line N: metric 'name' is missing" (or "is not a number
                (value)"), followed by `hint` (e.g. which run the reader expected).
        """
        value = self.optional_metric(name)
        if value is None:
            raw = self.metrics.get(name)
            shown = "missing" if raw is None else f"not a number ({raw!r})"
            raise ResultsError(f"{self.where}: metric {name!r} is {shown}{hint}")
        return value

    def optional_metric(self, name: str) -> float | None:
        """The metric `name` as a float, or None when the row carries no number there (absent,
        None, a bool, a string, NaN)."""
        value = self.metrics.get(name)
        if isinstance(value, bool) or not isinstance(value, int | float) or math.isnan(value):
            return None
        return float(value)


@dataclass(frozen=True)
class Provenance:
    """Who and what a run was.

    env_id: the environment id vf-eval recorded (or the one an environment's own command
        expected, when there is no metadata.json); "?" when unknown.
    model, endpoint: metadata.json's `model` and `base_url` ("?" when absent).
    date: when the run started (metadata.json's `run.started_at`, else its `date`), else
        "not recorded"; ended: when it ended, the same way.
    command, machine: the command line and the machine it ran on ("not recorded" when absent).
    path: the run folder (the one holding results.jsonl).
    behaviour_versions: the distinct behaviour versions of the rows, sorted (UNVERSIONED for
        rows without one); one entry for a consistent run.
    dataset_sha256: the distinct `info["dataset_sha256"]` values of the rows (empty when no
        row carries one), sorted.
    wall_time_s: metadata.json's `time` (the run's wall time in seconds), None when absent.
    """

    env_id: str
    model: str
    endpoint: str
    date: str
    path: Path
    behaviour_versions: tuple[str, ...] = (UNVERSIONED,)
    dataset_sha256: tuple[str, ...] = ()
    wall_time_s: float | None = None
    ended: str = "not recorded"
    command: str = "not recorded"
    machine: str = "not recorded"

    @property
    def behaviour_version(self) -> str:
        """The run's behaviour version, or "mixed: a, b" when its rows disagree."""
        versions = self.behaviour_versions
        return versions[0] if len(versions) == 1 else "mixed: " + ", ".join(versions)


@dataclass(frozen=True)
class Results:
    """One results file as the report sees it: rows, metadata.json (empty when absent) and
    provenance. `env_args` is metadata.json's `env_args` ({} when absent)."""

    path: Path
    rows: tuple[Row, ...]
    metadata: Mapping[str, Any]
    provenance: Provenance

    @property
    def env_args(self) -> Mapping[str, Any]:
        """The environment arguments vf-eval recorded ({} when none)."""
        args = self.metadata.get("env_args")
        return args if isinstance(args, Mapping) else {}

    def split_errored(self, purpose: str) -> tuple[Results, tuple[Row, ...]]:
        """(these results without the errored rollouts, the errored rollouts): what the
        report and compare hooks see, and what they leave out of every figure.

        Raises:
            ReportError: every rollout errored ("... nothing to `purpose`").
        """
        errored = tuple(row for row in self.rows if row.error)
        if not errored:
            return self, ()
        if len(errored) == len(self.rows):
            raise ReportError(f"{self.path.parent}: every rollout errored ({len(errored)}; "
                              f"first: {errored[0].error}): nothing to {purpose}")
        return replace(self, rows=tuple(r for r in self.rows if not r.error)), errored


@dataclass(frozen=True)
class Estimate:
    """A headline figure with its uncertainty, in the units shown (e.g. x100).

    value: the point estimate; n: the rows it rests on; stderr: its standard error; low, high:
    the 95% interval; method: how the interval was made ("Wilson", "t", "stratified
    bootstrap ..."). NaN where undefined (no rows; one row for a t interval).
    """

    value: float
    n: int
    stderr: float
    low: float
    high: float
    method: str
    digits: int = 1

    def text(self) -> str:
        """"52.3 ± 4.1 (95% CI [44.2, 60.4], Wilson, N=120)", or "n/a (N=0)" without a value."""
        if math.isnan(self.value):
            return f"n/a (N={self.n})"
        d = self.digits

        def num(x: float) -> str:
            return "n/a" if math.isnan(x) else f"{x:.{d}f}"

        return (f"{self.value:.{d}f} ± {num(self.stderr)} (95% CI [{num(self.low)}, "
                f"{num(self.high)}], {self.method}, N={self.n})")


Cell = str | Estimate


def cell_text(value: Cell) -> str:
    """A header or table value as shown: strings as they are, estimates by `Estimate.text`."""
    return value.text() if isinstance(value, Estimate) else value


@dataclass(frozen=True)
class Table:
    """A table to show: a title, column names and rows of cells (strings or estimates)."""

    title: str
    columns: tuple[str, ...]
    rows: tuple[tuple[Cell, ...], ...]


BarValue = float | Estimate | None


def bar_estimate(value: BarValue) -> Estimate | None:
    """The estimate behind a bar value, or None for a bare number or None (N and interval
    unknown)."""
    return value if isinstance(value, Estimate) else None


def bar_height(value: BarValue) -> float | None:
    """A bar value's height in its unit: the estimate's value, the number, or None where there
    is none (None, NaN)."""
    height = value.value if isinstance(value, Estimate) else value
    return None if height is None or math.isnan(height) else float(height)


def bar_is_weak(value: BarValue) -> bool:
    """True for a bar a reader must not take at face value: it rests on one row (N=1) or its
    95% interval is unknown (a bare number, or an estimate with a NaN bound)."""
    estimate = bar_estimate(value)
    return (estimate is None or estimate.n <= 1 or math.isnan(estimate.low)
            or math.isnan(estimate.high))


@dataclass(frozen=True)
class Bars:
    """A bar chart: one bar per label and series, values in `unit`.

    series: (name, values) pairs, one value per label: an `Estimate` (drawn with its N and
        95% interval whiskers), a bare number (N and interval unknown: drawn marked), or None
        (no value: an empty bar labelled n/a).
    limit: the axis maximum (None: from the data).
    warning: a validity warning drawn on the picture itself (e.g. a judge too small to
        measure anything, a subset that is not the benchmark); None when there is none.
    """

    title: str
    labels: tuple[str, ...]
    series: tuple[tuple[str, tuple[BarValue, ...]], ...]
    unit: str
    limit: float | None = 100.0
    warning: str | None = None


FULL_BENCHMARK = "full benchmark"


@dataclass(frozen=True)
class Standing:
    """One leaderboard cell a run contributes: its environment's headline figure.

    column: the leaderboard column, the same for every run of the benchmark (e.g.
        "pico-dsl-v1 exact_match", "smol-slm-eval arc_easy acc_norm").
    estimate: the figure with its N, standard error and 95% interval.
    subset: None when the figure covers the whole benchmark, else what it covers, in words
        ("first 100 of 2376 rows", "per_language 1: 9 of 350 tasks, not the official score").
    caveat: a warning the cell must carry (e.g. a judge too small to measure anything).
    """

    column: str
    estimate: Estimate
    subset: str | None = None
    caveat: str | None = None


@dataclass(frozen=True)
class EnvReport:
    """What an environment's hook returns for one run.

    dataset_version: which data the run used (e.g. edition and sha256 prefix).
    status: the run's standing in one phrase (e.g. "official", "partial: no score").
    headline: (name, value) pairs, the figures a reader looks for first; a figure with an
        uncertainty is an `Estimate` (N, standard error, 95% interval and method shown).
    subset: None when the run covers the whole benchmark, else what it covers, in words
        (shown as the report's "coverage"; a subset is never the benchmark's score).
    leaderboard: the run's cells of the leaderboard (`Standing`), usually one per headline.
    """

    dataset_version: str
    status: str
    headline: tuple[tuple[str, Cell], ...] = ()
    tables: tuple[Table, ...] = ()
    charts: tuple[Bars, ...] = ()
    notes: tuple[str, ...] = ()
    subset: str | None = None
    leaderboard: tuple[Standing, ...] = ()

    @property
    def coverage(self) -> str:
        """`subset`, or FULL_BENCHMARK when the run covers the whole benchmark."""
        return self.subset or FULL_BENCHMARK


@dataclass(frozen=True)
class RunReport:
    """One run's provenance and its environment's report; `skipped` and `notes` are the
    core's own remarks (failed runs skipped, mixed versions allowed)."""

    header: Provenance
    body: EnvReport
    skipped: tuple[str, ...] = field(default=())


Hook = Callable[[Results], EnvReport]


def errored_note(errored: Sequence[Row]) -> str:
    """One line on the errored rollouts a report or comparison left out (count and the first
    error)."""
    return (f"{len(errored)} errored rollout(s) left out of every figure (an infrastructure "
            f"failure, not the model's answer; first: {errored[0].error})")
