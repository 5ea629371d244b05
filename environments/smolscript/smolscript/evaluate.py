"""Standalone evaluator: score externally generated code (`{"id","code"}` JSONL) on smolscript.

The run file machinery here (lock, resume checks, checkpoints, scoring tasks, summary) is shared
with the model path, `smolscript.evaluate_model` (`smolscript evaluate --model`).

`evaluate_predictions(...)` assembles each prediction (complete source, raw or one fenced
block), runs it through the scoring service and writes a results file that keeps per-test
outputs and verdicts. Runs are resumable and safe:

- an existing output requires `resume=True`; its settings, dataset hash, runner hash, scorer
  (the service's fingerprint: its container image id) and selected ids must match, and the
  tasks already scored are skipped;
- completed tasks are checkpointed atomically (write to a temporary file, then rename);
- one process per output path (a file lock beside it);
- an infrastructure error stops the run (exit status 3): the checkpoint keeps what was scored,
  the run is marked stopped and receives no score; a partial run never gets a full score;
- a selected task without a prediction is recorded as `missing_prediction`, counted in the
  summary (`missing_predictions`, `tasks_missing`) and withholds the score.
"""

from __future__ import annotations

import asyncio
import hashlib
import json
import os
import tempfile
import time
from collections.abc import Awaitable, Callable, Iterator, Mapping, Sequence
from contextlib import contextmanager
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from filelock import FileLock, Timeout
from smol_envs_core.errors import InfrastructureError

from smolscript import data, report
from smolscript.assemble import ASSEMBLY_VERSION, assemble_prediction
from smolscript.errors import EvaluationError, InfraStop, ScoringInfraError
from smolscript.gate import ScoringGate, Slot
from smolscript.scorer import BEHAVIOUR_VERSION

RESULTS_FORMAT = "smolscript-results-v1"
# Modules whose code decides a verdict; their bytes form the runner hash.
RUNNER_MODULES = ("assemble.py", "scopes.py", "verdict.py", "types.py", "frames.py", "drivers.py",
                  "languages.py", "web/compare.py", "web/values.py",
                  *(f"drivers/{name}" for name in ("python.py", "javascript.js", "c.c",
                                                   "cpp.cpp", "csharp.cs", "rust.rs",
                                                   "lua.lua")))


def runner_hash() -> str:
    """sha256 over the modules that decide verdicts (see RUNNER_MODULES)."""
    return modules_hash(RUNNER_MODULES)


def modules_hash(names: Sequence[str]) -> str:
    """sha256 over the names and bytes of these smolscript modules (paths relative to the
    package; a missing one hashes as `<missing>`)."""
    root = Path(__file__).resolve().parent
    digest = hashlib.sha256()
    for name in names:
        path = root / name
        digest.update(name.encode())
        digest.update(path.read_bytes() if path.is_file() else b"<missing>")
    return digest.hexdigest()


def read_predictions(path: str | Path) -> dict[str, str]:
    """`{"id","code"}` JSONL -> {id: code}; raises EvaluationError on a bad or duplicate line."""
    predictions: dict[str, str] = {}
    try:
        lines = Path(path).read_text(encoding="utf-8").splitlines()
    except OSError as exc:
        raise EvaluationError(f"cannot read predictions {path}: {exc}") from exc
    for number, line in enumerate(lines, 1):
        if not line.strip():
            continue
        try:
            row = json.loads(line)
        except json.JSONDecodeError as exc:
            raise EvaluationError(f"{path}:{number}: not JSON: {exc}") from exc
        if not isinstance(row, dict) or not isinstance(row.get("id"), str) \
                or not isinstance(row.get("code"), str):
            raise EvaluationError(f"{path}:{number}: expected {{\"id\": str, \"code\": str}}")
        if row["id"] in predictions:
            raise EvaluationError(f"{path}:{number}: duplicate id {row['id']!r}")
        predictions[row["id"]] = row["code"]
    return predictions


def write_atomic(path: Path, payload: Mapping[str, Any]) -> None:
    """Write JSON to `path` via a temporary file in the same folder and an atomic rename."""
    path.parent.mkdir(parents=True, exist_ok=True)
    fd, tmp = tempfile.mkstemp(prefix=f".{path.name}.", suffix=".tmp", dir=path.parent)
    try:
        with os.fdopen(fd, "w", encoding="utf-8") as handle:
            json.dump(payload, handle, indent=1, sort_keys=True)
            handle.write("\n")
            handle.flush()
            os.fsync(handle.fileno())
        os.replace(tmp, path)
    except BaseException:
        Path(tmp).unlink(missing_ok=True)
        raise


@dataclass
class Run:
    """The identity of an evaluation run (what a resume must match) and its results."""

    settings: dict
    selected_ids: list[str]
    results: dict[str, dict] = field(default_factory=dict)
    # Further top-level sections of the results document (the model path's generations).
    sections: dict[str, Any] = field(default_factory=dict)

    def identity(self) -> dict:
        """What a resumed run must match: the settings and the selected task ids."""
        return {**self.settings, "selected_ids": self.selected_ids}


def scorer_fingerprint(client_factory: Callable[[], Any]) -> str | None:
    """The scoring service's fingerprint from its health record: `image:sha256:<image id>`
    for the service's container image, `host:<hash of the toolchains>` for a host service
    (one fingerprint for several replicas, which must agree); None for a client without
    `health()`. Part of a run's identity, so that a resume never mixes scorers.

    Raises InfraStop when the service does not answer.
    """
    async def ask() -> str | None:
        async with client_factory() as client:
            health = getattr(client, "health", None)
            return None if health is None else (await health()).get("fingerprint")

    try:
        return asyncio.run(ask())
    except InfrastructureError as exc:
        raise InfraStop(f"the scoring service does not answer: {exc}") from exc


def _load_for_resume(output: Path, run: Run) -> dict[str, Any]:
    """The previous results document at `output`, once its identity matches `run`'s.

    Raises EvaluationError (unreadable, another format, or settings that differ)."""
    try:
        previous = json.loads(output.read_text(encoding="utf-8"))
    except (OSError, json.JSONDecodeError) as exc:
        raise EvaluationError(f"cannot resume from {output}: {exc}") from exc
    if previous.get("format") != RESULTS_FORMAT:
        raise EvaluationError(f"{output} is not a {RESULTS_FORMAT} file")
    old = previous.get("run", {})
    old_identity = {**old.get("settings", {}), "selected_ids": old.get("selected_ids")}
    diffs = sorted(k for k in set(old_identity) | set(run.identity())
                   if old_identity.get(k) != run.identity().get(k))
    if diffs:
        raise EvaluationError(f"cannot resume {output}: {', '.join(diffs)} differ from this run "
                              "(use a new output path)")
    return previous


def selected(section: Mapping[str, Any] | None, run: Run) -> dict[str, Any]:
    """The entries of a document section (task id -> entry) that `run` selected."""
    ids = set(run.selected_ids)
    return {k: v for k, v in (section or {}).items() if k in ids}


@contextmanager
def open_output(output: Path, run: Run, resume: bool) -> Iterator[dict[str, Any]]:
    """Hold the output's file lock; yields the previous document when resuming (checked
    against `run`'s identity, its selected results already in `run.results`), else {}.

    Raises EvaluationError: the output is locked by another process, exists without
    `resume`, or does not match this run."""
    lock = FileLock(str(output) + ".lock")
    try:
        lock.acquire(timeout=0)
    except Timeout as exc:
        raise EvaluationError(f"{output} is being written by another process") from exc
    try:
        previous: dict[str, Any] = {}
        if output.exists():
            if not resume:
                raise EvaluationError(f"{output} exists: pass --resume to continue it, "
                                      "or choose a new output path")
            previous = _load_for_resume(output, run)
            run.results = selected(previous.get("results"), run)
        yield previous
    finally:
        lock.release()


def _document(run: Run, status: str, summary: dict | None, error: str = "") -> dict:
    return {"format": RESULTS_FORMAT, "status": status, "error": error,
            "behaviour_version": BEHAVIOUR_VERSION,
            "run": {"settings": run.settings, "selected_ids": run.selected_ids},
            "summary": summary, "results": dict(sorted(run.results.items())), **run.sections}


def checkpoint(output: Path, run: Run) -> None:
    """Write the run as it stands (status "partial", no score), atomically."""
    write_atomic(output, _document(run, "partial", None))


def stop_run(output: Path, run: Run, exc: Exception) -> InfraStop:
    """Write the run as stopped on an infrastructure error (no score) and return the
    InfraStop to raise, which says how far the run got."""
    write_atomic(output, _document(run, "stopped", None, f"infra_error: {exc}"))
    return InfraStop("stopped on an infrastructure error (no score given): "
                     f"{stop_counts(run.results, len(run.selected_ids))}: {exc}")


def finish(output: Path, run: Run, languages: Sequence[str], filtered: bool) -> dict:
    """Summarize the run's records (report.summarize), write the complete document and
    return it."""
    summary = report.summarize(
        [{**{k: r[k] for k in (*report.REQUIRED_FIELDS, "status") if k in r},
          "toolchain": r.get("toolchain")}
         for r in run.results.values()],
        selected_languages=languages, expected_ids=run.selected_ids, filtered=filtered)
    document = _document(run, "complete", summary)
    document["finished_at"] = time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime())
    write_atomic(output, document)
    return document


def base_settings(edition: str, languages: list[str], difficulties: list[str], mode: str,
                  client_factory: Callable[[], Any]) -> dict[str, Any]:
    """The settings every evaluator run records (and a resume must match): edition and
    selection, assembly version, dataset and runner hashes, mode and the scorer's
    fingerprint (asked from the service: raises InfraStop when it does not answer)."""
    return {"edition": edition, "languages": languages, "difficulties": difficulties,
            "assembly": ASSEMBLY_VERSION, "dataset_sha256": data.dataset_hash(edition),
            "runner_sha256": runner_hash(), "mode": mode,
            "scorer": scorer_fingerprint(client_factory)}


def stop_counts(results: Mapping[str, Mapping[str, Any]], total: int) -> str:
    """How far a stopped run got, as one phrase: `S of T selected tasks scored, M without a
    prediction (never sent), R not scored`. Only tasks the scoring service answered count as
    scored; a `missing_prediction` record was written without sending anything. Pure."""
    missing = sum(1 for r in results.values() if report.is_missing_prediction(r))
    scored = len(results) - missing
    return (f"{scored} of {total} selected tasks scored, {missing} without a prediction "
            f"(never sent), {total - scored - missing} not scored")


def task_record(task: Mapping[str, Any], verdict: Mapping[str, Any], code: str | None,
                assembly: Mapping[str, Any] | None, **extra: Any) -> dict:
    """One task's results record: id, language, difficulty, the evaluated code, the assembly
    ({mode, note}), `extra` fields, then the verdict's fields."""
    return {"id": task["id"], "language": task["language"], "difficulty": task["difficulty"],
            "evaluated_code": code, "assembly": dict(assembly) if assembly else None,
            **extra, **verdict}


class ScoringTasks:
    """The scoring coroutines of one run, each holding a slot of the run's gate
    (`gate.ScoringGate`) for its whole scoring, so at most the gate's `concurrency` are in
    flight and a task waiting for a slot has not started; `on_done(record)` is called in the
    event loop as each finishes. The first failure (a ScoringInfraError) is re-raised by
    `raise_failure` or `drain`, which cancel the rest."""

    def __init__(self, gate: ScoringGate, on_done: Callable[[dict], None]):
        self.gate = gate
        self.on_done = on_done
        self.futures: list[asyncio.Future] = []
        self.failed = False

    def submit(self, score: Callable[[Slot], Awaitable[dict]]) -> None:
        """Schedule one task's scoring (`score(slot)` sends on the slot it is given and
        returns the task's record); none starts after a failure."""
        async def one() -> None:
            async with self.gate.slot() as slot:
                if self.failed:
                    return
                try:
                    record = await score(slot)
                except BaseException:
                    self.failed = True
                    raise
            self.on_done(record)

        self.futures.append(asyncio.ensure_future(one()))

    def raise_failure(self) -> None:
        """Re-raise the first failure among the finished scorings, if any."""
        for future in self.futures:
            if future.done() and not future.cancelled() and future.exception() is not None:
                raise future.exception()

    async def drain(self) -> None:
        """Wait for every scoring; on the first failure cancel the rest and re-raise it."""
        pending = set(self.futures)
        try:
            while pending:
                _, pending = await asyncio.wait(pending, return_when=asyncio.FIRST_EXCEPTION)
                self.raise_failure()
        finally:
            for future in pending:
                future.cancel()
            # Retrieve every outcome so that no failure is left unobserved.
            await asyncio.gather(*self.futures, return_exceptions=True)


async def _score_all(tasks: Sequence[Mapping[str, Any]], hidden: Mapping[str, Mapping],
                     predictions: Mapping[str, str], gate: ScoringGate,
                     on_done: Callable[[dict], None]) -> None:
    """Score tasks with at most the gate's `concurrency` in flight; the first infra error
    cancels all."""
    pool = ScoringTasks(gate, on_done)

    def scorer(task: Mapping[str, Any]) -> Callable[[Slot], Awaitable[dict]]:
        async def score(slot: Slot) -> dict:
            code = predictions.get(task["id"])
            if code is None:
                verdict = {"passed": False, "syntax_ok": False, "hidden_test_pass_rate": 0.0,
                           "status": report.MISSING_PREDICTION, "reason": "no prediction for id",
                           "tests": []}
                return task_record(task, verdict, None, None)
            assembly = assemble_prediction(task, code)
            verdict = await slot.score(task, hidden[task["id"]], assembly.code,
                                       assembly.note)
            return task_record(task, verdict, assembly.code,
                               {"mode": assembly.mode, "note": assembly.note})
        return score

    for task in tasks:
        pool.submit(scorer(task))
    await pool.drain()


def evaluate_predictions(
    predictions_path: str | Path,
    output: str | Path,
    *,
    client_factory: Callable[[], Any],
    edition: str = "default",
    languages: Sequence[str] | None = None,
    difficulties: Sequence[str] | None = None,
    resume: bool = False,
    concurrency: int = 8,
    progress: Callable[[int, int], None] | None = None,
) -> dict:
    """Score a predictions file and write `output`; returns the final results document.

    client_factory: returns an async context manager yielding a ScoringClient (for example
      `lambda: SandboxClient(url)`).
    Raises EvaluationError (bad input, resume mismatch, output locked) and InfraStop (after
    checkpointing) when the scoring infrastructure fails.
    """
    if concurrency < 1:
        raise EvaluationError(f"concurrency must be >= 1, got {concurrency}")
    output = Path(output)
    langs, diffs = data.check_selection(languages, difficulties)
    tasks = data.load_tasks(edition, langs, diffs)
    if not tasks:
        raise EvaluationError("the selection holds no tasks")
    hidden = data.hidden_for(tasks, data.load_hidden(edition))
    predictions = read_predictions(predictions_path)
    unknown = sorted(set(predictions) - {t["id"] for t in data.load_tasks(edition)})
    if unknown:
        raise EvaluationError(f"{len(unknown)} prediction id(s) are not in edition {edition!r}: "
                              f"{unknown[:5]}")
    filtered = bool(languages or difficulties)
    settings = base_settings(edition, langs, diffs, "predictions", client_factory)
    settings["predictions_sha256"] = hashlib.sha256(Path(predictions_path).read_bytes()).hexdigest()
    run = Run(settings=settings, selected_ids=[t["id"] for t in tasks])
    with open_output(output, run, resume):
        todo = [t for t in tasks if t["id"] not in run.results]
        total = len(tasks)

        def on_done(record: dict) -> None:
            run.results[record["id"]] = record
            checkpoint(output, run)
            if progress is not None:
                progress(len(run.results), total)

        async def main() -> None:
            async with client_factory() as client:
                await _score_all(todo, hidden, predictions,
                                 ScoringGate.on_client(client, concurrency), on_done)

        try:
            asyncio.run(main())
        except ScoringInfraError as exc:
            raise stop_run(output, run, exc) from exc
        return finish(output, run, langs, filtered)
