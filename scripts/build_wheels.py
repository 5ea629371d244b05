"""Build every wheel and source archive of the collection into one folder.

    uv run python scripts/build_wheels.py            # -> dist/wheels/
    uv run python scripts/build_wheels.py --out DIR

The collection is each environment under `environments/` plus the two workspace packages they
depend on that are not on PyPI (`smol-envs-core`, `smolscript-sandbox`), so the folder is
self-sufficient: `pip install --find-links DIR pico-dsl-v1 'verifiers==0.4.0'` resolves our
packages from DIR and everything else from the index. Each package is built by `uv build`,
which writes the source archive first and builds the wheel from that archive alone, so a file
missing from an sdist fails here rather than on the Hub. The folder is emptied first.

Exit status 0 when every package produced exactly one wheel and one sdist; 1 otherwise (uv's
output is shown).
"""

from __future__ import annotations

import argparse
import shutil
import subprocess
import sys
import time
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]
# The workspace dependencies of the environments, built beside them.
SHARED = ("packages/smol_envs_core", "services/smolscript_sandbox")


def collection() -> list[Path]:
    """Folders of the packages to build: the shared ones first, then each environment
    (any folder under environments/ holding a pyproject.toml), in name order."""
    environments = sorted(p.parent for p in (REPO / "environments").glob("*/pyproject.toml"))
    return [REPO / s for s in SHARED] + environments


def build(folder: Path, out: Path) -> list[Path]:
    """Build `folder`'s sdist and, from it, its wheel into `out`.

    Returns the two files made. Raises RuntimeError with uv's output when the build fails or
    does not give exactly one `.whl` and one `.tar.gz`.
    """
    before = set(out.iterdir())
    done = subprocess.run(["uv", "build", "--quiet", "--out-dir", str(out), str(folder)],
                          capture_output=True, text=True, cwd=REPO)
    made = sorted(p for p in set(out.iterdir()) - before if p.suffix in (".whl", ".gz"))
    kinds = sorted(p.suffix for p in made)
    if done.returncode or kinds != [".gz", ".whl"]:
        raise RuntimeError(f"uv build {folder.relative_to(REPO)} failed (made {made}):\n"
                           f"{done.stdout[-2000:]}{done.stderr[-4000:]}")
    return made


def main(argv: list[str] | None = None) -> int:
    """Command line: build the collection into --out (default dist/wheels)."""
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--out", type=Path, default=REPO / "dist" / "wheels",
                        help="output folder, emptied first (default: dist/wheels)")
    args = parser.parse_args(argv)
    out = args.out.resolve()
    shutil.rmtree(out, ignore_errors=True)
    out.mkdir(parents=True)
    for folder in collection():
        start = time.monotonic()
        try:
            made = build(folder, out)
        except RuntimeError as error:
            print(error, file=sys.stderr)
            return 1
        names = ", ".join(p.name for p in made)
        print(f"{folder.relative_to(REPO)}: {names} ({time.monotonic() - start:.1f} s)")
    print(f"wheels and source archives in {out}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
