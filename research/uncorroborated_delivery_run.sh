#!/usr/bin/env bash
# A full scoreboard run of research/uncorroborated_delivery.py's candidate (every dataset of the
# committed scoreboard, paper() and RAGDefender left out); the default's is the committed one.
set -euo pipefail
out=research/results/uncorroborated-delivery
mkdir -p "$out"
cp benchmarks/results/scoreboard.json "$out/default.json"
for cfg in research/candidates/uncorroborated-most-relevant.json research/candidates/uncorroborated-part-and-most-relevant.json; do
  name=$(basename "$cfg" .json)
  [ -f "$out/$name.json" ] && continue
  nice .venv/bin/python -m benchmarks.scoreboard --config "$cfg" --no-paper \
    --adaptive dispersed,paraphrase,synonym --adaptive-n 20 --families all --family-n 20 \
    --out "$out/$name"
done
