"""Coordination signals on honest encyclopedic snippets that agree: Climate-FEVER.

Each Climate-FEVER claim comes with five evidence sentences from English Wikipedia (annotated
SUPPORTS / REFUTES / NOT_ENOUGH_INFO). Taken as a query (the claim) and five one-sentence
passages, publisher = the Wikipedia article, they are short honest evidence of the encyclopedic
kind; the sets where at least three sentences SUPPORT the claim are honest snippets that agree,
the case the coordination signals are most likely to mistake for planted copies. Measured only
(nothing is fit here): the share of sets the shipped models flag, with and without their length
floor (``CoordinationModel.min_tokens``).

    python -m research.coordination_wikipedia > research/results/coordination_wikipedia.txt
"""

from __future__ import annotations

import json
from dataclasses import replace
from pathlib import Path

import numpy as np

from benchmarks._pair_store import PACKAGED_VECTORS, PersistentEmbedder
from mirage_core.claims import content_tokens
from mirage_core.coordination import (
    DEFAULT_MODEL,
    TEXT_MODEL,
    candidate_groups,
    evidence_profile,
    group_signals,
)

DATA = Path(__file__).resolve().parents[2] / "shared/data/nli/tdiggelm+climate-fever-dataset"


def main() -> int:
    from mirage_core.embeddings import MiniLMEmbedder

    path = DATA / "dataset" / "climate-fever.jsonl"
    rows = [json.loads(line) for line in path.read_text().splitlines() if line.strip()]
    emb = PersistentEmbedder(
        MiniLMEmbedder(), Path("benchmarks/.cache/vectors.sqlite"), PACKAGED_VECTORS
    )
    models = {
        "text": TEXT_MODEL,
        "text, no floor": replace(TEXT_MODEL, min_tokens=0.0),
        "embedding": DEFAULT_MODEL,
        "embedding, no floor": replace(DEFAULT_MODEL, min_tokens=0.0),
    }
    pools: dict[str, list[list]] = {"all sets": [], "≥ 3 sentences SUPPORT the claim": []}
    tokens: list[int] = []
    for r in rows:
        ev = r["evidences"]
        texts = [e["evidence"] for e in ev]
        domains = [e["article"] for e in ev]
        if len(set(domains)) < 3:  # a candidate group needs three publishers
            continue
        tokens += [len(content_tokens(t)) for t in texts]
        prof = evidence_profile(r["claim"], texts, domains, emb.embed(texts))
        groups = [group_signals(prof, m, a) for m, a in candidate_groups(prof)]
        pools["all sets"].append(groups)
        if sum(e["evidence_label"] == "SUPPORTS" for e in ev) >= 3:
            pools["≥ 3 sentences SUPPORT the claim"].append(groups)
    p10, p50, p90 = np.percentile(tokens, [10, 50, 90])
    print(
        "Climate-FEVER: claim + 5 Wikipedia evidence sentences, sets with ≥ 3 articles; "
        f"content tokens per sentence p10 / p50 / p90 = {p10:.0f} / {p50:.0f} / {p90:.0f}."
    )
    print()
    print("| honest sets | n | " + " | ".join(f"flagged: {m}" for m in models) + " |")
    print("|---|---|" + "---|" * len(models))
    for name, sets in pools.items():
        cells = [
            np.mean([any(m.score(g).flagged for g in groups) for groups in sets])
            for m in models.values()
        ]
        print(f"| {name} | {len(sets)} | " + " | ".join(f"{c:.1%}" for c in cells) + " |")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
