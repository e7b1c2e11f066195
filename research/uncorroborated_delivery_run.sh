#!/usr/bin/env bash
# Full scoreboard runs of research/uncorroborated_delivery.py's candidates; the default's is
# the committed scoreboard.
set -euo pipefail
out=research/results/uncorroborated-delivery
mkdir -p "$out"
cp benchmarks/results/scoreboard.json "$out/default.json"
bash research/run_candidates.sh "$out" full \
  research/candidates/uncorroborated-most-relevant.json \
  research/candidates/uncorroborated-part-and-most-relevant.json \
  research/candidates/requests-corroborated-part.json
