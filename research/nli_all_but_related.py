"""The whole-mix NLI model without the "related but different" neutral pairs: does keeping two
reports of one event with different details (dates, names) out of the neutral label keep the
contradictions that block attack pages, while the rest of the mix adds paraphrase support?

The candidate, on the bundle of ``python -m training.bundle build --out .device/nli-abr --mix
all-but-related`` (198,202 pairs): ``python -m training --bundle .device/nli-abr --out
runs/nli-abr-cpu --device cpu --batch-size 32 --lr 7e-5 --schedule steps --steps 5785
--max-minutes 150 --threads auto``. It is the whole-mix candidate (``research/nli_all.py``)
with one part left out: the same base, recipe and number of steps (5,785, the steps that
candidate reached), its schedule planned over those steps so that CPU load changes only the
wall time.

Declared before any figure of it was seen, as for the whole-mix candidate:

1. **Screen** (fit split and held-out NLI sets, no scoreboard): the candidate goes on to the
   full round only if, against v1 in the same run, (a) it calls more of the gold-vs-poison
   conflicts at the threshold that calls 5% of the agreement pairs
   (``python -m research.conflict_pairs --models "" runs/nli-abr-cpu``, fit), and (b) its
   mean accuracy over the held-out sets of ``python -m benchmarks.eval_nli --limit 500`` is
   not more than a point below v1's.
2. **Round:** ``nli-abr-cpu``, the default config with these weights, every pair scored
   afresh; rule :data:`research.quarantine_conflicts.NO_LOSS_GAIN_GARAG` against the committed
   scoreboard (v1). The whole-mix candidate's run is printed beside it, not chosen on.

    python -m research.conflict_pairs --models "" runs/nli-abr-cpu
    python -m benchmarks.eval_nli --model runs/nli-abr-cpu \
        --baseline mirage_core/models/mirage-nli-minilm-l6 --names v1,abr --variants fp32 --limit 500
    # only if the screen passes:
    mkdir -p research/results/nli-abr && cp benchmarks/results/scoreboard.json \
        research/results/nli-abr/default.json
    nice python -m benchmarks.scoreboard --model runs/nli-abr-cpu --no-paper --families all \
        --family-n 20 --adaptive dispersed,paraphrase,synonym --adaptive-n 20 \
        --out research/results/nli-abr/nli-abr-cpu
    python -m research.nli_all_but_related report research/results/nli-abr/*.json
"""

from __future__ import annotations

import sys

from research.quarantine_conflicts import model_round_main

main = model_round_main(__doc__, ["nli-abr-cpu"])

if __name__ == "__main__":
    sys.exit(main())
