#!/usr/bin/env bash
# The main job on a fresh machine: install, start the local SmolLM2-135M-Instruct server (unless
# one of ours already runs: then it is reused and left running), run vf-eval pico-dsl-v1 on a
# mixed sample, print the scores, stop the server if this script started it.
#   bash scripts/quickstart.sh [NUM_EXAMPLES]     (default 24: one row per slice x level cell)
# Against another endpoint: SMOL_ENVS_BASE_URL=http://host:port/v1 [SMOL_ENVS_MODEL=name].
# Exits non-zero when anything failed, including any errored rollout.
set -euo pipefail
cd "$(dirname "$0")/.."
N="${1:-24}"
OUT="${SMOL_ENVS_OUTPUT_DIR:-outputs/quickstart}/$(date +%Y%m%d-%H%M%S)"
started=$(date +%s)

bash scripts/bootstrap.sh
if [[ -n "${SMOL_ENVS_BASE_URL:-}" ]]; then
  endpoint=(-b "$SMOL_ENVS_BASE_URL" -k SMOL_ENVS_LOCAL_API_KEY
            -m "${SMOL_ENVS_MODEL:-SmolLM2-135M-Instruct}")
else
  if uv run smol-envs-serve status >/dev/null 2>&1; then
    echo "== reusing the local model server that is already running (left running)"
  else
    uv run smol-envs-serve start
    trap 'uv run smol-envs-serve stop >/dev/null' EXIT
  fi
  endpoint=(-m smollm2-135m)
fi

uv run vf-eval pico-dsl-v1 "${endpoint[@]}" -n "$N" -r 1 -t 256 -T 0 \
  -a '{"slice": "mixed"}' -s -o "$OUT"
uv run python -m smol_envs_core.runs check "$OUT"
echo "wall time: $(( $(date +%s) - started )) s"
