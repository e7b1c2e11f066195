#!/usr/bin/env bash
# One scoreboard run per candidate of research/ablation.py (the datasets its rule reads).
# Usage: bash research/ablation_run.sh [ROUND]   (ROUND 2: the second round's folders)
set -euo pipefail
suffix=${1:+-$1}
out=research/results/ablation$suffix
mkdir -p "$out"
for cfg in research/candidates/ablation$suffix/*.json; do
  name=$(basename "$cfg" .json)
  [ -f "$out/$name.json" ] && continue
  nice .venv/bin/python -m benchmarks.scoreboard --config "$cfg" --no-paper --families all \
    --family-n 20 --only gpe-k5,shortqa,poisonedrag-nq,poisonedrag-hotpotqa,biogen-k10 \
    --out "$out/$name"
done
