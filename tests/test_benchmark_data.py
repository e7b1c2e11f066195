"""The benchmark data vendored in the repository loads as the scoreboard expects."""

from __future__ import annotations

import json

from benchmarks import shortqa
from mirage_core.evaluation.measures import contains_answer
from mirage_core.pollution import PollutedPassage


def test_shortqa_regimes_and_labels() -> None:
    rows = [json.loads(x) for x in shortqa.DATA.read_text(encoding="utf-8").splitlines() if x]
    ds = shortqa.load_shortqa(seed=0)
    assert ds.n_queries == len(rows) == len({r["question"].lower() for r in rows})
    by_key = {(i.qid, i.regime): i for i in ds.instances}
    for row in rows:
        clean, full, mixed = (by_key[(row["id"], r)] for r in ("clean", "full", "mixed"))
        honest = {p["text"] for p in row["honest"]}
        poisons = {p["text"] for p in row["poisons"]}
        # texts are passed through unchanged; labels say which passages are planted
        assert {p.text for p in clean.passages} == honest and clean.n_polluted == 0
        assert {p.text for p in full.passages} == poisons and full.n_polluted == 5
        assert {p.text for p in mixed.passages} == honest | poisons and mixed.n_polluted == 5
        for item, passage in zip(mixed.items, mixed.passages, strict=True):
            assert isinstance(item, PollutedPassage) == (passage.text in poisons)
        # every passage is its own publisher
        domains = {p.resolved_domain(i) for i, p in enumerate(mixed.passages)}
        assert len(domains) == 10
        # the answers are where the metrics look for them
        assert sum(contains_answer(t, clean.correct) for t in honest) >= 3
        assert all(contains_answer(t, clean.incorrect) for t in poisons)
        assert not any(contains_answer(t, clean.correct) for t in poisons)
        assert not any(contains_answer(t, clean.incorrect) for t in honest)


def test_shortqa_order_is_seeded() -> None:
    def order(seed: int) -> list[str]:
        ds = shortqa.load_shortqa(seed=seed, limit=5)
        return [i.qid + p.text[:20] for i in ds.instances for p in i.passages]

    assert order(0) == order(0)
    assert order(0) != order(1)
