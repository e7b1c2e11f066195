#!/usr/bin/env bash
# One scoreboard run per candidate of research/quarantine_conflicts.py; the default's run is
# the conflict-scope third round's pick (the default it adopted).
set -euo pipefail
out=research/results/quarantine-conflicts
mkdir -p "$out"
cp research/results/conflict-scope-3/conflict-scope-delivered-assertions.json "$out/default.json"
for cfg in research/candidates/quarantine-conflicts-*.json; do
  name=$(basename "$cfg" .json)
  [ -f "$out/$name.json" ] && continue
  nice .venv/bin/python -m benchmarks.scoreboard --config "$cfg" --no-paper --families all \
    --family-n 20 --only gpe-k5,shortqa,poisonedrag-nq,poisonedrag-hotpotqa,biogen-k10,biogen-k20,gpe-longform \
    --out "$out/$name"
done
