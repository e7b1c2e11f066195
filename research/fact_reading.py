"""Which words of a claim are facts a supporter must state: a name's possessive, and a
sentence's capitalized first word.

Fact coverage asks a supporter to state every number, month and name of the claim
(:func:`mirage_core.corroboration.claim_facts`). Two misreadings block honest support on the
long-form sets: "McGinniss's" and "Nixon's" were tokens of their own, so a sentence naming
"McGinniss" did not state the "McGinniss's" of the claim; and a capitalized first word that is
not a stopword is read as a name, so "Additionally, …", "Despite …", "Nationality: …" ask the
supporter to state that word. On biogen-dev's fit CLEAN sets, 528 of 1,184 cross-source
support edges at k = 20 fail fact coverage; a possessive accounts for 36 of them and a first
word the evidence also writes in lower case for 57 (``/tmp`` count, no choice made).

Candidates (declared before they ran):

- ``facts-possessive``: the default configuration with ``fold`` reading "x's" as "x"
  (:mod:`mirage_core.fact_forms`, under ``fact_forms="equivalent"``; in the code for the
  round, taken out again if it does not qualify);
- ``facts-possessive-lower-initials``: the same with
  ``initial_word_facts="unless_written_lower"``.

Rules, each against the committed scoreboard on the fit split, both printed for both:
:data:`research.request_gate.DELIVERED_SHARE` (nothing lost, the larger rise in claims
delivered per passing clean biogen query wins) and
:data:`research.equivalent_forms.NO_LOSS_ASKED` (nothing lost of any kind; a name's variant is
part of what fact comparison is asked to read). ``initial_word_facts`` is adopted only under
``DELIVERED_SHARE``: which first words are names is a reading no one asked for by name, so it
must show the gain it is for. The possessive reading is adopted if either candidate qualifies
under either rule.

    python -m research.fact_reading write
    bash research/run_full_round.sh research/results/fact-reading \\
        research/candidates/facts-possessive.json \\
        research/candidates/facts-possessive-lower-initials.json
    python -m research.fact_reading report research/results/fact-reading/*.json

Neither qualified (``research/results/fact-reading/choice.md``) and both readings were taken
out of the engine; commit 6bc5e58 has them, which the round's runs need.
"""

from __future__ import annotations

import sys
from typing import Any

from research.candidate_cli import candidates_main, choose
from research.equivalent_forms import NO_LOSS_ASKED, asked
from research.request_gate import DELIVERED_SHARE, delivered_share

CANDIDATES: dict[str, dict[str, Any]] = {
    "facts-possessive": {},
    "facts-possessive-lower-initials": {"method": {"initial_word_facts": "unless_written_lower"}},
}


def report(runs: dict[str, dict[str, Any]]) -> list[str]:
    names = [name for name in CANDIDATES if name in runs]
    title = f"rule DELIVERED_SHARE ({DELIVERED_SHARE['declared']}), fit split"
    out = choose(title, names, runs, delivered_share)
    title = f"rule NO_LOSS_ASKED ({NO_LOSS_ASKED['declared']}), fit split"
    return [*out, "", *choose(title, names, runs, asked)]


def main(argv: list[str] | None = None) -> int:
    return candidates_main(
        list(argv if argv is not None else sys.argv[1:]), __doc__, CANDIDATES, report
    )


if __name__ == "__main__":
    raise SystemExit(main())
