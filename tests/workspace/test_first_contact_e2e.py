"""First contact: the README's first command and the design card's command, run as a new user
runs them against the real local server, and the loud failure of every environment when the
model endpoint is down (exit 1 and one line naming the component and its URL)."""

from __future__ import annotations

import json
import os
import re
import subprocess
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

import pytest

from tests.support.ports import free_port

pytestmark = pytest.mark.e2e
REPO = Path(__file__).resolve().parents[2]
ALIAS_URL = "http://127.0.0.1:8765/v1"  # configs/endpoints.toml: smollm2-135m
FAILURE_LINE = re.compile(
    r"^smol-envs: infrastructure failure: model endpoint http://127\.0\.0\.1:(\d+)/v1/\S+: .+$",
    re.M,
)


def _run(command: list[str] | str, timeout: float, **env: str) -> subprocess.CompletedProcess:
    return subprocess.run(
        command, cwd=REPO, capture_output=True, text=True, timeout=timeout,
        shell=isinstance(command, str), env={**os.environ, "CI": "1", **env},
    )  # fmt: skip


def _rows(root: Path) -> list[dict]:
    [results] = list(root.rglob("results.jsonl"))
    return [json.loads(line) for line in results.read_text().splitlines() if line.strip()]


@pytest.fixture
def alias_server(local_model_base_url: str) -> str:
    """The local server, at the URL the `smollm2-135m` alias names."""
    if local_model_base_url != ALIAS_URL:
        pytest.fail(f"the smollm2-135m alias names {ALIAS_URL}; the local server is at "
                    f"{local_model_base_url} (unset SMOL_ENVS_MODEL_PORT)")
    return local_model_base_url


def test_the_design_card_command_runs_as_written(alias_server, tmp_path):
    """`uv run vf-eval pico-dsl-v1 -m <endpoint> -a '{"slice":"repeat"}'` plus -n and -r to keep
    it short (and -s -o, which only say where the results go, so that they can be checked)."""
    command = ["uv", "run", "vf-eval", "pico-dsl-v1", "-m", "smollm2-135m",
               "-a", '{"slice":"repeat"}', "-n", "8", "-r", "1", "-s", "-o", str(tmp_path)]
    run = _run(command, timeout=590)
    assert run.returncode == 0, run.stderr[-3000:]
    rows = _rows(tmp_path)
    assert len(rows) == 8
    assert all(row["error"] is None for row in rows)
    assert {row["info"]["slice"] for row in rows} == {"repeat"}
    print(run.stdout[-1500:])


def test_the_quickstart_exits_zero_with_no_errored_rollout(alias_server, tmp_path):
    run = _run("bash scripts/quickstart.sh 6", timeout=590, SMOL_ENVS_OUTPUT_DIR=str(tmp_path))
    assert run.returncode == 0, run.stderr[-3000:]
    assert "reusing the local model server" in run.stdout  # the fixture's server: left running
    assert "rollouts: 6, errored: 0" in run.stdout
    assert re.search(r"^exact_match: avg - \d\.\d{3}", run.stdout, re.M), run.stdout[-2000:]
    rows = _rows(tmp_path)
    assert len(rows) == 6 and all(row["error"] is None for row in rows)


def test_the_quickstart_exits_non_zero_when_the_model_server_is_unreachable(tmp_path):
    port = free_port()
    run = _run("bash scripts/quickstart.sh 2", timeout=590, SMOL_ENVS_OUTPUT_DIR=str(tmp_path),
               SMOL_ENVS_BASE_URL=f"http://127.0.0.1:{port}/v1")
    assert run.returncode != 0
    [line] = FAILURE_LINE.findall(run.stderr)
    assert line == str(port)
    assert "Traceback" not in run.stderr  # one line, not a stack


def test_every_environment_stops_on_a_dead_model_endpoint():
    """smolscript (raw completions) and smoltalkbench (chat + judge) stop with exit 1 and the
    one line; pico is covered by the quickstart test above. The preflight connection fails each
    before the first rollout (no waiting out the client's retries)."""
    port = free_port()
    base = ["uv", "run", "vf-eval", "-b", f"http://127.0.0.1:{port}/v1", "-m", "x", "-n", "2",
            "-r", "1"]
    commands = {
        "smolscript": [*base[:3], "smolscript", *base[3:], "--api-client-type",
                       "openai_completions", "-a", '{"languages": ["python"]}'],
        "smoltalkbench": [*base[:3], "smoltalkbench", *base[3:], "-a", json.dumps(
            {"dataset": "fixture", "judge_base_url": f"http://127.0.0.1:{port}/v1",
             "judge_api_key_var": ""})],
    }
    with ThreadPoolExecutor(len(commands)) as pool:
        runs = dict(zip(commands, pool.map(lambda c: _run(c, timeout=590), commands.values()),
                        strict=True))
    for name, run in runs.items():
        assert run.returncode == 1, (name, run.stderr[-2000:])
        assert FAILURE_LINE.findall(run.stderr) == [str(port)], (name, run.stderr[-2000:])


@pytest.mark.parametrize("script", ["quickstart.sh", "bootstrap.sh"])
def test_the_scripts_answer_help_and_refuse_a_bad_argument_before_installing(script):
    shown = _run(f"bash scripts/{script} --help", timeout=60)
    assert shown.returncode == 0 and f"bash scripts/{script}" in shown.stdout
    refused = _run(f"bash scripts/{script} --hlep", timeout=60)
    assert refused.returncode == 2 and "--help" in refused.stderr
    assert "==" not in refused.stdout  # nothing installed, no server started
