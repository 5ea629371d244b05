"""The report's figures on literal results: rates, standard errors, exclusions, LC win rate."""

import json
import math

import pytest
from rich.console import Console
from smol_envs_core.report import ReportError, RunReport, read_results
from smol_envs_core.report.text import renderable
from smoltalkbench import cli, report

pytestmark = pytest.mark.unit


def sample(
    win,
    raw=None,
    failed=False,
    reply=100,
    ref=100,
    group="everyday",
    category="Travel",
    reason=None,
):
    return report.Sample(
        win_prob=win,
        raw_win_prob=win if raw is None else raw,
        length_penalized=False,
        reply_chars=reply,
        reference_chars=ref,
        judge_error=failed,
        group=group,
        category=category,
        reason=reason,
    )


def test_rate_mean_and_standard_error():
    r = report.rate("all", [sample(1.0), sample(0.0), sample(0.5), sample(0.5)])
    assert (r.judged, r.failed) == (4, 0)
    assert r.win_rate == pytest.approx(50.0)
    assert r.stderr == pytest.approx(100 * math.sqrt(0.5 / 3) / 2)


def test_judge_errors_are_excluded_and_counted():
    samples = [
        sample(0.8),
        sample(0.4),
        sample(0.0, failed=True, reason="judge reply has no logprobs"),
        sample(0.0, failed=True, reason="neither 'm' nor 'M' in top logprobs: 'The', 'I'"),
    ]
    rep = report.summarize(samples)
    assert (rep.overall.judged, rep.overall.failed, rep.total) == (2, 2, 4)
    assert rep.overall.win_rate == pytest.approx(60.0)
    assert rep.failure_reasons == [
        ("judge reply has no logprobs", 1),
        ("neither 'm' nor 'M' in top logprobs", 1),
    ]
    head = dict(report.headline(rep, samples))
    assert head["judged / total"] == "2 / 4" and head["judge errors (excluded)"] == "2"
    assert head["  failed: judge reply has no logprobs"] == "1"
    win = head["win rate x100 (length-penalized)"]
    assert (win.value, win.n, win.method) == (pytest.approx(60.0), 2, "t")


def test_all_failed_gives_no_rate_rather_than_zero():
    rep = report.summarize([sample(0.0, failed=True), sample(0.0, failed=True)])
    assert math.isnan(rep.overall.win_rate) and rep.overall.failed == 2
    assert math.isnan(rep.lc_win_rate)


def test_rates_by_group_and_category():
    rep = report.summarize(
        [
            sample(1.0, group="school", category="science"),
            sample(0.0, group="everyday", category="Travel"),
            sample(0.5, group="everyday", category="Cooking", failed=True),
        ]
    )
    assert [(r.name, r.judged, r.failed, r.win_rate) for r in rep.by_group] == [
        ("everyday", 1, 1, 0.0),
        ("school", 1, 0, 100.0),
    ]
    assert [r.name for r in rep.by_category] == ["Cooking", "Travel", "science"]


@pytest.mark.parametrize(
    "prefs, diffs, low, high, why",
    [
        (
            [0.3] * 8,
            [-200, -50, 0, 10, 40, 90, 300, 500],
            29.0,
            31.0,
            "length-independent: LC = mean",
        ),
        ([0.9, 0.9, 0.9, 0.1], [200, 200, 200, -200], 45.0, 55.0, "wins explained by length"),
        ([0.0] * 5, [10, 20, 30, 40, 50], 0.0, 5.0, "all losses: finite, near 0"),
        ([0.7], [0], 69.0, 71.0, "one sample"),
    ],
)
def test_length_controlled_win_rate(prefs, diffs, low, high, why):
    assert low <= report.length_controlled_win_rate(prefs, diffs) <= high, why


def write_results(path, rows):
    path.write_text("".join(json.dumps(r) + "\n" for r in rows))


def result_row(win, failed=0.0, nested=False, **extra):
    metrics = {
        "win_prob": win,
        "raw_win_prob": win,
        "length_penalized": 0.0,
        "reply_chars": 120.0,
        "judge_error": failed,
    }
    row = {"info": {"group": "school", "category": "math", "reference_chars": 100}, **extra}
    return {**row, "metrics": metrics} if nested else {**row, **metrics}


def test_cli_reads_results_and_writes_png_and_json(tmp_path, capsys, monkeypatch):
    monkeypatch.setenv("COLUMNS", "150")  # rich wraps long rows at 80 columns under capture
    write_results(
        tmp_path / "results.jsonl",
        [
            result_row(1.0),
            result_row(0.0, nested=True),
            result_row(
                0.0, failed=1.0, judge={"reason": "judge endpoint failed after 4 tries: boom"}
            ),
        ],
    )
    assert cli.main([str(tmp_path), "--json", str(tmp_path / "r.json")]) == 0
    out = capsys.readouterr().out
    assert "2 / 3" in out and "judge endpoint failed after 4 tries" in out
    assert (tmp_path / "smoltalkbench_report.png").read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"
    figures = json.loads((tmp_path / "r.json").read_text())
    assert figures["overall"]["win_rate"] == 50.0 and figures["total"] == 3


def test_label_bias_share_from_saved_judge_records(tmp_path):
    records = [
        {"reason": "judged", "p_m": 0.0, "p_M": 0.07},
        {"reason": "judged", "p_m": 0.3, "p_M": 0.1},
    ]
    write_results(tmp_path / "results.jsonl", [result_row(1.0, judge=r) for r in records])
    rep = report.summarize(report.samples_of(read_results(tmp_path / "results.jsonl")))
    assert rep.label_M_share == pytest.approx((1.0 + 0.25) / 2)
    assert math.isnan(report.summarize([sample(0.5)]).label_M_share)  # records not saved


def test_missing_metric_is_a_data_error(tmp_path):
    write_results(tmp_path / "results.jsonl", [{"reward": 1.0, "info": {}}])
    with pytest.raises(ReportError, match="line 1: metric 'judge_error' is missing"):
        report.samples_of(read_results(tmp_path / "results.jsonl"))


@pytest.mark.parametrize(
    ("model", "warned"),
    [("SmolLM2-135M-Instruct", True), ("HuggingFaceTB/SmolLM-360M-Instruct", True),
     ("smollm2-1.7b", True), ("Qwen2.5-0.5B-Instruct", False), (None, False)],
)
def test_contamination_warning_names_smollm_models(model, warned):
    assert (report.contamination_warning(model) is not None) == warned


def test_the_report_header_warns_for_a_smollm_run(tmp_path):
    write_results(tmp_path / "results.jsonl", [result_row(0.5)])
    texts = {}
    for model in ("SmolLM2-135M-Instruct", "Qwen2.5-0.5B"):
        (tmp_path / "metadata.json").write_text(json.dumps({"env_id": "smoltalkbench",
                                                            "model": model}))
        results = read_results(tmp_path)
        console = Console(record=True, width=200)
        console.print(renderable(RunReport(results.provenance, report.report_hook(results))))
        texts[model] = console.export_text()
    assert "smoltalkbench: SmolLM2-135M-Instruct" in texts["SmolLM2-135M-Instruct"]
    assert "inflated" in texts["SmolLM2-135M-Instruct"] and "inflated" not in texts["Qwen2.5-0.5B"]


def test_another_environments_run_is_one_line_and_exit_2(tmp_path, capsys):
    write_results(tmp_path / "results.jsonl", [result_row(1.0)])
    (tmp_path / "metadata.json").write_text(json.dumps({"env_id": "pico-dsl-v1"}))
    assert cli.main([str(tmp_path)]) == 2
    captured = capsys.readouterr()
    assert captured.err == (f"smoltalkbench-report: error: {tmp_path} is a pico-dsl-v1 run, not "
                            f"smoltalkbench: report it with `smol-envs report {tmp_path}`\n")
    assert captured.out == "" and not (tmp_path / "smoltalkbench_report.png").exists()
    (tmp_path / "metadata.json").unlink()
    write_results(tmp_path / "results.jsonl", [{"reward": 1.0, "info": {}}])  # no metadata
    assert cli.main([str(tmp_path)]) == 2
    assert "results line 1: metric 'judge_error' is missing" in capsys.readouterr().err
    with pytest.raises(ReportError):
        cli.main([str(tmp_path), "--debug"])


def test_lc_win_rate_is_withheld_where_the_fit_leaves_the_data():
    """Issue 44's case: preferences independent of length, every reply 300-700 characters
    longer than its reference (N=400). The fit read at a zero difference came out anywhere from
    0.0 to 27.8 over redraws; it is withheld with the reason instead."""
    import numpy as np

    rng = np.random.default_rng(3)
    diffs = rng.uniform(300, 700, 400).tolist()
    prefs = rng.beta(2, 2, 400).tolist()
    why = report.lc_withheld(diffs)
    assert why and why.startswith("withheld: 100% of replies are longer")
    samples = [sample(p, reply=int(500 + d), ref=500)
               for p, d in zip(prefs, diffs, strict=True)]
    rep = report.summarize(samples)
    assert math.isnan(rep.lc_win_rate) and rep.lc_withheld.startswith("withheld: 100% of")
    head = dict(report.headline(rep, samples))
    [lc] = [v for k, v in head.items() if k.startswith("length-controlled win rate")]
    assert lc == rep.lc_withheld
    # Differences that span zero: shown (the same figure as AlpacaEval's own minimal GLM on
    # such data, benchmarks/lc_winrate_vs_alpaca_eval.py).
    spanning = rng.normal(50, 300, 400).tolist()
    assert report.lc_withheld(spanning) is None
