"""The one reader into the results model: rows, metrics, provenance and behaviour versions read
from real `vf-eval -s` shaped files, and metric values that only look like numbers refused."""

from __future__ import annotations

import json
import math
import re

import pytest
from smol_envs_core.report import (
    UNVERSIONED,
    MixedVersionsError,
    ResultsError,
    check_versions,
    read_results,
)
from smol_envs_core.runinfo import run_record

pytestmark = pytest.mark.unit


def write(folder, rows, metadata=None):
    folder.mkdir(parents=True, exist_ok=True)
    (folder / "results.jsonl").write_text("".join(json.dumps(r) + "\n" for r in rows) + "\n")
    if metadata is not None:
        (folder / "metadata.json").write_text(json.dumps(metadata))
    return folder


def test_rows_metrics_and_provenance(tmp_path):
    run = write(tmp_path / "run", [
        {"info": json.dumps({"id": "a", "dataset_sha256": "ab" * 32}), "exact_match": 0.0,
         "metrics": {"exact_match": 1.0}},  # vf-eval writes both; the metrics dict wins
        {"info": {"id": "b"}, "exact_match": 1.0, "reward": 1.0}],  # flattened only
        {"env_id": "pico-dsl-v1", "model": "m", "base_url": "http://x/v1",
         "date": "2026-12-01 10:00 UTC", "behaviour_version": "3"})
    results = read_results(run)
    assert [r.line for r in results.rows] == [1, 2]  # the blank last line is skipped
    assert [r.metric("exact_match") for r in results.rows] == [1.0, 1.0]
    assert results.rows[0].info["id"] == "a"  # info stored as a JSON string is decoded
    prov = results.provenance
    assert (prov.env_id, prov.model, prov.endpoint, prov.date, prov.path) == (
        "pico-dsl-v1", "m", "http://x/v1", "2026-12-01 10:00 UTC", run)
    assert prov.behaviour_version == "3" and prov.dataset_sha256 == ("ab" * 32,)


def test_the_run_record_dates_a_run_and_a_file_time_never_does(tmp_path):
    record = run_record(1_796_000_000.0, 1_796_000_042.5, ["vf-eval", "pico-dsl-v1", "-a", "{}"],
                        {"cpu": "AMD EPYC", "cores": 2, "memory_gib": 23.5,
                         "load_average": [0.5, 0.7, 0.9]})
    assert record["started_at"] == "2026-11-30T00:53:20Z" and record["wall_time_s"] == 42.5
    assert record["command"] == "vf-eval pico-dsl-v1 -a '{}'"
    run = write(tmp_path / "run", [{"info": {"id": "a"}, "metrics": {"x": 1.0}}],
                {"env_id": "pico-dsl-v1", "run": record})
    prov = read_results(run).provenance
    assert (prov.date, prov.ended) == ("2026-11-30 00:53:20 UTC", "2026-11-30 00:54:02 UTC")
    assert prov.command == record["command"]
    assert prov.machine == "AMD EPYC, 2 cores, 23.5 GiB, load 0.5/0.7/0.9"
    bare = write(tmp_path / "bare", [{"info": {"id": "a"}, "metrics": {"x": 1.0}}],
                 {"env_id": "pico-dsl-v1"})
    prov = read_results(bare).provenance
    assert (prov.date, prov.ended, prov.command) == ("not recorded",) * 3


@pytest.mark.parametrize("value, message, why", [
    (None, "is missing", "absent"),
    ("1.0", "is not a number ('1.0')", "a string that prints like the number"),
    (True, "is not a number (True)", "a bool: True == 1 in Python"),
    (float("nan"), "is not a number (nan)", "NaN compares unequal to everything"),
    ([1.0], "is not a number ([1.0])", "a list holding the number"),
])
def test_a_metric_that_only_looks_like_a_number_is_refused(tmp_path, value, message, why):
    row = {"info": {}, "metrics": {} if value is None else {"exact_match": value}}
    if isinstance(value, float) and math.isnan(value):
        (tmp_path / "results.jsonl").write_text('{"info": {}, "metrics": {"exact_match": NaN}}\n')
    else:
        write(tmp_path, [row])
    [read] = read_results(tmp_path).rows
    with pytest.raises(ResultsError, match=re.escape(f"results line 1: metric 'exact_match' "
                                                     f"{message}")):
        read.metric("exact_match")
    assert read.optional_metric("exact_match") is None, why


def test_behaviour_versions_rows_first_then_metadata_then_unversioned(tmp_path):
    a = read_results(write(tmp_path / "a", [{"info": {"behaviour_version": "2"}}, {"info": {}}],
                           {"env_id": "e", "behaviour_version": "1"}))
    assert [r.behaviour_version for r in a.rows] == ["2", "1"]
    assert a.provenance.behaviour_version == "mixed: 1, 2"
    b = read_results(write(tmp_path / "b", [{"info": {}}], {"env_id": "e"}))
    assert b.provenance.behaviour_versions == (UNVERSIONED,)
    c = read_results(write(tmp_path / "c", [{"info": {}}], {"env_id": "E", "behaviour_version": 2}))
    assert c.provenance.behaviour_version == "2"
    with pytest.raises(MixedVersionsError, match="different behaviour versions"):
        check_versions([a.provenance])  # one run whose rows disagree
    with pytest.raises(MixedVersionsError, match=r"\(2 in .*; unversioned in "):
        check_versions([b.provenance, c.provenance])  # e and E are one environment
    # a look-alike version string is another version, never silently the same one
    d = read_results(write(tmp_path / "d", [{"info": {"behaviour_version": "2 "}}],
                           {"env_id": "e"}))
    with pytest.raises(MixedVersionsError):
        check_versions([c.provenance, d.provenance])
    assert check_versions([c.provenance, d.provenance], allow=True)[0].startswith(
        "mixed behaviour versions allowed: e runs of different behaviour versions")
    assert check_versions([b.provenance, b.provenance]) == ()


def test_unreadable_results_are_one_line(tmp_path):
    with pytest.raises(ResultsError, match="no such results file"):
        read_results(tmp_path)
    (tmp_path / "results.jsonl").write_text('{"info": {}}\nnot json\n')
    with pytest.raises(ResultsError, match="cannot read results"):
        read_results(tmp_path)
    (tmp_path / "results.jsonl").write_text('[1, 2]\n')
    with pytest.raises(ResultsError, match="line 1 is not a JSON object"):
        read_results(tmp_path)
