"""The all-but-related NLI model taught that a reworded sentence with another value contradicts:
does it keep its gains on held-out NLI and the attack families, and win back the contradictions
between reworded reports that v1 finds and it lost?

The all-but-related model (``research/nli_all_but_related.py``) read held-out NLI better than v1
and met two more goals on the report split, but lost on attack-only pages: two pages that give
one event different dates, names or sources became compatible, and v1's contradiction between
them is what blocked those pages. Its training contradictions are minimal edits (one word
changed in an otherwise identical sentence), while its entailments include rewordings, so it
can learn that a reworded sentence never contradicts. Poisons are rewordings of the fact with
another value.

The candidate: ``python -m training --mix abr-swaps --init runs/nli-abr-cpu --out
runs/nli-swaps-cpu --device cpu --batch-size 32 --lr 3e-5 --epochs 1 --threads auto``: the
all-but-related model's weights, one epoch over about a fifth of its mix (replayed so that the
rest of its reading stays) and 10,000 swapped-fact pairs (:mod:`training.swapped_facts`: a
training entailment pair whose hypothesis has a value the premise states swapped, a
contradiction that keeps the pair's wording distance).

Declared before any figure of it was seen:

1. **Screen** (no scoreboard), against v1 in the same run: (a) more gold-vs-poison conflicts
   called at the threshold that calls 5% of the agreement pairs
   (``python -m research.conflict_pairs``, fit); (b) the mean accuracy over
   ``python -m benchmarks.eval_nli --limit 500``'s held-out sets not more than a point below
   v1's.
2. **Round:** ``nli-swaps-cpu``, the default config with these weights, every pair scored
   afresh; rule :data:`research.quarantine_conflicts.NO_LOSS_GAIN_GARAG` against the committed
   scoreboard (v1). The all-but-related model's run is printed beside it, not chosen on.

    python -m research.conflict_pairs --models "" runs/nli-swaps-cpu
    python -m benchmarks.eval_nli --model runs/nli-swaps-cpu \
        --baseline mirage_core/models/mirage-nli-minilm-l6 --names v1,swaps --variants fp32 --limit 500
    # only if the screen passes:
    mkdir -p research/results/nli-swaps && cp benchmarks/results/scoreboard.json \
        research/results/nli-swaps/default.json
    cp research/results/nli-abr/nli-abr-cpu.json research/results/nli-swaps/
    nice python -m benchmarks.scoreboard --model runs/nli-swaps-cpu --no-paper --families all \
        --family-n 20 --adaptive dispersed,paraphrase,synonym --adaptive-n 20 \
        --out research/results/nli-swaps/nli-swaps-cpu
    python -m research.nli_swaps report research/results/nli-swaps/*.json

**Second candidate** (declared with the first, before any figure of either was seen):
``nli-v1-swaps-cpu``, the same swapped-fact pairs on v1 instead: ``python -m training --mix
v1-swaps --init mirage_core/models/mirage-nli-minilm-l6 --out runs/nli-v1-swaps-cpu --device
cpu --batch-size 32 --lr 3e-5 --epochs 1 --threads auto`` (half the v1 mix, replayed, and
10,000 swapped-fact pairs), so that a loss of the first can be told apart from the
all-but-related model's own. Same screen; its round runs into
``research/results/nli-swaps/nli-v1-swaps-cpu``, under the same rule, both candidates judged
together (of two that qualify, the larger gain wins).
"""

from __future__ import annotations

import sys

from research.quarantine_conflicts import model_round_main

main = model_round_main(__doc__, ["nli-swaps-cpu", "nli-v1-swaps-cpu"])

if __name__ == "__main__":
    sys.exit(main())
