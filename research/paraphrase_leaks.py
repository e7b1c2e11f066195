"""Which polluted claims a request candidate delivers on biogen-dev, and the close paraphrases
beside each, fit split, MIXED and FULL (a diagnostic; it changes nothing).

For every polluted claim a passing verdict delivers: the edit that made it, then its closest
claims of other domains with their cosine, whether they are in S* (``*``), whether the NLI
model read the pair inside the verdict (``read``) and the model's entailment / contradiction
probabilities both ways (scored here, from the pair store).

    python -m research.paraphrase_leaks [--k 20] [--candidate requests-paraphrase-veto]
"""

from __future__ import annotations

import argparse
import json
from pathlib import Path

import numpy as np

from benchmarks._pair_store import stored_models
from benchmarks.scoreboard import biogen
from mirage_core import Mirage, MirageConfig
from mirage_core.evaluation.measures import claim_pollution
from mirage_core.evaluation.splits import split_queries
from research.corroborated_first import CANDIDATES


def main(argv: list[str] | None = None) -> int:
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--k", type=int, default=20)
    p.add_argument("--candidate", default="requests-paraphrase-veto")
    p.add_argument("--neighbours", type=int, default=3)
    p.add_argument("--biogen", default="../shared/data/biogen-dev/biogen-dev.jsonl")
    args = p.parse_args(argv)
    change = json.loads((CANDIDATES / f"{args.candidate}.json").read_text())
    nli, embedder = stored_models()
    mirage = Mirage(MirageConfig.from_dict(change), nli=nli, embedder=embedder)
    ds = biogen(Path(args.biogen), args.k, None, 0)
    fit = set(split_queries([i.qid for i in ds.instances], 0.5, 0)[0])
    print(f"biogen-dev k = {args.k}, fit split, candidate {args.candidate}")
    leaks = unread = 0
    for inst in (i for i in ds.instances if i.qid in fit and i.regime != "clean"):
        v = mirage.defend(inst.query, inst.passages)
        if not v.passed:
            continue
        bad = claim_pollution(inst, v.claims)
        n = len(v.claims)
        read = set((v.graph.premise * n + v.graph.hypothesis).tolist())
        vectors = np.asarray(embedder.embed([c.text for c in v.claims]), dtype=np.float64)
        vectors /= np.maximum(np.linalg.norm(vectors, axis=1, keepdims=True), 1e-12)
        for i in (i for i in v.selected if bad[i]):
            leaks += 1
            c = v.claims[i]
            item = inst.items[c.passage_index]
            edits = "; ".join(f"{e.kind} {e.original!r} → {e.replacement!r}" for e in item.edits)
            print(f"\n{inst.regime} {inst.family} q{inst.qid} [{i}] {c.domain}: {c.text[:180]}")
            print(f"  edit: {edits}")
            cos = vectors @ vectors[i]
            others = [j for j in np.argsort(-cos) if v.claims[j].domain != c.domain]
            for j in others[: args.neighbours]:
                was_read = (i * n + j) in read or (j * n + i) in read
                unread += int(not was_read and cos[j] >= 0.8)
                fwd, bwd = nli.predict([v.claims[j].text, c.text], [c.text, v.claims[j].text])
                print(
                    f"  cos {cos[j]:.2f} [{j}]{'*' if j in v.selected else ' '} "
                    f"{'read  ' if was_read else 'unread'} e/c {fwd[0]:.2f}/{fwd[2]:.2f} "
                    f"back {bwd[0]:.2f}/{bwd[2]:.2f} {v.claims[j].domain}: {v.claims[j].text[:120]}"
                )
    print(f"\npolluted claims delivered: {leaks}; unread neighbours at cosine ≥ 0.8: {unread}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
