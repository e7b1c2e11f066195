"""Dataset loaders on small slices."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from mirage_core.evaluation.datasets import load_dataset, load_jsonl
from mirage_core.evaluation.gpe import GPE_ATTACKS, find_gpe_file, load_gpe
from mirage_core.evaluation.instances import find_data_dir, subsample
from mirage_core.evaluation.poisonedrag import load_poisonedrag
from mirage_core.evaluation.splits import dataset_split
from mirage_core.pollution import PollutedPassage

#: The PoisonedRAG slice committed with the tests (four queries per set; see its PROVENANCE.md).
#: The full benchmark data stays outside the repository, under ``$MIRAGE_DATA_DIR``.
TEST_DATA = Path(__file__).resolve().parents[2] / "data"


@pytest.fixture
def test_data_dir(monkeypatch):
    """``$MIRAGE_DATA_DIR`` pointed at the committed slice, whatever lies beside the clone."""
    monkeypatch.setenv("MIRAGE_DATA_DIR", str(TEST_DATA))
    return TEST_DATA


def test_subsample_is_seeded():
    assert subsample(10, None, 0) == list(range(10))
    a = subsample(100, 5, 1)
    assert a == subsample(100, 5, 1) and a == sorted(a) and len(set(a)) == 5
    assert a != subsample(100, 5, 2)


def test_subsample_grows_around_its_pinned_questions():
    pinned = subsample(100, 20, 0)
    grown = subsample(100, 50, 0, pinned=20)
    assert set(pinned) < set(grown) and len(grown) == 50 and grown == sorted(grown)
    assert grown == subsample(100, 50, 0, pinned=20)
    # a plain larger draw is another sample (here seed 1's): it can leave questions out
    assert not set(subsample(100, 20, 1)) <= set(subsample(100, 50, 1))
    assert set(subsample(100, 20, 1)) < set(subsample(100, 50, 1, pinned=20))
    assert subsample(100, 20, 0, pinned=20) == pinned
    assert subsample(100, 10, 0, pinned=20) == subsample(100, 10, 0)


def test_a_grown_set_keeps_its_pinned_questions_split(test_data_dir):
    # seed 1: splitting the three questions afresh would move a pinned one to the other side
    small = load_poisonedrag("nq", limit=2, seed=1)
    grown = load_poisonedrag("nq", limit=3, seed=1, pinned=2)
    pinned = set(grown.settings["pinned_qids"])
    qids = {i.qid for i in grown.instances}
    assert pinned == {i.qid for i in small.instances} and len(qids) == 3
    for inst in small.instances:  # the pinned questions' evidence is the same
        twin = next(i for i in grown.instances if i.key == inst.key)
        assert [p.text for p in twin.passages] == [p.text for p in inst.passages]
    fit, held = dataset_split(grown, 0.5, 1)
    assert (fit & pinned, held & pinned) == dataset_split(small, 0.5, 1)
    assert fit | held == qids and not fit & held
    assert "pinned_qids" not in small.settings


def test_gpe_slice():
    path = find_gpe_file(required=False)
    if path is None:
        pytest.skip("gpe-eval is not installed (pip install --no-deps gpe-eval)")
    ds = load_gpe(path, limit=2, seed=0)
    assert ds.n_queries == 2 and ds.n_available == 638 and ds.families == list(GPE_ATTACKS)
    assert len(ds) == 2 * (1 + 2 * len(GPE_ATTACKS))
    for inst in ds.instances:
        assert len(inst.items) == 5  # constant k
        expected = {"clean": 0, "mixed": 3, "full": 5}[inst.regime]
        assert inst.n_polluted == expected, inst.key
        assert (inst.family == "none") == (inst.regime == "clean")
        for item, spans in zip(inst.items, inst.spans, strict=True):
            assert len(item.text) <= 1200
            if isinstance(item, PollutedPassage):
                assert item.family == inst.family and spans == [(0, len(item.text))]
    clean = {i.qid: i for i in ds.instances if i.regime == "clean"}
    for inst in ds.instances:
        if inst.family == "ata":  # a rewrite replaces the passage it was written from
            for item, orig in zip(inst.items, clean[inst.qid].items, strict=True):
                if isinstance(item, PollutedPassage):
                    assert item.original == orig.text
    again = load_gpe(path, limit=2, seed=0)
    assert [i.passages for i in again.instances] == [i.passages for i in ds.instances]


@pytest.mark.parametrize("name", ["nq", "hotpotqa"])
def test_poisonedrag_slice(name, test_data_dir):
    ds = load_poisonedrag(name, limit=3, seed=0)
    assert ds.qa and ds.n_queries == 3 and len(ds) == 9 and ds.n_available == 4
    by_regime = {}
    for inst in ds.instances:
        by_regime.setdefault(inst.regime, []).append(inst)
        assert inst.correct and inst.incorrect and inst.correct != inst.incorrect
        domains = [p.resolved_domain(i) for i, p in enumerate(inst.passages)]
        assert len(set(domains)) == len(domains)  # every passage its own publisher
    assert all(len(i.items) == 1 and i.n_polluted == 0 for i in by_regime["clean"])
    assert all(len(i.items) == 5 and i.n_polluted == 5 for i in by_regime["full"])
    assert all(len(i.items) == 6 and i.n_polluted == 5 for i in by_regime["mixed"])
    gold = by_regime["clean"][0].items[0]
    assert gold in by_regime["mixed"][0].items
    assert load_dataset(f"poisonedrag-{name}", limit=3).instances[0].query == ds.instances[0].query
    explicit = load_poisonedrag(name, test_data_dir, limit=3, seed=0)  # root= wins over the env
    assert [i.passages for i in explicit.instances] == [i.passages for i in ds.instances]


def test_data_dir_discovery(tmp_path, monkeypatch, test_data_dir):
    assert find_data_dir() == test_data_dir and (find_data_dir() / "poisonedrag").is_dir()
    monkeypatch.setenv("MIRAGE_DATA_DIR", str(tmp_path))
    assert find_data_dir() == tmp_path


def test_user_jsonl_is_polluted_by_the_protocol(query_file):
    ds = load_jsonl(query_file, seed=0)
    assert ds.n_queries == 4 and ds.qa
    assert ds.families == ["unambiguous", "conflicting", "misleading", "fabricated"]
    assert len(ds) == 4 * (1 + 4 * 2)
    for inst in ds.instances:
        assert len(inst.items) == 3
        assert inst.correct == ("1889",) and inst.incorrect == ("1925",)
        if inst.regime == "clean":
            assert inst.n_polluted == 0
        elif inst.regime == "mixed":
            assert inst.n_polluted == 2  # round(3 / 2), half up
        else:
            assert inst.n_polluted == 3
    subset = load_jsonl(query_file, limit=2, families=["conflicting"])
    assert subset.n_queries == 2 and {i.family for i in subset.instances} == {"none", "conflicting"}


def test_user_jsonl_already_polluted(tmp_path, query_file):
    ds = load_jsonl(query_file, families=["unambiguous"])
    inst = next(i for i in ds.instances if i.regime == "mixed")
    row = {
        "id": "x",
        "query": inst.query,
        "regime": "mixed",
        "passages": [
            it.to_row()
            if isinstance(it, PollutedPassage)
            else {"text": it.text, "source": it.source}
            for it in inst.items
        ],
    }
    path = tmp_path / "polluted.jsonl"
    path.write_text(json.dumps(row) + "\n")
    back = load_jsonl(path)
    (only,) = back.instances
    assert only.regime == "mixed" and only.family == "unambiguous"
    assert only.spans == inst.spans and [p.text for p in only.passages] == [
        p.text for p in inst.passages
    ]
    assert all("mirage_pollution" not in p.metadata for p in only.passages)


@pytest.mark.parametrize(
    ("answer", "read"),
    [
        (1889, ("1889",)),
        (1889.0, ("1889",)),
        (2.5, ("2.5",)),
        ([1889, "c. 1890"], ("1889", "c. 1890")),
    ],
)
def test_a_numeric_answer_is_an_answer(tmp_path, answer, read):
    path = tmp_path / "q.jsonl"
    row = {"query": "When?", "passages": ["It was completed in 1889."], "answer": answer}
    path.write_text(json.dumps(row) + "\n")
    assert load_jsonl(path, families=["conflicting"]).instances[0].correct == read


def test_polluted_rows_are_read_by_query_and_by_the_families_asked(tmp_path, query_file):
    from mirage_core.pollution.families import Regime, apply_regime
    from mirage_core.pollution.rules import RulePolluter

    rows = [json.loads(line) for line in query_file.read_text().splitlines() if line.strip()]
    out = []
    for n, row in enumerate(rows[:2]):  # two queries as `mirage pollute` writes them: no id
        passages = [{"text": t} if isinstance(t, str) else t for t in row["passages"]]
        texts = [p["text"] for p in passages]
        for family, regime in (
            ("none", "clean"),
            ("conflicting", "mixed"),
            ("unambiguous", "full"),
        ):
            items = (
                passages
                if regime == "clean"
                else apply_regime(
                    passages, Regime.parse(regime), family, RulePolluter(texts), seed=0
                )
            )
            rows_items = [
                it.to_row()
                if isinstance(it, PollutedPassage)
                else {"text": it["text"] if isinstance(it, dict) else it.text}
                for it in items
            ]
            query = f"{row['query']} ({n})"
            out.append({"query": query, "passages": rows_items, "regime": regime, "family": family})
    path = tmp_path / "all.jsonl"
    path.write_text("".join(json.dumps(r) + "\n" for r in out))
    ds = load_jsonl(path)
    assert ds.n_queries == 2 and ds.n_available == 2 and len(ds) == 6
    one = load_jsonl(path, limit=1)
    assert one.n_queries == 1 and len({i.qid for i in one.instances}) == 1
    assert {i.regime for i in one.instances} == {"clean", "mixed", "full"}  # all its runs
    asked = load_jsonl(path, families=["conflicting"])
    assert {(i.regime, i.family) for i in asked.instances} == {
        ("clean", "none"),
        ("mixed", "conflicting"),
    }


def test_the_mixed_regime_names_its_rate_rounded(query_file):
    assert load_jsonl(query_file, rate=0.29).regimes["mixed"].startswith("29% ")


def test_bad_rows_are_reported(tmp_path):
    path = tmp_path / "bad.jsonl"
    path.write_text('{"query": "q"}\n')
    with pytest.raises(ValueError, match="passages"):
        load_jsonl(path)
    with pytest.raises(ValueError, match="unknown dataset"):
        load_dataset("no-such-set")


def test_datasets_module_still_exports_the_loaders_and_types():
    """Code that imports the loaders, the instance types or discovery from ``datasets`` (or the
    package) gets the same objects as their own modules hold."""
    import mirage_core.evaluation as evaluation
    from mirage_core.evaluation import datasets, gpe, instances, poisonedrag

    homes = {gpe: ("GPE_ATTACKS", "find_gpe_file", "load_gpe", "_gpe_passage")}
    homes[poisonedrag] = ("VARIANTS", "load_poisonedrag")
    homes[instances] = ("CLEAN_FAMILY", "Dataset", "Instance", "find_data_dir", "subsample")
    for module, names in homes.items():
        for name in names:
            assert getattr(datasets, name) is getattr(module, name), name
            if name in evaluation.__all__:
                assert getattr(evaluation, name) is getattr(module, name), name
    assert all(hasattr(datasets, name) for name in datasets.__all__)
