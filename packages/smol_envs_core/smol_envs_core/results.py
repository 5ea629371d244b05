"""The one reader of what `vf-eval -s` saves: `results.jsonl` (one rollout per line, with
`info`, `metrics`, `reward`) and the `metadata.json` beside it. Pure reading, no verifiers."""

from __future__ import annotations

import json
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

RESULTS_FILE = "results.jsonl"
METADATA_FILE = "metadata.json"


class ResultsError(ValueError):
    """A results file is missing, unreadable or not JSON Lines (the message names the file)."""


@dataclass(frozen=True)
class Results:
    """Rows of one results file, the line number of each (1-based) and the run's metadata."""

    path: Path
    rows: list[dict[str, Any]] = field(default_factory=list)
    lines: list[int] = field(default_factory=list)
    metadata: dict[str, Any] = field(default_factory=dict)


def results_path(path: str | Path) -> Path:
    """`path` itself, or the results.jsonl inside it when it is the folder vf-eval wrote."""
    path = Path(path)
    return path / RESULTS_FILE if path.is_dir() else path


def read_results(path: str | Path) -> Results:
    """Read a vf-eval results.jsonl (or its folder) and the metadata.json beside it.

    Raises:
        ResultsError: the file does not exist, cannot be read, or a line is not JSON.
    """
    path = results_path(path)
    if not path.is_file():
        raise ResultsError(f"{path}: no such results file")
    rows, lines = [], []
    try:
        with path.open(encoding="utf-8") as handle:
            for number, text in enumerate(handle, start=1):
                if text.strip():
                    rows.append(json.loads(text))
                    lines.append(number)
        meta_path = path.with_name(METADATA_FILE)
        metadata = json.loads(meta_path.read_text()) if meta_path.is_file() else {}
    except (OSError, json.JSONDecodeError) as exc:
        raise ResultsError(f"cannot read results {path}: {exc}") from exc
    return Results(path=path, rows=rows, lines=lines, metadata=metadata)


def row_info(row: dict[str, Any]) -> dict[str, Any]:
    """A row's `info` as a dict (vf-eval may store it as a JSON string)."""
    info = row.get("info") or {}
    return json.loads(info) if isinstance(info, str) else dict(info)
