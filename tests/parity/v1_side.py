"""The v1 side of the parity test: the corpus through an environment's real v1 loop.

`python -m tests.parity.v1_side ENV_ID [SERVICE_URL]` loads the taskset's eval tasks, serves
them from a spawned v1 env server (as prime-rl does, `tests.contract_rl.driver`), answers each
task with its corpus case from a scripted endpoint (a scripted judge too, for smoltalkbench),
and prints one JSON object: case -> {ok, reward, scores} (scores = trace metrics and rewards by
name). Uses only names that verifiers 0.3.1 and 0.4.0 both ship, so the same file runs in the
workspace venv and in the 0.4.0 venv.
"""

from __future__ import annotations

import asyncio
import json
import os
import sys
from typing import Any

import verifiers

from tests.contract_rl.driver import API_KEY_VAR, env_server, load_tasks, run_groups
from tests.contract_rl.scripted_endpoint import ScriptedEndpoint
from tests.contract_rl.specs import SPECS
from tests.parity.corpus import assign

TASKS = 16


def eval_options(env_id: str) -> dict[str, Any]:
    """The taskset options of the corpus's tasks (the eval split; smoltalkbench's fixture)."""
    return dict(SPECS[env_id]().eval)


def observe(trace: Any) -> dict[str, Any]:
    """What parity compares of one v1 trace."""
    if not trace.ok:
        return {"ok": False}
    scores = {name: value for name, value in trace.metrics.items()}
    scores.update({name: r.score if hasattr(r, "score") else r
                   for name, r in trace.rewards.items()})
    return {"ok": True, "reward": trace.reward, "scores": scores,
            "behaviour_version": trace.info.get("behaviour_version")}


def run(env_id: str, service_url: str | None = None) -> dict[str, Any]:
    """Score the corpus through the v1 loop; returns {"verifiers": version, "cases": {...}}."""
    os.environ.setdefault(API_KEY_VAR, "scripted")
    spec = SPECS[env_id]()
    options = eval_options(env_id)
    tasks = load_tasks(env_id, {**options, "num_examples": TASKS} if env_id != "pico-dsl-v1"
                       else options)
    assigned = assign(tasks, spec.gold, spec.scoring_failure_reply)
    answers = {task.data.prompt_text: [reply] for _, task, reply in assigned if reply is not None}
    picked = [task for _, task, _ in assigned]
    with ScriptedEndpoint(answers, judge=spec.judge(picked)) as endpoint:
        server = spec.server_options(endpoint.base_url)
        if service_url is not None:
            server = {**server, "task": {**server.get("task", {}), "service_url": service_url}}
        with env_server(env_id, {**options, **server}) as address:
            groups = asyncio.run(run_groups(address, endpoint.base_url, picked, 1))
    cases = {name: observe(traces[0])
             for (name, _, _), traces in zip(assigned, groups, strict=True)}
    return {"verifiers": verifiers.__version__, "cases": cases}


if __name__ == "__main__":
    print(json.dumps(run(sys.argv[1], sys.argv[2] if len(sys.argv) > 2 else None)))
