"""MirageQueryEngine: which text reaches the model on each route (MockLLM echoes its prompt)."""

from __future__ import annotations

import asyncio
import json
from collections.abc import Sequence
from typing import Any

import numpy as np
import pytest
from llama_index.core.base.llms.types import CompletionResponse, CompletionResponseGen, LLMMetadata
from llama_index.core.base.response.schema import (
    AsyncStreamingResponse,
    Response,
    StreamingResponse,
)
from llama_index.core.callbacks import CallbackManager
from llama_index.core.callbacks.base_handler import BaseCallbackHandler
from llama_index.core.llms import CustomLLM, MockLLM
from llama_index.core.llms.callbacks import llm_completion_callback
from llama_index.core.prompts import PromptTemplate
from llama_index.core.schema import NodeWithScore, TextNode

from mirage_core import CallableNLI, Mirage, MirageConfig, Passage
from mirage_llamaindex import MIRAGE_KEY, MiragePostprocessor, MirageQueryEngine
from tests.conftest import NO_SIGNALS, lexical_nli


def sentences(passages: Sequence[Passage]) -> list[str]:
    return [
        s.strip() + ("" if s.strip().endswith(".") else ".")
        for p in passages
        for s in p.text.split(". ")
    ]


def assert_fallback(response: Any, passages: Sequence[Passage]) -> None:
    text = str(response)
    assert "Empty Response" not in text
    assert "own knowledge" in text  # the fallback prompt reached the model
    for sentence in sentences(passages):
        assert sentence not in text
    assert "Eiffel Tower is located" not in text and "<evidence>" not in text
    assert response.source_nodes == []
    assert response.metadata[MIRAGE_KEY]["route"] == "fallback"


@pytest.mark.model
def test_verified_route_sends_verified_claims_only(
    every_pair_mirage, fixed_retriever, mixed_nodes, mixed_passages, polluted_sentence
):
    engine = MirageQueryEngine(fixed_retriever(mixed_nodes), MockLLM(), mirage=every_pair_mirage)
    response = engine.query("When was the Eiffel Tower completed?")
    assert isinstance(response, Response)
    text = str(response)
    verdict = response.metadata[MIRAGE_KEY]["verdict"]
    assert response.metadata[MIRAGE_KEY]["route"] == "verified" == verdict["decision"]
    assert "<evidence>" in text and "Question: When was the Eiffel Tower completed?" in text
    delivered = [c["text"] for c in verdict["claims"] if c["selected"]]
    assert delivered and all(f'"{c}"' in text for c in delivered)
    assert polluted_sentence not in text
    assert "[source: https://evil.example/x]" in text  # its corroborated sentence did pass
    # source nodes are the verified nodes, the metadata is JSON-safe and mirrors the synthesizer's
    assert response.source_nodes and all(
        polluted_sentence not in n.node.get_content() for n in response.source_nodes
    )
    assert {n.node.node_id for n in response.source_nodes} <= set(response.metadata)
    assert "edges" not in verdict
    json.dumps(response.metadata)


@pytest.mark.model
def test_blocked_gate_answers_from_fallback_never_empty_response(
    mirage, fixed_retriever, polluted_nodes, polluted_passages
):
    engine = MirageQueryEngine(fixed_retriever(polluted_nodes), MockLLM(), mirage=mirage)
    response = engine.query("Where is the Eiffel Tower?")
    assert_fallback(response, polluted_passages)
    assert response.metadata[MIRAGE_KEY]["reason"].startswith("blocked")
    assert "Question: Where is the Eiffel Tower?" in str(response)


async def test_empty_retrieval_is_fallback_with_no_evidence(mirage, fixed_retriever):
    engine = MirageQueryEngine(fixed_retriever([]), MockLLM(), mirage=mirage)
    for response in (engine.query("Who built it?"), await engine.aquery("Who built it?")):
        assert_fallback(response, [])
        assert "no evidence" in response.metadata[MIRAGE_KEY]["reason"]


async def test_retrieval_of_nodes_without_text_is_fallback_saying_so(mirage, fixed_retriever):
    nodes = [NodeWithScore(node=TextNode(text=t), score=0.5) for t in ("", "   ")]
    engine = MirageQueryEngine(fixed_retriever(nodes), MockLLM(), mirage=mirage)
    for response in (engine.query("Who built it?"), await engine.aquery("Who built it?")):
        assert_fallback(response, [])
        meta = response.metadata[MIRAGE_KEY]
        assert meta["reason"] == "no evidence: 2 retrieved nodes hold no text to check"
        assert meta["reason"] == meta["verdict"]["reason"]
        assert [p["index"] for p in meta["passed_over"]] == [0, 1]


class RetrievalFailed(RuntimeError):
    pass


async def test_retriever_error_propagates(mirage, fixed_retriever):
    engine = MirageQueryEngine(
        fixed_retriever(lambda q: RetrievalFailed(q)), MockLLM(), mirage=mirage
    )
    with pytest.raises(RetrievalFailed):
        engine.query("q")
    with pytest.raises(RetrievalFailed):
        await engine.aquery("q")


@pytest.mark.model
async def test_sync_async_parity_32_queries(
    fake_nli, fixed_retriever, clean_nodes, polluted_nodes, mixed_nodes, as_nodes
):
    corpora = [clean_nodes, polluted_nodes, mixed_nodes, [], polluted_nodes[:1] + clean_nodes]
    queries = [f"question {i}: when was the Eiffel Tower completed?" for i in range(32)]
    route = {q: corpora[i % len(corpora)] for i, q in enumerate(queries)}
    engine = MirageQueryEngine(fixed_retriever(lambda q: route[q]), MockLLM(), nli=fake_nli)

    def key(r: Response) -> tuple:
        m = r.metadata[MIRAGE_KEY]
        return (
            str(r),
            m["route"],
            m["reason"],
            m["verdict"]["selected"],
            [(n.node.node_id, n.node.get_content(), n.score) for n in r.source_nodes],
        )

    sync = [key(engine.query(q)) for q in queries]
    asyn = [key(r) for r in await asyncio.gather(*(engine.aquery(q) for q in queries))]
    assert sync == asyn
    routes = [k[1] for k in sync]
    assert "verified" in routes and "fallback" in routes
    assert all("Empty Response" not in k[0] for k in sync)


@pytest.mark.model
def test_streaming_both_routes(
    mirage, fixed_retriever, mixed_nodes, polluted_nodes, polluted_passages, polluted_sentence
):
    verified = MirageQueryEngine(
        fixed_retriever(mixed_nodes), MockLLM(), mirage=mirage, streaming=True
    ).query("q")
    assert isinstance(verified, StreamingResponse)
    assert verified.metadata[MIRAGE_KEY]["route"] == "verified" and verified.source_nodes
    chunks = list(verified.response_gen)
    assert (
        len(chunks) > 1
        and "<evidence>" in "".join(chunks)
        and polluted_sentence not in "".join(chunks)
    )

    blocked = MirageQueryEngine(
        fixed_retriever(polluted_nodes), MockLLM(), mirage=mirage, streaming=True
    ).query("q")
    assert isinstance(blocked, StreamingResponse)
    assert_fallback(blocked, polluted_passages)


@pytest.mark.model
async def test_async_streaming_both_routes(
    mirage, fixed_retriever, mixed_nodes, polluted_nodes, polluted_passages
):
    engine = MirageQueryEngine(
        fixed_retriever(mixed_nodes), MockLLM(), mirage=mirage, streaming=True
    )
    verified = await engine.aquery("q")
    assert isinstance(verified, AsyncStreamingResponse)
    text = "".join([t async for t in verified.async_response_gen()])
    assert "<evidence>" in text

    engine = MirageQueryEngine(
        fixed_retriever(polluted_nodes), MockLLM(), mirage=mirage, streaming=True
    )
    blocked = await engine.aquery("q")
    assert isinstance(blocked, AsyncStreamingResponse)
    text = "".join([t async for t in blocked.async_response_gen()])
    assert "Empty Response" not in text and "own knowledge" in text and "Eiffel" not in text
    assert blocked.source_nodes == []


class NoStreamLLM(CustomLLM):
    """An LLM that can only complete (its stream methods raise NotImplementedError)."""

    @property
    def metadata(self) -> LLMMetadata:
        return LLMMetadata()

    @llm_completion_callback()
    def complete(self, prompt: str, formatted: bool = False, **kwargs: Any) -> CompletionResponse:
        return CompletionResponse(text="ANSWER")

    @llm_completion_callback()
    def stream_complete(
        self, prompt: str, formatted: bool = False, **kwargs: Any
    ) -> CompletionResponseGen:
        raise NotImplementedError


@pytest.mark.model
async def test_streaming_with_an_llm_that_cannot_stream(mirage, fixed_retriever, clean_nodes):
    engine = MirageQueryEngine(
        fixed_retriever(clean_nodes), NoStreamLLM(), mirage=mirage, streaming=True
    )
    response = engine.query("q")
    assert isinstance(response, StreamingResponse) and list(response.response_gen) == ["ANSWER"]
    # an LLM whose async stream refuses only once it is read: still one chunk
    aresponse = await engine.aquery("q")
    assert isinstance(aresponse, AsyncStreamingResponse)
    assert [chunk async for chunk in aresponse.async_response_gen()] == ["ANSWER"]


class QueryEvents(BaseCallbackHandler):
    """Records the start of each callback event by type."""

    def __init__(self) -> None:
        super().__init__(event_starts_to_ignore=[], event_ends_to_ignore=[])
        self.started: list[str] = []

    def on_event_start(self, event_type, payload=None, event_id="", parent_id="", **kwargs):
        self.started.append(event_type.value)
        return event_id

    def on_event_end(self, event_type, payload=None, event_id="", **kwargs):
        pass

    def start_trace(self, trace_id=None):
        pass

    def end_trace(self, trace_id=None, trace_map=None):
        pass


@pytest.mark.model
async def test_each_query_is_a_callback_event(mirage, fixed_retriever, clean_nodes, monkeypatch):
    handler = QueryEvents()
    engine = MirageQueryEngine(
        fixed_retriever(clean_nodes),
        MockLLM(),
        mirage=mirage,
        callback_manager=CallbackManager([handler]),
    )
    engine.query("q")
    await engine.aquery("q")
    assert handler.started.count("query") == 2
    from llama_index.core import Settings

    default = QueryEvents()
    monkeypatch.setattr(Settings, "callback_manager", CallbackManager([default]))
    MirageQueryEngine(fixed_retriever(clean_nodes), MockLLM(), mirage=mirage).query("q")
    assert default.started.count("query") == 1  # Settings' manager when none is given


@pytest.mark.model
def test_claims_nothing_checked_get_a_prompt_that_says_so(fixed_retriever, clean_nodes):
    def broken(premises, hypotheses):
        raise RuntimeError("model crashed")

    engine = MirageQueryEngine(
        fixed_retriever(clean_nodes),
        MockLLM(),
        mirage=Mirage(NO_SIGNALS.replace(nli_error_policy="pass_through"), nli=CallableNLI(broken)),
    )
    response = engine.query("Where is the Eiffel Tower?")
    meta = response.metadata[MIRAGE_KEY]
    assert meta["route"] == "verified" and meta["unchecked"] is True
    assert "could NOT be cross-checked" in str(
        response
    ) and "was retrieved and cross-checked" not in str(response)
    assert all(
        n.node.metadata[MIRAGE_KEY]["nli_error"] == "RuntimeError: model crashed"
        for n in response.source_nodes
    )
    engine.update_prompts({"unchecked_prompt": "UNCHECKED {evidence} | {question}"})
    assert str(engine.query("Where is the Eiffel Tower?")).startswith("UNCHECKED [source:")
    checked = MirageQueryEngine(
        fixed_retriever(clean_nodes),
        MockLLM(),
        mirage=Mirage(NO_SIGNALS, nli=CallableNLI(lexical_nli)),
    )
    response = checked.query("Where is the Eiffel Tower?")
    assert response.metadata[MIRAGE_KEY]["unchecked"] is False
    assert all("nli_error" not in n.node.metadata[MIRAGE_KEY] for n in response.source_nodes)


@pytest.mark.model
def test_prompts_are_overridable_templates(mirage, fixed_retriever, clean_nodes, polluted_nodes):
    engine = MirageQueryEngine(
        fixed_retriever(clean_nodes),
        MockLLM(),
        mirage=mirage,
        verified_prompt=PromptTemplate("VERIFIED {question}\n{evidence}"),
    )
    assert set(engine.get_prompts()) == {"verified_prompt", "fallback_prompt", "unchecked_prompt"}
    assert str(engine.query("Q1")).startswith("VERIFIED Q1\n[source: ")

    engine.update_prompts({"fallback_prompt": PromptTemplate("FALLBACK {question}")})
    engine._retriever = fixed_retriever(polluted_nodes)
    assert str(engine.query("Q2")) == "FALLBACK Q2"

    with pytest.raises(ValueError, match="evidence"):
        engine.update_prompts({"fallback_prompt": PromptTemplate("{evidence} {question}")})
    # a variable no route fills would reach the model as literal text
    with pytest.raises(ValueError, match=r"unknown \['context_str'\]"):
        engine.update_prompts({"fallback_prompt": "Q: {question} ctx: {context_str}"})
    with pytest.raises(ValueError, match="evidence"):
        MirageQueryEngine(
            fixed_retriever([]), MockLLM(), mirage=mirage, verified_prompt="{question}"
        )


@pytest.mark.model
def test_retrieve_returns_verified_nodes(mirage, fixed_retriever, mixed_nodes, polluted_nodes):
    from llama_index.core.schema import QueryBundle

    engine = MirageQueryEngine(fixed_retriever(mixed_nodes), MockLLM(), mirage=mirage)
    nodes = engine.retrieve(QueryBundle("q"))
    assert nodes and all(MIRAGE_KEY in n.node.metadata for n in nodes)
    assert (
        MirageQueryEngine(fixed_retriever(polluted_nodes), MockLLM(), mirage=mirage).retrieve(
            QueryBundle("q")
        )
        == []
    )


@pytest.mark.model
def test_shared_postprocessor_and_argument_checks(mirage, fixed_retriever, clean_nodes):
    pp = MiragePostprocessor(mirage=mirage, output="claims")
    engine = MirageQueryEngine(fixed_retriever(clean_nodes), MockLLM(), postprocessor=pp)
    assert engine.postprocessor is pp and engine.mirage is mirage
    response = engine.query("q")
    assert all("#claim-" in n.node.node_id for n in response.source_nodes)
    with pytest.raises(ValueError):
        MirageQueryEngine(
            fixed_retriever([]), MockLLM(), postprocessor=pp, mirage=Mirage(nli=mirage.nli)
        )
    with pytest.raises(TypeError):
        MirageQueryEngine(object(), MockLLM(), mirage=mirage)


class TraceRecorder(BaseCallbackHandler):
    """Records the traces a callback manager starts."""

    def __init__(self) -> None:
        super().__init__(event_starts_to_ignore=[], event_ends_to_ignore=[])
        self.traces: list[str | None] = []

    def start_trace(self, trace_id: str | None = None) -> None:
        self.traces.append(trace_id)

    def end_trace(self, trace_id=None, trace_map=None) -> None:
        pass

    def on_event_start(self, event_type, payload=None, event_id="", parent_id="", **kwargs):
        return event_id

    def on_event_end(self, event_type, payload=None, event_id="", **kwargs) -> None:
        pass


def test_the_engine_runs_on_the_arguments_given(fake_nli, fixed_retriever, clean_nodes):
    embedded: list[int] = []

    def embed(texts):
        embedded.append(len(texts))
        return np.eye(len(texts), 8)

    traces = TraceRecorder()
    engine = MirageQueryEngine(
        fixed_retriever(clean_nodes),
        MockLLM(),
        config=MirageConfig(r_max=0.2),
        nli=fake_nli,
        embedder=embed,
        output="claims",
        callback_manager=CallbackManager([traces]),
    )
    assert engine.mirage.config.r_max == 0.2 and engine.mirage.nli is fake_nli
    response = engine.query("Where is the Eiffel Tower?")
    assert response.metadata[MIRAGE_KEY]["route"] == "verified"
    assert response.source_nodes and all("#claim-" in n.node.node_id for n in response.source_nodes)
    assert embedded  # the coordination signals embedded the passages with ``embed``
    assert traces.traces == ["query"]

    shared = Mirage(NO_SIGNALS, nli=fake_nli)
    assert MirageQueryEngine(fixed_retriever([]), MockLLM(), mirage=shared).mirage is shared


def test_both_prompts_can_be_updated(fake_nli, fixed_retriever, clean_nodes):
    engine = MirageQueryEngine(
        fixed_retriever(clean_nodes),
        MockLLM(),
        config=NO_SIGNALS,
        nli=fake_nli,
    )
    verified = PromptTemplate("CHECKED {question}\n{evidence}")
    engine.update_prompts({"verified_prompt": verified})
    assert engine.get_prompts()["verified_prompt"].template == verified.template
    assert str(engine.query("Q1")).startswith("CHECKED Q1\n[source: ")
    with pytest.raises(ValueError, match="evidence"):
        engine.update_prompts({"verified_prompt": PromptTemplate("{question}")})
    # a refused update changes nothing
    assert engine.get_prompts()["verified_prompt"].template == verified.template


@pytest.mark.parametrize(
    "engine_argument",
    [
        {"config": MirageConfig()},
        {"nli": "any"},
        {"embedder": lambda texts: np.ones((len(texts), 2))},
        {"mirage": Mirage(NO_SIGNALS)},
        {"output": "claims"},
    ],
)
def test_a_ready_postprocessor_takes_no_engine_arguments(
    fake_nli, fixed_retriever, engine_argument
):
    pp = MiragePostprocessor(NO_SIGNALS, fake_nli)
    with pytest.raises(ValueError, match="not both"):
        MirageQueryEngine(fixed_retriever([]), MockLLM(), postprocessor=pp, **engine_argument)


def test_a_fallback_prompt_given_at_construction(fake_nli, fixed_retriever, polluted_nodes):
    engine = MirageQueryEngine(
        fixed_retriever(polluted_nodes),
        MockLLM(),
        config=NO_SIGNALS,
        nli=fake_nli,
        fallback_prompt="OWN KNOWLEDGE {question}",
    )
    assert (
        str(engine.query("Where is the Eiffel Tower?"))
        == "OWN KNOWLEDGE Where is the Eiffel Tower?"
    )
    with pytest.raises(ValueError, match="evidence"):
        MirageQueryEngine(
            fixed_retriever([]),
            MockLLM(),
            config=NO_SIGNALS,
            nli=fake_nli,
            fallback_prompt="{evidence} {question}",
        )
