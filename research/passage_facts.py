"""Fact coverage read in the supporter's whole page (``fact_scope="passage"``).

A supporter corroborates a claim only if it states every number, month and name of the claim
(fact coverage), in its own sentence by default. An honest page names its subject once and
then writes "the tower", "he", "the company": its sentence that says "he was born in 1952"
cannot vouch for "Smith was born in 1952" on another page, though its page says Smith. On the
long-form sets a quarter of the claims is the goal and 12.8 of 109 (biogen-k10) and 30.5 of
214 (biogen-k20) are delivered per passing clean query (fit). Reading the supporter's page
was last measured before delivery narrowed S* to its corroborated part (2026-12-04, as
``corroborated-first-passage-facts``). The risk: the pollution protocol takes a swapped value
from the query's own passages, so the supporter's page may state it elsewhere.

Candidates (declared before they ran): ``requests-passage-facts`` (a request for an account
reads the page; questions keep the sentence) and ``passage-facts`` (every query reads the
page). Rule: :data:`research.request_gate.DELIVERED_SHARE` against the committed scoreboard,
fit split (nothing lost; neither biogen's worst-family contamination higher unless within its
goal; more claims delivered per passing clean query); the larger rise wins.

    python -m research.passage_facts write
    bash research/run_full_round.sh research/results/passage-facts \\
        research/candidates/requests-passage-facts.json research/candidates/passage-facts.json
    python -m research.passage_facts report research/results/passage-facts/*.json

A second round (declared after the first's figures, before it ran; same rule and baseline):
the first round's polluted claims were swapped names and numbers that the supporter's page
states elsewhere. A page refers back to a *name* ("he", "the tower"), not to a number, so
``fact_scope="names_in_passage"`` reads the supporter's page for the claim's names and its
sentence for numbers and months. Candidates ``requests-names-in-passage`` and
``names-in-passage``.

    bash research/run_full_round.sh research/results/passage-facts-2 \
        research/candidates/requests-names-in-passage.json research/candidates/names-in-passage.json
    python -m research.passage_facts report research/results/passage-facts-2/*.json
"""

from __future__ import annotations

import sys
from typing import Any

from mirage_core.method_settings import REQUEST_OVERRIDES
from research.candidate_cli import candidates_main, choose
from research.request_gate import DELIVERED_SHARE, delivered_share

CANDIDATES: dict[str, dict[str, Any]] = {
    "requests-passage-facts": {
        "method": {"request_overrides": {**REQUEST_OVERRIDES, "fact_scope": "passage"}}
    },
    "passage-facts": {"method": {"fact_scope": "passage"}},
    "requests-names-in-passage": {
        "method": {"request_overrides": {**REQUEST_OVERRIDES, "fact_scope": "names_in_passage"}}
    },
    "names-in-passage": {"method": {"fact_scope": "names_in_passage"}},
}


def main(argv: list[str] | None = None) -> int:
    def report(runs: dict[str, dict[str, Any]]) -> list[str]:
        title = f"rule DELIVERED_SHARE ({DELIVERED_SHARE['declared']}), fit split"
        return choose(title, [c for c in CANDIDATES if c in runs], runs, delivered_share)

    return candidates_main(argv if argv is not None else sys.argv[1:], __doc__, CANDIDATES, report)


if __name__ == "__main__":
    raise SystemExit(main())
