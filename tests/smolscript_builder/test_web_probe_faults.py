"""Issue 25, item 3: browser probes check the whole task, through the real scoring service.

Three faults of edition 0.3.0's HTML/CSS probes, each reproduced with small answers built from
the references (`smolscript_builder.web.exploits`): a stylesheet that styles only the first of
several matching elements, a breakpoint moved between two test widths, correct markup that is
hidden (or followed by a wrong second copy). Each answer passes its task on 0.3.0 (kept as
`default-0.3.0`: the fault is real, not an artefact of the answer) and must score 0 on the
current edition, through the same `score_code` that scores a model. The builder's own near
misses for the three faults are run by the full validation
(`scripts/validate_smolscript.py`).
"""

from __future__ import annotations

import pytest
from smolscript.data import load_hidden, load_references, load_tasks
from smolscript.verdict import score_code
from smolscript_builder.web.exploits import exploits
from smolscript_sandbox.client import SandboxClient
from smolscript_sandbox.testing import TEST_URL

pytestmark = pytest.mark.integration
OLD, NEW = "default-0.3.0", "default"
# Faults of a later edition's probes (issue 42), tested against the edition that had them
# (`test_mutant_faults.py`), not against 0.3.0.
LATER = {"universal-in-query"}


def _cases(language: str, per_category: int) -> list[tuple[str, str]]:
    """(task id, exploit name) pairs: the first `per_category` tasks of each category."""
    refs = load_references(NEW)
    seen: dict[str, int] = {}
    cases = []
    for row in load_tasks(NEW, languages=[language]):
        names = sorted(set(exploits(row, refs[row["id"]])) - LATER)
        if not names or seen.get(row["category"], 0) >= per_category:
            continue
        seen[row["category"]] = seen.get(row["category"], 0) + 1
        cases += [(row["id"], name) for name in names]
    return cases


async def _score(edition: str, task_id: str, name: str) -> dict:
    row = next(r for r in load_tasks(edition) if r["id"] == task_id)
    source = exploits(row, load_references(edition)[task_id])[name]
    async with SandboxClient(TEST_URL) as client:
        return await score_code(row, load_hidden(edition)[task_id], source, client,
                                credit_rate=False)


CASES = _cases("css", per_category=9) + _cases("html", per_category=1)


@pytest.mark.parametrize("task_id,name", CASES, ids=[f"{t}-{n}" for t, n in CASES])
async def test_an_answer_doing_less_than_the_task_passes_0_3_0_and_scores_0_now(
        browser_service, task_id, name):
    before = await _score(OLD, task_id, name)
    assert before["passed"], (name, before["reason"], before["tests"])
    after = await _score(NEW, task_id, name)
    assert not after["passed"] and after["status"] == "wrong_answer", after


def test_the_cases_cover_every_fault():
    names = {name for _, name in CASES}
    assert {"first-only", "leak-past-first", "breakpoint-60", "breakpoint+60", "wrong-second-copy",
            "hidden-attribute", "display-none", "visibility-hidden", "opacity-0", "off-page",
            "clipped"} <= names
    css = {t for t, n in CASES if n in {"first-only", "leak-past-first"}}
    assert len(css) == 9, css  # the 9 of 35 CSS tasks whose probes looked at the first match


async def test_references_still_pass_on_both_editions(browser_service):
    """The stricter probes take nothing from a correct answer (a sample; the full validation
    runs every reference)."""
    for task_id in sorted({t for t, _ in CASES}):
        for edition in (OLD, NEW):
            row = next(r for r in load_tasks(edition) if r["id"] == task_id)
            ref = load_references(edition)[task_id]["reference_solution"]
            async with SandboxClient(TEST_URL) as client:
                verdict = await score_code(row, load_hidden(edition)[task_id], ref, client)
            assert verdict["passed"], (edition, task_id, verdict["reason"])
