"""What pico-dsl-v1's opt-in shaped reward pays cheap policies that never run the tape.

Each policy turns a row's prompt parts (input S, dictionary, tape) into a reply; only `gold`
reads the oracle's lines. The script scores every policy's reply on every row of the fixed
benchmark and of the train rows the CPU GRPO script uses (`splits.train_rows(..., difficulty=
"tiny")`) and on the default mixed train split, with the same pure functions both adapters call
(`parse.parse_answer`, then `shaped.shaped_line_similarity`, and `score.score_answer` for exact
match), and prints one table per row set: mean shaped reward, rows at 1.0 and exact matches.
Nothing is asserted here; tests/pico_dsl_v1/test_shaped.py holds the bounds.

With `--endpoint URL` it also samples a model on the tiny train prompts (temperature 1.0, 64
tokens, as the GRPO script does) and prints what its replies earn.

    uv run python benchmarks/bench_pico_dsl_v1_shaped.py [--train-rows 480] [--json FILE]
    uv run python benchmarks/bench_pico_dsl_v1_shaped.py --endpoint http://127.0.0.1:8765/v1
"""

from __future__ import annotations

import argparse
import json
import random
import sys
from collections.abc import Callable, Mapping
from pathlib import Path
from typing import Any

from pico_dsl_v1.metrics import score_answer
from pico_dsl_v1.oracle import apply_tape
from pico_dsl_v1.parse import parse_answer
from pico_dsl_v1.prompt import format_question
from pico_dsl_v1.shaped import shaped_line_similarity
from pico_dsl_v1.splits import eval_rows, train_rows

Row = Mapping[str, Any]


def block(lines: list[str]) -> str:
    """An answer block holding `lines`, as a chat model would end its reply."""
    return "<answer>\n" + "\n".join(lines) + "\n</answer>"


def given(row: Row) -> tuple[str, str]:
    """(S, reverse(S)): the two lines that need no tape."""
    return row["input"], row["input"][::-1]


def with_line3(row: Row, line3: str) -> str:
    """A block with the two given lines, `line3` and its reverse."""
    return block([*given(row), line3, line3[::-1]])


def literals(row: Row) -> str:
    """The tape's literal characters (those not in the dictionary), in tape order."""
    return "".join(c for c in row["tape"] if c not in row["dictionary"])


def all_take(row: Row) -> str:
    """The tape run over reverse(S) with every dictionary symbol read as TAKE: the literals
    land where the tape puts them, every operation is ignored."""
    as_take = {symbol: "TAKE" for symbol in row["dictionary"]}
    return apply_tape(row["input"][::-1], row["tape"], as_take)


def case_all(row: Row, op: str) -> str:
    """reverse(S) with one case change applied to every letter (blind to the tape)."""
    source = row["input"][::-1]
    return {"UPPER": source.upper(), "LOWER": source.lower(), "SWAPCASE": source.swapcase()}[op]


def random_edits(row: Row, kind: str) -> str:
    """reverse(S) with blind random edits, seeded by the row (the same reply on every run):
    "flip" swaps the case of three random characters, "delete" removes one."""
    rng = random.Random(f"{kind}|{row['input']}|{row['tape']}")
    chars = list(row["input"][::-1])
    if kind == "flip":
        for i in rng.sample(range(len(chars)), min(3, len(chars))):
            chars[i] = chars[i].swapcase()
    else:
        del chars[rng.randrange(len(chars))]
    return "".join(chars)


# name -> (policy, why it must earn (close to) nothing, or what it should earn)
POLICIES: dict[str, tuple[Callable[[Row], str], str]] = {
    "gold": (lambda r: block(list(r["target_lines"])), "the answer: 1.0"),
    "copy": (lambda r: with_line3(r, r["input"][::-1]),
             "S, reverse(S), reverse(S), S: never runs the tape"),
    "echo": (lambda r: format_question(r["input"], r["dictionary"], r["tape"]),
             "repeats the question (what SmolLM2-135M mostly does)"),
    "echo_in_block": (lambda r: block(format_question(r["input"], r["dictionary"],
                                                      r["tape"]).split("\n")),
                      "the question inside an answer block"),
    "literal_insertion": (lambda r: with_line3(r, r["input"][::-1] + literals(r)),
                          "copy with the tape's literals appended, operations never run"),
    "literals_only": (lambda r: with_line3(r, literals(r)), "line 3 = the tape's literals"),
    "tape_as_line3": (lambda r: with_line3(r, r["tape"]), "line 3 = the tape text itself"),
    "all_take": (lambda r: with_line3(r, all_take(r)),
                 "literals placed by the tape, every operation read as TAKE"),
    "upper_all": (lambda r: with_line3(r, case_all(r, "UPPER")), "blind UPPER on every letter"),
    "lower_all": (lambda r: with_line3(r, case_all(r, "LOWER")), "blind LOWER on every letter"),
    "swapcase_all": (lambda r: with_line3(r, case_all(r, "SWAPCASE")),
                     "blind SWAPCASE on every letter"),
    "drop_last": (lambda r: with_line3(r, r["input"][::-1][:-1]),
                  "copy minus its last character (blind deletion)"),
    "double_first": (lambda r: with_line3(r, r["input"][-1] + r["input"][::-1]),
                     "copy with its first character doubled (blind repeat)"),
    "random_case_flips": (lambda r: with_line3(r, random_edits(r, "flip")),
                          "three random letters case-swapped (a policy that guesses edits)"),
    "random_deletion": (lambda r: with_line3(r, random_edits(r, "delete")),
                        "one random character deleted"),
    "copy_bare": (lambda r: "\n".join([*given(r), r["input"][::-1], r["input"]]),
                  "the copy answer without the block"),
    "empty": (lambda r: "", "no reply"),
}


def shaped(reply: str, row: Row) -> float:
    """The shaped reward of `reply` on `row` (what both adapters compute)."""
    return shaped_line_similarity(parse_answer(reply), row["target_lines"])


def policy_figures(rows: list[Row]) -> dict[str, dict[str, float]]:
    """policy -> {mean shaped reward, share of rows at 1.0, exact-match share} over `rows`."""
    out = {}
    for name, (policy, _) in POLICIES.items():
        rewards, exact = [], []
        for row in rows:
            reply = policy(row)
            rewards.append(shaped(reply, row))
            exact.append(score_answer(parse_answer(reply), row["target_lines"])["exact_match"])
        out[name] = {
            "shaped_mean": sum(rewards) / len(rewards),
            "shaped_max": max(rewards),
            "at_one": sum(1 for r in rewards if r == 1.0) / len(rewards),
            "exact_match": sum(exact) / len(exact),
        }
    return out


def table(title: str, n: int, figures: dict[str, dict[str, float]]) -> str:
    """A plain-text table of `policy_figures`."""
    lines = [f"{title} (N={n})", f"{'policy':<18} {'shaped':>7} {'max':>6} {'at 1.0':>7} "
             f"{'exact':>6}"]
    for name, f in figures.items():
        lines.append(f"{name:<18} {f['shaped_mean']:7.3f} {f['shaped_max']:6.3f} "
                     f"{f['at_one']:7.3f} {f['exact_match']:6.3f}")
    return "\n".join(lines)


def model_figures(endpoint: str, prompts: int, group: int) -> dict[str, float]:
    """Sample `group` chat replies (temperature 1.0, 64 tokens) for each of the first `prompts`
    tiny train rows from an OpenAI-compatible `endpoint`; return the mean shaped reward, how
    many samples earn more than 0 and how many groups have any reward spread (a GRPO
    advantage)."""
    from openai import OpenAI
    from pico_dsl_v1.prompt import SYSTEM_PROMPT
    from pico_dsl_v1.splits import prompt_key

    client = OpenAI(base_url=endpoint, api_key="none")
    rewards, spread = [], 0
    for row in train_rows(prompts, difficulty="tiny"):
        group_rewards = []
        for k in range(group):
            reply = client.chat.completions.create(
                model="local", temperature=1.0, max_tokens=64, seed=k,
                messages=[{"role": "system", "content": SYSTEM_PROMPT},
                          {"role": "user", "content": prompt_key(row)}],
            ).choices[0].message.content
            group_rewards.append(shaped(reply or "", row))
        rewards += group_rewards
        spread += max(group_rewards) > min(group_rewards)
    return {"samples": len(rewards), "shaped_mean": sum(rewards) / len(rewards),
            "samples_above_zero": sum(1 for r in rewards if r > 0), "groups_with_spread": spread}


def main(argv: list[str] | None = None) -> int:
    """Print the tables (and write them as JSON with --json)."""
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--train-rows", type=int, default=480,
                        help="rows of each train set (GRPO's tiny stream, the mixed stream)")
    parser.add_argument("--json", type=Path, default=None, help="also write the figures here")
    parser.add_argument("--endpoint", default=None,
                        help="also sample a model here (e.g. http://127.0.0.1:8765/v1)")
    parser.add_argument("--prompts", type=int, default=16, help="tiny train prompts to sample")
    parser.add_argument("--group", type=int, default=4, help="samples per prompt")
    args = parser.parse_args(argv)
    sets = {
        "benchmark (eval split)": eval_rows(),
        "train, difficulty tiny (scripts/grpo_cpu_pico.py)": train_rows(args.train_rows,
                                                                          difficulty="tiny"),
        "train, mixed (taskset default stream)": train_rows(args.train_rows),
    }
    report = {}
    for title, rows in sets.items():
        figures = policy_figures(rows)
        report[title] = {"rows": len(rows), "policies": figures}
        print(table(title, len(rows), figures), end="\n\n")
    if args.endpoint is not None:
        report["model"] = model_figures(args.endpoint, args.prompts, args.group)
        print(f"model at {args.endpoint}: {json.dumps(report['model'])}")
    if args.json is not None:
        args.json.write_text(json.dumps(report, indent=2) + "\n")
    return 0


if __name__ == "__main__":
    sys.exit(main())
