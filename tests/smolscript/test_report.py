"""Report math on crafted per-task records (scores on 0-100)."""

from __future__ import annotations

import json

import pytest
from smol_envs_core.report import read_results, report_results
from smolscript.languages import LANGUAGE_ORDER
from smolscript.report import (
    ReportError,
    hook_for,
    language_bars,
    language_table,
    load_run,
    records_from_results,
    summarize,
    summarize_results,
)

pytestmark = pytest.mark.unit


def rec(i, lang, passed, syntax=True, rate=None):
    return {"id": f"{lang}-{i}", "language": lang, "passed": passed, "syntax_ok": syntax,
            "hidden_test_pass_rate": (1.0 if passed else 0.0) if rate is None else rate}


def full_run():
    rows = []
    for k, lang in enumerate(LANGUAGE_ORDER):
        # language k: 4 tasks, k % 5 of them pass (python 0/4, javascript 1/4, ...)
        passes = k % 5
        rows += [rec(i, lang, i < passes, syntax=i < 3, rate=0.5 if i >= passes else 1.0)
                 for i in range(4)]
    return rows


def test_official_score_is_the_macro_average_of_nine_languages():
    rows = full_run() + [rec(9, "python", True)]  # python now 1/5 = 20%
    s = summarize(rows, expected_ids=[r["id"] for r in rows])
    per = {lang: s["per_language"][lang]["pass_at_1"] for lang in LANGUAGE_ORDER}
    assert per["python"] == pytest.approx(20.0)
    assert per["javascript"] == pytest.approx(25.0)
    assert s["smolscript_score"] == pytest.approx(sum(per.values()) / 9)
    assert s["overall_pass_at_1"] == s["smolscript_score"]
    # micro weights tasks: 1 + (0+1+2+3+4+0+1+2+3) = 17 passes over 37 tasks
    assert s["micro_accuracy"] == pytest.approx(100 * 17 / 37)
    assert s["micro_accuracy"] != pytest.approx(s["smolscript_score"])
    assert s["syntax_success"] == pytest.approx((80.0 + 8 * 75.0) / 9)
    assert s["filtered_macro_score"] is None and s["status"] == "official"


def test_hidden_test_pass_rate_is_macro_over_languages():
    rows = [rec(0, "python", False, rate=0.5), rec(1, "python", False, rate=0.0),
            rec(0, "rust", True)]
    s = summarize(rows, selected_languages=["python", "rust"], filtered=True)
    assert s["hidden_test_pass_rate"] == pytest.approx((25.0 + 100.0) / 2)
    assert s["filtered_macro_score"] == pytest.approx(50.0)
    assert s["smolscript_score"] is None and s["status"] == "filtered"


def test_partial_runs_and_infra_errors_get_no_score():
    rows = full_run()
    partial = summarize(rows, expected_ids=[r["id"] for r in rows] + ["rust-99"])
    assert partial["smolscript_score"] is None and partial["tasks_missing"] == 1
    assert partial["status"].startswith("partial")
    assert partial["partial_macro_over_scored"] == pytest.approx(
        summarize(rows)["smolscript_score"])  # shown, but labelled as not a score
    broken = summarize(rows[:-1] + [{**rows[-1], "infra_error": True}])
    assert broken["smolscript_score"] is None and broken["infra_errors"] == 1
    assert broken["status"].startswith("infra_errors")


def test_bad_records_are_refused():
    with pytest.raises(ReportError, match="duplicate"):
        summarize([rec(0, "python", True), rec(0, "python", False)])
    with pytest.raises(ReportError, match="lacks"):
        summarize([{"id": "x", "language": "python"}])


def test_vf_eval_results_are_read(tmp_path):
    lines = [{"info": {"id": "python-0", "language": "python", "difficulty": "easy"},
              "metrics": {"passed": 1.0, "syntax_ok": 1.0, "hidden_test_pass_rate": 1.0}},
             {"info": {"id": "rust-0", "language": "rust", "difficulty": "easy"},
              "metrics": {"passed": 0.0, "syntax_ok": 0.0, "hidden_test_pass_rate": 0.25}}]
    (tmp_path / "results.jsonl").write_text("".join(json.dumps(x) + "\n" for x in lines))
    s = summarize(records_from_results(load_run(tmp_path)), filtered=True)
    assert s["per_language"]["rust"]["hidden_test_pass_rate"] == pytest.approx(25.0)
    assert s["filtered_macro_score"] == pytest.approx(50.0)


def test_table_and_chart(tmp_path):
    from smol_envs_core.report.charts import png

    s = summarize(full_run())
    assert len(language_table(s).rows) == len(LANGUAGE_ORDER) + 1  # languages, headline row
    chart = png(language_bars(s), tmp_path / "chart.png")
    assert chart.read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"


def test_a_missing_metric_is_refused_not_read_as_zero(tmp_path):
    row = {"info": {"id": "python-0", "language": "python"},
           "metrics": {"passed": 1.0, "hidden_test_pass_rate": 1.0}}  # no syntax_ok
    (tmp_path / "results.jsonl").write_text(json.dumps(row) + "\n")
    with pytest.raises(ReportError, match=r"results line 1: metric 'syntax_ok' is missing"):
        records_from_results(load_run(tmp_path))
    # values that print like a number but are not one are refused too
    for value, shown in ((None, "is missing"), ("1.0", "is not a number"), (True, "is not a")):
        row["metrics"]["syntax_ok"] = value
        (tmp_path / "results.jsonl").write_text(json.dumps(row) + "\n")
        with pytest.raises(ReportError, match=f"metric 'syntax_ok' {shown}"):
            records_from_results(load_run(tmp_path))


def test_results_of_another_dataset_build_are_refused(tmp_path):
    from smolscript import data

    loaded = data.dataset_hash("default")
    other = "0" * 64
    task = data.load_tasks("default")[0]
    row = {"info": {"id": task["id"], "language": task["language"], "dataset_sha256": other},
           "metrics": {"passed": 0.0, "syntax_ok": 1.0, "hidden_test_pass_rate": 0.5}}
    (tmp_path / "results.jsonl").write_text(json.dumps(row) + "\n")
    with pytest.raises(ReportError) as caught:
        summarize_results(read_results(tmp_path))
    assert other[:16] in str(caught.value) and loaded[:16] in str(caught.value)
    row["info"]["dataset_sha256"] = loaded  # the same row about the loaded build is read
    (tmp_path / "results.jsonl").write_text(json.dumps(row) + "\n")
    summary = summarize_results(read_results(tmp_path))
    assert summary["tasks_scored"] == 1 and summary["tasks_missing"] == 349


def _vf_run(folder, env_args, tasks, passing=("python", "rust")):
    """A vf-eval -s run folder over `tasks` (one row each), recording `env_args`, read back
    through the core reader."""
    from smolscript import data

    sha = data.dataset_hash("default")
    rows = [{"info": {"id": t["id"], "language": t["language"], "difficulty": t["difficulty"],
                      "dataset_sha256": sha},
             "metrics": {"passed": float(t["language"] in passing), "syntax_ok": 1.0,
                         "hidden_test_pass_rate": 1.0 if t["language"] in passing else 0.25}}
            for t in tasks]
    folder.mkdir(parents=True, exist_ok=True)
    (folder / "results.jsonl").write_text("".join(json.dumps(r) + "\n" for r in rows))
    (folder / "metadata.json").write_text(json.dumps(
        {"env_id": "smolscript", "env_args": env_args, "model": "m", "num_examples": len(rows)}))
    return read_results(folder)


def _first_of_each_language():
    from smolscript import data

    first = {}
    for task in data.load_tasks("default"):
        first.setdefault(task["language"], task)
    return list(first.values())


def test_a_per_language_vf_eval_run_reports_its_filtered_macro_score(tmp_path):
    """`-a '{"per_language": 1}'` selects nine tasks: all nine scored is a complete filtered
    run, reported with filtered_macro_score (never the official score), as the evaluator's
    --language/--difficulty runs are."""
    from smolscript.report import headline

    summary = summarize_results(_vf_run(tmp_path / "a", {"per_language": 1},
                                           _first_of_each_language()))
    assert summary["status"] == "filtered" and summary["tasks_missing"] == 0
    assert summary["filtered_macro_score"] == pytest.approx(200 / 9)
    assert summary["smolscript_score"] is None
    assert headline(summary) == ("filtered_macro_score (not official)", pytest.approx(200 / 9))


def test_a_per_language_run_missing_a_selected_task_is_still_partial(tmp_path):
    summary = summarize_results(_vf_run(tmp_path / "a", {"per_language": 1},
                                           _first_of_each_language()[:-1]))
    assert summary["status"] == "partial: 1 task(s) missing, no score"
    assert summary["filtered_macro_score"] is None and summary["smolscript_score"] is None


def test_the_report_selects_what_load_environment_selected(tmp_path):
    """num_examples after per_language, and a single language given as a string, as
    `load_environment` reads them."""
    three = _first_of_each_language()[:3]
    summary = summarize_results(_vf_run(tmp_path / "a", {"per_language": 1, "num_examples": 3},
                                           three))
    assert summary["status"] == "filtered" and summary["tasks_scored"] == 3
    assert summary["languages"] == [t["language"] for t in three]
    from smolscript import data

    pythons = data.load_tasks("default", ["python"])
    summary = summarize_results(_vf_run(tmp_path / "b", {"languages": "python"}, pythons))
    assert summary["status"] == "filtered" and summary["filtered_macro_score"] == 100.0


def test_the_cli_refuses_another_environments_run_in_one_line(tmp_path, capsys):
    from smolscript import cli

    row = {"info": {"id": "x"}, "metrics": {"win_prob": 1.0}}
    (tmp_path / "results.jsonl").write_text(json.dumps(row) + "\n")
    (tmp_path / "metadata.json").write_text(json.dumps({"env_id": "smoltalkbench"}))
    assert cli.main(["report", str(tmp_path)]) == 2
    captured = capsys.readouterr()
    assert captured.err == (f"smolscript: {tmp_path} is a smoltalkbench run, not smolscript: "
                            f"report it with `smol-envs report {tmp_path}`\n")
    assert captured.out == ""


def test_the_default_chart_goes_inside_a_run_folder_never_beside_it(tmp_path):
    from smolscript.cli import default_chart_path

    run = tmp_path / "evals" / "smolscript--m" / "abc123"
    run.mkdir(parents=True)
    (run / "results.jsonl").write_text("")
    assert default_chart_path(run) == run / "smolscript_chart.png"
    assert default_chart_path(run / "results.jsonl") == run / "results_chart.png"


def test_the_headline_interval_is_a_bootstrap_within_languages(tmp_path):
    """A complete official run (every task of the default edition) as vf-eval rows: the
    headline is the macro score with a stratified bootstrap interval, micro_accuracy has
    Wilson's; both are computed on the rows and are the same on a second reading."""
    from smolscript import data

    sha = data.dataset_hash("default")
    tasks = data.load_tasks("default")
    rows = [{"info": {"id": t["id"], "language": t["language"], "dataset_sha256": sha},
             "metrics": {"passed": float(i % 3 == 0), "syntax_ok": 1.0,
                         "hidden_test_pass_rate": 0.5}} for i, t in enumerate(tasks)]
    (tmp_path / "results.jsonl").write_text("".join(json.dumps(r) + "\n" for r in rows))
    (tmp_path / "metadata.json").write_text(json.dumps({"env_id": "smolscript", "model": "m"}))
    [run] = report_results([read_results(tmp_path)], {"smolscript": lambda: hook_for("default")})
    head = dict(run.body.headline)
    score, micro = head["SmolScript Score"], head["micro_accuracy"]
    assert run.body.status == "official" and score.n == micro.n == len(tasks)
    assert score.method.startswith("stratified bootstrap over rows within languages")
    assert score.low < score.value < score.high and 0 < score.stderr < 10
    assert micro.method == "Wilson" and micro.value == pytest.approx(
        100 * sum(i % 3 == 0 for i in range(len(tasks))) / len(tasks))
    [again] = report_results([read_results(tmp_path)], {"smolscript": lambda: hook_for("default")})
    assert dict(again.body.headline)["SmolScript Score"] == score  # seeded: same interval
