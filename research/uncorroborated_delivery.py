"""What a passing verdict delivers when no corroborated part qualifies
(``MethodSettings.uncorroborated_delivery``).

On biogen-dev's fit split almost all of the contamination the default still delivers comes
from passing verdicts whose S* is handed on whole because no corroborated part qualified: at
k = 20, 1 of 38 passing MIXED sets, 4.7% of its 215 claims polluted, against 0.3% of the 1,135
claims of the sets delivery narrowed (FULL: 9.3% against 1.0%); at k = 10, 6 of 27 (4.3%
against 0.0%). With ``"most_relevant"`` such a verdict delivers only S*'s claims most relevant
to the query: the sentence that answers a short question, not every sentence no second source
vouches for. No route changes.

Candidate (a change to ``MirageConfig()``, declared before it ran):
``uncorroborated-most-relevant``.

Rule :data:`NO_LOSS_CONTAMINATION` (declared with it): on the fit split, of two full scoreboard
runs, no row of the main table with a goal worse, no short-QA row more than 2 points worse, no
attack family figure worse, no biogen clean or MIXED pass lower; and the worst-family MIXED
contamination of biogen-k10 plus biogen-k20 lower in sum, with neither higher.

    python -m research.uncorroborated_delivery write
    bash research/uncorroborated_delivery_run.sh
    python -m research.uncorroborated_delivery report research/results/uncorroborated-delivery/*.json
"""

from __future__ import annotations

from typing import Any

from research.candidate_cli import Judgement, candidates_main, choose
from research.corroborated_first import short_losses
from research.longform_candidates import long_value
from research.quarantine_conflicts import every_row_losses, family_losses, pass_losses

UNCORROBORATED: dict[str, dict[str, Any]] = {
    "uncorroborated-most-relevant": {"method": {"uncorroborated_delivery": "most_relevant"}},
}
#: The second round (declared after the first's figures, before it ran; same rule and
#: baseline): on biogen-dev's fit split the sets handed on whole mostly held a corroborated
#: part (4 of 61 claims, 9 of 104) that missed S*'s most relevant claims, so
#: ``corroborated_relevant`` handed on all of S*. ``"part_and_most_relevant"`` delivers that
#: part with S*'s most relevant claims instead; where nothing is corroborated, S* whole.
ROUND_2: dict[str, dict[str, Any]] = {
    "uncorroborated-part-and-most-relevant": {
        "method": {"uncorroborated_delivery": "part_and_most_relevant"}
    },
}
#: The third round (declared after the second's figures, before it ran; same rule and
#: baseline): the relevance requirement is what hands a bio's S* on whole, and a request for
#: an account has no answer sentence to keep. A request's ``corroborated_relevant=False``
#: (``request_overrides``; declared as ``relevant_in_requests=False`` before the request
#: settings became one mapping) delivers the corroborated part of a request's S* whether or
#: not it holds the most relevant claims; questions keep the requirement
#: (:mod:`mirage_core.query_kind`).
ROUND_3: dict[str, dict[str, Any]] = {
    "requests-corroborated-part": {
        "method": {"request_overrides": {"corroborated_relevant": False}}
    },
}
ROUNDS = {**UNCORROBORATED, **ROUND_2, **ROUND_3}
NO_LOSS_CONTAMINATION = {"declared": "2026-12-04"}


def contamination(run: dict[str, Any], ds: str, regime: str = "MIXED") -> float | None:
    return long_value(run, ds, lambda m: m.startswith(f"{regime} contamination"), "fit")


def no_loss_contamination(run: dict[str, Any], default: dict[str, Any]) -> Judgement:
    """:data:`NO_LOSS_CONTAMINATION`: the gain is the fall in biogen MIXED contamination."""
    losses = every_row_losses(run, default) + short_losses(run, default)
    losses += family_losses(run, default) + pass_losses(run, default)
    gain, shown = 0.0, []
    for ds in ("biogen-k10", "biogen-k20"):
        a, b = contamination(run, ds), contamination(default, ds)
        fa, fb = contamination(run, ds, "FULL"), contamination(default, ds, "FULL")
        shown.append(f"{ds} MIXED {b:.1%} → {a:.1%}, FULL {fb:.1%} → {fa:.1%}")
        gain += b - a
        if a > b + 1e-9:
            losses.append(f"{ds} MIXED contamination {b:.1%} → {a:.1%}")
    return shown, losses, gain


def report(runs: dict[str, dict[str, Any]]) -> list[str]:
    title = f"rule NO_LOSS_CONTAMINATION ({NO_LOSS_CONTAMINATION['declared']}), fit split"
    return choose(title, ROUNDS, runs, no_loss_contamination)


def main(argv: list[str] | None = None) -> int:
    return candidates_main(argv, __doc__, ROUNDS, report)


if __name__ == "__main__":
    raise SystemExit(main())
