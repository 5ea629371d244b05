"""Rollouts are nested in examples (issue 44): a run written with three rollouts per example
gives the same N, estimate and interval in `smol-envs report`, `smol-envs compare`, the
environment's own report command and smol-slm-eval's composites, and that N is the number of
examples, not of rollouts. pass@k of a multi-rollout run against a hand computation."""

from __future__ import annotations

import json
import math
from pathlib import Path

import pytest
from smol_envs_core import cli
from smol_envs_core.report import by_example, read_results, report_runs
from smol_envs_core.report.compare import compare_runs
from smol_envs_core.report.statistics import mean_score, pass_at_k

from .report_runs import pico_run, smol_slm_eval_run

pytestmark = pytest.mark.unit

ROLLOUTS = 3


def _with_rollouts(folder: Path, passes: list[int]) -> Path:
    """Rewrite the run at `folder` with ROLLOUTS rollouts per example: example i passes in its
    first passes[i] rollouts (exact_match and reward 1), fails in the rest."""
    rows = [json.loads(line) for line in (folder / "results.jsonl").read_text().splitlines()]
    out = []
    for index, row in enumerate(rows):
        for rollout in range(ROLLOUTS):
            copy = json.loads(json.dumps(row))
            copy["example_id"] = index
            won = float(rollout < passes[index])
            copy["reward"] = won
            for metric in ("exact_match", "acc", "acc_norm"):
                if metric in copy["metrics"]:
                    copy["metrics"][metric] = won
            out.append(copy)
    (folder / "results.jsonl").write_text("".join(json.dumps(r) + "\n" for r in out))
    meta = json.loads((folder / "metadata.json").read_text())
    meta.update(num_examples=len(rows), rollouts_per_example=ROLLOUTS)
    (folder / "metadata.json").write_text(json.dumps(meta))
    return folder


PASSES = [3, 2, 1, 0, 0, 1, 3, 0]  # of ROLLOUTS, per example of pico_run's 8 rows


def _headline(report, name: str):
    return dict(report.body.headline)[name]


def test_report_compare_and_the_hook_agree_on_examples(tmp_path):
    run = _with_rollouts(pico_run(tmp_path / "a"), PASSES)
    per_example = [p / ROLLOUTS for p in PASSES]
    expected = mean_score(per_example)  # t interval over the 8 example means
    [report] = report_runs([run])
    shown = _headline(report, "exact_match x100")
    assert (shown.n, shown.value, shown.low, shown.high) == (
        8, expected.value, expected.low, expected.high)
    assert shown.n == len(PASSES) != len(PASSES) * ROLLOUTS
    assert any(n.startswith("N counts examples, not rollouts: 8 examples") for n in
               report.body.notes)
    standing = report.body.leaderboard[0].estimate
    assert (standing.n, standing.value, standing.low) == (shown.n, shown.value, shown.low)
    again = _with_rollouts(pico_run(tmp_path / "b"), PASSES)
    found = compare_runs(run, again)
    assert found.paired == 8 and found.headline.a == pytest.approx(shown.value)
    assert found.headline.same


def test_one_rollout_per_example_is_unchanged(tmp_path):
    run = pico_run(tmp_path / "a")
    results = read_results(run)
    assert by_example(results) is results
    [report] = report_runs([run])
    shown = _headline(report, "exact_match x100")
    assert shown.n == 8 and shown.method == "Wilson"
    assert not any("N counts examples" in n for n in report.body.notes)


def test_pass_at_k_table_against_a_hand_computation(tmp_path):
    run = _with_rollouts(pico_run(tmp_path / "a"), PASSES)
    [report] = report_runs([run])
    [table] = [t for t in report.body.tables if t.title.startswith("pass@k")]
    figures = {row[0]: row[1] for row in table.rows}
    assert set(figures) == {"pass@1", "pass@2"}  # k up to the 3 rollouts, from PASSES_KS
    # By hand, with n=3 samples: pass@1 = c/3; pass@2 = 1 - C(3-c, 2)/C(3, 2) = 1, 1, 2/3, 0.
    hand_1 = sum(c / 3 for c in PASSES) / len(PASSES)
    hand_2 = sum({3: 1.0, 2: 1.0, 1: 2 / 3, 0: 0.0}[c] for c in PASSES) / len(PASSES)
    assert figures["pass@1"].value == pytest.approx(100 * hand_1)
    assert figures["pass@2"].value == pytest.approx(100 * hand_2)
    assert figures["pass@2"].n == 8


def test_pass_at_k_estimator_values():
    # Chen et al. 2021: n=5 samples, c=1 correct -> pass@1 = 0.2, pass@2 = 1 - C(4,2)/C(5,2).
    assert pass_at_k(5, 1, 1) == pytest.approx(0.2)
    assert pass_at_k(5, 1, 2) == pytest.approx(1 - 6 / 10)
    assert pass_at_k(5, 2, 5) == 1.0 and pass_at_k(5, 0, 5) == 0.0
    assert pass_at_k(10, 3, 5) == pytest.approx(1 - math.comb(7, 5) / math.comb(10, 5))
    with pytest.raises(ValueError):
        pass_at_k(3, 1, 4)


def test_slm_eval_composites_count_examples(tmp_path, capsys):
    run = _with_rollouts(smol_slm_eval_run(tmp_path / "s"), [3, 3, 1, 0, 2, 0, 0, 0])
    [report] = report_runs([run])
    arc = _headline(report, "arc_easy acc_norm x100")
    assert arc.n == 4  # 4 ARC-Easy examples of 3 rollouts each
    assert arc.value == pytest.approx(100 * (1 + 1 + 1 / 3 + 0) / 4)
    assert cli.main(["report", str(run)]) == 0
    assert "N counts examples, not rollouts" in " ".join(capsys.readouterr().out.split())


def test_zero_spread_is_not_certainty():
    flat = mean_score([0.5] * 12)
    assert flat.value == 50.0 and flat.high - flat.low > 40  # Wilson bound at N=12
    assert flat.method == "t; no spread: Wilson bound"
    assert mean_score([0.5] * 400).high - mean_score([0.5] * 400).low < 10


def test_a_run_of_a_since_frozen_build_is_reported_under_its_edition(tmp_path):
    """A run scored on the default edition before dataset 0.5.0 carries 0.4.0's hash: it is
    that frozen edition's run, reported and ranked as such, never pooled with 0.5.0."""
    from smolscript import data
    from smolscript.report import report_hook

    from .report_runs import smolscript_run, write_run

    old = data.dataset_hash("default-0.4.0")
    assert data.edition_with_hash(old) == "default-0.4.0" != data.edition_with_hash("0" * 64)
    folder = smolscript_run(tmp_path / "s")
    rows = [json.loads(line) for line in (folder / "results.jsonl").read_text().splitlines()]
    for row in rows:
        row["info"]["dataset_sha256"] = old
    write_run(folder, "smolscript", rows, {"per_language": 1})
    body = report_hook(read_results(folder))
    assert body.dataset_version.startswith("edition default-0.4.0")
    assert body.leaderboard[0].column == "smolscript Score (default-0.4.0)"


def test_smolscript_pass_at_k_per_language_and_macro_by_hand(tmp_path):
    """Five samples per task (one task per language): pass@1, 2 and 5 per language and their
    macro mean against the estimator computed by hand, N = tasks."""
    from .report_runs import smolscript_run, write_run

    folder = smolscript_run(tmp_path / "s")
    rows = [json.loads(line) for line in (folder / "results.jsonl").read_text().splitlines()]
    samples = []
    for index, row in enumerate(rows):
        passes = index % 6  # 0 to 5 of the 5 samples pass
        for sample in range(5):
            copy = json.loads(json.dumps(row))
            copy["example_id"] = index
            copy["metrics"]["passed"] = float(sample < passes)
            copy["reward"] = copy["metrics"]["passed"]
            samples.append(copy)
    write_run(folder, "smolscript", samples, {"per_language": 1})
    [report] = report_runs([folder])
    [table] = [t for t in report.body.tables if t.title.startswith("pass@k x100 by language")]
    assert table.columns == ("language", "pass@1", "pass@2", "pass@5")
    hand = {k: [100 * (1 - math.comb(5 - i % 6, k) / math.comb(5, k))
                for i in range(len(rows))] for k in (1, 2, 5)}
    for position, row in enumerate(table.rows[:-1]):
        for column, k in enumerate((1, 2, 5), start=1):
            assert row[column].value == pytest.approx(hand[k][position])
            assert row[column].n == 1  # one task of this language
    macro = table.rows[-1]
    assert macro[0] == "macro (mean of languages)"
    for column, k in enumerate((1, 2, 5), start=1):
        assert float(macro[column]) == pytest.approx(sum(hand[k]) / len(hand[k]), abs=0.05)


def test_a_reward_only_smolscript_run_is_refused_by_name(tmp_path, capsys):
    from .report_runs import smolscript_run, write_run

    folder = smolscript_run(tmp_path / "s")
    rows = [json.loads(line) for line in (folder / "results.jsonl").read_text().splitlines()]
    for row in rows:
        del row["metrics"]["hidden_test_pass_rate"]  # reward-only rows never carry it
    write_run(folder, "smolscript", rows, {"per_language": 1, "reward_only": True})
    assert cli.main(["report", str(folder)]) == 2
    err = capsys.readouterr().err
    assert "a reward-only run (reward_only=true" in err and "rerun without reward_only" in err
