"""Several checkpoints of one training run: which ones (`checkpoints`), and after each was
evaluated, the curve people draw while training (`chart_sweep`): one chart per headline metric
across checkpoints with 95% intervals as error bars, and the paired comparison of each
checkpoint with the one before (`smol-envs compare`'s own code: McNemar / Newcombe or the
paired bootstrap, per environment)."""

from __future__ import annotations

import re
from collections.abc import Sequence
from pathlib import Path

from ..errors import SmolEnvsError
from ..report import report_runs
from ..report.compare import compare_runs
from ..report.model import ReportError
from .model import is_hf_folder

SWEEP_FOLDER = "sweep"


def natural_key(name: str) -> list:
    """Sort key putting "step-200" before "step-1000". Pure."""
    return [int(part) if part.isdigit() else part.lower() for part in re.split(r"(\d+)", name)]


def checkpoints(folder: Path) -> list[Path]:
    """The checkpoints in `folder`: its .gguf files and Hugging Face checkpoint folders, in
    natural name order.

    Raises:
        SmolEnvsError: `folder` holds none.
    """
    found = [p for p in Path(folder).iterdir()
             if (p.is_file() and p.suffix.lower() == ".gguf") or is_hf_folder(p)]
    if not found:
        raise SmolEnvsError(f"smol-envs eval: --sweep {folder}: no .gguf file or Hugging Face "
                            "checkpoint folder in it")
    return sorted(found, key=lambda p: natural_key(p.name))


def _runs(run_set: Path) -> dict[str, Path]:
    return {p.parent.name: p.parent for p in sorted(Path(run_set).glob("*/results.jsonl"))
            if not p.parent.name.startswith(".")}


def curves(run_sets: Sequence[Path]) -> dict[str, list[tuple[str, float, float, float, int]]]:
    """{headline column: [(checkpoint label, value, low, high, N), ...]} in sweep order."""
    out: dict[str, list] = {}
    for run_set in run_sets:
        for report in report_runs(list(_runs(run_set).values())):
            for s in report.body.leaderboard:
                e = s.estimate
                out.setdefault(s.column, []).append(
                    (Path(run_set).name, e.value, e.low, e.high, e.n))
    return out


def slug(text: str) -> str:
    """A file name for a column. Pure."""
    return re.sub(r"[^A-Za-z0-9]+", "-", text).strip("-").lower()


def draw(column: str, points: Sequence[tuple[str, float, float, float, int]], path: Path) -> Path:
    """One PNG chart of `column` across checkpoints: points with 95% interval bars."""
    from ..report.charts import quiet_matplotlib

    with quiet_matplotlib() as plt:
        fig, ax = plt.subplots(figsize=(max(4.0, 1.2 * len(points)), 3.2))
        xs = list(range(len(points)))
        values = [p[1] for p in points]
        low = [max(0.0, p[1] - p[2]) for p in points]
        high = [max(0.0, p[3] - p[1]) for p in points]
        ax.errorbar(xs, values, yerr=[low, high], fmt="o-", capsize=4)
        ax.set_xticks(xs, [f"{p[0]}\nN={p[4]}" for p in points], fontsize=7)
        ax.set_title(f"{column} (95% intervals)", fontsize=9)
        ax.grid(alpha=0.3)
        fig.tight_layout()
        path.parent.mkdir(parents=True, exist_ok=True)
        fig.savefig(path, dpi=110)
        plt.close(fig)
    return path


def consecutive_comparisons(run_sets: Sequence[Path]) -> list[tuple[str, str, str, str]]:
    """(run, checkpoint A, checkpoint B, `smol-envs compare`'s verdict) for every run present
    in two consecutive run sets; a pair that cannot be compared gets the reason."""
    rows = []
    for a, b in zip(run_sets, run_sets[1:], strict=False):
        runs_a, runs_b = _runs(a), _runs(b)
        for name in runs_a:
            if name not in runs_b:
                continue
            try:
                verdict = compare_runs(runs_a[name], runs_b[name]).verdict
            except ReportError as exc:
                verdict = f"not compared: {exc}"
            rows.append((name, Path(a).name, Path(b).name, verdict))
    return rows


def chart_sweep(run_sets: Sequence[Path], output: Path) -> list[Path]:
    """Draw every headline's chart into `output`/sweep/, print the paired comparisons of
    consecutive checkpoints and write both as `output`/sweep/README.md; return the charts."""
    folder = Path(output) / SWEEP_FOLDER
    charts = [draw(column, points, folder / f"{slug(column)}.png")
              for column, points in curves(run_sets).items()]
    comparisons = consecutive_comparisons(run_sets)
    lines = ["# Sweep", "", "Checkpoints, in order: " + ", ".join(Path(r).name for r in run_sets),
             "", *[f"![{c.stem}]({c.name})" for c in charts], "",
             "| run | A | B | B - A (paired) |", "| :--- | :--- | :--- | :--- |",
             *[f"| {r} | {a} | {b} | {v} |" for r, a, b, v in comparisons]]
    (folder / "README.md").write_text("\n".join(lines) + "\n")
    for r, a, b, v in comparisons:
        print(f"{r}: {a} -> {b}: {v}")
    print(f"smol-envs eval: {len(charts)} chart(s) and the comparisons in {folder}")
    return charts
