"""Train and eval splits of smolscript, which never share a task or a near-copy of one.

- eval: the default edition (350 tasks), the benchmark;
- train: the full2000 edition minus every default task and every task the edition audit would
  flag as similar to one: the same id, the same behavioural fingerprint (programs) or structural
  spec key (web), or a same-language instruction with word-trigram Jaccard similarity at or above
  the audit's threshold (`similarity.TRIGRAM_THRESHOLD`).

Pure given the packaged editions; shared by the classic environment and the v1 taskset.
"""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Mapping, Sequence
from typing import Any

from smolscript import data
from smolscript.similarity import TRIGRAM_THRESHOLD, jaccard, trigrams

EVAL_EDITION = "default"
TRAIN_EDITION = "full2000"


def identity(task: Mapping[str, Any]) -> str:
    """The audit's uniqueness key: behavioural fingerprint (programs) or spec key (web)."""
    meta = task["metadata"]
    return meta["fingerprint"] if task["modality"] == "program" else meta["spec_key"]


def similar_ids(candidates: Sequence[Mapping[str, Any]], evaluation: Sequence[Mapping[str, Any]],
                threshold: float = TRIGRAM_THRESHOLD) -> set[str]:
    """Ids of `candidates` that are, or are similar to, a task of `evaluation` (see module)."""
    ids = {t["id"] for t in evaluation}
    keys = {(t["language"], identity(t)) for t in evaluation}
    grams: dict[str, list[frozenset]] = defaultdict(list)
    for task in evaluation:
        grams[task["language"]].append(trigrams(task["instruction"]))
    flagged = set()
    for task in candidates:
        mine = trigrams(task["instruction"])
        if (task["id"] in ids or (task["language"], identity(task)) in keys
                or any(jaccard(mine, other) >= threshold for other in grams[task["language"]])):
            flagged.add(task["id"])
    return flagged


def eval_tasks(languages: Sequence[str] | None = None,
               difficulties: Sequence[str] | None = None) -> list[dict]:
    """The default edition's tasks (filtered), in file order."""
    return data.load_tasks(EVAL_EDITION, languages, difficulties)


def train_tasks(languages: Sequence[str] | None = None,
                difficulties: Sequence[str] | None = None) -> list[dict]:
    """The full2000 tasks (filtered) that are not, and are not similar to, a default task."""
    candidates = data.load_tasks(TRAIN_EDITION, languages, difficulties)
    flagged = similar_ids(candidates, data.load_tasks(EVAL_EDITION))
    return [task for task in candidates if task["id"] not in flagged]
