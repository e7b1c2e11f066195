"""create_mirage_rag_chain: which text reaches the model on each route, streaming, traces."""

from __future__ import annotations

import asyncio
import operator
from functools import reduce

import pytest
from langchain_core.documents import Document
from langchain_core.language_models.fake import FakeListLLM, FakeStreamingListLLM
from langchain_core.language_models.fake_chat_models import (
    GenericFakeChatModel,
    ParrotFakeChatModel,
)
from langchain_core.messages import AIMessage
from langchain_core.prompt_values import PromptValue
from langchain_core.prompts import ChatPromptTemplate
from langchain_core.runnables import RunnableLambda

from mirage_core import CallableNLI, Mirage, MirageConfig
from mirage_core.config import MethodSettings
from mirage_core.prompts import FALLBACK_PROMPT, UNCHECKED_PROMPT, render_prompt
from mirage_langchain import MirageRetriever, create_mirage_rag_chain
from tests.conftest import NO_SIGNALS, LexicalSpy
from tests.langchain.conftest import two_path_child

QUESTION = "Where is the Eiffel Tower located?"


def echo_model(prompts: list[str]) -> RunnableLambda:
    """A model that records the prompt it got and answers with it."""

    def call(prompt: PromptValue) -> str:
        text = prompt.to_string()
        prompts.append(text)
        return text

    return RunnableLambda(call, name="echo_model")


def sentences(docs: list[Document]) -> list[str]:
    return [s.strip() + "." for d in docs for s in d.page_content.split(".") if s.strip()]


# -- which text reaches the model -------------------------------------------------------------------
@pytest.mark.model
def test_verified_route_prompt_holds_verified_claims_only(fake_nli, clean_docs, polluted_docs):
    rome = polluted_docs[1]  # "... located in Rome. ... completed in 1925."
    retriever = MirageRetriever(
        base_retriever=lambda q: [*clean_docs, rome],
        config=MirageConfig(min_support=1, method=MethodSettings(contradiction_scope="selected")),
        nli=fake_nli,
    )
    prompts: list[str] = []
    out = create_mirage_rag_chain(retriever, echo_model(prompts)).invoke(QUESTION)
    assert out["route"] == "verified" and out["verdict"].passed
    [prompt] = prompts
    assert out["answer"] == prompt
    assert prompt == render_prompt(QUESTION, out["verdict"])  # the verified prompt (docs/method.md)
    for claim in out["verdict"].verified_claims:
        assert f'"{claim.text}"' in prompt
    assert "Rome" not in prompt and "1925" not in prompt
    assert "[source: https://b.example/2]" not in prompt
    assert "disregard it" in prompt  # refutation prompting
    assert set(out) == {"answer", "route", "verdict", "documents"}
    assert out["documents"] and all(
        d.metadata["mirage"]["decision"] == "verified" for d in out["documents"]
    )


@pytest.mark.model
def test_fallback_route_prompt_has_no_retrieved_text(fake_nli, polluted_retriever, polluted_docs):
    retriever = MirageRetriever(base_retriever=polluted_retriever, nli=fake_nli)
    prompts: list[str] = []
    out = create_mirage_rag_chain(retriever, echo_model(prompts)).invoke({"question": QUESTION})
    assert out["route"] == "fallback" and out["documents"] == []
    assert out["verdict"].reason.startswith("blocked")
    assert prompts == [FALLBACK_PROMPT.format(question=QUESTION)]
    for sentence in sentences(polluted_docs):
        assert sentence not in prompts[0]
    for word in ("Rome", "Berlin", "1925", "1950", "1889", "example", "<evidence>"):
        assert word not in prompts[0]


@pytest.mark.model
def test_chat_model_receives_the_route_prompt(
    fake_nli, clean_retriever, polluted_retriever, recorder
):
    for child, route in ((clean_retriever, "verified"), (polluted_retriever, "fallback")):
        chain = create_mirage_rag_chain(child, ParrotFakeChatModel(), nli=fake_nli)
        out = chain.invoke(QUESTION, config={"callbacks": [recorder]})
        assert out["route"] == route
        assert out["answer"] == recorder.prompts[-1]
        assert ("<evidence>" in out["answer"]) == (route == "verified")


@pytest.mark.model
def test_plain_llm(fake_nli, clean_retriever, recorder):
    chain = create_mirage_rag_chain(
        clean_retriever, FakeListLLM(responses=["Paris."]), nli=fake_nli
    )
    out = chain.invoke(QUESTION, config={"callbacks": [recorder]})
    assert out["answer"] == "Paris." and out["route"] == "verified"
    [prompt] = recorder.prompts
    assert prompt == render_prompt(QUESTION, out["verdict"])


@pytest.mark.model
def test_k_limits_the_quoted_evidence_to_returned_documents(fake_nli, clean_docs):
    retriever = MirageRetriever(base_retriever=lambda q: clean_docs, k=1, nli=fake_nli)
    prompts: list[str] = []
    out = create_mirage_rag_chain(retriever, echo_model(prompts)).invoke(QUESTION)
    [doc] = out["documents"]
    assert f"[source: {doc.metadata['url']}]" in prompts[0]
    assert prompts[0].count("[source:") == 1


# -- prompts --------------------------------------------------------------------------------------------
@pytest.mark.model
def test_custom_prompts(fake_nli, clean_retriever, polluted_retriever):
    prompts: list[str] = []
    kwargs = dict(
        nli=fake_nli,
        verified_prompt="EVIDENCE:\n{evidence}\nQ: {question}",
        fallback_prompt=ChatPromptTemplate.from_messages(
            [("system", "Be careful."), ("human", "{question}")]
        ),
    )
    create_mirage_rag_chain(clean_retriever, echo_model(prompts), **kwargs).invoke(QUESTION)
    create_mirage_rag_chain(polluted_retriever, echo_model(prompts), **kwargs).invoke(QUESTION)
    assert prompts[0].startswith("EVIDENCE:\n[source:") and prompts[0].endswith(f"Q: {QUESTION}")
    assert prompts[1] == f"System: Be careful.\nHuman: {QUESTION}"


@pytest.mark.parametrize(
    ("kwargs", "match"),
    [
        ({"fallback_prompt": "{evidence} {question}"}, "never receives retrieved text"),
        ({"verified_prompt": "{question}"}, "missing \\['evidence'\\]"),
        ({"verified_prompt": "{evidence} {question} {extra}"}, "unexpected \\['extra'\\]"),
    ],
)
def test_bad_prompts(fake_nli, clean_retriever, kwargs, match):
    with pytest.raises(ValueError, match=match):
        create_mirage_rag_chain(clean_retriever, ParrotFakeChatModel(), nli=fake_nli, **kwargs)


def test_bad_arguments(fake_nli, clean_retriever):
    retriever = MirageRetriever(base_retriever=clean_retriever, nli=fake_nli)
    for engine_argument in ({"nli": fake_nli}, {"config": MirageConfig()}, {"mirage": Mirage()}):
        with pytest.raises(ValueError, match="already a MirageRetriever"):
            create_mirage_rag_chain(retriever, ParrotFakeChatModel(), **engine_argument)
    with pytest.raises(TypeError, match="prompt template"):
        create_mirage_rag_chain(retriever, ParrotFakeChatModel(), verified_prompt=3)
    chain = create_mirage_rag_chain(retriever, ParrotFakeChatModel())
    for bad in (3, {"query": QUESTION}, ["q"]):
        with pytest.raises(TypeError, match="question"):
            chain.invoke(bad)


# -- streaming, async, traces ---------------------------------------------------------------------------
@pytest.mark.model
async def test_astream_streams_answer_chunks(fake_nli, clean_retriever):
    model = GenericFakeChatModel(messages=iter([AIMessage("The tower is in Paris, France.")] * 2))
    chain = create_mirage_rag_chain(clean_retriever, model, nli=fake_nli)
    chunks = [c async for c in chain.astream(QUESTION)]
    assert set(chunks[0]) == {"route", "verdict", "documents"} and chunks[0]["route"] == "verified"
    answer_chunks = [c["answer"] for c in chunks[1:]]
    assert len(answer_chunks) > 3 and all(set(c) == {"answer"} for c in chunks[1:])
    final = reduce(operator.add, chunks)
    assert final["answer"] == "The tower is in Paris, France."
    full = chain.invoke(QUESTION)
    assert final["answer"] == full["answer"] and final["documents"] == full["documents"]


@pytest.mark.model
def test_stream_with_a_streaming_llm(fake_nli, polluted_retriever):
    chain = create_mirage_rag_chain(
        polluted_retriever, FakeStreamingListLLM(responses=["I am not sure."]), nli=fake_nli
    )
    chunks = list(chain.stream(QUESTION))
    assert chunks[0]["route"] == "fallback"
    assert "".join(c["answer"] for c in chunks[1:]) == "I am not sure."
    assert len(chunks) > 2


@pytest.mark.model
async def test_ainvoke_and_abatch_of_32_equal_sync(fake_nli, clean_docs, polluted_docs):
    def pick(query: str):
        return clean_docs if int(query.rsplit("#", 1)[1]) % 2 else polluted_docs

    chain = create_mirage_rag_chain(RunnableLambda(pick), ParrotFakeChatModel(), nli=fake_nli)
    queries = [f"{QUESTION} #{i}" for i in range(32)]

    def key(out):
        return out["answer"], out["route"], out["documents"], out["verdict"].to_dict()["selected"]

    sync = [key(chain.invoke(q)) for q in queries]
    assert {s[1] for s in sync} == {"verified", "fallback"}
    assert [key(o) for o in chain.batch(queries)] == sync
    assert [key(o) for o in await chain.abatch(queries)] == sync
    assert [key(o) for o in await asyncio.gather(*(chain.ainvoke(q) for q in queries))] == sync


@pytest.mark.model
def test_traces_nest(fake_nli, clean_retriever, recorder):
    chain = create_mirage_rag_chain(clean_retriever, ParrotFakeChatModel(), nli=fake_nli)
    chain.invoke(QUESTION, config={"callbacks": [recorder]})
    top = recorder.run("mirage_rag_chain")
    step = recorder.run("mirage_retrieve")
    wrapper = recorder.run("MirageRetriever")
    child = recorder.run("VectorStoreRetriever")
    assert top["parent"] is None
    assert child["parent"] == wrapper["run_id"]
    assert wrapper["parent"] == step["run_id"]
    [event] = recorder.events
    assert event["run_id"] == wrapper["run_id"]
    model_run = next(r for r in recorder.runs if r["kind"] == "llm")
    route = recorder.run("mirage_route")
    assert route["parent"] is not None and model_run["parent"] is not None


@pytest.mark.model
async def test_chain_custom_event_in_astream_events(fake_nli, polluted_retriever):
    chain = create_mirage_rag_chain(polluted_retriever, ParrotFakeChatModel(), nli=fake_nli)
    events = [e async for e in chain.astream_events(QUESTION, version="v2")]
    [custom] = [e for e in events if e["event"] == "on_custom_event"]
    assert custom["name"] == "mirage_verdict" and custom["data"]["decision"] == "fallback"


@pytest.mark.model
def test_plain_retriever_with_shared_engine(fake_nli, clean_retriever):
    engine = Mirage(MirageConfig(), nli=fake_nli)
    out = create_mirage_rag_chain(clean_retriever, ParrotFakeChatModel(), mirage=engine).invoke(
        QUESTION
    )
    assert out["route"] == "verified"


def test_empty_question_takes_the_fallback(fake_nli, clean_docs):
    prompts: list[str] = []
    chain = create_mirage_rag_chain(
        lambda q: clean_docs if q.strip() else [], echo_model(prompts), nli=fake_nli
    )
    out = chain.invoke("")
    assert out["route"] == "fallback" and out["verdict"].reason.startswith("no evidence")
    assert prompts == [FALLBACK_PROMPT.format(question="")]


# -- the engine the chain is given --------------------------------------------------------------------
def test_the_chain_defends_with_the_engine_it_is_given(clean_docs):
    model = ParrotFakeChatModel()
    spy = LexicalSpy()
    chain = create_mirage_rag_chain(lambda q: clean_docs, model, config=NO_SIGNALS, nli=spy)
    assert chain.invoke(QUESTION)["route"] == "verified" and spy.batches

    strict = NO_SIGNALS.replace(d_min=len(clean_docs) + 1)
    chain = create_mirage_rag_chain(lambda q: clean_docs, model, config=strict, nli=LexicalSpy())
    out = chain.invoke(QUESTION)
    assert out["route"] == "fallback" and "d_min" in out["verdict"].reason

    spy = LexicalSpy()
    engine = Mirage(NO_SIGNALS, nli=spy)
    chain = create_mirage_rag_chain(lambda q: clean_docs, model, mirage=engine)
    assert chain.invoke(QUESTION)["route"] == "verified" and spy.batches


async def test_the_async_chain_awaits_the_retriever_s_async_path(fake_nli, clean_docs):
    calls: list[str] = []
    chain = create_mirage_rag_chain(
        two_path_child(clean_docs, calls),
        ParrotFakeChatModel(),
        config=NO_SIGNALS,
        nli=fake_nli,
    )
    assert (await chain.ainvoke(QUESTION))["route"] == "verified"
    assert calls == ["async"]


@pytest.mark.model
@pytest.mark.parametrize(
    "wrap",
    [
        lambda r: r.with_config(tags=["prod"]),
        lambda r: r.with_retry(stop_after_attempt=2),
        lambda r: r.with_config(run_name="a").with_config(tags=["b"]),
    ],
    ids=["with_config", "with_retry", "two_bindings"],
)
def test_a_wrapped_mirage_retriever_is_run_once_as_given(fake_nli, clean_docs, recorder, wrap):
    spy = LexicalSpy()
    retriever = MirageRetriever(base_retriever=lambda q: clean_docs, nli=spy)
    prompts: list[str] = []
    chain = create_mirage_rag_chain(wrap(retriever), echo_model(prompts))
    out = chain.invoke(QUESTION, config={"callbacks": [recorder]})
    assert out["route"] == retriever.retrieve_with_verdict(QUESTION).route == "verified"
    assert len(recorder.events) == 1  # one verdict: the wrapper was not wrapped again
    assert len(spy.batches) == 2  # the chain's call and the direct one, on the user's engine
    with pytest.raises(ValueError, match="already a MirageRetriever"):
        create_mirage_rag_chain(wrap(retriever), echo_model(prompts), config=MirageConfig())


@pytest.mark.model
def test_claims_nothing_checked_get_a_prompt_that_says_so(clean_docs):
    def broken(premises, hypotheses):
        raise RuntimeError("model crashed")

    retriever = MirageRetriever(
        base_retriever=lambda q: clean_docs,
        nli=CallableNLI(broken),
        config=MirageConfig(nli_error_policy="pass_through"),
    )
    prompts: list[str] = []
    out = create_mirage_rag_chain(retriever, echo_model(prompts)).invoke(QUESTION)
    assert out["route"] == "verified" and out["verdict"].unchecked
    [prompt] = prompts
    assert (
        prompt.startswith(UNCHECKED_PROMPT.split("{")[0])
        and "was retrieved and cross-checked" not in prompt
    )
    assert prompt == render_prompt(QUESTION, out["verdict"])
    custom = create_mirage_rag_chain(
        retriever, echo_model(prompts), unchecked_prompt="UNCHECKED {evidence} | {question}"
    )
    assert custom.invoke(QUESTION)["answer"].startswith("UNCHECKED [source:")
