"""Node ↔ passage bookkeeping. No algorithm here: the engine decides, this module only maps.

* :func:`to_passages` turns ``NodeWithScore``s into :class:`~mirage_core.Passage`s (text, source,
  domain, score) and records the nodes it passed over (image / media nodes, nodes without text).
* :func:`to_nodes` turns a verdict back into NEW ``NodeWithScore``s: copies of the caller's
  nodes with containers of their own; the caller's nodes are never modified.
"""

from __future__ import annotations

import copy
import math
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any, Literal

from llama_index.core.schema import BaseNode, ImageNode, MetadataMode, Node, NodeWithScore

from mirage_core import Passage, Verdict, VerifiedPassage
from mirage_core.types import copy_metadata

__all__ = [
    "DEFAULT_SOURCE_KEYS",
    "MIRAGE_KEY",
    "Converted",
    "Output",
    "PassedOver",
    "node_source",
    "to_nodes",
    "to_passages",
]

#: The one metadata key mirage adds to the nodes it returns (kept out of LLM and embed text).
MIRAGE_KEY = "mirage"

#: Node metadata keys tried, in order, for a node's source; then the node's document id
#: (``ref_doc_id``), then its own ``node_id``. A file's path comes before its name: two files
#: of one name in two folders (``SimpleDirectoryReader`` sets both keys) are two sources.
DEFAULT_SOURCE_KEYS: tuple[str, ...] = (
    "url",
    "source",
    "file_path",
    "file_name",
    "doc_id",
    "document_id",
)

Output = Literal["sentences", "nodes", "claims"]
OUTPUTS: tuple[str, ...] = ("sentences", "nodes", "claims")


@dataclass(frozen=True, slots=True)
class PassedOver:
    """A node mirage did not verify (and therefore does not return)."""

    index: int  # position in the input list
    node_id: str
    reason: str

    def to_dict(self) -> dict[str, Any]:
        return {"index": self.index, "node_id": self.node_id, "reason": self.reason}


@dataclass(frozen=True, slots=True)
class Converted:
    """Passages for the engine; ``node_indices[i]`` is the input position of passage ``i``."""

    passages: list[Passage]
    node_indices: list[int]
    passed_over: list[PassedOver]


def _media(node: BaseNode) -> str | None:
    if isinstance(node, ImageNode):
        return "image node"
    if isinstance(node, Node):
        kinds = [
            k
            for k in ("image", "audio", "video")
            if getattr(node, f"{k}_resource", None) is not None
        ]
        if kinds:
            return f"node carries {'/'.join(kinds)} content"
    return None


def _unverifiable(node: BaseNode) -> tuple[str | None, str]:
    """(reason to pass the node over or None, its text)."""
    media = _media(node)
    if media:
        # The caption could be checked, but the media would travel with it unverified.
        return f"{media}: mirage verifies text claims only", ""
    try:
        text = node.get_content(metadata_mode=MetadataMode.NONE)
    except Exception as exc:  # a custom node type that cannot render text
        return f"no text ({type(exc).__name__}: {exc})", ""
    if not isinstance(text, str) or not text.strip():
        return "no text: the node is empty", ""
    return None, text


def _ref_doc_id(node: BaseNode) -> str | None:
    try:
        source = node.source_node
    except ValueError:  # a malformed SOURCE relationship
        return None
    return source.node_id if source is not None else None


def node_source(node: BaseNode, source_keys: Sequence[str] = DEFAULT_SOURCE_KEYS) -> str:
    """The source id of a node: the first non-empty string among ``source_keys`` in its
    metadata, else its document id, else its node id."""
    meta = node.metadata or {}
    for key in source_keys:
        value = meta.get(key)
        if isinstance(value, str) and value.strip():
            return value.strip()
    return _ref_doc_id(node) or node.node_id


def _score(value: Any) -> float | None:  # whatever a retriever set; float() decides
    if value is None or isinstance(value, bool):
        return None
    try:
        f = float(value)  # numpy scalars too
    except (TypeError, ValueError):
        return None
    return f if math.isfinite(f) else None


def to_passages(
    nodes: Sequence[NodeWithScore], source_keys: Sequence[str] = DEFAULT_SOURCE_KEYS
) -> Converted:
    """Convert retrieved nodes to engine passages (reads the nodes, never writes them).

    ``domain`` comes from ``metadata["domain"]`` when set; otherwise the engine derives it (the
    host of a URL source, else the source itself).
    """
    passages: list[Passage] = []
    indices: list[int] = []
    passed: list[PassedOver] = []
    for i, item in enumerate(nodes):
        if not isinstance(item, NodeWithScore):
            raise TypeError(f"nodes[{i}] must be a NodeWithScore, got {type(item).__name__}")
        node = item.node
        reason, text = _unverifiable(node)
        if reason is not None:
            passed.append(PassedOver(i, node.node_id, reason))
            continue
        domain = (node.metadata or {}).get("domain")
        passages.append(
            Passage(
                text=text,
                source=node_source(node, source_keys),
                domain=domain.strip() if isinstance(domain, str) and domain.strip() else None,
                score=_score(item.score),
                metadata={"node_id": node.node_id},
            )
        )
        indices.append(i)
    return Converted(passages, indices, passed)


def _derive(
    node: BaseNode,
    info: dict[str, Any],
    *,
    text: str | None = None,
    id_: str | None = None,
    start: int | None = None,
    end: int | None = None,
) -> BaseNode:
    """A copy of ``node`` with mirage's metadata (and, optionally, new text / id). Its
    containers (metadata, the excluded-key lists, relationships, embedding) are its own, so
    nothing done to it reaches the caller's node; what they refer to beyond that (an
    ``IndexNode``'s ``obj``: a retriever, an index) is shared, not copied."""
    new = node.model_copy(
        update={
            "metadata": copy_metadata(node.metadata),
            "excluded_llm_metadata_keys": list(node.excluded_llm_metadata_keys),
            "excluded_embed_metadata_keys": list(node.excluded_embed_metadata_keys),
            "relationships": copy.deepcopy(node.relationships),
            "embedding": None if node.embedding is None else list(node.embedding),
        }
    )
    if text is not None:
        new.set_content(text)
        new.embedding = None  # it described the original text
        if hasattr(new, "start_char_idx"):
            new.start_char_idx = start
            new.end_char_idx = end  # type: ignore[attr-defined]  # TextNode's field: BaseNode declares none
    if id_ is not None:
        new.id_ = id_
    new.metadata = {**new.metadata, MIRAGE_KEY: info}
    if MIRAGE_KEY not in new.excluded_llm_metadata_keys:
        new.excluded_llm_metadata_keys = [*new.excluded_llm_metadata_keys, MIRAGE_KEY]
    if MIRAGE_KEY not in new.excluded_embed_metadata_keys:
        new.excluded_embed_metadata_keys = [*new.excluded_embed_metadata_keys, MIRAGE_KEY]
    return new


def _corroborated(vp: VerifiedPassage, indices: Sequence[int]) -> list[int] | None:
    """Those of ``indices`` (claims of ``vp``) an independent source corroborates; ``None``
    where the verdict read no corroboration."""
    if vp.corroborated_claims is None:
        return None
    return [i for i in indices if i in vp.corroborated_claims]


def to_nodes(
    nodes: Sequence[NodeWithScore], converted: Converted, verdict: Verdict, output: Output
) -> list[NodeWithScore]:
    """New nodes carrying what ``verdict`` verified, in input order; ``[]`` on fallback.

    ``output="sentences"``: one node per contributing input node, its text reduced to the
    verified sentences (same ``node_id``); ``"nodes"``: those input nodes whole; ``"claims"``:
    one node per verified claim (``node_id`` ``"<id>#claim-<k>"``, character offsets into the
    document kept when the input node had them). Scores are the input nodes' scores.
    ``metadata["mirage"]`` holds the provenance (claim indices into the verdict, spans in the
    node's text, support n(c), agreeing sources, ``corroborated_claims``: those of its claims an
    independent source corroborates, ``None`` where the verdict read no corroboration).
    """
    if output not in OUTPUTS:
        raise ValueError(f"output must be one of {OUTPUTS}, got {output!r}")
    out: list[NodeWithScore] = []
    for vp in verdict.verified_passages():
        item = nodes[converted.node_indices[vp.passage_index]]
        claims = [verdict.claims[i] for i in vp.claim_indices]
        base: dict[str, Any] = {
            "decision": verdict.decision,
            "source": claims[0].source,
            "domain": claims[0].domain,
            "agreeing_sources": list(vp.agreeing_sources),
        }
        # a model failure the config let through is said on every node, not only in the reason
        if verdict.nli_error is not None:
            base["nli_error"] = verdict.nli_error
        if verdict.embedding_error is not None:
            base["embedding_error"] = verdict.embedding_error
        if output == "claims":
            origin = getattr(item.node, "start_char_idx", None)
            for c in claims:
                info = base | {
                    "claim_indices": [c.index],
                    "spans": [[c.start, c.end]],
                    "support": int(verdict.support[c.index]),
                    "corroborated_claims": _corroborated(vp, (c.index,)),
                }
                node = _derive(
                    item.node,
                    info,
                    text=c.text,
                    id_=f"{item.node.node_id}#claim-{c.index}",
                    start=origin + c.start if origin is not None else None,
                    end=origin + c.end if origin is not None else None,
                )
                out.append(NodeWithScore(node=node, score=item.score))
            continue
        info = base | {
            "claim_indices": list(vp.claim_indices),
            "spans": [[c.start, c.end] for c in claims],
            "support": vp.support,
            "corroborated_claims": _corroborated(vp, vp.claim_indices),
        }
        node = _derive(item.node, info, text=vp.text if output == "sentences" else None)
        out.append(NodeWithScore(node=node, score=item.score))
    return out
