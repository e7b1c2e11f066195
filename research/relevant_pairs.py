"""NLI reads only the pairs a question's gate can weigh; a request keeps every pair
(``pair_relevant_only=True`` with ``request_overrides`` setting it back to ``False``).

The gate weighs a contradiction by the lower query relevance of its two claims, so a pair one
of whose claims holds no word of the query never decides r_contr. ``pairs-relevant-only-today``
(2026-12-05, ``research/statement_context.py``) moved no figure of the fit split with a goal
that ``NO_LOSS_GAIN_GARAG`` reads, and halved what a request delivers: an account's claims
corroborate each other on facts the query does not name. This candidate keeps the option
for questions only.

Rule (:data:`NO_LOSS_FEWER_PAIRS`, declared before the candidate ran): on the fit split of two
full runs against the committed scoreboard, nothing lost (every row of the main table with a
goal, every attack-family figure, biogen clean and MIXED pass) and no long-form row worse
(each pollution family's MIXED and FULL contamination not higher, claims delivered per passing
clean query not lower; biogen-k10, biogen-k20, gpe-longform); the gain is the share of NLI
pairs saved per query at k = 20 on ``benchmarks/perf_engine.py``'s queries (a counting NLI
double: nothing is scored). A change that only saves work qualifies when it saves some.

    python -m research.relevant_pairs write
    bash research/run_full_round.sh research/results/relevant-pairs \\
        research/candidates/pairs-relevant-only-questions.json
    python -m research.relevant_pairs report research/results/relevant-pairs/*.json
"""

from __future__ import annotations

import json
import sys
from functools import cache
from typing import Any

import numpy as np

from mirage_core.method_settings import REQUEST_OVERRIDES
from research.candidate_cli import Judgement, candidates_main, choose
from research.longform_candidates import long_value
from research.quarantine_conflicts import complete_row_losses

CANDIDATES: dict[str, dict[str, Any]] = {
    "pairs-relevant-only-questions": {
        "method": {
            "pair_relevant_only": True,
            "request_overrides": {**REQUEST_OVERRIDES, "pair_relevant_only": False},
        }
    },
}
NO_LOSS_FEWER_PAIRS = {"declared": "2026-12-06", "k": 20, "queries": 20}
LONG_SETS = ("biogen-k10", "biogen-k20", "gpe-longform")


def longform_losses(run: dict[str, Any], default: dict[str, Any]) -> list[str]:
    """Long-form rows of ``run`` worse than ``default``'s on the fit split."""
    out = []
    for ds in LONG_SETS:
        for r in default["longform"]:
            if r["dataset"] != ds or r["system"] != "mirage" or r["split"] != "fit":
                continue
            m, before = r["measure"], r["value"]
            higher_is_worse = "contamination" in m
            if before is None or not (higher_is_worse or m.startswith("claims delivered")):
                continue
            after = long_value(run, ds, lambda x, m=m: x == m, "fit")
            if after is None:
                continue
            if (after > before + 1e-9) if higher_is_worse else (after < before - 1e-9):
                out.append(f"{ds} {m} {before:.3g} → {after:.3g}")
    return out


def every_loss(run: dict[str, Any], default: dict[str, Any]) -> list[str]:
    """Whatever ``run`` loses against ``default`` on the fit split: every main-table row with a
    goal, every attack-family figure, biogen clean and MIXED pass
    (:func:`~research.quarantine_conflicts.complete_row_losses`) and every long-form row
    (:func:`longform_losses`). The loss set of the rules that ask for no loss of any kind
    (``NO_LOSS_FEWER_PAIRS``, ``NO_LOSS_SIMPLER``, ``NO_LOSS_FASTER``)."""
    return complete_row_losses(run, default) + longform_losses(run, default)


@cache
def pairs_at_k(config_json: str) -> float:
    """NLI pairs per query (both directions) at the rule's k on perf_engine's queries, under
    the configuration ``config_json`` (a run's recorded ``config``)."""
    from benchmarks.perf_engine import CountingNLI, queries
    from mirage_core import Mirage, MirageConfig

    k = NO_LOSS_FEWER_PAIRS["k"]
    items = queries(NO_LOSS_FEWER_PAIRS["queries"], k, 0)
    config = MirageConfig.from_dict(json.loads(config_json))
    verdicts = Mirage(config, nli=CountingNLI()).defend_many(
        [q for q, _ in items], [p[:k] for _, p in items]
    )
    return float(np.mean([2 * v.candidate_stats["nli_pairs"] for v in verdicts]))


def fewer_pairs(run: dict[str, Any], default: dict[str, Any]) -> Judgement:
    """:data:`NO_LOSS_FEWER_PAIRS`."""
    losses = every_loss(run, default)
    # each run records the whole configuration it ran with, so the round reads the same after
    # the candidate has become the default
    before = pairs_at_k(json.dumps(default["config"], sort_keys=True))
    after = pairs_at_k(json.dumps(run["config"], sort_keys=True))
    shown = [f"NLI pairs per query at k = {NO_LOSS_FEWER_PAIRS['k']}: {before:.1f} → {after:.1f}"]
    return shown, losses, 1.0 - after / max(before, 1e-9)


def fewer_pairs_round(
    argv: list[str] | None, doc: str | None, candidates: dict[str, dict[str, Any]]
) -> int:
    """The command line of a round judged by :data:`NO_LOSS_FEWER_PAIRS` against the committed
    scoreboard (``write`` / ``report``)."""

    def report(runs: dict[str, dict[str, Any]]) -> list[str]:
        title = f"rule NO_LOSS_FEWER_PAIRS ({NO_LOSS_FEWER_PAIRS['declared']}), fit split"
        return choose(title, list(candidates), runs, fewer_pairs)

    return candidates_main(argv if argv is not None else sys.argv[1:], doc, candidates, report)


def main(argv: list[str] | None = None) -> int:
    return fewer_pairs_round(argv, __doc__, CANDIDATES)


if __name__ == "__main__":
    raise SystemExit(main())
