"""NLI scoring: a batch of queries is one backend call; a failed call is retried query by query
only where that can tell the queries apart."""

from __future__ import annotations

import asyncio

import pytest

from mirage_core import CallableNLI, Mirage, MirageConfig, Passage
from tests.conftest import broken, fragile_nli, lexical_nli

QUERY = "What is the capital of France?"
PAGES = [
    Passage("Paris is the capital of France.", source="https://a.example/paris"),
    Passage("The capital of France is Paris.", source="https://b.example/paris"),
]
BROKEN = broken(PAGES)


def counting_engine(calls: list[int]) -> Mirage:
    """An engine whose backend records each call's pair count and fails on "BROKEN"."""

    def predict(premises, hypotheses):
        calls.append(len(premises))
        return fragile_nli(premises, hypotheses)

    return Mirage(MirageConfig(coordination="none"), nli=CallableNLI(predict, cache_size=0))


def test_a_batch_is_one_call_when_it_succeeds():
    calls: list[int] = []
    verdicts = counting_engine(calls).defend_many([QUERY, QUERY], [PAGES, PAGES[::-1]])
    assert len(calls) == 1 and all(v.passed for v in verdicts)


def test_each_query_reads_its_own_scores_from_the_shared_call():
    calls: list[int] = []
    engine = counting_engine(calls)
    moved = Passage("The capital of France is Lyon.", source="https://c.example/lyon")
    evidence = [PAGES, [*PAGES, moved], [PAGES[0], moved]]  # 2, 6 and 2 directed pairs
    together = engine.defend_many([QUERY] * 3, evidence)
    alone = [engine.defend(QUERY, pages) for pages in evidence]
    assert len(calls) == 1 + len(evidence)
    for batched, single in zip(together, alone, strict=True):
        assert batched.graph.probs.tolist() == single.graph.probs.tolist()
        assert (batched.decision, batched.reason) == (single.decision, single.reason)
    assert [v.decision for v in together] == ["verified", "fallback", "verified"]
    # the call's time is shared by pair count
    per_pair = [v.timings["nli"] / len(v.graph.probs) for v in together]
    assert max(per_pair) == pytest.approx(min(per_pair), rel=1e-9)


def test_a_failed_batch_is_retried_once_per_query():
    calls: list[int] = []
    verdicts = counting_engine(calls).defend_many([QUERY, QUERY], [PAGES, BROKEN])
    assert [v.decision for v in verdicts] == ["verified", "fallback"]
    assert len(calls) == 3 and calls[0] == calls[1] + calls[2]


def test_a_lone_query_that_fails_is_not_sent_again():
    calls: list[int] = []
    verdict = counting_engine(calls).defend(QUERY, BROKEN)
    assert verdict.decision == "fallback" and "NLI failed" in verdict.reason
    assert len(calls) == 1


def test_the_async_path_awaits_the_backends_own_apredict():
    class AsyncBackend:  # a remote server: waited on by the event loop, never in a thread
        def __init__(self):
            self.awaited = 0

        def predict(self, premises, hypotheses):
            raise AssertionError("a backend with apredict is never called in a thread")

        async def apredict(self, premises, hypotheses):
            self.awaited += 1
            return lexical_nli(premises, hypotheses)

    backend = AsyncBackend()
    engine = Mirage(MirageConfig(coordination="none"), nli=backend)
    verdicts = asyncio.run(engine.adefend_many([QUERY, QUERY], [PAGES, PAGES[::-1]]))
    assert backend.awaited == 1 and all(v.passed for v in verdicts)
