"""Context limits are a property of the run (issue 43 item 2): every BFCL v4 multi-turn prompt
(2,389-6,073 tokens) exceeds the local server's default 2,048-token context, and such rows came
back `prompt_too_long` and were scored as the model's 0. Checked before the first request now:
a run whose rows mostly cannot fit is refused with one line naming the context it needs; a row
that cannot fit gets no request, is scored `not_scorable`, and the report counts, names and
excludes it."""

from __future__ import annotations

import asyncio

import pytest
from smol_envs_core.adapters.context import (
    ContextCheck,
    ContextTooSmallError,
    refuse_mostly_too_long,
)
from smol_slm_eval import composite
from smol_slm_eval.env import TaskEnv, TaskRubric, load_environment
from smol_slm_eval.tasks import MATH

from tests.support.scored_runs import reported, scored_row, write_scored_run


@pytest.mark.unit
def test_mostly_too_long_is_refused_in_one_line_and_a_minority_is_not():
    most = ContextCheck(2048, {"a": 3000, "b": 6600, "c": 900})
    with pytest.raises(ContextTooSmallError) as caught:
        refuse_mostly_too_long(most, "bfcl_v4_multi_turn_base")
    message = str(caught.value)
    assert "\n" not in message and "2 of 3 rows" in message and "--n-ctx 8192" in message
    few = ContextCheck(2048, {"a": 3000, "b": 100, "c": 900})
    refuse_mostly_too_long(few, "math_500")
    assert few.too_long == {"a": 3000} and "3000 tokens" in few.reason("a")
    assert ContextCheck(None, {}).too_long == {}  # an endpoint that does not say


def client_for(base_url: str):
    from openai import AsyncOpenAI

    return AsyncOpenAI(base_url=base_url, api_key="EMPTY")


@pytest.mark.integration
def test_multi_turn_bfcl_is_refused_before_any_request(local_model_base_url, archive_cache):
    env = load_environment(task="bfcl_v4_multi_turn_base", num_examples=8)
    with pytest.raises(ContextTooSmallError) as caught:
        asyncio.run(env._checked_context(client_for(local_model_base_url)))
    message = str(caught.value)
    assert "8 of 8 rows" in message and "2048-token context" in message
    assert "--n-ctx 8192" in message and "\n" not in message


@pytest.mark.integration
def test_a_row_that_cannot_fit_is_not_scorable_and_excluded(local_model_base_url,
                                                          local_model_name, tmp_path, capsys):
    rows = {f"m{i}": {"id": f"m{i}", "answer": str(i)} for i in range(3)}
    prompts = {"m0": "Problem: 1+1?\nAnswer:", "m1": "Problem: 2*3?\nAnswer:",
               "m2": "Problem: " + "count these words " * 900 + "\nAnswer:"}
    records = [{"prompt": [{"role": "user", "content": prompts[rid]}], "answer": row["answer"],
                "info": {"id": rid, "benchmark": "math_500"}} for rid, row in rows.items()]
    from datasets import Dataset

    rubric = TaskRubric(MATH, "exact_match", rows)
    env = TaskEnv(eval_dataset=Dataset.from_list(records), rubric=rubric, task="math_500",
                  sampling_args={"temperature": 0.0, "max_tokens": 8})
    client = client_for(local_model_base_url)

    async def roll(record: dict) -> dict:
        """The long row through the environment's model call (the context check runs on the
        real server and no generation is asked for); the short rows' replies are written here
        (their generation is verifiers' own path, tested elsewhere): all scored by the rubric."""
        state = {"info": dict(record["info"]), "client": client, "model": local_model_name,
                 "prompt": record["prompt"], "answer": record["answer"]}
        check = await env._checked_context(client)
        if record["info"]["id"] in check.too_long:
            response = await env.get_model_response(state, record["prompt"], client=client,
                                                    model=local_model_name)
            reply = response.message.content or ""
        else:
            reply = f"\\boxed{{{record['answer']}}}"
        state["completion"] = [{"role": "assistant", "content": reply}]
        await rubric.ensure_scored(state)
        return state

    async def roll_all() -> list[dict]:
        return await asyncio.wait_for(asyncio.gather(*(roll(r) for r in records)), 600)

    states = asyncio.run(roll_all())
    assert set(env.context_check.too_long) == {"m2"} and env.context_check.context == 2048
    scored = {s["info"]["id"]: s["slm_eval_score"] for s in states}
    assert scored["m2"]["metrics"]["not_scorable"] == 1.0
    assert scored["m2"]["failure"] == "prompt_too_long" and "2048" in scored["m2"]["reason"]
    assert all(scored[rid]["metrics"]["not_scorable"] == 0.0 and scored[rid]["reward"] == 1.0
               for rid in ("m0", "m1"))
    from smol_envs_core.adapters.declaration import Score

    out = [scored_row(i, "", rows[s["info"]["id"]]["answer"], s["info"],
                      Score.from_dict(s["slm_eval_score"])) for i, s in enumerate(states)]
    run = write_scored_run(tmp_path / "run", "smol-slm-eval", out, model=local_model_name,
                           env_args={"task": "math_500"})
    figures = reported(capsys, run)
    assert figures["math_500 exact_match x100"].n == 2  # the row that could not fit is out
    from smol_envs_core.report import read_results, report_runs

    body = report_runs([run])[0].body
    assert "1 rows not scorable" in body.status
    assert any("not scorable, math_500" in note and "m2" in note for note in body.notes)
    assert composite.not_scorable_rows([read_results(run)]) == {"math_500": ["m2"]}


@pytest.mark.e2e
def test_vf_eval_refuses_multi_turn_bfcl_on_a_2048_token_server(local_model_base_url,
                                                                 local_model_name,
                                                                 archive_cache, tmp_path):
    from tests.support.vf_eval import vf_eval

    done = vf_eval("smol-slm-eval", local_model_base_url, local_model_name,
                   {"task": "bfcl_v4_multi_turn_base"}, "-n", "4", "-r", "1",
                   "--api-client-type", "openai_completions", cwd=tmp_path, timeout=600)
    assert done.returncode != 0
    lines = [line for line in done.stderr.splitlines() if "--n-ctx 8192" in line]
    assert len(lines) == 1 and "2048-token context" in lines[0], done.stderr[-2000:]
