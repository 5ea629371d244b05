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
        "negative_control": draft.prefix + draft.negative_body, "near_miss": None,
        "hidden_tests": draft.checks.tests, "spec": spec, "spec_key": spec_key(spec),
        "shape_key": spec_key({"category": draft.category, **(draft.shape or draft.spec)}),
    }
