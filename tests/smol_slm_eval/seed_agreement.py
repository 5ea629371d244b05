"""Row-by-row agreement of our smol-slm-eval with the seed's (PyPI slm-eval 0.0.1), at any size.

Shared by the standing test (tests/smol_slm_eval/test_seed_agreement.py: a few rows of every
task) and the full-size benchmark (benchmarks/bench_smol_slm_eval_seed_agreement.py: 50 rows of
every task). Both harnesses read the same local data files and ask the same local server
(greedy; echo log-probabilities bit-identical to a fresh evaluation, so the order of requests
does not matter). The seed runs its own task YAMLs in its own venv (`seed_peer.py`); ours builds
each task with `load_environment(task, data_path=...)` and scores with its own functions.
Compared per row: multiple choice: gold, acc, acc_norm and every choice's log-likelihood (within
LOGLIK_TOLERANCE); math_500 and BFCL: the prompt bytes, the generated text, the extracted answer
and every metric. GPQA is never written out, so never compared here.
"""

from __future__ import annotations

import asyncio
import json
from dataclasses import dataclass, field
from pathlib import Path

from smol_slm_eval import bfcl, math500
from smol_slm_eval.data import load_rows
from smol_slm_eval.env import load_environment
from smol_slm_eval.loglik_client import continuation_logliks
from smol_slm_eval.mc import mc_record

from tests.smol_slm_eval.seed_peer import local_task_yaml, run_seed, seed_python, seed_tasks_dir

MC_TASKS = {"hellaswag": "validation", "arc_easy": "test", "arc_challenge": "test"}
LETTERS = "ABCDEFGH"
LOGLIK_TOLERANCE = 1e-6  # nats, per choice


@dataclass
class Agreement:
    """What one comparison found.

    lines: the printed table (one header line, then one line per task or category).
    problems: one tuple per row that differs (task, row id) or per task whose rows are
        missing or whose log-likelihoods differ by more than LOGLIK_TOLERANCE; empty when the
        harnesses agree.
    """

    lines: list[str] = field(default_factory=list)
    problems: list[tuple] = field(default_factory=list)


def write_rows(folder: Path, mc_rows: int, math_rows: int) -> dict[str, Path]:
    """Write the first `mc_rows` rows of each multiple-choice task and `math_rows` of math_500
    to `folder/<task>.jsonl` in the Hub schema both harnesses read; {task: path}."""
    paths = {}
    for task in (*MC_TASKS, "math_500"):
        rows = load_rows(task)[:mc_rows if task in MC_TASKS else math_rows]
        path = paths[task] = folder / f"{task}.jsonl"
        with open(path, "w") as out:
            for r in rows:
                out.write(json.dumps(_hub_doc(task, r)) + "\n")
    return paths


def _hub_doc(task: str, r: dict) -> dict:
    if task == "hellaswag":
        return {"ind": r["ind"], "activity_label": r["activity_label"], "ctx_a": r["ctx_a"],
                "ctx_b": r["ctx_b"], "ctx": r["ctx"], "endings": r["choices"],
                "label": str(r["gold"]), "source_id": "", "split_type": "indomain"}
    if task == "math_500":
        return {"problem": r["problem"], "solution": r["solution"], "answer": r["answer"],
                "unique_id": r["id"], "level": r["level"], "subject": r["subject"]}
    labels = list(LETTERS[: len(r["choices"])])
    return {"id": r["id"], "question": r["question"],
            "choices": {"text": r["choices"], "label": labels}, "answerKey": labels[r["gold"]]}


def ours(paths: dict[str, Path], base_url: str, model: str) -> dict[str, list[dict]]:
    """Our records of the rows in `paths` (multiple choice: `mc_record`; math_500: prompt,
    text and `math_record`), asked of the server at `base_url` one request at a time."""
    from openai import AsyncOpenAI

    async def run() -> dict[str, list[dict]]:
        client = AsyncOpenAI(base_url=base_url, api_key="EMPTY")
        out: dict[str, list[dict]] = {}
        for task in MC_TASKS:
            env = load_environment(task=task, data_path=str(paths[task]))
            out[task] = []
            for record in env.get_eval_dataset():
                context, continuations, choices, gold = env.items[record["info"]["id"]]
                logliks = await continuation_logliks(client, model, context, continuations)
                out[task].append(mc_record(logliks, choices, gold))
        env = load_environment(task="math_500", data_path=str(paths["math_500"]))
        out["math_500"] = []
        for record in env.get_eval_dataset():
            prompt = record["prompt"][0]["content"]
            reply = await client.completions.create(model=model, prompt=prompt,
                                                    **env.sampling_args)
            text = reply.choices[0].text
            out["math_500"].append({"prompt": prompt, "text": text,
                                    **math500.math_record(text, record["answer"])})
        return out

    return asyncio.run(run())


def ours_bfcl(base_url: str, model: str, categories: list[str], rows: int
              ) -> dict[str, list[dict]]:
    """Our seed-mode BFCL records of the first `rows` rows of each category: id, prompt,
    greedy text and `bfcl_record`."""
    from openai import AsyncOpenAI

    async def run() -> dict[str, list[dict]]:
        client = AsyncOpenAI(base_url=base_url, api_key="EMPTY")
        by_id = {r["id"]: r for r in load_rows("bfcl_v4")}
        out: dict[str, list[dict]] = {}
        for category in categories:
            env = load_environment(task="bfcl_v4", bfcl_category=category, num_examples=rows,
                                   bfcl_mode="seed")
            out[category] = []
            for record in env.get_eval_dataset():
                prompt = record["prompt"][0]["content"]
                reply = await client.completions.create(model=model, prompt=prompt,
                                                        **env.sampling_args)
                text = reply.choices[0].text
                row = by_id[record["info"]["id"]]
                out[category].append({"id": row["id"], "prompt": prompt, "text": text,
                                      **bfcl.bfcl_record(text, row, tier2=False, mode="seed")})
        return out

    return asyncio.run(run())


def seed_prompt(sample: dict) -> str:
    """The context of a logged generation request (list or `gen_args_0` shape)."""
    arguments = sample["arguments"]
    if isinstance(arguments, dict):
        return arguments["gen_args_0"]["arg_0"]
    return arguments[0][0]


def _percent(records: list[dict], metrics: tuple[str, ...]) -> str:
    return ", ".join(f"{sum(r[m] for r in records) / len(records) * 100:.1f}"
                     for m in metrics) if records else "-"


def compare_choice_and_math(seed: dict, mine: dict[str, list[dict]], mc_rows: int,
                            math_rows: int) -> Agreement:
    """Compare the seed's logged samples with our records (multiple choice and math_500)."""
    found = Agreement(["task           rows  differ  max |dLL|   seed metrics (%)       ours (%)"])
    for task in MC_TASKS:
        samples = seed["samples"][f"{task}_local"]
        if not len(samples) == len(mine[task]) == mc_rows:
            found.problems.append((task, "rows", len(samples), len(mine[task]), mc_rows))
            continue
        worst, differ = 0.0, 0
        for s, r in zip(samples, mine[task], strict=True):
            seed_ll = [float(resp[0][0]) for resp in s["resps"]]
            worst = max(worst, *(abs(a - b) for a, b in zip(seed_ll, r["logliks"], strict=True)))
            if (s["acc"], s["acc_norm"], int(s["target"])) != (r["acc"], r["acc_norm"],
                                                               r["gold"]):
                differ += 1
                found.problems.append((task, s["doc_id"]))
        if worst > LOGLIK_TOLERANCE:
            found.problems.append((task, "log-likelihood", worst))
        metrics = ("acc", "acc_norm")
        found.lines.append(f"{task:<14}{mc_rows:>5}{differ:>8}  {worst:>9.1e}   "
                           f"{_percent(samples, metrics):<22} {_percent(mine[task], metrics)}")
    samples, records = seed["samples"]["math_500_local"], mine["math_500"]
    if not len(samples) == len(records) == math_rows:
        found.problems.append(("math_500", "rows", len(samples), len(records), math_rows))
        return found
    differ = 0
    for s, r in zip(samples, records, strict=True):
        if not (seed_prompt(s) == r["prompt"] and s["resps"][0][0] == r["text"]
                and s["filtered_resps"][0] == r["answer"]
                and (s["exact_match"], s["unparseable"]) == (r["exact_match"],
                                                            r["unparseable"])):
            differ += 1
            found.problems.append(("math_500", s["doc_id"]))
    metrics = ("exact_match", "unparseable")
    found.lines.append(f"{'math_500':<14}{math_rows:>5}{differ:>8}  {'-':>9}   "
                       f"{_percent(samples, metrics):<22} {_percent(records, metrics)}")
    return found


def compare_bfcl(seed: dict, mine: dict[str, list[dict]], rows: int) -> Agreement:
    """Compare per BFCL category: row id, prompt bytes, greedy text, valid_json and
    function_name_match."""
    found = Agreement(["BFCL category    rows  differ"])
    for category, records in mine.items():
        samples = seed["samples"][f"bfcl_v4_{category}_local"]
        if not len(samples) == len(records) == rows:
            found.problems.append((category, "rows", len(samples), len(records), rows))
            continue
        differ = 0
        for s, r in zip(samples, records, strict=True):
            if not (s["doc"]["id"] == r["id"] and seed_prompt(s) == r["prompt"]
                    and s["resps"][0][0] == r["text"]
                    and (s["valid_json"], s["function_name_match"]) == (
                        r["valid_json"], r["function_name_match"])):
                differ += 1
                found.problems.append((category, r["id"]))
        found.lines.append(
            f"{category:<18}{rows:>5}{differ:>8}   valid_json "
            f"{_percent(samples, ('valid_json',))} / {_percent(records, ('valid_json',))}, "
            f"function_name_match {_percent(samples, ('function_name_match',))} / "
            f"{_percent(records, ('function_name_match',))} (seed / ours)")
    return found


def agree_on_choice_and_math(folder: Path, base_url: str, model: str, mc_rows: int,
                             math_rows: int) -> Agreement:
    """Run both harnesses on the first `mc_rows` rows of each multiple-choice task and
    `math_rows` of math_500 (files written under `folder`) and compare them.

    Raises:
        RuntimeError: the seed's venv or its run failed (`seed_peer`).
    """
    python = seed_python()
    seed_dir = seed_tasks_dir(python)
    paths = write_rows(folder, mc_rows, math_rows)
    names = [local_task_yaml(folder, seed_dir / t / f"{t}.yaml", t, split, paths[t])
             for t, split in {**MC_TASKS, "math_500": "test"}.items()]
    seed = run_seed(python, folder, base_url, model, names)
    return compare_choice_and_math(seed, ours(paths, base_url, model), mc_rows, math_rows)


def agree_on_bfcl(folder: Path, base_url: str, model: str, categories: list[str], rows: int
                  ) -> Agreement:
    """Run both harnesses on the first `rows` rows of each BFCL category and compare them.

    Raises:
        RuntimeError: the seed's venv or its run failed (`seed_peer`).
    """
    python = seed_python()
    seed_dir = seed_tasks_dir(python) / "bfcl_v4"
    names = [local_task_yaml(folder, seed_dir / f"bfcl_v4_{c}.yaml", f"bfcl_v4_{c}")
             for c in categories]
    seed = run_seed(python, folder, base_url, model, names, limit=rows)
    return compare_bfcl(seed, ours_bfcl(base_url, model, categories, rows), rows)
