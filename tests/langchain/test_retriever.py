"""MirageRetriever: conversion, output modes, k, events, traces, async, bad input."""

from __future__ import annotations

import asyncio
import copy
import dataclasses
import threading
import traceback

import numpy as np
import pytest
from langchain_core.documents import Document
from langchain_core.retrievers import BaseRetriever
from langchain_core.runnables import (
    ConfigurableField,
    ConfigurableFieldSingleOption,
    RunnableLambda,
)
from pydantic import ValidationError

from mirage_core import CallableNLI, Mirage, MirageConfig, NLIError, Passage
from mirage_core.config import MethodSettings
from mirage_langchain import EVENT_NAME, MirageRetriever, documents_to_passages
from mirage_langchain.retriever import invoke_with_verdict
from tests.conftest import NO_SIGNALS, LexicalSpy, lexical_nli
from tests.langchain.conftest import BagOfWordsEmbeddings, two_path_child

QUESTION = "Where is the Eiffel Tower located?"


def lambda_retriever(docs):
    return RunnableLambda(lambda query: docs, name="child")


# -- what comes back ---------------------------------------------------------------------------
@pytest.mark.model
def test_returns_verified_sentences_as_new_documents(fake_nli, clean_retriever):
    retriever = MirageRetriever(base_retriever=clean_retriever, nli=fake_nli)
    docs = retriever.invoke(QUESTION)
    assert len(docs) == 3
    ids = {d.id for d in docs}
    assert ids == {"clean-0", "clean-1", "clean-2"}
    for doc in docs:
        info = doc.metadata["mirage"]
        assert info["decision"] == "verified"
        assert info["reason"].startswith("passed")
        assert set(info) >= {"support", "agreeing_sources", "decision", "reason", "claim_indices"}
        assert doc.metadata["tags"] == ["encyclopedia"]  # original metadata kept
        assert doc.metadata["url"].startswith("https://")
    by_id = {d.id: d for d in docs}
    # britannica's two sentences are each corroborated by another source
    assert by_id["clean-0"].metadata["mirage"]["support"] == 1
    assert set(by_id["clean-0"].metadata["mirage"]["agreeing_sources"]) == {
        "https://en.wikipedia.org/wiki/Eiffel_Tower",
        "https://www.history.com/eiffel",
    }


@pytest.mark.model
def test_output_modes(fake_nli, clean_docs):
    child = lambda_retriever(clean_docs)
    sentences = MirageRetriever(base_retriever=child, nli=fake_nli).invoke(QUESTION)
    claims = MirageRetriever(base_retriever=child, nli=fake_nli, output="claims").invoke(QUESTION)
    whole = MirageRetriever(base_retriever=child, nli=fake_nli, output="documents").invoke(QUESTION)

    assert [d.id for d in sentences] == ["clean-0", "clean-1", "clean-2"]  # retrieval order
    assert [d.page_content for d in whole] == [d.page_content for d in clean_docs]
    # every sentence another source states (place, year, builder), none that one page alone
    # tells (corroborated delivery)
    assert not [d for d in claims if "Chrysler" in d.page_content or "674" in d.page_content]
    assert len(claims) == 6
    for doc in claims:
        info = doc.metadata["mirage"]
        parent = next(d for d in clean_docs if doc.id.startswith(d.id + "#"))
        start, end = info["span"]
        assert parent.page_content[start:end] == doc.page_content
        assert isinstance(info["claim_index"], int)
    assert claims[0].metadata["mirage"]["support"] >= claims[-1].metadata["mirage"]["support"]


@pytest.mark.model
def test_metadata_says_which_claims_an_independent_source_corroborates(fake_nli, clean_docs):
    child = lambda_retriever(clean_docs)
    claims = MirageRetriever(base_retriever=child, nli=fake_nli, output="claims").invoke(QUESTION)
    sentences = MirageRetriever(base_retriever=child, nli=fake_nli).invoke(QUESTION)
    # corroborated delivery hands on only what a second source states, and says so per claim
    assert claims and all(d.metadata["mirage"]["corroborated"] is True for d in claims)
    for doc in sentences:
        info = doc.metadata["mirage"]
        assert info["corroborated_claims"] == info["claim_indices"]
    paper = MirageRetriever(
        base_retriever=child, nli=fake_nli, config=MirageConfig.paper(), output="claims"
    ).invoke(QUESTION)
    assert paper and all(d.metadata["mirage"]["corroborated"] is None for d in paper)


@pytest.mark.model
def test_sentences_mode_drops_unverified_sentences(fake_nli, clean_docs, polluted_passages):
    # Three agreeing sources plus one that moves the tower to Rome: with contradictions
    # counted inside S* only, the gate passes and the Rome sentences are left out.
    rome = Document(
        page_content=polluted_passages[1].text,
        metadata={"url": polluted_passages[1].source},
        id="rome",
    )
    retriever = MirageRetriever(
        base_retriever=lambda_retriever([*clean_docs, rome]),
        config=MirageConfig(min_support=1, method=MethodSettings(contradiction_scope="selected")),
        nli=fake_nli,
    )
    docs = retriever.invoke(QUESTION)
    assert docs and all("Rome" not in d.page_content and "1925" not in d.page_content for d in docs)
    assert "rome" not in {d.id for d in docs}
    # a reduced document holds fewer sentences than the original
    assert any(
        len(d.page_content) < len(next(c for c in clean_docs if c.id == d.id).page_content)
        for d in docs
    )


@pytest.mark.model
def test_blocked_gate_returns_nothing(fake_nli, polluted_retriever, recorder):
    retriever = MirageRetriever(base_retriever=polluted_retriever, nli=fake_nli)
    assert retriever.invoke(QUESTION, config={"callbacks": [recorder]}) == []
    [event] = recorder.events
    assert event["data"]["decision"] == "fallback"
    assert event["data"]["reason"].startswith("blocked")


@pytest.mark.model
def test_retrieve_with_verdict(fake_nli, clean_retriever, polluted_retriever):
    result = MirageRetriever(base_retriever=clean_retriever, nli=fake_nli).retrieve_with_verdict(
        QUESTION
    )
    assert result.route == "verified" and result.verdict.passed
    assert [c.index for c in result.claims] == list(result.verdict.selected)
    blocked = MirageRetriever(
        base_retriever=polluted_retriever, nli=fake_nli
    ).retrieve_with_verdict(QUESTION)
    assert blocked.route == "fallback" and blocked.documents == [] and blocked.claims == []


# -- k -------------------------------------------------------------------------------------------
@pytest.mark.model
def test_k_caps_output_and_is_never_forwarded(fake_nli, clean_docs):
    seen = []

    def child(query, config, **kwargs):
        seen.append(kwargs)
        return clean_docs

    retriever = MirageRetriever(base_retriever=RunnableLambda(child), k=2, nli=fake_nli)
    assert len(retriever.invoke(QUESTION)) == 2
    assert len(retriever.invoke(QUESTION, k=1)) == 1
    assert len(retriever.invoke(QUESTION, k=3)) == 3
    assert seen == [{}, {}, {}]  # the child only ever gets the query and its config


@pytest.mark.model
def test_k_not_forwarded_to_a_vector_store_retriever(fake_nli, clean_docs, make_vector_retriever):
    # VectorStoreRetriever would honour a forwarded k=1: one passage, one domain, blocked.
    retriever = MirageRetriever(
        base_retriever=make_vector_retriever(clean_docs, k=3), k=1, nli=fake_nli
    )
    [doc] = retriever.invoke(QUESTION)
    assert doc.metadata["mirage"]["decision"] == "verified"
    assert len(retriever.invoke(QUESTION, k=1)) == 1


@pytest.mark.model
def test_claims_mode_k_keeps_the_first_picks(fake_nli, clean_docs):
    retriever = MirageRetriever(
        base_retriever=lambda_retriever(clean_docs), nli=fake_nli, output="claims"
    )
    full = retriever.retrieve_with_verdict(QUESTION)
    top2 = retriever.retrieve_with_verdict(QUESTION, k=2)
    assert [d.page_content for d in top2.documents] == [d.page_content for d in full.documents[:2]]
    assert [c.index for c in top2.claims] == list(full.verdict.selected[:2])


@pytest.mark.parametrize("k", [0, -1, 1.5, True, "3"])
def test_bad_k(fake_nli, clean_retriever, k):
    with pytest.raises(ValueError):
        MirageRetriever(base_retriever=clean_retriever, nli=fake_nli, k=k)
    retriever = MirageRetriever(base_retriever=clean_retriever, nli=fake_nli)
    with pytest.raises(ValueError):
        retriever.invoke(QUESTION, k=k)


async def test_async_calls_take_k_too(fake_nli, clean_docs):
    retriever = MirageRetriever(
        base_retriever=lambda_retriever(clean_docs),
        config=NO_SIGNALS,
        nli=fake_nli,
        output="claims",
    )
    full = await retriever.aretrieve_with_verdict(QUESTION)
    assert len(full.documents) > 2
    assert len(await retriever.ainvoke(QUESTION, k=2)) == 2
    top1 = await retriever.aretrieve_with_verdict(QUESTION, k=1)
    assert [c.index for c in top1.claims] == list(full.verdict.selected[:1])
    with pytest.raises(ValueError):
        await retriever.ainvoke(QUESTION, k=0)


def test_a_verdict_that_reads_no_corroboration_says_so(fake_nli, clean_docs):
    """``paper()`` reads no corroboration: the documents say ``None``, not "none of them"."""
    for output, key in (("sentences", "corroborated_claims"), ("claims", "corroborated")):
        retriever = MirageRetriever(
            base_retriever=lambda_retriever(clean_docs),
            config=MirageConfig.paper(),
            nli=fake_nli,
            output=output,
        )
        docs = retriever.invoke(QUESTION)
        assert docs and all(d.metadata["mirage"][key] is None for d in docs)


def test_claims_of_documents_without_an_id_have_none(fake_nli, clean_docs):
    anonymous = [Document(page_content=d.page_content, metadata=d.metadata) for d in clean_docs]
    retriever = MirageRetriever(
        base_retriever=lambda_retriever(anonymous),
        config=NO_SIGNALS,
        nli=fake_nli,
        output="claims",
    )
    docs = retriever.invoke(QUESTION)
    assert docs and all(d.id is None for d in docs)


def test_a_long_reason_is_cut_to_200_characters(fake_nli, clean_docs):
    from mirage_langchain._convert import verdict_to_documents

    verdict = Mirage(NO_SIGNALS, nli=fake_nli).defend(QUESTION, documents_to_passages(clean_docs))
    fits = dataclasses.replace(verdict, reason="r" * 200)
    [doc, *_] = verdict_to_documents(clean_docs, fits)[0]
    assert doc.metadata["mirage"]["reason"] == "r" * 200
    long = dataclasses.replace(verdict, reason="r" * 201)
    [doc, *_] = verdict_to_documents(clean_docs, long)[0]
    assert doc.metadata["mirage"]["reason"] == "r" * 199 + "…"


async def test_with_verdict_calls_run_under_the_config_given(fake_nli, clean_docs, recorder):
    retriever = MirageRetriever(
        base_retriever=lambda_retriever(clean_docs),
        config=NO_SIGNALS,
        nli=fake_nli,
    )
    retriever.retrieve_with_verdict(QUESTION, {"callbacks": [recorder], "run_name": "sync_run"})
    await retriever.aretrieve_with_verdict(
        QUESTION, {"callbacks": [recorder], "run_name": "async_run"}
    )
    runs = [recorder.run("sync_run")["run_id"], recorder.run("async_run")["run_id"]]
    assert [e["run_id"] for e in recorder.events] == runs


# -- conversion ----------------------------------------------------------------------------------
def test_documents_to_passages_reads_source_domain_score():
    docs = [
        Document("a b c", metadata={"url": "https://x.org/1", "source": "ignored", "score": 0.5}),
        Document("a b c", metadata={"source": "file.pdf", "relevance_score": np.float32(0.25)}),
        Document("a b c", metadata={"id": 42, "domain": "Example.COM"}),
        Document("a b c", id="doc-7", metadata={"score": "high", "url": ""}),
        Document("a b c", metadata={"score": float("nan"), "relevance_score": True}),
    ]
    p = documents_to_passages(docs)
    assert [x.source for x in p] == ["https://x.org/1", "file.pdf", "42", "doc-7", None]
    assert p[2].domain == "Example.COM" and p[2].resolved_domain(2) == "example.com"
    assert p[0].resolved_domain(0) == "x.org"
    assert [x.score for x in p] == [0.5, 0.25, None, None, None]
    assert all(isinstance(x, Passage) and x.text == "a b c" for x in p)


@pytest.mark.model
def test_callers_documents_untouched(fake_nli, clean_docs):
    before = copy.deepcopy(clean_docs)
    retriever = MirageRetriever(
        base_retriever=lambda_retriever(clean_docs), nli=fake_nli, output="documents"
    )
    out = retriever.invoke(QUESTION)
    assert clean_docs == before
    assert all("mirage" not in d.metadata for d in clean_docs)
    # outputs are copies: changing them does not reach the caller's documents
    out[0].metadata["tags"].append("changed")
    out[0].metadata["url"] = "changed"
    assert clean_docs == before
    assert all(o is not d for o in out for d in clean_docs)


# -- events and traces ------------------------------------------------------------------------------
@pytest.mark.model
def test_traces_nest_and_event_attaches_to_the_wrapper(fake_nli, clean_retriever, recorder):
    retriever = MirageRetriever(base_retriever=clean_retriever, nli=fake_nli)
    retriever.invoke(QUESTION, config={"callbacks": [recorder]})
    outer = recorder.run("MirageRetriever")
    inner = recorder.run("VectorStoreRetriever")
    assert outer["parent"] is None
    assert inner["parent"] == outer["run_id"]
    [event] = recorder.events
    assert event["name"] == EVENT_NAME == "mirage_verdict"
    assert event["run_id"] == outer["run_id"]
    assert event["data"]["decision"] == "verified" and "edges" not in event["data"]
    assert event["data"]["query"] == QUESTION


@pytest.mark.model
async def test_async_traces_nest(fake_nli, clean_retriever, recorder):
    retriever = MirageRetriever(base_retriever=clean_retriever, nli=fake_nli)
    await retriever.ainvoke(QUESTION, config={"callbacks": [recorder]})
    outer = recorder.run("MirageRetriever")
    assert recorder.run("VectorStoreRetriever")["parent"] == outer["run_id"]
    [event] = recorder.events
    assert event["run_id"] == outer["run_id"]


@pytest.mark.model
async def test_custom_event_reaches_astream_events(fake_nli, clean_retriever):
    retriever = MirageRetriever(base_retriever=clean_retriever, nli=fake_nli)
    events = [e async for e in retriever.astream_events(QUESTION, version="v2")]
    custom = [e for e in events if e["event"] == "on_custom_event"]
    assert [e["name"] for e in custom] == ["mirage_verdict"]
    assert custom[0]["data"]["decision"] == "verified"
    end = next(
        e for e in events if e["event"] == "on_retriever_end" and e["name"] == "MirageRetriever"
    )
    assert custom[0]["run_id"] == end["run_id"]


@pytest.mark.model
def test_no_callbacks_no_error(fake_nli, clean_retriever):
    # the event has no listener: nothing breaks
    assert MirageRetriever(base_retriever=clean_retriever, nli=fake_nli).invoke(QUESTION)


# -- async, batch, threads --------------------------------------------------------------------------
def _routed_child(clean_docs, polluted_docs):
    """Odd-numbered questions retrieve the clean sources, even ones the polluted sources."""

    def pick(query: str):
        return clean_docs if int(query.rsplit("#", 1)[1]) % 2 else polluted_docs

    async def apick(query: str):
        await asyncio.sleep(0)
        return pick(query)

    return RunnableLambda(pick, afunc=apick)


@pytest.mark.model
async def test_ainvoke_and_abatch_of_32_equal_sync(fake_nli, clean_docs, polluted_docs):
    retriever = MirageRetriever(
        base_retriever=_routed_child(clean_docs, polluted_docs), nli=fake_nli
    )
    queries = [f"{QUESTION} #{i}" for i in range(32)]
    sync = [retriever.invoke(q) for q in queries]
    assert sum(bool(r) for r in sync) == 16  # half pass, half are blocked
    assert retriever.batch(queries, config={"max_concurrency": 8}) == sync
    assert await retriever.abatch(queries) == sync
    assert list(await asyncio.gather(*(retriever.ainvoke(q) for q in queries))) == sync


@pytest.mark.model
async def test_async_path_uses_child_ainvoke_and_keeps_model_off_the_loop(fake_nli, clean_docs):
    calls: list[str] = []
    threads = []

    def nli(premises, hypotheses):
        threads.append(threading.get_ident())
        return fake_nli.predict(premises, hypotheses)

    retriever = MirageRetriever(
        base_retriever=two_path_child(clean_docs, calls), nli=CallableNLI(nli)
    )
    assert await retriever.ainvoke(QUESTION)
    assert calls == ["async"]
    assert threads and threading.get_ident() not in threads


def test_one_engine_per_instance(fake_nli, clean_retriever):
    engine = Mirage(MirageConfig(), nli=fake_nli)
    shared = MirageRetriever(base_retriever=clean_retriever, mirage=engine)
    assert shared.engine is engine
    own = MirageRetriever(
        base_retriever=clean_retriever, nli=fake_nli, config=MirageConfig(r_max=0.2)
    )
    assert own.engine.config.r_max == 0.2 and own.engine.nli is fake_nli
    with pytest.raises(ValueError, match="not both"):
        MirageRetriever(base_retriever=clean_retriever, mirage=engine, nli=fake_nli)


@pytest.mark.model
def test_plain_function_child(fake_nli, clean_docs):
    retriever = MirageRetriever(base_retriever=lambda query: clean_docs, nli=fake_nli)
    assert len(retriever.invoke(QUESTION)) == 3


def test_bad_base_retriever(fake_nli):
    with pytest.raises((TypeError, ValueError)):
        MirageRetriever(base_retriever=42, nli=fake_nli)


# -- bad input ----------------------------------------------------------------------------------------
class Exploding(BaseRetriever):
    def _get_relevant_documents(self, query, *, run_manager):
        raise ConnectionError("index offline")


def test_child_error_propagates_with_its_trace(fake_nli, recorder):
    retriever = MirageRetriever(base_retriever=Exploding(), nli=fake_nli)
    with pytest.raises(ConnectionError, match="index offline") as info:
        retriever.invoke(QUESTION, config={"callbacks": [recorder]})
    frames = [f.name for f in traceback.extract_tb(info.value.__traceback__)]
    assert "_get_relevant_documents" in frames
    outer = recorder.run("MirageRetriever")
    assert {e["run_id"] for e in recorder.errors} == {
        outer["run_id"],
        recorder.run("Exploding")["run_id"],
    }
    assert recorder.events == []


async def test_child_error_propagates_async(fake_nli):
    with pytest.raises(ConnectionError):
        await MirageRetriever(base_retriever=Exploding(), nli=fake_nli).ainvoke(QUESTION)


@pytest.mark.parametrize(
    ("result", "named"),
    [
        (["just a string"], "str"),
        ([Document("ok"), {"page_content": "x"}], "dict"),
        ("a string", "str"),
        (Document("one"), "single Document"),
        (None, "NoneType"),
    ],
)
async def test_child_returning_non_documents(fake_nli, result, named):
    retriever = MirageRetriever(base_retriever=lambda query: result, nli=fake_nli)
    with pytest.raises(TypeError, match=named):
        retriever.invoke(QUESTION)
    with pytest.raises(TypeError, match=named):
        await retriever.ainvoke(QUESTION)


def test_empty_query_child_decides(fake_nli, clean_docs, recorder):
    def child(query):
        return clean_docs if query.strip() else []

    retriever = MirageRetriever(base_retriever=child, nli=fake_nli)
    assert retriever.invoke("", config={"callbacks": [recorder]}) == []
    [event] = recorder.events
    assert event["data"]["decision"] == "fallback"
    assert event["data"]["reason"].startswith("no evidence")
    assert event["data"]["n_passages"] == 0


async def test_documents_without_text_fall_back_saying_so(fake_nli, recorder):
    docs = [Document(page_content=""), Document(page_content=" \n\t ")]
    retriever = MirageRetriever(
        base_retriever=lambda_retriever(docs), config=NO_SIGNALS, nli=fake_nli
    )
    reason = "no evidence: 2 retrieved passages hold no text to check"
    assert retriever.invoke(QUESTION, config={"callbacks": [recorder]}) == []
    assert (await retriever.ainvoke(QUESTION, config={"callbacks": [recorder]})) == []
    for event in recorder.events:
        assert event["data"]["decision"] == "fallback" and event["data"]["reason"] == reason
        assert event["data"]["n_passages"] == 2
    result = retriever.retrieve_with_verdict(QUESTION)
    assert result.route == "fallback" and result.verdict.reason == reason


@pytest.mark.model
def test_nli_error_policy(clean_docs):
    def broken(premises, hypotheses):
        raise RuntimeError("model crashed")

    fails_closed = MirageRetriever(base_retriever=lambda q: clean_docs, nli=CallableNLI(broken))
    result = fails_closed.retrieve_with_verdict(QUESTION)
    assert result.documents == [] and "NLI failed" in result.verdict.reason
    raises = MirageRetriever(
        base_retriever=lambda q: clean_docs,
        nli=CallableNLI(broken),
        config=MirageConfig(nli_error_policy="raise"),
    )
    with pytest.raises(NLIError, match="model crashed"):
        raises.invoke(QUESTION)
    fails_open = MirageRetriever(
        base_retriever=lambda q: clean_docs,
        nli=CallableNLI(broken),
        config=MirageConfig(nli_error_policy="pass_through"),
    )
    result = fails_open.retrieve_with_verdict(QUESTION)
    assert result.documents and result.verdict.unchecked
    # every document says that nothing checked it, not only the reason text
    assert all(
        d.metadata["mirage"]["nli_error"] == "RuntimeError: model crashed" for d in result.documents
    )
    verified = MirageRetriever(base_retriever=lambda q: clean_docs, nli=CallableNLI(lexical_nli))
    assert all("nli_error" not in d.metadata["mirage"] for d in verified.invoke(QUESTION))


def test_fields_set_after_construction_are_validated(fake_nli, clean_retriever):
    retriever = MirageRetriever(base_retriever=clean_retriever, nli=fake_nli)
    engine = retriever.engine
    retriever.k = 2
    assert retriever.k == 2 and retriever.engine is engine  # k alone keeps the engine
    for bad in (0, -1, "3"):
        with pytest.raises(ValidationError):
            retriever.k = bad
    assert retriever.k == 2


@pytest.mark.model
def test_setting_the_config_builds_the_engine_anew(clean_docs):
    def broken(premises, hypotheses):
        raise RuntimeError("model crashed")

    retriever = MirageRetriever(base_retriever=lambda q: clean_docs, nli=CallableNLI(broken))
    assert retriever.invoke(QUESTION) == []  # fails closed
    retriever.config = MirageConfig(nli_error_policy="raise")
    assert retriever.engine.config is retriever.config
    with pytest.raises(NLIError, match="model crashed"):
        retriever.invoke(QUESTION)


def test_an_unknown_option_is_refused(fake_nli, clean_retriever):
    with pytest.raises(ValidationError, match="search_kwargs"):
        MirageRetriever(base_retriever=clean_retriever, nli=fake_nli, search_kwargs={"k": 2})
    assert MirageRetriever(base_retriever=clean_retriever, nli=fake_nli, tags=["t"]).tags == ["t"]


def test_a_config_mapping_is_read_strictly(fake_nli, clean_retriever):
    retriever = MirageRetriever(
        base_retriever=clean_retriever, nli=fake_nli, config={"r_max": 0.2, "tau": 0.1}
    )
    assert retriever.engine.config.r_max == 0.2 and retriever.engine.config.method.tau == 0.1
    with pytest.raises(ValidationError, match="nli_error_polcy"):
        MirageRetriever(
            base_retriever=clean_retriever, nli=fake_nli, config={"nli_error_polcy": "raise"}
        )


def test_a_langchain_embeddings_model_drives_source_independence(fake_nli, clean_docs):
    from tests.langchain.conftest import BagOfWordsEmbeddings

    class CountingEmbeddings(BagOfWordsEmbeddings):
        calls = 0

        def embed_documents(self, texts):
            CountingEmbeddings.calls += 1
            return super().embed_documents(texts)

    retriever = MirageRetriever(
        base_retriever=lambda_retriever(clean_docs),
        nli=fake_nli,
        config=MirageConfig(independence="embedding"),
        embedder=CountingEmbeddings(),
    )
    result = retriever.retrieve_with_verdict(QUESTION)
    assert CountingEmbeddings.calls == 1
    assert sum(len(p) for p in result.verdict.extras["groups"].values()) == len(clean_docs)
    with pytest.raises(ValueError, match="embedder"):
        MirageRetriever(
            base_retriever=lambda_retriever(clean_docs),
            mirage=retriever.engine,
            embedder=CountingEmbeddings(),
        )


# -- configurable_fields: LangChain builds a new retriever for every call ------------------------
@pytest.fixture
def packaged_nli_loads(monkeypatch) -> list[LexicalSpy]:
    """Each load of the packaged NLI model (an engine built with ``nli=None`` loads it on first
    use), as a spy on the lexical double that stands in for the model."""
    loads: list[LexicalSpy] = []

    def load(spec=None, batch_size=16, **kwargs):
        loads.append(LexicalSpy())
        return CallableNLI(loads[-1].predict)

    monkeypatch.setattr("mirage_core.nli.onnx_nli.default_nli", load)
    return loads


def test_configured_calls_run_the_retrievers_engine(packaged_nli_loads, clean_docs):
    retriever = MirageRetriever(base_retriever=lambda_retriever(clean_docs), config=NO_SIGNALS)
    configurable = retriever.configurable_fields(
        k=ConfigurableField(id="k"), output=ConfigurableField(id="output")
    )
    assert len(configurable.invoke(QUESTION)) == 3
    spy = packaged_nli_loads[0]
    scored = sum(spy.batches)
    assert scored > 0
    assert len(configurable.invoke(QUESTION, {"configurable": {"k": 1}})) == 1
    whole = configurable.with_config(configurable={"output": "documents"}).invoke(QUESTION)
    assert [d.page_content for d in whole] == [d.page_content for d in clean_docs]
    # one model load and one pair cache serve every call: the repeated pairs are not scored again
    assert packaged_nli_loads == [spy] and sum(spy.batches) == scored
    copy_, _ = configurable.prepare({"configurable": {"k": 2}})
    assert copy_ is not retriever and copy_.k == 2 and copy_.engine is retriever.engine
    # configurable_fields of the configurable adds fields and keeps sharing the engine
    more = configurable.configurable_fields(base_retriever=ConfigurableField(id="child"))
    copy_, _ = more.prepare({"configurable": {"k": 1, "child": lambda_retriever(clean_docs[:1])}})
    assert copy_.engine is retriever.engine


def test_configured_calls_keep_the_embedding_cache(fake_nli, clean_docs):
    class CountingEmbeddings(BagOfWordsEmbeddings):
        texts = 0

        def embed_documents(self, texts):
            CountingEmbeddings.texts += len(texts)
            return super().embed_documents(texts)

    retriever = MirageRetriever(
        base_retriever=lambda_retriever(clean_docs),
        nli=fake_nli,
        config=MirageConfig(coordination="none", independence="embedding"),
        embedder=CountingEmbeddings(),
    )
    configurable = retriever.configurable_fields(k=ConfigurableField(id="k"))
    for k in (1, 2, 3, 2):
        assert len(configurable.invoke(QUESTION, {"configurable": {"k": k}})) == k
    embedded = CountingEmbeddings.texts
    assert embedded > 0
    configurable.invoke(QUESTION, {"configurable": {"k": 1}})
    assert CountingEmbeddings.texts == embedded  # every page's vector came from the cache


def test_a_configured_config_gets_an_engine_built_once(packaged_nli_loads, clean_docs):
    retriever = MirageRetriever(base_retriever=lambda_retriever(clean_docs), config=NO_SIGNALS)
    configurable = retriever.configurable_fields(config=ConfigurableField(id="mirage_config"))
    strict = {"configurable": {"mirage_config": {"coordination": "none", "d_min": 4}}}
    assert invoke_with_verdict(configurable, QUESTION).verdict.decision == "verified"
    assert invoke_with_verdict(configurable, QUESTION, strict).verdict.decision == "fallback"
    assert invoke_with_verdict(configurable, QUESTION).verdict.decision == "verified"
    engine = configurable.prepare(strict)[0].engine
    assert engine is not retriever.engine and engine.config.d_min == 4
    # an equal config, given again (a new object each call), runs the engine built for it
    assert configurable.prepare(strict)[0].engine is engine
    assert configurable.invoke(QUESTION, strict) == []
    own = {"configurable": {"mirage_config": {"coordination": "none"}}}
    assert configurable.prepare(own)[0].engine is retriever.engine
    assert len(packaged_nli_loads) == 2  # one model per engine, not per call


def test_concurrent_configured_calls_build_one_engine_per_config(packaged_nli_loads, clean_docs):
    retriever = MirageRetriever(base_retriever=lambda_retriever(clean_docs), config=NO_SIGNALS)
    configurable = retriever.configurable_fields(config=ConfigurableField(id="mirage_config"))
    configs = [
        {
            "configurable": {"mirage_config": {"coordination": "none", "d_min": (2, 4, 5)[i % 3]}},
            "max_concurrency": 8,
        }
        for i in range(24)
    ]
    results = configurable.batch([QUESTION] * 24, configs)
    assert [len(r) for r in results] == [3, 0, 0] * 8  # three pages: d_min 4 and 5 block
    assert len(packaged_nli_loads) == 3  # d_min 2 is the retriever's own engine


def test_a_configured_nli_option_gets_its_own_engine(fake_nli, clean_docs):
    other = CallableNLI(lexical_nli)
    retriever = MirageRetriever(
        base_retriever=lambda_retriever(clean_docs), nli=fake_nli, config=NO_SIGNALS
    )
    configurable = retriever.configurable_fields(
        nli=ConfigurableFieldSingleOption(
            id="nli", options={"mine": fake_nli, "other": other}, default="mine"
        )
    )

    def engine(choice):
        return configurable.prepare({"configurable": {"nli": choice}})[0].engine

    assert engine("mine") is retriever.engine
    chosen = engine("other")
    assert chosen is not retriever.engine and chosen.nli is other and engine("other") is chosen


def test_a_configured_config_beside_a_ready_engine_is_refused(fake_nli, clean_docs):
    retriever = MirageRetriever(
        base_retriever=lambda_retriever(clean_docs), mirage=Mirage(NO_SIGNALS, nli=fake_nli)
    )
    configurable = retriever.configurable_fields(config=ConfigurableField(id="mirage_config"))
    with pytest.raises(ValidationError, match="not both"):
        configurable.invoke(QUESTION, {"configurable": {"mirage_config": {"d_min": 1}}})


def test_the_redundancy_filter_keeps_held_back_documents_out(near_copy_engine):
    # three near-copies and two pages of their own: the copies are held back from what the
    # retriever returns, and the documents that come back say why
    from tests.conftest import NEAR_COPIES, NEAR_COPY_QUERY, OWN_PAGES

    texts = NEAR_COPIES + OWN_PAGES
    docs = [
        Document(page_content=t, metadata={"url": f"https://site{i}.example/p"}, id=f"d{i}")
        for i, t in enumerate(texts)
    ]
    out = MirageRetriever(base_retriever=lambda_retriever(docs), mirage=near_copy_engine).invoke(
        NEAR_COPY_QUERY
    )
    assert out and {d.id for d in out} <= {"d3", "d4"}
    assert all("held back by the redundancy filter" in d.metadata["mirage"]["reason"] for d in out)


@pytest.mark.model
def test_corroborated_delivery_reaches_the_documents(fake_nli, lone_detail_pages):
    docs = [Document(page_content=p.text, metadata={"url": p.source}) for p in lone_detail_pages]
    config = MirageConfig(coordination="none").replace(
        corroborated_only="delivery", fact_coverage=True
    )
    retriever = MirageRetriever(base_retriever=lambda_retriever(docs), config=config, nli=fake_nli)
    out = retriever.invoke("When was the Eiffel Tower completed?")
    assert [d.page_content for d in out] == ["The tower was completed in 1889."]
    assert "corroborates" in out[0].metadata["mirage"]["reason"]
