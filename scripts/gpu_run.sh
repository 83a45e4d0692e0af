#!/bin/sh
# The GPU plan's run step, for the lent GPU machine (python3 with torch, numpy, pandas, scikit-learn, scipy; no
# network, no venv, no make needed): sh scripts/gpu_run.sh [PACK] [OUT]. The pack (build/gpu-pack, built on the CPU
# machine by `make gpu-pack`) carries what that machine lacks; see README, "Running the paper presets on a GPU".
set -u
PACK=${1:-build/gpu-pack}
OUT_DIR=${2:-${OUT:-build/gpu-out}}
cd "$(dirname "$0")/.." || exit 2
PYTHON=python3
[ -x .venv/bin/python ] && PYTHON=.venv/bin/python  # here; the GPU machine has no venv: its python3 holds torch
export PYTHONUNBUFFERED=1
nvidia-smi --query-gpu=name,memory.total,driver_version --format=csv,noheader 2>/dev/null || true
exec "$PYTHON" -m reproducer gpu run --pack "$PACK" --out "$OUT_DIR"
