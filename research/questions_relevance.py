"""Whether a question's conflicts are weighed by the query relevance of their claims
(``MethodSettings.relevance``).

Relevance weighting ("lexical": each contradiction edge counts in r_contr by the lower share of
the query's words its two claims hold) did not earn its place by leave-one-family-out
(``research/ablation.py``: without it, report, poisons alone blocked 75.6% → 79.8%, wrong
answer delivered 18.7% → 13.7%) and stayed for biogen-k10's clean and MIXED pass, which
dropped without it. Long form is now a request for an account, gated with its own settings;
a request keeps lexical relevance here.

Candidate (a change to ``MirageConfig()``, declared before it ran): ``questions-no-relevance``:
``relevance="none"``, and ``"lexical"`` among the request settings. Rule:
:data:`research.quarantine_conflicts.NO_LOSS_GAIN` as amended (complete rows), against the
committed scoreboard.

    python -m research.questions_relevance write
    bash research/run_full_round.sh research/results/questions-relevance \
        research/candidates/questions-no-relevance.json
    python -m research.questions_relevance report research/results/questions-relevance/*.json
"""

from __future__ import annotations

from typing import Any

from mirage_core.method_settings import REQUEST_OVERRIDES
from research.quarantine_conflicts import complete_rows_main

RELEVANCE: dict[str, dict[str, Any]] = {
    "questions-no-relevance": {
        "method": {
            "relevance": "none",
            "request_overrides": {**REQUEST_OVERRIDES, "relevance": "lexical"},
        }
    },
}


main = complete_rows_main(__doc__, RELEVANCE)


if __name__ == "__main__":
    raise SystemExit(main())
