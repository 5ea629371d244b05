"""Run folders in the shape `vf-eval -s` writes (results.jsonl + metadata.json), one per
environment, for the `smol-envs report` tests. Rows carry the environment's real task fields
(pico's packaged benchmark rows, smolscript's default tasks with the loaded dataset's sha256,
smoltalkbench's packaged fixture) and fixed metric values, so every figure is known."""

from __future__ import annotations

import json
from pathlib import Path

MODEL = "SmolLM2-135M-Instruct"
ENDPOINT = "http://127.0.0.1:8774/v1"


def write_run(folder: Path, env_id: str, rows: list[dict], env_args: dict | None = None,
              model: str = MODEL) -> Path:
    """Write results.jsonl and metadata.json into `folder`; returns the folder."""
    folder.mkdir(parents=True, exist_ok=True)
    (folder / "results.jsonl").write_text("".join(json.dumps(r) + "\n" for r in rows))
    metadata = {"env_id": env_id, "env_args": env_args or {}, "model": model,
                "base_url": ENDPOINT, "num_examples": len(rows), "rollouts_per_example": 1,
                "version_info": {"env_version": "0.1.0"}}
    (folder / "metadata.json").write_text(json.dumps(metadata))
    return folder


def pico_run(folder: Path) -> Path:
    """8 rows: two per (copy_case|repeat) x (L1|L2); copy_case L1 both exact, the rest not."""
    from pico_dsl_v1.data import load_benchmark_rows

    picked: dict[tuple[str, str], list[dict]] = {}
    for row in load_benchmark_rows():
        key = (row["slice"], row["complexity_level"])
        if key in {("copy_case", "L1"), ("copy_case", "L2"), ("repeat", "L1"), ("repeat", "L2")}:
            picked.setdefault(key, [])
            if len(picked[key]) < 2:
                picked[key].append(row)
    rows = []
    for (slice_, level), members in sorted(picked.items()):
        for row in members:
            exact = float((slice_, level) == ("copy_case", "L1"))
            rows.append({"info": {"id": row["id"], "slice": slice_, "complexity_level": level},
                         "metrics": {"exact_match": exact, "format_valid": 1.0,
                                     "avg_line_similarity": 0.5 + exact / 2}})
    return write_run(folder, "pico-dsl-v1", rows, {"slice": "mixed"})


def smolscript_run(folder: Path) -> Path:
    """The first task of each language: Python and Rust pass, the others fail with syntax ok."""
    from smolscript import data

    sha = data.dataset_hash("default")
    first: dict[str, dict] = {}
    for task in data.load_tasks("default"):
        first.setdefault(task["language"], task)
    rows = [{"info": {"id": t["id"], "language": lang, "difficulty": t["difficulty"],
                      "dataset_sha256": sha},
             "metrics": {"passed": float(lang in ("python", "rust")), "syntax_ok": 1.0,
                         "hidden_test_pass_rate": 1.0 if lang in ("python", "rust") else 0.25}}
            for lang, t in first.items()]
    return write_run(folder, "smolscript", rows, {"per_language": 1})


def smoltalkbench_run(folder: Path) -> Path:
    """The 12 packaged fixture prompts: every third wins outright (win_prob 1), the rest 0.25;
    the last one is a tolerated judge error."""
    from smoltalkbench import data

    lines = data.fixture_path().read_text().splitlines()
    rows = []
    for index, line in enumerate(lines):
        row = json.loads(line)
        win = 1.0 if index % 3 == 0 else 0.25
        failed = index == len(lines) - 1
        rows.append({"answer": row["output"],
                     "info": {"id": row["id"], "group": row["group"],
                              "category": row["category"],
                              "reference_chars": len(row["output"])},
                     "metrics": {"win_prob": 0.0 if failed else win,
                                 "raw_win_prob": 0.0 if failed else win,
                                 "length_penalized": 0.0, "reply_chars": 100.0,
                                 "judge_error": float(failed)}})
    return write_run(folder, "smoltalkbench", rows,
                     {"dataset": "fixture", "judge_model": MODEL, "max_judge_error_rate": 0.1})


def smol_slm_eval_run(folder: Path, env_id: str = "smol-slm-eval") -> Path:
    """Four ARC-Easy rows (3 right by acc_norm, 2 by acc) and four HellaSwag rows (1 right), as
    a run of `env_id` ("slm-eval": one recorded before the rename)."""
    rows = [{"info": {"id": f"arc-{i}", "benchmark": "arc_easy"},
             "metrics": {"acc": float(i < 2), "acc_norm": float(i < 3)}} for i in range(4)]
    rows += [{"info": {"id": f"hs-{i}", "benchmark": "hellaswag"},
              "metrics": {"acc": float(i < 1), "acc_norm": float(i < 1)}} for i in range(4)]
    return write_run(folder, env_id, rows, {"task": "slm"})
