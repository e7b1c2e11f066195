#!/usr/bin/env bash
# Full scoreboard runs of research/request_gate.py's candidates; the default's is the
# committed scoreboard. With "2": the second round, into its own folder.
set -euo pipefail
if [ "${1:-1}" = 2 ]; then
  out=research/results/request-gate-2 cfgs=(research/candidates/requests-majority-paraphrase.json)
else
  out=research/results/request-gate cfgs=(research/candidates/requests-majority.json)
fi
mkdir -p "$out"
cp benchmarks/results/scoreboard.json "$out/default.json"
bash research/run_candidates.sh "$out" full "${cfgs[@]}"
