#!/usr/bin/env bash
# One scoreboard run per ablation of research/ablation.py (the datasets its rule reads).
set -euo pipefail
out=research/results/ablation
mkdir -p "$out"
for cfg in research/candidates/ablation/*.json; do
  name=$(basename "$cfg" .json)
  [ -f "$out/$name.json" ] && continue
  nice .venv/bin/python -m benchmarks.scoreboard --config "$cfg" --no-paper --families all \
    --family-n 20 --only gpe-k5,shortqa,poisonedrag-nq,poisonedrag-hotpotqa,biogen-k10 \
    --out "$out/$name"
done
