"""Refuse a resumed run that would pool two definitions of a benchmark.

vf-eval 0.3.1's `--resume PATH` (and `smol-envs eval --resume`, which uses it) loads the rows
saved in PATH as they are and runs only the examples missing there; verifiers checks the
environment id, model and row counts, not what the rows were scored by. Rows scored under
another behaviour version of the environment, or drawn from another build of its dataset, would
be averaged with new ones into one figure. `refuse_mixed_resume` compares them before the first
request. Reads files only.
"""

from __future__ import annotations

import json
from collections.abc import Iterable, Mapping
from pathlib import Path
from typing import Any

from ..errors import SmolEnvsError

VERSION_KEY = "behaviour_version"
DATASET_KEY = "dataset_sha256"


def _info(row: Mapping[str, Any]) -> dict:
    info = row.get("info") or {}
    if isinstance(info, str):
        try:
            info = json.loads(info)
        except ValueError:
            return {}
    return dict(info) if isinstance(info, Mapping) else {}


def _saved(folder: Path) -> tuple[dict, list[dict]] | None:
    """(metadata, rows) of a saved run folder, or None when it holds no saved run."""
    meta_path, results = folder / "metadata.json", folder / "results.jsonl"
    if not (meta_path.is_file() and results.is_file()):
        return None
    try:
        metadata = json.loads(meta_path.read_text())
    except ValueError:
        return None
    rows = []
    for line in results.read_text(encoding="utf-8").splitlines():
        try:
            row = json.loads(line) if line.strip() else None
        except ValueError:
            continue
        if isinstance(row, dict):
            rows.append(row)
    return (metadata if isinstance(metadata, dict) else {}), rows


def refuse_mixed_resume(results_path: Path | str | None, behaviour_version: str | None,
                        inputs: Iterable[Mapping[str, Any]] | None) -> None:
    """Raise when the run saved at `results_path` (the folder a resumed run appends to) was
    scored under another behaviour version, or its rows name another dataset build
    (`info.dataset_sha256`) than `inputs` (the rows about to run); a path holding no saved run
    (a fresh run) passes.

    behaviour_version: the environment's current one (None: unversioned, not compared).
    Raises:
        SmolEnvsError: one line naming both versions (or dataset hashes) and the way out.
    """
    found = _saved(Path(results_path)) if results_path is not None else None
    if found is None:
        return
    metadata, rows = found
    saved = {str(v) for v in [metadata.get(VERSION_KEY), *(_info(r).get(VERSION_KEY)
                                                            for r in rows)] if v}
    if behaviour_version is not None and saved and saved != {str(behaviour_version)}:
        raise SmolEnvsError(
            f"cannot resume {results_path}: its rows were scored under behaviour version "
            f"{', '.join(sorted(saved))}, the environment is now at {behaviour_version} "
            "(mixing would pool two definitions); rerun it whole into another folder")
    kept = {str(_info(r)[DATASET_KEY]) for r in rows if _info(r).get(DATASET_KEY)}
    now = {str(_info(r)[DATASET_KEY]) for r in (inputs or []) if _info(r).get(DATASET_KEY)}
    if kept and now and not kept <= now:
        raise SmolEnvsError(
            f"cannot resume {results_path}: its rows are of dataset {', '.join(sorted(kept))}, "
            f"the environment now loads {', '.join(sorted(now))} (mixing would pool two "
            "definitions); rerun it whole into another folder")
