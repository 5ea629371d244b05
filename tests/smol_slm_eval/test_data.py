"""The data module: the archive cache (real PyPI wheels), local paths, the Hub loader, errors.

GPQA rows are counted and checked for shape only: never printed (the data set's gate asks
users not to reveal examples), so no assertion message here includes a GPQA field.
"""

import json

import pytest
from smol_slm_eval import archives, data
from smol_slm_eval.errors import ConfigError, DataError, DataUnavailableError
from smol_slm_eval.tasks import TASKS

pytestmark = pytest.mark.integration

EXPECTED_ROWS = {"hellaswag": 10042, "arc_easy": 2376, "arc_challenge": 1172, "math_500": 500,
                 "bfcl_v4": 1390}


@pytest.mark.parametrize("task", sorted(EXPECTED_ROWS))
def test_cache_rows(archive_cache, task):
    rows = data.load_rows(task)
    assert len(rows) == EXPECTED_ROWS[task] == TASKS[task].rows
    assert len({r["id"] for r in rows}) == len(rows)
    if TASKS[task].kind == "multiple_choice":
        assert all(0 <= r["gold"] < len(r["choices"]) for r in rows)


def test_gpqa_shape_without_revealing_rows(archive_cache):
    rows = data.load_rows("gpqa_diamond")
    ok = [bool(r["question"]) and bool(r["correct"]) and len(r["incorrect"]) == 3
          and all(r["incorrect"]) for r in rows]
    assert (len(rows), sum(ok)) == (198, 198)


def test_math_gold_recomputed_from_the_solution(archive_cache):
    rows = data.load_rows("math_500")
    # The archive's own `answer` field reads `\le(3,\frac{\pi}{2}\right)` for this row.
    assert rows[0]["answer"] == "\\left( 3, \\frac{\\pi}{2} \\right)"
    assert not any("\\le(" in r["answer"] for r in rows)


def test_arc_questions_lose_the_olmes_template(archive_cache):
    rows = data.load_rows("arc_easy")
    assert not any(r["question"].startswith("Question:") or r["question"].endswith("Answer:")
                   for r in rows)


def test_checksum_mismatch_is_refused(tmp_path, monkeypatch):
    monkeypatch.setenv("SLM_EVAL_CACHE", str(tmp_path))
    (tmp_path / "archives").mkdir()
    (tmp_path / "archives" / archives.BFCL_EVAL.filename).write_bytes(b"not the wheel")
    with pytest.raises(DataError, match="sha256"):
        data.load_rows("bfcl_v4")


def test_missing_data_names_every_way_to_supply_it(no_hub):
    with pytest.raises(DataUnavailableError) as caught:
        data.load_rows("arithmark_3_0")
    message = str(caught.value)
    assert "data_path=" in message and "AxiomicLabs/Arithmark-3.0" in message
    assert "Hub unreachable" in message


def test_unknown_task():
    with pytest.raises(ConfigError, match="valid: hellaswag"):
        data.load_rows("piqa")


def test_local_path_in_hub_schema(tmp_path):
    path = tmp_path / "arc.jsonl"
    path.write_text(json.dumps({"id": "q1", "question": "Which is a gas?", "answerKey": "B",
                                "choices": {"text": ["ice", "steam"], "label": ["A", "B"]}})
                    + "\n")
    assert data.load_rows("arc_easy", data_path=path) == [
        {"id": "q1", "question": "Which is a gas?", "choices": ["ice", "steam"], "gold": 1}]


def test_local_generic_mc_for_arithmark(tmp_path):
    path = tmp_path / "am.jsonl"
    path.write_text(json.dumps({"context": "2 + 2 =", "choices": ["3", "4"], "label": "B"})
                    + "\n")
    assert data.load_rows("arithmark_3_0", data_path=path)[0]["gold"] == 1


def test_malformed_local_row_is_a_data_error(tmp_path):
    path = tmp_path / "bad.jsonl"
    path.write_text(json.dumps({"question": "no choices"}) + "\n")
    with pytest.raises(DataError, match="arc_easy"):
        data.load_rows("arc_easy", data_path=path)


def test_hub_loader_on_a_local_dataset_folder(tmp_path):
    # The real `datasets.load_dataset` path, on a folder laid out like a Hub data set repo.
    folder = tmp_path / "MATH-500"
    folder.mkdir()
    row = {"problem": "1+1?", "solution": "It is $\\boxed{2}$.", "answer": "2",
           "subject": "Algebra", "level": 1, "unique_id": "test/algebra/1.json"}
    (folder / "test.jsonl").write_text(json.dumps(row) + "\n")
    rows = data.load_hub(TASKS["math_500"], path=str(folder))
    assert rows == [{"id": "test/algebra/1.json", "problem": "1+1?", "solution": row["solution"],
                     "answer": "2", "level": 1, "subject": "Algebra"}]


@pytest.mark.parametrize("text, expected", [
    ("so $\\boxed{\\frac{1}{2}}$.", "\\frac{1}{2}"),
    ("\\boxed{1} then \\boxed{x^{2}}", "x^{2}"),
    ("\\boxed{unbalanced", None),
    ("no box", None),
])
def test_last_boxed(text, expected):
    assert data.last_boxed(text) == expected


@pytest.mark.unit
@pytest.mark.parametrize("row, gold, why", [
    ({"ctx": "2+2=", "endings": ["3", "4", "5", "6"], "label": "1",
      "metadata": {"answer": "4"}}, 1, "ArithMark's schema: label is the 0-based ending index"),
    ({"question": "q", "choices": {"text": ["a", "b", "c", "d"], "label": ["1", "2", "3", "4"]},
      "answerKey": "2"}, 1, "a digit key is looked up in the row's own labels"),
    ({"question": "q", "choices": {"text": ["a", "b", "c"], "label": ["A", "B", "C"]},
      "answerKey": "C"}, 2, "a letter key in the labels"),
    ({"question": "q", "choices": ["a", "b"], "answer": "B"}, 1, "a bare letter"),
])
def test_generic_multiple_choice_resolves_answer_keys(row, gold, why):
    from smol_slm_eval.data import normalise

    assert normalise("arithmark_3_0", [row])[0]["gold"] == gold, why


@pytest.mark.unit
def test_generic_multiple_choice_refuses_a_key_outside_its_labels():
    from smol_slm_eval.data import normalise
    from smol_slm_eval.errors import DataError

    row = {"question": "q", "choices": {"text": ["a", "b"], "label": ["1", "2"]},
           "answerKey": "3"}
    with pytest.raises(DataError, match="not among"):
        normalise("arithmark_2", [row])
