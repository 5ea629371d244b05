"""The Int Index and eval_avg: published figures, refusals, metric choice, results reading."""

import json
import re

import pytest
from smol_envs_core.report import read_results
from smol_slm_eval import composite
from smol_slm_eval.cli import main
from smol_slm_eval.errors import ConfigError, DataError

pytestmark = pytest.mark.unit

# SmolLM2-135M's published component scores (Open SLM Leaderboard inputs).
PUBLISHED = {"hellaswag": {"acc_norm": 43.22}, "arc_easy": {"acc_norm": 58.63},
             "arc_challenge": {"acc_norm": 29.69}, "piqa": {"acc": 68.44},
             "arithmark_3_0": {"acc": 39.20}}


def test_published_figures_with_piqa():
    result = composite.int_index(PUBLISHED)
    assert round(result.value, 2) == 27.13
    assert result.denominator == pytest.approx(3.65)
    assert [u[0] for u in result.used] == ["HellaSwag", "ARC", "PIQA", "ArithMark-3"]


def test_published_figures_without_piqa():
    scores = {k: v for k, v in PUBLISHED.items() if k != "piqa"}
    result = composite.int_index(scores)
    assert round(result.value, 2) == 23.45
    assert result.denominator == pytest.approx(2.65)
    assert result.missing == ["PIQA"]


def test_normalisation_maps_chance_to_zero_and_perfect_to_100():
    assert composite.normalise_score(25.0, 25.0) == 0.0
    assert composite.normalise_score(100.0, 50.0) == 100.0


@pytest.mark.parametrize("scores, message", [
    ({"hellaswag": {"acc_norm": 40}, "arc_easy": {"acc_norm": 50}}, "half of a component"),
    ({"hellaswag": {"acc": 40}, "arc_easy": {"acc_norm": 50}, "arc_challenge": {"acc": 40}},
     "mixed metrics"),
    ({"hellaswag": {"exact_match": 40}, "arithmark_3_0": {"acc": 30}}, "mixed metrics"),
    ({"hellaswag": {"acc_norm": 40}}, "at least two"),
])
def test_refusals(scores, message):
    """Half a component, tasks of one component on different metrics, too few components."""
    with pytest.raises(ConfigError, match=message):
        composite.int_index(scores)


@pytest.mark.parametrize("metrics, chosen, why", [
    ({"acc": 1, "acc_norm": 2}, "acc_norm", "acc_norm first"),
    ({"valid_json": 1, "function_name_match": 2, "ast_match": 3}, "function_name_match",
     "preference order"),
    ({"zeta": 1, "beta": 2, "unparseable": 3}, "beta", "alphabetical fallback"),
    ({"unparseable": 1, "empty_response": 0}, None, "diagnostics never chosen"),
])
def test_choose_metric(metrics, chosen, why):
    assert composite.choose_metric(metrics) == chosen, why


def test_eval_avg_skips_unusable_benchmarks():
    average, table, skipped = composite.eval_avg(
        {"math_500": {"exact_match": 10.0, "unparseable": 50.0}, "hellaswag": {"acc_norm": 40.0},
         "odd": {"unparseable": 5.0}})
    assert average == 25.0
    assert table == [("hellaswag", "acc_norm", 40.0), ("math_500", "exact_match", 10.0)]
    assert skipped == ["odd"]


def _write_run(folder, task, rows):
    folder.mkdir(parents=True)
    with open(folder / "results.jsonl", "w") as out:
        for i, metrics in enumerate(rows):
            out.write(json.dumps({"info": {"benchmark": task, "id": f"{task}-{i}"},
                                  "metrics": metrics, "reward": 0.0}) + "\n")


def test_read_results_pools_and_ignores_other_kinds_columns(tmp_path):
    # An EnvGroup run fills other tasks' columns with zeros: only the task's own metrics count.
    _write_run(tmp_path / "a", "hellaswag", [{"acc": 1.0, "acc_norm": 0.0, "exact_match": 0.0},
                                             {"acc": 1.0, "acc_norm": 1.0, "exact_match": 0.0}])
    results = composite.summarize(composite.pool([read_results(tmp_path / "a")]))
    assert results == {"hellaswag": {"acc": (100.0, 2), "acc_norm": (50.0, 2)}}


def test_read_results_refuses_a_row_seen_twice(tmp_path):
    _write_run(tmp_path / "a", "arc_easy", [{"acc": 1.0, "acc_norm": 1.0}])
    _write_run(tmp_path / "b", "arc_easy", [{"acc": 1.0, "acc_norm": 1.0}])
    with pytest.raises(DataError, match="two runs of arc_easy were given; pass one run per task"):
        composite.pool([read_results(tmp_path / "a"), read_results(tmp_path / "b")])


def test_cli_int_index_names_components_and_denominator(tmp_path, capsys):
    _write_run(tmp_path / "h", "hellaswag", [{"acc": 1.0, "acc_norm": 1.0}] * 3 + [
        {"acc": 0.0, "acc_norm": 0.0}])
    _write_run(tmp_path / "e", "arc_easy", [{"acc": 1.0, "acc_norm": 1.0}])
    _write_run(tmp_path / "c", "arc_challenge", [{"acc": 0.0, "acc_norm": 0.0}])
    assert main(["int-index", str(tmp_path / "h"), str(tmp_path / "e"), str(tmp_path / "c")]) == 0
    out = capsys.readouterr().out
    # HellaSwag 75 -> N 66.67; ARC 50 -> N 33.33; mean over denominator 2.
    assert "Int Index = 50.00" in out and "denominator 2" in out and "HellaSwag, ARC" in out
    assert main(["int-index", str(tmp_path / "e"), str(tmp_path / "c")]) == 2  # a refusal


def test_cli_tasks_lists_every_task(capsys):
    assert main(["tasks"]) == 0
    out = capsys.readouterr().out
    for name in ("hellaswag", "arc_easy", "arc_challenge", "arithmark_3_0", "arithmark_2",
                 "math_500", "gpqa_diamond", "bfcl_v4", "int_index", "slm"):
        assert f"\n{name} " in out
    assert "Hub or data_path only" in out  # ArithMark: on no registry reachable here


def test_cli_int_index_shows_its_bootstrap_interval_and_refuses_mixed_versions(tmp_path, capsys,
                                                                               monkeypatch):
    monkeypatch.setenv("COLUMNS", "200")  # rich wraps at 80 columns under capture
    _write_run(tmp_path / "h", "hellaswag", [{"acc": float(i % 2), "acc_norm": float(i % 2)}
                                             for i in range(20)])
    _write_run(tmp_path / "e", "arc_easy", [{"acc": 1.0, "acc_norm": float(i < 15)}
                                            for i in range(20)])
    _write_run(tmp_path / "c", "arc_challenge", [{"acc": 0.0, "acc_norm": float(i < 5)}
                                                 for i in range(20)])
    folders = [str(tmp_path / name) for name in "hec"]
    assert main(["int-index", *folders]) == 0
    out = capsys.readouterr().out
    # HellaSwag 50 -> N 33.33; ARC (75 + 25) / 2 = 50 -> N 33.33
    assert re.search(r"Int Index = 33\.33 ± \d+\.\d\d \(95% CI \[\d+\.\d\d, \d+\.\d\d\], "
                     r"stratified bootstrap over rows within tasks, 2000 resamples, seed 0, "
                     r"N=60\)", out), out
    (tmp_path / "c" / "metadata.json").write_text(json.dumps({"env_id": "slm-eval",  # former id
                                                              "behaviour_version": "2"}))
    assert main(["int-index", *folders]) == 2
    err = capsys.readouterr().err
    assert err.startswith("smol-slm-eval: error: refusing to compare or pool smol-slm-eval runs of "
                          "different behaviour versions (2 in ") and err.count("\n") == 1
    assert main(["int-index", *folders, "--allow-mixed-versions"]) == 0
    assert main(["report", *folders]) == 2  # the one renderer refuses them the same way
    capsys.readouterr()
    assert main(["report", *folders, "--allow-mixed-versions"]) == 0
    out = " ".join(capsys.readouterr().out.split())
    assert "behaviour version 2" in out and "behaviour version unversioned" in out


def test_acc_stands_in_for_a_missing_acc_norm_as_the_seed_does():
    """The seed's fallback: HellaSwag and ARC use acc when acc_norm is missing on all their
    tasks; ArithMark (acc) has none."""
    result = composite.int_index({"hellaswag": {"acc": 40.0}, "arithmark_3_0": {"acc": 25.0}})
    assert [(u[0], u[1]) for u in result.used] == [("HellaSwag", "acc"), ("ArithMark-3", "acc")]
    assert result.value == pytest.approx((composite.normalise_score(40.0, 25.0)) / 1.65)
    mixed = composite.int_index({"hellaswag": {"acc_norm": 30.0, "acc": 40.0},
                                 "arc_easy": {"acc": 50.0}, "arc_challenge": {"acc": 40.0}})
    assert [u[1] for u in mixed.used] == ["acc_norm", "acc"]


def test_export_never_writes_a_subset_as_the_whole_benchmark(tmp_path):
    _write_run(tmp_path / "e", "arc_easy", [{"acc": 1.0, "acc_norm": 1.0}] * 10)
    out = tmp_path / "lm_eval.json"
    assert main(["export-lm-eval", str(tmp_path / "e"), "-o", str(out)]) == 0
    counts = json.loads(out.read_text())["n-samples"]["arc_easy"]
    assert counts == {"original": 2376, "effective": 10}  # 10 rows of ARC-Easy's 2376


def test_every_diagnostic_and_headline_names_a_metric_some_task_kind_scores():
    """The task table names only metrics a task kind declares (a diagnostic no metric has
    would never be excluded from anything)."""
    from smol_slm_eval.tasks import DIAGNOSTICS, KIND_METRICS, TASKS

    scored = {name for names in KIND_METRICS.values() for name in names}
    assert DIAGNOSTICS <= scored
    assert all(spec.metric in KIND_METRICS[spec.kind] for spec in TASKS.values())
