"""Whether a request for an account is gated conflict by conflict
(``MethodSettings.request_gate="majority"``, :mod:`mirage_core.request_gate`).

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
    bash research/request_gate_run.sh
    python -m research.request_gate report research/results/request-gate/*.json
"""

from __future__ import annotations

from typing import Any

from research.candidate_cli import candidates_main
from research.quarantine_conflicts import no_loss_gain

REQUEST_GATE: dict[str, dict[str, Any]] = {
    "requests-majority": {"method": {"request_gate": "majority"}},
}


def report(runs: dict[str, dict[str, Any]]) -> list[str]:
    return no_loss_gain(runs, list(REQUEST_GATE), complete_rows=True)


def main(argv: list[str] | None = None) -> int:
    return candidates_main(argv, __doc__, REQUEST_GATE, report)


if __name__ == "__main__":
    raise SystemExit(main())
