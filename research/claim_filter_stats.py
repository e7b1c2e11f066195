"""What the claim filter removes from real web evidence (gpe-eval benign passages, k = 10,
first 1,200 characters, as the scoreboard feeds them): sentences per reason and a seeded
sample of each, to read by eye.

    python -m research.claim_filter_stats > research/results/claim_filter_stats.txt
"""

from __future__ import annotations

import json
import random
from collections import Counter, defaultdict

from mirage_core.claim_filter import NON_CLAIM_REASONS
from mirage_core.claims import extract_claims
from mirage_core.evaluation.gpe import _gpe_passage, find_gpe_file


def main() -> int:
    kept = 0
    reasons: Counter = Counter()
    samples: dict[str, list[str]] = defaultdict(list)
    with open(find_gpe_file(), encoding="utf-8") as fh:
        for line in fh:
            rec = json.loads(line)
            benign = (rec.get("evidence_environment") or {}).get("benign") or []
            passages = [_gpe_passage(b, 1200) for b in benign[:10]]
            skipped: list[dict] = []
            claims = extract_claims(
                passages,
                indices=list(range(len(passages))),
                sources=[str(i) for i in range(len(passages))],
                domains=[str(i) for i in range(len(passages))],
                scores=[1.0] * len(passages),
                min_tokens=2,
                max_claims_per_passage=64,
                max_chars=20_000,
                filter_non_claims=True,
                skipped=skipped,
            )
            kept += len(claims)
            for s in skipped:
                reasons[s["reason"]] += 1
                text = passages[s["passage"]].text[s["start"] : s["end"]]
                samples[s["reason"]].append(" ".join(text.split()))
    total = kept + sum(reasons.values())
    print(
        f"gpe-eval benign sentences with ≥ 2 content tokens: {total}; kept as claims {kept} "
        f"({kept / total:.1%})"
    )
    print()
    print("| reason | sentences | share of all |")
    print("|---|---|---|")
    for r in NON_CLAIM_REASONS:
        print(f"| {r} | {reasons[r]} | {reasons[r] / total:.1%} |")
    rng = random.Random(0)
    for r in NON_CLAIM_REASONS:
        pool = samples[r]
        print(f"\n{r}: seeded sample of {min(12, len(pool))}")
        for text in rng.sample(pool, min(12, len(pool))):
            short = text if len(text) <= 140 else text[:60] + " [...] " + text[-75:]
            print(f"  {short!r}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
