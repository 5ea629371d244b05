"""The benchmark builder: byte-exact replays, the committed file, and a real model run."""

from __future__ import annotations

import hashlib
import json
import subprocess
import sys
from pathlib import Path

import pytest
from pico_dsl_v1.builder import BenchmarkBuilder, PhraseSeed, replay_phrases, serialize_rows
from pico_dsl_v1.phrases import BUILTIN_PHRASES, clean_phrase
from pico_dsl_v1.spec import DATASET_VERSION
from pico_dsl_v1.validate import benchmark_problems

from .conftest import BENCHMARK, MANIFEST, REPO

SCRIPT = REPO / "scripts" / "generate_pico_dsl_v1_benchmark.py"


@pytest.mark.unit
@pytest.mark.parametrize(
    ("raw", "expected"),
    [
        ('1. "The sun sets over the hills."', "The sun sets over the hills"),
        ("Sure! Here is a phrase:", None),
        ("Cheerful: Flaky, buttery bread. Enjoy it!", "Flaky, buttery bread"),
        ("A cat \U0001f431 sleeps on <mat>", "A cat sleeps on mat"),
        ("  - *Bold words here*  \nsecond line", "Bold words here"),
        ("!!!", None),
    ],
)
def test_phrase_cleaning(raw: str, expected: str | None) -> None:
    assert clean_phrase(raw)[0] == expected


@pytest.mark.unit
def test_replay_of_accepted_phrases_is_byte_identical() -> None:
    phrases = [PhraseSeed(p, "topic", "style") for p in BUILTIN_PHRASES]
    first = BenchmarkBuilder(seed=4, rows_per_cell=2)
    first.offer_all([PhraseSeed("Sure, here you go"), *phrases])
    assert first.complete()
    again = BenchmarkBuilder(seed=4, rows_per_cell=2)
    again.offer_all(replay_phrases(first.rows()))
    assert serialize_rows(again.rows()) == serialize_rows(first.rows())
    other_seed = BenchmarkBuilder(seed=5, rows_per_cell=2)
    other_seed.offer_all(replay_phrases(first.rows()))
    assert serialize_rows(other_seed.rows()) != serialize_rows(first.rows())


@pytest.mark.integration
def test_committed_benchmark_is_valid_and_matches_manifest(benchmark_rows: list[dict]) -> None:
    assert len(benchmark_rows) == 480
    assert benchmark_problems(benchmark_rows) == []
    manifest = json.loads(MANIFEST.read_text())
    assert manifest["sha256"] == hashlib.sha256(BENCHMARK.read_bytes()).hexdigest()
    assert manifest["rows"] == 480 and manifest["phrases"]["accepted"] == 480
    assert manifest["model"]["name"] == "SmolLM2-135M-Instruct"
    assert manifest["dataset_version"] == DATASET_VERSION
    assert manifest["phrase_generation"]["phrases"]["offered"] == 533  # the model run's record


@pytest.mark.integration
def test_script_replays_committed_benchmark_byte_for_byte(tmp_path: Path) -> None:
    """Two replays of the committed file give its rows and its manifest, byte for byte."""
    for run in ("first", "second"):
        out = tmp_path / run / BENCHMARK.name
        out.parent.mkdir()
        subprocess.run(
            [sys.executable, str(SCRIPT), "--replay", str(BENCHMARK), "--output", str(out)],
            check=True,
            timeout=120,
        )
        assert out.read_bytes() == BENCHMARK.read_bytes()
        assert out.with_suffix(".manifest.json").read_bytes() == MANIFEST.read_bytes()


@pytest.mark.integration
def test_script_generates_rows_from_the_local_model(
    tmp_path: Path, local_model_base_url: str
) -> None:
    out = tmp_path / "few.jsonl"
    log = tmp_path / "phrases.jsonl"
    command = [
        sys.executable, str(SCRIPT), "--endpoint", local_model_base_url,
        "--slices", "copy_case", "repeat", "--levels", "L2", "--rows-per-cell", "1",
        "--batch-size", "6", "--max-rounds", "4", "--output", str(out), "--phrase-log", str(log),
    ]  # fmt: skip
    subprocess.run(command, check=True, timeout=200)
    rows = [json.loads(line) for line in out.read_text().splitlines()]
    assert sorted(r["id"] for r in rows) == ["copy_case-L2-00", "repeat-L2-00"]
    manifest = json.loads(out.with_suffix(".manifest.json").read_text())
    assert manifest["phrases"]["accepted"] == 2
    assert manifest["phrases_requested"] >= manifest["phrases"]["offered"] >= 2
    assert manifest["model"] == {"name": "SmolLM2-135M-Instruct", "endpoint": local_model_base_url}
    replay = tmp_path / "replay.jsonl"
    subprocess.run(
        [sys.executable, str(SCRIPT), "--replay", str(log), "--slices", "copy_case", "repeat",
         "--levels", "L2", "--rows-per-cell", "1", "--output", str(replay)],
        check=True, timeout=120,
    )  # fmt: skip
    assert replay.read_bytes() == out.read_bytes()
