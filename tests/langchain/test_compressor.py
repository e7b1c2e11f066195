"""MirageCompressor: same output as the retriever, untouched input, events, async."""

from __future__ import annotations

import copy
from uuid import uuid4

import pytest
from langchain_core.callbacks import AsyncCallbackManager, CallbackManager
from langchain_core.documents import Document
from langchain_core.runnables import RunnableLambda

from mirage_core import Mirage, MirageConfig
from mirage_langchain import MirageCompressor, MirageRetriever
from tests.conftest import NO_SIGNALS

QUESTION = "Where is the Eiffel Tower located?"


@pytest.mark.model
@pytest.mark.parametrize("output", ["sentences", "claims", "documents"])
def test_same_documents_as_the_retriever(fake_nli, clean_docs, output):
    engine = Mirage(MirageConfig(), nli=fake_nli)
    compressed = MirageCompressor(mirage=engine, output=output).compress_documents(
        clean_docs, QUESTION
    )
    retrieved = MirageRetriever(
        base_retriever=lambda q: clean_docs, mirage=engine, output=output
    ).invoke(QUESTION)
    assert list(compressed) == retrieved and compressed


@pytest.mark.model
def test_blocked_gives_nothing(fake_nli, polluted_docs):
    compressor = MirageCompressor(nli=fake_nli)
    assert list(compressor.compress_documents(polluted_docs, QUESTION)) == []
    result = compressor.compress_with_verdict(polluted_docs, QUESTION)
    assert result.route == "fallback" and result.verdict.reason.startswith("blocked")


@pytest.mark.model
def test_k_and_input_untouched(fake_nli, clean_docs):
    before = copy.deepcopy(clean_docs)
    out = MirageCompressor(nli=fake_nli, k=2).compress_documents(clean_docs, QUESTION)
    assert len(out) == 2
    out[0].metadata["tags"].append("x")
    assert clean_docs == before


@pytest.mark.model
async def test_async_equals_sync(fake_nli, clean_docs, polluted_docs):
    compressor = MirageCompressor(nli=fake_nli)
    for docs in (clean_docs, polluted_docs, []):
        assert list(await compressor.acompress_documents(docs, QUESTION)) == list(
            compressor.compress_documents(docs, QUESTION)
        )


@pytest.mark.model
def test_event_inside_a_run_and_silent_outside(fake_nli, clean_docs, recorder):
    compressor = MirageCompressor(nli=fake_nli)
    compressor.compress_documents(clean_docs, QUESTION)  # no run to attach to: no error

    step = RunnableLambda(lambda q: compressor.compress_documents(clean_docs, q), name="step")
    step.invoke(QUESTION, config={"callbacks": [recorder]})
    [event] = recorder.events
    assert event["name"] == "mirage_verdict" and event["run_id"] == recorder.run("step")["run_id"]
    assert event["data"]["decision"] == "verified"


@pytest.mark.model
async def test_async_event_inside_a_run(fake_nli, clean_docs, recorder):
    compressor = MirageCompressor(nli=fake_nli)

    async def step(q):
        return await compressor.acompress_documents(clean_docs, q)

    await RunnableLambda(step, name="step").ainvoke(QUESTION, config={"callbacks": [recorder]})
    [event] = recorder.events
    assert event["run_id"] == recorder.run("step")["run_id"]


def test_non_documents(fake_nli):
    with pytest.raises(TypeError, match="str"):
        MirageCompressor(nli=fake_nli).compress_documents(["text"], QUESTION)
    with pytest.raises(TypeError):
        MirageCompressor(nli=fake_nli).compress_documents([Document("ok"), 3], QUESTION)


async def test_event_goes_to_the_callbacks_passed_in(fake_nli, clean_docs, recorder):
    """As a compression retriever calls it: ``callbacks`` is the child manager of its run."""
    compressor = MirageCompressor(config=NO_SIGNALS, nli=fake_nli)
    sync_parent, async_parent = uuid4(), uuid4()
    compressor.compress_documents(
        clean_docs, QUESTION, callbacks=CallbackManager([recorder], parent_run_id=sync_parent)
    )
    await compressor.acompress_documents(
        clean_docs, QUESTION, callbacks=AsyncCallbackManager([recorder], parent_run_id=async_parent)
    )
    assert [(e["name"], e["run_id"]) for e in recorder.events] == [
        ("mirage_verdict", sync_parent),
        ("mirage_verdict", async_parent),
    ]
    # a manager outside any run has nowhere to attach the event: no event, no error
    compressor.compress_documents(clean_docs, QUESTION, callbacks=CallbackManager([recorder]))
    await compressor.acompress_documents(
        clean_docs, QUESTION, callbacks=AsyncCallbackManager([recorder])
    )
    assert len(recorder.events) == 2


async def test_the_verdict_comes_with_the_claims_the_documents_carry(fake_nli, clean_docs):
    compressor = MirageCompressor(config=NO_SIGNALS, nli=fake_nli, output="claims", k=2)
    for result in (
        compressor.compress_with_verdict(clean_docs, QUESTION),
        await compressor.acompress_with_verdict(clean_docs, QUESTION),
    ):
        assert result.route == "verified" and len(result.documents) == 2
        assert [c.text for c in result.claims] == [d.page_content for d in result.documents]
        assert [c.index for c in result.claims] == list(result.verdict.selected[:2])
