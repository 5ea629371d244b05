"""smol-slm-eval in the RL contract: it is evaluation-only, so every way a trainer asks it for
training data is refused with one clear error (never benchmark rows handed over as a train set).

- v1 (prime-rl, verifiers 0.4): `vf.load_taskset` of `smol-slm-eval`, any split, on verifiers 0.3.1
  and 0.4.0, raises EvaluationOnlyError.
- classic (verifiers 0.3.1): `get_dataset()` (the train split) raises EvaluationOnlyError while
  `get_eval_dataset()` holds the rows.
"""

from __future__ import annotations

import json
import subprocess

import pytest

from tests.contract_rl.driver import load_tasks
from tests.support import venvs

MESSAGE = "smol-slm-eval is evaluation-only: it has no train split and no v1 taskset for RL"
# Run in the verifiers 0.4.0 venv: the same load a trainer does, the error's type and text.
PROBE_040 = """
import json, verifiers
from tests.contract_rl.driver import load_tasks
try:
    load_tasks("smol-slm-eval", {"split": "train"})
    print(json.dumps({"verifiers": verifiers.__version__, "error": None}))
except Exception as exc:
    print(json.dumps({"verifiers": verifiers.__version__, "error": type(exc).__name__,
                      "message": str(exc)}))
"""


@pytest.mark.unit
@pytest.mark.parametrize("options", [{"split": "train"}, {"split": "eval"}, {}])
def test_v1_taskset_is_refused_on_verifiers_031(options: dict) -> None:
    from smol_slm_eval.errors import EvaluationOnlyError

    with pytest.raises(EvaluationOnlyError, match=MESSAGE):
        load_tasks("smol-slm-eval", options)


@pytest.mark.integration
def test_v1_taskset_is_refused_on_verifiers_040() -> None:
    done = subprocess.run(
        [str(venvs.python()), "-c", PROBE_040],
        capture_output=True, text=True, cwd=venvs.REPO, env=venvs.environ(), timeout=600,
    )
    assert done.returncode == 0, done.stderr[-3000:]
    report = json.loads(done.stdout.strip().splitlines()[-1])
    assert report["verifiers"] == "0.4.0"
    assert report["error"] == "EvaluationOnlyError" and report["message"].startswith(MESSAGE)


@pytest.mark.unit
def test_classic_train_split_is_refused(tmp_path) -> None:
    from smol_slm_eval import load_environment
    from smol_slm_eval.errors import EvaluationOnlyError

    row = {"problem": "1+1?", "solution": "It is $\\boxed{2}$.", "unique_id": "t/1.json"}
    path = tmp_path / "math.jsonl"
    path.write_text(json.dumps(row) + "\n")
    env = load_environment(task="math_500", data_path=str(path))
    assert env.get_eval_dataset()["answer"] == ["2"]
    with pytest.raises(EvaluationOnlyError, match="it has no train split"):
        env.get_dataset()
