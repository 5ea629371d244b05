"""Row-level `--resume` of `smol-envs eval`: which rows of a saved run are kept, and the folder
vf-eval resumes from.

A run folder of a run set (`OUTPUT/<run>`) is complete when it holds one row per requested
example (verifiers' `num_examples` times `rollouts_per_example`) and no errored row. A run
stopped by Ctrl-C leaves its rows in `OUTPUT/<run>` marked incomplete; one stopped by an
infrastructure failure leaves them in `OUTPUT/<run>-FAILED` (which `smol-envs report` skips).
On `--resume` the kept rows of both (a row is dropped when errored: verifiers recorded an
`error` on it, or one of the error budgets' failure metrics is set, see `errored`) are written
to a fresh folder, and vf-eval 0.3.1's own `--resume PATH` runs only the examples that have no
kept row: kept rows are loaded as they are, never rescored. `order_rows` then sorts the merged
results by example id, as every finished run is, so a resumed run reads exactly like one run in
one go. A kept row of another selection (suite, limit, environment arguments) is refused here;
one of another behaviour version or dataset is refused by the failure policy
(`resume_guard`) before the first request.
"""

from __future__ import annotations

import json
import shutil
from collections.abc import Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from ..errors import SmolEnvsError

EVAL_KEY = "smol_envs_eval"  # the block each run's metadata.json gets
FAILED_SUFFIX = "-FAILED"
RESULTS, METADATA = "results.jsonl", "metadata.json"
# The zero-weight metrics that are 1.0 on a rollout whose scoring component failed and whose
# failure an error budget tolerated (`budget.ErrorBudget`; smoltalkbench's judge).
FAILURE_METRICS = ("judge_error",)


def errored(row: Mapping[str, Any]) -> bool:
    """True when the row's rollout failed on infrastructure: verifiers recorded an `error`, or
    a tolerated failure metric (FAILURE_METRICS) is set. Pure."""
    metrics = row.get("metrics") if isinstance(row.get("metrics"), Mapping) else {}
    return bool(row.get("error")) or any(
        (metrics.get(name) or 0.0) >= 0.5 for name in FAILURE_METRICS)


def read_rows(folder: Path) -> list[dict]:
    """The rows of `folder`/results.jsonl in file order ([] when there is none); lines that are
    not JSON objects (a write cut short) are skipped."""
    path = Path(folder) / RESULTS
    if not path.is_file():
        return []
    rows = []
    for line in path.read_text(encoding="utf-8").splitlines():
        try:
            row = json.loads(line) if line.strip() else None
        except ValueError:
            continue
        if isinstance(row, dict) and "example_id" in row:
            rows.append(row)
    return rows


def read_metadata(folder: Path) -> dict:
    """`folder`/metadata.json as a dict ({} when absent or unreadable)."""
    try:
        found = json.loads((Path(folder) / METADATA).read_text())
    except (OSError, ValueError):
        return {}
    return found if isinstance(found, dict) else {}


def expected_rows(metadata: Mapping[str, Any]) -> int | None:
    """Rows a finished run of `metadata` holds (`num_examples` x `rollouts_per_example`, as
    verifiers records them when the run starts); None when not recorded. Pure."""
    n, r = metadata.get("num_examples"), metadata.get("rollouts_per_example", 1)
    return n * r if isinstance(n, int) and isinstance(r, int) and n >= 0 else None


def complete(folder: Path) -> bool:
    """True when `folder` holds a finished run of ours: the `smol-envs eval` block, not marked
    incomplete, every requested row present and none errored."""
    metadata, rows = read_metadata(folder), read_rows(folder)
    block = metadata.get(EVAL_KEY)
    if not isinstance(block, dict) or block.get("complete") is False or not rows:
        return False
    expected = expected_rows(metadata)
    return (expected is None or len(rows) == expected) and not any(map(errored, rows))


@dataclass(frozen=True)
class Saved:
    """What a run set holds of one run.

    Attributes:
        metadata: the saved metadata.json (of the folder with the most kept rows).
        kept: the rows kept (one per example id and rollout, none errored), by example id.
        dropped: how many saved rows were errored and will be rerun.
        expected: rows a finished run holds (None when not recorded).
    """

    metadata: dict
    kept: list[dict]
    dropped: int
    expected: int | None

    @property
    def missing(self) -> int:
        """Rows left to run (0 when unknown and nothing is kept)."""
        return max((self.expected or 0) - len(self.kept), 0)


def saved_run(out: Path, name: str) -> Saved | None:
    """The rows run set `out` holds of run `name` (`out/name` and `out/name-FAILED` together),
    or None when it holds none."""
    folders = [f for f in (out / name, out / f"{name}{FAILED_SUFFIX}") if (f / RESULTS).is_file()]
    if not folders:
        return None
    by_id: dict[Any, list[dict]] = {}
    dropped = 0
    metadata: dict = {}
    for folder in folders:
        meta = read_metadata(folder)
        metadata = metadata or meta
        per_id = max(int(meta.get("rollouts_per_example") or 1), 1)
        for row in read_rows(folder):
            if errored(row):
                dropped += 1
            elif len(by_id.setdefault(row["example_id"], [])) < per_id:
                by_id[row["example_id"]].append(row)
    kept = [row for key in sorted(by_id, key=_id_key) for row in by_id[key]]
    return Saved(metadata=metadata, kept=kept, dropped=dropped,
                 expected=expected_rows(metadata))


def _id_key(example_id: Any) -> tuple:
    return (0, example_id, "") if isinstance(example_id, int) else (1, 0, str(example_id))


def check_selection(saved: Saved, selection: Mapping[str, Any], where: Path) -> None:
    """Refuse to resume rows chosen by another selection (environment arguments, rows, flags).

    Raises:
        SmolEnvsError: one line naming what differs and the way out (another --output).
    """
    before = (saved.metadata.get(EVAL_KEY) or {}).get("selection")
    if before is None or before == json.loads(json.dumps(selection)):
        return
    differs = sorted(k for k in {*before, *selection} if before.get(k) != selection.get(k))
    raise SmolEnvsError(f"--resume: {where} holds rows of another selection "
                        f"({', '.join(differs)} differ: saved {before}, now {dict(selection)}); "
                        "rerun it under another --output")


def seed(stage: Path, saved: Saved) -> Path:
    """Write `saved`'s kept rows and metadata to `stage`/resumed (vf-eval's `--resume PATH`)
    and return that folder."""
    folder = stage / "resumed"
    folder.mkdir(parents=True, exist_ok=True)
    metadata = {k: v for k, v in saved.metadata.items() if k != EVAL_KEY}
    (folder / METADATA).write_text(json.dumps(metadata))
    (folder / RESULTS).write_text("".join(json.dumps(r) + "\n" for r in saved.kept))
    return folder


def order_rows(folder: Path) -> int:
    """Sort `folder`/results.jsonl by example id (stable: a row's rollouts keep their order),
    as vf-eval's returned results are; returns the row count."""
    rows = read_rows(folder)
    rows.sort(key=lambda r: _id_key(r["example_id"]))
    (folder / RESULTS).write_text("".join(json.dumps(r) + "\n" for r in rows))
    return len(rows)


def keep_unfinished(stage: Path, target: Path, extra: dict) -> int:
    """Keep the rows of a run stopped before its end: the one results folder under `stage`
    replaces `target` with `extra` and `complete: false` under EVAL_KEY in its metadata.
    Returns the rows kept (0, and nothing written, when the run saved none)."""
    found = [p.parent for p in stage.rglob(RESULTS)] if stage.is_dir() else []
    if len(found) != 1 or not read_rows(found[0]):
        return 0
    rows = order_rows(found[0])
    metadata = read_metadata(found[0])
    metadata[EVAL_KEY] = {**extra, "rows": rows, "complete": False}
    (found[0] / METADATA).write_text(json.dumps(metadata, indent=2) + "\n")
    if target.exists():
        shutil.rmtree(target)
    shutil.move(str(found[0]), target)
    return rows


def drop_leftovers(out: Path, name: str) -> None:
    """Remove `out/name-FAILED` once `out/name` is complete (its good rows were merged)."""
    shutil.rmtree(out / f"{name}{FAILED_SUFFIX}", ignore_errors=True)
