"""Run folders in the shape `vf-eval -s` writes, built from an environment's real scorer: each
row is a reply, the dataset row's info and answer, and the `Score` the scorer gave it (metrics
both nested and flattened, as verifiers 0.3.1 saves them). For the known-order checks: gold,
chance-level and mixed answerers scored for real, then reported and compared by the real
`smol-envs report` / `smol-envs compare`."""

from __future__ import annotations

import json
import re
from collections.abc import Iterable, Mapping
from pathlib import Path
from typing import Any
from unittest import mock

from smol_envs_core.adapters.declaration import Score

ENDPOINT = "http://127.0.0.1:9/v1"  # no model ran: the replies were made by the test


def scored_row(index: int, reply: str, answer: str, info: Mapping[str, Any],
               score: Score) -> dict[str, Any]:
    """One results.jsonl row as vf-eval 0.3.1 writes it."""
    return {"example_id": index, "prompt": [{"role": "user", "content": "(not kept)"}],
            "completion": [{"role": "assistant", "content": reply}], "answer": answer,
            "info": dict(info), "reward": score.reward, "error": None,
            "metrics": dict(score.metrics), **score.metrics}


def write_scored_run(folder: Path, env_id: str, rows: Iterable[dict[str, Any]], model: str,
                     env_args: Mapping[str, Any] | None = None,
                     behaviour_version: str | None = None, seconds: float = 1.0) -> Path:
    """Write results.jsonl and metadata.json (env id and args, model, endpoint, counts, the
    behaviour version, wall time) into `folder`; returns it."""
    rows = list(rows)
    folder.mkdir(parents=True, exist_ok=True)
    (folder / "results.jsonl").write_text("".join(json.dumps(r) + "\n" for r in rows))
    metadata = {"env_id": env_id, "env_args": dict(env_args or {}), "model": model,
                "base_url": ENDPOINT, "num_examples": len(rows), "rollouts_per_example": 1,
                "shuffle": False, "time": seconds,
                **({"behaviour_version": behaviour_version} if behaviour_version else {})}
    (folder / "metadata.json").write_text(json.dumps(metadata))
    return folder


def reported(capsys, folder: Path) -> dict[str, Any]:
    """`smol-envs report FOLDER --markdown` through the real command (exit 0 required), and
    its headline figures as the same pipeline computes them: {name: Estimate or text}; every
    estimate's text must appear in the Markdown the command printed."""
    from smol_envs_core import cli
    from smol_envs_core.report import Estimate, report_runs

    assert cli.main(["report", str(folder), "--markdown"]) == 0
    printed = capsys.readouterr().out
    figures = dict(report_runs([folder])[0].body.headline)
    for value in figures.values():
        if isinstance(value, Estimate):
            assert value.text() in printed
    return figures


def compared(capsys, run_a: Path, run_b: Path) -> tuple[Any, str]:
    """(the `compare.Comparison`, the verdict line printed) of `smol-envs compare RUN_A RUN_B
    --markdown`, through the real command (exit 0 required). The Comparison is the one the
    command itself computed (its `compare_runs` call is observed, not repeated: a comparison
    of thousands of rows takes seconds), and the printed verdict must be its verdict."""
    from smol_envs_core import cli
    from smol_envs_core.report import compare

    made = []
    real = compare.compare_runs

    def observed(*args, **kwargs):
        made.append(real(*args, **kwargs))
        return made[-1]

    with mock.patch.object(compare, "compare_runs", observed):
        assert cli.main(["compare", str(run_a), str(run_b), "--markdown"]) == 0
    printed = capsys.readouterr().out
    verdict = re.search(r"^\*\*(.+)\*\*$", printed, flags=re.MULTILINE).group(1)
    [comparison] = made
    assert verdict == comparison.verdict
    return comparison, verdict
