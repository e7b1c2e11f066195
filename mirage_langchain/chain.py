"""``create_mirage_rag_chain``: retrieval, the MIRAGE gate, and the two prompt routes as LCEL."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from langchain_core.language_models import BaseLanguageModel
from langchain_core.output_parsers import StrOutputParser
from langchain_core.prompts import BasePromptTemplate, PromptTemplate
from langchain_core.runnables import (
    Runnable,
    RunnableBranch,
    RunnableConfig,
    RunnableLambda,
    RunnablePassthrough,
    RunnablePick,
)

from mirage_core import Mirage, MirageConfig
from mirage_core.prompts import FALLBACK_PROMPT, UNCHECKED_PROMPT, VERIFIED_PROMPT, format_claims
from mirage_langchain.retriever import (
    MirageRetrieval,
    MirageRetriever,
    ainvoke_with_verdict,
    invoke_with_verdict,
    wrapped_mirage,
)

__all__ = ["create_mirage_rag_chain"]

_OUTPUT_KEYS = ["answer", "route", "verdict", "documents"]


def _as_prompt(
    prompt: str | BasePromptTemplate[Any] | None, default: str, required: set[str], name: str
) -> BasePromptTemplate[Any]:
    if prompt is None:
        prompt = default
    if isinstance(prompt, str):
        prompt = PromptTemplate.from_template(prompt)
    if not isinstance(prompt, BasePromptTemplate):
        raise TypeError(
            f"{name} must be a format string or a prompt template, got {type(prompt).__name__}"
        )
    variables = set(prompt.input_variables)
    if variables != required:
        extra = sorted(variables - required)
        missing = sorted(required - variables)
        hint = (
            " (the fallback route never receives retrieved text)"
            if name == "fallback_prompt" and "evidence" in variables
            else ""
        )
        raise ValueError(
            f"{name} must take exactly the variables {sorted(required)}; "
            f"missing {missing}, unexpected {extra}{hint}"
        )
    return prompt


def _question(value: Any) -> str:
    if isinstance(value, str):
        return value
    if isinstance(value, Mapping) and isinstance(value.get("question"), str):
        return value["question"]
    raise TypeError(
        "the chain takes a question string or a mapping with a 'question' string, "
        f"got {type(value).__name__}"
    )


def _state(question: str, retrieval: MirageRetrieval) -> dict[str, Any]:
    return {
        "question": question,
        "route": retrieval.route,
        "verdict": retrieval.verdict,
        "documents": retrieval.documents,
        "evidence": format_claims(retrieval.claims) if retrieval.route == "verified" else "",
    }


def create_mirage_rag_chain(
    retriever: Runnable[Any, Any] | MirageRetriever,
    llm: BaseLanguageModel[Any] | Runnable[Any, Any],
    *,
    mirage: Mirage | None = None,
    config: MirageConfig | None = None,
    nli: Any = None,
    verified_prompt: str | BasePromptTemplate[Any] | None = None,
    fallback_prompt: str | BasePromptTemplate[Any] | None = None,
    unchecked_prompt: str | BasePromptTemplate[Any] | None = None,
) -> Runnable[str | Mapping[str, Any], dict[str, Any]]:
    """A RAG chain whose model sees only verified claims, or no retrieved text at all.

    Args:
        retriever: a :class:`MirageRetriever` (or a wrapper of one: ``with_config``,
            ``with_retry``, ``configurable_fields``), or any retriever-like Runnable, which is
            then wrapped in one (with ``mirage=`` or ``config=``/``nli=``; defaults otherwise).
        llm: any chat model or text LLM (or a Runnable from a prompt value to text/message).
        verified_prompt: format string or prompt template with exactly ``{evidence}`` and
            ``{question}`` (default: ``mirage_core.prompts.VERIFIED_PROMPT``). ``evidence`` is
            the verified claims of the returned documents, grouped by source and quoted
            (``format_claims``).
        fallback_prompt: format string or prompt template with exactly ``{question}`` (default:
            ``FALLBACK_PROMPT``); it has no way to receive retrieved text.
        unchecked_prompt: what the verified route uses instead when nothing checked its claims
            (the NLI model failed and the engine's config fails open,
            ``nli_error_policy="pass_through"``: ``verdict.unchecked``); same variables as
            ``verified_prompt`` (default: ``UNCHECKED_PROMPT``, which tells the model so).

    Returns:
        A Runnable taking a question string or ``{"question": ...}`` and returning
        ``{"answer": str, "route": "verified" | "fallback", "verdict": Verdict,
        "documents": list[Document]}`` (``documents`` is ``[]`` on the fallback route).
        ``stream``/``astream`` yield one chunk ``{"route", "verdict", "documents"}`` once the
        gate has decided, then ``{"answer": <text chunk>}`` chunks as the model produces them;
        adding the chunks (``+``) gives the dict above.

    Traces: the chain run holds ``mirage_retrieve`` > ``MirageRetriever`` > your retriever, then
    the route's prompt, the model and the parser; the ``mirage_verdict`` custom event is
    dispatched under the ``MirageRetriever`` run.
    """
    mirage_retriever: Runnable[Any, Any]
    if wrapped_mirage(retriever) is not None:
        if mirage is not None or config is not None or nli is not None:
            raise ValueError(
                "retriever is already a MirageRetriever: configure its engine there, not with "
                "mirage=/config=/nli="
            )
        mirage_retriever = retriever  # a wrapper (with_config, with_retry …) is run as given
    else:
        mirage_retriever = MirageRetriever(
            base_retriever=retriever, mirage=mirage, config=config, nli=nli
        )
    verified = _as_prompt(
        verified_prompt, VERIFIED_PROMPT, {"evidence", "question"}, "verified_prompt"
    )
    fallback = _as_prompt(fallback_prompt, FALLBACK_PROMPT, {"question"}, "fallback_prompt")
    unchecked = _as_prompt(
        unchecked_prompt, UNCHECKED_PROMPT, {"evidence", "question"}, "unchecked_prompt"
    )

    def retrieve(value: Any, config: RunnableConfig) -> dict[str, Any]:
        question = _question(value)
        return _state(question, invoke_with_verdict(mirage_retriever, question, config))

    async def aretrieve(value: Any, config: RunnableConfig) -> dict[str, Any]:
        question = _question(value)
        return _state(question, await ainvoke_with_verdict(mirage_retriever, question, config))

    prompt = RunnableBranch(
        (
            lambda state: state["verdict"].unchecked,
            RunnablePick(["evidence", "question"]) | unchecked,
        ),
        (
            lambda state: state["route"] == "verified",
            RunnablePick(["evidence", "question"]) | verified,
        ),
        RunnablePick(["question"]) | fallback,  # the fallback prompt sees the question only
    ).with_config(run_name="mirage_route")
    answer = prompt | llm | StrOutputParser()
    chain = (
        RunnableLambda(retrieve, afunc=aretrieve, name="mirage_retrieve")
        | RunnablePassthrough.assign(answer=answer)
        | RunnablePick(_OUTPUT_KEYS)
    )
    return chain.with_config(run_name="mirage_rag_chain")
