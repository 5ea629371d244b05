"""`smol-envs compare`: two runs of one environment and dataset, paired on the rows they share.

Each environment says, through a hook in the entry-point group `smol_envs.compare` (name: the
environment id; value: a function `(Results) -> PairedView`), what its rows are: the row key
shared by runs of the same dataset, the per-row values, the strata its macro averages and
composites resample within, the breakdowns it reports (slice, language, task) and which figure
is the headline. The core imports no environment; it refuses runs of different environments,
dataset hashes or behaviour versions, pairs the rows by key (rows of several rollouts are
averaged per key), and computes each figure's difference B - A with `paired`: McNemar's exact
test and Newcombe's interval for 0/1 outcomes, a seeded paired bootstrap otherwise, and the
minimum detectable difference. Pure apart from reading the two run folders.
"""

from __future__ import annotations

import math
from collections import defaultdict
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field, replace
from pathlib import Path

from ..env_ids import canonical_key
from ..errors import SmolEnvsError
from .model import Estimate, Provenance, ReportError, Results
from .paired import (
    ALPHA,
    POWER,
    Statistic,
    Table2x2,
    mcnemar_exact,
    mdd_binary,
    mdd_normal,
    newcombe_paired,
    paired_bootstrap,
)
from .read import find_runs
from .rollouts import by_example, rollouts_note
from .statistics import fmt
from .versions import check_versions

COMPARE_GROUP = "smol_envs.compare"
MEAN, MACRO, COMPOSITE = "mean", "macro", "composite"
POOLED = ""  # the one stratum of a mean over rows
SHOWN_IDS = 20  # flipped row ids listed per direction


@dataclass(frozen=True)
class Outcome:
    """One row of a run as `compare` pairs it.

    key: the row's identity in its dataset (same key = same row in another run of it).
    values: the row's figures as read from its metrics (e.g. {"exact_match": 1.0}); a figure
        the row lacks is absent, never 0.
    stratum: what macro averages and composites resample within (language, task; "" none).
    groups: the breakdowns the row belongs to ({"slice": "repeat", "level": "L2"}).
    gold: the row's target as the run saw it (answer, gold letter), checked equal across the
        two runs; None when the environment gives none.
    """

    key: str
    values: Mapping[str, float]
    stratum: str = POOLED
    groups: Mapping[str, str] = field(default_factory=dict)
    gold: str | None = None


@dataclass(frozen=True)
class Measure:
    """A figure `compare` computes on both runs' paired rows, in points (x100).

    kind MEAN: the mean of `metric` over the rows carrying it in both runs (McNemar and
        Newcombe when every value is 0 or 1, else a paired bootstrap);
    kind MACRO: the mean over strata of each stratum's mean of `metric` (paired bootstrap
        within strata);
    kind COMPOSITE: `statistic` of {stratum: {metric: mean}} over all paired rows (paired
        bootstrap within strata); it returns points or None where undefined.
    label: what the strata are, for the method's name ("languages", "tasks").
    """

    name: str
    metric: str | None = None
    kind: str = MEAN
    statistic: Statistic | None = None
    label: str = "rows"

    def value(self, means: Mapping[str, Mapping[str, float]]) -> float | None:
        """The figure from {stratum: {metric: mean}} (None where undefined)."""
        if self.kind == COMPOSITE:
            return self.statistic(means) if self.statistic else None
        present = [m[self.metric] for m in means.values() if self.metric in m]
        return 100.0 * sum(present) / len(present) if present else None


@dataclass(frozen=True)
class Breakdown:
    """A per-group table: `measure` on the rows of each value of the outcomes' `groups[key]`."""

    key: str
    measure: Measure


@dataclass(frozen=True)
class PairedView:
    """What an environment's compare hook returns for one run.

    dataset: what must be equal for two runs' rows to be comparable (dataset build, prompt
        style, judge...), in words; compared as a string.
    outcomes: the run's rows.
    headline: the figure the verdict is about; measures: further figures (composites,
        diagnostics); breakdowns: per-slice/language/task tables.
    flip_metric: the per-row value whose changes are listed as flipped rows.
    excluded: (key, reason) of rows left out of every figure (judge errors, infrastructure).
    """

    dataset: str
    outcomes: tuple[Outcome, ...]
    headline: Measure
    flip_metric: str
    measures: tuple[Measure, ...] = ()
    breakdowns: tuple[Breakdown, ...] = ()
    excluded: tuple[tuple[str, str], ...] = ()


CompareHook = Callable[[Results], PairedView]


@dataclass(frozen=True)
class Difference:
    """One figure in both runs and its paired difference.

    a, b: the figure in each run (points); diff: B - A with N paired rows, standard error,
    95% interval and method; p_value: McNemar's exact p for 0/1 outcomes, else None;
    mdd: the minimum detectable difference at 80% power, two-sided 5% (points);
    table: the paired 2x2 table for 0/1 outcomes; same: every paired row has the same values
    in both runs.
    """

    name: str
    a: float
    b: float
    diff: Estimate
    p_value: float | None
    mdd: float
    table: Table2x2 | None = None
    same: bool = False

    @property
    def excludes_zero(self) -> bool:
        """The 95% interval lies on one side of 0."""
        return self.diff.low > 0 or self.diff.high < 0

    @property
    def significant(self) -> bool:
        """The difference is established at 5%: the interval excludes 0 and, for 0/1
        outcomes, McNemar's exact p is below 0.05."""
        return self.excludes_zero and (self.p_value is None or self.p_value < ALPHA)


@dataclass(frozen=True)
class Comparison:
    """The result of `compare_runs`: who was compared, on how many rows, and every figure."""

    env_id: str
    a: Provenance
    b: Provenance
    dataset: str
    paired: int
    only_a: tuple[str, ...]
    only_b: tuple[str, ...]
    excluded: tuple[tuple[str, str], ...]
    headline: Difference
    measures: tuple[Difference, ...]
    breakdowns: tuple[tuple[str, tuple[tuple[str, Difference], ...]], ...]
    a_better: tuple[str, ...]
    b_better: tuple[str, ...]
    flip_metric: str
    notes: tuple[str, ...] = ()

    @property
    def verdict(self) -> str:
        """The plain sentence on the headline (see `verdict`)."""
        return verdict(self.headline)


def _points(value: float) -> str:
    return f"{abs(value):.1f} point" + ("" if round(abs(value), 1) == 1.0 else "s")


def verdict(d: Difference) -> str:
    """"B is higher by 6.2 points, 95% interval 2.1 to 10.3 (McNemar exact p=0.003, N=480
    paired)", or "no difference detectable at this N ...; the smallest detectable difference
    is about X points" (with why, when the runs never differ or the test and interval
    disagree)."""
    e = d.diff
    if math.isnan(e.value):
        return f"no figure to compare on {e.n} paired rows"
    test = (f"McNemar exact p={d.p_value:.3g}" if d.p_value is not None else e.method)
    where = f"({test}, N={e.n} paired)"
    interval = f"95% interval {fmt(e.low)} to {fmt(e.high)}"
    mdd = ("" if math.isnan(d.mdd) else
           f"the smallest detectable difference is about {_points(d.mdd)} "
           f"({POWER:.0%} power, two-sided {ALPHA:.0%})")
    if d.significant:
        side = "higher" if e.value > 0 else "lower"
        return f"B is {side} by {_points(e.value)}, {interval} {where}"
    if d.same:
        return (f"no difference: the runs agree on every paired row (N={e.n}); "
                + (f"at this N {mdd}" if mdd else "a smallest detectable difference cannot be "
                   "estimated from runs that never differ"))
    if math.isnan(e.low):
        return (f"no test at this N: B - A = {fmt(e.value)} points, without a 95% interval "
                f"({e.method}, N={e.n} paired)")
    why = ""
    if d.excludes_zero:  # the interval excludes 0 but the exact test does not reject
        why = " (borderline: the interval excludes 0 but the exact test does not reject)"
    return (f"no difference detectable at this N: B - A = {fmt(e.value)} points, {interval} "
            f"{where}{why}" + (f"; {mdd}" if mdd else ""))


# --------------------------------------------------------------------------- pairing


def _collapse(view: PairedView, which: str) -> tuple[dict[str, Outcome], list[str]]:
    """{key: outcome}, rollouts of one key averaged per value; notes on averaged keys."""
    by_key: dict[str, list[Outcome]] = defaultdict(list)
    for outcome in view.outcomes:
        by_key[outcome.key].append(outcome)
    out, averaged = {}, 0
    for key, rows in by_key.items():
        if len(rows) == 1:
            out[key] = rows[0]
            continue
        averaged += 1
        values: dict[str, list[float]] = defaultdict(list)
        for row in rows:
            for name, value in row.values.items():
                values[name].append(value)
        out[key] = Outcome(key, {k: sum(v) / len(v) for k, v in values.items()}, rows[0].stratum,
                           rows[0].groups, rows[0].gold)
    notes = [f"{which}: {averaged} row(s) had several rollouts, averaged per row (their "
             "outcomes are no longer 0/1)"] if averaged else []
    return out, notes


def pair(a: PairedView, b: PairedView) -> tuple[list[tuple[Outcome, Outcome]], list[str],
                                                list[str], list[str]]:
    """(paired outcomes sorted by key, keys only in A, keys only in B, notes).

    Raises:
        ReportError: a shared row has another gold answer in B (not the same dataset).
    """
    rows_a, notes_a = _collapse(a, "A")
    rows_b, notes_b = _collapse(b, "B")
    shared = sorted(set(rows_a) & set(rows_b))
    for key in shared:
        gold_a, gold_b = rows_a[key].gold, rows_b[key].gold
        if gold_a is not None and gold_b is not None and gold_a != gold_b:
            raise ReportError(f"row {key!r} has another gold answer in B than in A: not the same "
                              "dataset, refusing to pair the runs")
    return ([(rows_a[k], rows_b[k]) for k in shared], sorted(set(rows_a) - set(rows_b)),
            sorted(set(rows_b) - set(rows_a)), notes_a + notes_b)


# --------------------------------------------------------------------------- figures


def _strata(pairs: Sequence[tuple[Outcome, Outcome]], measure: Measure
            ) -> tuple[dict[str, list[dict[str, float]]], dict[str, list[dict[str, float]]]]:
    a: dict[str, list[dict[str, float]]] = defaultdict(list)
    b: dict[str, list[dict[str, float]]] = defaultdict(list)
    for oa, ob in pairs:
        if measure.kind == COMPOSITE:
            a[oa.stratum].append(dict(oa.values))
            b[oa.stratum].append(dict(ob.values))
        elif measure.metric in oa.values and measure.metric in ob.values:
            stratum = POOLED if measure.kind == MEAN else oa.stratum
            a[stratum].append({measure.metric: oa.values[measure.metric]})
            b[stratum].append({measure.metric: ob.values[measure.metric]})
    return dict(a), dict(b)


def _means(strata: Mapping[str, Sequence[Mapping[str, float]]]) -> dict[str, dict[str, float]]:
    out = {}
    for stratum, rows in strata.items():
        sums: dict[str, list[float]] = defaultdict(list)
        for row in rows:
            for name, value in row.items():
                if not math.isnan(value):
                    sums[name].append(value)
        out[stratum] = {k: sum(v) / len(v) for k, v in sums.items()}
    return out


def _number(value: float | None) -> float:
    return math.nan if value is None else float(value)


def difference(pairs: Sequence[tuple[Outcome, Outcome]], measure: Measure,
               name: str | None = None) -> Difference:
    """`measure` on both sides of the paired rows and its difference B - A (see `Difference`).
    A mean of 0/1 values gets McNemar's exact test and Newcombe's interval; anything else a
    paired bootstrap and the normal-approximation MDD."""
    a, b = _strata(pairs, measure)
    value_a, value_b = _number(measure.value(_means(a))), _number(measure.value(_means(b)))
    shown = name or measure.name
    same = all(a[s] == b[s] for s in a)
    if measure.kind == MEAN:
        flat_a = [row[measure.metric] for row in a.get(POOLED, [])]
        flat_b = [row[measure.metric] for row in b.get(POOLED, [])]
        if flat_a and all(v in (0.0, 1.0) for v in (*flat_a, *flat_b)):
            table = Table2x2.of(flat_a, flat_b)
            return Difference(shown, value_a, value_b, newcombe_paired(table),
                              mcnemar_exact(table), mdd_binary(table), table, same)
    if not a:
        empty = Estimate(math.nan, 0, math.nan, math.nan, math.nan, "no paired rows", 1)
        return Difference(shown, value_a, value_b, empty, None, math.nan)
    estimate = paired_bootstrap(a, b, measure.value, label=measure.label)
    return Difference(shown, value_a, value_b, estimate, None, mdd_normal(estimate.stderr),
                      same=same)


def flips(pairs: Sequence[tuple[Outcome, Outcome]], metric: str
          ) -> tuple[tuple[str, ...], tuple[str, ...]]:
    """(keys where A is higher, keys where B is higher) on `metric`, largest change first
    (then by key); rows lacking the metric in either run are not counted."""
    changed = [(ob.values[metric] - oa.values[metric], oa.key) for oa, ob in pairs
               if metric in oa.values and metric in ob.values
               and oa.values[metric] != ob.values[metric]]
    a_better = tuple(k for d, k in sorted((d, k) for d, k in changed if d < 0))
    b_better = tuple(k for _, k in sorted(((-d, k) for d, k in changed if d > 0)))
    return a_better, b_better


def breakdown(pairs: Sequence[tuple[Outcome, Outcome]], spec: Breakdown
              ) -> tuple[tuple[str, Difference], ...]:
    """(group value, difference of the spec's measure on its rows), groups sorted; a group
    none of whose rows carries the measure's metric in both runs is left out."""
    groups: dict[str, list[tuple[Outcome, Outcome]]] = defaultdict(list)
    for oa, ob in pairs:
        if spec.key in oa.groups:
            groups[oa.groups[spec.key]].append((oa, ob))
    found = ((g, difference(groups[g], spec.measure)) for g in sorted(groups))
    return tuple((g, d) for g, d in found if d.diff.n > 0)


# --------------------------------------------------------------------------- the command


def _one_run(path: str | Path) -> Results:
    from .build import read_run

    found, _skipped = find_runs([path])
    if len(found) != 1:
        raise ReportError(f"{path}: holds {len(found)} runs; compare takes one run folder each")
    return read_run(found[0])


def _view(hook: CompareHook, results: Results) -> PairedView:
    """The hook's view of the rollouts that finished; errored rollouts are `excluded`."""
    if not results.rows:
        raise ReportError(f"{results.path}: no rollouts")
    clean, errored = results.split_errored("compare")
    try:
        view = hook(by_example(clean))
    except (ValueError, SmolEnvsError) as exc:
        raise ReportError(f"{results.path.parent}: {exc}") from exc
    if not errored:
        return view
    left_out = tuple((str(row.info.get("id", row.raw.get("example_id", row.where))),
                      f"errored rollout: {row.error}") for row in errored)
    return replace(view, excluded=(*view.excluded, *left_out))


def check_comparable(a: Results, b: Results, allow_mixed_versions: bool = False
                     ) -> tuple[str, ...]:
    """Refuse two runs that cannot be paired: different environments or dataset sha256, or
    different behaviour versions (unless allowed: then the notes say so).

    Raises:
        ReportError: different environments or datasets; MixedVersionsError: versions.
    """
    if canonical_key(a.provenance.env_id) != canonical_key(b.provenance.env_id):
        raise ReportError(f"refusing to compare a {a.provenance.env_id} run ({a.path.parent}) "
                          f"with a {b.provenance.env_id} run ({b.path.parent}): different "
                          "environments")
    sha_a, sha_b = a.provenance.dataset_sha256, b.provenance.dataset_sha256
    if sha_a and sha_b and sha_a != sha_b:
        shown_a, shown_b = (", ".join(s[:12] for s in shas) for shas in (sha_a, sha_b))
        raise ReportError(f"refusing to compare runs of different datasets: A has sha256 "
                          f"{shown_a}, B {shown_b}")
    return check_versions([a.provenance, b.provenance], allow_mixed_versions)


def compare_results(a: Results, b: Results, hook: CompareHook,
                    allow_mixed_versions: bool = False) -> Comparison:
    """The comparison of two runs already read, through the environment's compare hook.

    Raises:
        ReportError: the runs are not comparable (environment, dataset, gold answers), the
            hook refused a run, or no row is shared; MixedVersionsError for behaviour
            versions unless `allow_mixed_versions`.
    """
    notes = list(check_comparable(a, b, allow_mixed_versions))
    view_a, view_b = _view(hook, a), _view(hook, b)
    if view_a.dataset != view_b.dataset:
        raise ReportError(f"refusing to compare runs of different datasets: A is "
                          f"{view_a.dataset!r}, B is {view_b.dataset!r}")
    pairs, only_a, only_b, pair_notes = pair(view_a, view_b)
    for side, results in (("A", a), ("B", b)):
        counted = rollouts_note(results.split_errored("compare")[0])
        if counted:
            pair_notes.append(f"{side}: {counted}")
    if not pairs:
        raise ReportError(f"the runs share no row ({len(only_a)} rows only in A, {len(only_b)} "
                          "only in B): nothing to compare")
    excluded = tuple(sorted({*(("A", k, r) for k, r in view_a.excluded),
                             *(("B", k, r) for k, r in view_b.excluded)}))
    a_better, b_better = flips(pairs, view_a.flip_metric)
    return Comparison(
        env_id=a.provenance.env_id, a=a.provenance, b=b.provenance, dataset=view_a.dataset,
        paired=len(pairs), only_a=tuple(only_a), only_b=tuple(only_b),
        excluded=tuple((f"{side} {key}", reason) for side, key, reason in excluded),
        headline=difference(pairs, view_a.headline),
        measures=tuple(difference(pairs, m) for m in view_a.measures),
        breakdowns=tuple((spec.key, breakdown(pairs, spec)) for spec in view_a.breakdowns),
        a_better=a_better, b_better=b_better, flip_metric=view_a.flip_metric,
        notes=tuple(notes + pair_notes))


def compare_runs(path_a: str | Path, path_b: str | Path, allow_mixed_versions: bool = False,
                 available: Mapping[str, Callable[[], CompareHook]] | None = None) -> Comparison:
    """`smol-envs compare RUN_A RUN_B`: read both runs (a run folder or its results.jsonl
    each) and compare them through their environment's `smol_envs.compare` hook.

    Raises:
        ReportError: unreadable or not comparable runs, or no compare hook for the
            environment (see `compare_results`).
    """
    from .build import hooks

    a, b = _one_run(path_a), _one_run(path_b)
    available = hooks(COMPARE_GROUP) if available is None else available
    key = canonical_key(a.provenance.env_id)
    if key not in available:
        known = ", ".join(sorted(available)) or "none installed"
        raise ReportError(f"{a.path.parent}: no compare hook for environment "
                          f"{a.provenance.env_id!r} (known: {known})")
    return compare_results(a, b, available[key](), allow_mixed_versions)
