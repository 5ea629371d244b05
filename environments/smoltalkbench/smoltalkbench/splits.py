"""Train split of SmolTalkBench: source conversations that are not in the benchmark.

The benchmark (`data.load_rows`, the eval split) is a sample of the distinct prompts of
HuggingFaceTB/smoltalk's everyday-conversations subset (`build.candidate_rows`, deduplicated by
`build.prompt_key`). The train split is every other distinct prompt of the same source, found
with the same dedupe: `train_rows` is pure; `load_source` is the edge that reads the source
(the hub at the pinned revision, or a local copy) and raises a clear error when it cannot.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from pathlib import Path
from typing import Any

from smol_envs_core.errors import InfrastructureError

from smoltalkbench import build
from smoltalkbench.errors import ConfigError

FORMATS = {".parquet": "parquet", ".jsonl": "json"}


def train_rows(candidates: Iterable[Mapping[str, Any]],
               benchmark_instructions: Iterable[str]) -> list[dict[str, Any]]:
    """The candidate rows whose prompt (by `build.prompt_key`) is not a benchmark prompt."""
    taken = {build.prompt_key(text) for text in benchmark_instructions}
    return [dict(row) for row in candidates if build.prompt_key(row["instruction"]) not in taken]


def local_split_files(folder: Path) -> tuple[str, dict[str, list[str]]]:
    """(datasets builder, {split: files}) for a local copy of the source. Raises ConfigError."""
    if not folder.is_dir():
        raise ConfigError(f"source path {folder} is not a folder")
    files = {
        split: sorted(str(p) for p in folder.rglob(f"{split}*") if p.suffix in FORMATS)
        for split in build.SOURCE_SPLITS
    }
    suffixes = {Path(f).suffix for paths in files.values() for f in paths}
    if not all(files.values()) or len(suffixes) != 1:
        raise ConfigError(
            f"{folder}: need train* and test* files of one format (.parquet or .jsonl), got {files}"
        )
    return FORMATS[suffixes.pop()], files


def load_source(source_path: str | None, revision: str = build.SOURCE_REVISION):
    """The source splits as a datasets.DatasetDict (train and test).

    `source_path` None reads the hub at `revision`; otherwise a local folder of train*/test*
    files (see `local_split_files`).

    Raises:
        InfrastructureError: the hub source cannot be reached (names it and how to work offline).
        ConfigError: a local folder without the expected files.
    """
    from datasets import load_dataset

    if source_path is not None:
        builder, files = local_split_files(Path(source_path))
        return load_dataset(builder, data_files=files)
    try:
        return load_dataset(build.SOURCE, build.SUBSET, revision=revision)
    except Exception as exc:  # noqa: BLE001 - any failure to fetch the source is reported
        raise InfrastructureError(
            "train source",
            f"cannot read {build.SOURCE} ({build.SUBSET}, revision {revision[:12]}): "
            f"{type(exc).__name__}: {exc}; to build the train split from a local copy, pass "
            "source_path=<folder with train*/test* files> (environment argument) or "
            "--source-path <folder> (scripts/create_smoltalkbench_dataset.py)",
            f"https://huggingface.co/datasets/{build.SOURCE}",
        ) from exc
