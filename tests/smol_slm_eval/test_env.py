"""The verifiers wiring: arguments, the README's tables, metric names, and vf-eval end to end."""

from __future__ import annotations

import inspect
import json
import threading
from concurrent.futures import ThreadPoolExecutor
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path

import pytest
from smol_envs_core.errors import UnknownArgumentError
from smol_envs_core.report import read_results
from smol_slm_eval import composite
from smol_slm_eval.env import METRICS, load_environment
from smol_slm_eval.errors import ConfigError, EvaluationOnlyError
from smol_slm_eval.tasks import KIND_METRICS

from tests.support.markdown import table_first_column
from tests.support.ports import closed_port_url
from tests.support.vf_eval import latest_run, vf_eval

REPO = Path(__file__).resolve().parents[2]
README = REPO / "environments" / "smol_slm_eval" / "README.md"
ENV_ID = "smol-slm-eval"


@pytest.mark.unit
def test_metrics_table_matches_rubrics():
    names = list(dict.fromkeys(f.__name__ for funcs in METRICS.values() for f in funcs))
    assert sorted(table_first_column(README.read_text(), "Metrics")) == sorted(names)


@pytest.mark.unit
def test_kind_metrics_match_reward_functions():
    assert {k: tuple(f.__name__ for f in v) for k, v in METRICS.items()} == KIND_METRICS


@pytest.mark.unit
def test_arguments_table_matches_signature():
    params = [p for p in inspect.signature(load_environment).parameters if p != "kwargs"]
    assert table_first_column(README.read_text(), "Environment Arguments") == params


@pytest.mark.unit
@pytest.mark.parametrize("kwargs, message", [
    ({"task": "piqa"}, "valid: hellaswag"),
    ({"prompt_style": "harness"}, "prompt_style"),
    ({"task": "bfcl_v4", "bfcl_category": "live"}, "bfcl_category"),
    ({"task": "slm", "data_path": "x.jsonl"}, "single task"),
    ({"task": "bfcl_v4", "bfcl_mode": "lenient"}, "bfcl_mode must be one of"),
])
def test_bad_arguments(kwargs, message):
    with pytest.raises(ConfigError, match=message):
        load_environment(**kwargs)


@pytest.mark.unit
def test_a_misspelled_argument_is_refused_with_the_valid_names():
    with pytest.raises(UnknownArgumentError) as caught:
        load_environment(tsak="arc_easy", num_exmaples=3)
    message = str(caught.value)
    assert message.startswith("smol-slm-eval: unknown argument(s) num_exmaples, tsak; valid: "
                              "task, ")
    params = [p for p in inspect.signature(load_environment).parameters if p != "kwargs"]
    assert message.endswith("valid: " + ", ".join(params))


@pytest.mark.unit
def test_a_train_split_is_refused(tmp_path):
    """smol-slm-eval is evaluation-only: its rows are in the eval split; asking for a train split
    (what a trainer does) names why and what to use instead."""
    row = {"id": "q1", "question": "Which is a liquid?", "answerKey": "B",
           "choices": {"text": ["ice", "water"], "label": ["A", "B"]}}
    path = tmp_path / "arc.jsonl"
    path.write_text(json.dumps(row) + "\n")
    env = load_environment(task="arc_easy", data_path=str(path))
    assert len(env.get_eval_dataset()) == 1
    with pytest.raises(EvaluationOnlyError, match="evaluation-only: it has no train split"):
        env.get_dataset()


@pytest.mark.unit
def test_math_rubric_gives_what_verifiers_own_path_gives(tmp_path):
    """The one-pass rubric (records read by direct_metrics, DirectCallGroup) against verifiers'
    RubricGroup and Rubric code on the same rollouts: same reward, metrics (and their order),
    advantage."""
    import asyncio
    import copy

    import verifiers as vf
    from verifiers.types import State

    rows = [{"problem": f"{k}+1?", "solution": f"So $\\boxed{{{k + 1}}}$.",
             "unique_id": f"t/{k}.json"} for k in range(4)]
    path = tmp_path / "math.jsonl"
    path.write_text("".join(json.dumps(r) + "\n" for r in rows))
    env = load_environment(task="math_500", data_path=str(path))
    records = env.get_eval_dataset().to_list()
    texts = ["$\\boxed{1}$", "the answer is 7", "", "\\boxed{4}"]
    fast = []
    for k, (record, text) in enumerate(zip(records, texts, strict=True)):
        state = State(input={"prompt": record["prompt"], "answer": record["answer"],
                             "info": record["info"], "example_id": k})
        state["completion"] = [{"role": "assistant", "content": text}]
        state["trajectory"] = []
        fast.append(state)
    slow = copy.deepcopy(fast)
    asyncio.run(env.rubric.score_group(fast))
    members = env.rubric.rubrics
    for member in members:
        member.score_group = (lambda s, m=member: vf.Rubric.score_group(m, s))
    asyncio.run(members[0].ensure_group_scored(slow))
    asyncio.run(vf.RubricGroup.score_group(env.rubric, slow))
    for g, e in zip(fast, slow, strict=True):
        assert g["metrics"] == e["metrics"] and list(g["metrics"]) == list(e["metrics"])
        assert g["reward"] == e["reward"] and g["advantage"] == pytest.approx(e["advantage"])
    assert [s["reward"] for s in fast] == [1.0, 0.0, 0.0, 1.0]
    assert [s["metrics"]["unparseable"] for s in fast] == [0.0, 0.0, 1.0, 0.0]


@pytest.mark.integration
def test_groups_refuse_a_train_split(archive_cache, no_hub):
    env = load_environment(task="int_index", num_examples=1)
    assert len(env.get_eval_dataset()) == 3
    with pytest.raises(EvaluationOnlyError, match="train split"):
        env.get_dataset()


@pytest.mark.integration
def test_int_index_group_skips_components_without_data(archive_cache, capsys, no_hub):
    env = load_environment(task="int_index", num_examples=2)
    assert len(env.eval_dataset) == 6  # hellaswag, arc_easy, arc_challenge; no ArithMark data
    assert "arithmark_3_0" in capsys.readouterr().err


@pytest.mark.integration
def test_gpqa_prompts_are_withheld(archive_cache):
    env = load_environment(task="gpqa_diamond", num_examples=3)
    assert {row["prompt"][0]["content"] for row in env.eval_dataset} == {
        "[GPQA Diamond question withheld from logs: scored by log-likelihood]"}


def saved_run(base_url: str, model: str, args: dict, n: int, out: Path, *extra: str) -> Path:
    """The folder of a successful `vf-eval smol-slm-eval -n N -s -C score_record` run."""
    done = vf_eval(ENV_ID, base_url, model, args, "-n", str(n), "-r", "1", "-s",
                   "-C", "score_record", "-o", str(out), *extra)
    assert done.returncode == 0, done.stderr[-3000:]
    return latest_run(out, ENV_ID)


@pytest.mark.e2e
def test_vf_eval_multiple_choice_math_and_bfcl(local_model_base_url, local_model_name,
                                               archive_cache, tmp_path):
    """Three vf-eval runs (ARC-Easy by log-likelihood, MATH-500 and BFCL by generation), each in
    its own output folder and started together: their start-ups overlap and the local server
    answers all three."""
    runs = {
        "arc": ({"task": "arc_easy"}, 6),
        "math": ({"task": "math_500"}, 2, "-t", "64", "--api-client-type", "openai_completions"),
        "bfcl": ({"task": "bfcl_v4", "bfcl_category": "simple_python",
                  "enable_tier2_metric": True}, 2, "-t", "96",
                 "--api-client-type", "openai_completions"),
    }
    with ThreadPoolExecutor(len(runs)) as pool:
        futures = {name: pool.submit(saved_run, local_model_base_url, local_model_name, args, n,
                                     tmp_path / name, *extra)
                   for name, (args, n, *extra) in runs.items()}
        arc, math, bfcl = (futures[name].result() for name in runs)
    rows = [json.loads(x) for x in (arc / "results.jsonl").read_text().splitlines()]
    assert len(rows) == 6
    for row in rows:
        record = row["score_record"]
        assert len(record["logliks"]) == 4 and all(v < 0 for v in record["logliks"])
        assert row["metrics"]["acc_norm"] == record["acc_norm"] == row["reward"]
    pooled = composite.pool([read_results(run) for run in (arc, math, bfcl)])
    scores = composite.percents(composite.summarize(pooled))
    assert set(scores) == {"arc_easy", "math_500", "bfcl_v4"}
    average, table, skipped = composite.eval_avg(scores)
    assert [t[1] for t in table] == ["acc_norm", "function_name_match", "exact_match"]


@pytest.mark.e2e
def test_vf_eval_stops_on_an_endpoint_that_is_down(archive_cache, tmp_path):
    done = vf_eval(ENV_ID, closed_port_url("/v1"), "none", {"task": "arc_easy"}, "-n", "2",
                   "-r", "1", cwd=tmp_path, timeout=300)
    assert done.returncode != 0
    assert "infrastructure failure: model endpoint" in done.stderr


class RejectingEndpoint:
    """A loopback OpenAI-compatible endpoint that answers every request HTTP 404 (model not
    served): an infrastructure failure that the client does not retry."""

    def __enter__(self) -> str:
        class Handler(BaseHTTPRequestHandler):
            def do_POST(self):  # noqa: N802 (http.server's name)
                self.rfile.read(int(self.headers.get("Content-Length") or 0))
                body = json.dumps({"error": {"message": "model not served here"}}).encode()
                self.send_response(404)
                self.send_header("Content-Type", "application/json")
                self.send_header("Content-Length", str(len(body)))
                self.end_headers()
                self.wfile.write(body)

            def log_message(self, *args):
                pass

        self.server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        threading.Thread(target=self.server.serve_forever, daemon=True).start()
        return f"http://127.0.0.1:{self.server.server_address[1]}/v1"

    def __exit__(self, *exc) -> None:
        self.server.shutdown()
        self.server.server_close()


@pytest.mark.integration
@pytest.mark.parametrize("task", ["int_index", "slm"])
def test_a_group_stops_loudly_when_the_endpoint_fails(archive_cache, tmp_path, task):
    """An infrastructure failure inside an EnvGroup component stops the whole run: exit 1, one
    line naming the endpoint (no traceback), the partial folder renamed -FAILED."""
    with RejectingEndpoint() as base_url:
        done = vf_eval(ENV_ID, base_url, "none", {"task": task, "num_examples": 1}, "-n", "2",
                       "-r", "1", "-s", "-o", str(tmp_path), env={"HF_HUB_OFFLINE": "1"})
    assert done.returncode == 1, done.stderr[-3000:]
    lines = [x for x in done.stderr.splitlines() if "infrastructure failure" in x]
    assert lines and lines[0].startswith(
        f"smol-envs: infrastructure failure: model endpoint {base_url}"), done.stderr[-3000:]
    assert "Traceback" not in done.stderr, done.stderr[-3000:]
    folders = list((tmp_path / "evals").glob(f"{ENV_ID}--*/*"))
    assert folders and all(f.name.endswith("-FAILED") for f in folders), folders
    assert all((f / "FAILED.txt").is_file() for f in folders)
