"""Document ↔ passage plumbing: what a child's result must be, which score is read, and the
metadata of the documents returned."""

from __future__ import annotations

import threading

import pytest
from langchain_core.documents import Document

from mirage_core import CallableNLI, Mirage
from mirage_langchain._convert import check_documents, documents_to_passages, verdict_to_documents
from tests.langchain.test_retriever import QUESTION


@pytest.mark.parametrize(
    ("result", "message"),
    [
        (
            (d for d in [Document("a")]),
            "base_retriever returned generator; expected a list of "
            "langchain_core.documents.Document",
        ),
        (
            [Document("a"), "b"],
            "base_retriever returned a str at position 1; expected "
            "langchain_core.documents.Document objects",
        ),
        (Document("a"), "base_retriever returned a single Document"),
    ],
)
def test_a_child_result_that_is_no_list_of_documents_is_named(result, message):
    with pytest.raises(TypeError, match=f"^{message}"):
        check_documents(result)


def test_a_score_too_large_for_a_float_gives_way_to_the_next_key():
    doc = Document("a b c", metadata={"score": 10**400, "relevance_score": 0.7})
    assert documents_to_passages([doc])[0].score == 0.7


@pytest.mark.model
def test_the_output_mode_must_be_known(fake_nli: CallableNLI, clean_docs: list[Document]):
    verdict = Mirage(nli=fake_nli).defend(QUESTION, documents_to_passages(clean_docs))
    with pytest.raises(ValueError, match="output must be 'sentences', 'claims' or 'documents'"):
        verdict_to_documents(clean_docs, verdict, "paragraphs")  # type: ignore[arg-type]


@pytest.mark.model
def test_a_value_that_cannot_be_deep_copied_is_shared_and_the_rest_copied(
    fake_nli: CallableNLI, clean_docs: list[Document]
):
    lock = threading.Lock()
    docs = [Document(d.page_content, metadata={**d.metadata, "lock": lock}) for d in clean_docs]
    verdict = Mirage(nli=fake_nli).defend(QUESTION, documents_to_passages(docs))
    out, _ = verdict_to_documents(docs, verdict, "documents")
    assert out and all(d.metadata["lock"] is lock for d in out)
    out[0].metadata["tags"].append("added by the caller of the output")
    assert all(d.metadata["tags"] == ["encyclopedia"] for d in docs)  # nested lists copied
    assert all("mirage" not in d.metadata for d in docs)  # the caller's mappings untouched


@pytest.mark.model
def test_a_claim_document_names_the_sources_that_agree_with_it(
    fake_nli: CallableNLI, clean_docs: list[Document]
):
    verdict = Mirage(nli=fake_nli).defend(QUESTION, documents_to_passages(clean_docs))
    out, claims = verdict_to_documents(clean_docs, verdict, "claims")
    assert {d.metadata["mirage"]["claim_index"] for d in out} == {c.index for c in claims}
    for doc in out:
        info = doc.metadata["mirage"]
        assert info["agreeing_sources"] == list(verdict.agreeing_sources(info["claim_index"]))
    assert any(doc.metadata["mirage"]["agreeing_sources"] for doc in out)
