"""The predictions evaluator against the real scoring service on the packaged dataset.

On the 35 moderate tasks (all nine languages): references score 100, negative controls
score 0; the negative-control run is interrupted and resumed, and its verdicts equal those
of a straight run at another concurrency (results identical up to timing fields). A service
that is gone after the health check stops the run with nothing counted as scored.
"""

from __future__ import annotations

import json
import socket

import pytest
from smolscript import data
from smolscript.evaluate import InfraStop, evaluate_predictions
from smolscript_sandbox.client import SandboxClient
from smolscript_sandbox.testing import TEST_URL, ensure_service

pytestmark = pytest.mark.integration
SUBSET = {"difficulties": ["moderate"]}


@pytest.fixture(scope="module")
def service_url() -> str:
    """The session's shared scoring service (TEST_URL), the very URL the evaluator is given.

    Not the default address (8790): a service started there by one xdist worker and reused by
    the other outlived the run (the session's end check stops only the shared TEST_URL one).
    """
    info = ensure_service(TEST_URL)
    assert info["browser"]["error"] is None, info["browser"]
    return TEST_URL


@pytest.fixture(scope="module")
def predictions(tmp_path_factory):
    folder = tmp_path_factory.mktemp("preds")
    refs = data.load_references("default")
    paths = {}
    for kind in ("reference_solution", "negative_control"):
        paths[kind] = folder / f"{kind}.jsonl"
        paths[kind].write_text("".join(json.dumps({"id": i, "code": r[kind]}) + "\n"
                                       for i, r in refs.items()))
    return paths


def without_timings(value):
    if isinstance(value, dict):
        return {k: without_timings(v) for k, v in value.items()
                if k not in ("time_s", "finished_at", "timings")}
    if isinstance(value, list):
        return [without_timings(v) for v in value]
    return value


def evaluate(url, preds, out, concurrency, **kw):
    return evaluate_predictions(preds, out, concurrency=concurrency,
                                client_factory=lambda: SandboxClient(url), **SUBSET, **kw)


def test_references_score_100(service_url, predictions, tmp_path):
    doc = evaluate(service_url, predictions["reference_solution"], tmp_path / "refs.json", 16)
    assert doc["run"]["settings"]["scorer"] == ensure_service(service_url)["fingerprint"]
    summary = doc["summary"]
    assert doc["status"] == "complete" and summary["tasks_scored"] == 35
    assert summary["languages"] == list(data.LANGUAGE_ORDER)
    assert summary["filtered_macro_score"] == 100.0
    rates = {lang: row["hidden_test_pass_rate"] for lang, row in summary["per_language"].items()}
    assert set(rates.values()) == {100.0}, rates
    assert summary["smolscript_score"] is None  # a difficulty filter is never official
    failed = [r["id"] for r in doc["results"].values() if not r["passed"]]
    assert failed == []
    some = next(r for r in doc["results"].values() if r["language"] == "rust")
    assert some["tests"] and all(t["passed"] and "stdout" in t for t in some["tests"])


def test_negative_controls_score_0_interrupted_resumed_and_concurrency_free(
        service_url, predictions, tmp_path):
    out = tmp_path / "negs.json"

    def ctrl_c(done, _total):
        if done == 12:
            raise KeyboardInterrupt

    with pytest.raises(KeyboardInterrupt):
        evaluate(service_url, predictions["negative_control"], out, 16, progress=ctrl_c)
    partial = json.loads(out.read_text())
    assert partial["status"] == "partial" and partial["summary"] is None
    assert 12 <= len(partial["results"]) < 35
    resumed = evaluate(service_url, predictions["negative_control"], out, 16, resume=True)
    assert resumed["summary"]["filtered_macro_score"] == 0.0
    assert all(not r["passed"] for r in resumed["results"].values())
    # No credit for tests the negative control (a baseline of itself) or the empty answer
    # passes: the diagnostic gives the negative controls nothing, in every language.
    rates = {lang: row["hidden_test_pass_rate"]
             for lang, row in resumed["summary"]["per_language"].items()}
    assert set(rates.values()) == {0.0}, rates
    raw = [r["raw_test_pass_rate"] for r in resumed["results"].values() if "tests" in r]
    assert any(rate > 0 for rate in raw)  # they do pass some tests: those earn no credit
    straight = evaluate(service_url, predictions["negative_control"], tmp_path / "one.json", 1)
    assert without_timings(straight["results"]) == without_timings(resumed["results"])
    assert without_timings(straight["summary"]) == without_timings(resumed["summary"])


def test_a_service_gone_after_its_health_check_scores_nothing(service_url, predictions, tmp_path):
    """The real service answers the fingerprint request; every job then goes to a port where
    nothing listens (the service died): the stop line and the checkpoint count 0 scored tasks,
    and the tasks without a prediction are said to be never sent, not scored."""
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        dead = f"http://127.0.0.1:{probe.getsockname()[1]}"
    some = tmp_path / "some.jsonl"  # the last five selected tasks: the first 30 have none
    refs = data.load_references("default")
    last = [t["id"] for t in data.load_tasks("default", None, ["moderate"])][-5:]
    some.write_text("".join(json.dumps({"id": i, "code": refs[i]["reference_solution"]}) + "\n"
                            for i in last))
    urls = iter([service_url, dead])
    with pytest.raises(InfraStop) as stop:
        evaluate_predictions(some, tmp_path / "r.json", concurrency=4,
                             client_factory=lambda: SandboxClient(next(urls)), **SUBSET)
    assert str(stop.value).startswith(
        "stopped on an infrastructure error (no score given): 0 of 35 selected tasks scored, "
        "30 without a prediction (never sent), 5 not scored: "), str(stop.value)
    doc = json.loads((tmp_path / "r.json").read_text())
    assert doc["status"] == "stopped" and dead in doc["error"]
    assert not [r for r in doc["results"].values() if r.get("status") != "missing_prediction"]
