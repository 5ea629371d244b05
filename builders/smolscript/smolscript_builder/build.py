"""Build every smolscript dataset artifact in memory: editions, manifests, audits, card.

``build_artifacts()`` returns ``{relative path: bytes}`` for ``data/smolscript/``; it reads no
files, clock or environment, so two calls give identical bytes (``scripts/build_smolscript.py``
writes them). Program tasks come from ``generate.py``; HTML, CSS and JavaScript DOM tasks come
from ``smolscript_builder.web.generate_web_tasks`` (one call per language and difficulty).
"""

from __future__ import annotations

import hashlib
import json
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from smolscript.languages import LANGUAGE_ORDER

from smolscript_builder import audit, card, checks
from smolscript_builder.editions import (
    ARCHIVES,
    DATASET_VERSION,
    DIFFICULTIES,
    EDITIONS,
    edition_counts,
    select,
)
from smolscript_builder.generate import GENERATOR_VERSION, TaskDef, generate_pool, program_records
from smolscript_builder.records import dumps, jsonl_bytes, parquet_bytes, public_row

SEED = 0
POOL_SIZES = {"easy": 175, "medium": 90, "moderate": 40}
PUBLIC_FILE, PARQUET_FILE = "smolscript.jsonl", "smolscript.parquet"
REFERENCES_FILE, HIDDEN_FILE = "references/solutions.jsonl", "private_tests/hidden.jsonl"
EDITION_DIRS = {"default": "", "previous1000": "archive/v0.2.0/", "full2000": "archive/v0.1.0/"}
WebGenerator = Callable[[str, int, int, str], list[dict]]


@dataclass(frozen=True)
class Task:
    """One dataset task: its public row, reference row and hidden-test row."""

    public: dict[str, Any]
    reference: dict[str, Any]
    hidden: dict[str, Any]

    @property
    def id(self) -> str:
        """The task id."""
        return self.public["id"]

    def content_sha256(self) -> str:
        """Hash of everything that defines the task (identical in every edition)."""
        return hashlib.sha256(
            dumps([self.public, self.reference, self.hidden]).encode()
        ).hexdigest()


def _rank(language: str, task: TaskDef) -> str:
    return hashlib.sha256(f"{language}|{task.key}".encode()).hexdigest()


def program_tasks(
    pool: Sequence[TaskDef], counts: Mapping[tuple[str, str, str], int]
) -> list[Task]:
    """Translate the first ``count`` pool tasks (ranked per language) into each language."""
    tasks = []
    for (language, modality, difficulty), count in counts.items():
        if modality != "program":
            continue
        candidates = sorted(
            (t for t in pool if t.difficulty == difficulty), key=lambda t: _rank(language, t)
        )
        if len(candidates) < count:
            raise ValueError(
                f"pool has {len(candidates)} {difficulty} tasks; {language} needs {count}"
            )
        tasks += [Task(*program_records(language, t)) for t in candidates[:count]]
    return tasks


def web_task(language: str, record: Mapping[str, Any]) -> Task:
    """Split a web generator record into public / reference / hidden rows."""
    identifier = f"{language}-{record['spec_key'][:10]}"
    public = {
        "id": identifier,
        "language": language,
        "difficulty": record["difficulty"],
        "family": record["family"],
        "category": record["category"],
        "modality": "browser",
        "instruction": record["instruction"],
        "input_domain": record["input_domain"],
        "entry_point": record["entry_point"],
        "signature": record["signature"],
        "prefix": record["prefix"],
        "imports": record["imports"],
        "fixture": record["fixture"],
        "base_styles": record["base_styles"],
        "tests": {
            "kind": record["kind"],
            "viewports": record["viewports"],
            "probes": record["probes"],
            "timeout_s": record["timeout_s"],
        },
        "reference_solution": None,
        "metadata": {
            "generator": "smolscript.web",
            "kind": record["kind"],
            "spec": record["spec"],
            "spec_key": record["spec_key"],
        },
    }
    reference = {
        "id": identifier,
        "reference_solution": record["reference_solution"],
        "negative_control": record["negative_control"],
        "near_miss": record.get("near_miss"),
        "near_miss_description": record.get("near_miss_description"),
        "near_miss_stages": None,
    }
    hidden = {"id": identifier, "tests": record["hidden_tests"], "near_miss_tests": []}
    return Task(public, reference, hidden)


def web_tasks(
    counts: Mapping[tuple[str, str, str], int], generator: WebGenerator, seed: int
) -> list[Task]:
    """Web tasks of every browser cell, from the web part's generator."""
    tasks = []
    for (language, modality, difficulty), count in counts.items():
        if modality == "browser" and count:
            tasks += [web_task(language, r) for r in generator(language, count, seed, difficulty)]
    return tasks


def _load_web_generator() -> WebGenerator:
    try:
        from smolscript_builder.web.generator import generate_web_tasks
    except ImportError as exc:  # playwright-free, but keep a program-only build possible
        raise RuntimeError(
            "smolscript_builder.web.generate_web_tasks is not available; build with "
            "include_web=False for a program-only build"
        ) from exc
    return generate_web_tasks


def _sort_key(task: Task) -> tuple:
    row = task.public
    return (
        LANGUAGE_ORDER.index(row["language"]),
        row["modality"],
        DIFFICULTIES.index(row["difficulty"]),
        row["id"],
    )


def build_editions(
    seed: int = SEED, include_web: bool = True, web_generator: WebGenerator | None = None
) -> dict[str, Any]:
    """Generate full2000 and select previous1000 and default from it.

    Returns ``{"tasks": {edition: [Task]}, "selections": {edition: [{"id", "hash"}]},
    "pool": [TaskDef]}``.
    """
    full_counts = edition_counts("full2000", include_web)
    pool = generate_pool(POOL_SIZES, seed)
    tasks = program_tasks(pool, full_counts)
    if include_web:
        tasks += web_tasks(full_counts, web_generator or _load_web_generator(), seed)
    tasks.sort(key=_sort_key)
    by_id = {t.id: t for t in tasks}
    if len(by_id) != len(tasks):
        raise ValueError("duplicate task ids in full2000")
    editions = {"full2000": tasks}
    selections = {
        "full2000": [
            {"id": t.id, "hash": t.content_sha256()} for t in sorted(tasks, key=lambda t: t.id)
        ]
    }
    parent = tasks
    for edition in ("previous1000", "default"):
        chosen = select_subset(edition, parent, include_web)
        selections[edition] = chosen
        ids = {item["id"] for item in chosen}
        parent = [t for t in parent if t.id in ids]
        editions[edition] = parent
    return {"tasks": editions, "selections": selections, "pool": pool}


def select_subset(edition: str, parent: Sequence[Task], include_web: bool) -> list[dict[str, str]]:
    """Stratified SHA256 selection of ``edition`` from ``parent`` (browser cells optional)."""
    return select(edition, [t.public for t in parent], edition_counts(edition, include_web))


def _edition_files(prefix: str, tasks: Sequence[Task]) -> dict[str, bytes]:
    public = [public_row(t.public) for t in tasks]
    files = {
        prefix + PUBLIC_FILE: jsonl_bytes(public),
        prefix + PARQUET_FILE: parquet_bytes(public),
        prefix + REFERENCES_FILE: jsonl_bytes(t.reference for t in tasks),
        prefix + HIDDEN_FILE: jsonl_bytes(t.hidden for t in tasks),
    }
    return files


def _json_bytes(value: Any) -> bytes:
    return (json.dumps(value, indent=1, sort_keys=True, ensure_ascii=True) + "\n").encode()


def manifest(
    selections: Mapping[str, list[dict[str, str]]], include_web: bool, seed: int
) -> dict[str, Any]:
    """The selection manifest: every edition's ids and hashes, and how they were chosen."""
    out: dict[str, Any] = {
        "dataset_version": DATASET_VERSION,
        "generator": GENERATOR_VERSION,
        "seed": seed,
        "include_web": include_web,
        "selection": (
            "within each language x modality x difficulty cell, quota spread over "
            "family/category strata by largest remainder; each stratum keeps the ids "
            "with the smallest sha256('<edition>:<id>')"
        ),
        "editions": {},
    }
    parents = {"full2000": None, "previous1000": "full2000", "default": "previous1000"}
    for edition in EDITIONS:
        out["editions"][edition] = {
            "parent": parents[edition],
            "archive": ARCHIVES.get(edition),
            "path": EDITION_DIRS[edition] or ".",
            "count": len(selections[edition]),
            "hash_kind": "content_sha256" if edition == "full2000" else "selection_sha256",
            "ids": selections[edition],
        }
    return out


def build_artifacts(
    seed: int = SEED,
    include_web: bool = True,
    web_generator: WebGenerator | None = None,
    execution: Mapping[str, Any] | None = None,
) -> dict[str, bytes]:
    """Every file of ``data/smolscript/`` as bytes (deterministic). ``execution``: a validation
    report's "execution" section recorded for these same files (the report and the card's
    status then carry it); default: unverified."""
    built = build_editions(seed, include_web, web_generator)
    files: dict[str, bytes] = {}
    for edition, prefix in EDITION_DIRS.items():
        files.update(_edition_files(prefix, built["tasks"][edition]))
    files["selection_manifest.json"] = _json_bytes(manifest(built["selections"], include_web, seed))
    audits = {
        edition: audit.audit_edition([t.public for t in built["tasks"][edition]])
        for edition in EDITIONS
    }
    files["audit_report.json"] = _json_bytes(
        {"dataset_version": DATASET_VERSION, "editions": audits}
    )
    report = checks.validation_report(files, include_web, execution)
    files["validation_report.json"] = _json_bytes(report)
    files["README.md"] = card.render_card(
        built["tasks"]["default"], audits, report, include_web
    ).encode()
    files["checksums.json"] = _json_bytes(checks.checksums(files))
    return files
