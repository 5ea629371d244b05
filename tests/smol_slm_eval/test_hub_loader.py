"""The Hugging Face Hub loader, offline: the real `datasets.load_dataset` call with each task's
Hub id, config and split, answered from a folder laid out like that data set's Hub repository
(README `configs:` metadata, data files per split) that the test writes.

The Hub is unreachable here, so the one thing not exercised is the download itself; everything
from the call's arguments to the rows this package builds is. The rows are made up in each data
set's schema (no GPQA text is used or printed).
"""

from __future__ import annotations

import csv
import json
from pathlib import Path

import datasets
import pytest
from smol_slm_eval import data
from smol_slm_eval.tasks import TASKS

pytestmark = pytest.mark.unit

ENDINGS = ["walks away.", "sits down.", "jumps.", "sings."]
# task -> (data file inside the repo, rows in the Hub data set's schema, expected first row)
HUB_REPOS = {
    "hellaswag": ("data/validation.jsonl",
                  [{"ind": 4, "activity_label": "Chair", "ctx_a": "A man", "ctx_b": "stands",
                    "ctx": "A man stands", "endings": ENDINGS, "label": "1"}],
                  {"question": "A man stands", "choices": ENDINGS, "gold": 1}),
    "arc_easy": ("ARC-Easy/test.jsonl",
                 [{"id": "q1", "question": "Which is a liquid?", "answerKey": "B",
                   "choices": {"text": ["ice", "water"], "label": ["A", "B"]}}],
                 {"id": "q1", "question": "Which is a liquid?", "choices": ["ice", "water"],
                  "gold": 1}),
    "arc_challenge": ("ARC-Challenge/test.jsonl",
                      [{"id": "q2", "question": "Which is a gas?", "answerKey": "1",
                        "choices": {"text": ["steam", "rock"], "label": ["1", "2"]}}],
                      {"id": "q2", "question": "Which is a gas?", "choices": ["steam", "rock"],
                       "gold": 0}),
    "math_500": ("test.jsonl",
                 [{"problem": "1+1?", "solution": "So $\\boxed{2}$.", "answer": "2",
                   "subject": "Algebra", "level": 1, "unique_id": "test/algebra/1.json"}],
                 {"id": "test/algebra/1.json", "answer": "2", "subject": "Algebra"}),
    "gpqa_diamond": ("gpqa_diamond.csv",
                     [{"Question": "Made-up question?", "Correct Answer": "right",
                       "Incorrect Answer 1": "w1", "Incorrect Answer 2": "w2",
                       "Incorrect Answer 3": "w3"}],
                     {"question": "Made-up question?", "correct": "right",
                      "incorrect": ["w1", "w2", "w3"]}),
    "arithmark_3_0": ("data/test.jsonl",
                      [{"question": "2 + 2 =", "choices": ["3", "4", "5", "6"], "answer": "B"}],
                      {"question": "2 + 2 =", "choices": ["3", "4", "5", "6"], "gold": 1}),
}


def write_repo(root: Path, task: str) -> Path:
    """A folder laid out like `task`'s Hub repository: README configs + one data file."""
    spec = TASKS[task]
    relative, rows, _ = HUB_REPOS[task]
    path = root / relative
    path.parent.mkdir(parents=True, exist_ok=True)
    if path.suffix == ".csv":
        with path.open("w", newline="") as handle:
            writer = csv.DictWriter(handle, fieldnames=list(rows[0]))
            writer.writeheader()
            writer.writerows(rows)
    else:
        path.write_text("".join(json.dumps(row) + "\n" for row in rows))
    (root / "README.md").write_text(
        "---\nconfigs:\n"
        f"- config_name: {spec.hub_config or 'default'}\n"
        f"  data_files:\n  - split: {spec.hub_split}\n    path: {relative}\n---\n")
    return root


@pytest.fixture
def hub(monkeypatch, tmp_path):
    """`datasets.load_dataset` answering a task's Hub id from the folder the test wrote; every
    call's (path, config, split) is recorded."""
    real, calls, repos = datasets.load_dataset, [], {}

    def load_dataset(path, name=None, split=None, **kwargs):
        calls.append((path, name, split))
        return real(str(repos[path]), name, split=split, **kwargs)

    def serve(task: str) -> None:
        repos[TASKS[task].hub_id] = write_repo(tmp_path / task, task)

    monkeypatch.setattr(datasets, "load_dataset", load_dataset)
    return serve, calls


@pytest.mark.parametrize("task", sorted(HUB_REPOS))
def test_hub_loader_calls_the_hub_data_set_and_maps_its_schema(hub, task):
    serve, calls = hub
    serve(task)
    rows = data.load_hub(TASKS[task])
    spec = TASKS[task]
    assert calls == [(spec.hub_id, spec.hub_config, spec.hub_split)]
    expected = HUB_REPOS[task][2]
    assert len(rows) == 1 and {k: rows[0][k] for k in expected} == expected


def test_a_task_without_an_archive_falls_back_to_the_hub(hub):
    # ArithMark ships in no PyPI package: load_rows goes straight to the Hub.
    serve, calls = hub
    serve("arithmark_3_0")
    rows = data.load_rows("arithmark_3_0")
    assert calls == [("AxiomicLabs/Arithmark-3.0", None, "test")]
    assert rows[0]["gold"] == 1


def test_a_hub_failure_is_named_in_the_missing_data_error(monkeypatch):
    def offline(*args, **kwargs):
        raise ConnectionError("Couldn't reach 'AxiomicLabs/ArithMark-2.0' on the Hub")

    monkeypatch.setattr(datasets, "load_dataset", offline)
    with pytest.raises(data.DataUnavailableError) as caught:
        data.load_rows("arithmark_2")
    message = str(caught.value)
    assert "data_path=" in message and "AxiomicLabs/ArithMark-2.0" in message
    assert "Tried: Hub: ConnectionError: Couldn't reach" in message
