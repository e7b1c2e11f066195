#!/usr/bin/env bash
# One scoreboard run per candidate of research/coordination_window.py, and one of the default.
set -euo pipefail
out=research/results/coordination-window
mkdir -p "$out"
echo '{}' > "$out/.default.json"
bash research/run_candidates.sh "$out" long-form "$out/.default.json" \
  research/candidates/coordination-window-*.json
rm -f "$out/.default.json"
