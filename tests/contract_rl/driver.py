"""Drive an environment's v1 taskset the way prime-rl does, and report what was observed.

prime-rl loads the taskset in the trainer (`vf.load_taskset`), serves the environment from a
spawned env server (`serve_env`), and sends `group_size` independent `EnvClient.run(task_data=...)`
requests per task with its own sampling; advantage = reward - group mean. `drive(spec)` does the
same against a scripted OpenAI-compatible endpoint on loopback and returns a JSON-able report
that the tests check. It uses only names that verifiers 0.3.1 and 0.4.0 both ship, so the same
code runs in the workspace venv (0.3.1) and in the cached 0.4.0 venv
(`python -m tests.contract_rl.driver ENV_ID` prints the report as JSON).
"""

from __future__ import annotations

import asyncio
import contextlib
import json
import multiprocessing as mp
import os
import sys
from collections.abc import Iterator
from typing import Any

import verifiers
import verifiers.v1 as vf
from verifiers.v1.serve import EnvClient, env_config_data, serve_env

from tests.contract_rl.scripted_endpoint import ScriptedEndpoint
from tests.contract_rl.specs import SPECS, Spec

GROUP_SIZE = 4
TEMPERATURE = 1.0
MAX_TOKENS = 256
API_KEY_VAR = "SMOL_ENVS_SCRIPTED_KEY"
# Which reply each rollout of a group gets, in arrival order at the endpoint.
PATTERN = ("gold", "junk", "gold", "junk")


def load_tasks(env_id: str, options: dict[str, Any]) -> list[Any]:
    """The taskset's tasks for `options`, loaded as a trainer loads them."""
    config_type = vf.taskset_config_type(env_id)
    return list(vf.load_taskset(config_type.model_validate({"id": env_id, **options})))


@contextlib.contextmanager
def env_server(env_id: str, options: dict[str, Any]) -> Iterator[str]:
    """A spawned v1 env server for the taskset (local subprocess runtime); yields its address."""
    config = vf.resolve_env_config(
        {"taskset": {"id": env_id, **options}, "agent": {"runtime": {"type": "subprocess"}}}
    )
    context = mp.get_context("spawn")
    addresses = context.Queue()
    process = context.Process(
        target=serve_env,
        kwargs={"max_workers": 1, "address": "tcp://127.0.0.1:0",
                "address_queue": addresses, "config_data": env_config_data(config)},
    )
    process.start()
    try:
        yield addresses.get(timeout=120)
    finally:
        process.terminate()
        process.join(30)


async def run_groups(address: str, base_url: str, tasks: list[Any],
                     group_size: int = GROUP_SIZE) -> list[list[Any]]:
    """`group_size` concurrent rollouts of each task at TEMPERATURE; one trace list per task."""
    client = EnvClient(address=address)
    try:
        await client.wait_for_server_startup(timeout=120)
        endpoint = vf.EvalClientConfig(base_url=base_url, api_key_var=API_KEY_VAR)
        sampling = vf.SamplingConfig(temperature=TEMPERATURE, max_tokens=MAX_TOKENS)

        async def group(task: Any) -> list[Any]:
            episodes = await asyncio.gather(*(
                client.run(client=endpoint, model="scripted", sampling=sampling,
                           task_data=task.data.model_dump(mode="json"))
                for _ in range(group_size)
            ))
            return [trace for episode in episodes for trace in episode.traces]

        return list(await asyncio.gather(*(group(task) for task in tasks)))
    finally:
        await client.close()


def drive(spec: Spec) -> dict[str, Any]:
    """Run the whole contract for one environment; return the observations (JSON-able)."""
    os.environ.setdefault(API_KEY_VAR, "scripted")
    train = load_tasks(spec.env_id, spec.train)
    evaluation = load_tasks(spec.env_id, spec.eval)
    train_keys, eval_keys = {t.key for t in train}, {t.key for t in evaluation}
    train_prompts = {t.data.prompt_text for t in train}
    eval_prompts = {t.data.prompt_text for t in evaluation}
    picked = train[: spec.tasks]
    wire = [json.loads(json.dumps(t.data.model_dump(mode="json"))) for t in picked]
    round_trip = all(
        type(t.data).model_validate(w) == t.data for t, w in zip(picked, wire, strict=True)
    )
    golds = {t.data.prompt_text: spec.gold(t) for t in picked}
    answers = {t.data.prompt_text: [golds[t.data.prompt_text] if k == "gold" else spec.junk
                                    for k in PATTERN] for t in picked}
    # The next task gets HTTP 500 (unknown prompt): a model endpoint failure. The one after,
    # when the spec has one, gets a reply whose scoring fails (judge, scoring service).
    stranger, bad_scoring = train[spec.tasks], train[spec.tasks + 1]
    if spec.scoring_failure_reply is not None:
        answers[bad_scoring.data.prompt_text] = [spec.scoring_failure_reply]
    report: dict[str, Any] = {
        "verifiers": verifiers.__version__, "env_id": spec.env_id,
        "train_tasks": len(train), "eval_tasks": len(evaluation),
        "key_overlap": len(train_keys & eval_keys),
        "prompt_overlap": len(train_prompts & eval_prompts),
        "round_trip": round_trip,
    }
    with ScriptedEndpoint(answers, judge=spec.judge(picked)) as endpoint:
        server_options = spec.server_options(endpoint.base_url)
        with env_server(spec.env_id, {**spec.train, **server_options}) as address:
            runs = []
            for _ in range(2):  # a second asyncio.run, as synchronous trainers do per batch
                groups = asyncio.run(run_groups(address, endpoint.base_url, picked))
                runs.append([[_trace(trace, spec, golds) for trace in traces]
                             for traces in groups])
            failed = asyncio.run(run_groups(address, endpoint.base_url,
                                            [stranger, bad_scoring], 1))
        report["runs"] = runs
        report["infra_failure"] = _trace(failed[0][0], spec, golds)
        if spec.scoring_failure_reply is not None:
            report["scoring_failure"] = _trace(failed[1][0], spec, golds)
        report["policy_requests"] = [
            {"temperature": r.get("temperature"), "max_tokens": r.get("max_tokens"),
             "n": r.get("n")}
            for r in endpoint.requests if not r.get("logprobs")
        ]
    report["sent"] = {"temperature": TEMPERATURE, "max_tokens": MAX_TOKENS}
    return report


def _trace(trace: Any, spec: Spec, golds: dict[str, str]) -> dict[str, Any]:
    reply = trace.last_reply or ""  # verifiers strips it: compare stripped texts
    gold = golds.get(trace.task.data.prompt_text)
    kind = "gold" if gold is not None and reply == gold.strip() else "junk"
    return {
        "ok": bool(trace.ok),
        "reward": trace.reward,
        "reward_names": sorted(trace.rewards),
        "metric_names": sorted(trace.metrics),
        "kind": kind,
        "expected": spec.expected_reward[kind],
        "errors": [str(getattr(e, "message", e))[:300] for e in trace.errors],
    }


def advantages(rewards: list[float]) -> list[float]:
    """prime-rl's advantage: reward minus the group's mean reward."""
    mean = sum(rewards) / len(rewards)
    return [r - mean for r in rewards]


if __name__ == "__main__":
    print(json.dumps(drive(SPECS[sys.argv[1]]())))
