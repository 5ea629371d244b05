"""The RL contract, driven the way prime-rl drives an environment (see driver.py).

For each environment, without a model: a spawned v1 env server, EnvClient groups of 4 at
temperature 1.0 against a scripted loopback endpoint (gold replies for half the rollouts, junk
for the rest). Every trace must be ok, rewards must follow the script, advantages must not all
be zero, the endpoint must receive the temperature sent, train and eval must not share a task,
task data must survive JSON, a second asyncio.run must score again, and an endpoint failure must
leave the trace not ok (never a 0 reward). Runs on verifiers 0.3.1 (this venv) and 0.4.0 (the
cached second venv).
"""

from __future__ import annotations

import json
import subprocess

import pytest

from tests.contract_rl.driver import advantages, drive
from tests.contract_rl.specs import SPECS
from tests.support import venvs

# smolscript scores through the bwrap scoring service: marked integration.
ENVS = [
    "pico-dsl-v1",
    "smoltalkbench",
    pytest.param("smolscript", marks=pytest.mark.integration),
]


def check_contract(report: dict) -> None:
    """Every assertion of the contract over one driver report."""
    assert report["train_tasks"] > 0 and report["eval_tasks"] > 0
    assert report["key_overlap"] == 0, "train and eval share task keys"
    assert report["prompt_overlap"] == 0, "train and eval share prompts"
    assert report["round_trip"], "task data changed through JSON"
    assert len(report["runs"]) == 2, "the second asyncio.run did not score"
    for run in report["runs"]:
        for group in run:
            assert len(group) == 4
            for trace in group:
                assert trace["ok"], trace["errors"]
                assert trace["reward"] == pytest.approx(trace["expected"]), trace
            kinds = sorted(trace["kind"] for trace in group)
            assert kinds == ["gold", "gold", "junk", "junk"], kinds
            assert any(abs(a) > 0 for a in advantages([t["reward"] for t in group]))
    sent = report["sent"]
    assert report["policy_requests"], "the endpoint saw no request"
    for request in report["policy_requests"]:
        assert request["temperature"] == sent["temperature"]
        assert request["max_tokens"] == sent["max_tokens"]
        assert request["n"] in (None, 1)
    failure = report["infra_failure"]
    assert not failure["ok"] and failure["errors"], "an endpoint failure was scored"
    if "scoring_failure" in report:
        failure = report["scoring_failure"]
        assert not failure["ok"] and failure["errors"], "a scoring failure was scored"
        assert any("infrastructure failure" in e for e in failure["errors"]), failure


@pytest.fixture
def services(request, monkeypatch, env_id: str) -> None:
    """smolscript: a scoring service started (or reused) by this test process, at the URL the
    env server subprocesses are given, so that the suite stops it when the session ends."""
    if env_id != "smolscript":
        return
    from smolscript_sandbox.testing import TEST_URL, ensure_service

    ensure_service(TEST_URL)
    monkeypatch.setenv("SMOLSCRIPT_SANDBOX_URL", TEST_URL)


@pytest.mark.parametrize("env_id", ENVS)
def test_contract_on_verifiers_031(env_id: str, services: None) -> None:
    report = drive(SPECS[env_id]())
    assert report["verifiers"].startswith("0.3.")
    check_contract(report)


@pytest.mark.parametrize("env_id", ENVS)
def test_contract_on_verifiers_040(env_id: str, services: None) -> None:
    done = subprocess.run(
        [str(venvs.python()), "-m", "tests.contract_rl.driver", env_id],
        capture_output=True, text=True, cwd=venvs.REPO, env=venvs.environ(), timeout=600,
    )
    assert done.returncode == 0, done.stderr[-3000:]
    report = json.loads(done.stdout.strip().splitlines()[-1])
    assert report["verifiers"] == "0.4.0"
    check_contract(report)
