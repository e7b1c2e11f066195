"""Instrumentation: the gate event reaches registered handlers; the stages are spans."""

from __future__ import annotations

import json
from collections.abc import Iterator
from typing import Any

import pytest
from llama_index.core.bridge.pydantic import Field
from llama_index.core.instrumentation import get_dispatcher
from llama_index.core.instrumentation.event_handlers import BaseEventHandler
from llama_index.core.instrumentation.span_handlers import SimpleSpanHandler
from llama_index.core.llms import MockLLM
from llama_index.core.schema import ImageNode, NodeWithScore

from mirage_core import CallableNLI, Verdict
from mirage_llamaindex import MirageGateEvent, MiragePostprocessor, MirageQueryEngine
from tests.conftest import NO_SIGNALS, down_nli

pytestmark = pytest.mark.model


class Recorder(BaseEventHandler):
    events: list[Any] = Field(default_factory=list)

    def handle(self, event: Any, **kwargs: Any) -> None:
        if isinstance(event, MirageGateEvent):
            self.events.append(event)


@pytest.fixture
def recorder() -> Iterator[Recorder]:
    root = get_dispatcher()  # LlamaIndex's root dispatcher, where users register handlers
    handler = Recorder()
    root.add_event_handler(handler)
    yield handler
    root.event_handlers.remove(handler)


@pytest.fixture
def spans() -> Iterator[SimpleSpanHandler]:
    root = get_dispatcher()
    handler = SimpleSpanHandler()
    root.add_span_handler(handler)
    yield handler
    root.span_handlers.remove(handler)


def test_gate_event_reaches_root_handler(recorder, mirage, clean_nodes, polluted_nodes):
    pp = MiragePostprocessor(mirage=mirage)
    pp.postprocess_nodes(clean_nodes, query_str="Where is the Eiffel Tower?")
    pp.postprocess_nodes(polluted_nodes, query_str="Where is it?")
    passed, blocked = recorder.events
    assert (passed.decision, passed.query) == ("verified", "Where is the Eiffel Tower?")
    assert passed.reason.startswith("passed") and passed.d_src == 3 and passed.r_contr == 0.0
    assert passed.n_nodes == passed.n_passages == 3 and passed.n_verified_claims > 0
    assert blocked.decision == "fallback" and blocked.reason.startswith("blocked")
    assert blocked.r_contr > mirage.config.r_max and blocked.n_verified_claims == 0
    # the full verdict rides along but is not serialized
    assert isinstance(passed.verdict, Verdict) and passed.verdict.decision == "verified"
    dumped = passed.model_dump()
    assert "verdict" not in dumped and dumped["class_name"] == "MirageGateEvent"
    json.dumps(dumped, default=str)


async def test_gate_event_from_query_engine_async_with_passed_over(
    recorder, mirage, fixed_retriever, clean_nodes
):
    image = NodeWithScore(node=ImageNode(image_url="https://img.example/a.png"), score=1.0)
    engine = MirageQueryEngine(fixed_retriever([*clean_nodes, image]), MockLLM(), mirage=mirage)
    await engine.aquery("q")
    engine.query("q")
    assert len(recorder.events) == 2
    for event in recorder.events:
        assert event.decision == "verified" and event.n_nodes == 4 and event.n_passages == 3
        assert event.passed_over == [
            {"index": 3, "node_id": image.node.node_id, "reason": event.passed_over[0]["reason"]}
        ]
        assert "image node" in event.passed_over[0]["reason"]


def test_gate_event_says_the_nodes_held_no_text_when_all_were_passed_over(recorder, mirage):
    image = NodeWithScore(node=ImageNode(image_url="https://img.example/a.png"), score=1.0)
    MiragePostprocessor(mirage=mirage).postprocess_nodes([image], query_str="q")
    [event] = recorder.events
    assert event.decision == "fallback" and event.n_nodes == 1 and event.n_passages == 0
    assert event.reason == "no evidence: 1 retrieved node holds no text to check"
    assert event.reason == event.verdict.reason


def test_handler_on_mirage_dispatcher_only(mirage, clean_nodes):
    own = get_dispatcher("mirage_llamaindex")
    handler = Recorder()
    own.add_event_handler(handler)
    try:
        MiragePostprocessor(mirage=mirage).postprocess_nodes(clean_nodes, query_str="q")
    finally:
        own.event_handlers.remove(handler)
    assert [e.decision for e in handler.events] == ["verified"]


async def test_stages_are_spans_and_the_event_is_inside_them(
    spans, recorder, mirage, fixed_retriever, clean_nodes
):
    engine = MirageQueryEngine(fixed_retriever(clean_nodes), MockLLM(), mirage=mirage)
    engine.query("q")
    await engine.aquery("q")
    names = [s.id_.rsplit("-", 5)[0] for s in spans.completed_spans]
    for stage in (
        "MiragePostprocessor.verify",
        "MiragePostprocessor._convert",
        "MiragePostprocessor._defend",
        "MiragePostprocessor._rebuild",
        "MirageQueryEngine._generate",
        "MiragePostprocessor.averify",
        "MiragePostprocessor._adefend",
        "MirageQueryEngine._agenerate",
    ):
        assert stage in names, stage
    by_id = {s.id_: s for s in spans.completed_spans}
    for event in recorder.events:
        assert event.span_id is not None and by_id[event.span_id].id_.startswith(
            "MiragePostprocessor._rebuild"
        )


async def test_async_postprocessing_reports_the_query_it_was_given(recorder, fake_nli, clean_nodes):
    pp = MiragePostprocessor(NO_SIGNALS, fake_nli)
    await pp.apostprocess_nodes(clean_nodes, query_str="Where is the Eiffel Tower?")
    [event] = recorder.events
    assert (event.query, event.decision) == ("Where is the Eiffel Tower?", "verified")


def test_a_failed_nli_call_reports_no_contradiction_mass(recorder, clean_nodes):
    pp = MiragePostprocessor(NO_SIGNALS, CallableNLI(down_nli))
    assert pp.postprocess_nodes(clean_nodes, query_str="Where is the Eiffel Tower?") == []
    [event] = recorder.events
    assert event.decision == "fallback" and "NLI failed" in event.reason
    assert event.r_contr is None  # the verdict's NaN is not a JSON number


@pytest.mark.parametrize(
    ("fields", "bad"),
    [({"decision": "maybe"}, "decision"), ({"verdict": {"decision": "verified"}}, "verdict")],
)
def test_gate_event_fields_are_typed(fields, bad):
    from llama_index.core.bridge.pydantic import ValidationError

    with pytest.raises(ValidationError, match=bad):
        MirageGateEvent(**{"decision": "fallback", "reason": "r", **fields})
    assert MirageGateEvent(decision="fallback", reason="r").verdict is None
