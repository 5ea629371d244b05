"""Host-side scoring of one task: evaluated code -> service job -> verdict against hidden tests.

smolscript renders the complete job files (candidate source + the language's harness) and
sends them to the scoring service through its client (`smolscript_sandbox.client`, one shared
job/reply schema); the service only runs code and reports outputs/observations, and the
expected values stay here. A program job carries a fresh nonce (`frames.py`) on each test's
first stdin line; the harness's result is the block framed with it on stdout, and only that is
compared with `types.canonical_output(expected)`;
browser observations go through `smolscript.web`'s comparator. Infrastructure failures (service
down, `infra_error` statuses) raise `ScoringInfraError`: they are never a model's 0.
"""

from __future__ import annotations

import json
import sys
from collections.abc import Mapping
from typing import Any, Protocol

from smol_envs_core.errors import InfrastructureError
from smolscript_sandbox.schema import (
    BrowserJob,
    BrowserReply,
    JobTest,
    ProgramJob,
    ProgramReply,
)

from smolscript import credit
from smolscript.errors import ScoringInfraError
from smolscript.frames import harness_stdin, new_nonce, read_result
from smolscript.languages import render_job_files
from smolscript.types import canonical_output, encode_stdin, parse_type_mismatch

MAX_KEPT_OUTPUT = 2000  # characters of stdout/stderr kept per test in results files


class ScoringClient(Protocol):
    """What scoring needs from the service's client (`smolscript_sandbox.client`)."""

    async def run_program_job(self, job: ProgramJob) -> ProgramReply | Mapping[str, Any]:
        """Run one program job (files, tests, runtime); its reply. Raises on service failure."""
        ...

    async def run_browser_job(self, job: BrowserJob) -> BrowserReply | Mapping[str, Any]:
        """Run one browser probe job; its reply. Raises on service failure."""
        ...


def _clip(text: Any) -> str:
    text = "" if text is None else str(text)
    return text if len(text) <= MAX_KEPT_OUTPUT else text[:MAX_KEPT_OUTPUT] + "...[clipped]"


def outcome(passed: bool, syntax_ok: bool, fraction: float, status: str, reason: str,
            tests: list[dict], **service: Any) -> dict:
    """The verdict record of one task (the fields every results file keeps).

    `service` adds what the scoring service reported beside the verdict: `truncated` (True
    when some output was cut at the service's cap), `toolchain` (binary -> version line) and
    `compile_output` (the compiler's diagnostics, warnings included).
    """
    return {"passed": bool(passed), "syntax_ok": bool(syntax_ok),
            "hidden_test_pass_rate": float(fraction), "status": status, "reason": reason,
            "tests": tests, **service}


def rejected_outcome(reason: str) -> dict:
    """Verdict for code that assembly rejected (several/unfinished fences): a syntax failure."""
    return outcome(False, False, 0.0, "rejected", reason, [])


def _args_list(args: Any, signature: Mapping[str, Any]) -> list[Any]:
    if isinstance(args, Mapping):
        return [args[p["name"]] for p in signature["params"]]
    return list(args)


def program_job(task: Mapping[str, Any], hidden: Mapping[str, Any], code: str,
                nonce: str) -> ProgramJob:
    """The service job of a program task: the complete files (candidate source + harness) and
    the hidden tests' stdin (inputs only: expected values are not sent), each after the
    job's result nonce (`frames.harness_stdin`; the files never hold it)."""
    signature = task["signature"]
    return ProgramJob(
        runtime=task["language"],
        files=render_job_files(task["language"], code, signature, task["entry_point"]),
        tests=[JobTest(stdin=harness_stdin(
            nonce, encode_stdin(_args_list(t["args"], signature), signature)))
               for t in hidden["tests"]],
    )


def build_browser_job(record: Mapping[str, Any], source: str) -> BrowserJob:
    """The service job for `source` (complete candidate source: prefix + continuation).

    `record` is a generator record, or a public dataset row whose `tests` hold the scenario
    `{"kind", "viewports", "probes", "timeout_s"}` (as the builder writes it); JSON strings, as
    Parquet stores nested columns, are decoded. Raises KeyError if fields lack.
    """
    scenario = record.get("tests") if "probes" not in record else record
    scenario = json.loads(scenario) if isinstance(scenario, str) else scenario
    return BrowserJob(kind=scenario["kind"], source=source, fixture=record["fixture"],
                      viewports=scenario["viewports"], probes=scenario["probes"],
                      timeout_s=scenario["timeout_s"])


def _reply(model: type[ProgramReply] | type[BrowserReply], task: Mapping[str, Any],
           reply: Any) -> Any:
    """`reply` as the schema's model (a plain mapping is validated: tests pass dicts)."""
    if isinstance(reply, model):
        return reply
    try:
        return model.model_validate(dict(reply))
    except (TypeError, ValueError) as exc:
        raise ScoringInfraError(f"{task.get('id')}: malformed service reply: {exc}") from exc


def _passes(result: Any, value: str | None, expected: str) -> bool:
    """Whether one test run passed: it ran cleanly and its harness result is the expected
    text (the one rule of `judge_program` and of a reward-only job's early stop)."""
    return result.status == "ok" and value == expected


def test_passes(task: Mapping[str, Any], test: Mapping[str, Any], result: Any,
                nonce: str) -> bool:
    """Whether `result` (a service `RunResult`) passes hidden `test` (pure): the same rule
    as `judge_program`, for one test as it ends."""
    value, _, _ = read_result(result.stdout, nonce)
    return _passes(result, value, canonical_output(test["expected"],
                                                   task["signature"]["returns"]))


def judge_program(task: Mapping[str, Any], hidden: Mapping[str, Any],
                  reply: ProgramReply | Mapping[str, Any], nonce: str) -> dict:
    """Compare a service reply with the hidden expected outputs (pure).

    `nonce` is the job's (`program_job`): each test's result is the harness's block framed
    with it (`frames.read_result`); a test without one is a `wrong_answer` saying so, and
    what the program printed besides is kept as `program_output`. Per test, `stdout` is the
    harness's result (None when there is none). Raises ScoringInfraError when the reply, or
    any test in it, reports `infra_error`.
    """
    reply = _reply(ProgramReply, task, reply)
    if reply.infra_detail() is not None:
        raise ScoringInfraError(
            f"{task.get('id')}: service infra_error: {_clip(reply.model_dump_json())}")
    compiled = reply.compile
    service = {"toolchain": dict(reply.toolchain),
               "compile_output": _clip(compiled.stderr if compiled else ""),
               "truncated": bool(compiled and compiled.truncated)
               or any(t.truncated for t in reply.tests)}
    if reply.status == "compile_error":
        return outcome(False, False, 0.0, "compile_error", service["compile_output"], [],
                       **service)
    returns = task["signature"]["returns"]
    results = reply.tests
    if len(results) != len(hidden["tests"]):
        raise ScoringInfraError(
            f"{task.get('id')}: service returned {len(results)} results for "
            f"{len(hidden['tests'])} tests")
    tests = []
    for index, (test, result) in enumerate(zip(hidden["tests"], results, strict=True)):
        expected = canonical_output(test["expected"], returns)
        value, printed, missing = read_result(result.stdout, nonce)
        ok = _passes(result, value, expected)
        record = {"index": index, "passed": ok, "status": result.status,
                  "stdout": None if value is None else _clip(value), "expected": expected,
                  "program_output": _clip(printed),
                  "stderr": _clip(result.stderr), "exit_code": result.exit_code,
                  "time_s": result.time_s, "truncated": result.truncated}
        mismatch = (parse_type_mismatch(result.exit_code, result.stderr)
                    if result.status == "runtime_error" else None)
        if mismatch is not None:  # the harness rejected the result's type: a wrong answer
            record.update(status="wrong_answer", type_mismatch=mismatch)
        elif result.status == "ok" and value is None:  # exited early or wrote its own result
            record.update(status="wrong_answer", no_result=missing)
        tests.append(record)
    passed = sum(t["passed"] for t in tests)
    fraction = passed / len(tests) if tests else 0.0
    all_ok = bool(tests) and passed == len(tests)
    failing = next((t for t in tests if not t["passed"]), None)
    if all_ok:
        return outcome(True, True, fraction, "passed", "", tests, **service)
    if failing is None:
        return outcome(False, True, 0.0, "wrong_answer", "no tests", tests, **service)
    word = failing["status"] if failing["status"] != "ok" else "wrong_answer"
    cut = " (output truncated at the service's cap)" if failing["truncated"] else ""
    typed = (f": result type mismatch: {failing['type_mismatch']}"
             if "type_mismatch" in failing else
             f": {failing['no_result']}" if "no_result" in failing else "")
    return outcome(False, True, fraction, word, f"test {failing['index']}: {word}{typed}{cut}",
                   tests, **service)


def judge_browser(task: Mapping[str, Any], hidden: Mapping[str, Any],
                  reply: BrowserReply | Mapping[str, Any]) -> dict:
    """Compare browser observations with the hidden expectations (via smolscript.web).

    Raises ScoringInfraError when the reply reports `infra_error`.
    """
    from smolscript.web import score_browser_result

    reply = _reply(BrowserReply, task, reply)
    try:
        scored = score_browser_result(reply.model_dump(), list(hidden["tests"]))
    except ScoringInfraError as exc:
        raise ScoringInfraError(f"{task.get('id')}: {exc.reason}", exc.url) from exc
    status = "passed" if scored["passed"] else (
        "timeout" if scored.get("status") == "timeout" else "wrong_answer")
    return outcome(scored["passed"], scored["syntax_ok"], scored["fraction"], status,
                   "; ".join(_clip(e) for e in reply.errors)[:MAX_KEPT_OUTPUT],
                   scored["verdicts"])


async def score_code(task: Mapping[str, Any], hidden: Mapping[str, Any], code: str | None,
                     client: ScoringClient, note: str = "", *, credit_rate: bool = True,
                     reward_only: bool = False) -> dict:
    """Score assembled `code` for one task; None code (rejected by assembly) fails with `note`.

    `hidden_test_pass_rate` credits only tests that no baseline answer passes (`credit.py`);
    the plain share of tests passed is kept as `raw_test_pass_rate`. `credit_rate=False`
    (callers that need only `passed`, such as the dataset validation) skips the baseline
    runs: the rate is then the raw share, and `passed` is the same either way.
    `reward_only=True` (see `score_reward_only`) decides `passed` and `syntax_ok` only,
    stopping a program job at its first failing test. Raises ScoringInfraError on any
    infrastructure failure (including transport errors).
    """
    if code is None:
        return rejected_outcome(note or "rejected")
    if reward_only:
        return await score_reward_only(task, hidden, code, client)
    verdict = await _judge_code(task, hidden, code, client)
    verdict["raw_test_pass_rate"] = verdict["hidden_test_pass_rate"]
    flags = [bool(t["passed"]) for t in verdict["tests"]]
    if credit_rate and any(flags) and not all(flags):  # all or none: no baseline changes it
        baselines = [await _baseline_flags(task, hidden, source, client)
                     for source in credit.baseline_sources(task, hidden)]
        credits = credit.credited(flags, baselines)
        for test, earns in zip(verdict["tests"], credits, strict=True):
            test["credited"] = earns
        verdict["hidden_test_pass_rate"] = credit.credited_rate(flags, credits)
    return verdict


async def score_reward_only(task: Mapping[str, Any], hidden: Mapping[str, Any], code: str,
                            client: ScoringClient) -> dict:
    """The verdict of assembled `code` as far as `passed` and `syntax_ok` need it.

    `passed` is 1 only when every hidden test passes, so a program job is stopped at its
    first failing test (`run_program_job_until`; the service kills the job, the tests after
    it never run) and no credit baselines run. `passed`, `syntax_ok`, `status` and
    `reason` are those of the full verdict (its reason already names the first failing
    test); a job stopped early has no test fractions (`hidden_test_pass_rate` and
    `raw_test_pass_rate` are None) and says `stopped_early` with `tests_run` of
    `tests_total`. The candidate cannot tell: its files and inputs are the full job's.
    Browser jobs run whole (one page for all probes). Raises ScoringInfraError as
    `score_code`.
    """
    until = getattr(client, "run_program_job_until", None)
    if task.get("modality") == "browser" or until is None:
        verdict = await _judge_code(task, hidden, code, client)
        return {**verdict, "raw_test_pass_rate": verdict["hidden_test_pass_rate"],
                "stopped_early": False}
    nonce = new_nonce()
    tests = hidden["tests"]
    try:
        reply, stopped = await until(program_job(task, hidden, code, nonce),
                                     lambda i, result: test_passes(task, tests[i], result,
                                                                   nonce))
    except InfrastructureError as exc:
        raise ScoringInfraError(f"{task.get('id')}: {exc.reason}", exc.url) from exc
    if not stopped:
        verdict = judge_program(task, hidden, reply, nonce)
        return {**verdict, "raw_test_pass_rate": verdict["hidden_test_pass_rate"],
                "stopped_early": False}
    ran = len(reply.tests)
    verdict = judge_program(task, {**hidden, "tests": tests[:ran]}, reply, nonce)
    if verdict["passed"] or verdict["tests"][-1]["passed"]:  # the stop is a failing test
        raise ScoringInfraError(f"{task.get('id')}: a job stopped early at a passing test")
    return {**verdict, "hidden_test_pass_rate": None, "raw_test_pass_rate": None,
            "stopped_early": True, "tests_run": ran, "tests_total": len(tests)}


async def _baseline_flags(task: Mapping[str, Any], hidden: Mapping[str, Any], source: str,
                          client: ScoringClient) -> list[bool]:
    """Per hidden test, whether the baseline `source` passes it (cached per process)."""
    key = credit.cache_key(task, hidden, source)
    flags = credit.cached(key)
    if flags is None:
        verdict = await _judge_code(task, hidden, source, client)
        flags = [bool(t["passed"]) for t in verdict["tests"]] or [False] * len(hidden["tests"])
        credit.remember(key, flags)
    return flags


async def _judge_code(task: Mapping[str, Any], hidden: Mapping[str, Any], code: str,
                      client: ScoringClient) -> dict:
    """Run `code` through the service and judge it against the hidden tests."""
    try:
        if task.get("modality") == "browser":
            reply = await client.run_browser_job(build_browser_job(dict(task), code))
            return judge_browser(task, hidden, reply)
        nonce = new_nonce()
        reply = await client.run_program_job(program_job(task, hidden, code, nonce))
    except InfrastructureError as exc:  # the client's SandboxInfraError, or ours
        raise ScoringInfraError(f"{task.get('id')}: {exc.reason}", exc.url) from exc
    return judge_program(task, hidden, reply, nonce)


def resolve_service_url(url: str | None = None, start: bool = True) -> str:
    """The scoring service to use: `url` as given (one URL or several, comma-separated), else
    the local one (reused or started).

    Without `url`: $SMOLSCRIPT_SANDBOX_URL / the default address is reused when its /health
    answers; otherwise, when `start` is true, the local service is started (`python -m
    smolscript_sandbox start`; it needs the `smolscript-sandbox[service]` extra). Raises
    ScoringInfraError when no service can be reached or started.
    """
    if url:
        return url.rstrip("/")
    import httpx
    from smolscript_sandbox.client import default_url

    base = default_url()
    if "," in base:  # several replicas: the client health-checks and spreads over them
        return base
    try:
        if httpx.get(f"{base}/health", timeout=3.0).status_code == 200:
            return base
    except httpx.HTTPError:
        pass
    if not start:
        raise ScoringInfraError("no scoring service answers here", base)
    from urllib.parse import urlparse

    from smolscript_sandbox import control
    from smolscript_sandbox.config import ServiceConfig

    where = urlparse(base)  # start it where it was looked for, not at another default port
    config = ServiceConfig.from_env(host=where.hostname, port=where.port)
    try:
        _, started = control.start_owned(config)
    except InfrastructureError as exc:
        raise ScoringInfraError(f"could not start it: {exc.reason}", base) from exc
    if started:
        print(f"smolscript: started the scoring service at {config.base_url}; it stays up for "
              f"later runs (stop it: python -m smolscript_sandbox stop --port {config.port})",
              file=sys.stderr)
    return config.base_url.rstrip("/")
