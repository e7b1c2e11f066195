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

**Third candidate** (declared after the first's round and the second's screen, before any
figure of it was seen): the first's round lost clean pass everywhere (gpe-k10 92% → 52%) with
clean-vs-clean pairs called contradiction at κ 0.8 rising 0.2% → 6.1%: the model calls
contradictions at higher probabilities altogether, and κ was fit to v1. ``nli-swaps-cpu-kappa``
is the first candidate with κ refit by a rule that reads no scoreboard row: the lowest κ on a
0.01 grid from 0.80 at which the candidate calls no larger share of
``research.conflict_pairs``' agreement pairs (fit) than v1 calls at 0.8 (``python -m
research.nli_swaps kappa``, which writes ``research/candidates/nli-swaps-cpu-kappa.json``).
Same rule, judged with the first; its run reads the first's pairs from the pair store.

    python -m research.nli_swaps kappa
    nice python -m benchmarks.scoreboard --model runs/nli-swaps-cpu \
        --config research/candidates/nli-swaps-cpu-kappa.json --no-paper --families all \
        --family-n 20 --adaptive dispersed,paraphrase,synonym --adaptive-n 20 \
        --out research/results/nli-swaps/nli-swaps-cpu-kappa

**Fourth candidate** (declared after the first's round, before any figure of it was seen):
the first called reworded pairs contradictions when one side states more than the other
(VitaminC "supports" pairs read in reverse, 5.6% → 38.9%), since its contradictions were
such pairs. ``nli-swaps-contrast-cpu`` puts each swapped pair beside its unswapped source
pair in the same order (entailment premise first, neutral hypothesis first), 7,000 of each:
``python -m training --mix abr-swaps-contrast --init runs/nli-abr-cpu --out
runs/nli-swaps-contrast-cpu --device cpu --batch-size 32 --lr 3e-5 --epochs 1 --threads
auto``. Same screen, plus (c): compatible pairs called contradiction (argmax) not above v1's;
its round (κ 0.8, the default config) under the same rule, into
``research/results/nli-swaps/nli-swaps-contrast-cpu``.

**Fifth candidate** (declared after the fourth's round, before any figure of it was seen):
every swapped-fact model called more of the honest agreement pairs contradictions at κ 0.8
than v1 (1.6–5.3% against 0.2%), and each such call cost clean passes. Those pairs are two
sentences on one topic that state different facts ("announced the engagement in December
2024" / "married on September 27, 2025"); the "related but different" neutral pairs that
teach them as neutral also taught away v1's contradictions between attack pages.
``nli-swaps-teacher-cpu`` keeps v1's own reading of them instead: the fourth candidate's mix
plus 8,000 pairs of two different sentences of one training page (content-word overlap at
most 0.6, never two revisions of one sentence) whose targets are v1's probabilities
(:mod:`training.teacher`): ``python -m training --mix abr-swaps-teacher --init
runs/nli-abr-cpu --teacher mirage_core/models/mirage-nli-minilm-l6 --out
runs/nli-swaps-teacher-cpu --device cpu --batch-size 32 --lr 3e-5 --epochs 1 --threads
auto``. Same screen (a), (b), (c), plus (d): at most 0.5% of the agreement pairs (fit)
called at κ 0.8 (v1 0.2%; the κ-refit candidate, which kept v1's clean passes, 0.1%; the
fourth, which lost them, 1.6%). Its round (κ 0.8, the default config) under the same rule,
into ``research/results/nli-swaps/nli-swaps-teacher-cpu``.

**Sixth candidate** (declared after the fifth's screen, which failed (d) with 0.8% of the
agreement pairs called at κ 0.8, before any round figure of it was seen):
``nli-swaps-teacher-cpu-kappa``, the fifth's weights with κ refit by the third candidate's
rule (``python -m research.nli_swaps kappa runs/nli-swaps-teacher-cpu``, which writes
``research/candidates/nli-swaps-teacher-cpu-kappa.json``). The third candidate's refit had to
go to 0.98, where its gains were gone; the fifth ranks conflicts over agreement pairs as
well (14.5% recall at 5% agreement called, fit) with half the fourth's agreement pairs above
0.8, so its refit should stay nearer 0.8. Its round runs without the fifth's at 0.8, under
the same rule:

    python -m research.nli_swaps kappa runs/nli-swaps-teacher-cpu
    nice python -m benchmarks.scoreboard --model runs/nli-swaps-teacher-cpu \
        --config research/candidates/nli-swaps-teacher-cpu-kappa.json --no-paper --families all \
        --family-n 20 --adaptive dispersed,paraphrase,synonym --adaptive-n 20 \
        --out research/results/nli-swaps/nli-swaps-teacher-cpu-kappa
"""

from __future__ import annotations

import json
import sys

import numpy as np

from research.corroborated_first import CANDIDATES
from research.quarantine_conflicts import model_round_main

#: model folder -> the config file its κ refit writes
KAPPA_FILES = {
    "runs/nli-swaps-cpu": CANDIDATES / "nli-swaps-cpu-kappa.json",
    "runs/nli-swaps-teacher-cpu": CANDIDATES / "nli-swaps-teacher-cpu-kappa.json",
}
KAPPA_GRID = np.round(np.arange(0.80, 0.995, 0.01), 2)

round_main = model_round_main(
    __doc__,
    [
        "nli-swaps-cpu",
        "nli-v1-swaps-cpu",
        "nli-swaps-cpu-kappa",
        "nli-swaps-contrast-cpu",
        "nli-swaps-teacher-cpu",
        "nli-swaps-teacher-cpu-kappa",
    ],
)


def refit_kappa(v1_agreement: np.ndarray, agreement: np.ndarray) -> float:
    """The lowest κ of :data:`KAPPA_GRID` at which ``agreement`` (the candidate's p_contra)
    is called no more often than v1 calls ``v1_agreement`` at 0.8; the grid's top otherwise."""
    target = float(np.mean(v1_agreement >= 0.8))
    for kappa in KAPPA_GRID:
        if float(np.mean(agreement >= kappa)) <= target:
            return float(kappa)
    return float(KAPPA_GRID[-1])


def kappa_main(argv: list[str]) -> int:
    import argparse

    from mirage_core.nli.transformers_nli import TransformersNLI
    from research.conflict_pairs import add_pair_args, collect_pairs, p_contra

    p = argparse.ArgumentParser(prog="python -m research.nli_swaps kappa")
    p.add_argument("model", nargs="?", choices=sorted(KAPPA_FILES), default="runs/nli-swaps-cpu")
    add_pair_args(p)
    args = p.parse_args(argv)
    candidate, kappa_file = args.model, KAPPA_FILES[args.model]
    _, agreement_pairs = collect_pairs(args)["fit"]
    v1 = p_contra(TransformersNLI(None, batch_size=64), agreement_pairs)
    cand = p_contra(TransformersNLI(candidate, batch_size=64), agreement_pairs)
    kappa = refit_kappa(v1, cand)
    print(
        f"agreement pairs (fit): {len(agreement_pairs)}; v1 calls {np.mean(v1 >= 0.8):.2%} at "
        f"0.8; {candidate} calls {np.mean(cand >= 0.8):.2%} at 0.8, "
        f"{np.mean(cand >= kappa):.2%} at the refit κ {kappa:.2f}"
    )
    kappa_file.write_text(
        json.dumps({"method": {"kappa": kappa}}, indent=2) + "\n", encoding="utf-8"
    )
    print(f"wrote {kappa_file}")
    return 0


def main(argv: list[str] | None = None) -> int:
    argv = sys.argv[1:] if argv is None else argv
    if argv[:1] == ["kappa"]:
        return kappa_main(argv[1:])
    return round_main(argv)


if __name__ == "__main__":
    sys.exit(main())
