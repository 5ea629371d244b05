"""Metrics of a smolscript run: per-language Pass@1, the SmolScript Score and diagnostics.

All scores are on 0-100. A task passes only when every hidden assertion passes; with one
generation per task, a language's accuracy is its Pass@1.

- `smolscript_score` (= overall Pass@1): macro average of the nine language accuracies.
  Given only for a complete, unfiltered run without infrastructure errors; otherwise None.
- `filtered_macro_score`: the same macro average over the selected languages of a filtered
  run (never called the official score).
- `syntax_success`: macro average of per-language parse/compile success rates.
- `micro_accuracy`: passed tasks / all tasks (secondary, count-weighted diagnostic).
- `hidden_test_pass_rate`: per task the fraction of hidden tests passed, averaged per
  language, then macro-averaged.

`summarize` is pure; `load_records` reads results files; `render_table` and `bar_chart`
present a summary (rich table, matplotlib PNG).
"""

from __future__ import annotations

import json
from collections.abc import Iterable, Mapping, Sequence
from pathlib import Path
from typing import Any

from smol_envs_core.report import figure, mean
from smol_envs_core.report import fmt as _fmt
from smol_envs_core.results import ResultsError, read_results, results_path, row_info

from smolscript.errors import ReportError
from smolscript.languages import LANGUAGE_ORDER, LANGUAGES


def _mean0(values: Sequence[float]) -> float:
    return mean(values, empty=0.0)


REQUIRED_FIELDS = ("id", "language", "passed", "syntax_ok", "hidden_test_pass_rate")


def summarize(records: Iterable[Mapping[str, Any]], selected_languages: Sequence[str] | None = None,
              expected_ids: Iterable[str] | None = None, infra_errors: int = 0,
              filtered: bool = False) -> dict:
    """Aggregate per-task records into the report dict.

    records: {"id", "language", "passed", "syntax_ok", "hidden_test_pass_rate", optional
      "difficulty", "infra_error"} (one per task; a duplicate id raises ReportError).
    selected_languages: the languages the run selected (default: those in the records).
    expected_ids: every task id the run selected; missing ones make the run partial.
    infra_errors: infrastructure failures counted outside the records (plus records whose
      `infra_error` is truthy).
    filtered: the run selected a subset (languages or difficulties).
    Any partial run, filter or infra error withholds the official `smolscript_score`.
    """
    rows = list(records)
    seen: set[str] = set()
    for row in rows:
        missing = [f for f in REQUIRED_FIELDS if f not in row]
        if missing:
            raise ReportError(f"record {row.get('id')!r} lacks {missing}")
        if row["language"] not in LANGUAGES:
            raise ReportError(f"record {row['id']!r} has unknown language {row['language']!r}")
        if row["id"] in seen:
            raise ReportError(f"duplicate record for task {row['id']!r}")
        seen.add(row["id"])
    infra = infra_errors + sum(1 for row in rows if row.get("infra_error"))
    languages = [lang for lang in LANGUAGE_ORDER
                 if lang in (selected_languages or {r["language"] for r in rows})]
    missing_ids = sorted(set(expected_ids) - seen) if expected_ids is not None else []
    per_language: dict[str, dict] = {}
    for lang in languages:
        mine = [r for r in rows if r["language"] == lang and not r.get("infra_error")]
        per_language[lang] = {
            "display_name": LANGUAGES[lang].display_name,
            "tasks": len(mine),
            "passed": sum(bool(r["passed"]) for r in mine),
            "pass_at_1": 100.0 * _mean0([float(bool(r["passed"])) for r in mine]),
            "syntax_success": 100.0 * _mean0([float(bool(r["syntax_ok"])) for r in mine]),
            "hidden_test_pass_rate": 100.0 * _mean0([float(r["hidden_test_pass_rate"])
                                                    for r in mine]),
        }
    scored = [lang for lang in languages if per_language[lang]["tasks"]]
    macro = _mean0([per_language[lang]["pass_at_1"] for lang in scored]) if scored else None
    complete = not missing_ids and infra == 0 and len(scored) == len(languages)
    official = complete and not filtered and set(languages) == set(LANGUAGE_ORDER)
    valid_rows = [r for r in rows if not r.get("infra_error")]
    return {
        "toolchains": toolchains(valid_rows),
        "smolscript_score": macro if official else None,
        "overall_pass_at_1": macro if official else None,
        "filtered_macro_score": macro if (complete and not official) else None,
        # Shown for partial runs only, labelled as such: never a benchmark score.
        "partial_macro_over_scored": macro if not complete else None,
        "syntax_success": _mean0([per_language[lang]["syntax_success"] for lang in scored])
        if scored else None,
        "micro_accuracy": 100.0 * _mean0([float(bool(r["passed"])) for r in valid_rows])
        if valid_rows else None,
        "hidden_test_pass_rate": _mean0([per_language[lang]["hidden_test_pass_rate"]
                                        for lang in scored]) if scored else None,
        "per_language": per_language,
        "languages": languages,
        "tasks_scored": len(valid_rows),
        "tasks_missing": len(missing_ids),
        "missing_ids": missing_ids[:50],
        "infra_errors": infra,
        "complete": complete,
        "status": ("infra_errors: no score" if infra else "partial: no score" if not complete
                   else "official" if official else "filtered"),
    }


def toolchains(rows: Iterable[Mapping[str, Any]]) -> dict[str, list[str]]:
    """Binary -> the distinct version lines that scored `rows` (their `toolchain` field, as
    the scoring service reports it); more than one line for a binary means mixed toolchains."""
    seen: dict[str, set[str]] = {}
    for row in rows:
        for binary, version in (row.get("toolchain") or {}).items():
            seen.setdefault(binary, set()).add(str(version))
    return {binary: sorted(versions) for binary, versions in sorted(seen.items())}


# --------------------------------------------------------------------------- loading


def records_from_vf_results(rows: Iterable[Mapping[str, Any]]) -> list[dict]:
    """Per-task records from a `vf-eval -s` results.jsonl (info + metrics columns)."""
    records = []
    for row in rows:
        info = row_info(row)
        metrics = row.get("metrics") or {}
        records.append({
            "id": info.get("id"), "language": info.get("language"),
            "difficulty": info.get("difficulty"),
            "passed": bool(metrics.get("passed", 0.0) >= 1.0),
            "syntax_ok": bool(metrics.get("syntax_ok", 0.0) >= 1.0),
            "hidden_test_pass_rate": float(metrics.get("hidden_test_pass_rate", 0.0)),
            "infra_error": bool(metrics.get("infra_error", 0.0)) or bool(row.get("error")),
            "toolchain": (info.get("verdict") or {}).get("toolchain") or {},
        })
    return records


def load_records(path: str | Path) -> tuple[list[dict], dict]:
    """Read a results file: the evaluator's results.json or a vf-eval results.jsonl/folder.

    Returns (records, run metadata). Raises ReportError when the file is not either kind.
    """
    path = results_path(path)
    if path.suffix == ".jsonl":  # vf-eval's
        try:
            results = read_results(path)
        except ResultsError as exc:
            raise ReportError(str(exc)) from exc
        return records_from_vf_results(results.rows), results.metadata
    try:
        data = json.loads(path.read_text())
    except (OSError, json.JSONDecodeError) as exc:
        raise ReportError(f"cannot read results {path}: {exc}") from exc
    if not isinstance(data, dict) or "results" not in data:
        raise ReportError(f"{path} is not a smolscript results file (no 'results')")
    return list(data["results"].values()) if isinstance(data["results"], dict) \
        else list(data["results"]), data.get("run", {})


# --------------------------------------------------------------------------- presenting


def render_table(summary: Mapping[str, Any], title: str = "SmolScript") -> Any:
    """A rich Table of per-language results and the headline metrics."""
    from rich.table import Table

    table = Table(title=f"{title} ({summary['status']})")
    for column in ("Language", "Tasks", "Pass@1", "Syntax", "Hidden-test rate"):
        table.add_column(column, justify="left" if column == "Language" else "right")
    for lang in summary["languages"]:
        row = summary["per_language"][lang]
        table.add_row(row["display_name"], str(row["tasks"]), _fmt(row["pass_at_1"]),
                      _fmt(row["syntax_success"]), _fmt(row["hidden_test_pass_rate"]))
    table.add_section()
    if summary["smolscript_score"] is not None:
        headline, score = "SmolScript Score", summary["smolscript_score"]
    elif summary["filtered_macro_score"] is not None:
        headline, score = "filtered_macro_score", summary["filtered_macro_score"]
    else:
        headline, score = "macro (partial: not a score)", summary["partial_macro_over_scored"]
    table.add_row(headline, str(summary["tasks_scored"]), _fmt(score),
                  _fmt(summary["syntax_success"]), _fmt(summary["hidden_test_pass_rate"]))
    table.add_row("micro_accuracy", "", _fmt(summary["micro_accuracy"]), "", "")
    return table


def bar_chart(summary: Mapping[str, Any], path: str | Path, title: str = "SmolScript") -> Path:
    """Write a PNG bar chart of per-language Pass@1 and syntax success; returns the path."""
    path = Path(path)
    with figure(path, (9, 4.5), dpi=100) as ax:
        _draw(ax, summary, title)
    return path


def _draw(ax, summary: Mapping[str, Any], title: str) -> None:
    langs = summary["languages"]
    names = [summary["per_language"][lang]["display_name"] for lang in langs]
    passes = [summary["per_language"][lang]["pass_at_1"] for lang in langs]
    syntax = [summary["per_language"][lang]["syntax_success"] for lang in langs]
    xs = range(len(langs))
    bars = ax.bar([x - 0.2 for x in xs], passes, width=0.4, label="Pass@1")
    ax.bar_label(bars, fmt="%.1f", fontsize=8)
    ax.bar([x + 0.2 for x in xs], syntax, width=0.4, label="Syntax success", alpha=0.6)
    ax.set_xticks(list(xs), names)
    ax.set_ylim(0, 110)
    ax.set_yticks(range(0, 101, 20))
    ax.set_ylabel("% of tasks")
    score = summary["smolscript_score"]
    if score is not None:
        label = f"SmolScript Score {score:.1f}"
    elif summary["filtered_macro_score"] is not None:
        label = f"filtered_macro_score {summary['filtered_macro_score']:.1f} (not official)"
    else:
        label = summary["status"]
    ax.set_title(f"{title}: {label}")
    ax.legend(loc="upper center", bbox_to_anchor=(0.5, -0.1), ncol=2, frameon=False)
