"""Conversions between LangChain ``Document`` objects and the engine's types.

Only data plumbing lives here: which metadata key becomes a passage's source, domain and score,
and how the engine's verdict is turned back into new ``Document`` objects. The decision itself
(claims, graph, selection, gate) is the engine's.
"""

from __future__ import annotations

import math
import numbers
from collections.abc import Sequence
from typing import Any, Literal

from langchain_core.callbacks import BaseCallbackManager, Callbacks
from langchain_core.documents import Document
from langchain_core.runnables import RunnableConfig
from langchain_core.runnables.config import ensure_config

from mirage_core import Claim, Passage, Verdict
from mirage_core.types import copy_metadata

__all__ = [
    "EVENT_NAME",
    "METADATA_KEY",
    "OutputMode",
    "aemit_verdict",
    "check_documents",
    "documents_to_passages",
    "emit_verdict",
    "event_payload",
    "verdict_to_documents",
]

#: Name of the custom event that carries each verdict (``astream_events``: ``on_custom_event``).
EVENT_NAME = "mirage_verdict"
#: The one metadata key mirage adds to the documents it returns.
METADATA_KEY = "mirage"

OutputMode = Literal["sentences", "claims", "documents"]

_SOURCE_KEYS = ("url", "source", "id")
_SCORE_KEYS = ("score", "relevance_score")
_REASON_CHARS = 200


# -- input ---------------------------------------------------------------------------------
def check_documents(result: object, producer: str = "base_retriever") -> list[Document]:
    """The child's result as a list of ``Document`` or a ``TypeError`` naming what it was."""
    if isinstance(result, Document):
        raise TypeError(
            f"{producer} returned a single Document; a retriever must return a list of Documents"
        )
    if isinstance(result, str | bytes) or not isinstance(result, Sequence):
        raise TypeError(
            f"{producer} returned {type(result).__name__}; expected a list of "
            "langchain_core.documents.Document"
        )
    docs = list(result)
    for i, doc in enumerate(docs):
        if not isinstance(doc, Document):
            raise TypeError(
                f"{producer} returned a {type(doc).__name__} at position {i}; expected "
                "langchain_core.documents.Document objects"
            )
    return docs


def _text_value(value: object) -> str | None:
    if isinstance(value, str):
        return value.strip() or None
    if isinstance(value, int) and not isinstance(value, bool):
        return str(value)
    return None


def _source(doc: Document) -> str | None:
    for key in _SOURCE_KEYS:
        value = _text_value(doc.metadata.get(key))
        if value:
            return value
    return _text_value(doc.id)


def _score(doc: Document) -> float | None:
    for key in _SCORE_KEYS:
        value = doc.metadata.get(key)
        if isinstance(value, numbers.Real) and not isinstance(value, bool):
            try:
                value = float(value)
            except OverflowError:  # an int no float can hold: no usable score
                continue
            if math.isfinite(value):
                return value
    return None


def documents_to_passages(docs: Sequence[Document]) -> list[Passage]:
    """One :class:`Passage` per document, in order.

    source: ``metadata["url"]``, ``["source"]``, ``["id"]``, then ``Document.id`` (else the
    engine names it ``passage-<i>``); domain: ``metadata["domain"]`` when given (else the
    engine derives it from the source); score: ``metadata["score"]`` or
    ``["relevance_score"]`` when it is a finite number.
    """
    return [
        Passage(
            text=doc.page_content,
            source=_source(doc),
            domain=_text_value(doc.metadata.get("domain")),
            score=_score(doc),
        )
        for doc in docs
    ]


# -- output --------------------------------------------------------------------------------
def _short_reason(reason: str) -> str:
    return reason if len(reason) <= _REASON_CHARS else reason[: _REASON_CHARS - 1] + "…"


def _new_document(doc: Document, text: str, info: dict[str, Any], doc_id: str | None) -> Document:
    metadata = copy_metadata(doc.metadata)
    metadata[METADATA_KEY] = info
    return Document(page_content=text, metadata=metadata, id=doc_id)


def verdict_to_documents(
    docs: Sequence[Document],
    verdict: Verdict,
    output: OutputMode = "sentences",
    k: int | None = None,
) -> tuple[list[Document], list[Claim]]:
    """New documents for a verdict, and the verified claims they carry (in S* pick order).

    ``docs`` are the documents the passages were made from (same order). A blocked gate gives
    ``([], [])``. ``output``:

    - ``"sentences"``: each contributing document reduced to its verified sentences
      (retrieval order);
    - ``"claims"``: one document per verified claim (S* pick order), ``id`` ``"<id>#<start>-<end>"``;
    - ``"documents"``: each contributing document whole (retrieval order).

    ``k`` keeps the first ``k`` documents; the claims returned are those of the kept documents.
    """
    if not verdict.passed:
        return [], []
    base: dict[str, Any] = {"decision": verdict.decision, "reason": _short_reason(verdict.reason)}
    # a model failure the config let through is said on every document, not only in the reason
    if verdict.nli_error is not None:
        base["nli_error"] = verdict.nli_error
    if verdict.embedding_error is not None:
        base["embedding_error"] = verdict.embedding_error
    out: list[Document] = []
    kept: set[int] = set()
    if output == "claims":
        for i in verdict.selected[:k]:
            claim = verdict.claims[i]
            doc = docs[claim.passage_index]
            info = base | {
                "support": int(verdict.support[i]),
                "corroborated": None
                if verdict.corroborated is None
                else bool(verdict.corroborated[i]),
                "agreeing_sources": list(verdict.agreeing_sources(int(i))),
                "claim_index": int(i),
                "span": [claim.start, claim.end],
            }
            doc_id = f"{doc.id}#{claim.start}-{claim.end}" if doc.id is not None else None
            out.append(_new_document(doc, claim.text, info, doc_id))
            kept.add(i)
    elif output in ("sentences", "documents"):
        for vp in verdict.verified_passages()[:k]:
            doc = docs[vp.passage_index]
            info = base | {
                "support": vp.support,
                "agreeing_sources": list(vp.agreeing_sources),
                "claim_indices": list(vp.claim_indices),
                "corroborated_claims": None
                if vp.corroborated_claims is None
                else list(vp.corroborated_claims),
            }
            text = vp.text if output == "sentences" else doc.page_content
            out.append(_new_document(doc, text, info, doc.id))
            kept.update(vp.claim_indices)
    else:
        raise ValueError(f"output must be 'sentences', 'claims' or 'documents', got {output!r}")
    claims = [c for c in verdict.verified_claims if c.index in kept]
    return out, claims


# -- the verdict event -----------------------------------------------------------------------
def event_payload(verdict: Verdict) -> dict[str, Any]:
    """What the ``mirage_verdict`` event carries: the verdict as JSON-safe data, no edge list."""
    return verdict.to_dict(include_edges=False)


def _manager(callbacks: Callbacks) -> BaseCallbackManager | None:
    """A callback manager with a parent run to attach the event to, or None when there is none
    (a bare call outside any run: the event has nowhere to go)."""
    if isinstance(callbacks, BaseCallbackManager):
        return callbacks if callbacks.parent_run_id is not None else None
    config: RunnableConfig = ensure_config(
        {"callbacks": callbacks} if callbacks is not None else None
    )
    current = config.get("callbacks")
    if isinstance(current, BaseCallbackManager) and current.parent_run_id is not None:
        return current
    return None


def emit_verdict(verdict: Verdict, callbacks: Callbacks) -> None:
    """Dispatch the ``mirage_verdict`` custom event under the run that ``callbacks`` belongs to."""
    from langchain_core.callbacks import dispatch_custom_event

    manager = _manager(callbacks)
    if manager is None:
        return
    dispatch_custom_event(EVENT_NAME, event_payload(verdict), config={"callbacks": manager})


async def aemit_verdict(verdict: Verdict, callbacks: Callbacks) -> None:
    """Async :func:`emit_verdict` (``adispatch_custom_event``)."""
    from langchain_core.callbacks import adispatch_custom_event

    manager = _manager(callbacks)
    if manager is None:
        return
    await adispatch_custom_event(EVENT_NAME, event_payload(verdict), config={"callbacks": manager})


def check_k(k: object) -> int | None:
    """``None`` or a positive int."""
    if k is None:
        return None
    if isinstance(k, bool) or not isinstance(k, int) or k < 1:
        raise ValueError(f"k must be a positive int or None, got {k!r}")
    return k
