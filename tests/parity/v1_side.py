"""The v1 side of the parity test: the corpus through an environment's real v1 loop.

`python -m tests.parity.v1_side ENV_ID [SERVICE_URL [FAILING_URL [TASK_OPTIONS_JSON]]]` loads
the taskset's eval tasks, serves them from a spawned v1 env server (as prime-rl does,
`tests.contract_rl.driver`), answers each task with its corpus case from a scripted endpoint (a
scripted judge too, for smoltalkbench), and prints one JSON object: {"verifiers": version,
"cases": case -> {ok, reward, scores}} (scores = trace metrics and rewards by name).
TASK_OPTIONS_JSON is one object of task options, or a list of them: then "cases" is a list, one
per option set, all scored by this one process (the imports and the task list paid once). Uses
only names that verifiers 0.3.1 and 0.4.0 both ship, so the same file runs in the workspace venv
and in the 0.4.0 venv.
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
from tests.parity.corpus import SCORING_FAILURE, assign

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


def _with_task(server: dict[str, Any], url: str | None, task_options: dict[str, Any]
               ) -> dict[str, Any]:
    """The env server's options with the task's service URL (when given) and options added."""
    task = {**server.get("task", {}), **task_options}
    if url is not None:
        task["service_url"] = url
    return {**server, "task": task} if task else server


def run(env_id: str, service_url: str | None = None, failing_url: str | None = None,
        task_options: dict[str, Any] | None = None) -> dict[str, Any]:
    """Score the corpus through the v1 loop; returns {"verifiers": version, "cases": {...}}.

    `service_url`: the scoring service (smolscript); `failing_url`, when given, is a service
    that is down: the scoring-failure case (the gold reply) is scored against it, by a second
    env server. `task_options`: extra task options (`--env.taskset.task.*`), e.g. smolscript's
    `{"reward_only": true}`.
    """
    os.environ.setdefault(API_KEY_VAR, "scripted")
    spec = SPECS[env_id]()
    options = eval_options(env_id)
    tasks = load_tasks(env_id, {**options, "num_examples": TASKS} if env_id != "pico-dsl-v1"
                       else options)
    failure = spec.gold if failing_url is not None else spec.scoring_failure_reply
    assigned = assign(tasks, spec.gold, failure)
    answers = {task.data.prompt_text: [reply] for _, task, reply in assigned if reply is not None}
    down = [(name, task) for name, task, _ in assigned
            if failing_url is not None and name == SCORING_FAILURE]
    up = [(name, task) for name, task, _ in assigned if (name, task) not in down]
    cases: dict[str, Any] = {}
    with ScriptedEndpoint(answers, judge=spec.judge([task for _, task, _ in assigned])) as endpoint:
        server = spec.server_options(endpoint.base_url)
        for url, batch in ((service_url, up), (failing_url, down)):
            if not batch:
                continue
            served = {**options, **_with_task(server, url, task_options or {})}
            with env_server(env_id, served) as address:
                groups = asyncio.run(run_groups(address, endpoint.base_url,
                                                [task for _, task in batch], 1))
            cases.update({name: observe(traces[0])
                          for (name, _), traces in zip(batch, groups, strict=True)})
    return {"verifiers": verifiers.__version__,
            "cases": {name: cases[name] for name, _, _ in assigned}}


def main(argv: list[str]) -> dict[str, Any]:
    """The command (module docstring): one run, or one per option set in a list."""
    env_id, service_url, failing_url, options = (argv + [""] * 4)[:4]
    options = json.loads(options or "{}")
    if isinstance(options, dict):
        return run(env_id, service_url or None, failing_url or None, options)
    runs = [run(env_id, service_url or None, failing_url or None, one) for one in options]
    return {"verifiers": verifiers.__version__, "cases": [r["cases"] for r in runs]}


if __name__ == "__main__":
    print(json.dumps(main(sys.argv[1:])))
