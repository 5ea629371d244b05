"""Pure dataset-building logic for SmolTalkBench: source conversations in, benchmark rows out.

Sits between the source loader (scripts/create_smoltalkbench_dataset.py, which reads the
`everyday-conversations` subset of HuggingFaceTB/smoltalk from the hub or a local copy) and the
writer: `candidate_rows` checks every conversation's shape, takes the second user turn as the
instruction and the reply to it as the reference, and drops repeated prompts; `allocate` spreads
N rows over the parent topics by largest remainder; `sample_rows` draws them reproducibly.
Nothing here touches files or the network.
"""

from __future__ import annotations

import random
from collections import Counter, defaultdict
from collections.abc import Iterable, Mapping, Sequence
from typing import Any

from smoltalkbench.errors import DataError

SOURCE = "HuggingFaceTB/smoltalk"
SUBSET = "everyday-conversations"
SOURCE_REVISION = "5feaf2fd3ffca7c237fc38d1861bc30365d48ffa"
SOURCE_SPLITS = ("train", "test")
GENERATOR = "meta-llama/Meta-Llama-3.1-70B-Instruct"
DATASET_NAME = f"{SOURCE}/{SUBSET}"
COLUMNS = (
    "id",
    "instruction",
    "output",
    "generator",
    "dataset",
    "topic",
    "category",
    "group",
    "source_split",
    "source_index",
)
EXPECTED_ROLES = ("user", "assistant", "user", "assistant")


def prompt_key(text: str) -> str:
    """Deduplication key of a prompt: case-folded, whitespace runs collapsed, ends stripped."""
    return " ".join(text.casefold().split())


def instruction_and_reference(messages: Sequence[Mapping[str, Any]], where: str) -> tuple[str, str]:
    """(instruction, reference) of one source conversation: its second user turn and the reply.

    Every source conversation opens with a bare greeting and a stock "How can I help you today?";
    the first four messages must alternate user/assistant. Raises DataError (naming `where`)
    otherwise, or when the instruction or reference is empty.
    """
    roles = tuple(m.get("role") for m in messages[:4])
    if roles != EXPECTED_ROLES:
        raise DataError(f"{where}: expected roles {list(EXPECTED_ROLES)} first, got {list(roles)}")
    instruction = str(messages[2].get("content") or "").strip()
    reference = str(messages[3].get("content") or "").strip()
    if not instruction or not reference:
        raise DataError(f"{where}: empty instruction or reference")
    return instruction, reference


def topic_fields(full_topic: str, where: str) -> dict[str, str]:
    """category (first level) and group of a source topic.

    Three-level topics ("Travel/Packing/Carry-on bags") are everyday requests: group
    "everyday"; two-level ones ("science/plants") are grade-school knowledge: group "school".
    Raises DataError for any other depth.
    """
    levels = full_topic.split("/")
    groups = {3: "everyday", 2: "school"}
    if len(levels) not in groups or not all(level.strip() for level in levels):
        raise DataError(f"{where}: topic {full_topic!r} must have two or three non-empty levels")
    return {"category": levels[0], "group": groups[len(levels)]}


def parent_topic(topic: str) -> str:
    """The topic without its last level: the stratum used for sampling."""
    return topic.rsplit("/", 1)[0]


def candidate_rows(splits: Mapping[str, Iterable[Mapping[str, Any]]]) -> list[dict[str, Any]]:
    """One benchmark row per distinct prompt, from source records grouped by split.

    `splits` maps "train" and "test" to records with `messages` and `full_topic`. Splits are
    read train first, then test; the first occurrence of a prompt (by `prompt_key`) is kept.
    Raises DataError when a split is missing or a record is malformed.
    """
    missing = [name for name in SOURCE_SPLITS if name not in splits]
    if missing:
        raise DataError(f"source lacks split(s) {missing}; expected {list(SOURCE_SPLITS)}")
    rows: list[dict[str, Any]] = []
    seen: set[str] = set()
    for split in SOURCE_SPLITS:
        for index, record in enumerate(splits[split]):
            where = f"{split}[{index}]"
            instruction, reference = instruction_and_reference(record["messages"], where)
            key = prompt_key(instruction)
            if key in seen:
                continue
            seen.add(key)
            topic = record["full_topic"]
            rows.append(
                {
                    "id": f"{split}-{index:04d}",
                    "instruction": instruction,
                    "output": reference,
                    "generator": GENERATOR,
                    "dataset": DATASET_NAME,
                    "topic": topic,
                    **topic_fields(topic, where),
                    "source_split": split,
                    "source_index": index,
                }
            )
    return rows


def allocate(sizes: Mapping[str, int], n: int) -> dict[str, int]:
    """Split n over strata in proportion to their sizes, rounded by largest remainder.

    Each stratum first gets the floor of its quota n * size / total; the rows still missing go
    one each to the strata with the largest fractional remainders (ties: name order). The result
    sums to exactly n and never exceeds a stratum's size. Raises ValueError when n is negative
    or larger than the total.
    """
    total = sum(sizes.values())
    if n < 0 or n > total:
        raise ValueError(f"cannot sample {n} rows from {total}")
    floors: dict[str, int] = {}
    remainders: dict[str, float] = {}
    for name in sorted(sizes):
        whole, rest = divmod(n * sizes[name], total)
        floors[name] = whole
        remainders[name] = rest / total
    short = n - sum(floors.values())
    for name in sorted(remainders, key=lambda s: (-remainders[s], s))[:short]:
        floors[name] += 1
    return floors


def sample_rows(rows: Sequence[Mapping[str, Any]], n: int, seed: int) -> list[dict[str, Any]]:
    """n rows drawn in proportion to their parent topics, ordered train first, then by index.

    Deterministic for a given (rows, n, seed): strata are visited in name order and each is
    sampled with one `random.Random(seed)`.
    """
    strata: dict[str, list[Mapping[str, Any]]] = defaultdict(list)
    for row in rows:
        strata[parent_topic(row["topic"])].append(row)
    quotas = allocate({name: len(members) for name, members in strata.items()}, n)
    rng = random.Random(seed)
    picked = [dict(r) for name in sorted(strata) for r in rng.sample(strata[name], quotas[name])]
    picked.sort(key=lambda r: (SOURCE_SPLITS.index(r["source_split"]), r["source_index"]))
    if len({r["id"] for r in picked}) != n:
        raise DataError("sampling produced duplicate ids")
    return picked


def counts(rows: Iterable[Mapping[str, Any]], column: str) -> list[tuple[str, int]]:
    """(value, count) of a column, most common first, ties by value."""
    tally = Counter(row[column] for row in rows)
    return sorted(tally.items(), key=lambda item: (-item[1], item[0]))
