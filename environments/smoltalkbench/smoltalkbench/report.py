"""Report over a SmolTalkBench results file: win rates with standard errors, failures, LC win rate.

Reads the `results.jsonl` that `vf-eval smoltalkbench -s` writes (one rollout per line, metrics
flattened or under "metrics", row info under "info", and the judge record under "judge" when run
with `-C judge`). Samples with judge_error = 1 are excluded from every rate, and the report always
shows how many were judged and how many failed, with the reasons when they were saved.

- Win rate: mean of `win_prob` x 100 over judged samples, with its standard error
  (sample std / sqrt(n)), as in AlpacaEval (tatsu-lab/alpaca_eval, Apache-2.0).
- Length-controlled win rate, in the manner of AlpacaEval 2.0 (Dubois et al. 2024): a logistic
  model of the judge's raw preference on tanh(length difference / its std), predicted at a zero
  length difference. AlpacaEval's GLM also has model and instruction-difficulty terms fitted over
  many models; with one model and one reference only the intercept and the length term remain.

Pure computation (`summarize`) is apart from rendering (`render`, `plot`) and from reading files.
"""

from __future__ import annotations

import json
import math
import re
from collections import Counter, defaultdict
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from smol_envs_core.report import figure, mean_stderr
from smol_envs_core.report import fmt as _fmt
from smol_envs_core.report import mean as _mean
from smol_envs_core.results import ResultsError, read_results, row_info

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

    @property
    def total(self) -> int:
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


def run_model(path: str | Path) -> str | None:
    """The model name vf-eval recorded in metadata.json beside a results file, if any."""
    path = Path(path)
    metadata = (path if path.is_dir() else path.parent) / "metadata.json"
    try:
        return json.loads(metadata.read_text()).get("model")
    except (OSError, ValueError, AttributeError):
        return None


def _metric(row: Mapping[str, Any], name: str, line: int) -> float:
    metrics = row.get("metrics") or {}
    value = metrics.get(name, row.get(name))
    if value is None:
        raise DataError(f"results line {line}: metric {name!r} missing (not a smoltalkbench run?)")
    return float(value)


def _reason_kind(reason: str) -> str:
    """A failure reason without its variable details (token lists, exception text)."""
    return re.split(r":\s", reason, maxsplit=1)[0]


def sample_from_row(row: Mapping[str, Any], line: int = 0) -> Sample:
    """Sample from one results.jsonl row. Raises DataError when a metric is missing."""
    info = row_info(row)
    judge_record = row.get("judge") if isinstance(row.get("judge"), Mapping) else None
    reference_chars = info.get("reference_chars")
    if reference_chars is None:
        reference_chars = len(str(row.get("answer") or ""))
    failed = _metric(row, "judge_error", line) >= 0.5
    return Sample(
        win_prob=_metric(row, "win_prob", line),
        raw_win_prob=_metric(row, "raw_win_prob", line),
        length_penalized=_metric(row, "length_penalized", line) >= 0.5,
        reply_chars=int(_metric(row, "reply_chars", line)),
        reference_chars=int(reference_chars),
        judge_error=failed,
        group=str(info.get("group", "?")),
        category=str(info.get("category", "?")),
        reason=judge_record.get("reason") if judge_record else None,
        share_M=_share_M(judge_record) if judge_record and not failed else None,
        no_verdict=float((row.get("metrics") or {}).get("no_verdict", row.get("no_verdict", 0.0))
                         or 0.0) >= 0.5,
    )


def _share_M(record: Mapping[str, Any]) -> float | None:  # noqa: N802
    p_m, p_M = float(record.get("p_m") or 0.0), float(record.get("p_M") or 0.0)  # noqa: N806
    return p_M / (p_m + p_M) if p_m + p_M > 0 else None


def load_samples(path: str | Path) -> list[Sample]:
    """Samples from a results.jsonl file, or from the folder vf-eval wrote it in."""
    try:
        results = read_results(path)
    except ResultsError as exc:
        raise DataError(str(exc)) from exc
    samples = [sample_from_row(row, line) for row, line in zip(results.rows, results.lines,
                                                                strict=True)]
    if not samples:
        raise DataError(f"{results.path}: no results")
    return samples


def rate(name: str, samples: Sequence[Sample]) -> Rate:
    """Win rate x100 and standard error over the judged samples; NaN when none was judged."""
    judged = [s.win_prob for s in samples if not s.judge_error]
    average, stderr = mean_stderr(judged)
    return Rate(name, len(judged), len(samples) - len(judged), 100 * average, 100 * stderr)


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
    from scipy.optimize import minimize
    from scipy.special import expit, log_expit

    y = np.asarray(preferences, dtype=float)
    if y.size == 0:
        return math.nan
    d = np.asarray(length_diffs, dtype=float)
    sd = d.std(ddof=1) if d.size > 1 else 0.0
    x = np.tanh(d / sd) if sd > 0 else np.zeros_like(d)

    def loss(beta: np.ndarray) -> tuple[float, np.ndarray]:
        z = beta[0] + beta[1] * x
        nll = -np.sum(y * log_expit(z) + (1 - y) * log_expit(-z))
        residual = expit(z) - y
        grad = np.array([residual.sum(), (residual * x).sum()]) + 2 * L2_PENALTY * beta
        return nll + L2_PENALTY * float(beta @ beta), grad

    fit = minimize(loss, np.zeros(2), jac=True, method="L-BFGS-B")
    return float(100 * expit(fit.x[0]))


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
    return Report(
        overall=rate("all", samples),
        raw_win_rate=100 * sum(s.raw_win_prob for s in judged) / n if n else math.nan,
        lc_win_rate=length_controlled_win_rate(
            [s.raw_win_prob for s in judged], [s.reply_chars - s.reference_chars for s in judged]
        ),
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


def render(report: Report):
    """A rich Group of tables: headline figures, then rates by group and by category."""
    from rich.console import Group
    from rich.table import Table

    warning = contamination_warning(report.model)
    caption = f"warning: {warning}" if warning else None
    title = f"SmolTalkBench: {report.model}" if report.model else "SmolTalkBench"
    head = Table(title=title, caption=caption, show_header=False)
    o = report.overall
    head.add_row("win rate (x100, length-penalized)", f"{_fmt(o.win_rate)} ± {_fmt(o.stderr)}")
    lc_note = (
        f" (n={o.judged}: unstable below ~{LC_MIN_SAMPLES})" if o.judged < LC_MIN_SAMPLES else ""
    )
    head.add_row("length-controlled win rate", _fmt(report.lc_win_rate) + lc_note)
    head.add_row("raw win rate (no length penalty)", _fmt(report.raw_win_rate))
    head.add_row("judged / total", f"{o.judged} / {report.total}")
    head.add_row("judge errors (excluded)", str(o.failed))
    head.add_row("no verdict on the reply (booked as losses)", str(report.no_verdict))
    head.add_row("length-penalized replies", str(report.penalized))
    if not math.isnan(report.label_M_share):
        head.add_row("judge's mean P(M) (0.5 = no label bias)", f"{report.label_M_share:.2f}")
    head.add_row(
        "mean chars reply / reference",
        f"{_fmt(report.mean_reply_chars)} / {_fmt(report.mean_reference_chars)}",
    )
    if o.failed:
        if report.failure_reasons:
            for reason, count in report.failure_reasons:
                head.add_row(f"  failed: {reason}", str(count))
        elif not report.reasons_recorded:
            head.add_row("  failure reasons", "not saved (run vf-eval with -C judge)")
    tables = [head]
    for title, rates in (("by group", report.by_group), ("by category", report.by_category)):
        table = Table(title=title)
        for column in (title.split()[-1], "win rate", "± se", "judged", "failed"):
            table.add_column(column, justify="left" if column in ("group", "category") else "right")
        for r in rates:
            table.add_row(r.name, _fmt(r.win_rate), _fmt(r.stderr), str(r.judged), str(r.failed))
        tables.append(table)
    return Group(*tables)


def plot(report: Report, path: str | Path) -> Path:
    """Bar chart of win rate by category (± se), with overall and LC win rates as lines; PNG."""
    rates = report.by_category
    path = Path(path)
    with figure(path, (7, 1.2 + 0.4 * max(len(rates), 1)), dpi=120) as ax:
        _draw(ax, report, rates)
    return path


def _draw(ax, report: Report, rates: Sequence[Rate]) -> None:
    names = [f"{r.name} ({r.judged}/{r.judged + r.failed})" for r in rates]
    values = [0.0 if math.isnan(r.win_rate) else r.win_rate for r in rates]
    errors = [0.0 if math.isnan(r.stderr) else r.stderr for r in rates]
    ax.barh(names, values, xerr=errors, color="#4c72b0", capsize=3)
    for value, style, label in (
        (report.overall.win_rate, "-", "win rate"),
        (report.lc_win_rate, "--", "length-controlled"),
    ):
        if not math.isnan(value):
            ax.axvline(value, color="#c44e52", linestyle=style, label=f"{label} {value:.1f}")
    ax.set_xlim(0, 100)
    ax.set_xlabel("win rate vs reference (x100)")
    ax.invert_yaxis()
    o = report.overall
    model = f"{report.model}: " if report.model else ""
    ax.set_title(
        f"SmolTalkBench, {model}judged {o.judged}/{report.total}, {o.failed} judge errors "
        "excluded", fontsize="medium"
    )
    ax.legend(loc="lower right", fontsize="small")


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


def report_hook(results: Any) -> Any:
    """The `smol_envs.report` hook of `smol-envs report`: win rates with their denominators
    (judged / total) overall, by group and by category, for a vf-eval run (a
    `smol_envs_core.results.Results`). Raises DataError when a row lacks a metric."""
    from smol_envs_core.runreport import Bars, EnvReport, Table

    samples = [sample_from_row(row, line) for row, line in
               zip(results.rows, results.lines, strict=True)]
    report = summarize(samples, model=results.metadata.get("model"))
    o = report.overall
    headline = (
        ("win rate x100 (length-penalized)", f"{_fmt(o.win_rate)} ± {_fmt(o.stderr)}"),
        ("judged / total", f"{o.judged} / {report.total}"),
        ("length-controlled win rate", _fmt(report.lc_win_rate)
         + (f" (n={o.judged}: unstable below ~{LC_MIN_SAMPLES})"
            if o.judged < LC_MIN_SAMPLES else "")),
        ("raw win rate (no length penalty)", _fmt(report.raw_win_rate)),
        ("judge errors (excluded)", str(o.failed)),
    )
    tables = tuple(
        Table(f"win rate x100 by {key}", (key, "win rate", "± se", "judged / total"),
              tuple((r.name, _fmt(r.win_rate), _fmt(r.stderr),
                     f"{r.judged} / {r.judged + r.failed}") for r in rates))
        for key, rates in (("group", report.by_group), ("category", report.by_category)))
    chart = Bars("win rate by category (judged / total)",
                 tuple(f"{r.name} ({r.judged}/{r.judged + r.failed})" for r in report.by_category),
                 (("win rate", tuple(r.win_rate for r in report.by_category)),), "win rate x100")
    env_args = results.metadata.get("env_args") or {}
    judge = env_args.get("judge_model", DEFAULT_JUDGE_MODEL)
    dataset = str(env_args.get("dataset", DEFAULT_DATASET))
    if dataset == "fixture":
        dataset = "fixture (packaged offline rows)"
    elif dataset == DEFAULT_DATASET:
        config, split = env_args.get("config", "gold"), env_args.get("split", "test")
        dataset += f" config {config}, split {split}"
    warning = contamination_warning(report.model)
    return EnvReport(
        dataset_version=f"{dataset}; judge {judge}",
        status=f"judged {o.judged} of {report.total}",
        headline=headline, tables=tables, charts=(chart,),
        notes=tuple(f"warning: {w}" for w in (warning,) if w))
