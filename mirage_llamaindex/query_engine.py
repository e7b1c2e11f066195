"""``MirageQueryEngine``: retrieve → MIRAGE gate → verified-claims answer or fallback answer."""

from __future__ import annotations

from collections.abc import AsyncGenerator, Generator
from collections.abc import Set as AbstractSet
from typing import Any

from llama_index.core.base.base_query_engine import BaseQueryEngine
from llama_index.core.base.base_retriever import BaseRetriever
from llama_index.core.base.response.schema import (
    RESPONSE_TYPE,
    AsyncStreamingResponse,
    Response,
    StreamingResponse,
)
from llama_index.core.callbacks.base import CallbackManager
from llama_index.core.callbacks.schema import CBEventType, EventPayload
from llama_index.core.llms import LLM
from llama_index.core.prompts import BasePromptTemplate, PromptTemplate
from llama_index.core.prompts.mixin import PromptDictType, PromptMixinType
from llama_index.core.schema import NodeWithScore, QueryBundle
from llama_index.core.settings import Settings

from mirage_core import Mirage, MirageConfig, NLIBackend
from mirage_core.prompts import FALLBACK_PROMPT, UNCHECKED_PROMPT, VERIFIED_PROMPT, format_claims
from mirage_llamaindex._convert import MIRAGE_KEY, Output
from mirage_llamaindex.events import dispatcher
from mirage_llamaindex.postprocessor import MiragePostprocessor, MirageResult

__all__ = [
    "DEFAULT_FALLBACK_PROMPT",
    "DEFAULT_UNCHECKED_PROMPT",
    "DEFAULT_VERIFIED_PROMPT",
    "MirageQueryEngine",
]

#: The engine's prompts (docs/method.md, Prompts) as LlamaIndex templates.
DEFAULT_VERIFIED_PROMPT = PromptTemplate(VERIFIED_PROMPT)
DEFAULT_FALLBACK_PROMPT = PromptTemplate(FALLBACK_PROMPT)
DEFAULT_UNCHECKED_PROMPT = PromptTemplate(UNCHECKED_PROMPT)

#: Each prompt the engine takes: its default, the variables it must use, and those it may not
#: (no retrieved text may reach the model on the fallback route).
_PROMPTS: dict[str, tuple[BasePromptTemplate, AbstractSet[str], AbstractSet[str]]] = {
    "verified_prompt": (DEFAULT_VERIFIED_PROMPT, {"evidence", "question"}, frozenset()),
    "fallback_prompt": (DEFAULT_FALLBACK_PROMPT, {"question"}, {"evidence"}),
    "unchecked_prompt": (DEFAULT_UNCHECKED_PROMPT, {"evidence", "question"}, frozenset()),
}


def _as_prompt(prompt: BasePromptTemplate | str | None, name: str) -> BasePromptTemplate:
    """``prompt`` (a template or its text; ``None``: the default) checked as prompt ``name``
    of :data:`_PROMPTS`."""
    default, required, forbidden = _PROMPTS[name]
    if prompt is None:
        return default
    if isinstance(prompt, str):
        prompt = PromptTemplate(prompt)
    if not isinstance(prompt, BasePromptTemplate):
        raise TypeError(f"{name} must be a PromptTemplate or str, got {type(prompt).__name__}")
    names = set(prompt.template_vars)
    if missing := required - names:
        raise ValueError(
            f"{name} must use the variables {sorted(required)}; missing {sorted(missing)}"
        )
    if unknown := names - required - forbidden:  # it would reach the model as literal text
        raise ValueError(
            f"{name} may use only the variables {sorted(required)}; unknown {sorted(unknown)}"
        )
    if extra := forbidden & names:
        raise ValueError(
            f"{name} must not use {sorted(extra)}: no retrieved text may reach the model on this route"
        )
    return prompt


class MirageQueryEngine(BaseQueryEngine):
    """A query engine with MIRAGE between retrieval and generation.

    ``retriever`` → :class:`MiragePostprocessor` → one of two routes:

    * **verified**: the LLM answers from the verified claims, grouped by source and quoted as
      data (``verified_prompt``, variables ``{evidence}`` and ``{question}``);
      ``source_nodes`` are the verified nodes.
    * **fallback** (gate blocked, or nothing to check: no node retrieved, or none with text;
      reason ``"no evidence: ..."``): the LLM answers from its own knowledge
      (``fallback_prompt``, variable ``{question}`` only; a template with ``{evidence}`` is
      refused); no retrieved text reaches it and ``source_nodes`` is empty. The engine never
      answers "Empty Response".

    ``Response.metadata["mirage"]`` is a JSON-safe dict: ``route``, ``reason``, ``verdict``
    (``Verdict.to_dict(include_edges=False)``) and ``passed_over``. The full
    :class:`~mirage_core.Verdict` object rides on the :class:`~mirage_llamaindex.MirageGateEvent`
    (``event.verdict``) and on :meth:`verify`'s result. Like LlamaIndex's synthesizers, the
    metadata also maps each source node id to that node's metadata.

    With ``streaming=True`` the answer is a ``StreamingResponse`` (``AsyncStreamingResponse``
    from ``aquery``), or a one-chunk stream when the LLM cannot stream. Retriever errors
    propagate. Prompts can be replaced with ``update_prompts({"verified_prompt": ...,
    "fallback_prompt": ...})``.

    Args:
        retriever: any LlamaIndex retriever (e.g. ``index.as_retriever(similarity_top_k=8)``).
        llm: the LLM (``Settings.llm`` when omitted).
        config / nli / embedder / mirage / output: as for :class:`MiragePostprocessor`.
        postprocessor: a ready :class:`MiragePostprocessor` instead of the four above.
        verified_prompt / fallback_prompt: ``PromptTemplate`` (or str) overrides.
        unchecked_prompt: what the verified route uses instead when nothing checked its claims
            (the NLI model failed and the config fails open, ``nli_error_policy=
            "pass_through"``: ``verdict.unchecked``); same variables as ``verified_prompt``
            (default: ``DEFAULT_UNCHECKED_PROMPT``, which tells the model so).
        callback_manager: receives the ``QUERY`` event of each query (default:
            ``Settings.callback_manager``).
        streaming: stream the answer.
    """

    def __init__(
        self,
        retriever: BaseRetriever,
        llm: LLM | None = None,
        *,
        config: MirageConfig | None = None,
        nli: NLIBackend | str | None = None,
        embedder: Any = None,
        mirage: Mirage | None = None,
        output: Output = "sentences",
        postprocessor: MiragePostprocessor | None = None,
        verified_prompt: BasePromptTemplate | str | None = None,
        fallback_prompt: BasePromptTemplate | str | None = None,
        unchecked_prompt: BasePromptTemplate | str | None = None,
        streaming: bool = False,
        callback_manager: CallbackManager | None = None,
    ) -> None:
        if not isinstance(retriever, BaseRetriever):
            raise TypeError(
                f"retriever must be a llama_index BaseRetriever, got {type(retriever).__name__}"
            )
        if postprocessor is not None:
            if (
                config is not None
                or nli is not None
                or embedder is not None
                or mirage is not None
                or output != "sentences"
            ):
                raise ValueError(
                    "pass either postprocessor= or config=/nli=/embedder=/mirage=/output=, not both"
                )
            if not isinstance(postprocessor, MiragePostprocessor):
                raise TypeError(
                    f"postprocessor must be a MiragePostprocessor, got {type(postprocessor).__name__}"
                )
        self._retriever = retriever
        self._llm = llm if llm is not None else Settings.llm
        self._postprocessor = postprocessor or MiragePostprocessor(
            config, nli, embedder=embedder, mirage=mirage, output=output
        )
        given = {
            "verified_prompt": verified_prompt,
            "fallback_prompt": fallback_prompt,
            "unchecked_prompt": unchecked_prompt,
        }
        self._prompts = {name: _as_prompt(prompt, name) for name, prompt in given.items()}
        self._streaming = bool(streaming)
        super().__init__(callback_manager=callback_manager or Settings.callback_manager)

    # -- accessors ---------------------------------------------------------------------------
    @property
    def retriever(self) -> BaseRetriever:
        return self._retriever

    @property
    def postprocessor(self) -> MiragePostprocessor:
        return self._postprocessor

    @property
    def mirage(self) -> Mirage:
        return self._postprocessor.mirage

    # -- prompts -----------------------------------------------------------------------------
    def _get_prompts(self) -> PromptDictType:
        return dict(self._prompts)

    def _update_prompts(self, prompts: PromptDictType) -> None:
        for name in _PROMPTS.keys() & prompts.keys():
            self._prompts[name] = _as_prompt(prompts[name], name)

    def _get_prompt_modules(self) -> PromptMixinType:
        return {}

    # -- retrieval + gate --------------------------------------------------------------------
    def verify(self, query_bundle: QueryBundle | str) -> MirageResult:
        """Retrieve and verify, without generating (the verdict and the verified nodes)."""
        bundle = QueryBundle(query_bundle) if isinstance(query_bundle, str) else query_bundle
        return self._postprocessor.verify(self._retriever.retrieve(bundle), bundle)

    async def averify(self, query_bundle: QueryBundle | str) -> MirageResult:
        bundle = QueryBundle(query_bundle) if isinstance(query_bundle, str) else query_bundle
        return await self._postprocessor.averify(await self._retriever.aretrieve(bundle), bundle)

    def retrieve(self, query_bundle: QueryBundle) -> list[NodeWithScore]:
        """The verified nodes for the query (``[]`` when the gate blocks)."""
        return self.verify(query_bundle).nodes

    async def aretrieve(self, query_bundle: QueryBundle) -> list[NodeWithScore]:
        return (await self.averify(query_bundle)).nodes

    # -- generation --------------------------------------------------------------------------
    def _route(
        self, question: str, result: MirageResult
    ) -> tuple[BasePromptTemplate, dict[str, str], list[NodeWithScore]]:
        if result.verdict.passed:
            evidence = format_claims(result.verdict.verified_claims)
            name = "unchecked_prompt" if result.verdict.unchecked else "verified_prompt"
            return self._prompts[name], {"evidence": evidence, "question": question}, result.nodes
        return self._prompts["fallback_prompt"], {"question": question}, []

    @staticmethod
    def _metadata(result: MirageResult, sources: list[NodeWithScore]) -> dict[str, Any]:
        meta: dict[str, Any] = {n.node.node_id: n.node.metadata for n in sources}
        meta[MIRAGE_KEY] = result.to_metadata()
        return meta

    @dispatcher.span
    def _generate(self, question: str, result: MirageResult) -> RESPONSE_TYPE:
        prompt, args, sources = self._route(question, result)
        meta = self._metadata(result, sources)
        if self._streaming:
            gen = _stream_or_one_chunk(self._llm, prompt, args)
            return StreamingResponse(response_gen=gen, source_nodes=sources, metadata=meta)
        return Response(self._llm.predict(prompt, **args), source_nodes=sources, metadata=meta)

    @dispatcher.span
    async def _agenerate(self, question: str, result: MirageResult) -> RESPONSE_TYPE:
        prompt, args, sources = self._route(question, result)
        meta = self._metadata(result, sources)
        if self._streaming:
            agen = _astream_or_one_chunk(self._llm, prompt, args)
            return AsyncStreamingResponse(response_gen=agen, source_nodes=sources, metadata=meta)
        return Response(
            await self._llm.apredict(prompt, **args), source_nodes=sources, metadata=meta
        )

    def _query(self, query_bundle: QueryBundle) -> RESPONSE_TYPE:
        with self.callback_manager.event(
            CBEventType.QUERY, payload={EventPayload.QUERY_STR: query_bundle.query_str}
        ) as query_event:
            response = self._generate(query_bundle.query_str, self.verify(query_bundle))
            query_event.on_end(payload={EventPayload.RESPONSE: response})
        return response

    async def _aquery(self, query_bundle: QueryBundle) -> RESPONSE_TYPE:
        with self.callback_manager.event(
            CBEventType.QUERY, payload={EventPayload.QUERY_STR: query_bundle.query_str}
        ) as query_event:
            result = await self.averify(query_bundle)
            response = await self._agenerate(query_bundle.query_str, result)
            query_event.on_end(payload={EventPayload.RESPONSE: response})
        return response


def _stream_or_one_chunk(
    llm: LLM, prompt: BasePromptTemplate, args: dict[str, str]
) -> Generator[str, None, None]:
    """The LLM's stream, or its whole answer as one chunk when it cannot stream (an LLM may
    say so when it is called or only once its stream is read)."""
    started = False
    try:
        for chunk in llm.stream(prompt, **args):
            started = True
            yield chunk
    except NotImplementedError:
        if started:
            raise
        yield llm.predict(prompt, **args)


async def _astream_or_one_chunk(
    llm: LLM, prompt: BasePromptTemplate, args: dict[str, str]
) -> AsyncGenerator[str, None]:
    """Async :func:`_stream_or_one_chunk`."""
    started = False
    try:
        async for chunk in await llm.astream(prompt, **args):
            started = True
            yield chunk
    except NotImplementedError:
        if started:
            raise
        yield await llm.apredict(prompt, **args)
