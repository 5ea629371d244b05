"""Measure a (input, tape, dictionary) triple: the diagnostic fields stored on every row.

Pure. The compiler stores these numbers, the validator recomputes and compares them, and the
level and slice definitions in spec.py are stated in their terms.
"""

from __future__ import annotations

import math
from collections import Counter
from collections.abc import Mapping
from typing import Any

from .oracle import CASE_OPERATIONS, OPERATIONS, trace
from .spec import PHENOMENA


def tape_entropy_bits(tape: str) -> float:
    """Shannon entropy of the tape's character distribution, in bits (0.0 for an empty tape)."""
    if not tape:
        return 0.0
    counts = Counter(tape)
    total = len(tape)
    return -sum(c / total * math.log2(c / total) for c in counts.values())


def measure(text: str, tape: str, dictionary: Mapping[str, str]) -> dict[str, Any]:
    """Return the diagnostics of a row (JSON-ready; entropy rounded to 4 decimals).

    Keys: source_length, tape_length, dictionary_size, distinct_ops, ops_used (in OPERATIONS
    order), literal_count, noop_count (consuming symbols after the source ran out), drop_count,
    repeat_count (REPEATs that consumed a character), case_change_count (case operations that
    changed a letter), leftover (source characters never consumed), tape_entropy_bits,
    tape_unique_chars, phenomena (subset of spec.PHENOMENA, in that order).
    """
    steps, leftover = trace(text[::-1], tape, dictionary)
    used = {dictionary[s] for s in tape if s in dictionary}
    consumed = [st for st in steps if st.consumed is not None]
    counts = {
        "literal_count": sum(1 for st in steps if st.op is None),
        "noop_count": sum(1 for st in steps if st.op is not None and st.consumed is None),
        "drop_count": sum(1 for st in consumed if st.op == "DROP"),
        "repeat_count": sum(1 for st in consumed if st.op == "REPEAT"),
        "case_change_count": sum(
            1 for st in consumed if st.op in CASE_OPERATIONS and st.emitted != st.consumed
        ),
    }
    present = {
        "case": counts["case_change_count"] > 0,
        "punctuation": counts["literal_count"] > 0,
        "deletion": counts["drop_count"] > 0,
        "repeat": counts["repeat_count"] > 0,
        "noop_suffix": counts["noop_count"] > 0,
    }
    return {
        "source_length": len(text),
        "tape_length": len(tape),
        "dictionary_size": len(dictionary),
        "distinct_ops": len(used),
        "ops_used": [op for op in OPERATIONS if op in used],
        **counts,
        "leftover": leftover,
        "tape_entropy_bits": round(tape_entropy_bits(tape), 4),
        "tape_unique_chars": len(set(tape)),
        "phenomena": [p for p in PHENOMENA if present[p]],
    }
