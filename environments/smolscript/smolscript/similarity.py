"""Instruction similarity shared by the builder's edition audit and the train/eval split.

Pure: lower-cased word trigrams and their Jaccard similarity; pairs at or above
TRIGRAM_THRESHOLD count as near-copies.
"""

from __future__ import annotations

TRIGRAM_THRESHOLD = 0.6


def trigrams(text: str) -> frozenset[tuple[str, str, str]]:
    """Lower-cased word trigrams of ``text`` (punctuation kept attached to words)."""
    words = text.lower().split()
    return frozenset(zip(words, words[1:], words[2:], strict=False))


def jaccard(a: frozenset, b: frozenset) -> float:
    """Jaccard similarity of two sets (1.0 for two empty sets)."""
    if not a and not b:
        return 1.0
    return len(a & b) / len(a | b)
