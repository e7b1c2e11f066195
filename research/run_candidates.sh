#!/usr/bin/env bash
# One scoreboard run per candidate config into OUT, skipping runs already there:
#   bash research/run_candidates.sh OUT DATASETS CONFIG...
# A run is named after its config's file (a leading dot dropped). DATASETS: "long-form" (the
# candidate rounds' list: gpe-k5, shortqa, PoisonedRAG, biogen, gpe-longform) or "full" (every
# dataset of the committed scoreboard); paper() and RAGDefender are left out of both.
set -euo pipefail
out=$1 datasets=$2
shift 2
case "$datasets" in
  long-form) which=(--only gpe-k5,shortqa,poisonedrag-nq,poisonedrag-hotpotqa,biogen-k10,biogen-k20,gpe-longform) ;;
  full) which=(--adaptive dispersed,paraphrase,synonym) ;;
  *) echo "DATASETS must be long-form or full, got $datasets" >&2; exit 2 ;;
esac
mkdir -p "$out"
for cfg in "$@"; do
  name=$(basename "$cfg" .json); name=${name#.}
  [ -f "$out/$name.json" ] && continue
  nice .venv/bin/python -m benchmarks.scoreboard --config "$cfg" --no-paper --families all \
    "${which[@]}" --out "$out/$name"
done
