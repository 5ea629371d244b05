#!/usr/bin/env bash
# The main job on a fresh machine: install, start the local SmolLM2-135M-Instruct server (unless
# one of ours already runs: then it is reused and left running), run vf-eval pico-dsl-v1 on a
# mixed sample, print the scores, stop the server if this script started it.
#   bash scripts/quickstart.sh [NUM_EXAMPLES]     (default 24: one row per slice x level cell)
# Against another endpoint: SMOL_ENVS_BASE_URL=http://host:port/v1 [SMOL_ENVS_MODEL=name].
# The local server's port: SMOL_ENVS_MODEL_PORT (default 8765). Results: SMOL_ENVS_OUTPUT_DIR.
# Exits non-zero when anything failed, including any errored rollout.
set -euo pipefail
cd "$(dirname "$0")/.."
if [[ "${1:-}" == "-h" || "${1:-}" == "--help" ]]; then
  sed -n '2,8p' "$0" | sed 's/^# \{0,1\}//'
  exit 0
fi
N="${1:-24}"
if ! [[ "$N" =~ ^[1-9][0-9]*$ ]]; then
  echo "quickstart: NUM_EXAMPLES must be a positive integer, got '$N' (see --help)" >&2
  exit 2
fi
PORT="${SMOL_ENVS_MODEL_PORT:-8765}"
OUT="${SMOL_ENVS_OUTPUT_DIR:-outputs/quickstart}/$(date +%Y%m%d-%H%M%S)"
started=$(date +%s)

bash scripts/bootstrap.sh
if [[ -n "${SMOL_ENVS_BASE_URL:-}" ]]; then
  endpoint=(-b "$SMOL_ENVS_BASE_URL" -k SMOL_ENVS_LOCAL_API_KEY
            -m "${SMOL_ENVS_MODEL:-SmolLM2-135M-Instruct}")
else
  if uv run smol-envs-serve status --port "$PORT" >/dev/null 2>&1; then
    echo "== reusing the local model server already running on port $PORT (left running)"
  else
    uv run smol-envs-serve start --port "$PORT"
    trap 'uv run smol-envs-serve stop --port "$PORT" >/dev/null' EXIT
  fi
  endpoint=(-b "http://127.0.0.1:$PORT/v1" -k SMOL_ENVS_LOCAL_API_KEY -m SmolLM2-135M-Instruct)
fi

uv run vf-eval pico-dsl-v1 "${endpoint[@]}" -n "$N" -r 1 -t 256 -T 0 \
  -a '{"slice": "mixed"}' -s -o "$OUT"
uv run python -m smol_envs_core.report.runs check "$OUT"
echo "wall time: $(( $(date +%s) - started )) s"
