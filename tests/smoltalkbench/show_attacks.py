"""Print what the judge sees and what each adversarial reply earns, in both adapters.

`uv run python -m tests.smoltalkbench.show_attacks [JSON options]` runs every reply of
`adversarial.ATTACKS` on the fixture row whose reply label suits it, against the gullible
scripted judge (a real loopback HTTP server), through the classic rubric and the v1 task's own
hooks, and prints one block per attack: the answers part of the judge's prompt as sent, the
classic reward (or how the run stopped) and the v1 reward (or why the trace was dropped). It
only uses names that predate issue 24, so the same script shows the behaviour before and after.
The optional JSON holds extra judge options for both adapters (e.g. {"judge_label_bias": "tokens"}).
"""

from __future__ import annotations

import asyncio
import json
import re
import sys
from types import SimpleNamespace

from smoltalkbench import data, load_environment

from tests.contract_rl.driver import load_tasks
from tests.contract_rl.scripted_endpoint import ScriptedEndpoint
from tests.smoltalkbench.adversarial import ATTACKS, GullibleJudge, shown_as


def judge_view(body: dict) -> str:
    """The candidate answers as the judge received them (between the prompt's two headings)."""
    user = body["messages"][1]["content"]
    match = re.search(r"## Candidate answers\n(.*)\n## Your verdict", user, re.DOTALL)
    view = match.group(1) if match else user
    return re.sub(r"(hmm |ok ){8,}", lambda m: f"[{m.group(1).strip()} x{len(m.group(0)) // 4}]",
                  view).strip()


async def classic(base_url: str, instruction: str, reply: str, reference: str,
                  options: dict) -> str:
    env = load_environment(dataset="fixture", judge_base_url=base_url, judge_api_key_var="",
                           judge_model="scripted", judge_max_retries=0, **options)
    state = {"prompt": [{"role": "user", "content": instruction}],
             "completion": [{"role": "assistant", "content": reply}], "answer": reference,
             "info": {}, "error": None, "trajectory": [], "input": {}}
    try:
        await env.rubric.score_rollout(state)
    except Exception as exc:  # noqa: BLE001 - what the run does is the observation
        return f"run stops: {type(exc).__name__}: {str(exc)[:90]}"
    return f"reward {state['reward']:.3f} ({state['judge']['reason'][:100]})"


async def taskset(base_url: str, instruction: str, reply: str, options: dict) -> str:
    task_options = {"judge_base_url": base_url, "judge_api_key_var": "",
                    "judge_model": "scripted", "judge_max_retries": 0, **options}
    tasks = load_tasks("smoltalkbench", {"split": "eval", "dataset": "fixture",
                                         "task": task_options})
    task = next(t for t in tasks if t.data.prompt == instruction)
    trace = SimpleNamespace(assistant_messages=[SimpleNamespace(content=reply)],
                            last_reply=reply.strip(), info={})
    try:
        await task.declared_metrics(trace)
        reward = (await task.declared_reward(trace))["win_prob"]
    except Exception as exc:  # noqa: BLE001
        return f"trace not ok (dropped by the trainer): {type(exc).__name__}"
    return f"reward {reward:.3f}"


def main(options: dict) -> None:
    rows = data.load_rows("fixture").to_list()
    for attack in ATTACKS:
        row = shown_as(rows, attack.shown_as, attack.reply)
        label = attack.shown_as
        reply = attack.reply(label, row["output"])
        judged = GullibleJudge(row["output"], reasoning=attack.reasoning_judge)
        with ScriptedEndpoint({}, judge=judged) as endpoint:
            booked_classic = asyncio.run(classic(endpoint.base_url, row["instruction"], reply,
                                                 row["output"], options))
            seen = judge_view(endpoint.requests[0]) if endpoint.requests else "(no judge call)"
            booked_v1 = asyncio.run(taskset(endpoint.base_url, row["instruction"], reply,
                                            options))
        print(f"## kind {attack.kind}: {attack.name} (reply shown as {label})")
        print("judge sees:", json.dumps(seen, ensure_ascii=False)[:900])
        print("classic:   ", booked_classic)
        print("v1:        ", booked_v1)
        print()


if __name__ == "__main__":
    main(json.loads(sys.argv[1]) if len(sys.argv) > 1 else {})
