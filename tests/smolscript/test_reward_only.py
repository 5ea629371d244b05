"""Reward-only scoring (`reward_only=True`, issue 29): the same reward, fewer tests run.

A program job is stopped at its first failing test and no credit baselines run, so `passed`,
`syntax_ok`, the verdict's status and its reason must be those of full scoring, for every
kind of answer (correct, wrong at the first or the last test, a crash, an endless loop, a
compile error). The candidate cannot tell the modes apart (the same files and inputs), and
answers written to exploit an early stop or to guess the mode earn nothing, through the real
rubric of `load_environment(reward_only=True)`. Through the real scoring service.
"""

from __future__ import annotations

import asyncio
from typing import Any

import pytest
from smolscript.scorer import DECLARATION, REWARD_ONLY_DECLARATION
from smolscript.verdict import score_code
from smolscript_sandbox.client import SandboxClient
from smolscript_sandbox.schema import ProgramReply, RunResult
from smolscript_sandbox.testing import TEST_URL

from tests.smolscript.test_verdict_policies import INT_N, source, task
from tests.support.smolscript_edition import PREFIX, adder_tasks, write_edition

TESTS = [((n,), 2 * n) for n in range(5)]  # solve(n) = 2n on n = 0..4

# body per language for each kind of answer: (python, c)
BODIES = {
    "correct": ("    return 2 * n\n", "    return 2 * n;\n"),
    "wrong at the first test": ("    return 2 * n + (n == 0)\n", "    return 2 * n + (n == 0);\n"),
    "wrong at the last test": ("    return 2 * n + (n == 4)\n", "    return 2 * n + (n == 4);\n"),
    "all wrong": ("    return n\n", "    return n;\n"),
    "crash at test 1": ("    assert n != 1\n    return 2 * n\n",
                        "    if (n == 1) { int *p = 0; return *p; }\n    return 2 * n;\n"),
    "compile error": ("    return 2 * n +\n", "    return 2 * n +;\n"),
}
FIRST_FAILING = {"correct": None, "wrong at the first test": 0, "wrong at the last test": 4,
                 "all wrong": 1, "crash at test 1": 1, "compile error": None}
# (all wrong: n = 0 gives 0 = 2 * 0, so the first failing test is test 1)


def hidden_of(tests: list[tuple]) -> dict:
    return {"tests": [{"args": list(args), "expected": expected} for args, expected in tests]}


async def both_modes(language: str, code: str, tests: list[tuple]) -> tuple[dict, dict]:
    row, hidden = task(language, INT_N), hidden_of(tests)
    async with SandboxClient(TEST_URL) as client:
        full = await score_code(row, hidden, code, client)
        fast = await score_code(row, hidden, code, client, reward_only=True)
    return full, fast


@pytest.mark.integration
@pytest.mark.usefixtures("scoring_service")
@pytest.mark.parametrize("kind", list(BODIES))
@pytest.mark.parametrize("language", ["python", "c"])
def test_reward_only_verdict_is_the_full_verdict(language: str, kind: str) -> None:
    body = BODIES[kind][language == "c"]
    full, fast = asyncio.run(both_modes(language, source(language, INT_N, body), TESTS))
    for field in ("passed", "syntax_ok", "status", "reason"):
        assert fast[field] == full[field], (field, full[field], fast[field])
    first = FIRST_FAILING[kind]
    if first is None:  # passed (every test ran) or never ran a test
        assert not fast["stopped_early"]
        assert fast["hidden_test_pass_rate"] == full["raw_test_pass_rate"]
    else:
        assert fast["stopped_early"] and fast["tests_run"] == first + 1
        assert fast["tests_total"] == len(TESTS)
        assert fast["hidden_test_pass_rate"] is None  # never a guessed fraction


@pytest.mark.integration
@pytest.mark.usefixtures("scoring_service")
def test_an_endless_loop_costs_one_test_not_all() -> None:
    code = source("python", INT_N, "    while True:\n        pass\n")
    full, fast = asyncio.run(both_modes("python", code, TESTS[:3]))
    assert full["status"] == fast["status"] == "timeout" and full["reason"] == fast["reason"]
    assert [t["status"] for t in full["tests"]] == ["timeout"] * 3
    assert fast["tests_run"] == 1


# ------------------------------------------------------------------ the candidate cannot tell


class RecordingClient:
    """Keeps every job it is sent; answers each test with status ok and no output."""

    def __init__(self) -> None:
        self.jobs: list[Any] = []

    async def run_program_job(self, job):
        self.jobs.append(job)
        return ProgramReply(status="ok", tests=[RunResult(status="ok") for _ in job.tests])

    async def run_program_job_until(self, job, keep_going):
        self.jobs.append(job)
        first = RunResult(status="ok")
        assert keep_going(0, first) is False  # no harness result: a failing test
        return ProgramReply(status="ok", tests=[first]), True


def test_the_candidate_gets_the_same_job_in_both_modes() -> None:
    client = RecordingClient()
    row, hidden = task("python", INT_N), hidden_of(TESTS)
    code = source("python", INT_N, "    return 2 * n\n")
    full = asyncio.run(score_code(row, hidden, code, client, credit_rate=False))
    fast = asyncio.run(score_code(row, hidden, code, client, reward_only=True))
    assert not full["passed"] and not fast["passed"] and fast["stopped_early"]
    a, b = client.jobs
    assert a.runtime == b.runtime and a.files == b.files
    # each test's stdin: the job's fresh nonce line, then the same arguments
    assert [t.stdin.split("\n", 1)[1] for t in a.tests] == \
        [t.stdin.split("\n", 1)[1] for t in b.tests]


# ------------------------------------------------------------------ answers that must earn 0

# Bodies of solve(n) = n + 1 (task python-easy-001, hidden tests n = 0, 1, 2), each written
# to gain from an early stop or from guessing the mode; why each must fail is beside it.
ADVERSARIAL = {
    # right on the first test only: an early stop must not read as "no failure seen"
    "first test only": "    return n + 1 if n == 0 else 0\n",
    # right until the last test, which never runs when an earlier stop is expected
    "all but the last": "    return n + 1 if n < 2 else 0\n",
    # exits the process after printing the expected text: no harness result
    "prints and exits": "    import os\n    print(n + 1, flush=True)\n    os._exit(0)\n",
    # imitates the service's stream on stdout (a reply line claiming every test passed)
    "forged stream line": (
        "    print('{\"reply\": {\"status\": \"ok\", \"tests\": []}}', flush=True)\n"
        "    return 0\n"),
    # guesses the mode from the environment, argv or files, answers right only when it
    # believes every test runs: it cannot know, so it is wrong in one mode at least
    "mode sniffer": (
        "    import os, sys\n"
        "    seen = ' '.join(sorted(os.environ)) + ' '.join(sys.argv) + str(os.listdir('.'))\n"
        "    return n + 1 if 'REWARD_ONLY' in seen.upper() or 'STREAM' in seen.upper() "
        "else -1\n"),
    # slow on the later tests (an early stop would have ended the job before them)
    "sleeps after the first": "    import time\n    time.sleep(6 if n == 1 else 0)\n"
                              "    return n + 1\n",
}


async def rubric_scores(root, monkeypatch, completions: list[str],
                        reward_only: bool) -> list[dict]:
    from smolscript.env import load_environment

    write_edition(root, adder_tasks(2))
    monkeypatch.setenv("SMOLSCRIPT_DATA_DIR", str(root))
    env = load_environment(service_url=TEST_URL, reward_only=reward_only)
    states = [{"info": {"id": "python-easy-001"}, "completion": text, "prompt": "",
               "answer": "", "trajectory": [], "example_id": i}
              for i, text in enumerate(completions)]
    await env.rubric.score_group(states)
    return states


@pytest.mark.integration
@pytest.mark.usefixtures("scoring_service")
def test_adversarial_answers_earn_nothing_in_reward_only_mode(tmp_path, monkeypatch) -> None:
    names = list(ADVERSARIAL)
    completions = [ADVERSARIAL[name] for name in names] + ["    return n + 1\n"]
    fast = asyncio.run(rubric_scores(tmp_path, monkeypatch, completions, True))
    full = asyncio.run(rubric_scores(tmp_path, monkeypatch, completions, False))
    rewards = {name: (f["reward"], s["reward"])
               for name, f, s in zip(names, fast[:-1], full[:-1], strict=True)}
    assert all(pair == (0.0, 0.0) for pair in rewards.values()), rewards
    assert fast[-1]["reward"] == full[-1]["reward"] == 1.0  # the correct answer still passes
    assert set(fast[0]["smolscript"]["metrics"]) == set(REWARD_ONLY_DECLARATION.names)
    assert set(full[0]["smolscript"]["metrics"]) == set(DECLARATION.names)
    assert fast[0]["info"]["verdict"]["stopped_early"]
    assert PREFIX  # the bodies above continue this head


def test_reward_only_declaration_keeps_the_reward_and_drops_the_rate() -> None:
    assert REWARD_ONLY_DECLARATION.reward_name == DECLARATION.reward_name == "passed"
    assert REWARD_ONLY_DECLARATION.behaviour_version == DECLARATION.behaviour_version
    assert set(DECLARATION.names) - set(REWARD_ONLY_DECLARATION.names) == \
        {"hidden_test_pass_rate"}
