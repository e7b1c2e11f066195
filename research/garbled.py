"""Whether garbled passages are quarantined (``MethodSettings.garbled_threshold``).

GARAG's evidence is the gold passage and its typo'd copies from other publishers. The
coordination signals read the copies and the gold as one planted group, the whole evidence is
quarantined, and no set passes with the correct answer (0% on fit). A passage whose words are
largely misspelt (:mod:`mirage_core.garbled`) cannot be read by the NLI model; quarantined
like a planted passage and left out of the signals, it leaves the gold to be judged alone.

Threshold: on the fit split (``python -m research.garbled_shares``,
``research/results/garbled_shares.txt``) no honest passage of any set has more than 0.233 of
its lower-case words misspelt (one gpe-eval snippet; p99 at most 0.08), and every typo'd GARAG
copy at least 0.25; 0.3 keeps a margin on the honest side.

Candidate (a change to ``MirageConfig()``, declared before it ran): ``garbled-threshold``
(``garbled_threshold=0.3``). Rule: :data:`research.quarantine_conflicts.NO_LOSS_GAIN_GARAG`
(NO_LOSS_GAIN as amended, complete rows, with GARAG's correct passes in the family gain),
against the committed scoreboard; NO_LOSS_GAIN as amended is printed beside it.

    python -m research.garbled write
    bash research/run_full_round.sh research/results/garbled research/candidates/garbled-threshold.json
    python -m research.garbled report research/results/garbled/*.json

Second round (``ROUND_2``): ``garbled-conflicts-ignored`` (``garbled_conflicts="ignore"``): the
NLI model cannot read a garbled passage, and on the fit split the one GARAG set the adopted
default still blocks falls back on the copies' "contradictions" of the gold (r_contr 0.90).
Same rule, against the committed scoreboard of the default that adopted the first round.

    bash research/run_full_round.sh research/results/garbled-2 \
        research/candidates/garbled-conflicts-ignored.json
    python -m research.garbled report research/results/garbled-2/*.json
"""

from __future__ import annotations

from typing import Any

from research.candidate_cli import candidates_main
from research.quarantine_conflicts import no_loss_gain

GARBLED: dict[str, dict[str, Any]] = {
    "garbled-threshold": {"method": {"garbled_threshold": 0.3}},
}
#: The second round (declared after the first was adopted, before it ran), against the
#: default that adopted ``garbled-threshold``.
ROUND_2: dict[str, dict[str, Any]] = {
    "garbled-conflicts-ignored": {"method": {"garbled_conflicts": "ignore"}},
}


def report(runs: dict[str, dict[str, Any]]) -> list[str]:
    names = [n for n in (*GARBLED, *ROUND_2) if n in runs]
    return [
        *no_loss_gain(runs, names, complete_rows=True, with_garag=True),
        "",
        "beside it, the rule it amends:",
        *no_loss_gain(runs, names, complete_rows=True),
    ]


def main(argv: list[str] | None = None) -> int:
    return candidates_main(argv, __doc__, GARBLED | ROUND_2, report)


if __name__ == "__main__":
    raise SystemExit(main())
