"""Standalone evaluator: score externally generated code (`{"id","code"}` JSONL) on smolscript.

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
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from filelock import FileLock, Timeout
from smol_envs_core.errors import InfrastructureError

from smolscript import data, report
from smolscript.assemble import ASSEMBLY_VERSION, assemble_prediction
from smolscript.errors import EvaluationError, InfraStop, ScoringInfraError
from smolscript.scoring import ScoringClient, score_code

RESULTS_FORMAT = "smolscript-results-v1"
# Modules whose code decides a verdict; their bytes form the runner hash.
RUNNER_MODULES = ("assemble.py", "scopes.py", "scoring.py", "types.py", "frames.py", "harness.py",
                  "languages.py", "web/compare.py", "web/values.py",
                  *(f"harnesses/{name}" for name in ("python.py", "javascript.js", "c.c",
                                                     "cpp.cpp", "csharp.cs", "rust.rs",
                                                     "lua.lua")))


def runner_hash() -> str:
    """sha256 over the modules that decide verdicts (see RUNNER_MODULES)."""
    root = Path(__file__).resolve().parent
    digest = hashlib.sha256()
    for name in RUNNER_MODULES:
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


def _load_for_resume(output: Path, run: Run) -> dict[str, dict]:
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
    return {k: v for k, v in previous.get("results", {}).items() if k in run.selected_ids}


def _document(run: Run, status: str, summary: dict | None, error: str = "") -> dict:
    return {"format": RESULTS_FORMAT, "status": status, "error": error,
            "run": {"settings": run.settings, "selected_ids": run.selected_ids},
            "summary": summary, "results": dict(sorted(run.results.items()))}


def stop_counts(results: Mapping[str, Mapping[str, Any]], total: int) -> str:
    """How far a stopped run got, as one phrase: `S of T selected tasks scored, M without a
    prediction (never sent), R not scored`. Only tasks the scoring service answered count as
    scored; a `missing_prediction` record was written without sending anything. Pure."""
    missing = sum(1 for r in results.values() if report.is_missing_prediction(r))
    scored = len(results) - missing
    return (f"{scored} of {total} selected tasks scored, {missing} without a prediction "
            f"(never sent), {total - scored - missing} not scored")


def _record(task: Mapping[str, Any], verdict: Mapping[str, Any], assembly: Any) -> dict:
    return {"id": task["id"], "language": task["language"], "difficulty": task["difficulty"],
            "evaluated_code": assembly.code if assembly is not None else None,
            "assembly": {"mode": assembly.mode, "note": assembly.note} if assembly else None,
            **verdict}


async def _score_all(tasks: Sequence[Mapping[str, Any]], hidden: Mapping[str, Mapping],
                     predictions: Mapping[str, str], client: ScoringClient, concurrency: int,
                     on_done: Callable[[dict], None]) -> None:
    """Score tasks with at most `concurrency` in flight; the first infra error cancels all."""
    semaphore = asyncio.Semaphore(concurrency)

    async def one(task: Mapping[str, Any]) -> dict:
        async with semaphore:
            code = predictions.get(task["id"])
            if code is None:
                verdict = {"passed": False, "syntax_ok": False, "hidden_test_pass_rate": 0.0,
                           "status": report.MISSING_PREDICTION, "reason": "no prediction for id",
                           "tests": []}
                return _record(task, verdict, None)
            assembly = assemble_prediction(task, code)
            verdict = await score_code(task, hidden[task["id"]], assembly.code, client,
                                       assembly.note)
            return _record(task, verdict, assembly)

    futures = [asyncio.ensure_future(one(task)) for task in tasks]
    pending = set(futures)
    try:
        while pending:
            done, pending = await asyncio.wait(pending, return_when=asyncio.FIRST_COMPLETED)
            for future in sorted(done, key=futures.index):
                on_done(future.result())  # re-raises a ScoringInfraError here
    finally:
        for future in pending:
            future.cancel()
        # Retrieve every outcome so that no failure is left unobserved.
        await asyncio.gather(*futures, return_exceptions=True)


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
    run = Run(settings={"edition": edition, "languages": langs, "difficulties": diffs,
                        "assembly": ASSEMBLY_VERSION, "dataset_sha256": data.dataset_hash(edition),
                        "runner_sha256": runner_hash(), "mode": "predictions",
                        "scorer": scorer_fingerprint(client_factory),
                        "predictions_sha256": hashlib.sha256(
                            Path(predictions_path).read_bytes()).hexdigest()},
              selected_ids=[t["id"] for t in tasks])
    lock = FileLock(str(output) + ".lock")
    try:
        lock.acquire(timeout=0)
    except Timeout as exc:
        raise EvaluationError(f"{output} is being written by another process") from exc
    try:
        if output.exists():
            if not resume:
                raise EvaluationError(f"{output} exists: pass --resume to continue it, "
                                      "or choose a new output path")
            run.results = _load_for_resume(output, run)
        todo = [t for t in tasks if t["id"] not in run.results]
        total = len(tasks)

        def on_done(record: dict) -> None:
            run.results[record["id"]] = record
            write_atomic(output, _document(run, "partial", None))
            if progress is not None:
                progress(len(run.results), total)

        async def main() -> None:
            async with client_factory() as client:
                await _score_all(todo, hidden, predictions, client, concurrency, on_done)

        try:
            asyncio.run(main())
        except ScoringInfraError as exc:
            write_atomic(output, _document(run, "stopped", None, f"infra_error: {exc}"))
            raise InfraStop("stopped on an infrastructure error (no score given): "
                            f"{stop_counts(run.results, total)}: {exc}") from exc
        summary = report.summarize(
            [{**{k: r[k] for k in (*report.REQUIRED_FIELDS, "status") if k in r},
              "toolchain": r.get("toolchain")}
             for r in run.results.values()],
            selected_languages=langs, expected_ids=run.selected_ids, filtered=filtered)
        document = _document(run, "complete", summary)
        document["finished_at"] = time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime())
        write_atomic(output, document)
        return document
    finally:
        lock.release()
