"""The declaration and score record both adapters are generated from (pure, table-driven), and
the run metadata's behaviour version."""

from __future__ import annotations

import json
import math

import pytest
from smol_envs_core.adapters.declaration import Declaration, Metric, Score, empty_metric
from smol_envs_core.adapters.run_policy import record_in_metadata

pytestmark = pytest.mark.unit


def declared(*metrics: Metric) -> Declaration:
    return Declaration("toy", "1.0.0", metrics, ("wrong",), "toy_score")


TOY = declared(Metric("ok", 1.0, "1.0 when right."), Metric("len", 0.0, "Length."),
               empty_metric())


@pytest.mark.parametrize("metrics, why", [
    ((Metric("a", 1.0, ""), Metric("b", 1.0, "")), "two headlines"),
    ((Metric("a", 0.0, ""),), "no headline"),
    ((Metric("a", 1.0, ""), Metric("a", 0.0, "")), "repeated name"),
    ((Metric("a", 0.5, ""),), "a weight that is neither 0 nor 1"),
])
def test_a_bad_declaration_is_refused(metrics, why) -> None:
    with pytest.raises(ValueError):
        declared(*metrics)


@pytest.mark.parametrize("metrics, failure, why", [
    ({"ok": 1.0, "len": 3.0}, None, "a declared metric is missing"),
    ({"ok": 1.0, "len": 3.0, "empty_response": 0.0, "bonus": 1.0}, None, "an undeclared metric"),
    ({"ok": math.nan, "len": 3.0, "empty_response": 0.0}, None, "NaN would print as a score"),
    ({"ok": math.inf, "len": 3.0, "empty_response": 0.0}, None, "infinity"),
    ({"ok": 0.0, "len": 3.0, "empty_response": 0.0}, "timeout", "an undeclared failure kind"),
])
def test_a_score_that_breaks_the_declaration_is_a_bug_not_a_zero(metrics, failure, why) -> None:
    with pytest.raises(ValueError):
        TOY.score(metrics, failure=failure)


def test_the_reward_is_the_headline_and_the_record_round_trips() -> None:
    score = TOY.score({"ok": True, "len": 7, "empty_response": 0}, parsed=["x"], reason="fine")
    assert score.reward == 1.0 and score.metrics == {"ok": 1.0, "len": 7.0,
                                                     "empty_response": 0.0}
    assert list(score.metrics) == list(TOY.names)  # column order of the declaration
    record = json.loads(json.dumps(score.to_dict()))
    assert Score.from_dict(record) == score
    assert TOY.reward_name == "ok"


def test_with_reward_moves_the_headline() -> None:
    shaped = TOY.with_reward("len")
    assert shaped.reward_name == "len" and [m.weight for m in shaped.metrics] == [0.0, 1.0, 0.0]
    with pytest.raises(ValueError, match="unknown reward"):
        TOY.with_reward("bleu")


def test_the_behaviour_version_reaches_outputs_and_metadata_json(tmp_path) -> None:
    (tmp_path / "metadata.json").write_text(json.dumps({"env_id": "toy", "avg_reward": 0.5}))
    outputs = {"metadata": {"env_id": "toy"}, "outputs": []}
    record_in_metadata(outputs, tmp_path, {"behaviour_version": "1.0.0"})
    assert outputs["metadata"]["behaviour_version"] == "1.0.0"
    saved = json.loads((tmp_path / "metadata.json").read_text())
    assert saved == {"env_id": "toy", "avg_reward": 0.5, "behaviour_version": "1.0.0"}
