"""Every reference of the packaged default edition round-trips through assembly.

As a continuation (the reference after its prefix, as a perfect model would write it) the
assembled code equals the reference (Python: AST-equal; others: source-equal); as a
complete prediction (the standalone evaluator's path) it is kept as written.
"""

from __future__ import annotations

import pytest
from smolscript import data
from smolscript.assemble import (
    assemble_completion,
    assemble_prediction,
    body_of_reference,
    sources_equal,
)

pytestmark = pytest.mark.unit


@pytest.fixture(scope="module")
def pairs():
    tasks = data.load_tasks("default")
    refs = data.load_references("default")
    return [(t, refs[t["id"]]["reference_solution"]) for t in tasks]


def test_default_edition_is_complete(pairs):
    assert len(pairs) == 350
    assert {t["language"] for t, _ in pairs} == set(data.LANGUAGE_ORDER)


def test_every_reference_body_roundtrips_as_a_continuation(pairs):
    failures = []
    for task, reference in pairs:
        assembled = assemble_completion(task, body_of_reference(task, reference))
        if not (assembled.ok and sources_equal(task["language"], assembled.code, reference)):
            failures.append(task["id"])
    assert failures == []


def test_every_reference_is_kept_as_a_prediction(pairs):
    failures = []
    for task, reference in pairs:
        assembled = assemble_prediction(task, reference)
        if not (assembled.ok and sources_equal(task["language"], assembled.code, reference)):
            failures.append(task["id"])
    assert failures == []


def test_a_fenced_reference_is_accepted_as_a_prediction(pairs):
    for task, reference in pairs[::25]:
        fenced = f"Here is my answer:\n```{task['language']}\n{reference}```\nThanks."
        assert sources_equal(task["language"], assemble_prediction(task, fenced).code, reference)
