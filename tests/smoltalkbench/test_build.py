"""Golden tests of dataset building: shape check, deduplication, largest-remainder sampling."""

import pytest
from smoltalkbench import build
from smoltalkbench.errors import DataError

pytestmark = pytest.mark.unit

HELLO = {"role": "assistant", "content": "Hello! How can I help you today?"}


def record(prompt, topic="Travel/Packing/Bags", reply="A reply."):
    return {
        "full_topic": topic,
        "messages": [
            {"role": "user", "content": "Hi"},
            HELLO,
            {"role": "user", "content": prompt},
            {"role": "assistant", "content": reply},
        ],
    }


@pytest.mark.parametrize(
    "sizes, n, expected",
    [
        ({"a": 1, "b": 1, "c": 1}, 2, {"a": 1, "b": 1, "c": 0}),  # equal remainders: name order
        ({"a": 5, "b": 3, "c": 2}, 5, {"a": 3, "b": 1, "c": 1}),  # quotas 2.5, 1.5, 1.0
        ({"a": 7, "b": 2, "c": 1}, 4, {"a": 3, "b": 1, "c": 0}),  # quotas 2.8, 0.8, 0.4
        ({"a": 10, "b": 30}, 40, {"a": 10, "b": 30}),  # everything
        ({"a": 10, "b": 30}, 0, {"a": 0, "b": 0}),
    ],
)
def test_allocate_largest_remainder(sizes, n, expected):
    assert build.allocate(sizes, n) == expected


@pytest.mark.parametrize("n", [1, 7, 13, 50, 99])
def test_allocate_sums_to_n_and_stays_proportional(n):
    sizes = {"a": 37, "b": 21, "c": 13, "d": 8, "e": 20}
    total = sum(sizes.values())
    quotas = build.allocate(sizes, n)
    assert sum(quotas.values()) == n
    for name, size in sizes.items():
        assert abs(quotas[name] - n * size / total) < 1
        assert quotas[name] <= size
    assert build.allocate(dict(reversed(sizes.items())), n) == quotas  # order-independent


def test_allocate_rejects_impossible_n():
    with pytest.raises(ValueError, match="cannot sample"):
        build.allocate({"a": 2}, 3)


@pytest.mark.parametrize(
    "prompts, kept, why",
    [
        (
            ["Why is the sky blue?", "why is  the SKY blue?"],
            ["train-0000"],
            "case and inner spaces",
        ),
        (["Why is the sky blue?", " Why is the sky blue?\n"], ["train-0000"], "outer whitespace"),
        (
            ["Why is the sky blue?", "Why is the sky blue!"],
            ["train-0000", "train-0001"],
            "punctuation",
        ),
    ],
)
def test_dedup_keeps_first_occurrence(prompts, kept, why):
    rows = build.candidate_rows({"train": [record(p) for p in prompts], "test": []})
    assert [r["id"] for r in rows] == kept, why


def test_dedup_prefers_train_over_test():
    rows = build.candidate_rows(
        {
            "test": [record("Hello there?", reply="test")],
            "train": [record("hello THERE?", reply="train")],
        }
    )
    assert [(r["id"], r["output"]) for r in rows] == [("train-0000", "train")]


def test_row_columns_and_groups():
    rows = build.candidate_rows(
        {
            "train": [record(" Q1 ", "Cooking/Dinner/Pasta", " R1 ")],
            "test": [record("Q2", "science/plants")],
        }
    )
    assert [tuple(r) for r in rows] == [build.COLUMNS, build.COLUMNS]
    assert rows[0] | {} == {
        "id": "train-0000",
        "instruction": "Q1",
        "output": "R1",
        "generator": build.GENERATOR,
        "dataset": "HuggingFaceTB/smoltalk/everyday-conversations",
        "topic": "Cooking/Dinner/Pasta",
        "category": "Cooking",
        "group": "everyday",
        "source_split": "train",
        "source_index": 0,
    }
    assert (rows[1]["id"], rows[1]["group"], rows[1]["category"]) == (
        "test-0000",
        "school",
        "science",
    )


@pytest.mark.parametrize(
    "messages, match",
    [
        (
            [{"role": "user", "content": "Hi"}, HELLO, {"role": "user", "content": "Q"}],
            "expected roles",
        ),
        (
            [{"role": "user", "content": "Hi"}, {"role": "user", "content": "Q"}, HELLO, HELLO],
            "expected roles",
        ),
        (
            [{"role": "user", "content": "Hi"}, HELLO, {"role": "user", "content": "  "}, HELLO],
            "empty",
        ),
    ],
)
def test_shape_is_asserted(messages, match):
    with pytest.raises(DataError, match=match):
        build.candidate_rows({"train": [{"full_topic": "a/b", "messages": messages}], "test": []})


@pytest.mark.parametrize("topic", ["Travel", "A/B/C/D", "a//b"])
def test_topic_depth_is_checked(topic):
    with pytest.raises(DataError, match="levels"):
        build.candidate_rows({"train": [record("Q", topic)], "test": []})


def test_sample_rows_proportional_sorted_and_deterministic():
    source = {
        "train": [record(f"T{i}", f"A/x/{i % 2}") for i in range(30)]
        + [record(f"S{i}", "b/y") for i in range(10)],
        "test": [record(f"U{i}", "C/z/leaf") for i in range(20)],
    }
    rows = build.candidate_rows(source)
    picked = build.sample_rows(rows, 12, seed=0)
    assert picked == build.sample_rows(rows, 12, seed=0)
    assert picked != build.sample_rows(rows, 12, seed=1)
    parents = [build.parent_topic(r["topic"]) for r in picked]
    assert {p: parents.count(p) for p in set(parents)} == {"A/x": 6, "b": 2, "C/z": 4}
    keys = [(r["source_split"] != "train", r["source_index"]) for r in picked]
    assert keys == sorted(keys)
