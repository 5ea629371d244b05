"""The shared failure policy: one error, its one-line message, and the rollout checks."""

from __future__ import annotations

import pickle

import httpx
import openai
import pytest
import verifiers as vf
from smol_envs_core.adapters.policy import (
    EMPTY_ANSWER_KEY,
    ErrorBudget,
    raise_for_failed_rollout,
)
from smol_envs_core.adapters.quiet_tasks import as_infrastructure_error
from smol_envs_core.errors import InfrastructureError

pytestmark = pytest.mark.unit


def test_message_is_one_line_naming_component_and_url():
    error = InfrastructureError("judge", "no logprobs\nin reply", "http://h:1/v1")
    assert str(error) == (
        "smol-envs: infrastructure failure: judge http://h:1/v1: no logprobs in reply"
    )
    assert "\n" not in str(error)


def test_survives_pickling_and_the_env_server_repr():
    error = InfrastructureError("scoring service", "down", "http://127.0.0.1:8790")
    again = pickle.loads(pickle.dumps(error))
    assert (again.component, again.reason, again.url) == (error.component, "down", error.url)
    # vf-eval's env server sends repr(exception) and the client raises RuntimeError(that text).
    parsed = as_infrastructure_error(RuntimeError(repr(error)))
    assert parsed is not None and str(parsed) == str(error)
    assert as_infrastructure_error(RuntimeError("something else")) is None


def test_an_endpoint_error_names_the_request_url():
    request = httpx.Request("POST", "http://127.0.0.1:9/v1/chat/completions")
    cause = openai.APIConnectionError(request=request)
    error = vf.ModelError("model call failed")
    error.__cause__ = cause
    state = {"error": error}
    with pytest.raises(InfrastructureError) as caught:
        raise_for_failed_rollout(state)
    assert caught.value.component == "model endpoint"
    assert caught.value.url == "http://127.0.0.1:9/v1/chat/completions"
    assert "APIConnectionError" in caught.value.reason


def test_an_empty_answer_is_a_model_outcome():
    state = {"error": vf.EmptyModelResponseError("empty")}
    raise_for_failed_rollout(state)
    assert state["error"] is None and state[EMPTY_ANSWER_KEY] is True
    untouched = {"error": None}
    raise_for_failed_rollout(untouched)
    assert EMPTY_ANSWER_KEY not in untouched


def _outputs(flags):
    rows = [
        {"reward": 1.0 if not f else 0.0, "metrics": {"win_prob": 1.0 if not f else 0.0,
                                                      "judge_error": float(f)}}
        for f in flags
    ]
    return {"outputs": rows, "metadata": {"avg_reward": 0.0,
                                          "avg_metrics": {"win_prob": 0.0, "judge_error": 0.0}}}


def test_error_budget_excludes_tolerated_failures_and_counts_them(capsys):
    outputs = _outputs([False, False, False, True])
    ErrorBudget("judge_error", 0.25, "judge", "http://j/v1").apply(outputs)
    meta = outputs["metadata"]
    assert meta["avg_reward"] == 1.0 and meta["avg_metrics"]["win_prob"] == 1.0
    assert meta["scored_rollouts"] == 3 and meta["judge_error_count"] == 1
    assert len(outputs["outputs"]) == 3
    assert "1 of 4 rollouts had a judge failure" in capsys.readouterr().err


def test_error_budget_stops_a_run_above_the_share():
    with pytest.raises(InfrastructureError, match=r"2 of 4 rollouts failed \(50.0%\)"):
        ErrorBudget("judge_error", 0.25, "judge", "http://j/v1").apply(
            _outputs([True, True, False, False])
        )
    with pytest.raises(ValueError, match=r"\[0, 1\]"):
        ErrorBudget("judge_error", 1.5, "judge")


def test_error_budget_never_passes_a_run_with_no_scored_rollout():
    """Even a budget tolerating every failure stops a run in which every rollout failed: there
    is nothing to average (vf-eval's summary divided by zero here)."""
    with pytest.raises(InfrastructureError,
                       match=r"2 of 2 rollouts failed \(100.0%\), no rollout is left to score"):
        ErrorBudget("judge_error", 1.0, "judge", "http://j/v1").apply(_outputs([True, True]))


def test_error_budget_leaves_a_clean_run_alone():
    outputs = _outputs([False, False])
    ErrorBudget("judge_error", 0.0, "judge").apply(outputs)
    assert outputs["metadata"]["avg_reward"] == 0.0 and len(outputs["outputs"]) == 2


@pytest.mark.parametrize(
    ("module", "typo", "valid"),
    [("pico_dsl_v1", "slise", "slice"), ("smoltalkbench", "judge_modle", "judge_model"),
     ("smolscript", "languajes", "languages")],
)
def test_every_environment_refuses_a_misspelled_argument(module, typo, valid):
    load_environment = __import__(module).load_environment
    with pytest.raises(TypeError, match=f"unknown argument\\(s\\) {typo}; valid: .*{valid}"):
        load_environment(**{typo: "x"})


def test_a_wrapped_user_error_prints_as_one_line(capsys):
    from smol_envs_core.errors import one_line_error, one_line_excepthook
    from smoltalkbench.errors import ConfigError

    try:
        try:
            raise ConfigError("num_examples must be -1 (all) or positive, got 0")
        except ConfigError as inner:
            raise RuntimeError("Failed to load environment 'smoltalkbench'") from inner
    except RuntimeError as outer:
        assert isinstance(one_line_error(outer), ConfigError)
        one_line_excepthook(lambda *a: pytest.fail("traceback printed"))(
            RuntimeError, outer, outer.__traceback__
        )
    assert capsys.readouterr().err == (
        "smol-envs: error: num_examples must be -1 (all) or positive, got 0\n"
    )
    assert one_line_error(ValueError("plain")) is None


def test_a_failed_run_folder_is_renamed_with_its_reason(tmp_path, capsys):
    from smol_envs_core.adapters.policy import mark_failed_run

    run = tmp_path / "pico-dsl-v1--x" / "abc123"
    run.mkdir(parents=True)
    (run / "results.jsonl").write_text("{}\n")
    moved = mark_failed_run(run, "smol-envs: infrastructure failure: judge: down")
    assert not run.exists() and moved.name == "abc123-FAILED"
    assert (moved / "FAILED.txt").read_text().startswith("smol-envs: infrastructure failure")
    run.mkdir()
    assert mark_failed_run(run, "again").name == "abc123-FAILED2"
    assert mark_failed_run(tmp_path / "missing", "x") is None


@pytest.mark.unit
def test_unawaited_infrastructure_failures_are_dropped_once_the_run_stopped():
    """After a run stopped on an infrastructure failure, other rollouts failing the same way are
    not printed again with tracebacks ("Task exception was never retrieved"); other errors are."""
    import asyncio

    from smol_envs_core.adapters.quiet_tasks import drop_unawaited_infrastructure_failures

    seen = []
    loop = asyncio.new_event_loop()
    try:
        loop.set_exception_handler(lambda loop, context: seen.append(context["exception"]))
        drop_unawaited_infrastructure_failures(loop)
        relayed = RuntimeError(repr(InfrastructureError("model endpoint", "404", "http://x/v1")))
        bug = ValueError("a bug")
        for error in (InfrastructureError("judge", "down"), relayed, bug):
            loop.call_exception_handler(
                {"message": "Task exception was never retrieved", "exception": error})
    finally:
        loop.close()
    assert seen == [bug]
