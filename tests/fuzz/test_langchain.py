"""Property-based fuzzing of ``MirageRetriever.invoke`` on hostile documents.

A fake base retriever returns the generated ``Document`` objects; the engine records the
verdict of each call, so every returned document can be checked against it.
"""

from __future__ import annotations

import math

from hypothesis import given, settings
from hypothesis import strategies as st
from langchain_core.documents import Document
from langchain_core.runnables import RunnableLambda

from mirage_langchain import MirageRetriever, documents_to_passages
from tests.fuzz.conftest import (
    FUZZ,
    check_no_nan,
    check_verified_text,
    claim_texts,
    hostile_text,
    note_route,
    query_text,
    recording_engine,
    score,
    snapshot,
    source,
)

#: What the fake base retriever returns next.
RETURNED: list[list[Document]] = [[]]
BASE = RunnableLambda(lambda _query: RETURNED[0], name="fuzzed_child")
RETRIEVERS = {
    (coordination, output): MirageRetriever(
        base_retriever=BASE, mirage=recording_engine(coordination), output=output
    )
    for coordination in ("text", "none")
    for output in ("sentences", "claims")
}

metadata_value = st.one_of(st.none(), source, score, st.booleans(), st.sampled_from(("0.9", "")))
document = st.builds(
    Document,
    page_content=hostile_text(),
    metadata=st.fixed_dictionaries(
        {},
        optional={
            "url": metadata_value,
            "source": metadata_value,
            "id": st.one_of(metadata_value, st.integers(-5, 5)),
            "score": metadata_value,
            "relevance_score": metadata_value,
            "domain": st.one_of(metadata_value, st.just("a.example")),
            "tags": st.lists(st.sampled_from(("encyclopedia", "news", "\u200b")), max_size=3),
            "nested": st.dictionaries(st.sampled_from(("a", "b")), st.lists(st.integers())),
            "mirage": st.just("the caller's own key"),
        },
    ),
    id=st.one_of(st.none(), st.sampled_from(("d0", "d1", "d1", "", " ")), st.text(max_size=6)),
)


documents = st.lists(document, max_size=30)


def _without_mirage(metadata: dict) -> str:
    return snapshot({k: v for k, v in metadata.items() if k != "mirage"})


@FUZZ
@given(
    key=st.sampled_from(sorted(RETRIEVERS)),
    query=query_text,
    docs=documents,
    k=st.one_of(st.none(), st.integers(1, 5)),
)
def test_invoke(key, query, docs, k) -> None:
    retriever = RETRIEVERS[key]
    output = key[1]
    pictures, identities = snapshot([d.model_dump() for d in docs]), [id(d) for d in docs]
    RETURNED[0] = docs
    retriever.engine.verdicts.clear()

    out = retriever.invoke(query, k=k)  # 1. no crash

    (verdict,) = retriever.engine.verdicts
    note_route(verdict, len(docs))
    check_no_nan(verdict)  # 2.
    check_verified_text(verdict)
    # 3. only verified claim text is delivered, with the verdict's decision and reason
    if not verdict.passed:
        assert out == []  # the documented fallback: no retrieved text at all
    else:
        assert k is None or len(out) <= k
        selected = set(verdict.selected)
        delivered: set[int] = set()
        for doc in out:
            info = doc.metadata["mirage"]
            assert info["decision"] == "verified"
            assert verdict.reason.startswith(info["reason"].removesuffix("…"))
            indices = [info["claim_index"]] if output == "claims" else info["claim_indices"]
            assert indices and set(indices) <= selected
            assert doc.page_content == claim_texts(verdict, indices)
            delivered |= set(indices)
            origin = docs[verdict.claims[indices[0]].passage_index]
            if output == "sentences":
                assert doc.id == origin.id
            assert _without_mirage(doc.metadata) == _without_mirage(origin.metadata)
        if k is None:
            assert delivered == selected
    # 5. the caller's documents are unchanged, also after the returned ones are edited
    for doc in out:
        doc.metadata.get("tags", []).append("edited")
        doc.metadata.get("nested", {}).setdefault("a", []).append(-1)
    assert snapshot([d.model_dump() for d in docs]) == pictures
    assert [id(d) for d in docs] == identities


@settings(FUZZ, max_examples=50)
@given(value=st.one_of(st.integers(min_value=2**1024), st.integers(max_value=-(2**1024))))
def test_an_int_score_beyond_float_range_is_ignored(value) -> None:
    (passage,) = documents_to_passages([Document(page_content="x", metadata={"score": value})])
    assert passage.score is None or math.isfinite(passage.score)
