#!/usr/bin/env bash
# One scoreboard run per candidate of research/conflict_scope.py; the default's and the
# window's runs are research/coordination_window.py's (copied in).
set -euo pipefail
window=research/results/coordination-window
out=research/results/conflict-scope
mkdir -p "$out"
for name in default coordination-window-relevance; do
  cp "$window/$name.json" "$out/$name.json"
done
bash research/run_candidates.sh "$out" long-form \
  research/candidates/conflict-scope-delivered.json \
  research/candidates/conflict-scope-delivered-window.json

# The second and third rounds: their default is the first round's pick (the relevance window).
for round in 2 3; do
  mkdir -p "$out-$round"
  cp "$window/coordination-window-relevance.json" "$out-$round/default.json"
done
bash research/run_candidates.sh "$out-2" long-form \
  research/candidates/conflict-scope-delivered-outside.json
bash research/run_candidates.sh "$out-3" long-form \
  research/candidates/query-restatements-vouch-nothing.json \
  research/candidates/conflict-scope-delivered-assertions.json
