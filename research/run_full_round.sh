#!/usr/bin/env bash
# A candidate round on full scoreboard runs, against the committed scoreboard:
#   bash research/run_full_round.sh OUT CONFIG...
# copies benchmarks/results/scoreboard.json to OUT/default.json (the default's run) and runs
# each candidate config into OUT (research/run_candidates.sh, every dataset).
set -euo pipefail
out=$1
shift
mkdir -p "$out"
cp benchmarks/results/scoreboard.json "$out/default.json"
bash research/run_candidates.sh "$out" full "$@"
