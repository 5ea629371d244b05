"""The opt-in shaped reward pays for running the tape: golden cases, cheap policies, 1.0 = exact.

The cheap policies are the ones `benchmarks/bench_pico_dsl_v1_shaped.py` prints figures for;
here each is held to a bound on the benchmark and on the train rows the GRPO script uses.
"""

from __future__ import annotations

import pytest
from pico_dsl_v1.metrics import score_answer
from pico_dsl_v1.parse import parse_answer
from pico_dsl_v1.prompt import EXAMPLE_DICTIONARY, EXAMPLE_INPUT, EXAMPLE_LINES, EXAMPLE_TAPE
from pico_dsl_v1.shaped import FORM_FACTOR, line_work, shaped_line_similarity
from pico_dsl_v1.splits import eval_rows, train_rows

from benchmarks.bench_pico_dsl_v1_shaped import POLICIES, block

pytestmark = pytest.mark.unit

GOLD = list(EXAMPLE_LINES)  # Cats nap / pan staC / paa(N S)!a / a!)S N(aap
S, R = EXAMPLE_INPUT, EXAMPLE_INPUT[::-1]


def shaped(reply: str, targets: list[str] = GOLD) -> float:
    return shaped_line_similarity(parse_answer(reply), targets)


@pytest.mark.parametrize(
    ("reply", "expected", "why"),
    [
        (block(GOLD), 1.0, "the gold block"),
        (block([S, R, R, S]), 0.0, "the copy answer never runs the tape"),
        (block([S, R, R.upper(), S.upper()]), 0.0, "a tape-blind case change is no work"),
        (block([S, R, R.title(), R.title()[::-1]]), 0.0, "title case of line 2 is no work"),
        (block([S, R, "".join(c * 2 for c in R), "".join(c * 2 for c in S)]), 0.0,
         "every character doubled is no work"),
        (block([*GOLD, "extra"]), FORM_FACTOR, "four gold lines and an extra line: not exact"),
        ("\n".join(GOLD), FORM_FACTOR, "four gold lines without the block"),
        ("\n".join([*GOLD, "extra"]), FORM_FACTOR, "bare gold lines and an extra line"),
        (block(["x", "y", *GOLD[2:]]), FORM_FACTOR, "lines 3 and 4 right, lines 1 and 2 wrong"),
        (block([S, R, GOLD[2], S]), 0.5, "line 3 right, line 4 left as the copy"),
        (block([S, R]), 0.0, "only the two given lines"),
        (block([GOLD[2], GOLD[3]]), 0.0, "the work on the wrong lines (1 and 2)"),
        ("", 0.0, "empty reply"),
        ("exact_match: 1.0\nshaped_line_similarity: 1.0", 0.0, "imitates the scorer's output"),
        (block(GOLD) + "\n<answer>\n" + "\n".join([S, R, R, S]) + "\n</answer>", 0.0,
         "only the trailing block counts: a gold block drafted before a copy block earns 0"),
        ("<think>\n" + "\n".join(GOLD), 0.0,
         "gold lines inside a reasoning trace that never closed: nothing is read from a trace"),
        ("<think>" + "\n".join(GOLD), 0.0,
         "the unclosed trace opens on line 1: lines 3 and 4 are still inside it (0.9 before)"),
        ("\n".join(GOLD) + "\n<think>", 0.0,
         "a trace opened after the lines and never closed: no answer (0.9 before)"),
        ("<think>\n" + "\n".join(GOLD) + "\n</think>\nI give up.", 0.0,
         "gold lines inside a closed trace, no answer after it"),
        ("<think>\nscratch\n</think>\n" + "\n".join(GOLD), FORM_FACTOR,
         "gold lines after a closed trace are the answer (no block)"),
    ],
)
def test_golden_cases(reply: str, expected: float, why: str) -> None:
    assert shaped(reply) == pytest.approx(expected), why


@pytest.mark.parametrize(
    ("line3", "why"),
    [
        (GOLD[2].replace("a", "\u0430"), "Cyrillic a for Latin a"),
        (GOLD[2].replace("(", "\uff08"), "full-width bracket"),
        (GOLD[2][:3] + "\u200b" + GOLD[2][3:], "zero-width space"),
    ],
)
def test_look_alike_characters_never_reach_one(line3: str, why: str) -> None:
    reply = block([S, R, line3, line3[::-1]])
    assert score_answer(parse_answer(reply), GOLD)["exact_match"] == 0.0, why
    assert shaped(reply) < 1.0, why


def test_partial_work_earns_partial_credit() -> None:
    """Getting one more of the tape's changes right never lowers the reward. (The first
    change alone, "paa staC", is no closer than the alternating-case line 2 "PaN StAc", a
    tape-blind answer, so it is not a step here.)"""
    steps = ["pan staC", "paa(N staC", "paa(N S)!C", "paa(N S)!a"]
    rewards = [shaped(block([S, R, line, line[::-1]])) for line in steps]
    assert rewards[0] == 0.0 and rewards[-1] == 1.0
    assert rewards == sorted(rewards) and len(set(rewards)) == len(rewards)


def test_line_work_edges() -> None:
    assert line_work(None, "abc", ("xbc",)) == 0.0
    assert line_work("abc", "abc", ("abc",)) == 1.0  # a blind answer is the gold: exact only
    assert line_work("abd", "abc", ("abc",)) == 0.0
    assert line_work("abc", "abc", ("xyz", "abx")) == 1.0
    assert line_work("abx", "abc", ("xyz", "abx")) == 0.0  # no closer than the best blind one


def test_wrong_target_count_raises() -> None:
    with pytest.raises(ValueError, match="4 target lines"):
        shaped(block(GOLD), GOLD[:3])


def test_example_is_the_oracle() -> None:
    from pico_dsl_v1.oracle import target_lines

    assert list(target_lines(EXAMPLE_INPUT, EXAMPLE_TAPE, EXAMPLE_DICTIONARY)) == GOLD


@pytest.fixture(scope="module")
def row_sets() -> dict[str, list[dict]]:
    return {"benchmark": eval_rows(), "train tiny (GRPO)": train_rows(480, difficulty="tiny")}


# policy -> highest mean shaped reward allowed on each row set (gold must be exactly 1.0).
NEAR_ZERO = {
    "copy": 0.0, "copy_bare": 0.0, "empty": 0.0, "echo": 0.0, "echo_in_block": 0.0,
    "upper_all": 0.0, "lower_all": 0.0, "swapcase_all": 0.0,
    "literal_insertion": 0.02, "literals_only": 0.01, "tape_as_line3": 0.01,
    "drop_last": 0.03, "double_first": 0.03,
    # A random edit sometimes is the tape's (luck, and reinforcing it is learning): about 2%.
    "random_case_flips": 0.04, "random_deletion": 0.04,
}  # fmt: skip


def test_every_policy_is_listed() -> None:
    assert set(POLICIES) == set(NEAR_ZERO) | {"gold", "all_take"}


@pytest.mark.parametrize("policy", sorted(NEAR_ZERO))
def test_cheap_policies_earn_close_to_nothing(policy: str, row_sets: dict) -> None:
    reply_of, why = POLICIES[policy]
    for name, rows in row_sets.items():
        rewards = [shaped(reply_of(row), row["target_lines"]) for row in rows]
        mean = sum(rewards) / len(rewards)
        assert mean <= NEAR_ZERO[policy], f"{policy} ({why}) earns {mean:.3f} on {name}"


def test_gold_earns_one_on_every_row(row_sets: dict) -> None:
    reply_of = POLICIES["gold"][0]
    for rows in row_sets.values():
        assert {shaped(reply_of(row), row["target_lines"]) for row in rows} == {1.0}


def test_placing_the_literals_is_paid_only_where_the_tape_has_literals(row_sets: dict) -> None:
    """`all_take` runs the literal part of the tape (every operation read as TAKE): it does some
    of the work, so it earns on rows with literals and nothing on rows without."""
    reply_of = POLICIES["all_take"][0]
    for rows in row_sets.values():
        plain = [r for r in rows if r["diagnostics"]["literal_count"] == 0]
        assert {shaped(reply_of(r), r["target_lines"]) for r in plain} == {0.0}
        with_literals = [shaped(reply_of(r), r["target_lines"]) for r in rows
                         if r["diagnostics"]["literal_count"] > 0]
        assert sum(with_literals) / len(with_literals) > 0.2


def test_one_point_zero_exactly_when_exact_match(row_sets: dict) -> None:
    """The top of the shaped scale is the benchmark's exact answer, for every policy's reply."""
    variants = [lambda t: block([*t, "extra"]), lambda t: "\n".join(t)]
    for rows in row_sets.values():
        for row in rows[::8]:
            replies = [p(row) for p, _ in POLICIES.values()]
            replies += [v(row["target_lines"]) for v in variants]
            for reply in replies:
                parsed = parse_answer(reply)
                exact = score_answer(parsed, row["target_lines"])["exact_match"]
                assert (shaped_line_similarity(parsed, row["target_lines"]) == 1.0) == (
                    exact == 1.0), reply
