"""The dataset script's real loading code on the smoltalk-format source fixture (offline)."""

import importlib.util
import json
import shutil
from pathlib import Path

import pytest
from smoltalkbench import build, data
from smoltalkbench.card import render_card
from smoltalkbench.errors import ConfigError

pytestmark = pytest.mark.integration

REPO = Path(__file__).resolve().parents[2]
SOURCE = Path(__file__).parent / "fixtures" / "source"


@pytest.fixture(scope="module")
def script():
    spec = importlib.util.spec_from_file_location(
        "create_smoltalkbench_dataset", REPO / "scripts" / "create_smoltalkbench_dataset.py"
    )
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def test_source_fixture_builds_deduplicated_candidates(script):
    source = script.load_source(str(SOURCE), build.SOURCE_REVISION)
    rows = build.candidate_rows(source)
    raw = len(source["train"]) + len(source["test"])
    # The fixture holds one repeated prompt inside train and one repeated across train/test.
    assert (raw, len(rows)) == (37, 35)
    sky = [r for r in rows if build.prompt_key(r["instruction"]) == "why is the sky blue?"]
    assert [r["source_split"] for r in sky] == ["train"]
    assert {r["group"] for r in rows} == {"everyday", "school"}


def test_packaged_fixture_is_regenerated_byte_for_byte(script, tmp_path, capsys):
    out = tmp_path / "rows.jsonl"
    assert script.main(["--source-path", str(SOURCE), "--n", "12", "--output", str(out)]) == 0
    assert out.read_bytes() == data.fixture_path().read_bytes()
    printed = capsys.readouterr().out
    assert (
        "35 distinct prompts -> 12 sampled" in printed and "group: everyday 8, school 4" in printed
    )


def test_parquet_output_loads_back_as_the_benchmark(script, tmp_path):
    out = tmp_path / "rows.parquet"
    script.main(["--source-path", str(SOURCE), "--n", "20", "--seed", "3", "--output", str(out)])
    rows = data.load_rows(str(out))
    assert len(rows) == 20 and rows.column_names == list(build.COLUMNS)
    expected = [json.loads(x) for x in data.fixture_path().read_text().splitlines()]
    assert rows[0].keys() == expected[0].keys()


def test_source_folder_without_test_split_is_refused(script, tmp_path):
    shutil.copy(SOURCE / "train.jsonl", tmp_path / "train.jsonl")
    with pytest.raises(ConfigError, match="train\\* and test\\*"):
        script.load_source(str(tmp_path), build.SOURCE_REVISION)


def test_card_fills_every_placeholder():
    fields = dict(
        config="gold",
        subset=build.SUBSET,
        source=build.SOURCE,
        generator=build.GENERATOR,
        repo="org/SmolTalkBench",
        n=1000,
        seed=0,
        revision=build.SOURCE_REVISION,
        distinct=2345,
        script="scripts/x.py",
        module="smoltalkbench/build.py",
        public="",
    )
    card = render_card(**fields)
    assert "$" not in card and "2345 distinct prompts" in card and "--seed 0" in card
    for heading in ("## Scoring", "## Construction", "## Columns", "## Reproducing"):
        assert heading in card
    for column in build.COLUMNS:
        assert f"`{column}`" in card
    with pytest.raises(KeyError):
        render_card(**{k: v for k, v in fields.items() if k != "seed"})


def test_default_n_on_a_small_source_is_one_line_not_a_traceback(script, tmp_path, capsys):
    out = tmp_path / "rows.jsonl"
    assert script.main(["--source-path", str(SOURCE), "--output", str(out)]) == 2
    err = capsys.readouterr().err
    assert err == ("create_smoltalkbench_dataset: error: --n 1000: the source has 35 distinct "
                   "prompts; pass --n between 1 and 35\n")
    assert not out.exists()
    with pytest.raises(ConfigError, match="35 distinct prompts"):  # --debug: the real error
        script.main(["--source-path", str(SOURCE), "--debug"])
