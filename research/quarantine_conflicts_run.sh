#!/usr/bin/env bash
# One scoreboard run per candidate of research/quarantine_conflicts.py; the default's run is
# the conflict-scope third round's pick (the default it adopted).
set -euo pipefail
out=research/results/quarantine-conflicts
mkdir -p "$out"
cp research/results/conflict-scope-3/conflict-scope-delivered-assertions.json "$out/default.json"
bash research/run_candidates.sh "$out" long-form research/candidates/quarantine-conflicts-*.json
