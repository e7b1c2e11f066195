"""poisonedrag-variants attack families, on tiny hand-written files in their formats."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from mirage_core.evaluation.datasets import load_dataset
from mirage_core.evaluation.measures import contains_answer
from mirage_core.evaluation.poisonedrag import VARIANTS, load_poisonedrag
from mirage_core.pollution import PollutedPassage

TEST_DATA = Path(__file__).resolve().parents[2] / "data"
QUERIES = json.loads((TEST_DATA / "poisonedrag" / "nq_queries.json").read_text())
GOLDEN = (TEST_DATA / "poisonedrag" / "nq_golden.txt").read_text().split("\n")


def _write(path: Path, rows: list[dict]) -> None:
    path.write_text("".join(json.dumps(r) + "\n" for r in rows), encoding="utf-8")


@pytest.fixture
def data_dir(tmp_path, monkeypatch):
    """``poisonedrag/`` (the committed slice) and a ``poisonedrag-variants/`` written here."""
    (tmp_path / "poisonedrag").symlink_to(TEST_DATA / "poisonedrag")
    var = tmp_path / "poisonedrag-variants"
    var.mkdir()
    gem, gem100, gemx, garag, blind = [], [], [], [], []
    for i, q in enumerate(QUERIES):
        base = {k: q[k] for k in ("id", "question", "correct answer", "incorrect answer")}
        wrong = q["incorrect answer"]
        gem.append({**base, "adv_texts": [f"Short note {j}: it was {wrong}." for j in range(5)]})
        gem100.append(
            {**base, "adv_texts": [f"Item {j}. The answer is {wrong}." for j in range(25)]}
        )
        other = f"Other{i}"
        stated = [f"Some forum post says {other} for sure." for _ in range(3)] + [
            "A review with no answer at all."
        ] * 22
        gemx.append(
            {
                **base,
                "incorrect answer": None,
                "adv_texts": stated,
                "incorrect statements": [
                    "Here are 10 short, plausible but incorrect answers to the question:",
                    f"{other}, definitely.",
                    f"{q['correct answer']} is wrong here",  # names the correct answer: dropped
                ],
            }
        )
        if i < 3:  # the last question has no GARAG rows: skipped
            gold = f"Typo source {i}: the answer is {q['correct answer']}."
            garag += [
                {
                    "query": q["question"],
                    "ground_truth": "A gold without the answer.",
                    "adversarial_document": "A golb withuot teh answer.",
                },
                *[
                    {
                        "query": q["question"],
                        "ground_truth": gold,
                        "adversarial_document": gold.replace("answer", f"answre{j}"),
                    }
                    for j in range(2)
                ],
            ]
        blind += [
            {
                "query": q["question"],
                "ground_truth": GOLDEN[i],
                "adversarial_document": f"Blind {j}: some doubt surrounds this question.",
            }
            for j in range(3)
        ]
    for name, rows in (
        ("gemini", gem),
        ("gemini_100", gem100),
        ("gemini_100_x", gemx),
        ("garag", garag),
        ("blind", blind),
    ):
        _write(var / f"nq_{name}.jsonl", rows)
    monkeypatch.setenv("MIRAGE_DATA_DIR", str(tmp_path))
    return tmp_path


def _by(ds, regime):
    return {i.qid: i for i in ds.instances if i.regime == regime}


def test_gemini_families(data_dir):
    ds = load_dataset("poisonedrag-nq:gemini", limit=4)
    assert ds.name == "poisonedrag-nq:gemini" and ds.n_queries == 4
    for q, inst in zip(QUERIES, _by(ds, "mixed").values(), strict=True):
        assert inst.family == "gemini" and inst.n_polluted == 5 and len(inst.items) == 6
        assert inst.incorrect == (q["incorrect answer"],)
        gold = [it for it in inst.items if not isinstance(it, PollutedPassage)]
        assert [g.text for g in gold] == [GOLDEN[QUERIES.index(q)].strip()]
    a = load_poisonedrag("nq", limit=4, adaptive="gemini_100", seed=0)
    b = load_poisonedrag("nq", limit=4, adaptive="gemini_100", seed=0)
    c = load_poisonedrag("nq", limit=4, adaptive="gemini_100", seed=1)
    texts = [[p.text for p in i.passages] for i in _by(a, "full").values()]
    assert texts == [[p.text for p in i.passages] for i in _by(b, "full").values()]
    assert texts != [[p.text for p in i.passages] for i in _by(c, "full").values()]
    assert all(len(t) == 5 and len(set(t)) == 5 for t in texts)


def test_gemini_100_x_wrong_answers_from_the_statements(data_dir):
    ds = load_dataset("poisonedrag-nq:gemini_100_x", limit=4)
    for i, inst in enumerate(_by(ds, "full").values()):
        assert inst.incorrect == (f"Other{i}",)  # preamble and the correct-answer clause dropped
        assert len(inst.items) == 5
        # the poisons that state the answer are taken first (3 of them), the rest filled
        assert sum(contains_answer(p.text, inst.incorrect) for p in inst.passages) == 3


def test_garag_and_blind(data_dir):
    garag = load_dataset("poisonedrag-nq:garag", limit=4)
    assert garag.n_queries == 3 and garag.settings["skipped"] == 1
    assert not _by(garag, "full")  # typo'd copies alone are no lie: MIXED only
    for i, inst in enumerate(_by(garag, "mixed").values()):
        gold = [it.text for it in inst.items if not isinstance(it, PollutedPassage)]
        assert gold == [f"Typo source {i}: the answer is {QUERIES[i]['correct answer']}."]
        assert inst.n_polluted == 2 and inst.incorrect == () and inst.family == "garag"
    blind = load_dataset("poisonedrag-nq:blind", limit=4)
    for inst in _by(blind, "full").values():
        assert inst.n_polluted == 3 and inst.incorrect == ()
    assert all(i.n_polluted == 3 and len(i.items) == 4 for i in _by(blind, "mixed").values())


def test_missing_variant_file(tmp_path, monkeypatch):
    (tmp_path / "poisonedrag").symlink_to(TEST_DATA / "poisonedrag")
    monkeypatch.setenv("MIRAGE_DATA_DIR", str(tmp_path))
    for family in VARIANTS:
        with pytest.raises(FileNotFoundError, match=family):
            load_dataset(f"poisonedrag-nq:{family}", limit=1)
