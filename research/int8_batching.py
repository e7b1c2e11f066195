"""Does a verdict depend on the batch its NLI pairs share? `python -m research.int8_batching`

Scores PoisonedRAG NQ inputs twice with the packaged model, each query alone (`defend`, one NLI
call per query) and all queries merged (`defend_many`, one call: pairs of different queries share
forward passes, as behind `mirage serve`'s dynamic batcher), in int8 and in full precision, and
counts the verdicts that differ and the largest probability change. Dynamic int8 quantizes a
forward pass's activations with one scale per batch, so full precision is what `mirage serve`
runs by default.
"""

from __future__ import annotations

import argparse

import numpy as np

from mirage_core import Mirage, MirageConfig
from mirage_core.evaluation.poisonedrag import load_poisonedrag
from mirage_core.nli import TransformersNLI
from mirage_core.nli.base import CallableNLI


def recording_engine(nli: TransformersNLI, seen: dict[tuple[str, str], np.ndarray]) -> Mirage:
    """An engine on ``nli`` that records every pair's scores in ``seen``."""

    def score(premises: list[str], hypotheses: list[str]) -> np.ndarray:
        out = nli.predict(premises, hypotheses)
        seen.update(zip(zip(premises, hypotheses, strict=True), out, strict=True))
        return out

    return Mirage(MirageConfig(), nli=CallableNLI(score, cache_size=0))


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--queries", type=int, default=24)
    parser.add_argument("--threads", type=int, default=2)
    args = parser.parse_args()
    ds = load_poisonedrag("nq", limit=args.queries, seed=0)
    queries = [i.query for i in ds.instances]
    passages = [i.passages for i in ds.instances]
    print(f"{len(ds.instances)} PoisonedRAG NQ inputs ({ds.n_queries} queries × 3 regimes)")
    for quantize in (True, False):
        nli = TransformersNLI(
            None, device="cpu", cache_size=0, quantize=quantize, torch_threads=args.threads
        )
        seen_alone: dict[tuple[str, str], np.ndarray] = {}
        seen_merged: dict[tuple[str, str], np.ndarray] = {}
        engine = recording_engine(nli, seen_alone)
        alone = [engine.defend(q, p) for q, p in zip(queries, passages, strict=True)]
        merged = recording_engine(nli, seen_merged).defend_many(queries, passages)
        differ = sum(
            (a.decision, a.selected) != (b.decision, b.selected)
            for a, b in zip(alone, merged, strict=True)
        )
        dp = max(float(np.abs(seen_alone[k] - seen_merged[k]).max()) for k in seen_alone)
        name = "int8" if quantize else "full precision"
        print(
            f"{name}: {differ} of {len(alone)} verdicts differ between alone and merged; "
            f"max |Δp| {dp:.1e}"
        )


if __name__ == "__main__":
    main()
