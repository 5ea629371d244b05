#!/usr/bin/env bash
# The main job on a fresh machine: install, start the local SmolLM2-135M-Instruct server,
# run vf-eval pico-dsl-v1 on a mixed sample, print the scores, stop the server.
#   bash scripts/quickstart.sh [NUM_EXAMPLES]     (default 24: one row per slice x level cell)
set -euo pipefail
cd "$(dirname "$0")/.."
N="${1:-24}"

bash scripts/bootstrap.sh
uv run python scripts/serve_local_model.py start
trap 'uv run python scripts/serve_local_model.py stop' EXIT

uv run vf-eval pico-dsl-v1 -m smollm2-135m -n "$N" -r 1 -t 256 -T 0 \
  -a '{"slice": "mixed"}' -s
