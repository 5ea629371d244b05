"""verifiers wiring: arguments, prompts/budgets in rows, rubric shape, infra errors stop runs."""

from __future__ import annotations

import pytest
from smol_envs_core.errors import InfrastructureError
from smol_envs_core.text import completion_text
from smolscript.data import DataError
from smolscript.env import (
    SmolscriptRubric,
    load_environment,
)
from smolscript.prompts import PromptTooLongError
from smolscript.verdict import ScoringInfraError

from tests.support.ports import closed_port_url
from tests.support.smolscript_edition import adder_tasks, write_edition


@pytest.fixture
def tiny(tmp_path, monkeypatch):
    write_edition(tmp_path / "data", adder_tasks(4))
    monkeypatch.setenv("SMOLSCRIPT_DATA_DIR", str(tmp_path / "data"))


@pytest.mark.unit
def test_rows_hold_raw_prompts_budgets_and_template(tiny):
    env = load_environment(languages=["python"], num_examples=3)
    rows = env.get_eval_dataset()
    assert len(rows) == 3
    assert rows[0]["prompt"] == "# Add 0.\n# Integer n from 0 to 9.\ndef solve(n):\n"
    info = rows[0]["info"]
    assert info["max_tokens"] == 128 and info["template_id"].startswith("smolscript-completion")
    assert len(info["dataset_sha256"]) == 64  # results name the dataset build they ran on
    override = load_environment(languages="python", max_tokens=17).get_eval_dataset()
    assert override[0]["info"]["max_tokens"] == 17 and override[0]["info"]["budget_overridden"]


@pytest.mark.unit
def test_bad_arguments_name_valid_values(tiny):
    with pytest.raises(DataError, match="valid"):
        load_environment(languages=["cobol"])
    with pytest.raises(DataError, match="valid"):
        load_environment(difficulties=["hard"])
    with pytest.raises(DataError, match="valid"):
        load_environment(edition="v9")
    with pytest.raises(TypeError, match="valid"):
        load_environment(langauges=["python"])


@pytest.mark.unit
def test_prompt_too_long_is_an_explicit_failure(tiny):
    with pytest.raises(PromptTooLongError):
        load_environment(context_length=140, tokenizer="bytes")
    load_environment(context_length=2048, tokenizer="bytes")


def ours(env) -> SmolscriptRubric:
    """Our rubric (verifiers wraps it in a RubricGroup with its num_turns monitor)."""
    rubrics = getattr(env.rubric, "rubrics", [env.rubric])
    return next(r for r in rubrics if isinstance(r, SmolscriptRubric))


def _state(task_id: str, text: str) -> dict:
    return {"info": {"id": task_id}, "completion": text, "prompt": "", "answer": "",
            "trajectory": [], "example_id": 0}


@pytest.mark.integration  # connects to a closed port
async def test_infra_error_propagates_out_of_score_group_and_score_rollout(tiny):
    rubric = load_environment(service_url=closed_port_url()).rubric  # the whole group
    with pytest.raises(ScoringInfraError, match="unreachable"):
        await rubric.score_group([_state("python-easy-000", "    return n\n")])
    with pytest.raises(ScoringInfraError):
        await rubric.score_rollout(_state("python-easy-001", "    return n + 1\n"))


@pytest.mark.integration  # connects to a closed port
async def test_rejected_assembly_scores_zero_without_the_service(tiny):
    rubric = load_environment(service_url=closed_port_url()).rubric
    states = [_state("python-easy-000", "```python\n    return n\n```\n```\n```")]
    await rubric.score_group(states)
    assert states[0]["reward"] == 0.0
    metrics = states[0]["metrics"]
    assert {k: metrics[k] for k in ("passed", "syntax_ok", "hidden_test_pass_rate")} == {
        "passed": 0.0, "syntax_ok": 0.0, "hidden_test_pass_rate": 0.0}
    assert states[0]["info"]["assembly"]["note"] == "multiple_fences"


@pytest.mark.unit
def test_completion_text_reads_strings_and_messages():
    assert completion_text("abc") == "abc"
    assert completion_text([{"role": "assistant", "content": "x"}]) == "x"
    assert completion_text(None) == ""


class RecordingClient:
    """Stands in for the model endpoint: records sampling args, answers `text` or nothing."""

    def __init__(self, text: str | None):
        self.text = text
        self.seen: list[dict] = []

    async def get_response(self, prompt, model, tools, sampling_args, state):
        from verifiers.errors import EmptyModelResponseError
        from verifiers.types import Response, ResponseMessage

        self.seen.append(dict(sampling_args))
        if not self.text:
            raise EmptyModelResponseError("Model returned no content")
        return Response(id="r", created=0, model=model, message=ResponseMessage(
            content=self.text, finish_reason="stop", is_truncated=False))


async def _ask(env, client, sampling_args=None) -> str:
    row = env.get_eval_dataset()[0]
    state = {"info": row["info"], "client": client, "model": "m",
             "sampling_args": sampling_args or {}}
    response = await env.get_model_response(state, row["prompt"])
    return response.message.content


@pytest.mark.unit
async def test_requests_default_to_the_task_budget_greedily(tiny):
    client = RecordingClient("    return n\n")
    unset = {"max_tokens": None, "temperature": None}  # what vf-eval sends without -t / -T
    assert await _ask(load_environment(), client, unset) == "    return n\n"
    assert client.seen[0]["max_tokens"] == 128 and client.seen[0]["temperature"] == 0.0
    assert client.seen[0]["extra_body"] == {"repeat_penalty": 1.0}  # greedy on llama.cpp too
    assert "max_completion_tokens" not in client.seen[0]


@pytest.mark.unit
async def test_a_trainers_sampling_is_never_overridden(tiny):
    client = RecordingClient("    return n\n")
    trainer = {"max_completion_tokens": 40, "temperature": 1.0, "n": 1, "top_p": 0.9}
    await _ask(load_environment(), client, trainer)
    assert client.seen[0] == {"max_tokens": 40, "temperature": 1.0, "n": 1, "top_p": 0.9}


@pytest.mark.unit
async def test_an_empty_completion_is_kept_as_a_model_outcome(tiny):
    client = RecordingClient(None)
    assert await _ask(load_environment(), client) == ""
    assert len(client.seen) == 1  # not retried


@pytest.mark.integration  # connects to a closed port
async def test_a_failed_rollout_stops_the_run_and_an_overlong_prompt_fails_explicitly(tiny):
    rubric = load_environment(service_url=closed_port_url()).rubric
    failed = _state("python-easy-000", "")
    failed["error"] = RuntimeError("model endpoint refused the connection")
    with pytest.raises(InfrastructureError, match="model endpoint: RuntimeError: model endpoint "
                                                  "refused"):
        await rubric.score_group([failed])
    overlong = _state("python-easy-001", "")
    overlong["prompt_too_long"] = True
    await rubric.score_group([overlong])
    assert overlong["reward"] == 0.0
    assert overlong["info"]["verdict"]["status"] == "prompt_too_long"



def overlong_endpoint():
    """verifiers' own completions client on an endpoint that answers like a server whose
    context the prompt exceeds (HTTP 400, "maximum context length"); counts the requests."""
    import httpx
    import openai
    from verifiers.legacy.clients import OpenAICompletionsClient

    requests: list = []

    def reject(request: httpx.Request) -> httpx.Response:
        requests.append(request)
        return httpx.Response(400, json={"error": {
            "message": "This model's maximum context length is 2048 tokens",
            "type": "invalid_request_error"}})

    native = openai.AsyncOpenAI(base_url="http://endpoint/v1", api_key="x", max_retries=0,
                                http_client=httpx.AsyncClient(transport=httpx.MockTransport(reject)))
    return OpenAICompletionsClient(native), requests


@pytest.mark.unit
async def test_an_endpoint_rejecting_a_long_prompt_reaches_a_prompt_too_long_verdict(tiny):
    """The `prompt_too_long` branch is reachable: verifiers' client maps the endpoint's
    context-length 400 to OverlongPromptError, its rollout marks the state, and the rubric
    scores it 0 without the scoring service."""
    env = load_environment(service_url="http://127.0.0.1:9")  # never contacted
    row = env.get_eval_dataset()[0]
    client, requests = overlong_endpoint()
    state = await env.rollout({"prompt": row["prompt"], "answer": "", "info": row["info"],
                               "example_id": 0}, client, "m", {})
    assert state["prompt_too_long"] and len(requests) == 1  # asked once, never retried
    await env.rubric.score_group([state])
    assert state["reward"] == 0.0
    assert state["info"]["verdict"]["status"] == "prompt_too_long"
