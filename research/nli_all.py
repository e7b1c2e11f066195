"""The NLI model trained on the whole data mix, on the CPU, at v1's budget: does the mix, not
the amount of training, move the conflicts and agreements the engine reads?

The candidate: ``python -m training --bundle .device/nli --out runs/nli-all-cpu --device cpu
--batch-size 32 --lr 7e-5 --schedule time --max-minutes 58 --threads auto`` on the bundle of
``python -m training.bundle build --out .device/nli --mix all`` (212,202 pairs; from the base
encoder, as v1 was; 58 minutes is v1's training time, so it sees about as many pairs as v1 did,
drawn from the whole mix).

Declared before any figure of it was seen:

1. **Screen** (fit split and held-out NLI sets, no scoreboard): the candidate goes on to the
   full round only if, against v1 in the same run, (a) it calls more of the gold-vs-poison
   conflicts at the threshold that calls 5% of the agreement pairs
   (``python -m research.conflict_pairs --models "" runs/nli-all-cpu``, fit), and (b) its
   mean accuracy over the held-out sets of ``python -m benchmarks.eval_nli --limit 500`` is
   not more than a point below v1's.
2. **Round:** ``nli-all-cpu``, the default config with these weights, every pair scored afresh;
   rule :data:`research.quarantine_conflicts.NO_LOSS_GAIN_GARAG` against the committed
   scoreboard (v1).

    python -m research.conflict_pairs --models "" runs/nli-all-cpu
    python -m benchmarks.eval_nli --model runs/nli-all-cpu \
        --baseline mirage_core/models/mirage-nli-minilm-l6 --names v1,all --variants fp32 --limit 500
    # only if the screen passes:
    mkdir -p research/results/nli-all && cp benchmarks/results/scoreboard.json \
        research/results/nli-all/default.json
    nice python -m benchmarks.scoreboard --model runs/nli-all-cpu --no-paper --families all \
        --family-n 20 --adaptive dispersed,paraphrase,synonym --adaptive-n 20 \
        --out research/results/nli-all/nli-all-cpu
    python -m research.nli_all report research/results/nli-all/*.json
"""

from __future__ import annotations

import sys

from research.quarantine_conflicts import model_round_main

main = model_round_main(__doc__, ["nli-all-cpu"])

if __name__ == "__main__":
    sys.exit(main())
