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

A task without a prediction (the evaluator's `missing_prediction` record) is not scored: it is
counted in `missing_predictions` and `tasks_missing`, and the run is partial (no official or
filtered score). A results file is read strictly: a row without one of the metrics the report
needs, or carrying another dataset sha256 than the edition loaded, is refused (ReportError).

`summarize` is pure; `load_records` reads results files; `check_dataset` compares their dataset
hash with the loaded edition's; `render_table` and `bar_chart` present a summary (rich table,
matplotlib PNG).
"""

from __future__ import annotations

import json
from collections.abc import Iterable, Mapping, Sequence
from pathlib import Path
from typing import Any

from smol_envs_core.report import figure, mean
from smol_envs_core.report import fmt as _fmt
from smol_envs_core.results import ResultsError, read_results, results_path, row_info
from smol_envs_core.runreport import Bars, EnvReport, Table, expect_environment
from smol_envs_core.runreport import ReportError as RunReportError

from smolscript.data import DIFFICULTIES
from smolscript.errors import ReportError
from smolscript.languages import LANGUAGE_ORDER, LANGUAGES


def _mean0(values: Sequence[float]) -> float:
    return mean(values, empty=0.0)


REQUIRED_FIELDS = ("id", "language", "passed", "syntax_ok", "hidden_test_pass_rate")
# The per-row metrics a vf-eval results row must carry (a missing one is refused, never 0).
VF_METRICS = ("passed", "syntax_ok", "hidden_test_pass_rate")
MISSING_PREDICTION = "missing_prediction"


def is_missing_prediction(row: Mapping[str, Any]) -> bool:
    """The evaluator's record of a selected task that had no prediction."""
    return row.get("status") == MISSING_PREDICTION


def summarize(records: Iterable[Mapping[str, Any]], selected_languages: Sequence[str] | None = None,
              expected_ids: Iterable[str] | None = None, infra_errors: int = 0,
              filtered: bool = False) -> dict:
    """Aggregate per-task records into the report dict.

    records: {"id", "language", "passed", "syntax_ok", "hidden_test_pass_rate", optional
      "difficulty", "infra_error", "status"} (one per task; a duplicate id raises ReportError).
      A record whose status is "missing_prediction" is counted as missing, not scored.
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
    no_prediction = sorted(r["id"] for r in rows if is_missing_prediction(r))
    rows = [r for r in rows if not is_missing_prediction(r)]
    missing_ids = sorted((set(expected_ids) - seen if expected_ids is not None else set())
                         | set(no_prediction))
    per_language: dict[str, dict] = {}
    for lang in languages:
        mine = [r for r in rows if r["language"] == lang and not r.get("infra_error")]
        per_language[lang] = {
            "display_name": LANGUAGES[lang].display_name,
            "tasks": len(mine),
            "passed": sum(bool(r["passed"]) for r in mine),
            # None (shown n/a) for a language with no scored task: nothing was measured.
            "pass_at_1": 100.0 * _mean0([float(bool(r["passed"])) for r in mine])
            if mine else None,
            "syntax_success": 100.0 * _mean0([float(bool(r["syntax_ok"])) for r in mine])
            if mine else None,
            "hidden_test_pass_rate": 100.0 * _mean0([float(r["hidden_test_pass_rate"])
                                                    for r in mine]) if mine else None,
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
        "missing_predictions": len(no_prediction),
        "missing_ids": missing_ids[:50],
        "infra_errors": infra,
        "complete": complete,
        "status": ("infra_errors: no score" if infra
                   else f"partial: {len(missing_ids)} task(s) missing, no score" if not complete
                   else "official" if official else "filtered"),
    }


def missing_line(summary: Mapping[str, Any]) -> str | None:
    """One line on missing tasks and predictions (None when nothing is missing)."""
    missing = summary["tasks_missing"]
    if not missing:
        return None
    selected = summary["tasks_scored"] + missing
    of_which = (f" ({summary['missing_predictions']} without a prediction)"
                if summary.get("missing_predictions") else "")
    return (f"{missing} of {selected} selected tasks missing{of_which}: partial run, "
            "the score is withheld")


def toolchains(rows: Iterable[Mapping[str, Any]]) -> dict[str, list[str]]:
    """Binary -> the distinct version lines that scored `rows` (their `toolchain` field, as
    the scoring service reports it); more than one line for a binary means mixed toolchains."""
    seen: dict[str, set[str]] = {}
    for row in rows:
        for binary, version in (row.get("toolchain") or {}).items():
            seen.setdefault(binary, set()).add(str(version))
    return {binary: sorted(versions) for binary, versions in sorted(seen.items())}


# --------------------------------------------------------------------------- loading


def _number(metrics: Mapping[str, Any], name: str, where: str) -> float:
    value = metrics.get(name)
    if isinstance(value, bool) or not isinstance(value, int | float):
        shown = "missing" if value is None else f"not a number ({value!r})"
        raise ReportError(f"{where}: metric {name!r} is {shown}"
                          " (a smolscript vf-eval row carries passed, syntax_ok and "
                          "hidden_test_pass_rate)")
    return float(value)


def records_from_vf_results(rows: Iterable[Mapping[str, Any]],
                            lines: Iterable[int] | None = None) -> list[dict]:
    """Per-task records from a `vf-eval -s` results.jsonl (info + metrics columns); each
    record keeps the row's `dataset_sha256` (None when absent).

    Raises ReportError naming the line when a row lacks a metric the report needs (VF_METRICS)
    or its task id/language: a missing value is never read as 0.
    """
    rows = list(rows)
    records = []
    for row, line in zip(rows, list(lines) if lines is not None else [None] * len(rows),
                         strict=True):
        where = f"results line {line}" if line else "results row"
        info = row_info(row)
        metrics = row.get("metrics") or {}
        if not info.get("id") or not info.get("language"):
            raise ReportError(f"{where}: no task id/language in its info (not a smolscript run?)")
        records.append({
            "id": info["id"], "language": info["language"],
            "difficulty": info.get("difficulty"),
            "passed": _number(metrics, "passed", where) >= 1.0,
            "syntax_ok": _number(metrics, "syntax_ok", where) >= 1.0,
            "hidden_test_pass_rate": _number(metrics, "hidden_test_pass_rate", where),
            "infra_error": bool(metrics.get("infra_error") or row.get("error")),
            "dataset_sha256": info.get("dataset_sha256"),
            "toolchain": (info.get("verdict") or {}).get("toolchain") or {},
        })
    return records


def check_dataset(records: Sequence[Mapping[str, Any]], expected_sha256: str,
                  edition: str) -> None:
    """Refuse results about another dataset build than the one loaded.

    Raises ReportError naming both hashes when a record's `dataset_sha256` differs from
    `expected_sha256` (the loaded edition's `data.dataset_hash`), or when it carries none.
    """
    found = sorted({str(r.get("dataset_sha256")) for r in records})
    wrong = [sha for sha in found if sha != expected_sha256]
    if wrong:
        raise ReportError(
            f"the results were scored on dataset sha256 {', '.join(w[:16] for w in wrong)}, "
            f"but the loaded {edition!r} edition is {expected_sha256[:16]}: refusing to report "
            "them against another dataset build")


def load_records(path: str | Path) -> tuple[list[dict], dict]:
    """Read a results file: the evaluator's results.json or a vf-eval results.jsonl/folder.

    Returns (records, run metadata). Raises ReportError when the file is not either kind or a
    vf-eval row lacks a metric the report needs.
    """
    path = results_path(path)
    if path.suffix == ".jsonl":  # vf-eval's
        try:
            results = read_results(path)
            expect_environment(results, "smolscript")
        except (ResultsError, RunReportError) as exc:
            raise ReportError(str(exc)) from exc
        return records_from_vf_results(results.rows, results.lines), results.metadata
    try:
        data = json.loads(path.read_text())
    except (OSError, json.JSONDecodeError) as exc:
        raise ReportError(f"cannot read results {path}: {exc}") from exc
    if not isinstance(data, dict) or "results" not in data:
        raise ReportError(f"{path} is not a smolscript results file (no 'results')")
    run = data.get("run", {})
    sha = (run.get("settings") or {}).get("dataset_sha256")
    records = list(data["results"].values()) if isinstance(data["results"], dict) \
        else list(data["results"])
    return [{**r, "dataset_sha256": sha} for r in records], run


def summarize_results(path: str | Path, edition: str = "default") -> tuple[dict, dict]:
    """Read a results file (the evaluator's results.json, or a vf-eval results.jsonl or its
    folder), check it against the loaded dataset and summarize it. Returns (summary, run
    metadata). The selection comes from the evaluator's settings, or from the env arguments
    vf-eval recorded in metadata.json (`edition` is the fallback edition there).

    Raises ReportError (unreadable file, a missing metric, another dataset build) or
    DataError (an unknown edition or selection).
    """
    from smolscript import data

    records, meta = load_records(path)
    settings = meta.get("settings") if isinstance(meta.get("settings"), dict) else None
    if settings:  # evaluator results: the run says what it selected
        langs, selected = settings["languages"], meta.get("selected_ids")
        filtered = langs != list(LANGUAGE_ORDER) or settings["difficulties"] != list(DIFFICULTIES)
        edition = settings.get("edition", edition)
    else:  # vf-eval results: the selection load_environment made from the recorded env args
        env_args = meta.get("env_args") or {}
        edition = env_args.get("edition", edition)
        tasks = data.select_tasks(edition, env_args.get("languages") or None,
                                  env_args.get("difficulties") or None,
                                  env_args.get("per_language"), env_args.get("num_examples", -1))
        langs = [lang for lang in LANGUAGE_ORDER if any(t["language"] == lang for t in tasks)]
        selected = [t["id"] for t in tasks]
        # A subset (filters, per_language, num_examples) is never the official score.
        filtered = len(selected) != len(data.load_tasks(edition))
    loaded = data.dataset_hash(edition)
    check_dataset(records, loaded, edition)
    summary = summarize(records, selected_languages=langs, expected_ids=selected,
                        filtered=filtered)
    summary.update(edition=edition, dataset_sha256=loaded)
    return summary, meta


# --------------------------------------------------------------------------- presenting


def language_table(summary: Mapping[str, Any]) -> Table:
    """The official table: one row per language (tasks, Pass@1, syntax success, hidden-test
    rate; n/a where no task was scored), then the headline row (`headline`)."""
    per = summary["per_language"]
    rows = [(per[lang]["display_name"], str(per[lang]["tasks"]), _fmt(per[lang]["pass_at_1"]),
             _fmt(per[lang]["syntax_success"]), _fmt(per[lang]["hidden_test_pass_rate"]))
            for lang in summary["languages"]]
    name, score = headline(summary)
    rows.append((name, str(summary["tasks_scored"]), _fmt(score), _fmt(summary["syntax_success"]),
                 _fmt(summary["hidden_test_pass_rate"])))
    return Table("per-language results (x100)",
                 ("Language", "Tasks", "Pass@1", "Syntax", "Hidden-test rate"), tuple(rows))


def render_table(summary: Mapping[str, Any], title: str = "SmolScript") -> Any:
    """A rich Table of `language_table(summary)` and micro_accuracy."""
    from rich.table import Table as RichTable

    official = language_table(summary)
    table = RichTable(title=f"{title} ({summary['status']})")
    for column in official.columns:
        table.add_column(column, justify="left" if column == "Language" else "right")
    for row in official.rows[:-1]:
        table.add_row(*row)
    table.add_section()
    table.add_row(*official.rows[-1])
    table.add_row("micro_accuracy", "", _fmt(summary["micro_accuracy"]), "", "")
    return table


def language_bars(summary: Mapping[str, Any]) -> Bars:
    """Per-language Pass@1 and syntax success as one bar chart (titled with the headline)."""
    langs = summary["languages"]
    per = summary["per_language"]
    name, score = headline(summary)
    return Bars(f"Pass@1 and syntax success by language; {name} {_fmt(score)}",
                tuple(per[lang]["display_name"] for lang in langs),
                (("Pass@1", tuple(per[lang]["pass_at_1"] for lang in langs)),
                 ("syntax success", tuple(per[lang]["syntax_success"] for lang in langs))),
                "% of tasks")


def bar_chart(summary: Mapping[str, Any], path: str | Path, model: str | None = None) -> Path:
    """Write a PNG bar chart of per-language Pass@1 and syntax success, every bar labelled,
    naming `model` when known; returns the path."""
    from smol_envs_core.report_charts import draw

    path = Path(path)
    with figure(path, (9, 4.5), dpi=100) as ax:
        draw(ax, language_bars(summary), model)
    return path




# --------------------------------------------------------------------------- smol-envs report


def headline(summary: Mapping[str, Any]) -> tuple[str, float | None]:
    """The headline figure's name and value: the official SmolScript Score, a filtered run's
    `filtered_macro_score`, or the macro average of a partial run labelled as not a score."""
    if summary["smolscript_score"] is not None:
        return "SmolScript Score", summary["smolscript_score"]
    if summary["filtered_macro_score"] is not None:
        return "filtered_macro_score (not official)", summary["filtered_macro_score"]
    return "macro (partial: not a score)", summary["partial_macro_over_scored"]


def report_hook(results: Any) -> EnvReport:
    """The `smol_envs.report` hook of `smol-envs report`: the official per-language table and
    chart of a vf-eval run (a `smol_envs_core.results.Results`), as `summarize_results` gives it
    (dataset hash checked, missing metrics refused). Raises ReportError or DataError."""
    summary, _meta = summarize_results(results.path)
    name, score = headline(summary)
    table = language_table(summary)
    chart = language_bars(summary)
    sha = summary["dataset_sha256"]
    notes = [line for line in (missing_line(summary),) if line]
    if summary["infra_errors"]:
        notes.append(f"{summary['infra_errors']} infrastructure error(s): no score")
    return EnvReport(
        dataset_version=f"edition {summary['edition']}, sha256 {sha[:12]}",
        status=summary["status"],
        headline=((name, _fmt(score)), ("micro_accuracy", _fmt(summary["micro_accuracy"]))),
        tables=(table,), charts=(chart,), notes=tuple(notes))

