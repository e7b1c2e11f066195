#!/usr/bin/env bash
# Full scoreboard run of research/floor_scope.py's candidate; the default's is the committed
# scoreboard.
set -euo pipefail
out=research/results/floor-scope
mkdir -p "$out"
cp benchmarks/results/scoreboard.json "$out/default.json"
bash research/run_candidates.sh "$out" full research/candidates/floor-over-evidence.json
