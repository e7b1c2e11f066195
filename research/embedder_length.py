"""The embedder reads the first 128 tokens of a text, the length all-MiniLM-L6-v2 was trained
at, instead of 256.

The default config embeds every passage of a question with all-MiniLM-L6-v2 for its
coordination signals, and at k = 20 that pass is a quarter of ``defend()``'s time
(``benchmarks/perf_engine.py``). The model was trained on sequences of at most 128 tokens
(its model card); 256 is what sentence-transformers set for inference later. Short passages
(PoisonedRAG's, most snippets) do not change; a long page is read up to about its first
hundred words.

Candidate ``embedder-128`` is the default config with the embedder truncating at 128 tokens
(``MiniLMEmbedder(max_length=128)``, ``OnnxEmbedder(max_length=128)``); it is no config field,
so its run is the scoreboard with ``--embedder-max-length 128`` (the run records the length).

Rule (:data:`NO_LOSS_FASTER`, declared before the candidate ran): on the fit split of two full
runs against the committed scoreboard, nothing lost of any kind (every row of the main table
with a goal, every attack-family figure, biogen clean and MIXED pass, every long-form
contamination figure, claims delivered per passing clean query: the loss sets of
``NO_LOSS_FEWER_PAIRS`` and ``NO_LOSS_SIMPLER``); the gain is the share of ``defend()`` time
saved per query at k = 20 on perf_engine's queries (the ONNX runtime, NLI and embedding caches
off, the two lengths interleaved query by query, p50 over the runs). A change that only saves
time qualifies when it saves at least 5%: less is within this machine's noise.

    python -m benchmarks.scoreboard --no-paper --families all \\
        --adaptive dispersed,paraphrase,synonym --embedder-max-length 128 \\
        --out research/results/embedder-length/embedder-128
    cp benchmarks/results/scoreboard.json research/results/embedder-length/default.json
    python -m research.embedder_length report research/results/embedder-length/*.json
"""

from __future__ import annotations

import sys
from functools import cache
from typing import Any

import numpy as np

from research.candidate_cli import Judgement, candidates_main, choose
from research.relevant_pairs import every_loss

NO_LOSS_FASTER = {"declared": "2026-12-06", "k": 20, "queries": 8, "repeats": 2, "min_gain": 0.05}
#: What a run without the key was embedded with (the scoreboard's runs before it recorded it).
STORED_LENGTH = 256


@cache
def defend_times(lengths: tuple[int, ...]) -> dict[int, float]:
    """p50 seconds of ``defend()`` per embedder length at the rule's k, the lengths interleaved
    query by query on one NLI backend (ONNX Runtime, caches off)."""
    from benchmarks.perf_engine import queries
    from mirage_core import Mirage, MirageConfig
    from mirage_core.embeddings import OnnxEmbedder
    from mirage_core.nli import OnnxNLI

    k = NO_LOSS_FASTER["k"]
    items = queries(NO_LOSS_FASTER["queries"], k, 0)
    nli = OnnxNLI(cache_size=0)
    engines = {
        n: Mirage(MirageConfig(), nli=nli, embedder=OnnxEmbedder(max_length=n, cache_size=0))
        for n in lengths
    }
    first_query, first_passages = items[0]
    for engine in engines.values():  # warm up both sessions before any timing
        engine.defend(first_query, first_passages[:k])
    times: dict[int, list[float]] = {n: [] for n in lengths}
    for r in range(NO_LOSS_FASTER["repeats"]):
        for i, (q, passages) in enumerate(items):
            order = lengths if (i + r) % 2 == 0 else lengths[::-1]
            for n in order:
                times[n].append(engines[n].defend(q, passages[:k]).timings["total"])
    return {n: float(np.median(t)) for n, t in times.items()}


def faster(run: dict[str, Any], default: dict[str, Any]) -> Judgement:
    """:data:`NO_LOSS_FASTER`."""
    losses = every_loss(run, default)
    before = int(default.get("embedder_max_length", STORED_LENGTH))
    after = int(run.get("embedder_max_length", STORED_LENGTH))
    t = defend_times(tuple(sorted({before, after}, reverse=True)))
    saved = 1.0 - t[after] / t[before]
    shown = [
        f"defend p50 at k = {NO_LOSS_FASTER['k']}: {t[before]:.3f} s ({before} tokens) → "
        f"{t[after]:.3f} s ({after} tokens), {100 * saved:.1f}% saved"
    ]
    return shown, losses, saved if saved >= NO_LOSS_FASTER["min_gain"] else 0.0


def report(runs: dict[str, dict[str, Any]]) -> list[str]:
    title = f"rule NO_LOSS_FASTER ({NO_LOSS_FASTER['declared']}), fit split"
    return choose(title, ["embedder-128"], runs, faster)


def main(argv: list[str] | None = None) -> int:
    return candidates_main(argv if argv is not None else sys.argv[1:], __doc__, {}, report)


if __name__ == "__main__":
    raise SystemExit(main())
