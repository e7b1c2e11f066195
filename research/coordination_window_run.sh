#!/usr/bin/env bash
# One scoreboard run per candidate of research/coordination_window.py, and one of the default.
set -euo pipefail
out=research/results/coordination-window
mkdir -p "$out"
echo '{}' > "$out/.default.json"
for cfg in "$out/.default.json" research/candidates/coordination-window-*.json; do
  name=$(basename "$cfg" .json); name=${name#.}
  [ -f "$out/$name.json" ] && continue
  nice .venv/bin/python -m benchmarks.scoreboard --config "$cfg" --no-paper --families all \
    --family-n 20 --only gpe-k5,shortqa,poisonedrag-nq,poisonedrag-hotpotqa,biogen-k10,biogen-k20,gpe-longform \
    --out "$out/$name"
done
rm -f "$out/.default.json"
