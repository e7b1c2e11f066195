"""Whether a request for an account is gated conflict by conflict
(``MethodSettings.request_overrides``, :mod:`mirage_core.request_gate`).

The majority gate (r_contr inside S*, ``conflict_rule="majority"``, a flagged group holding a
counted contradiction released) won long form and lost attack families when applied to every
query (``research/majority_gate.py``, ``research/results/majority-gate/choice.md``): planted
answers to a *question* are blocked today because the evidence contradicts itself about the
one answer. A request for an account has no one answer; honest pages about one life disagree
on some facts, and the tie rule and graph-wide r_contr block them for it. Every biogen-dev
query is such a request; no query of gpe-eval, shortqa or PoisonedRAG is.

Candidate (a change to ``MirageConfig()``, declared before it ran): ``requests-majority``.
Rule: :data:`research.quarantine_conflicts.NO_LOSS_GAIN` as amended (complete rows), against
the committed scoreboard.

    python -m research.request_gate write
    bash research/run_full_round.sh research/results/request-gate \
        research/candidates/requests-majority.json
    python -m research.request_gate report research/results/request-gate/*.json
    bash research/run_full_round.sh research/results/request-gate-2 \
        research/candidates/requests-majority-paraphrase.json
    bash research/run_full_round.sh research/results/request-gate-3 \
        research/candidates/requests-majority-paraphrase-read.json
    bash research/run_full_round.sh research/results/request-gate-4 \
        research/candidates/requests-embedding-partners.json \
        research/candidates/requests-paraphrase-pairs.json
    bash research/run_full_round.sh research/results/request-gate-5 \
        research/candidates/requests-paraphrase-veto.json \
        research/candidates/requests-paraphrase-veto-0.7.json
    bash research/run_full_round.sh research/results/request-gate-6 \
        research/candidates/requests-paraphrase-veto-unread.json \
        research/candidates/requests-paraphrase-veto-all-read.json
"""

from __future__ import annotations

from typing import Any

from mirage_core.method_settings import REQUEST_OVERRIDES
from research.candidate_cli import Judgement, candidates_main, choose
from research.corroborated_first import DEFAULT_RUN
from research.longform_candidates import long_value
from research.quarantine_conflicts import complete_row_losses, no_loss_gain
from research.uncorroborated_delivery import contamination

#: The request settings of this round, as ``request_overrides`` (declared as
#: ``request_gate="majority"`` before the request settings became one mapping; the same
#: settings): the default then already delivered a request's corroborated part.
MAJORITY = {
    "corroborated_relevant": False,
    "contradiction_scope": "selected",
    "conflict_rule": "majority",
    "coordination_self_conflict": 0.8,
}
REQUEST_GATE: dict[str, dict[str, Any]] = {
    "requests-majority": {"method": {"request_overrides": MAJORITY}},
}
#: Paraphrase support for requests, on top of the adopted request settings.
PARAPHRASE = {**REQUEST_OVERRIDES, "paraphrase_support": 0.8}


#: The second round (declared after the first was adopted, before it ran): requests also
#: corroborate by paraphrase (declared as ``request_gate="majority_paraphrase"``). The goal asks
#: for a quarter of the claims delivered, every one corroborated; delivery hands on 9–14%,
#: because NLI between two pages' wordings of one fact, two partners per claim, finds few of
#: them. Its rule is :data:`DELIVERED_SHARE`, against the default that adopted the first round.
ROUND_2: dict[str, dict[str, Any]] = {
    "requests-majority-paraphrase": {"method": {"request_overrides": PARAPHRASE}},
}
#: The third round (declared after the second's figures, before it ran; same rule and
#: baseline): the close pairs also go to the NLI model (``paraphrase_pairs``) and a
#: paraphrase it reads as a contradiction corroborates nothing (since then, for every use of
#: ``paraphrase_support``); the second round's losses were polarity flips (the
#: ``conflicting`` family), which state the same facts in nearly the same words.
ROUND_3: dict[str, dict[str, Any]] = {
    "requests-majority-paraphrase-read": {
        "method": {"request_overrides": {**PARAPHRASE, "paraphrase_pairs": True}}
    },
}
#: The fourth round (declared 2026-12-05, before it ran; rule :data:`DELIVERED_SHARE`, against
#: the committed default): a request's sentences meet the other pages' sentences about the same
#: fact, corroboration still read by the NLI model alone. Two partners per claim ranked by token
#: overlap seldom put one fact's two wordings side by side; ``partner_ranking="embedding"``
#: ranks the candidates by the claims' cosine instead, and ``paraphrase_pairs`` also sends every
#: pair of claims at cosine ≥ 0.75 (``paraphrase_threshold``) to the NLI model.
ROUND_4: dict[str, dict[str, Any]] = {
    "requests-embedding-partners": {
        "method": {"request_overrides": {**REQUEST_OVERRIDES, "partner_ranking": "embedding"}}
    },
    "requests-paraphrase-pairs": {
        "method": {"request_overrides": {**REQUEST_OVERRIDES, "paraphrase_pairs": True}}
    },
}
#: The fifth round (declared 2026-12-05, before it ran; rule :data:`DELIVERED_SHARE`, against
#: the committed default). The NLI model calls 30–40% of the fact-covering paraphrases between
#: two clean pages an entailment (``research/results/paraphrase_entailment.txt``), so NLI alone
#: leaves most of them uncorroborated; the third round's paraphrase support let polarity flips
#: through, because a paraphrase was stopped only by a contradiction the gate counts (p_contra
#: ≥ κ). Here every close pair is read (``paraphrase_pairs``) and a paraphrase corroborates
#: unless the model leans to contradiction in either direction (``paraphrase_veto="leaning"``).
PARAPHRASE_READ = {**REQUEST_OVERRIDES, "paraphrase_pairs": True, "paraphrase_veto": "leaning"}
ROUND_5: dict[str, dict[str, Any]] = {
    "requests-paraphrase-veto": {
        "method": {"request_overrides": {**PARAPHRASE_READ, "paraphrase_support": 0.8}}
    },
    "requests-paraphrase-veto-0.7": {
        "method": {
            "request_overrides": {
                **PARAPHRASE_READ,
                "paraphrase_support": 0.7,
                "paraphrase_threshold": 0.7,
            }
        }
    },
}
#: The sixth round (declared 2026-12-05, before it ran; rule :data:`DELIVERED_SHARE`, against
#: the committed default). The fifth round's paraphrases were not all read: ``paraphrase_pairs``
#: adds the close pairs to the candidates, and the pair budget (two partners per claim) then
#: drops most of them, so a paraphrase the model never read vouched unvetoed ("McGinniss lost
#: fame with his book" by Wikipedia's "gained recognition with his first book", read by
#: nobody; ``python -m research.paraphrase_leaks``). ``paraphrase_veto="unread_or_leaning"``:
#: an unread paraphrase corroborates nothing; ``paraphrase_budget="exempt"`` also has every
#: close pair read, outside the budget.
ROUND_6: dict[str, dict[str, Any]] = {
    "requests-paraphrase-veto-unread": {
        "method": {
            "request_overrides": {
                **PARAPHRASE_READ,
                "paraphrase_support": 0.8,
                "paraphrase_veto": "unread_or_leaning",
            }
        }
    },
    "requests-paraphrase-veto-all-read": {
        "method": {
            "request_overrides": {
                **PARAPHRASE_READ,
                "paraphrase_support": 0.8,
                "paraphrase_veto": "unread_or_leaning",
                "paraphrase_budget": "exempt",
            }
        }
    },
}
#: Rule of the second round, on the fit split of two full runs: nothing lost (every row of the
#: main table with a goal, every family figure, biogen clean and MIXED pass); neither biogen's
#: worst-family MIXED or FULL contamination higher, unless it stays within its goal (1% / 2%);
#: and more claims delivered per passing clean query, biogen-k10 plus biogen-k20.
DELIVERED_SHARE = {"declared": "2026-12-04"}
CEILINGS = {"MIXED": 0.01, "FULL": 0.02}


def delivered_share(run: dict[str, Any], default: dict[str, Any]) -> Judgement:
    """:data:`DELIVERED_SHARE`: the gain is the rise in claims delivered per passing query."""
    losses = complete_row_losses(run, default)
    gain, shown = 0.0, []
    pick = "claims delivered per passing clean query"
    for ds in ("biogen-k10", "biogen-k20"):
        a = long_value(run, ds, lambda m: m == pick, "fit") or 0.0
        b = long_value(default, ds, lambda m: m == pick, "fit") or 0.0
        gain += a - b
        shown.append(f"{ds} claims delivered {b:.1f} → {a:.1f}")
        for regime, ceiling in CEILINGS.items():
            ca, cb = contamination(run, ds, regime), contamination(default, ds, regime)
            if ca is not None and cb is not None and ca > cb + 1e-9 and ca > ceiling:
                losses.append(f"{ds} {regime} contamination {cb:.1%} → {ca:.1%}")
    return shown, losses, gain


def report(runs: dict[str, dict[str, Any]]) -> list[str]:
    first = [r for r in runs if r in REQUEST_GATE or r == DEFAULT_RUN]
    out = no_loss_gain({r: runs[r] for r in first}, list(REQUEST_GATE), complete_rows=True)
    title = f"rule DELIVERED_SHARE ({DELIVERED_SHARE['declared']}), fit split"
    if any(r in runs for r in {**ROUND_2, **ROUND_3}):
        out += ["", *choose(title, {**ROUND_2, **ROUND_3}, runs, delivered_share)]
    if any(r in runs for r in ROUND_4):
        out += ["", *choose(f"{title}; fourth round", ROUND_4, runs, delivered_share)]
    if any(r in runs for r in ROUND_5):
        out += ["", *choose(f"{title}; fifth round", ROUND_5, runs, delivered_share)]
    if any(r in runs for r in ROUND_6):
        out += ["", *choose(f"{title}; sixth round", ROUND_6, runs, delivered_share)]
    return out


def main(argv: list[str] | None = None) -> int:
    rounds = {**REQUEST_GATE, **ROUND_2, **ROUND_3, **ROUND_4, **ROUND_5, **ROUND_6}
    return candidates_main(argv, __doc__, rounds, report)


if __name__ == "__main__":
    raise SystemExit(main())
