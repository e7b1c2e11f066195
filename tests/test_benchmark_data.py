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


def test_shortqa_one_holds_the_honest_passages_and_one_poison() -> None:
    rows = {
        r["id"]: r
        for r in (json.loads(x) for x in shortqa.DATA.read_text(encoding="utf-8").splitlines() if x)
    }
    ds = shortqa.load_shortqa_one(seed=0)
    assert ds.name == "shortqa-one" and ds.n_queries == len(rows) == len(ds.instances)
    picked = set()
    for inst in ds.instances:
        row = rows[inst.qid]
        poisons = {p["text"] for p in row["poisons"]}
        texts = [p.text for p in inst.passages]
        assert inst.regime == "mixed" and inst.n_polluted == 1 and len(texts) == 6
        assert set(texts) - poisons == {p["text"] for p in row["honest"]}
        (poison,) = set(texts) & poisons
        picked.add(row["poisons"].index(next(p for p in row["poisons"] if p["text"] == poison)))
        for item, text in zip(inst.items, texts, strict=True):
            assert isinstance(item, PollutedPassage) == (text == poison)
    # the poison is a seeded pick, not always the first one
    assert len(picked) > 1
    again = shortqa.load_shortqa_one(seed=0)
    assert [p.text for i in again.instances for p in i.passages] == [
        p.text for i in ds.instances for p in i.passages
    ]
    other = shortqa.load_shortqa_one(seed=1)
    assert [p.text for i in other.instances for p in i.passages] != [
        p.text for i in ds.instances for p in i.passages
    ]
