"""Result-file interop with the seed (PyPI slm-eval 0.0.1, its own venv): its `int_index` and
`eval_avg` read our exported runs and print our numbers; our composites read its results files;
both give the same composites on the same inputs (a missing component, chance level, half ARC).
"""

from __future__ import annotations

import json
import subprocess

import pytest
from smol_envs_core.report import read_results
from smol_slm_eval import composite
from smol_slm_eval.errors import ConfigError

from tests.smol_slm_eval.seed_peer import seed_python

pytestmark = pytest.mark.integration


def write_run(folder, task, pattern, category=None):
    """A vf-eval -s folder whose rows carry `pattern` (a list of metric dicts, in order)."""
    folder.mkdir(parents=True)
    with open(folder / "results.jsonl", "w") as out:
        for i, metrics in enumerate(pattern):
            info = {"benchmark": task, "id": f"{category or task}-{i}", "category": category}
            out.write(json.dumps({"info": info, "metrics": metrics, "reward": 0.0}) + "\n")
    return folder


def summary(folders, per_bfcl_category=False):
    """{task: {metric: (percent, rows)}} of vf-eval folders, through the core reader."""
    runs = [read_results(folder) for folder in folders]
    return composite.summarize(composite.pool(runs, per_bfcl_category=per_bfcl_category))


def mc_rows(n, acc, acc_norm):
    return [{"acc": float(i < acc), "acc_norm": float(i < acc_norm)} for i in range(n)]


def seed_composite(python, module, path):
    done = subprocess.run([str(python), "-m", f"slm_eval.{module}", "--results", str(path),
                           *(["--json"] if module == "int_index" else [])],
                          capture_output=True, text=True, timeout=300)
    return done.returncode, done.stdout, done.stderr


CASES = {
    "full": {"hellaswag": (40, 10, 12), "arc_easy": (40, 20, 22), "arc_challenge": (40, 9, 11),
             "arithmark_3_0": (40, 13, 13)},
    "missing ArithMark": {"hellaswag": (40, 10, 12), "arc_easy": (40, 20, 22),
                          "arc_challenge": (40, 9, 11)},
    "chance": {"hellaswag": (40, 10, 10), "arc_easy": (40, 10, 10),
               "arc_challenge": (40, 10, 10), "arithmark_3_0": (40, 10, 10)},
}


@pytest.mark.parametrize("case", sorted(CASES))
def test_the_seed_reads_our_runs_and_agrees(case, tmp_path, capsys):
    python = seed_python()
    folders = [write_run(tmp_path / t, t, mc_rows(*spec)) for t, spec in CASES[case].items()]
    folders.append(write_run(tmp_path / "bfcl", "bfcl_v4",
                             [{"valid_json": 1.0, "function_name_match": float(i % 2),
                               "ast_match": 0.0} for i in range(10)], "simple_python"))
    results = summary(folders, per_bfcl_category=True)
    exported = tmp_path / "ours.json"
    exported.write_text(json.dumps(composite.to_lm_eval_results(results)))
    ours_index = composite.int_index(composite.percents(results))
    ours_avg = composite.eval_avg(composite.percents(results))[0]
    code, out, err = seed_composite(python, "int_index", exported)
    assert code == 0, err
    seed_index = json.loads(out)
    code, avg_out, err = seed_composite(python, "eval_avg", exported)
    assert code == 0, err
    seed_avg = float(avg_out.split("EVAL AVERAGE:")[1].strip().rstrip("%"))
    with capsys.disabled():
        print(f"\n{case}: Int Index ours {ours_index.value:.4f} seed "
              f"{seed_index['int_index']:.4f}; eval_avg ours {ours_avg:.2f} seed {seed_avg:.2f}")
    assert ours_index.value == pytest.approx(seed_index["int_index"], abs=1e-9)
    assert ours_avg == pytest.approx(seed_avg, abs=0.0051)  # the seed prints 2 decimals
    # And back: our composites read the exported file as the seed writes it.
    again = composite.percents(composite.read_lm_eval_results(exported))
    assert composite.int_index(again).value == pytest.approx(ours_index.value, abs=1e-9)


def test_half_arc_is_refused_by_both(tmp_path):
    python = seed_python()
    folders = [write_run(tmp_path / t, t, mc_rows(*spec)) for t, spec in
               {"hellaswag": (20, 5, 6), "arc_easy": (20, 8, 9)}.items()]
    folders.append(write_run(tmp_path / "am", "arithmark_3_0", mc_rows(20, 5, 5)))
    results = summary(folders)
    exported = tmp_path / "ours.json"
    exported.write_text(json.dumps(composite.to_lm_eval_results(results)))
    with pytest.raises(ConfigError, match="half of a component"):
        composite.int_index(composite.percents(results))
    code, _, err = seed_composite(python, "int_index", exported)
    assert code == 3 and "arc_challenge" in err


def test_acc_fallback_agrees(tmp_path):
    python = seed_python()
    document = {"results": {"hellaswag": {"acc,none": 0.4}, "arc_easy": {"acc,none": 0.5},
                            "arc_challenge": {"acc,none": 0.3, "acc_stderr,none": 0.1},
                            "arithmark_3_0": {"acc,none": 0.3}}}
    path = tmp_path / "results_seed.json"
    path.write_text(json.dumps(document))
    code, out, err = seed_composite(python, "int_index", path)
    assert code == 0, err
    ours = composite.int_index(composite.percents(composite.read_lm_eval_results(path)))
    assert [u[1] for u in ours.used][:2] == ["acc", "acc"]
    assert ours.value == pytest.approx(json.loads(out)["int_index"], abs=1e-9)
