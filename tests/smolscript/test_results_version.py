"""An evaluator results file says which scoring produced it: `smolscript evaluate` writes the
behaviour version into the document, and the report's reader gives it to every row (so
`smol-envs report` pools such a run with vf-eval runs of the same version, not as
"unversioned")."""

from __future__ import annotations

import pytest
from smolscript.evaluate import Run, checkpoint
from smolscript.report import load_run
from smolscript.scorer import BEHAVIOUR_VERSION

pytestmark = pytest.mark.unit


def test_a_checkpointed_run_carries_the_behaviour_version(tmp_path):
    output = tmp_path / "results.json"
    record = {"id": "python-easy-001", "language": "python", "difficulty": "easy",
              "passed": True, "syntax_ok": True, "hidden_test_pass_rate": 1.0}
    checkpoint(output, Run(settings={"edition": "default"}, selected_ids=[record["id"]],
                           results={record["id"]: record}))
    run = load_run(output)
    assert [row.behaviour_version for row in run.rows] == [BEHAVIOUR_VERSION]
    assert run.provenance.behaviour_versions == (BEHAVIOUR_VERSION,)
