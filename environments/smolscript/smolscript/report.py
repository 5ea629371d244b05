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
filtered score). Results are read strictly: a row without one of the metrics the report needs,
or carrying another dataset sha256 than the edition loaded, is refused (ReportError).

Every figure comes from the core results model (`smol_envs_core.report.Results`): a vf-eval run
through the core reader, or the evaluator's results.json (`smolscript evaluate`, this package's
own format) through `evaluator_results`. `summarize` is pure; `check_dataset` compares the rows'
dataset hash with the loaded edition's; `report_hook` gives the tables, the chart, the headline
with its intervals (a stratified bootstrap over tasks within languages for the macro score,
Wilson for micro_accuracy), the coverage of a subset and the leaderboard cell to the core
renderer; `compare_hook` gives `smol-envs compare` the tasks (key: the task id; stratum: its
language), the macro Pass@1 as the headline and the per-language and per-difficulty tables.
"""

from __future__ import annotations

import json
from collections.abc import Callable, Iterable, Mapping, Sequence
from dataclasses import replace
from pathlib import Path
from typing import Any

from smol_envs_core.report import (
    Bars,
    EnvReport,
    Estimate,
    Results,
    Standing,
    Table,
    binary,
    describe,
    make_row,
    mean,
    provenance,
    read_results,
    results_path,
    stratified_bootstrap,
)
from smol_envs_core.report import ReportError as CoreReportError
from smol_envs_core.report import fmt as _fmt
from smol_envs_core.report.compare import MACRO, Breakdown, Measure, Outcome, PairedView
from smol_envs_core.report.statistics import pass_at_k_estimates

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
            "passed": sum(float(r["passed"]) for r in mine),
            # None (shown n/a) for a language with no scored task: nothing was measured.
            "pass_at_1": 100.0 * _mean0([float(r["passed"]) for r in mine])
            if mine else None,
            "syntax_success": 100.0 * _mean0([float(r["syntax_ok"]) for r in mine])
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
        "micro_accuracy": 100.0 * _mean0([float(r["passed"]) for r in valid_rows])
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
        for tool, version in (row.get("toolchain") or {}).items():
            seen.setdefault(tool, set()).add(str(version))
    return {tool: sorted(versions) for tool, versions in sorted(seen.items())}


# --------------------------------------------------------------------------- loading


HINT = (" (a smolscript vf-eval row carries passed, syntax_ok and hidden_test_pass_rate)")


def records_from_results(results: Results) -> list[dict]:
    """Per-task records of a run (the core results model of a vf-eval run, or of the
    evaluator's file); each record keeps the row's `dataset_sha256` (None when absent).

    Raises ReportError naming the line when a row lacks a metric the report needs (VF_METRICS)
    or its task id/language (a missing value is never read as 0), and naming the mode for a
    reward-only run, whose rows never carry hidden_test_pass_rate.
    """
    if results.env_args.get("reward_only"):
        raise ReportError(
            f"{results.path.parent}: a reward-only run (reward_only=true, the trainers' mode) "
            "records only passed, syntax_ok and empty_response; the report's per-language "
            "table also needs hidden_test_pass_rate: rerun without reward_only to report it")
    records = []
    for row in results.rows:
        info = row.info
        if not info.get("id") or not info.get("language"):
            raise ReportError(f"{row.where}: no task id/language in its info "
                              "(not a smolscript run?)")
        try:
            passed, syntax_ok, rate = (row.metric(name, HINT) for name in VF_METRICS)
        except CoreReportError as exc:
            raise ReportError(str(exc)) from exc
        records.append({
            "id": info["id"], "language": info["language"],
            "difficulty": info.get("difficulty"),
            # 0/1 for one rollout; an example's share over several (`rollouts.by_example`)
            "passed": passed, "syntax_ok": syntax_ok,
            "hidden_test_pass_rate": rate,
            "infra_error": bool(row.metrics.get("infra_error") or row.error),
            "dataset_sha256": info.get("dataset_sha256"),
            "toolchain": (info.get("verdict") or {}).get("toolchain")
            or row.raw.get("toolchain") or {},
            **({"status": row.raw["status"]} if row.raw.get("status") else {}),
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


def evaluator_results(path: str | Path) -> Results:
    """The evaluator's results.json (`smolscript evaluate --output`) as the core results
    model: one row per task record (info: id, language, difficulty, the run's dataset sha256;
    metrics: passed, syntax_ok, hidden_test_pass_rate as numbers; raw: the record), metadata:
    the document's `run` (settings, selected ids), environment "smolscript".

    Raises ReportError when the file cannot be read or is not an evaluator results file.
    """
    path = Path(path)
    try:
        document = json.loads(path.read_text())
    except (OSError, json.JSONDecodeError) as exc:
        raise ReportError(f"cannot read results {path}: {exc}") from exc
    if not isinstance(document, dict) or "results" not in document:
        raise ReportError(f"{path} is not a smolscript results file (no 'results')")
    run = document.get("run") or {}
    sha = (run.get("settings") or {}).get("dataset_sha256")
    records = document["results"]
    records = list(records.values()) if isinstance(records, dict) else list(records)
    version = document.get("behaviour_version") or run.get("behaviour_version")
    rows = []
    for record in records:
        info = {"id": record.get("id"), "language": record.get("language"),
                "difficulty": record.get("difficulty"), "dataset_sha256": sha}
        if record.get("behaviour_version"):
            info["behaviour_version"] = record["behaviour_version"]
        metrics = {name: float(record[name]) for name in VF_METRICS
                   if isinstance(record.get(name), bool | int | float)}
        rows.append(make_row({**record, "info": info, "metrics": metrics}, 0, version))
    metadata = {**run, "env_id": "smolscript", "date": document.get("finished_at")}
    generation = document.get("generation")
    if isinstance(generation, dict):  # the model path: the model generated in process
        metadata.update(model=(generation.get("model") or {}).get("name") or "?",
                        base_url=f"in process ({(generation.get('backend') or {}).get('backend')})",
                        generation=generation)
    prov = replace(provenance(path, metadata, rows), path=path)  # the file is the run
    return Results(path=path, rows=tuple(rows), metadata=metadata, provenance=prov)


def load_run(path: str | Path) -> Results:
    """A results file as the core model: a vf-eval results.jsonl (or its folder) through the
    core reader (another environment's run refused), else the evaluator's results.json.

    Raises ReportError (unreadable, not a smolscript run)."""
    path = results_path(path)
    if path.suffix == ".jsonl":
        try:
            return read_results(path, expect="smolscript")
        except CoreReportError as exc:
            raise ReportError(str(exc)) from exc
    return evaluator_results(path)


def summarize_results(results: Results, edition: str = "default") -> dict:
    """Check a run (the core results model) against the loaded dataset and summarize it. The
    selection comes from the evaluator's settings, or from the env arguments vf-eval recorded
    in metadata.json (`edition` is the fallback edition there).

    Raises ReportError (a missing metric, another dataset build) or DataError (an unknown
    edition or selection).
    """
    from smolscript import data

    records = records_from_results(results)
    meta = results.metadata
    settings = meta.get("settings") if isinstance(meta.get("settings"), dict) else None
    if settings:  # evaluator results: the run says what it selected
        langs, selected = settings["languages"], meta.get("selected_ids")
        filtered = langs != list(LANGUAGE_ORDER) or settings["difficulties"] != list(DIFFICULTIES)
        # A --max-new-tokens run is a separate experiment, never the official score.
        filtered = filtered or settings.get("max_new_tokens") is not None
        edition = settings.get("edition", edition)
    else:  # vf-eval results: the selection load_environment made from the recorded env args
        env_args = results.env_args
        edition = env_args.get("edition", edition)
        tasks = data.select_tasks(edition, env_args.get("languages") or None,
                                  env_args.get("difficulties") or None,
                                  env_args.get("per_language"), env_args.get("num_examples", -1))
        langs = [lang for lang in LANGUAGE_ORDER if any(t["language"] == lang for t in tasks)]
        selected = [t["id"] for t in tasks]
        # A subset (filters, per_language, num_examples) is never the official score.
        filtered = len(selected) != len(data.load_tasks(edition))
    loaded = data.dataset_hash(edition)
    scored_on = {str(r.get("dataset_sha256")) for r in records}
    if len(scored_on) == 1 and loaded not in scored_on:
        frozen = data.edition_with_hash(scored_on.pop())
        if frozen is not None and len(data.load_tasks(frozen)) == len(data.load_tasks(edition)):
            edition, loaded = frozen, data.dataset_hash(frozen)  # the build, now frozen
    check_dataset(records, loaded, edition)
    summary = summarize(records, selected_languages=langs, expected_ids=selected,
                        filtered=filtered)
    summary.update(edition=edition, dataset_sha256=loaded)
    summary["estimates"] = estimates(records, summary)
    return summary


def estimates(records: Sequence[Mapping[str, Any]], summary: Mapping[str, Any]
              ) -> dict[str, Estimate]:
    """The headline's intervals: the macro score (official, filtered or partial) by a
    stratified bootstrap over tasks within languages, micro_accuracy by Wilson."""
    scored = [r for r in records if not is_missing_prediction(r) and not r.get("infra_error")
              and r["language"] in summary["languages"]]
    by_language: dict[str, list[float]] = {}
    for record in scored:
        by_language.setdefault(record["language"], []).append(float(record["passed"]))
    macro = stratified_bootstrap(
        by_language, lambda means: 100.0 * sum(float(m[0]) for m in means.values()) / len(means),
        label="languages") if by_language else binary([])
    return {"macro": macro, "micro_accuracy": describe([p for v in by_language.values()
                                                        for p in v]),
            "per_language": per_language_estimates(scored)}


def per_language_estimates(records: Sequence[Mapping[str, Any]]
                           ) -> dict[str, dict[str, Estimate]]:
    """{language: {"pass_at_1": ..., "syntax_success": ...}} x100 over the language's scored
    tasks, each with its N and 95% interval (`describe`: Wilson for pass/fail tasks, t over
    tasks whose several samples make a share)."""
    by_language: dict[str, list[Mapping[str, Any]]] = {}
    for record in records:
        by_language.setdefault(record["language"], []).append(record)
    return {lang: {"pass_at_1": describe([float(r["passed"]) for r in mine]),
                   "syntax_success": describe([float(r["syntax_ok"]) for r in mine])}
            for lang, mine in by_language.items()}


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


def language_bars(summary: Mapping[str, Any], warning: str | None = None) -> Bars:
    """Per-language Pass@1 and syntax success as one bar chart (titled with the headline),
    each bar with its N and 95% interval where `summarize_results` computed them
    (`summary["estimates"]["per_language"]`), else the bare figure (drawn as unknown);
    `warning` (e.g. the run's subset) is drawn on the chart."""
    langs = summary["languages"]
    per = summary["per_language"]
    known = summary.get("estimates", {}).get("per_language", {})
    name, score = headline(summary)

    def values(key: str) -> tuple[Estimate | float | None, ...]:
        return tuple(known.get(lang, {}).get(key, per[lang][key]) for lang in langs)

    return Bars(f"Pass@1 and syntax success by language; {name} {_fmt(score)}",
                tuple(per[lang]["display_name"] for lang in langs),
                (("Pass@1", values("pass_at_1")), ("syntax success", values("syntax_success"))),
                "% of tasks", warning=warning)


# --------------------------------------------------------------------------- smol-envs report


def headline(summary: Mapping[str, Any]) -> tuple[str, float | None]:
    """The headline figure's name and value: the official SmolScript Score, a filtered run's
    `filtered_macro_score`, or the macro average of a partial run labelled as not a score."""
    if summary["smolscript_score"] is not None:
        return "SmolScript Score", summary["smolscript_score"]
    if summary["filtered_macro_score"] is not None:
        return "filtered_macro_score (not official)", summary["filtered_macro_score"]
    return "macro (partial: not a score)", summary["partial_macro_over_scored"]


def report_hook(results: Results, edition: str = "default") -> EnvReport:
    """The `smol_envs.report` hook of `smol-envs report` and `smolscript report`: the official
    per-language table and chart of a run (the core results model), as `summarize_results`
    gives it (dataset hash checked, missing metrics refused), the headline with its N,
    standard error and 95% interval, and the toolchains that scored it. `edition` is the
    fallback edition of a vf-eval run that recorded none. Raises ReportError or DataError."""
    summary = summarize_results(results, edition)
    name, _score = headline(summary)
    sha = summary["dataset_sha256"]
    notes = [line for line in (missing_line(summary),) if line]
    if summary["infra_errors"]:
        notes.append(f"{summary['infra_errors']} infrastructure error(s): no score")
    notes += [f"scored with {tool}: {' | '.join(versions)}"
              for tool, versions in summary.get("toolchains", {}).items()]
    macro = summary["estimates"]["macro"]
    subset = coverage(summary, results.env_args)
    tables = [language_table(summary)]
    passes = pass_at_k_table(results)
    if passes is not None:
        tables.append(passes)
    generation = results.metadata.get("generation")
    if isinstance(generation, Mapping):
        tables.append(generation_table(generation))
        override = (results.metadata.get("settings") or {}).get("max_new_tokens")
        if override is not None:
            notes.append(f"experiment: --max-new-tokens {override} replaced the versioned "
                         "budgets for every task (not the card's protocol: no official score)")
    return EnvReport(
        dataset_version=f"edition {summary['edition']}, sha256 {sha[:12]}",
        status=summary["status"],
        headline=((name, macro), ("micro_accuracy", summary["estimates"]["micro_accuracy"])),
        tables=tuple(tables), notes=tuple(notes),
        charts=(language_bars(summary, subset and f"subset: {subset}"),),
        subset=subset, leaderboard=(Standing(score_column(summary["edition"]), macro, subset),))


def score_column(edition: str) -> str:
    """The leaderboard column of a run's Score: "smolscript Score" for the current default
    edition, the edition named otherwise (the scores of two editions are never pooled)."""
    return "smolscript Score" if edition == "default" else f"smolscript Score ({edition})"


PASS_KS = (1, 2, 5, 10)


def pass_at_k_table(results: Results) -> Table | None:
    """pass@k x100 per language and their macro average (the Score's shape), for a run with
    several samples of every task (`Row.rollouts`, the report's rows being tasks), k up to the
    fewest samples; None for one sample per task. Each language: the unbiased estimator
    averaged over its tasks with a t interval over tasks (`pass_at_k_estimates`); macro: the
    mean of the languages' figures."""
    samples: dict[str, list[list[float]]] = {}
    for row in results.rows:
        if len(row.rollouts) < 2:
            return None
        outcomes = [r.optional_metric("passed") for r in row.rollouts]
        if None in outcomes:
            return None
        samples.setdefault(str(row.info.get("language")), []).append(outcomes)
    per_language = {lang: pass_at_k_estimates(samples[lang], PASS_KS)
                    for lang in LANGUAGE_ORDER if lang in samples}
    ks = sorted(set.intersection(*(set(e) for e in per_language.values())))
    rows = [(LANGUAGES[lang].display_name, *(found[k] for k in ks))
            for lang, found in per_language.items()]
    rows.append(("macro (mean of languages)",
                 *(_fmt(mean([found[k].value for found in per_language.values()])) for k in ks)))
    return Table("pass@k x100 by language (unbiased estimator, Chen et al. 2021; N = tasks)",
                 ("language", *(f"pass@{k}" for k in ks)), tuple(rows))


SELECTION_ARGS = ("languages", "difficulties", "per_language", "num_examples")


def coverage(summary: Mapping[str, Any], env_args: Mapping[str, Any]) -> str | None:
    """None for the official score (every task of the edition), else what the run covers:
    the selection (languages, difficulties, per_language, num_examples) and the tasks scored
    out of the edition's, labelled as not the official score (a partial run: not a score)."""
    if summary["status"] == "official":
        return None
    from smolscript import data

    total = len(data.load_tasks(summary["edition"]))
    chosen = [f"{name} {_shown(env_args[name])}" for name in SELECTION_ARGS
              if env_args.get(name) not in (None, -1, [], "")]
    selection = f"{', '.join(chosen)}: " if chosen else ""
    if not summary["complete"]:
        return (f"{selection}{summary['tasks_scored']} of {total} tasks scored, "
                f"{summary['status']}")
    return f"{selection}{summary['tasks_scored']} of {total} tasks, not the official score"


def _shown(value: Any) -> str:
    return ",".join(map(str, value)) if isinstance(value, list | tuple) else str(value)


PASS_AT_1 = Measure("Pass@1 x100", "passed")


def compare_hook(results: Results, edition: str = "default") -> PairedView:
    """The `smol_envs.compare` hook: each scored task keyed by its id in its language's
    stratum, with passed, syntax_ok and hidden_test_pass_rate; the headline is the macro
    Pass@1 over languages (the SmolScript Score's formula, on the tasks both runs scored),
    with micro Pass@1 and the macro syntax and hidden-test rates, per language and per
    difficulty. Tasks without a prediction or with an infrastructure error are excluded and
    counted. The dataset is checked as the report checks it (ReportError, DataError)."""
    summary = summarize_results(results, edition)
    records = records_from_results(results)
    def left_out(record: Mapping[str, Any]) -> str | None:
        return ("no prediction" if is_missing_prediction(record)
                else "infrastructure error" if record["infra_error"] else None)

    scored = [r for r in records if left_out(r) is None]
    excluded = tuple((str(r["id"]), left_out(r)) for r in records if left_out(r) is not None)
    outcomes = tuple(Outcome(
        key=str(r["id"]), stratum=r["language"],
        values={"passed": float(r["passed"]), "syntax_ok": float(r["syntax_ok"]),
                "hidden_test_pass_rate": float(r["hidden_test_pass_rate"])},
        groups={"language": r["language"], "difficulty": str(r.get("difficulty"))})
        for r in scored)
    return PairedView(
        dataset=f"edition {summary['edition']}, sha256 {summary['dataset_sha256'][:12]}",
        outcomes=outcomes,
        headline=Measure("macro Pass@1 over languages (SmolScript Score formula)", "passed",
                         MACRO, label="languages"),
        flip_metric="passed",
        measures=(Measure("micro Pass@1 x100", "passed"),
                  Measure("macro syntax success", "syntax_ok", MACRO, label="languages"),
                  Measure("macro hidden-test pass rate", "hidden_test_pass_rate", MACRO,
                          label="languages")),
        breakdowns=(Breakdown("language", PASS_AT_1), Breakdown("difficulty", PASS_AT_1)),
        excluded=excluded)


def generation_table(generation: Mapping[str, Any]) -> Table:
    """The generation statistics of an in-process run (`smolscript evaluate --model`): the
    backend and how it batches, then the totals over all sessions (completions, those that
    hit their token limit, prompts too long, OOM retries, final batch size, generation wall
    time, new tokens and tokens/s)."""
    backend = generation.get("backend") or {}
    total = generation.get("totals") or {}
    sessions = generation.get("sessions") or []

    def cell(key: str) -> str:
        value = total.get(key)
        return "n/a" if value is None else str(value)

    rows = (("backend", f"{backend.get('library', '?')} on {backend.get('device', '?')}"
             + (f" ({backend['dtype']})" if backend.get("dtype") else "")),
            ("batching", str(backend.get("batching", "?"))),
            ("context length", str(backend.get("context_length", "?"))),
            ("completions", cell("completions")),
            ("hit their token limit", cell("hit_limit")),
            ("prompt too long (not generated)", cell("prompt_too_long")),
            ("OOM retries", cell("oom_retries")),
            ("final batch size", cell("final_batch_size")),
            ("generation wall time (s)", cell("wall_s")),
            ("new tokens", cell("new_tokens")),
            ("tokens/s", cell("tokens_per_s")),
            ("sessions (resumes + 1)", str(len(sessions))))
    return Table("generation (in process)", ("Statistic", "Value"), rows)


def hook_for(edition: str) -> Callable[[Results], EnvReport]:
    """`report_hook` with another fallback edition (the `smolscript report --edition`)."""
    return lambda results: report_hook(results, edition)

