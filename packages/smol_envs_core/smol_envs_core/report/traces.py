"""A verifiers 0.4 `vf-eval` run folder as rows of a 0.3.1 `results.jsonl`: `traces.jsonl` (one
episode per line, each holding its `traces`, one per rollout) and `configs/resolved/eval.json`
beside it, parsed into the row dicts and metadata that `read.py` turns into `model.Results`
(the one reader). Reads files only; no verifiers.

Field mapping, per trace (format of verifiers 0.4.0, observed in its run folders):
- `info`: the task's wire data (`task.data`: the v1 task's own fields, e.g. `row_id`,
  `target_lines`) with the trace's `info` over it (`behaviour_version`, score records); `id` is
  the task's `name` when the data has no `id` (a v1 task is named by its row id).
- `metrics`: each reward's `score` by its name, every metric, and `reward` = the weighted sum of
  the rewards (the classic headline).
- `raw["error"]`: the episode's and the trace's `errors`, joined, when the rollout is not `ok`
  (an infrastructure failure: the report counts it, never scores it).
- metadata: `env_id`, `model`, `base_url` (eval.json, else the episode), the `verifiers`
  version, and `time` = last end - first start of the traces' timing, in seconds.
"""

from __future__ import annotations

import json
from collections.abc import Mapping
from pathlib import Path
from typing import Any

from .model import ResultsError

TRACES_FILE = "traces.jsonl"
CONFIG_FILE = Path("configs") / "resolved" / "eval.json"


def _errors(episode: Mapping[str, Any], trace: Mapping[str, Any]) -> str | None:
    """The episode's and the trace's errors joined, "rollout not ok" when either is not ok
    without naming one, else None. Pure."""
    texts = [e if isinstance(e, str) else json.dumps(e)
             for record in (episode, trace) for e in record.get("errors") or []]
    if texts:
        return "; ".join(texts)
    if episode.get("ok") is False or trace.get("ok") is False:
        return "rollout not ok"
    return None


def trace_row(episode: Mapping[str, Any], trace: Mapping[str, Any]) -> dict[str, Any]:
    """One rollout as a results row dict (`info`, `metrics`, `error` when it failed; see the
    module docstring for the mapping). Pure."""
    task = trace.get("task") or episode.get("task") or {}
    data = dict(task.get("data") or {})
    info = {**data, **(trace.get("info") or {})}
    if "id" not in info and data.get("name") is not None:
        info["id"] = data["name"]
    rewards = trace.get("rewards") or {}
    metrics = {name: r.get("score") for name, r in rewards.items()}
    metrics.update(trace.get("metrics") or {})
    scored = [r for r in rewards.values() if isinstance(r.get("score"), int | float)]
    if scored:
        metrics["reward"] = sum(r["score"] * r.get("weight", 1.0) for r in scored)
    raw: dict[str, Any] = {"info": info, "metrics": metrics, "task": task.get("type"),
                           "trace_id": trace.get("id"), "episode_id": episode.get("id")}
    error = _errors(episode, trace)
    if error:
        raw["error"] = error
    return raw


def _config(path: Path) -> dict[str, Any]:
    config_path = path.parent / CONFIG_FILE
    if not config_path.is_file():
        return {}
    try:
        config = json.loads(config_path.read_text())
    except (OSError, json.JSONDecodeError) as exc:
        raise ResultsError(f"cannot read {config_path}: {exc}") from exc
    return config if isinstance(config, dict) else {}


def _wall_time(traces: list[Mapping[str, Any]]) -> float | None:
    spans = [t.get("timing") or {} for t in traces]
    starts = [s["start"] for s in spans if isinstance(s.get("start"), int | float)]
    ends = [v["end"] for s in spans for v in s.values()
            if isinstance(v, Mapping) and isinstance(v.get("end"), int | float)]
    return round(max(ends) - min(starts), 3) if starts and ends else None


def parse_traces(path: Path) -> tuple[list[tuple[int, dict[str, Any]]], dict[str, Any]]:
    """Parse a verifiers 0.4 `traces.jsonl` and its run folder's resolved config.

    Returns ([(line number, row dict), ...] one per trace, metadata: `env_id`, `model`,
    `base_url`, `verifiers`, `time` in seconds, `format`; keys without a value left out).
    Raises:
        ResultsError: the file cannot be read, a line is not a JSON object, or it holds no trace.
    """
    rows: list[tuple[int, dict[str, Any]]] = []
    traces: list[Mapping[str, Any]] = []
    env_ids: set[str] = set()
    try:
        with path.open(encoding="utf-8") as handle:
            for number, text in enumerate(handle, start=1):
                if not text.strip():
                    continue
                episode = json.loads(text)
                if not isinstance(episode, dict):
                    raise ResultsError(f"{path}: line {number} is not a JSON object")
                env_ids.add(str((episode.get("env") or {}).get("id") or ""))
                for trace in episode.get("traces") or []:
                    traces.append(trace)
                    rows.append((number, trace_row(episode, trace)))
    except (OSError, json.JSONDecodeError) as exc:
        raise ResultsError(f"cannot read traces {path}: {exc}") from exc
    if not rows:
        raise ResultsError(f"{path}: no traces")
    config = _config(path)
    taskset = ((config.get("env") or {}).get("taskset") or {})
    env_id = taskset.get("id") or next((e for e in sorted(env_ids) if e), None)
    verifiers = sorted({str((t.get("verifiers") or {}).get("version")) for t in traces})
    client = config.get("client") or {}
    metadata = {"env_id": env_id, "model": config.get("model"),
                "base_url": client.get("base_url"), "verifiers": ", ".join(verifiers),
                "time": _wall_time(traces), "format": "verifiers-0.4-traces"}
    return rows, {k: v for k, v in metadata.items() if v is not None}
