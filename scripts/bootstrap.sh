#!/usr/bin/env bash
# Install what smol-envs needs on a fresh Debian 12 machine (root, Python 3.11, maybe no uv).
#   bash scripts/bootstrap.sh                    uv + the workspace + the local model server
#   bash scripts/bootstrap.sh --with-toolchains  also the smolscript toolchains and sandbox host
# Idempotent: a second run installs nothing new.
set -euo pipefail
cd "$(dirname "$0")/.."

export UV_PYTHON_DOWNLOADS=never
# llama-cpp-python builds from source (about 4-5 minutes on 2 cores, cached by uv afterwards).
export CMAKE_ARGS="${CMAKE_ARGS:--DLLAVA_BUILD=OFF}"

if ! command -v uv >/dev/null 2>&1; then
  echo "== installing uv"
  python3 -m pip install --quiet uv
fi

if [[ "${1:-}" == "--with-toolchains" ]]; then
  echo "== installing smolscript toolchains and sandbox host setup"
  if [[ -f environments/smolscript/sandbox/setup_host.sh ]]; then
    bash environments/smolscript/sandbox/setup_host.sh
  fi
fi

echo "== syncing the uv workspace"
uv sync --frozen 2>&1 | tail -n 3
