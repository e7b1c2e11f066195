"""Facts compared in their equivalent forms (``fact_forms="equivalent"``).

Fact coverage and the answer-slot rule compare fact tokens as written, so "3 km" and "3,000
metres", "two" and "2", "García" and "Garcia" are different facts: two honest pages that give
one fact in different forms neither corroborate each other in it nor agree on it
(``research/results/value_conflicts.md`` lists such honest pairs: units, number words).
:mod:`mirage_core.fact_forms` reads accents, number words, scale words, percentages, units and
ISO dates alike; it only ever adds forms to what a text states.

Rules (declared with the candidate, before it ran), each against the committed scoreboard on
the fit split: :data:`research.quarantine_conflicts.NO_LOSS_GAIN_GARAG` and
:data:`research.request_gate.DELIVERED_SHARE`. Both ask that nothing be lost; the first reads
the gain on the attack families, the second in claims delivered per passing clean query on
biogen. The candidate is adopted if it qualifies under either; otherwise ``"tokens"`` stays.

    python -m research.equivalent_forms write
    bash research/run_full_round.sh research/results/equivalent-forms \\
        research/candidates/facts-equivalent-forms.json
    python -m research.equivalent_forms report research/results/equivalent-forms/*.json

Third round, ``facts-ordinals-approximate`` (the default config; the reading is in
:mod:`mirage_core.fact_forms`): ordinal number words state their number ("thirteenth" → 13,
"twenty-first" → 21, as "13th" and "21st" do), and an approximate number agrees with the
numbers it rounds ("c. 500" / "505"; the second round's reading, taken out when it moved no
figure). Rule :data:`NO_LOSS_ASKED` (declared with the round, before it ran): a reading that
typed-fact comparison is asked to make is adopted when the fit split loses nothing of any kind
(:func:`research.relevant_pairs.every_loss`); no gain is asked, since a form the scoreboard's
sets seldom hold cannot show one. The earlier rules' picks are printed beside it.

    bash research/run_full_round.sh research/results/equivalent-forms-3 \\
        research/candidates/facts-ordinals-approximate.json
    python -m research.equivalent_forms report research/results/equivalent-forms-3/*.json
"""

from __future__ import annotations

import sys
from collections.abc import Iterable
from typing import Any

from research.candidate_cli import Judgement, candidates_main, choose
from research.quarantine_conflicts import no_loss_gain
from research.relevant_pairs import every_loss
from research.request_gate import DELIVERED_SHARE, delivered_share

NO_LOSS_ASKED = {"declared": "2026-12-06"}
#: the round :data:`NO_LOSS_ASKED` was declared for
THIRD_ROUND = "facts-ordinals-approximate"

CANDIDATES: dict[str, dict[str, Any]] = {
    "facts-equivalent-forms": {"method": {"fact_forms": "equivalent"}},
    "facts-approximate-numbers": {},
    THIRD_ROUND: {},
}


def asked(run: dict[str, Any], default: dict[str, Any]) -> Judgement:
    """:data:`NO_LOSS_ASKED`: nothing lost of any kind on the fit split; the gain is 1."""
    shown, _, _ = delivered_share(run, default)
    return shown, every_loss(run, default), 1.0


def asked_report(candidates: Iterable[str], runs: dict[str, dict[str, Any]]) -> list[str]:
    """A round decided by :data:`NO_LOSS_ASKED` over ``candidates``, the pick of
    :data:`~research.quarantine_conflicts.NO_LOSS_GAIN_GARAG` printed beside it."""
    names = [name for name in candidates if name in runs]
    title = f"rule NO_LOSS_ASKED ({NO_LOSS_ASKED['declared']}), fit split"
    out = choose(title, names, runs, asked)
    return [*out, "", "beside it, not chosen on:", *no_loss_gain(runs, names, True, True)]


def asked_round(argv: list[str] | None, doc: str, candidates: dict[str, dict[str, Any]]) -> int:
    """The command line (``write`` / ``report``) of a round decided by :data:`NO_LOSS_ASKED`
    against the committed scoreboard."""
    return candidates_main(
        list(argv if argv is not None else sys.argv[1:]),
        doc,
        candidates,
        lambda runs: asked_report(candidates, runs),
    )


def report(runs: dict[str, dict[str, Any]]) -> list[str]:
    names = [name for name in CANDIDATES if name in runs]
    out = no_loss_gain(runs, names, complete_rows=True, with_garag=True)
    title = f"rule DELIVERED_SHARE ({DELIVERED_SHARE['declared']}), fit split"
    out = [*out, "", *choose(title, names, runs, delivered_share)]
    if THIRD_ROUND in runs:
        title = f"rule NO_LOSS_ASKED ({NO_LOSS_ASKED['declared']}), fit split"
        out += ["", *choose(title, [THIRD_ROUND], runs, asked)]
    return out


def main(argv: list[str] | None = None) -> int:
    return candidates_main(
        list(argv if argv is not None else sys.argv[1:]), __doc__, CANDIDATES, report
    )


if __name__ == "__main__":
    raise SystemExit(main())
