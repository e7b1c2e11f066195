"""Stage 5: greedy maximization of F(S) = Σ s(c) + Σ_{edges in S} (w_supp − w_contr)."""

from __future__ import annotations

import numpy as np
from scipy import sparse

__all__ = ["greedy_select"]


def greedy_select(
    scores: np.ndarray, interaction: sparse.csr_matrix, eligible: np.ndarray | None = None
) -> list[int]:
    """Pick claims in order of largest marginal gain until no gain is positive.

    Δ(c|S) = s(c) + Σ_{j∈S} M[c, j]. The gain vector is kept and updated with one sparse row
    per pick, so the whole selection costs O(n + edges) numpy work per pick. Ties go to the
    lower claim index (``argmax`` takes the first).
    """
    gain = np.asarray(scores, dtype=np.float64).copy()
    available = np.ones(gain.size, dtype=bool) if eligible is None else eligible.astype(bool).copy()
    picked: list[int] = []
    while available.any():
        masked = np.where(available, gain, -np.inf)
        best = int(np.argmax(masked))
        if masked[best] <= 0:
            break
        picked.append(best)
        available[best] = False
        row = interaction.getrow(best)
        gain[row.indices] += row.data
    return picked
