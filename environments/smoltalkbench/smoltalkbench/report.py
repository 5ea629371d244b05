"""Report over a SmolTalkBench results file: win rates with standard errors, failures, LC win rate.

Takes the core results model of the `results.jsonl` that `vf-eval smoltalkbench -s` writes (one
rollout per line, metrics flattened or under "metrics", row info under "info", and the judge
record under "judge" when run with `-C judge`). Samples with judge_error = 1 are excluded from
every rate, and the report always shows how many were judged and how many failed, with the
reasons when they were saved.

- Win rate: mean of `win_prob` x 100 over judged samples, with its standard error
  (sample std / sqrt(n)), as in AlpacaEval (tatsu-lab/alpaca_eval, Apache-2.0), and a t 95%
  interval (`smol_envs_core.report.mean_score`).
- Length-controlled win rate, in the manner of AlpacaEval 2.0 (Dubois et al. 2024): a logistic
  model of the judge's raw preference on tanh(length difference / its std), predicted at a zero
  length difference. AlpacaEval's GLM also has model and instruction-difficulty terms fitted over
  many models; with one model and one reference only the intercept and the length term remain.
  Its 95% interval: a seeded bootstrap over the judged samples (the fit repeated on each
  resample, all resamples at once by Newton's method). Shown only where the fit is supported
  (`lc_withheld`: zero length difference inside the data), else withheld with the reason.

Pure computation (`summarize`), the hook's tables, coverage and leaderboard cell
(`report_hook`), and the rows `smol-envs compare` pairs (`compare_hook`: key the prompt id,
judge errors excluded, the length-penalized win_prob the headline, per group and category); the
core renders them and reads the files.
"""

from __future__ import annotations

import math
import re
from collections import Counter, defaultdict
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

from smol_envs_core.report import (
    Bars,
    Cell,
    EnvReport,
    Estimate,
    Results,
    Row,
    Standing,
    Table,
    mean_score,
    mean_stderr,
)
from smol_envs_core.report import fmt as _fmt
from smol_envs_core.report import mean as _mean
from smol_envs_core.report.compare import Breakdown, Measure, Outcome, PairedView
from smol_envs_core.report.coverage import subset_label
from smol_envs_core.report.statistics import BOOTSTRAP_RESAMPLES, BOOTSTRAP_SEED, CONFIDENCE

from smoltalkbench.defaults import DEFAULT_DATASET, DEFAULT_JUDGE_MODEL
from smoltalkbench.errors import DataError

METRIC_NAMES = ("win_prob", "raw_win_prob", "length_penalized", "reply_chars", "judge_error")
L2_PENALTY = 1e-3  # keeps the logistic fit finite when every preference is 0 or 1
# Below this many judged samples the LC fit extrapolates to a zero length difference from few
# points (e.g. when every reply is longer than its reference); the table says so.
LC_MIN_SAMPLES = 100


@dataclass(frozen=True)
class Sample:
    """One rollout's figures as the report needs them."""

    win_prob: float
    raw_win_prob: float
    length_penalized: bool
    reply_chars: int
    reference_chars: int
    judge_error: bool
    group: str
    category: str
    reason: str | None = None
    share_M: float | None = None  # noqa: N815 - P(M) / (P(m) + P(M)), when the record was saved
    no_verdict: bool = False  # the judge gave none on the reply: booked as its loss (issue 24)


@dataclass(frozen=True)
class Rate:
    """A win rate (x100) with its standard error over judged samples, and the failure count."""

    name: str
    judged: int
    failed: int
    win_rate: float
    stderr: float


@dataclass
class Report:
    """Everything the table and chart show."""

    overall: Rate
    raw_win_rate: float
    lc_win_rate: float
    penalized: int
    mean_reply_chars: float
    mean_reference_chars: float
    by_group: list[Rate] = field(default_factory=list)
    by_category: list[Rate] = field(default_factory=list)
    failure_reasons: list[tuple[str, int]] = field(default_factory=list)
    reasons_recorded: bool = False
    # Mean P(M) / (P(m) + P(M)) over judged samples: labels are assigned at random per
    # instruction, so a judge that reads the answers stays near 0.5; near 1 or 0 it is
    # answering by label (NaN when the judge records were not saved).
    label_M_share: float = math.nan  # noqa: N815
    model: str | None = None
    no_verdict: int = 0  # judged samples booked as losses because the judge gave no verdict
    lc_withheld: str | None = None  # why lc_win_rate (then NaN) is not shown (`lc_withheld`)

    @property
    def total(self) -> int:
        """Samples in the run: judged plus judge errors."""
        return self.overall.judged + self.overall.failed


CONTAMINATION_NOTE = (
    "SmolLM and SmolLM2 Instruct models were trained on SmolTalkBench's source conversations "
    "(smoltalk), so their scores are inflated; compare them with care."
)
_CONTAMINATED = re.compile(r"smol\s*-?\s*lm", re.IGNORECASE)


def contamination_warning(model: str | None) -> str | None:
    """CONTAMINATION_NOTE when `model` names a SmolLM or SmolLM2 model (e.g. the local default
    SmolLM2-135M-Instruct), else None. Pure."""
    return CONTAMINATION_NOTE if model and _CONTAMINATED.search(model) else None


HINT = " (not a smoltalkbench run?)"
WIN_RATE = "win rate x100 (length-penalized)"


def _reason_kind(reason: str) -> str:
    """A failure reason without its variable details (token lists, exception text)."""
    return re.split(r":\s", reason, maxsplit=1)[0]


def sample_from_row(row: Row) -> Sample:
    """Sample from one results row (the core model's `Row`). Raises ResultsError when a metric
    is missing."""
    info = row.info
    judge_record = row.raw.get("judge") if isinstance(row.raw.get("judge"), Mapping) else None
    reference_chars = info.get("reference_chars")
    if reference_chars is None:
        reference_chars = len(str(row.raw.get("answer") or ""))
    failed = row.metric("judge_error", HINT) >= 0.5
    return Sample(
        win_prob=row.metric("win_prob", HINT),
        raw_win_prob=row.metric("raw_win_prob", HINT),
        length_penalized=row.metric("length_penalized", HINT) >= 0.5,
        reply_chars=int(row.metric("reply_chars", HINT)),
        reference_chars=int(reference_chars),
        judge_error=failed,
        group=str(info.get("group", "?")),
        category=str(info.get("category", "?")),
        reason=judge_record.get("reason") if judge_record else None,
        share_M=_share_M(judge_record) if judge_record and not failed else None,
        # runs of behaviour versions before issue 24 have no such metric: none was booked
        no_verdict=float(row.metrics.get("no_verdict") or 0.0) >= 0.5,
    )


def _share_M(record: Mapping[str, Any]) -> float | None:  # noqa: N802
    p_m, p_M = float(record.get("p_m") or 0.0), float(record.get("p_M") or 0.0)  # noqa: N806
    return p_M / (p_m + p_M) if p_m + p_M > 0 else None


def samples_of(results: Results) -> list[Sample]:
    """The samples of a run (the core results model). Raises DataError for a run without
    rows, ResultsError for a row without a metric."""
    samples = [sample_from_row(row) for row in results.rows]
    if not samples:
        raise DataError(f"{results.path}: no results")
    return samples


def rate(name: str, samples: Sequence[Sample]) -> Rate:
    """Win rate x100 and standard error over the judged samples; NaN when none was judged."""
    judged = [s.win_prob for s in samples if not s.judge_error]
    average, stderr = mean_stderr(judged)
    return Rate(name, len(judged), len(samples) - len(judged), 100 * average, 100 * stderr)


def _lc_fits(y: Any, d: Any) -> Any:
    """The LC fit of each row of `y` and `d` (arrays of shape (B, n)): 100 * sigmoid(b0) of the
    L2-penalised logistic fit of y on tanh(d / std(d)), by damped Newton steps on all rows at
    once (the objective is convex: every row converges to its one minimum)."""
    import numpy as np
    from scipy.special import expit, log_expit

    n = y.shape[1]
    sd = d.std(axis=1, ddof=1, keepdims=True) if n > 1 else np.zeros((y.shape[0], 1))
    with np.errstate(divide="ignore", invalid="ignore"):
        x = np.where(sd > 0, np.tanh(d / np.where(sd > 0, sd, 1.0)), 0.0)
    beta = np.zeros((y.shape[0], 2))

    def loss(b: Any) -> Any:
        z = b[:, :1] + b[:, 1:] * x
        return (-np.sum(y * log_expit(z) + (1 - y) * log_expit(-z), axis=1)
                + L2_PENALTY * np.sum(b * b, axis=1))

    current = loss(beta)
    for _ in range(100):
        p = expit(beta[:, :1] + beta[:, 1:] * x)
        r, w = p - y, p * (1 - p)
        g = np.stack([r.sum(1), (r * x).sum(1)], axis=1) + 2 * L2_PENALTY * beta
        h00 = w.sum(1) + 2 * L2_PENALTY
        h01 = (w * x).sum(1)
        h11 = (w * x * x).sum(1) + 2 * L2_PENALTY
        det = h00 * h11 - h01 * h01
        step = np.stack([(h11 * g[:, 0] - h01 * g[:, 1]) / det,
                         (h00 * g[:, 1] - h01 * g[:, 0]) / det], axis=1)
        scale = np.ones((y.shape[0], 1))
        for _ in range(30):  # halve the steps that do not lower the loss
            trial = loss(beta - scale * step)
            worse = trial > current + 1e-12
            if not worse.any():
                break
            scale[worse] /= 2
        beta = beta - scale * step
        current = loss(beta)
        if np.max(np.abs(scale * step)) < 1e-10:
            break
    return 100 * expit(beta[:, 0])


def length_controlled_win_rate(
    preferences: Sequence[float], length_diffs: Sequence[float]
) -> float:
    """AlpacaEval 2.0-style LC win rate (x100) for one model against one reference.

    Fits P(win) = sigmoid(b0 + b1 * tanh(d / std(d))) to the soft preferences by minimising the
    cross-entropy plus a small L2 penalty (L2_PENALTY * (b0^2 + b1^2)), then predicts at d = 0:
    100 * sigmoid(b0). `length_diffs` are reply minus reference lengths in characters. When the
    differences do not vary, only the intercept is fitted. NaN for no samples.
    """
    import numpy as np

    y = np.asarray(preferences, dtype=float)
    if y.size == 0:
        return math.nan
    return float(_lc_fits(y[None, :], np.asarray(length_diffs, dtype=float)[None, :])[0])


# The LC fit is read at a zero length difference; that is a prediction inside the data only when
# zero lies well within the observed differences. Below this share of samples on either side of
# zero (shorter or equal, longer or equal) the figure is withheld.
LC_MIN_SIDE_SHARE = 0.10


def lc_withheld(length_diffs: Sequence[float]) -> str | None:
    """Why the LC win rate must not be shown for these length differences (reply minus
    reference, characters), or None when the fit is supported: at least LC_MIN_SIDE_SHARE of
    the samples on each side of a zero difference. Otherwise the logistic fit is read outside
    the data and can land anywhere (seen: 2.3 with a 95% interval [0.0, 99.8] at N=400 for
    replies 300-700 characters longer than their references, and 0.0 to 27.8 over redraws).
    AlpacaEval warns on the same failure ("extreme" LC changes); here the figure is withheld."""
    n = len(length_diffs)
    if n == 0:
        return "no judged samples"
    shorter = sum(1 for d in length_diffs if d <= 0) / n
    longer = sum(1 for d in length_diffs if d >= 0) / n
    if min(shorter, longer) >= LC_MIN_SIDE_SHARE:
        return None
    side = "longer" if shorter < longer else "shorter"
    return (f"withheld: {max(shorter, longer):.0%} of replies are {side} than their references "
            f"(length differences {min(length_diffs):+.0f} to {max(length_diffs):+.0f} chars), so "
            "a fit read at a zero difference would lie outside the data")


LC_METHOD = f"bootstrap over judged samples, {BOOTSTRAP_RESAMPLES} resamples, seed {BOOTSTRAP_SEED}"


def lc_estimate(preferences: Sequence[float], length_diffs: Sequence[float]) -> Estimate:
    """The LC win rate (x100) with a seeded bootstrap 95% interval over the samples (the 2.5th
    and 97.5th percentiles of the refits; standard error their n-1 standard deviation); no
    interval for fewer than two samples."""
    import numpy as np

    y = np.asarray(preferences, dtype=float)
    d = np.asarray(length_diffs, dtype=float)
    point = length_controlled_win_rate(y, d)
    if y.size < 2:
        return Estimate(point, int(y.size), math.nan, math.nan, math.nan, LC_METHOD)
    rng = np.random.default_rng(BOOTSTRAP_SEED)
    block = max(1, 2_000_000 // y.size)
    fits = []
    for start in range(0, BOOTSTRAP_RESAMPLES, block):
        picks = rng.integers(0, y.size, size=(min(block, BOOTSTRAP_RESAMPLES - start), y.size))
        fits.append(_lc_fits(y[picks], d[picks]))
    replicates = np.concatenate(fits)
    low, high = np.percentile(replicates, [50 * (1 - CONFIDENCE), 50 * (1 + CONFIDENCE)])
    return Estimate(point, int(y.size), float(replicates.std(ddof=1)), float(low), float(high),
                    LC_METHOD)


def _rates_by(samples: Iterable[Sample], key: str) -> list[Rate]:
    groups: dict[str, list[Sample]] = defaultdict(list)
    for s in samples:
        groups[getattr(s, key)].append(s)
    return [rate(name, groups[name]) for name in sorted(groups)]


def summarize(samples: Sequence[Sample], model: str | None = None) -> Report:
    """The report's figures; judge failures are excluded from rates and counted. `model` names
    the evaluated model in the header (and triggers the contamination warning for SmolLM)."""
    judged = [s for s in samples if not s.judge_error]
    reasons = [s.reason for s in samples if s.judge_error and s.reason]
    n = len(judged)
    diffs = [s.reply_chars - s.reference_chars for s in judged]
    return Report(
        overall=rate("all", samples),
        raw_win_rate=100 * sum(s.raw_win_prob for s in judged) / n if n else math.nan,
        lc_win_rate=math.nan if lc_withheld(diffs) else length_controlled_win_rate(
            [s.raw_win_prob for s in judged], diffs),
        lc_withheld=lc_withheld(diffs),
        penalized=sum(s.length_penalized for s in judged),
        mean_reply_chars=sum(s.reply_chars for s in judged) / n if n else math.nan,
        mean_reference_chars=sum(s.reference_chars for s in judged) / n if n else math.nan,
        by_group=_rates_by(samples, "group"),
        by_category=_rates_by(samples, "category"),
        failure_reasons=sorted(
            Counter(map(_reason_kind, reasons)).items(), key=lambda kv: (-kv[1], kv[0])
        ),
        reasons_recorded=any(s.reason is not None for s in samples),
        label_M_share=_mean([s.share_M for s in judged if s.share_M is not None]),
        model=model,
        no_verdict=sum(s.no_verdict for s in judged),
    )


def to_dict(report: Report) -> dict[str, Any]:
    """JSON-serialisable form of the report (NaN becomes None)."""
    from dataclasses import asdict

    def clean(value):
        if isinstance(value, float) and math.isnan(value):
            return None
        if isinstance(value, dict):
            return {k: clean(v) for k, v in value.items()}
        if isinstance(value, list | tuple):
            return [clean(v) for v in value]
        return value

    return clean({**asdict(report), "total": report.total})


def headline(report: Report, samples: Sequence[Sample]) -> tuple[tuple[str, Cell], ...]:
    """The figures a reader looks for first: win rates (with N, standard error and t 95%
    interval), denominators, judge errors and their reasons, length and label diagnostics."""
    o = report.overall
    judged = [s for s in samples if not s.judge_error]
    lc_note = f" (n={o.judged}: unstable below ~{LC_MIN_SAMPLES})" if o.judged < LC_MIN_SAMPLES \
        else ""
    lc: Cell = report.lc_withheld or lc_estimate(
        [s.raw_win_prob for s in judged], [s.reply_chars - s.reference_chars for s in judged])
    rows: list[tuple[str, Cell]] = [
        (WIN_RATE, mean_score([s.win_prob for s in judged])),
        ("judged / total", f"{o.judged} / {report.total}"),
        ("length-controlled win rate" + lc_note, lc),
        ("raw win rate (no length penalty)", mean_score([s.raw_win_prob for s in judged])),
        ("judge errors (excluded)", str(o.failed)),
        ("no verdict on the reply (booked as losses)", str(report.no_verdict)),
        ("length-penalized replies", str(report.penalized)),
    ]
    if not math.isnan(report.label_M_share):
        rows.append(("judge's mean P(M) (0.5 = no label bias)", f"{report.label_M_share:.2f}"))
    rows.append(("mean chars reply / reference",
                 f"{_fmt(report.mean_reply_chars)} / {_fmt(report.mean_reference_chars)}"))
    if o.failed and report.failure_reasons:
        rows += [(f"  failed: {reason}", str(count)) for reason, count in report.failure_reasons]
    elif o.failed and not report.reasons_recorded:
        rows.append(("  failure reasons", "not saved (run vf-eval with -C judge)"))
    return tuple(rows)


def category_bars(report: Report, samples: Sequence[Sample], warning: str | None = None
                  ) -> Bars:
    """Win rate x100 by category, each label with its judged / total, each bar with its N
    (judged samples) and t 95% interval (`mean_score` over the category's judged samples, as
    the overall win rate); `warning` (e.g. the small judge's caveat) is drawn on the chart."""
    judged: dict[str, list[float]] = defaultdict(list)
    for s in samples:
        if not s.judge_error:
            judged[s.category].append(s.win_prob)
    return Bars("win rate by category (judged / total)",
                tuple(f"{r.name} ({r.judged}/{r.judged + r.failed})" for r in report.by_category),
                (("win rate", tuple(mean_score(judged[r.name]) for r in report.by_category)),),
                "win rate x100", warning=warning)


def dataset_version(env_args: Mapping[str, Any]) -> str:
    """The dataset and judge a run used, from its recorded environment arguments."""
    judge = env_args.get("judge_model", DEFAULT_JUDGE_MODEL)
    dataset = str(env_args.get("dataset", DEFAULT_DATASET))
    if dataset == "fixture":
        dataset = "fixture (packaged offline rows)"
    elif dataset == DEFAULT_DATASET:
        config, split = env_args.get("config", "gold"), env_args.get("split", "test")
        dataset += f" config {config}, split {split}"
    return f"{dataset}; judge {judge}"


def report_hook(results: Results) -> EnvReport:
    """The `smol_envs.report` hook of `smol-envs report` and `smoltalkbench-report`: win rates
    with their denominators (judged / total) and intervals, overall, by group and by category,
    for a vf-eval run (the core results model). Raises ResultsError when a row lacks a metric,
    DataError for a run without rows."""
    samples = samples_of(results)
    model = results.provenance.model
    report = summarize(samples, model=None if model == "?" else model)
    tables = tuple(
        Table(f"win rate x100 by {key}", (key, "win rate", "± se", "judged / total"),
              tuple((r.name, _fmt(r.win_rate), _fmt(r.stderr),
                     f"{r.judged} / {r.judged + r.failed}") for r in rates))
        for key, rates in (("group", report.by_group), ("category", report.by_category)))
    warning = contamination_warning(report.model)
    figures = headline(report, samples)
    subset = coverage(results)
    caveat = judge_caveat(results.env_args)
    return EnvReport(
        dataset_version=dataset_version(results.env_args),
        status=f"judged {report.overall.judged} of {report.total}",
        headline=figures, tables=tables,
        charts=(category_bars(report, samples, _chart_warning(
            warning, caveat, subset and f"subset: {subset}")),),
        notes=tuple(f"warning: {w}" for w in (warning, caveat) if w), subset=subset,
        leaderboard=(Standing("smoltalkbench win rate", dict(figures)[WIN_RATE], subset,
                              caveat),))


def _chart_warning(*parts: str | None) -> str | None:
    """What the chart must say on itself: the report's warnings (contamination, the judge's
    caveat, the subset) joined, or None when there is none."""
    return "; ".join(p.rstrip(".") for p in parts if p) or None


# Rows of the benchmarks whose size is known without loading them (dataset, config, split).
FULL_ROWS = {(DEFAULT_DATASET, "gold", "test"): 1000}
# Judges too small to measure chat quality: their verdicts show the mechanics only.
_SMALL_JUDGE = re.compile(r"smol\s*-?\s*lm|\b(135|270|360)m\b", re.IGNORECASE)


def judge_caveat(env_args: Mapping[str, Any]) -> str | None:
    """A warning when the run's judge is one of the small local models (SmolLM2, Gemma 3
    270M): its numbers show the mechanics, they are not a valid measurement; else None."""
    judge = str(env_args.get("judge_model", DEFAULT_JUDGE_MODEL))
    if not _SMALL_JUDGE.search(judge):
        return None
    return f"judge {judge} is a small local model: mechanics only, not a valid measurement"


def coverage(results: Results) -> str | None:
    """None for every row of the benchmark, else what the run covers: the packaged fixture
    or a local file (never the benchmark), or the first N rows (`num_examples`)."""
    args = results.env_args
    n = len({str(r.info.get("id")) for r in results.rows})
    dataset = str(args.get("dataset", DEFAULT_DATASET))
    if dataset == "fixture":
        return f"{n} rows of the packaged offline fixture, not the benchmark"
    if dataset != DEFAULT_DATASET:
        return f"{n} rows of {dataset}, not the benchmark"
    full = FULL_ROWS.get((dataset, args.get("config", "gold"), args.get("split", "test")))
    return subset_label(n, full, results.metadata)


def compare_hook(results: Results) -> PairedView:
    """The `smol_envs.compare` hook: each judged prompt keyed by its id with its win_prob and
    raw_win_prob, its group and category, the reference reply as gold; judge errors are
    excluded and counted. The dataset string names the data and the judge (runs judged by
    different judges are not comparable). Raises ResultsError when a row lacks a metric."""
    outcomes, excluded = [], []
    for row, sample in zip(results.rows, samples_of(results), strict=True):
        key = str(row.info.get("id"))
        if sample.judge_error:
            excluded.append((key, "judge error"))
            continue
        outcomes.append(Outcome(
            key=key, values={"win_prob": sample.win_prob, "raw_win_prob": sample.raw_win_prob},
            groups={"group": sample.group, "category": sample.category},
            gold=str(row.raw["answer"]) if row.raw.get("answer") is not None else None))
    win = Measure(WIN_RATE, "win_prob")
    return PairedView(
        dataset=dataset_version(results.env_args), outcomes=tuple(outcomes), headline=win,
        flip_metric="win_prob",
        measures=(Measure("raw win rate x100 (no length penalty)", "raw_win_prob"),),
        breakdowns=(Breakdown("group", win), Breakdown("category", win)),
        excluded=tuple(excluded))
