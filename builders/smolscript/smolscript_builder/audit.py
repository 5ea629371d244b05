"""Audits of an edition: behavioural fingerprints, web spec uniqueness, instruction trigrams.

Programming tasks are equivalent when their oracle outputs agree on the fixed probe set of
their input type (their fingerprint); within a language no two may share one. Web tasks must
have distinct structural spec keys. Instruction pairs with a high word-trigram Jaccard
similarity are flagged and reported with the behavioural reason they are kept.
"""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Mapping, Sequence
from itertools import combinations
from typing import Any

from smolscript.similarity import TRIGRAM_THRESHOLD, jaccard, trigrams

__all__ = ["TRIGRAM_THRESHOLD", "audit_edition", "jaccard", "trigram_audit", "trigrams",
           "uniqueness_audit"]


def _keep_reason(a: Mapping[str, Any], b: Mapping[str, Any]) -> tuple[bool, str]:
    """(kept, why): kept when the two tasks are behaviourally or structurally distinct."""
    meta_a, meta_b = a["metadata"], b["metadata"]
    if a["modality"] == "program" and b["modality"] == "program":
        only_a = [s for s in meta_a["stages"] if s not in meta_b["stages"]]
        only_b = [s for s in meta_b["stages"] if s not in meta_a["stages"]]
        distinct = meta_a["fingerprint"] != meta_b["fingerprint"]
        return distinct, (
            f"stages only in {a['id']}: {only_a or 'none'}; only in {b['id']}: "
            f"{only_b or 'none'}; behavioural fingerprints "
            + ("differ" if distinct else "are EQUAL")
        )
    if a["modality"] == "browser" and b["modality"] == "browser":
        distinct = meta_a["spec_key"] != meta_b["spec_key"]
        return distinct, "structural specs " + ("differ" if distinct else "are EQUAL")
    return True, "a program task and a browser task"


def trigram_audit(
    rows: Sequence[Mapping[str, Any]], threshold: float = TRIGRAM_THRESHOLD
) -> dict[str, Any]:
    """Flag same-language instruction pairs with trigram Jaccard >= ``threshold``."""
    by_language: dict[str, list[Mapping[str, Any]]] = defaultdict(list)
    for row in rows:
        by_language[row["language"]].append(row)
    flagged, compared = [], 0
    for language in sorted(by_language):
        items = sorted(by_language[language], key=lambda r: r["id"])
        grams = [trigrams(r["instruction"]) for r in items]
        for (i, a), (j, b) in combinations(enumerate(items), 2):
            compared += 1
            score = jaccard(grams[i], grams[j])
            if score >= threshold:
                kept, reason = _keep_reason(a, b)
                flagged.append(
                    {
                        "a": a["id"],
                        "b": b["id"],
                        "language": language,
                        "similarity": round(score, 4),
                        "kept": kept,
                        "reason": reason,
                    }
                )
    return {
        "threshold": threshold,
        "pairs_compared": compared,
        "flagged_count": len(flagged),
        "rejected_count": sum(not f["kept"] for f in flagged),
        "flagged": flagged,
    }


def uniqueness_audit(rows: Sequence[Mapping[str, Any]]) -> dict[str, Any]:
    """Per language: tasks, distinct fingerprints (programs) or spec keys (web), duplicates."""
    groups: dict[str, dict[str, list[str]]] = defaultdict(lambda: defaultdict(list))
    for row in rows:
        meta = row["metadata"]
        key = meta["fingerprint"] if row["modality"] == "program" else meta["spec_key"]
        groups[f"{row['language']}/{row['modality']}"][key].append(row["id"])
    out = {}
    for name in sorted(groups):
        keys = groups[name]
        out[name] = {
            "tasks": sum(len(ids) for ids in keys.values()),
            "distinct": len(keys),
            "duplicates": sorted(ids for ids in keys.values() if len(ids) > 1),
        }
    return out


def audit_edition(rows: Sequence[Mapping[str, Any]]) -> dict[str, Any]:
    """The machine-readable audit of one edition's public rows."""
    unique = uniqueness_audit(rows)
    trig = trigram_audit(rows)
    return {
        "tasks": len(rows),
        "uniqueness": unique,
        "all_unique": all(not g["duplicates"] for g in unique.values()),
        "trigram": trig,
    }
