#!/usr/bin/env bash
# Full scoreboard run of research/request_gate.py's candidate; the default's is the committed
# scoreboard.
set -euo pipefail
out=research/results/request-gate
mkdir -p "$out"
cp benchmarks/results/scoreboard.json "$out/default.json"
bash research/run_candidates.sh "$out" full research/candidates/requests-majority.json
