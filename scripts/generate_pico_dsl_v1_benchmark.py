"""Build data/pico_dsl_v1_benchmark.jsonl: model-written phrase seeds -> compiled, validated rows.

NeMo Data Designer asks an OpenAI-compatible endpoint (default: the local SmolLM2-135M-Instruct
server) for short phrases across sampled topics and styles, one batch per round. Every phrase
goes through pico_dsl_v1.builder (cleaning, deterministic tape compiler, strict validator); the
script asks for more rounds until all 6 x 4 cells are full, then writes only validated rows and
a manifest. Replays (`--replay FILE`, a previous output or a phrase log) need no model and give
byte-identical rows for the same phrases and seed; replaying a built benchmark keeps the
phrase-generation record of its manifest (model, rounds, phrase statistics) as
`phrase_generation`, so a replay of the committed file rewrites the same manifest too.

    uv run python scripts/generate_pico_dsl_v1_benchmark.py          # the local server
    uv run python scripts/generate_pico_dsl_v1_benchmark.py --endpoint URL --model M \
        --api-key-var VAR
    uv run python scripts/generate_pico_dsl_v1_benchmark.py \
        --replay data/pico_dsl_v1_benchmark.jsonl
"""

from __future__ import annotations

import argparse
import hashlib
import json
import logging
import os
import sys
import time
from pathlib import Path
from typing import Any

from pico_dsl_v1.builder import BenchmarkBuilder, PhraseSeed, replay_phrases, serialize_rows
from pico_dsl_v1.spec import DATASET_VERSION, LEVELS, ROWS_PER_CELL, SLICES

ROOT = Path(__file__).resolve().parent.parent
DEFAULT_ENDPOINT = "http://127.0.0.1:8765/v1"
DEFAULT_MODEL = "SmolLM2-135M-Instruct"
COMMITTED = ROOT / "data" / "pico_dsl_v1_benchmark.jsonl"
DEFAULT_OUTPUT = ROOT / "outputs" / "pico_dsl_v1" / "pico_dsl_v1_benchmark.jsonl"
CACHE = ROOT / ".cache" / "pico_dsl_v1"
TOPICS = (
    "cooking", "the sea", "trains", "gardens", "weather", "city streets", "music", "sports",
    "school", "outer space", "farm animals", "markets", "mountains", "libraries", "winter",
    "festivals", "rivers", "workshops", "birds", "bakeries", "forests", "harbors", "night skies",
    "old machines",
)  # fmt: skip
STYLES = ("calm", "playful", "vivid", "plain", "curious", "nostalgic", "cheerful", "mysterious")
PROMPT = (
    "Write one short {{ style }} phrase of four to eight words about {{ topic }}. "
    "Reply with the phrase only, no quotes."
)


# Manifest fields that describe the model run which wrote the phrases (kept through replays).
GENERATION_KEYS = (
    "model", "source", "note", "rounds", "phrases_requested", "phrases_resumed_from_log",
    "phrases_returned", "phrases_offered_until_complete", "seconds", "phrase_log", "phrases",
)  # fmt: skip


class GenerationError(RuntimeError):
    """The endpoint or Data Designer failed (infrastructure, not a phrase problem)."""


def parse_args(argv: list[str] | None = None) -> argparse.Namespace:
    """Command-line options (see module docstring)."""
    p = argparse.ArgumentParser(formatter_class=argparse.ArgumentDefaultsHelpFormatter,
        description=__doc__.split("\n\n")[0])
    p.add_argument("--endpoint", default=DEFAULT_ENDPOINT, help="OpenAI-compatible base URL")
    p.add_argument("--model", default=DEFAULT_MODEL, help="model name at the endpoint")
    p.add_argument("--api-key-var", default=None, help="env var holding the API key (optional)")
    p.add_argument("--seed", type=int, default=0, help="compiler seed")
    p.add_argument("--rows-per-cell", type=int, default=ROWS_PER_CELL,
                   help="rows per slice x level cell")
    p.add_argument("--slices", nargs="+", choices=SLICES, default=list(SLICES), help="grid rows")
    p.add_argument("--levels", nargs="+", choices=LEVELS, default=list(LEVELS), help="grid columns")
    p.add_argument("--batch-size", type=int, default=80, help="phrases requested per round")
    p.add_argument("--max-rounds", type=int, default=40,
                   help="phrase requests before giving up on a short cell")
    p.add_argument("--temperature", type=float, default=0.9, help="phrase sampling temperature")
    p.add_argument("--max-tokens", type=int, default=16, help="enough for a 34-char span")
    p.add_argument("--parallel", type=int, default=2, help="concurrent requests")
    p.add_argument("--timeout", type=int, default=300, help="seconds per request")
    p.add_argument("--output", type=Path, default=DEFAULT_OUTPUT,
                   help="rows file (an existing file is replaced only with --overwrite)")
    p.add_argument("--overwrite", action="store_true",
                   help=f"allow replacing an existing --output (e.g. the committed {COMMITTED})")
    p.add_argument("--manifest", type=Path, default=None, help="default: OUTPUT .manifest.json")
    p.add_argument("--phrase-log", type=Path, default=None, help="default: .cache/pico_dsl_v1/")
    p.add_argument("--replay", type=Path, default=None, help="rebuild from a benchmark or log")
    p.add_argument(
        "--resume", action="store_true", help="offer the phrases already in --phrase-log first"
    )
    return p.parse_args(argv)


def sha256_text(text: str) -> str:
    """Hex SHA-256 of UTF-8 text."""
    return hashlib.sha256(text.encode("utf-8")).hexdigest()


def request_phrases(args: argparse.Namespace, round_: int) -> list[PhraseSeed]:
    """One Data Designer round: `batch_size` phrases from the endpoint.

    Raises:
        GenerationError: Data Designer or the endpoint failed.
    """
    os.environ.setdefault("NEMO_TELEMETRY_ENABLED", "false")
    os.environ.setdefault("DATA_DESIGNER_HOME", str(ROOT / ".cache" / "data_designer"))
    from pico_dsl_v1.tokenizer import seed_cache

    seed_cache("cl100k_base")  # Data Designer's profiler counts tokens with it
    try:
        import data_designer.config as dd
        from data_designer.interface import DataDesigner
    except ImportError as exc:
        raise GenerationError(
            "data-designer is not installed: `uv sync --package pico-dsl-v1 --extra generate "
            "--inexact` (or install pico-dsl-v1[generate])"
        ) from exc

    api_key = os.environ.get(args.api_key_var, "") if args.api_key_var else "none"
    provider = dd.ModelProvider(name="phrase-endpoint", endpoint=args.endpoint, api_key=api_key)
    params = dd.ChatCompletionInferenceParams(
        temperature=args.temperature,
        top_p=0.95,
        max_tokens=args.max_tokens,
        max_parallel_requests=args.parallel,
        timeout=args.timeout,
    )
    model = dd.ModelConfig(
        alias="phrases",
        model=args.model,
        provider="phrase-endpoint",
        inference_parameters=params,
        skip_health_check=True,
    )
    builder = dd.DataDesignerConfigBuilder(model_configs=[model])
    for name, values in (("topic", TOPICS), ("style", STYLES)):
        builder.add_column(
            dd.SamplerColumnConfig(
                name=name,
                sampler_type="category",
                params=dd.CategorySamplerParams(values=list(values)),
            )
        )
    builder.add_column(dd.LLMTextColumnConfig(name="phrase", model_alias="phrases", prompt=PROMPT))
    designer = DataDesigner(
        artifact_path=CACHE / "data_designer_artifacts",
        model_providers=[provider],
        auto_configure_logging=False,
    )
    try:
        frame = designer.create(
            builder, num_records=args.batch_size, dataset_name=f"phrases-round-{round_}"
        ).load_dataset()
    except Exception as exc:  # Data Designer wraps every endpoint failure in its own errors
        raise GenerationError(f"Data Designer round {round_} failed: {exc}") from exc
    return [
        PhraseSeed(str(r["phrase"] or ""), str(r["topic"]), str(r["style"]))
        for r in frame.to_dict("records")
    ]


def load_replay(path: Path) -> list[PhraseSeed]:
    """Phrases from a built benchmark (its accepted phrases) or a phrase log (every phrase)."""
    records = [json.loads(line) for line in path.read_text().splitlines() if line.strip()]
    if records and "source" in records[0]:
        return replay_phrases(records)
    return [PhraseSeed(r["text"], r.get("topic", ""), r.get("style", "")) for r in records]


def replayed_generation(path: Path) -> dict[str, Any] | None:
    """The phrase-generation record of the build being replayed: its manifest's
    `phrase_generation`, or that manifest's GENERATION_KEYS (a manifest from before replays kept
    them); None when `path` has no manifest beside it (a phrase log)."""
    manifest_path = path.with_suffix(".manifest.json")
    if not manifest_path.is_file():
        return None
    previous = json.loads(manifest_path.read_text())
    if "phrase_generation" in previous:
        return previous["phrase_generation"]
    return {k: previous[k] for k in GENERATION_KEYS if k in previous}


def write_outputs(
    args: argparse.Namespace, builder: BenchmarkBuilder, info: dict[str, Any]
) -> dict[str, Any]:
    """Write the rows and the manifest; return the manifest."""
    text = serialize_rows(builder.rows())
    if args.output.exists() and not args.overwrite:
        raise SystemExit(f"error: {args.output} exists; pass --overwrite to replace it")
    args.output.parent.mkdir(parents=True, exist_ok=True)
    args.output.write_text(text)
    counts = {s: {lv: 0 for lv in args.levels} for s in args.slices}
    for row in builder.rows():
        counts[row["slice"]][row["complexity_level"]] += 1
    manifest = {
        "dataset": args.output.name,
        "dataset_version": DATASET_VERSION,
        "rows": len(builder.rows()),
        "sha256": sha256_text(text),
        "counts": counts,
        "generator": {
            "script": "scripts/generate_pico_dsl_v1_benchmark.py",
            "seed": args.seed,
            "rows_per_cell": args.rows_per_cell,
            "slices": args.slices,
            "levels": args.levels,
            "batch_size": args.batch_size,
            "temperature": args.temperature,
            "max_tokens": args.max_tokens,
            "parallel_requests": args.parallel,
            "topics": list(TOPICS),
            "styles": list(STYLES),
            "prompt": PROMPT,
        },
        **info,
        "phrases": builder.stats.as_dict(),
    }
    manifest_path = args.manifest or args.output.with_suffix(".manifest.json")
    manifest_path.write_text(json.dumps(manifest, indent=2) + "\n")
    return manifest


def run(args: argparse.Namespace) -> int:
    """Generate (or replay) and write; return the process exit code."""
    from rich.console import Console
    from rich.progress import BarColumn, MofNCompleteColumn, Progress, TextColumn, TimeElapsedColumn

    console = Console(stderr=True)
    builder = BenchmarkBuilder(args.seed, args.rows_per_cell, args.slices, args.levels)
    target = args.rows_per_cell * len(args.slices) * len(args.levels)
    started = time.monotonic()
    if args.replay is not None:
        builder.offer_all(load_replay(args.replay))
        generation = replayed_generation(args.replay)
        info: dict[str, Any] = {
            "model": generation.get("model") if generation else None,
            "source": f"replay of {args.replay.name}",
        }
        if generation is not None:
            info["phrase_generation"] = generation
    else:
        log_path = args.phrase_log or CACHE / f"phrases-{time.strftime('%Y%m%d-%H%M%S')}.jsonl"
        log_path.parent.mkdir(parents=True, exist_ok=True)
        requested = returned = rounds = resumed = 0
        if args.resume and log_path.is_file():
            previous = load_replay(log_path)
            resumed = requested = returned = len(previous)
            builder.offer_all(previous)
        columns = (TextColumn("{task.description}"), BarColumn(), MofNCompleteColumn())
        with Progress(*columns, TimeElapsedColumn(), console=console) as progress:
            task = progress.add_task("validated rows", total=target)
            for round_ in range(args.max_rounds):
                if builder.complete():
                    break
                progress.update(task, description=f"round {round_ + 1}: asking for phrases")
                try:
                    phrases = request_phrases(args, round_)
                except GenerationError as exc:
                    console.print(f"[red]error:[/red] {exc}")
                    return 2
                requested += args.batch_size
                returned += len(phrases)
                rounds += 1
                with log_path.open("a") as log:
                    for seed_phrase in phrases:
                        log.write(json.dumps(seed_phrase.__dict__) + "\n")
                builder.offer_all(phrases)
                progress.update(
                    task,
                    completed=builder.stats.accepted,
                    description=f"round {round_ + 1}: {builder.stats.offered} phrases seen",
                )
        info = {
            "model": {"name": args.model, "endpoint": args.endpoint},
            "source": "data-designer",
            "rounds": rounds,
            "phrases_requested": requested,
            "phrases_resumed_from_log": resumed,
            "phrases_returned": returned,
            "phrases_offered_until_complete": builder.stats.offered,
            "seconds": round(time.monotonic() - started, 1),
            "phrase_log": str(log_path.relative_to(ROOT))
            if log_path.is_relative_to(ROOT)
            else str(log_path),
        }
    if not builder.complete():
        missing = builder.validator.missing()
        console.print(f"[red]incomplete:[/red] {sum(missing.values())} rows missing in {missing}")
        console.print(json.dumps(builder.stats.as_dict(), indent=2))
        return 1
    manifest = write_outputs(args, builder, info)
    console.print(
        f"wrote {manifest['rows']} rows to {args.output} (sha256 {manifest['sha256'][:12]}); "
        f"phrases offered {builder.stats.offered}, accepted {builder.stats.accepted}"
    )
    return 0


def main(argv: list[str] | None = None) -> int:
    """Entry point."""
    logging.basicConfig(level=logging.WARNING)
    return run(parse_args(argv))


if __name__ == "__main__":
    sys.exit(main())
