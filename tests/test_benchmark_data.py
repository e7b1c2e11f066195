"""The benchmark data vendored in the repository loads as the scoreboard expects."""

from __future__ import annotations

import json

import pytest

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


@pytest.mark.parametrize("planted", [1, 2])
def test_shortqa_few_holds_the_honest_passages_and_a_few_poisons(planted) -> None:
    rows = {
        r["id"]: r
        for r in (json.loads(x) for x in shortqa.DATA.read_text(encoding="utf-8").splitlines() if x)
    }
    ds = shortqa.load_shortqa_few(planted=planted, seed=0)
    assert ds.name == shortqa.FEW_NAMES[planted]
    assert ds.n_queries == len(rows) == len(ds.instances)
    picked = set()
    for inst in ds.instances:
        row = rows[inst.qid]
        poisons = [p["text"] for p in row["poisons"]]
        texts = [p.text for p in inst.passages]
        assert inst.regime == "mixed" and inst.n_polluted == planted
        assert len(texts) == 5 + planted
        assert set(texts) - set(poisons) == {p["text"] for p in row["honest"]}
        chosen = set(texts) & set(poisons)
        assert len(chosen) == planted
        picked |= {poisons.index(t) for t in chosen}
        for item, text in zip(inst.items, texts, strict=True):
            assert isinstance(item, PollutedPassage) == (text in chosen)
    # the poisons are a seeded pick, not always the first ones
    assert len(picked) > planted

    def texts(seed: int) -> list[str]:
        got = shortqa.load_shortqa_few(planted=planted, seed=seed)
        return [p.text for i in got.instances for p in i.passages]

    assert texts(0) == [p.text for i in ds.instances for p in i.passages] != texts(1)


def test_shortqa_few_names_its_sizes() -> None:
    with pytest.raises(ValueError, match="planted must be one of"):
        shortqa.load_shortqa_few(planted=3)
