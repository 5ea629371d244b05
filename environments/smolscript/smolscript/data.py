"""Loading the packaged smolscript dataset: public rows, hidden tests, references, hashes.

Layout of one edition folder (the data part writes it; see CONTRACT.md):
`smolscript.jsonl` (public rows), `references/solutions.jsonl`,
`private_tests/hidden.jsonl`. The default edition is the data root; older editions live in
`archive/<version>/` with the same layout. The root is found, in order, from
$SMOLSCRIPT_DATA_DIR, the copy inside the installed wheel (`smolscript/_data`), or the
repository's `data/smolscript/`.
"""

from __future__ import annotations

import hashlib
import json
import os
from collections.abc import Iterable, Mapping, Sequence
from importlib import resources
from pathlib import Path
from typing import Any

from smolscript.errors import DataError
from smolscript.languages import LANGUAGE_ORDER

DATA_ENV = "SMOLSCRIPT_DATA_DIR"
EDITIONS: dict[str, str] = {
    "default": ".",
    "previous1000": "archive/v0.2.0",
    "full2000": "archive/v0.1.0",
    # The default edition as published at dataset version 0.3.0 (before issue 25's HTML/CSS
    # probes): same tasks and prompts, fewer hidden checks. Scores of the two never pool.
    "default-0.3.0": "archive/v0.3.0",
    # The default edition as published at dataset version 0.4.0 (before issue 42's hidden
    # inputs against pipeline mutants and its media-query probes). Never pooled with 0.5.0.
    "default-0.4.0": "archive/v0.4.0",
}
DIFFICULTIES: tuple[str, ...] = ("easy", "medium", "moderate")
PUBLIC_FILE = "smolscript.jsonl"
HIDDEN_FILE = "private_tests/hidden.jsonl"
REFERENCES_FILE = "references/solutions.jsonl"


def data_root() -> Path:
    """The folder of the default edition; raises DataError when none is found."""
    env = os.environ.get(DATA_ENV)
    candidates = [Path(env)] if env else []
    packaged = resources.files("smolscript") / "_data"
    candidates.append(Path(str(packaged)))
    candidates.extend(parent / "data" / "smolscript"
                      for parent in Path(__file__).resolve().parents)
    for candidate in candidates:
        if (candidate / PUBLIC_FILE).is_file():
            return candidate
    raise DataError(f"smolscript data not found (set {DATA_ENV}); looked in "
                    f"{[str(c) for c in candidates[:3]]}")


def edition_dir(edition: str) -> Path:
    """The folder of one edition; raises DataError naming the valid editions."""
    if edition not in EDITIONS:
        raise DataError(f"unknown edition {edition!r}; valid: {sorted(EDITIONS)}")
    folder = (data_root() / EDITIONS[edition]).resolve()
    if not (folder / PUBLIC_FILE).is_file():
        raise DataError(f"edition {edition!r} has no {PUBLIC_FILE} in {folder}")
    return folder


def _read_jsonl(path: Path) -> list[dict]:
    try:
        return [json.loads(line) for line in path.read_text(encoding="utf-8").splitlines()
                if line.strip()]
    except (OSError, json.JSONDecodeError) as exc:
        raise DataError(f"cannot read {path}: {exc}") from exc


def check_selection(languages: Sequence[str] | None, difficulties: Sequence[str] | None
                    ) -> tuple[list[str], list[str]]:
    """Validate language/difficulty filters (None = all); raise DataError naming valid values."""
    langs = list(languages) if languages else list(LANGUAGE_ORDER)
    diffs = list(difficulties) if difficulties else list(DIFFICULTIES)
    bad = [lang for lang in langs if lang not in LANGUAGE_ORDER]
    if bad:
        raise DataError(f"unknown language(s) {bad}; valid: {list(LANGUAGE_ORDER)}")
    bad = [d for d in diffs if d not in DIFFICULTIES]
    if bad:
        raise DataError(f"unknown difficulty(ies) {bad}; valid: {list(DIFFICULTIES)}")
    return langs, diffs


def load_tasks(edition: str = "default", languages: Sequence[str] | None = None,
               difficulties: Sequence[str] | None = None) -> list[dict]:
    """Public rows of an edition, filtered, in file order (the file's order is canonical)."""
    langs, diffs = check_selection(languages, difficulties)
    rows = _read_jsonl(edition_dir(edition) / PUBLIC_FILE)
    return [row for row in rows if row["language"] in langs and row["difficulty"] in diffs]


def select_tasks(edition: str = "default", languages: Sequence[str] | str | None = None,
                 difficulties: Sequence[str] | str | None = None, per_language: int | None = None,
                 num_examples: int | None = -1) -> list[dict]:
    """The tasks a run selects, in file order, as `load_environment` selects them (and as a
    report of its run must count them): the language and difficulty filters (a string is one
    value), then the first `per_language` tasks of each language, then the first
    `num_examples` (None or negative: all).

    Raises DataError (unknown language, difficulty or edition) or ValueError (per_language < 1).
    """
    languages = [languages] if isinstance(languages, str) else languages
    difficulties = [difficulties] if isinstance(difficulties, str) else difficulties
    return first_tasks(load_tasks(edition, languages, difficulties), per_language, num_examples)


def first_tasks(tasks: list[dict], per_language: int | None = None,
                num_examples: int | None = -1) -> list[dict]:
    """The first `per_language` tasks of each language (None: all), then the first
    `num_examples` (None or negative: all), in the given order.

    Raises ValueError (per_language < 1).
    """
    if per_language is not None:
        if per_language < 1:
            raise ValueError(f"per_language must be >= 1, got {per_language}")
        counts: dict[str, int] = {}
        kept = []
        for task in tasks:
            counts[task["language"]] = counts.get(task["language"], 0) + 1
            if counts[task["language"]] <= per_language:
                kept.append(task)
        tasks = kept
    if num_examples is not None and num_examples >= 0:
        tasks = tasks[:num_examples]
    return tasks


def _by_id(rows: Iterable[Mapping[str, Any]], what: str) -> dict[str, dict]:
    out: dict[str, dict] = {}
    for row in rows:
        if row["id"] in out:
            raise DataError(f"duplicate id {row['id']!r} in {what}")
        out[row["id"]] = dict(row)
    return out


def load_hidden(edition: str = "default") -> dict[str, dict]:
    """Hidden tests by task id (host-side only; never put into a prompt), each with the task's
    `negative_control` from the references when the edition ships them (a baseline of the
    `hidden_test_pass_rate` diagnostic, `smolscript.credit`)."""
    hidden = _by_id(_read_jsonl(edition_dir(edition) / HIDDEN_FILE), "hidden tests")
    if (edition_dir(edition) / REFERENCES_FILE).exists():
        for task_id, ref in load_references(edition).items():
            if task_id in hidden and ref.get("negative_control"):
                hidden[task_id]["negative_control"] = ref["negative_control"]
    return hidden


def load_references(edition: str = "default") -> dict[str, dict]:
    """Reference solutions, negative controls and near misses by task id."""
    return _by_id(_read_jsonl(edition_dir(edition) / REFERENCES_FILE), "references")


def hidden_for(tasks: Sequence[Mapping[str, Any]], hidden: Mapping[str, Mapping[str, Any]]
               ) -> dict[str, Mapping[str, Any]]:
    """The hidden tests of each selected task; raises DataError when one is missing."""
    missing = [t["id"] for t in tasks if t["id"] not in hidden]
    if missing:
        raise DataError(f"{len(missing)} task(s) have no hidden tests: {missing[:5]}")
    return {t["id"]: hidden[t["id"]] for t in tasks}


def edition_with_hash(sha256: str) -> str | None:
    """The edition whose `dataset_hash` is `sha256` (a run scored on a build that has since been
    frozen under a versioned name, e.g. "default" before dataset 0.5.0 is "default-0.4.0"), or
    None when no packaged edition has it."""
    for edition in EDITIONS:
        try:
            if dataset_hash(edition) == sha256:
                return edition
        except DataError:
            continue
    return None


def dataset_hash(edition: str = "default") -> str:
    """sha256 over the edition's public, hidden and reference files (in that order)."""
    folder = edition_dir(edition)
    digest = hashlib.sha256()
    for name in (PUBLIC_FILE, HIDDEN_FILE, REFERENCES_FILE):
        path = folder / name
        digest.update(name.encode())
        digest.update(path.read_bytes() if path.is_file() else b"<missing>")
    return digest.hexdigest()
