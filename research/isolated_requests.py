"""Whether a request for an account is scored on the isolated signals
(``coordination_isolated_signals=()`` among ``MethodSettings.request_overrides``; declared as
``coordination_isolated_in_requests=False`` before the request settings became one mapping).

On biogen-dev's fit split at k = 10, 5 of 13 clean page sets fall back because the whole
evidence is flagged as one planted group (``python -m research.longform_reasons --k 10``):
with no passage outside it, the group is scored on answer focus, novelty and cosine against
honest coverage of *questions* (isolated threshold 0.572), and ten pages that tell one
person's life score 1.1–2.5 on novelty and cosine alone. With ``False``, a request for an
account ("Tell me a bio of X?") whose evidence is one group is scored on the group signals it
has (answer focus, at the group threshold); questions keep isolated scoring, so PoisonedRAG's
poisons alone are scored as before.

Candidate (a change to ``MirageConfig()``, declared before it ran): ``requests-unisolated``.
Rule: :data:`research.quarantine_conflicts.NO_LOSS_GAIN` as amended (complete rows), against
the committed scoreboard.

    python -m research.isolated_requests write
    bash research/run_full_round.sh research/results/isolated-requests research/candidates/requests-unisolated.json
    python -m research.isolated_requests report research/results/isolated-requests/*.json
"""

from __future__ import annotations

from typing import Any

from mirage_core.method_settings import REQUEST_OVERRIDES
from research.quarantine_conflicts import complete_rows_main

ISOLATED: dict[str, dict[str, Any]] = {
    "requests-unisolated": {"method": {"request_overrides": REQUEST_OVERRIDES}},
}


main = complete_rows_main(__doc__, ISOLATED)


if __name__ == "__main__":
    raise SystemExit(main())
