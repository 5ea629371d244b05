"""Full (execution) validation of a smolscript edition through the scoring service.

Every reference must pass every hidden test, every negative control must fail, every
near-miss must fail, and so must the pipeline mutants (``mutants.py``) that only one hidden
test catches (all non-equivalent mutants with ``mutants="all"``); checks go through the same
host-side scoring as model answers (`smolscript.verdict.score_code`), so validation proves
what evaluation will see. The first failing check stops the run with its task ID. A missing
service or toolchain (any infrastructure error) records "unverified" execution coverage and
exits 2; static success never marks execution as passed. `scripts/validate_smolscript.py
--full` calls `run_full`.
"""

from __future__ import annotations

import asyncio
import hashlib
import json
import sys
import time
from collections.abc import Callable, Iterable
from dataclasses import asdict, dataclass, field
from pathlib import Path
from typing import Any

EXIT_PASSED, EXIT_FAILED, EXIT_UNVERIFIED = 0, 1, 2
ROLES = ("reference", "negative_control", "near_miss", "mutant")
MUTANT_MODES = ("fragile", "all", "none")


@dataclass(frozen=True)
class Check:
    """One execution check: run `code` for task `task_id`; `must_pass` for references;
    `first_tests`: hidden-test indices to run first (a mutant's catching tests)."""

    task_id: str
    role: str
    code: str
    must_pass: bool
    first_tests: tuple[int, ...] = ()


@dataclass
class ExecutionSummary:
    """What was executed and how it ended (written under "execution" in the report)."""

    status: str = "unverified"  # passed | failed | unverified
    checks_planned: int = 0
    checks_run: int = 0
    by_role: dict[str, int] = field(default_factory=lambda: dict.fromkeys(ROLES, 0))
    tasks: int = 0
    tests_run: int = 0
    wall_s: float = 0.0
    tests_per_s: float = 0.0
    failure: dict | None = None
    reason: str = ""
    service: dict = field(default_factory=dict)


def read_jsonl(path: Path) -> list[dict]:
    """Rows of a JSON Lines file; raises FileNotFoundError / json.JSONDecodeError."""
    with path.open(encoding="utf-8") as fh:
        return [json.loads(line) for line in fh if line.strip()]


def load_edition(data_dir: Path) -> tuple[list[dict], dict[str, dict], dict[str, dict]]:
    """(public rows, solutions by id, hidden tests by id) of the edition under `data_dir`.

    Raises ValueError when a task lacks its solutions or hidden tests.
    """
    rows = read_jsonl(data_dir / "smolscript.jsonl")
    solutions = {r["id"]: r for r in read_jsonl(data_dir / "references" / "solutions.jsonl")}
    hidden = {r["id"]: r for r in read_jsonl(data_dir / "private_tests" / "hidden.jsonl")}
    missing = [r["id"] for r in rows if r["id"] not in solutions or r["id"] not in hidden]
    if missing:
        raise ValueError(f"tasks without references or hidden tests: {missing[:5]}")
    return rows, solutions, hidden


def plan_checks(rows: Iterable[dict], solutions: dict[str, dict],
                hidden: dict[str, dict] | None = None, mutants: str = "none") -> list[Check]:
    """Reference, negative control and (where present) near-miss of every task, in row order,
    each program task followed by its mutant checks (`mutant_checks`; needs `hidden`)."""
    if mutants not in MUTANT_MODES:
        raise ValueError(f"mutants must be one of {MUTANT_MODES}, got {mutants!r}")
    checks = []
    for row in rows:
        sol = solutions[row["id"]]
        checks.append(Check(row["id"], "reference", sol["reference_solution"], True))
        checks.append(Check(row["id"], "negative_control", sol["negative_control"], False))
        if sol.get("near_miss"):
            checks.append(Check(row["id"], "near_miss", sol["near_miss"], False))
        if mutants != "none" and row.get("modality") == "program" and hidden is not None:
            checks += mutant_checks(row, hidden[row["id"]], every=mutants == "all")
    return checks


def mutant_checks(row: dict, hidden: dict, every: bool = False) -> list[Check]:
    """Must-fail checks of a program task's non-equivalent pipeline mutants, emitted in the
    task's language: those exactly one hidden test catches (where an emission that strays
    from the oracle would matter most), or all of them with `every`. Each runs its catching
    tests first."""
    from smolscript_builder.emit import emit_source
    from smolscript_builder.grammar import emit_pipeline, run_pipeline
    from smolscript_builder.mutant_catch import task_verdicts

    if not (row.get("metadata") or {}).get("stages"):  # a hand-made task has no pipeline
        return []
    signature = row["signature"]
    param, returns = signature["params"][0]["name"], signature["returns"]
    expected = [t["expected"] for t in hidden["tests"]]
    checks = []
    for verdict in task_verdicts(row, hidden):
        if verdict.status != "caught":
            continue
        catching = tuple(i for i, t in enumerate(hidden["tests"])
                         if run_pipeline(verdict.mutant.stages, t["args"][0])[0] != expected[i])
        if every or len(catching) == 1:
            code = emit_source(row["language"],
                               emit_pipeline(verdict.mutant.stages, param, returns), signature)
            checks.append(Check(row["id"], "mutant", code, False, catching))
    return checks


FIRST_CHUNK, CHUNK = 4, 8


def failure_order(check: Check, hidden: dict) -> list[list[int]]:
    """Hidden-test indices of a must-fail check, in chunks: a near-miss's distinguishing
    tests (`near_miss_tests`) first, then the rest in file order."""
    count = len(hidden["tests"])
    first = [i for i in hidden.get("near_miss_tests") or [] if 0 <= i < count]
    if check.first_tests:
        first = [i for i in check.first_tests if 0 <= i < count]
    elif check.role != "near_miss" or not first:
        first = list(range(min(FIRST_CHUNK, count)))
    rest = [i for i in range(count) if i not in first]
    return [first] + [rest[i : i + CHUNK] for i in range(0, len(rest), CHUNK)]


async def score_check(
    check: Check, row: dict, hidden: dict, client: Any, score_code: Callable
) -> tuple[dict, int]:
    """(verdict, tests executed) of one check, scored as a model answer is scored, less the
    credit baselines of `hidden_test_pass_rate` (only `passed` is checked here, and it does
    not depend on them: `score_code(credit_rate=False)`).

    A reference (and every browser check) runs on all hidden tests at once. A negative
    control or near-miss runs chunk by chunk and stops at the first chunk it fails: since a
    task passes only when every hidden test passes, failing a subset is failing the task, so
    this proves the same thing with fewer runs.
    """
    if check.must_pass or row.get("modality") != "program" or not hidden["tests"]:
        verdict = await score_code(row, hidden, check.code, client, credit_rate=False)
        return verdict, len(verdict.get("tests") or [])
    ran = 0
    verdict: dict = {}
    for chunk in failure_order(check, hidden):
        part = {**hidden, "tests": [hidden["tests"][i] for i in chunk]}
        verdict = await score_code(row, part, check.code, client, credit_rate=False)
        ran += len(chunk)
        if not verdict["passed"]:
            break
    return verdict, ran


def interleaved(checks: list[Check], rows: dict[str, dict]) -> list[int]:
    """Indices of `checks` taken round-robin over languages, each language's in plan order.

    The edition's rows are grouped by language; run in that order, a stretch of compile-heavy
    checks (Rust, C++) and then a stretch of start-up-bound ones (Python, Lua) would each
    leave the CPUs half used. Interleaving keeps both kinds of work in flight.
    """
    by_language: dict[str, list[int]] = {}
    for index, check in enumerate(checks):
        by_language.setdefault(str(rows[check.task_id].get("language")), []).append(index)
    order: list[int] = []
    lanes = list(by_language.values())
    for depth in range(max((len(lane) for lane in lanes), default=0)):
        order.extend(lane[depth] for lane in lanes if depth < len(lane))
    return order


async def execute(
    checks: list[Check],
    rows: dict[str, dict],
    hidden: dict[str, dict],
    client: Any,
    *,
    concurrency: int,
    browser_concurrency: int | None = None,
    progress: Callable[[int, int], None] | None = None,
) -> ExecutionSummary:
    """Run the checks, program checks at most `concurrency` at a time and browser checks at
    most `browser_concurrency` (default: `concurrency`) beside them, each kind interleaved
    over languages; stop at the first failure (lowest index among the checks finished when it
    is seen). Program and browser checks use separate slot pools of the service, so that
    neither kind waits behind the other. Infrastructure errors propagate."""
    from smolscript.verdict import score_code

    summary = ExecutionSummary(checks_planned=len(checks))
    summary.tasks = len({c.task_id for c in checks})
    queues: dict[bool, asyncio.Queue[int]] = {True: asyncio.Queue(), False: asyncio.Queue()}
    for index in interleaved(checks, rows):
        browser = rows[checks[index].task_id].get("modality") == "browser"
        queues[browser].put_nowait(index)
    failures: dict[int, dict] = {}
    stop = asyncio.Event()

    async def worker(queue: asyncio.Queue[int]) -> None:
        while not stop.is_set():
            try:
                index = queue.get_nowait()
            except asyncio.QueueEmpty:
                return
            check = checks[index]
            verdict, ran = await score_check(
                check, rows[check.task_id], hidden[check.task_id], client, score_code
            )
            summary.checks_run += 1
            summary.by_role[check.role] += 1
            summary.tests_run += ran
            if verdict["passed"] != check.must_pass:
                failures[index] = {
                    "task_id": check.task_id,
                    "role": check.role,
                    "expected": "pass" if check.must_pass else "fail",
                    "status": verdict["status"],
                    "reason": verdict["reason"][:2000],
                }
                stop.set()
            if progress is not None:
                progress(summary.checks_run, len(checks))

    start = time.monotonic()
    widths = {False: concurrency, True: browser_concurrency or concurrency}
    workers = [asyncio.create_task(worker(queues[kind]))
               for kind, width in widths.items() for _ in range(width)]
    try:
        await asyncio.gather(*workers)
    finally:
        for task in workers:
            task.cancel()
    summary.wall_s = round(time.monotonic() - start, 2)
    summary.tests_per_s = round(summary.tests_run / summary.wall_s, 1) if summary.wall_s else 0.0
    if failures:
        summary.status = "failed"
        summary.failure = failures[min(failures)]
    else:
        summary.status = "passed"
    return summary


def execution_section(summary: ExecutionSummary) -> dict:
    """The report's "execution" section: the summary plus the dataset part's count fields."""
    section = asdict(summary)
    section["references_executed"] = summary.by_role["reference"]
    section["negative_controls_executed"] = summary.by_role["negative_control"]
    section["near_misses_executed"] = summary.by_role["near_miss"]
    section["mutants_executed"] = summary.by_role["mutant"]
    if summary.status == "passed":
        section["detail"] = (
            f"every reference passed and every negative control, near-miss and mutant failed "
            f"on the hidden tests in the isolated scoring service "
            f"({summary.service.get('isolation')}, "
            f"{summary.service.get('fingerprint')})"
        )
    elif summary.status == "failed":
        f = summary.failure or {}
        section["detail"] = (
            f"stopped at task {f.get('task_id')}: its {f.get('role')} should "
            f"{f.get('expected')} but got {f.get('status')}"
        )
    else:
        section["detail"] = f"execution not possible: {summary.reason}"
    return section


def run_execution_checks(data_dir: Path, files: dict | None = None, *,
                         mutants: str = "fragile", task_ids: set[str] | None = None) -> dict:
    """Hook of `scripts/validate_smolscript.py` (full mode): validate and return the report's
    "execution" section (status passed | failed | unverified); `files` is unused (the edition
    is read from `data_dir`); `mutants` and `task_ids` as in `validate_full`. Prints progress
    to stderr."""
    del files
    summary = asyncio.run(validate_full(Path(data_dir), progress=_progress_printer(),
                                        mutants=mutants, task_ids=task_ids))
    return execution_section(summary)


def write_report(report_path: Path, summary: ExecutionSummary) -> None:
    """Set the "execution" section of validation_report.json, keeping everything else."""
    report = {}
    if report_path.exists():
        report = json.loads(report_path.read_text(encoding="utf-8"))
    report["execution"] = execution_section(summary)
    report_path.write_text(json.dumps(report, indent=2, sort_keys=True) + "\n", encoding="utf-8")


def refresh_card(data_dir: Path) -> bool:
    """Re-render the card's status paragraph (README.md) from validation_report.json and keep
    checksums.json's entry for the card true; returns whether the card changed."""
    from smolscript_builder.card import with_status

    data_dir = Path(data_dir)
    card_path, sums_path = data_dir / "README.md", data_dir / "checksums.json"
    report = json.loads((data_dir / "validation_report.json").read_text(encoding="utf-8"))
    old = card_path.read_text(encoding="utf-8")
    new = with_status(old, report)
    if new == old:
        return False
    card_path.write_text(new, encoding="utf-8")
    sums = json.loads(sums_path.read_text(encoding="utf-8"))
    sums["README.md"] = hashlib.sha256(new.encode()).hexdigest()
    sums_path.write_text(json.dumps(sums, indent=1, sort_keys=True, ensure_ascii=True) + "\n")
    return True


def _progress_printer(stream=sys.stderr) -> Callable[[int, int], None]:
    start = time.monotonic()

    def show(done: int, total: int) -> None:
        if done % 50 == 0 or done == total:
            rate = done / max(time.monotonic() - start, 1e-9)
            print(f"  executed {done}/{total} checks ({rate:.1f}/s)", file=stream, flush=True)

    return show


async def validate_full(
    data_dir: Path,
    *,
    url: str | None = None,
    start_service: bool = True,
    concurrency: int | None = None,
    task_ids: set[str] | None = None,
    progress: Callable[[int, int], None] | None = None,
    mutants: str = "fragile",
) -> ExecutionSummary:
    """Plan and execute every check of the edition (or of `task_ids`), with the mutant
    checks `mutants` selects (`MUTANT_MODES`); infra problems give status unverified."""
    from smol_envs_core.errors import InfrastructureError
    from smolscript.verdict import resolve_service_url
    from smolscript_sandbox.client import SandboxClient

    rows, solutions, hidden = load_edition(data_dir)
    if task_ids is not None:
        rows = [r for r in rows if r["id"] in task_ids]
    checks = plan_checks(rows, solutions, hidden, mutants)
    try:
        base = resolve_service_url(url, start=start_service)
        async with SandboxClient(base, max_concurrency=64) as client:
            health = await client.health()
            width = concurrency or max(2, 2 * int(health["slots"]))
            summary = await execute(
                checks,
                {r["id"]: r for r in rows},
                hidden,
                client,
                concurrency=width,
                browser_concurrency=concurrency or max(2, 2 * int(health["browser_slots"])),
                progress=progress,
            )
    except InfrastructureError as exc:  # the service or the client's transport failed
        return ExecutionSummary(
            status="unverified", checks_planned=len(checks),
            reason=f"infrastructure: {exc.component} {exc.url or ''}: {exc.reason}",
        )
    summary.service = {k: health.get(k) for k in ("isolation", "slots", "fingerprint", "version")}
    return summary


def run_full(
    data_dir: Path,
    report_path: Path | None = None,
    *,
    url: str | None = None,
    start_service: bool = True,
    concurrency: int | None = None,
) -> int:
    """Command-line body of `validate_smolscript.py --full`: prints a summary, updates the
    report's "execution" section, returns 0 passed, 1 a check failed, 2 unverified."""
    print(f"full validation of {data_dir} through the scoring service", file=sys.stderr)
    summary = asyncio.run(
        validate_full(
            data_dir,
            url=url,
            start_service=start_service,
            concurrency=concurrency,
            progress=_progress_printer(),
        )
    )
    if report_path is not None:
        write_report(report_path, summary)
    if summary.status == "unverified":
        print(f"UNVERIFIED: {summary.reason}", file=sys.stderr)
        return EXIT_UNVERIFIED
    line = (
        f"{summary.checks_run}/{summary.checks_planned} checks ({summary.by_role}) "
        f"{summary.tests_run} tests in {summary.wall_s} s ({summary.tests_per_s} tests/s)"
    )
    if summary.status == "failed":
        f = summary.failure or {}
        print(
            f"FAILED at task {f.get('task_id')}: {f.get('role')} should {f.get('expected')} "
            f"but got {f.get('status')} ({f.get('reason')})\n{line}",
            file=sys.stderr,
        )
        return EXIT_FAILED
    print(f"execution validated: {line}", file=sys.stderr)
    return EXIT_PASSED
