#!/usr/bin/env bash
# Full scoreboard runs of research/majority_gate.py's candidates; the default's is the
# committed scoreboard.
set -euo pipefail
out=research/results/majority-gate
mkdir -p "$out"
cp benchmarks/results/scoreboard.json "$out/default.json"
bash research/run_candidates.sh "$out" full research/candidates/majority-in-selected*.json
