"""Greedy outputs of the in-process path (`smolscript evaluate --model`, llama.cpp) equal
those of vf-eval against the local model server on the same GGUF file and prompts, once both
are truly greedy; the server's own default repetition penalty (1.1) is what would make them
differ. A handful of prompts with short budgets: the wider measurement is
benchmarks/bench_smolscript_inprocess_agreement.py."""

from __future__ import annotations

import importlib.util
from pathlib import Path

import pytest
from smolscript import data
from smolscript_sandbox.testing import TEST_URL, ensure_service

pytestmark = pytest.mark.e2e
BENCH = (Path(__file__).resolve().parents[2] / "benchmarks"
         / "bench_smolscript_inprocess_agreement.py")
LANGUAGES = ["python", "c", "lua"]
MAX_TOKENS = 48


@pytest.fixture(scope="module")
def bench():
    spec = importlib.util.spec_from_file_location("bench_agreement", BENCH)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def test_in_process_continuations_equal_vf_eval_on_the_local_server(
        bench, local_model_base_url, local_model_name, tmp_path):
    ensure_service(TEST_URL)
    tasks = data.select_tasks("default", LANGUAGES, None, 1)
    ours, backend = bench.inprocess_continuations(tasks, MAX_TOKENS, threads=1)
    env_args = {"languages": LANGUAGES, "per_language": 1, "max_tokens": MAX_TOKENS,
                "service_url": TEST_URL}
    theirs = bench.vf_eval_continuations(local_model_base_url, local_model_name, env_args,
                                         bench.GREEDY, tmp_path)
    assert set(theirs) == {t["id"] for t in tasks}
    assert all(ours.values())  # real continuations, not empty ones that match trivially
    mismatches = {k: (ours[k], theirs[k]) for k in ours if ours[k] != theirs[k]}
    assert not mismatches, mismatches


def test_first_token_difference(bench):
    def tokenize(text):
        return list(text)

    assert bench.first_token_difference("abc", "abc", tokenize) is None
    assert bench.first_token_difference("abc", "abd", tokenize) == 2
    assert bench.first_token_difference("ab", "abc", tokenize) == 2
    result = bench.compare({"a": "x", "b": "y"}, {"a": "x", "b": "z"}, tokenize)
    assert result == {"prompts": 2, "identical": 1, "differing": {"b": 0}}
    with pytest.raises(ValueError, match="different task ids"):
        bench.compare({"a": "x"}, {"b": "x"}, tokenize)
