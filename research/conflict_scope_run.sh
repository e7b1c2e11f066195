#!/usr/bin/env bash
# One scoreboard run per candidate of research/conflict_scope.py; the default's and the
# window's runs are research/coordination_window.py's (copied in).
set -euo pipefail
out=research/results/conflict-scope
mkdir -p "$out"
for name in default coordination-window-relevance; do
  cp research/results/coordination-window/$name.json "$out/$name.json"
done
for cfg in research/candidates/conflict-scope-delivered.json research/candidates/conflict-scope-delivered-window.json; do
  name=$(basename "$cfg" .json)
  [ -f "$out/$name.json" ] && continue
  nice .venv/bin/python -m benchmarks.scoreboard --config "$cfg" --no-paper --families all \
    --family-n 20 --only gpe-k5,shortqa,poisonedrag-nq,poisonedrag-hotpotqa,biogen-k10,biogen-k20,gpe-longform \
    --out "$out/$name"
done

# The second round: its default is the first round's pick (the relevance window).
out=research/results/conflict-scope-2
mkdir -p "$out"
cp research/results/coordination-window/coordination-window-relevance.json "$out/default.json"
for cfg in research/candidates/conflict-scope-delivered-outside.json; do
  name=$(basename "$cfg" .json)
  [ -f "$out/$name.json" ] && continue
  nice .venv/bin/python -m benchmarks.scoreboard --config "$cfg" --no-paper --families all \
    --family-n 20 --only gpe-k5,shortqa,poisonedrag-nq,poisonedrag-hotpotqa,biogen-k10,biogen-k20,gpe-longform \
    --out "$out/$name"
done

# The third round: the same baseline as the second.
out=research/results/conflict-scope-3
mkdir -p "$out"
cp research/results/coordination-window/coordination-window-relevance.json "$out/default.json"
for cfg in research/candidates/query-restatements-vouch-nothing.json research/candidates/conflict-scope-delivered-assertions.json; do
  name=$(basename "$cfg" .json)
  [ -f "$out/$name.json" ] && continue
  nice .venv/bin/python -m benchmarks.scoreboard --config "$cfg" --no-paper --families all \
    --family-n 20 --only gpe-k5,shortqa,poisonedrag-nq,poisonedrag-hotpotqa,biogen-k10,biogen-k20,gpe-longform \
    --out "$out/$name"
done
