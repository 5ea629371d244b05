"""`smolscript evaluate --model` on the real bundled model (SmolLM2-135M-Instruct Q4_1 GGUF,
llama.cpp in process) and the real scoring service.

The card's own subset, `--language python --difficulty easy` (26 tasks), is run as a
subprocess that is killed (SIGKILL) once its first generated batch is checkpointed, then
resumed: nothing saved is regenerated, the resumed run completes, and a resume with another
batch size or budget is refused. A context too small for the prompts fails those tasks as
`prompt_too_long`, without generating or truncating.
"""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest
from smol_envs_core.server.serve import model_path
from smolscript import data
from smolscript.backends import LlamaCppBackend
from smolscript.evaluate_model import evaluate_model
from smolscript.models import resolve_model
from smolscript_sandbox.client import SandboxClient
from smolscript_sandbox.testing import TEST_URL, ensure_service

pytestmark = pytest.mark.e2e
BIN = Path(sys.executable).parent
SUBSET = ["--language", "python", "--difficulty", "easy"]


@pytest.fixture(scope="module")
def service_url() -> str:
    ensure_service(TEST_URL)
    return TEST_URL


def evaluate_cmd(out: Path, url: str, *extra: str) -> list[str]:
    return [str(BIN / "smolscript"), "evaluate", "--model", str(model_path()), "--output",
            str(out), *SUBSET, "--service-url", url, "--threads", "1", *extra]


def read(path: Path) -> dict:
    return json.loads(path.read_text())


def kill_after_first_checkpoint(cmd: list[str], out: Path, timeout_s: float = 1500) -> dict:
    """Start `cmd`, SIGKILL it once `out` holds at least one generated batch but not all
    of them; returns the checkpoint as it was at the kill."""
    proc = subprocess.Popen(cmd, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True)
    deadline = time.monotonic() + timeout_s
    try:
        while time.monotonic() < deadline:
            if proc.poll() is not None:
                pytest.fail(f"the run ended before it was interrupted: {proc.stderr.read()}")
            if out.exists():
                made = [g for g in read(out).get("generations", {}).values()
                        if g["status"] == "generated"]
                if made:
                    proc.send_signal(signal.SIGKILL)
                    proc.wait(timeout=60)
                    return read(out)
            time.sleep(0.05)
        pytest.fail("no batch was checkpointed in time")
    finally:
        if proc.poll() is None:
            proc.kill()
            proc.wait()


def test_python_easy_is_generated_interrupted_resumed_and_reported(service_url, tmp_path):
    out = tmp_path / "r.json"
    started = time.monotonic()
    killed = kill_after_first_checkpoint(evaluate_cmd(out, service_url, "--batch-size", "8"),
                                         out)
    tasks = data.load_tasks("default", ["python"], ["easy"])
    saved = {k: g for k, g in killed["generations"].items() if g["status"] == "generated"}
    assert killed["status"] == "partial" and killed["summary"] is None
    assert 0 < len(saved) < len(tasks)  # killed mid-run, after a whole batch was saved
    assert {g["batch"] for g in saved.values()} >= {1}

    resumed = subprocess.run(evaluate_cmd(out, service_url, "--batch-size", "8", "--resume"),
                             capture_output=True, text=True, timeout=1800)
    wall = time.monotonic() - started
    assert resumed.returncode == 0, resumed.stderr[-3000:]
    doc = read(out)
    assert doc["status"] == "complete" and len(doc["results"]) == len(tasks)
    # Nothing saved before the kill was generated again; the resume made exactly the rest.
    for task_id, generation in saved.items():
        assert doc["generations"][task_id] == generation  # session 1, same text, same batch
    sessions = doc["generation"]["sessions"]
    assert [s["session"] for s in sessions] == [1, 2]
    assert sessions[1]["completions"] == len(tasks) - len(saved)
    assert {g["session"] for g in doc["generations"].values()} == {1, 2}
    # The identity of the model and the protocol, as the card asks.
    settings = doc["run"]["settings"]
    assert settings["mode"] == "model" and settings["batch_size"] == 8
    assert settings["model"]["sha256"] == resolve_model(str(model_path())).sha256
    assert settings["budgets"] == "smolscript-budgets-v1" and settings["max_new_tokens"] is None
    assert settings["template"] == "smolscript-completion-v1"
    assert settings["decoding"]["strategy"] == "greedy" and settings["decoding"]["seed"] == 0
    # Raw continuations and assembled code stored separately; statistics add up.
    totals = doc["generation"]["totals"]
    for task in tasks:
        record, generation = doc["results"][task["id"]], doc["generations"][task["id"]]
        assert record["raw_completion"] == generation["raw_completion"]
        assert generation["budget"] == 128 and generation["new_tokens"] <= 128
        assert generation["hit_limit"] == (generation["new_tokens"] == 128)
        if record["evaluated_code"] is not None:
            assert record["evaluated_code"].startswith(task["prefix"].splitlines()[0]) or \
                record["assembly"]["mode"] != "continuation"
    assert totals["completions"] == len(tasks) and totals["oom_retries"] == 0
    assert totals["hit_limit"] == sum(g["hit_limit"] for g in doc["generations"].values())
    assert totals["final_batch_size"] == 8 and totals["tokens_per_s"] > 0
    assert doc["summary"]["filtered_macro_score"] is not None
    # The report prints the generation statistics.
    assert "generation (in process)" in resumed.stdout
    assert "hit their token limit" in resumed.stdout and "tokens/s" in resumed.stdout
    print(f"\npython easy, interrupted and resumed: {wall:.1f} s in all, generation "
          f"{totals['wall_s']} s, {totals['tokens_per_s']} tokens/s, {totals['hit_limit']} of "
          f"{len(tasks)} hit their limit, load average {os.getloadavg()[0]:.1f}")

    for extra, differ in ((["--batch-size", "4"], "batch_size"),
                          (["--batch-size", "8", "--max-new-tokens", "32"], "budgets")):
        refused = subprocess.run(evaluate_cmd(out, service_url, *extra, "--resume"),
                                 capture_output=True, text=True, timeout=600)
        assert refused.returncode == 2 and differ in refused.stderr, refused.stderr
    assert read(out) == doc  # a refused resume writes nothing


def test_a_prompt_too_long_fails_without_generating(service_url, tmp_path):
    """The CSS moderate prompts (fixture and styles in a comment) take more than 300 tokens:
    with a 300-token context none is generated, none truncated, each fails as
    prompt_too_long, and the scoring service is never sent them."""
    ref = resolve_model(str(model_path()))
    backend = LlamaCppBackend(ref.path, context_length=300, threads=1)
    doc = evaluate_model(backend, ref, tmp_path / "r.json",
                         client_factory=lambda: SandboxClient(service_url),
                         languages=["css"], difficulties=["moderate"])
    tasks = data.load_tasks("default", ["css"], ["moderate"])
    assert doc["status"] == "complete" and len(doc["results"]) == len(tasks)
    for record in doc["results"].values():
        assert record["status"] == "prompt_too_long" and not record["passed"]
        assert record["tests"] == [] and record["generation"]["new_tokens"] == 0
    for generation in doc["generations"].values():
        assert generation["status"] == "prompt_too_long"
        assert generation["prompt_tokens"] + generation["budget"] > 300
        assert "never truncated" in generation["reason"]
    assert doc["generation"]["totals"]["prompt_too_long"] == len(tasks)
    assert doc["generation"]["totals"]["completions"] == 0
    assert doc["run"]["settings"]["backend"]["context_length"] == 300
