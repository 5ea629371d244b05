"""Shared record building for web tasks: spec keys, probes/tests bookkeeping, the record dict.

Every generator family produces a `WebTaskDraft` (pure data); `to_record` turns it into the
record shape in CONTRACT.md. Nothing here touches a browser.
"""

from __future__ import annotations

import hashlib
import json
from dataclasses import dataclass, field
from typing import Any

DIFFICULTIES = ("easy", "medium", "moderate")
DEFAULT_VIEWPORT = {"width": 800, "height": 600}
TIMEOUT_S = 3


def canonical_json(value: Any) -> str:
    """Canonical JSON (sorted keys, no spaces): the byte form hashed for spec keys."""
    return json.dumps(value, sort_keys=True, separators=(",", ":"), ensure_ascii=True)


def spec_key(spec: dict) -> str:
    """SHA-256 hex digest of a structural spec's canonical JSON."""
    return hashlib.sha256(canonical_json(spec).encode()).hexdigest()


@dataclass
class Checks:
    """Accumulates probes (public) and hidden tests (host-only expected values)."""

    probes: list[dict] = field(default_factory=list)
    tests: list[dict] = field(default_factory=list)

    def add(self, op: str, selector: str, match: str, expected: Any, what: str,
            **params: Any) -> None:
        """Add one probe and the hidden test that judges it."""
        pid = f"p{len(self.probes) + 1}"
        self.probes.append({"id": pid, "op": op, "selector": selector, **params})
        self.tests.append({"id": f"t{len(self.tests) + 1}", "probe": pid, "match": match,
                           "expected": expected, "what": what})

    def count(self, selector: str, expected: int) -> None:
        """Require `selector` to match exactly `expected` elements (once per selector).

        Raises ValueError when the selector was already given a different count."""
        known = next((t for t in self.tests if t["match"] == "count"
                      and self._probe(t["probe"])["selector"] == selector), None)
        if known is not None:
            if known["expected"] != expected:
                raise ValueError(f"{selector!r} counted as {known['expected']} and {expected}")
            return
        self.add("count", selector, "count", expected, f"{selector} matches {expected}")

    def add_each(self, op: str, selector: str, matches: int, match: str, expected: Any,
                 what: str, **params: Any) -> None:
        """Probe every one of the `matches` elements `selector` matches (index 0 .. n-1),
        with the same expectation, and require that count (`count`): a probe of the first
        match alone would pass an answer that handles only the first."""
        if matches < 1:
            raise ValueError(f"{selector!r}: an observed selector must match an element")
        self.count(selector, matches)
        for index in range(matches):
            where = {"index": index} if index else {}
            label = f"{what} [{index}]" if matches > 1 else what
            self.add(op, selector, match, expected, label, **params, **where)

    def _probe(self, pid: str) -> dict:
        return next(p for p in self.probes if p["id"] == pid)

    def act(self, op: str, selector: str, **params: Any) -> None:
        """Add an action probe (dom tasks); actions carry no hidden test."""
        self.probes.append({"id": f"p{len(self.probes) + 1}", "op": op, "selector": selector,
                            **params})


@dataclass
class WebTaskDraft:
    """Everything one generated web task needs before it becomes a record."""

    language: str
    kind: str
    difficulty: str
    family: str
    category: str
    instruction: str
    input_domain: str
    prefix: str
    reference_body: str
    negative_body: str
    checks: Checks
    spec: dict
    fixture: str | None = None
    base_styles: str | None = None
    viewports: list[dict] = field(default_factory=lambda: [dict(DEFAULT_VIEWPORT)])
    entry_point: str | None = None
    shape: dict | None = None
    near_miss_body: str | None = None  # a near miss the probes must catch (after the prefix)
    near_miss_description: str | None = None


def to_record(draft: WebTaskDraft) -> dict:
    """Build the CONTRACT record for a draft (reference and negative include the prefix)."""
    spec = {"language": draft.language, "category": draft.category, **draft.spec}
    return {
        "language": draft.language, "difficulty": draft.difficulty, "family": draft.family,
        "category": draft.category, "modality": "browser", "kind": draft.kind,
        "instruction": draft.instruction, "input_domain": draft.input_domain,
        "entry_point": draft.entry_point, "signature": None, "prefix": draft.prefix,
        "imports": None, "fixture": draft.fixture, "base_styles": draft.base_styles,
        "viewports": draft.viewports, "probes": draft.checks.probes, "timeout_s": TIMEOUT_S,
        "reference_solution": draft.prefix + draft.reference_body,
        "negative_control": draft.prefix + draft.negative_body,
        "near_miss": None if draft.near_miss_body is None else draft.prefix + draft.near_miss_body,
        "near_miss_description": draft.near_miss_description,
        "hidden_tests": draft.checks.tests, "spec": spec, "spec_key": spec_key(spec),
        "shape_key": spec_key({"category": draft.category, **(draft.shape or draft.spec)}),
    }
