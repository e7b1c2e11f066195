"""``MiragePostprocessor``: a LlamaIndex node postprocessor that keeps only verified evidence."""

from __future__ import annotations

import pickle
from collections.abc import Sequence
from dataclasses import dataclass, replace
from typing import Any

from llama_index.core.bridge.pydantic import ConfigDict, Field, PrivateAttr
from llama_index.core.postprocessor.types import BaseNodePostprocessor
from llama_index.core.schema import NodeWithScore, QueryBundle

from mirage_core import Mirage, MirageConfig, NLIBackend, Passage, Verdict
from mirage_core.defense import resolve_engine
from mirage_core.evidence import no_text_reason
from mirage_core.verdict import Decision
from mirage_llamaindex._convert import (
    DEFAULT_SOURCE_KEYS,
    Converted,
    Output,
    PassedOver,
    to_nodes,
    to_passages,
)
from mirage_llamaindex.events import dispatcher, gate_event

__all__ = ["MiragePostprocessor", "MirageResult"]


@dataclass(frozen=True)
class MirageResult:
    """What one verification produced.

    Attributes:
        nodes: the new verified nodes (``[]`` when the gate blocked).
        verdict: the engine's :class:`~mirage_core.Verdict`.
        passed_over: nodes that were not verified (image / media nodes, nodes without text).
    """

    nodes: list[NodeWithScore]
    verdict: Verdict
    passed_over: tuple[PassedOver, ...] = ()

    @property
    def route(self) -> Decision:
        """``"verified"`` or ``"fallback"``."""
        return self.verdict.decision

    def to_metadata(self) -> dict[str, Any]:
        """The JSON-safe summary :class:`~mirage_llamaindex.MirageQueryEngine` puts in
        ``Response.metadata["mirage"]``: ``route``, ``unchecked`` (the claims were not checked:
        the NLI model failed and the config fails open), ``reason``, ``verdict``
        (``Verdict.to_dict(include_edges=False)``) and ``passed_over``."""
        return {
            "route": self.route,
            "unchecked": self.verdict.unchecked,
            "reason": self.verdict.reason,
            "verdict": self.verdict.to_dict(include_edges=False),
            "passed_over": [p.to_dict() for p in self.passed_over],
        }


def _query_str(query_bundle: QueryBundle | str | None) -> str:
    if query_bundle is None:
        return ""
    if isinstance(query_bundle, str):
        return query_bundle
    return query_bundle.query_str


def _of_nodes(verdict: Verdict, converted: Converted) -> Verdict:
    """``verdict``, its reason said of the nodes where nodes were retrieved and every one was
    passed over: the engine, given no passage, reads that as nothing retrieved."""
    if converted.passages or not converted.passed_over:
        return verdict
    return replace(verdict, reason=no_text_reason(len(converted.passed_over), "node"))


class MiragePostprocessor(BaseNodePostprocessor):
    """Verify retrieved nodes with MIRAGE and keep only what the gate lets through.

    Each node becomes a passage (text; source from ``metadata`` ``url`` / ``source`` /
    ``file_path`` / ``file_name`` / ``doc_id``, else the document id, else the node id; domain
    from ``metadata["domain"]``, else the URL host, else the source; score from the retriever).
    The engine cross-checks the claims of different sources and decides:

    * **verified**: returns NEW nodes reduced to their verified sentences (``output="sentences"``,
      the default), the contributing nodes whole (``"nodes"``) or one node per verified claim
      (``"claims"``); retriever scores are kept, and ``metadata["mirage"]`` records the
      provenance. That key is listed in ``excluded_llm_metadata_keys`` and
      ``excluded_embed_metadata_keys``, so it never reaches a prompt or an embedding.
    * **blocked**: returns ``[]``. Inside ``index.as_query_engine(node_postprocessors=[...])``
      LlamaIndex's synthesizer then answers "Empty Response"; use
      :class:`~mirage_llamaindex.MirageQueryEngine` to answer from the fallback prompt instead.

    Image / media nodes and nodes without text are passed over (never returned); the reasons
    are in :meth:`verify`'s result and in the :class:`~mirage_llamaindex.MirageGateEvent`.
    When every retrieved node is passed over, nothing is left to check: the gate blocks
    (``[]``) with the reason ``"no evidence: <n> retrieved nodes hold no text to check"``.
    The caller's nodes are never modified. One :class:`~mirage_core.Mirage` is built per
    instance and shared by every call (thread-safe; the NLI model loads on first use).

    Args:
        config: a :class:`~mirage_core.MirageConfig` (default thresholds when omitted).
        nli: an NLI backend or model name/path for the engine (the packaged model by default).
        embedder: passage embedder when the config needs one (the default's
            ``coordination="embedding"``, ``independence="embedding"``): a LlamaIndex
            embedding model, callable or :class:`~mirage_core.embeddings.Embedder` (the
            packaged all-MiniLM-L6-v2 by default, on which the coordination signals'
            thresholds were fit: another embedder shifts them).
        mirage: a ready :class:`~mirage_core.Mirage` instead of ``config`` / ``nli`` / ``embedder``.
        output: ``"sentences"`` | ``"nodes"`` | ``"claims"``.
        source_keys: metadata keys tried, in order, for a node's source.
    """

    # an option set later (``pp.output = "claims"``) is checked as one given at construction
    model_config = ConfigDict(arbitrary_types_allowed=True, validate_assignment=True)

    output: Output = Field(default="sentences", description="sentences | nodes | claims")
    source_keys: tuple[str, ...] = Field(
        default=DEFAULT_SOURCE_KEYS,
        description="Node metadata keys tried, in order, for the source id.",
    )
    _mirage: Mirage = PrivateAttr()

    def __init__(
        self,
        config: MirageConfig | None = None,
        nli: NLIBackend | str | None = None,
        *,
        embedder: Any = None,
        mirage: Mirage | None = None,
        output: Output = "sentences",
        source_keys: Sequence[str] = DEFAULT_SOURCE_KEYS,
        **kwargs: Any,
    ) -> None:
        engine = resolve_engine(mirage, config, nli, embedder)  # before any model loads
        # the pydantic fields above; the base class's typed __init__ names only its own
        super().__init__(output=output, source_keys=source_keys, **kwargs)  # type: ignore[call-arg]
        self._mirage = engine

    @classmethod
    def class_name(cls) -> str:
        return "MiragePostprocessor"

    def __getstate__(self) -> dict[str, Any]:
        # LlamaIndex drops a private attribute it cannot pickle and builds a default one on
        # load: a copy would then defend with other thresholds and another model, silently
        try:
            pickle.dumps(self._mirage)
        except Exception as exc:
            raise TypeError(
                f"this MiragePostprocessor cannot be pickled: its engine cannot ({exc}); an "
                "engine whose nli is a model name or path (or the packaged model) can"
            ) from exc
        return super().__getstate__()

    def __setstate__(self, state: dict[str, Any]) -> None:
        engine = (state.get("__pydantic_private__") or {}).get("_mirage")
        super().__setstate__(state)  # LlamaIndex runs __init__ again: a default engine
        if engine is not None:
            self._mirage = engine  # the engine the pickled postprocessor defended with

    @property
    def mirage(self) -> Mirage:
        """The engine this postprocessor runs."""
        return self._mirage

    # -- stages (each one a span) -----------------------------------------------------------
    @dispatcher.span
    def _convert(self, nodes: Sequence[NodeWithScore]) -> Converted:
        return to_passages(nodes, self.source_keys)

    @dispatcher.span
    def _defend(self, query: str, passages: list[Passage]) -> Verdict:
        return self._mirage.defend(query, passages)

    @dispatcher.span
    async def _adefend(self, query: str, passages: list[Passage]) -> Verdict:
        return await self._mirage.adefend(query, passages)

    @dispatcher.span
    def _rebuild(
        self, nodes: Sequence[NodeWithScore], converted: Converted, verdict: Verdict
    ) -> MirageResult:
        out = to_nodes(nodes, converted, verdict, self.output)
        dispatcher.event(
            gate_event(
                verdict,
                n_nodes=len(nodes),
                n_passages=len(converted.passages),
                passed_over=[p.to_dict() for p in converted.passed_over],
            )
        )
        return MirageResult(out, verdict, tuple(converted.passed_over))

    # -- public ------------------------------------------------------------------------------
    @dispatcher.span
    def verify(
        self, nodes: Sequence[NodeWithScore], query_bundle: QueryBundle | str | None = None
    ) -> MirageResult:
        """Verify ``nodes`` for the query; the result holds the new nodes and the verdict."""
        query = _query_str(query_bundle)
        converted = self._convert(nodes)
        verdict = _of_nodes(self._defend(query, converted.passages), converted)
        return self._rebuild(nodes, converted, verdict)

    @dispatcher.span
    async def averify(
        self, nodes: Sequence[NodeWithScore], query_bundle: QueryBundle | str | None = None
    ) -> MirageResult:
        """Async :meth:`verify`: the engine runs off the event loop."""
        query = _query_str(query_bundle)
        converted = self._convert(nodes)
        verdict = _of_nodes(await self._adefend(query, converted.passages), converted)
        return self._rebuild(nodes, converted, verdict)

    def _postprocess_nodes(
        self, nodes: list[NodeWithScore], query_bundle: QueryBundle | None = None
    ) -> list[NodeWithScore]:
        return self.verify(nodes, query_bundle).nodes

    async def _apostprocess_nodes(
        self, nodes: list[NodeWithScore], query_bundle: QueryBundle | None = None
    ) -> list[NodeWithScore]:
        return (await self.averify(nodes, query_bundle)).nodes
