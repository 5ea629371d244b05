"""smol-slm-eval against lm-evaluation-harness on the same rows, model and server.

lm-eval (`local-completions`, string prompts, the server's own tokenizer through
`tokenizer_backend=remote`) runs its own hellaswag and arc_easy task definitions on a fixed
subset written to local files (the Hub is unreachable); smol-slm-eval scores the same rows with
`prompt_style="lm_eval"`. Per row, the choice log-likelihoods, acc and acc_norm must agree.
"""

from __future__ import annotations

import asyncio
import json
from pathlib import Path

import pytest
from smol_slm_eval.data import load_rows
from smol_slm_eval.loglik_client import continuation_logliks
from smol_slm_eval.mc import mc_record
from smol_slm_eval.prompts import mc_request

pytestmark = pytest.mark.integration

ROWS = 8  # per task: the first rows of the split, a fixed subset
LETTERS = "ABCDEFGH"


def write_task_files(folder: Path) -> dict[str, list[dict]]:
    """Write the subset in the Hub schemas and lm-eval task files that include lm-eval's own."""
    import lm_eval

    tasks_dir = Path(lm_eval.__file__).parent / "tasks"
    rows = {"hellaswag": load_rows("hellaswag")[:ROWS], "arc_easy": load_rows("arc_easy")[:ROWS]}
    with open(folder / "hellaswag.jsonl", "w") as out:
        for r in rows["hellaswag"]:
            out.write(json.dumps({"ind": r["ind"], "activity_label": r["activity_label"],
                                  "ctx_a": r["ctx_a"], "ctx_b": r["ctx_b"], "ctx": r["ctx"],
                                  "endings": r["choices"], "label": str(r["gold"])}) + "\n")
    with open(folder / "arc_easy.jsonl", "w") as out:
        for r in rows["arc_easy"]:
            labels = list(LETTERS[: len(r["choices"])])
            out.write(json.dumps({"id": r["id"], "question": r["question"],
                                  "choices": {"text": r["choices"], "label": labels},
                                  "answerKey": labels[r["gold"]]}) + "\n")
    (folder / "hellaswag_local.yaml").write_text(
        f"include: {tasks_dir / 'hellaswag' / 'hellaswag.yaml'}\n"
        "task: hellaswag_local\ntag: []\ndataset_path: json\ndataset_name: null\n"
        f"dataset_kwargs:\n  data_files:\n    validation: {folder / 'hellaswag.jsonl'}\n"
        "training_split: null\n")
    (folder / "arc_easy_local.yaml").write_text(
        f"include: {tasks_dir / 'arc' / 'arc_easy.yaml'}\n"
        "task: arc_easy_local\ntag: []\ndataset_path: json\ndataset_name: null\n"
        f"dataset_kwargs:\n  data_files:\n    test: {folder / 'arc_easy.jsonl'}\n"
        "training_split: null\nvalidation_split: null\ntest_split: test\n")
    return rows


def run_lm_eval(folder: Path, base_url: str, model: str) -> dict[str, list[dict]]:
    from lm_eval import simple_evaluate
    from lm_eval.tasks import TaskManager

    results = simple_evaluate(
        model="local-completions",
        model_args=f"model={model},base_url={base_url}/completions,tokenizer_backend=remote,"
                   "tokenized_requests=False,num_concurrent=1,max_retries=1",
        tasks=["hellaswag_local", "arc_easy_local"], task_manager=TaskManager(
            include_path=str(folder)), log_samples=True, batch_size=1)
    return {task: sorted(results["samples"][f"{task}_local"], key=lambda s: s["doc_id"])
            for task in ("hellaswag", "arc_easy")}


def run_smol_slm_eval(rows: dict[str, list[dict]], base_url: str, model: str) -> dict[str, list]:
    from openai import AsyncOpenAI

    async def score() -> dict[str, list]:
        client = AsyncOpenAI(base_url=base_url, api_key="EMPTY")
        out = {}
        for task, task_rows in rows.items():
            out[task] = []
            for row in task_rows:
                context, continuations, choices, gold = mc_request(task, row, "lm_eval")
                logliks = await continuation_logliks(client, model, context, continuations)
                out[task].append(mc_record(logliks, choices, gold))
        return out

    return asyncio.run(score())


def test_lm_eval_and_smol_slm_eval_agree_per_row(local_model_base_url, local_model_name,
                                            archive_cache, tmp_path, capsys):
    rows = write_task_files(tmp_path)
    peer = run_lm_eval(tmp_path, local_model_base_url, local_model_name)
    ours = run_smol_slm_eval(rows, local_model_base_url, local_model_name)
    disagreements, worst = [], 0.0
    for task in ("hellaswag", "arc_easy"):
        assert len(peer[task]) == len(ours[task]) == ROWS
        for sample, record in zip(peer[task], ours[task], strict=True):
            peer_ll = [resp[0][0] for resp in sample["resps"]]
            worst = max(worst, *(abs(a - b) for a, b in zip(peer_ll, record["logliks"],
                                                            strict=True)))
            if (sample["acc"], sample["acc_norm"]) != (record["acc"], record["acc_norm"]):
                disagreements.append((task, sample["doc_id"], peer_ll, record["logliks"]))
    with capsys.disabled():
        acc = {t: (sum(s["acc"] for s in peer[t]) / ROWS, sum(r["acc"] for r in ours[t]) / ROWS,
                   sum(s["acc_norm"] for s in peer[t]) / ROWS,
                   sum(r["acc_norm"] for r in ours[t]) / ROWS) for t in peer}
        print(f"\nlm-eval vs smol-slm-eval, {ROWS} rows per task: (acc lm-eval, acc ours, "
              f"acc_norm lm-eval, acc_norm ours) = {acc}; largest log-likelihood "
              f"difference {worst:.2e}")
    assert disagreements == []
    # Same server, same tokens: only float summation order may differ.
    assert worst < 1e-3
