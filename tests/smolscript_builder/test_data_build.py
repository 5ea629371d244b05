"""Integration tests of the smolscript dataset: rebuild, composition, oracles and mutants,
validator, Parquet loading, and that every reference compiles (and a sample runs) here."""

from __future__ import annotations

import importlib.util
import json
import shutil
from collections import Counter
from pathlib import Path

import pytest
from smolscript.languages import PROGRAM_LANGUAGES
from smolscript_builder.checks import check_composition, check_program_tasks, load_edition

from tests.smolscript._toolchains import compile_check, missing_tools, run_tests

pytestmark = pytest.mark.integration

REPO = Path(__file__).resolve().parents[2]
DATA = REPO / "data" / "smolscript"
# The fixed composition of the default edition (the table; JavaScript includes DOM).
DEFAULT_TABLE = {
    "python": (26, 13, 5),
    "javascript": (27, 13, 4),
    "html": (21, 11, 3),
    "css": (21, 10, 4),
    "cpp": (24, 12, 4),
    "c": (23, 12, 4),
    "lua": (21, 11, 3),
    "csharp": (24, 11, 4),
    "rust": (23, 12, 4),
}


def _read(root: Path) -> dict[str, bytes]:
    return {
        p.relative_to(root).as_posix(): p.read_bytes()
        for p in sorted(root.rglob("*"))
        if p.is_file()
    }


@pytest.fixture(scope="session")
def committed() -> dict[str, bytes]:
    return _read(DATA)


@pytest.fixture(scope="session")
def include_web(committed) -> bool:
    return json.loads(committed["selection_manifest.json"])["include_web"]


def test_fresh_build_is_byte_identical_to_committed_files(committed, include_web):
    """A second run (this process, another hash seed) reproduces every committed byte."""
    from smolscript_builder.build import build_artifacts
    from smolscript_builder.editions import FROZEN_ARCHIVES

    report = json.loads(committed["validation_report.json"])
    # The execution result is recorded later, by the validator, for these same files.
    fresh = build_artifacts(include_web=include_web, execution=report["execution"])
    built = {p for p in committed if not p.startswith(tuple(FROZEN_ARCHIVES.values()))}
    assert sorted(fresh) == sorted(built)
    for path, data in fresh.items():
        assert data == committed[path], path


@pytest.mark.parametrize("edition,archive", [("default-0.3.0", "archive/v0.3.0/"),
                                             ("default-0.4.0", "archive/v0.4.0/")])
def test_the_frozen_default_editions_are_kept_as_published(committed, edition, archive):
    """Frozen archives are never rebuilt: their files match the checksums pinned beside them,
    they have the default edition's ids and prompts, and they load as editions. A program
    task's hidden tests are the current ones or (issue 42) a prefix of them; only HTML and CSS
    tasks changed otherwise."""
    from smolscript.data import load_hidden, load_tasks
    from smolscript_builder.checks import check_frozen_archives

    assert check_frozen_archives(committed)["passed"]
    old, new = load_tasks(edition), load_tasks("default")
    assert [r["id"] for r in old] == [r["id"] for r in new]
    assert [r["prefix"] for r in old] == [r["prefix"] for r in new]
    old_hidden, new_hidden = load_hidden(edition), load_hidden("default")
    extended = 0
    for row in new:
        before, after = old_hidden[row["id"]], new_hidden[row["id"]]
        if row["modality"] == "program":
            assert after["tests"][: len(before["tests"])] == before["tests"], row["id"]
            assert after["near_miss_tests"] == before["near_miss_tests"], row["id"]
            extended += len(after["tests"]) > len(before["tests"])
        elif row["language"] not in ("html", "css"):
            assert before == after, row["id"]
    assert extended == 32  # the program tasks whose hidden tests missed a mutant
    tampered = dict(committed)
    tampered[archive + "smolscript.jsonl"] += b"\n"
    assert not check_frozen_archives(tampered)["passed"]


def test_the_card_states_the_validation_report(committed):
    """The card's status paragraph is rendered from validation_report.json, whatever it says."""
    from smolscript_builder.card import status_section, with_status

    report = json.loads(committed["validation_report.json"])
    card = committed["README.md"].decode()
    assert status_section(report) in card
    execution = report["execution"]
    if execution["status"] == "passed":
        assert "**Status: execution-verified.**" in card and "unverified" not in card
        assert f"{execution['checks_run']}/{execution['checks_planned']} checks" in card
    unverified = {**report, "execution": {"status": "unverified"}}
    assert "**Status: execution-unverified.**" in with_status(card, unverified)
    failed = {**report, "execution": {"status": "failed", "detail": "stopped at task c-easy-001: "
                                      "its reference should pass but got wrong_answer"}}
    text = with_status(card, failed)
    assert "**Status: execution check failed.**" in text and "c-easy-001" in text
    assert text.count("**Status:") == 1 and with_status(text, report) == card


def test_the_target_model_size_agrees_everywhere(committed):
    """The seed states SmolScript's target as 25M–350M parameters: card and README agree."""
    readme = (REPO / "environments" / "smolscript" / "README.md").read_text()
    for text in (committed["README.md"].decode(), readme):
        assert "25M–350M" in " ".join(text.split()) and "25M–2B" not in text


def test_default_composition_is_exact(committed, include_web):
    assert include_web, "the committed dataset must include the web tasks"
    rows = load_edition(committed, "default")["public"]
    counts = Counter((r["language"], r["difficulty"]) for r in rows)
    for language, row in DEFAULT_TABLE.items():
        assert tuple(counts[(language, d)] for d in ("easy", "medium", "moderate")) == row
    assert len(rows) == 350
    assert sum(1 for r in rows if r["language"] == "javascript" and r["modality"] == "browser") == 4
    assert check_composition(committed, include_web)["passed"]


def test_oracles_agree_and_mutants_are_rejected(committed):
    result = check_program_tasks(committed)
    program_rows = [
        r for r in load_edition(committed, "full2000")["public"] if r["modality"] == "program"
    ]
    assert result["passed"], result["errors"]
    assert result["tasks"] == len(program_rows) > 1500
    assert result["near_miss"] > result["tasks"] // 2


def _validator():
    """scripts/validate_smolscript.py as a module (its `main(argv) -> exit code`)."""
    path = REPO / "scripts" / "validate_smolscript.py"
    spec = importlib.util.spec_from_file_location("_validate_smolscript", path)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def test_static_validator_passes_and_fails_on_a_corrupted_copy(tmp_path, capsys):
    """The validator's whole command (`main`, in this process: the mutant classification the
    fresh build did above is then not paid again) passes the committed files and fails a copy
    whose hidden test has a wrong expected value, naming the file that changed."""
    validator = _validator()
    assert validator.main(["--static-only"]) == 0, capsys.readouterr().out
    assert "static checks passed" in capsys.readouterr().out
    copy = tmp_path / "data"
    shutil.copytree(DATA, copy)
    hidden = copy / "private_tests" / "hidden.jsonl"
    rows = [json.loads(line) for line in hidden.read_text().splitlines()]
    program = next(r for r in rows if "expected_output" in r["tests"][0])
    program["tests"][0]["expected"] = "wrong"
    hidden.write_text("".join(json.dumps(r) + "\n" for r in rows))
    assert validator.main(["--static-only", "--data-dir", str(copy)]) == 1
    out = capsys.readouterr().out
    failed = [line for line in out.splitlines() if line.startswith("FAIL ")]
    assert any(line.startswith("FAIL checksums") and "private_tests/hidden.jsonl" in line
               for line in failed), out


def test_public_split_loads_with_datasets(committed):
    from datasets import load_dataset

    rows = load_dataset("parquet", data_files=str(DATA / "smolscript.parquet"), split="train")
    assert len(rows) == 350
    jsonl = load_edition(committed, "default")["public"]
    for row, native in zip(rows, jsonl, strict=True):
        assert row["id"] == native["id"] and row["reference_solution"] is None
        for column in ("tests", "signature", "metadata"):
            assert json.loads(row[column]) == native[column]


def _program_items(committed, language):
    data = load_edition(committed, "default")
    items = []
    for pub, ref in zip(data["public"], data["references"], strict=True):
        if pub["language"] == language and pub["modality"] == "program":
            for name in ("reference_solution", "negative_control", "near_miss"):
                if ref[name]:
                    items.append((f"{pub['id']}:{name}", pub["signature"], ref[name]))
    return items


@pytest.mark.parametrize("language", PROGRAM_LANGUAGES)
def test_default_references_and_mutants_compile(committed, language):
    if missing_tools([language]):
        pytest.fail(f"toolchain for {language} is missing (see the report for apt packages)")
    items = _program_items(committed, language)
    assert len(items) > 60
    assert compile_check(language, items) == {}


@pytest.mark.parametrize("language", PROGRAM_LANGUAGES)
def test_compile_check_reports_a_broken_source(language):
    """The checker can fail: a source with a syntax error is named."""
    sig = {"params": [{"name": "n", "type": "int"}], "returns": "int"}
    from smolscript.languages import LANGUAGES

    spec = LANGUAGES[language]
    good = (
        spec.imports
        + spec.entry_header(sig)
        + {"python": "    return n\n", "lua": "  return n\n"}.get(language, "    return n;\n")
        + (spec.closing())
    )
    broken = good.replace("return n", "return (n")
    errors = compile_check(language, [("good", sig, good), ("broken", sig, broken)])
    assert set(errors) == {"broken"}


def _sample(committed, language, per_language=4):
    """Tasks of the default edition covering different (input, return) type pairs."""
    data = load_edition(committed, "default")
    seen, picked = set(), []
    for pub, ref, hid in zip(data["public"], data["references"], data["hidden"], strict=True):
        if pub["language"] != language or pub["modality"] != "program":
            continue
        kinds = (pub["signature"]["params"][0]["type"], pub["signature"]["returns"])
        if kinds not in seen:
            seen.add(kinds)
            picked.append((pub, ref, hid))
    return picked[:per_language]


@pytest.mark.parametrize("language", PROGRAM_LANGUAGES)
def test_sample_references_pass_through_the_harness(committed, language):
    """Unsandboxed run of trusted references: harness + reference reproduce the oracle, and
    the negative control fails a hidden test."""
    if missing_tools([language]):
        pytest.fail(f"toolchain for {language} is missing")
    for pub, ref, hid in _sample(committed, language):
        stdins = [t["stdin"] for t in hid["tests"]]
        expected = [t["expected_output"] for t in hid["tests"]]
        outputs = run_tests(language, pub["signature"], ref["reference_solution"], stdins)
        assert isinstance(outputs, list), outputs
        assert outputs == expected, pub["id"]
        negative = run_tests(language, pub["signature"], ref["negative_control"], stdins)
        assert negative != expected, pub["id"]
