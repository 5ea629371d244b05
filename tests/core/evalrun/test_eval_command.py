"""`smol-envs eval MODEL` (issue 41): the suites' one declaration, MODEL resolution and its
refusals, and end-to-end runs of the real command against the real local model server (started
and stopped by the command itself), read back by the real report."""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import time
from pathlib import Path

import psutil
import pytest
from smol_envs_core.adapters import endpoint_guard
from smol_envs_core.evalrun import model as model_mod
from smol_envs_core.evalrun import run as run_mod
from smol_envs_core.evalrun import suites, sweep
from smol_envs_core.server import models

REPO = Path(__file__).resolve().parents[3]


def _eval(*args: str, timeout: int = 900) -> subprocess.CompletedProcess:
    environ = {k: v for k, v in os.environ.items() if k != "SMOL_ENVS_DEBUG"}
    return subprocess.run([sys.executable, "-m", "smol_envs_core.cli", "eval", *args], cwd=REPO,
                          capture_output=True, text=True, timeout=timeout,
                          env={**environ, "CI": "1"})


def _servers_of(run_set: Path) -> list[int]:
    """Pids of live model servers whose command line names a port recorded in the run set."""
    record = json.loads((run_set / "manifest.json").read_text())
    port = record["model"]["served_at"].rsplit(":", 1)[1].split("/")[0]
    live = []
    for proc in psutil.process_iter(["cmdline"]):
        cmd = proc.info["cmdline"] or []
        if "smol_envs_core.server.serve" in cmd and "--port" in cmd and port in cmd:
            live.append(proc.pid)
    return live


@pytest.mark.unit
def test_every_run_of_every_suite_is_declared_once_with_its_api():
    names = [r.name for r in suites.RUNS]
    assert len(names) == len(set(names))
    assert {r.api for r in suites.RUNS} == {suites.CHAT, suites.COMPLETIONS}
    by_name = {r.name: r for r in suites.RUNS}
    assert by_name["pico-dsl-v1"].api == suites.CHAT
    assert by_name["smoltalkbench"].api == suites.CHAT and by_name["smoltalkbench"].judge
    assert by_name["smolscript"].api == suites.COMPLETIONS
    assert all(r.api == suites.COMPLETIONS for r in suites.RUNS if r.env_id == "smol-slm-eval")
    for run in suites.RUNS:
        assert run.rows_for("full") == suites.ALL_ROWS
        assert run.rows_for("quick") != suites.ALL_ROWS or run.quick_args
        assert run.rows_for("quick", limit=2) in (2, min(2, run.rows_for("quick")))
    assert suites.table().count("\n") == len(suites.RUNS) + 1


@pytest.mark.unit
def test_a_bad_suite_or_run_name_is_refused_naming_the_valid_ones():
    with pytest.raises(ValueError, match="choose one of quick, full"):
        suites.runs("fast")
    with pytest.raises(ValueError, match="valid: pico-dsl-v1"):
        suites.runs("quick", ["pico"])
    assert [r.name for r in suites.runs("quick", ["smol-slm-eval"])][:2] == [
        "smol-slm-eval-hellaswag", "smol-slm-eval-arc_easy"]


@pytest.mark.unit
def test_the_endpoints_file_names_both_aliases_and_the_served_id(tmp_path):
    path = tmp_path / "endpoints.toml"
    path.write_text(run_mod.endpoints_text("http://127.0.0.1:9/v1", "My \"Model\"", None))
    assert endpoint_guard.aliases(path) == [run_mod.CHAT_ALIAS, run_mod.COMPLETIONS_ALIAS]
    import tomllib

    entries = tomllib.loads(path.read_text())["endpoint"]
    assert {e["model"] for e in entries} == {'My "Model"'}
    assert [e.get("type") for e in entries] == [None, "openai_completions"]


@pytest.mark.unit
def test_vf_eval_gets_the_api_the_environment_needs(tmp_path):
    by_name = {r.name: r for r in suites.RUNS}
    argv = run_mod.vf_eval_argv(by_name["smol-slm-eval-arc_easy"], "quick", None,
                                tmp_path / "e.toml", {"task": "arc_easy"}, tmp_path)
    assert argv[argv.index("-m") + 1] == run_mod.COMPLETIONS_ALIAS
    assert argv[argv.index("-n") + 1] == "10"
    argv = run_mod.vf_eval_argv(by_name["pico-dsl-v1"], "full", 3, tmp_path / "e.toml", {},
                                tmp_path)
    assert argv[argv.index("-m") + 1] == run_mod.CHAT_ALIAS
    assert argv[argv.index("-n") + 1] == "3"
    assert "--disable-env-server" in argv and "-s" in argv


@pytest.mark.unit
@pytest.mark.parametrize(("given", "hint"), [
    ("smollm2-135", "did you mean smollm2-135m?"),
    ("gemma-3-270", "did you mean gemma-3-270m?"),
    ("gpt-4.1-mini", "aliases: smollm2-135m, gemma-3-270m"),
])
def test_a_model_that_names_nothing_is_an_error_naming_the_closest_alias(given, hint):
    with pytest.raises(model_mod.ModelError, match="is not a registered alias") as caught:
        model_mod.resolve(given)
    assert hint in str(caught.value)


@pytest.mark.unit
def test_an_endpoint_needs_its_model_id():
    with pytest.raises(model_mod.ModelError, match="needs --model-id"):
        model_mod.resolve("http://127.0.0.1:9/v1")
    spec = model_mod.resolve("http://127.0.0.1:9/v1/", "m", "KEY")
    assert (spec.kind, spec.base_url, spec.served_name, spec.key_var) == (
        model_mod.ENDPOINT, "http://127.0.0.1:9/v1", "m", "KEY")


@pytest.mark.unit
def test_a_gguf_file_is_identified_by_its_sha256():
    path = Path(models.SMOLLM2.locate())
    spec = model_mod.resolve(str(path))
    assert spec.kind == model_mod.GGUF and spec.served_name == path.stem
    assert spec.sha256 == model_mod.resolve("smollm2-135m").sha256


@pytest.mark.unit
def test_a_linked_checkpoint_folder_keeps_the_name_it_is_given(tmp_path):
    """A sweep folder of links (step-3 -> a folder named otherwise) labels the checkpoint
    step-3, as a linked GGUF file keeps its link's name (before: the target's name, so the
    sweep's chart and run set named a checkpoint the user never wrote)."""
    folder = tmp_path / "exported-model"
    folder.mkdir()
    (folder / "config.json").write_text("{}")
    (folder / "model.safetensors").write_bytes(b"x")
    (tmp_path / "step-3").symlink_to(folder)
    gguf = Path(models.SMOLLM2.locate())
    spec = model_mod.resolve(str(tmp_path / "step-3"), convert_folder=lambda path: gguf)
    assert spec.kind == model_mod.HF_FOLDER and spec.served_name == "step-3"
    assert model_mod.resolve(str(folder) + "/", convert_folder=lambda path: gguf
                             ).served_name == "exported-model"


@pytest.mark.unit
def test_checkpoints_sort_in_training_order(tmp_path):
    for name in ("step-1000.gguf", "step-200.gguf", "notes.txt", "step-30.gguf"):
        (tmp_path / name).write_bytes(b"x")
    assert [p.name for p in sweep.checkpoints(tmp_path)] == [
        "step-30.gguf", "step-200.gguf", "step-1000.gguf"]


@pytest.mark.unit
def test_progress_names_rows_elapsed_and_an_estimate():
    line = run_mod.progress_line(2, 9, "smolscript", 10, 40, 120.0, "9 rows in 60 s")
    assert line == ("smol-envs eval: [2/9] smolscript: 9 rows in 60 s (10 of about 40 rows "
                    "done, 2.0 min elapsed, about 6.0 min left)")


@pytest.mark.integration
def test_eval_refuses_a_misspelled_alias_in_one_line(tmp_path):
    done = _eval("smollm2-135", "--output", str(tmp_path / "out"), timeout=120)
    assert done.returncode == 2, done.stderr[-2000:]
    lines = [line for line in done.stderr.splitlines() if line.strip()]
    assert len(lines) == 1 and "did you mean smollm2-135m?" in lines[0], lines
    assert not (tmp_path / "out").exists()


@pytest.mark.e2e
def test_eval_refuses_an_endpoint_that_serves_another_model(local_model_base_url, tmp_path):
    done = _eval(local_model_base_url, "--model-id", "some-other-name", "--env",
                 "smol-slm-eval-arc_easy", "--limit", "1", "--output", str(tmp_path / "o"))
    assert done.returncode == 1, done.stderr[-3000:]
    last = [line for line in done.stderr.splitlines() if line.strip()][-1]
    assert last.startswith(f"smol-envs: infrastructure failure: model endpoint "
                           f"{local_model_base_url}: it serves 'SmolLM2-135M-Instruct', not the "
                           "requested model 'some-other-name'"), last
    assert "Traceback" not in done.stderr


@pytest.mark.e2e
def test_eval_of_the_alias_saves_a_run_set_the_report_reads_and_stops_its_server(tmp_path):
    out = tmp_path / "runs"
    done = _eval("smollm2-135m", "--env", "smol-slm-eval-arc_easy", "--env", "pico-dsl-v1",
                 "--limit", "2", "--output", str(out))
    assert done.returncode == 0, done.stderr[-3000:]
    record = json.loads((out / "manifest.json").read_text())
    assert record["model"]["sha256"] == model_mod.resolve("smollm2-135m").sha256
    assert record["engine"]["name"] == "llama-cpp-python" and record["ended"]
    assert "AVX2" in record["engine"]["cpu_features"]
    assert set(record["runs"]) == {"pico-dsl-v1", "smol-slm-eval-arc_easy"}
    assert all(r["rows"] == 2 and r["behaviour_version"] for r in record["runs"].values())
    assert "smol-slm-eval arc_easy acc_norm" in done.stdout and "first 2 of 2376" in done.stdout
    assert _servers_of(out) == []
    from smol_envs_core.report import report_runs

    reports = report_runs([out])
    assert {r.header.model for r in reports} == {"SmolLM2-135M-Instruct"}
    # --resume keeps both complete runs and runs nothing.
    again = _eval("smollm2-135m", "--env", "smol-slm-eval-arc_easy", "--env", "pico-dsl-v1",
                  "--limit", "2", "--output", str(out), "--resume")
    assert again.returncode == 0, again.stderr[-3000:]
    assert "2 complete run(s) kept" in again.stderr
    assert "[1/" not in again.stderr


@pytest.mark.e2e
def test_ctrl_c_saves_what_is_done_names_the_resume_command_and_stops_the_server(tmp_path):
    out = tmp_path / "runs"
    environ = {k: v for k, v in os.environ.items() if k != "SMOL_ENVS_DEBUG"}
    proc = subprocess.Popen(
        [sys.executable, "-m", "smol_envs_core.cli", "eval", "smollm2-135m", "--env",
         "smol-slm-eval-arc_easy", "--env", "pico-dsl-v1", "--limit", "2", "--output", str(out)],
        cwd=REPO, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
        env={**environ, "CI": "1"})
    deadline = time.monotonic() + 600
    while time.monotonic() < deadline and not (out / "pico-dsl-v1").is_dir():
        time.sleep(0.2)
    assert (out / "pico-dsl-v1").is_dir(), "the first run (the suite's order) never finished"
    proc.send_signal(signal.SIGINT)
    _, err = proc.communicate(timeout=120)
    assert proc.returncode == 130, err[-3000:]
    assert "Traceback" not in err, err[-3000:]
    last = [line for line in err.splitlines() if line.strip()][-1]
    assert last.startswith("smol-envs eval: interrupted; saved 1 of 2 runs in "), last
    assert last.endswith("--resume") and "resume: smol-envs eval smollm2-135m" in last
    assert _servers_of(out) == []


@pytest.mark.unit
def test_the_readme_shows_the_suites_as_declared():
    text = (REPO / "README.md").read_text()
    block = text.split("<!-- suites:start -->\n", 1)[1].split("\n<!-- suites:end -->", 1)[0]
    assert block == suites.table()
    assert text.index("smol-envs eval") < text.index("## Leaderboard")


@pytest.mark.e2e
def test_a_sweep_charts_each_headline_and_compares_consecutive_checkpoints(tmp_path):
    """Three checkpoints (here the same GGUF under three step names: the same weights must
    agree on every row), one run each, then the curve and the paired comparisons."""
    ckpts = tmp_path / "ckpts"
    ckpts.mkdir()
    for step in (100, 20, 3):
        (ckpts / f"step-{step}.gguf").symlink_to(models.SMOLLM2.locate())
    out = tmp_path / "sweep-runs"
    done = _eval("--sweep", str(ckpts), "--env", "smol-slm-eval-arc_easy", "--limit", "3",
                 "--output", str(out))
    assert done.returncode == 0, done.stderr[-3000:]
    assert sorted(p.name for p in out.iterdir()) == ["step-100", "step-20", "step-3", "sweep"]
    chart = out / "sweep" / "smol-slm-eval-arc-easy-acc-norm.png"
    assert chart.is_file() and chart.stat().st_size > 1000
    summary = (out / "sweep" / "README.md").read_text()
    assert summary.index("step-3") < summary.index("step-20") < summary.index("step-100")
    assert summary.count("| smol-slm-eval-arc_easy |") == 2
    assert summary.count("the runs agree on every paired row (N=3)") == 2, summary


@pytest.mark.unit
def test_a_folder_is_cached_by_its_content_not_its_name(tmp_path):
    from smol_envs_core.evalrun.convert import folder_sha256

    a, b = tmp_path / "a", tmp_path / "b"
    for folder in (a, b):
        (folder / "sub").mkdir(parents=True)
        (folder / "config.json").write_text("{}")
        (folder / "sub" / "w.safetensors").write_bytes(b"\0" * 10)
    assert folder_sha256(a) == folder_sha256(b)
    (b / "config.json").write_text('{"x": 1}')
    assert folder_sha256(a) != folder_sha256(b)
    (b / "config.json").write_text("{}")
    (b / "sub" / "w.safetensors").rename(b / "w.safetensors")  # same bytes, another path
    assert folder_sha256(a) != folder_sha256(b)
