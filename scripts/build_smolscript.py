"""Regenerate every smolscript dataset artifact under data/smolscript/ (byte for byte).

Usage: uv run python scripts/build_smolscript.py [--out DIR] [--program-only] [--check]
--check compares a fresh build with the files on disk and exits 1 on any difference (the
validation report is compared too, so run it before execution results are recorded).
"""

from __future__ import annotations

import argparse
import json
import sys
import time
from pathlib import Path

DEFAULT_OUT = Path(__file__).resolve().parents[1] / "data" / "smolscript"


def main(argv: list[str] | None = None) -> int:
    """Build, then write (or compare); returns the exit code."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0],
                                     formatter_class=argparse.ArgumentDefaultsHelpFormatter)
    parser.add_argument("--out", type=Path, default=DEFAULT_OUT,
                        help="dataset folder to write (or compare with --check)")
    parser.add_argument(
        "--program-only",
        action="store_true",
        help="leave out the web tasks (HTML, CSS, JavaScript DOM)",
    )
    parser.add_argument(
        "--check", action="store_true", help="do not write; exit 1 when the files on disk differ"
    )
    args = parser.parse_args(argv)

    from smolscript_builder.build import build_artifacts
    from smolscript_builder.editions import FROZEN_ARCHIVES

    started = time.perf_counter()
    # --check compares with the committed files as validated: their recorded execution result
    # is part of what they are. A written build starts unverified.
    report = args.out / "validation_report.json"
    execution = (json.loads(report.read_text()).get("execution")
                 if args.check and report.is_file() else None)
    files = build_artifacts(include_web=not args.program_only, execution=execution)
    elapsed = time.perf_counter() - started
    out: Path = args.out
    # Frozen earlier editions are kept as published: never built, compared or removed here.
    existing = (
        {p.relative_to(out).as_posix() for p in out.rglob("*") if p.is_file()
         and not p.relative_to(out).as_posix().startswith(tuple(FROZEN_ARCHIVES.values()))}
        if out.exists()
        else set()
    )
    if args.check:
        differ = sorted(
            p
            for p, data in files.items()
            if not (out / p).is_file() or (out / p).read_bytes() != data
        )
        extra = sorted(existing - set(files))
        for path in differ:
            print(f"differs: {path}")
        for path in extra:
            print(f"not built: {path}")
        print(f"built {len(files)} files in {elapsed:.1f} s; {len(differ)} differ")
        return 1 if differ or extra else 0
    for path, data in sorted(files.items()):
        target = out / path
        target.parent.mkdir(parents=True, exist_ok=True)
        target.write_bytes(data)
    for stale in sorted(existing - set(files)):
        (out / stale).unlink()
        print(f"removed stale {stale}")
    total = sum(len(d) for d in files.values())
    print(f"wrote {len(files)} files ({total / 1e6:.1f} MB) to {out} in {elapsed:.1f} s")
    return 0


if __name__ == "__main__":
    sys.exit(main())
