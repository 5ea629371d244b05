"""Loads SmolTalkBench rows (hub, local parquet/jsonl, or the packaged fixture) for verifiers.

`load_rows` reads the benchmark in its published format (columns of `build.COLUMNS`) and checks
it; `to_verifiers` maps it to the question/answer/info shape verifiers' SingleTurnEnv expects:
the instruction is the only user message, the reference is the answer, and info carries what
the report groups by.
"""

from __future__ import annotations

from importlib import resources
from pathlib import Path
from typing import TYPE_CHECKING

from smoltalkbench.errors import ConfigError, DataError

if TYPE_CHECKING:
    from datasets import Dataset

FIXTURE = "fixture"
REQUIRED_COLUMNS = ("id", "instruction", "output", "topic", "category", "group")
_LOCAL_FORMATS = {".parquet": "parquet", ".jsonl": "json", ".json": "json"}


def fixture_path() -> Path:
    """Path of the small benchmark-format fixture shipped inside the package."""
    return Path(str(resources.files("smoltalkbench") / "data" / "fixture.jsonl"))


def _local_files(path: Path) -> tuple[str, list[str]]:
    """(datasets builder name, files) for a local file or a folder of same-format files."""
    files = (
        sorted(p for p in path.rglob("*") if p.suffix in _LOCAL_FORMATS)
        if path.is_dir()
        else [path]
    )
    formats = {_LOCAL_FORMATS.get(p.suffix) for p in files}
    if not files or None in formats or len(formats) != 1:
        raise ConfigError(f"{path}: expected .parquet or .jsonl file(s) of one format, got {files}")
    return formats.pop(), [str(p) for p in files]


def load_rows(dataset: str, config: str = "gold", split: str = "test", data_files=None) -> Dataset:
    """The benchmark rows as a datasets.Dataset, validated.

    `dataset` is a hub id (read with `config`, `split` and optional `data_files`), a local
    .parquet/.jsonl file or folder, or "fixture" for the packaged fixture. Raises DataError when
    a required column is missing or an instruction/output is empty.
    """
    from datasets import load_dataset

    local = fixture_path() if dataset == FIXTURE else Path(dataset).expanduser()
    if dataset == FIXTURE or local.exists():
        builder, files = _local_files(local)
        rows = load_dataset(builder, data_files=files, split="train")
    else:
        try:
            rows = load_dataset(dataset, config, split=split, data_files=data_files)
        except Exception as exc:  # noqa: BLE001 - datasets raises many kinds when offline
            raise DataError(
                f"could not load {dataset!r} (config {config!r}, split {split!r}) from the "
                f"Hugging Face Hub: {type(exc).__name__}: {exc}. Without the Hub, pass "
                "dataset='fixture' (the packaged 12-row offline fixture) or a local "
                ".parquet/.jsonl path"
            ) from exc
    validate(
        rows.column_names,
        rows["instruction"] if "instruction" in rows.column_names else [],
        rows["output"] if "output" in rows.column_names else [],
        dataset,
    )
    return rows


def validate(columns, instructions, outputs, name: str) -> None:
    """Raise DataError naming `name` when columns are missing or any text is empty."""
    missing = [c for c in REQUIRED_COLUMNS if c not in columns]
    if missing:
        raise DataError(f"{name}: missing column(s) {missing}; required {list(REQUIRED_COLUMNS)}")
    empty = [
        i for i, (q, a) in enumerate(zip(instructions, outputs, strict=True)) if not q or not a
    ]
    if empty:
        raise DataError(f"{name}: empty instruction or output in row(s) {empty[:10]}")


def to_verifiers(rows: Dataset, num_examples: int = -1) -> Dataset:
    """question/answer/info columns for SingleTurnEnv, first `num_examples` rows (-1: all)."""
    if num_examples == 0 or num_examples < -1:
        raise ConfigError(f"num_examples must be -1 (all) or positive, got {num_examples}")
    if num_examples > 0:
        rows = rows.select(range(min(num_examples, len(rows))))
    return rows.map(
        lambda r: {
            "question": r["instruction"],
            "answer": r["output"],
            "info": {
                "id": r["id"],
                "topic": r["topic"],
                "category": r["category"],
                "group": r["group"],
                "reference_chars": len(r["output"]),
            },
        },
        remove_columns=rows.column_names,
    )
