"""NLI reads a question's pairs only where both claims bear on the query by more than a word
(``pair_min_relevance``).

With ``pair_relevant_only`` (the default for questions) NLI reads only the pairs both of whose
claims hold a word of the query: the gate weighs a contradiction by the lower relevance of its
two claims, and at 0 a pair can never decide r_contr. A claim that holds one word of a
ten-word statement query weighs 0.2 (``relevance_saturation`` 0.5), and at large k most
claims come from pages further from the query, so pairs per claim grow with k (×5.9 pairs from
k = 5 to 20, against claims ×5.3 on ``benchmarks/perf_engine.py``'s queries). These
candidates read only the pairs whose less relevant claim weighs more than a floor.

Candidates (declared before they ran): ``pairs-relevance-quarter`` (0.25) and
``pairs-relevance-half`` (0.5) (``pair_min_relevance``; requests keep every pair; named
without a dot, since a run's file takes the name of its config's file). Rule:
:data:`research.relevant_pairs.NO_LOSS_FEWER_PAIRS` against the committed scoreboard, fit
split: nothing lost of any kind, and the larger share of NLI pairs saved at k = 20 wins.

    python -m research.pair_relevance write
    bash research/run_full_round.sh research/results/pair-relevance \\
        research/candidates/pairs-relevance-quarter.json research/candidates/pairs-relevance-half.json
    python -m research.pair_relevance report research/results/pair-relevance/*.json
"""

from __future__ import annotations

from typing import Any

from research.relevant_pairs import fewer_pairs_round

CANDIDATES: dict[str, dict[str, Any]] = {
    "pairs-relevance-quarter": {"method": {"pair_min_relevance": 0.25}},
    "pairs-relevance-half": {"method": {"pair_min_relevance": 0.5}},
}


def main(argv: list[str] | None = None) -> int:
    return fewer_pairs_round(argv, __doc__, CANDIDATES)


if __name__ == "__main__":
    raise SystemExit(main())
