#!/usr/bin/env bash
# A full scoreboard run of research/tightness_outside.py's candidate; the default's is the
# committed scoreboard.
set -euo pipefail
out=research/results/tightness-outside
mkdir -p "$out"
cp benchmarks/results/scoreboard.json "$out/default.json"
bash research/run_candidates.sh "$out" full research/candidates/tightness-two-outside.json
