"""Instrumentation: the gate decision as a LlamaIndex event, and the dispatcher for stage spans.

Every mirage span and event goes through the dispatcher named ``"mirage_llamaindex"``, which
propagates to LlamaIndex's root dispatcher. A handler sees the gate decision whether it is
registered on the root (``get_dispatcher()``) or on mirage's own dispatcher only::

    from llama_index.core.instrumentation import get_dispatcher
    from llama_index.core.instrumentation.event_handlers import BaseEventHandler
    from mirage_llamaindex import MirageGateEvent

    class GateLog(BaseEventHandler):
        def handle(self, event, **kwargs):
            if isinstance(event, MirageGateEvent):
                print(event.decision, event.reason)

    get_dispatcher().add_event_handler(GateLog())

Spans (visible to any span handler, e.g. an OpenTelemetry exporter), in order of a query:
``MiragePostprocessor.verify`` / ``averify`` enclosing ``_convert`` (nodes → passages),
``_defend`` / ``_adefend`` (the engine) and ``_rebuild`` (verdict → nodes); and in
:class:`~mirage_llamaindex.MirageQueryEngine` the retriever's own span and ``_generate`` /
``_agenerate`` (the LLM call of the chosen route).
"""

from __future__ import annotations

import math
from typing import Any

from llama_index.core.bridge.pydantic import Field
from llama_index.core.instrumentation import get_dispatcher
from llama_index.core.instrumentation.events.base import BaseEvent

from mirage_core import Verdict
from mirage_core.verdict import Decision

__all__ = ["MirageGateEvent", "dispatcher"]

#: The dispatcher of every mirage span and event (child of LlamaIndex's root dispatcher).
dispatcher = get_dispatcher("mirage_llamaindex")


class MirageGateEvent(BaseEvent):
    """The gate decision for one query.

    Attributes:
        query: the query string ("" when the postprocessor was called without one).
        decision: ``"verified"`` (verified claims may reach the model) or ``"fallback"`` (no
            retrieved text may).
        reason: the engine's one-line reason (``"no evidence: ..."`` when there was nothing to
            verify).
        r_contr: contradiction ratio of the claim graph (``None`` when the NLI call failed).
        d_src: distinct domains among the verified claims.
        n_nodes: nodes handed to mirage; n_passages: those sent to the engine (the others were
            passed over, see ``passed_over``); n_verified_claims: claims delivered.
        passed_over: ``{"index", "node_id", "reason"}`` for each node that was not verified
            (image / media nodes, nodes without text).
        nli_error / embedding_error: the model failure the config did not raise
            (``"Type: message"``), else ``None``.
        unchecked: the NLI model failed and the config fails open
            (``nli_error_policy="pass_through"``): the claims delivered were not checked.
        verdict: the engine's full :class:`~mirage_core.Verdict` (``explain()``, ``to_dict()``,
            ``to_networkx()``); excluded from ``model_dump`` so serializing the event stays cheap
            and JSON-safe.
    """

    query: str = ""
    decision: Decision
    reason: str
    r_contr: float | None = None
    d_src: int = 0
    n_nodes: int = 0
    n_passages: int = 0
    n_verified_claims: int = 0
    passed_over: list[dict[str, Any]] = Field(default_factory=list)
    nli_error: str | None = None
    embedding_error: str | None = None
    unchecked: bool = False
    verdict: Verdict | None = Field(default=None, exclude=True, repr=False)

    @classmethod
    def class_name(cls) -> str:
        return "MirageGateEvent"


def gate_event(
    verdict: Verdict, *, n_nodes: int, n_passages: int, passed_over: list[dict[str, Any]]
) -> MirageGateEvent:
    """Build the event for ``verdict`` (a :class:`~mirage_core.Verdict`)."""
    r = verdict.r_contr
    return MirageGateEvent(
        query=verdict.query,
        decision=verdict.decision,
        reason=verdict.reason,
        r_contr=float(r) if r is not None and math.isfinite(r) else None,
        d_src=int(verdict.d_src),
        n_nodes=n_nodes,
        n_passages=n_passages,
        n_verified_claims=len(verdict.verified_claims),
        passed_over=passed_over,
        nli_error=verdict.nli_error,
        embedding_error=verdict.embedding_error,
        unchecked=verdict.unchecked,
        verdict=verdict,
    )
