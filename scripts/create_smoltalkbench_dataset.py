"""Build SmolTalkBench's `gold` config from smoltalk's everyday-conversations; maybe publish it.

    uv run python scripts/create_smoltalkbench_dataset.py                    # hub source, counts
    uv run python scripts/create_smoltalkbench_dataset.py --source-path DIR  # offline copy
    uv run python scripts/create_smoltalkbench_dataset.py --output rows.jsonl  # write rows
    uv run python scripts/create_smoltalkbench_dataset.py --push [--public]  # publish

A thin wrapper: loading and publishing live here, all row logic in `smoltalkbench.build`
(shape check, deduplication, largest-remainder sampling). A local source is a folder holding
`train*` and `test*` files (.parquet or .jsonl) in the source's format (`full_topic`, `messages`).
"""

from __future__ import annotations

import argparse
import json
import os
import sys
from pathlib import Path

from smol_envs_core.cli import HelpFormatter
from smol_envs_core.errors import SmolEnvsError
from smoltalkbench import build
from smoltalkbench.card import HUB_METADATA, render_card
from smoltalkbench.errors import ConfigError
from smoltalkbench.splits import load_source

REPO = "HuggingFaceSwarms/SmolTalkBench"
CONFIG = "gold"
SCRIPT = "scripts/create_smoltalkbench_dataset.py"
MODULE = "smoltalkbench/build.py"


def write_rows(rows: list[dict], path: Path) -> None:
    """Rows to .jsonl (one JSON object a line, UTF-8, column order of build.COLUMNS) or .parquet."""
    ordered = [{c: row[c] for c in build.COLUMNS} for row in rows]
    if path.suffix == ".jsonl":
        text = "".join(json.dumps(r, ensure_ascii=False) + "\n" for r in ordered)
        path.write_text(text, encoding="utf-8")
    elif path.suffix == ".parquet":
        from datasets import Dataset

        Dataset.from_list(ordered).to_parquet(str(path))
    else:
        raise ConfigError(f"--output must end in .jsonl or .parquet, got {path}")


def push(rows: list[dict], args: argparse.Namespace, distinct: int) -> None:
    """Publish the rows as the default `gold` config, then the card, this script and its module."""
    import smoltalkbench
    from datasets import Dataset
    from huggingface_hub import CommitOperationAdd, DatasetCard, HfApi

    Dataset.from_list(rows).push_to_hub(
        args.repo, config_name=CONFIG, split="test", private=not args.public
    )
    card = DatasetCard.load(args.repo, repo_type="dataset")  # keeps push_to_hub's dataset_info
    for key, value in HUB_METADATA.items():
        card.data[key] = value
    for entry in card.data.get("configs") or []:
        if entry.get("config_name") == CONFIG:
            entry["default"] = True
    card.text = render_card(
        config=CONFIG,
        subset=build.SUBSET,
        source=build.SOURCE,
        generator=build.GENERATOR,
        repo=args.repo,
        n=args.n,
        seed=args.seed,
        revision=args.source_revision,
        distinct=distinct,
        script=SCRIPT,
        module=MODULE,
        public=" --public" if args.public else "",
    )
    module_path = Path(smoltalkbench.__file__).parent / "build.py"
    api = HfApi()
    api.create_commit(
        args.repo,
        repo_type="dataset",
        operations=[
            CommitOperationAdd("README.md", str(card).encode()),
            CommitOperationAdd(SCRIPT, Path(__file__).read_bytes()),
            CommitOperationAdd(MODULE, module_path.read_bytes()),
        ],
        commit_message="Add the dataset card and the code that built this dataset",
    )
    print(f"pushed https://huggingface.co/datasets/{args.repo}")


def parse_args(argv: list[str] | None = None) -> argparse.Namespace:
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=HelpFormatter
    )
    parser.add_argument("--n", type=int, default=1000, help="rows to sample")
    parser.add_argument("--seed", type=int, default=0, help="sampling seed")
    parser.add_argument(
        "--source-revision", default=build.SOURCE_REVISION, help=f"commit of {build.SOURCE}"
    )
    parser.add_argument(
        "--source-path", help="local copy of the source: folder of train*/test* parquet or jsonl"
    )
    parser.add_argument("--output", help="write the rows to this .jsonl or .parquet file")
    parser.add_argument("--repo", default=REPO, help="hub dataset to push to")
    parser.add_argument(
        "--push", action="store_true", help="publish the gold config, card and script"
    )
    parser.add_argument("--public", action="store_true", help="create the hub repo as public")
    parser.add_argument("--debug", action="store_true",
                        help="show the traceback of an error instead of one line")
    return parser.parse_args(argv)


def main(argv: list[str] | None = None) -> int:
    """Build (and optionally write or push) the benchmark; prints counts by group and category.
    Returns 0, or 2 after one line on a usage or data error (--debug: the traceback)."""
    args = parse_args(argv)
    try:
        return build_and_write(args)
    except SmolEnvsError as exc:
        if args.debug or os.environ.get("SMOL_ENVS_DEBUG"):
            raise
        print(f"create_smoltalkbench_dataset: error: {exc}", file=sys.stderr)
        return 2


def build_and_write(args: argparse.Namespace) -> int:
    """The build of `main`. Raises ConfigError when --n exceeds the distinct prompts."""
    source = load_source(args.source_path, args.source_revision)
    candidates = build.candidate_rows(source)
    if not 0 < args.n <= len(candidates):
        raise ConfigError(f"--n {args.n}: the source has {len(candidates)} distinct prompts; "
                          f"pass --n between 1 and {len(candidates)}")
    rows = build.sample_rows(candidates, args.n, args.seed)
    print(f"{len(candidates)} distinct prompts -> {len(rows)} sampled (seed {args.seed})")
    for column in ("group", "category"):
        print(
            f"{column}: "
            + ", ".join(f"{name} {count}" for name, count in build.counts(rows, column))
        )
    if args.output:
        write_rows(rows, Path(args.output))
        print(f"wrote {args.output}")
    if args.push:
        push(rows, args, len(candidates))
    return 0


if __name__ == "__main__":
    sys.exit(main())
