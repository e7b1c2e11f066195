"""Plain data types of the engine: :class:`Passage` (input) and :class:`Claim` (a sentence of it)."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any
from urllib.parse import urlparse

__all__ = [
    "UNSOURCED",
    "Claim",
    "Passage",
    "PassageLike",
    "check_query",
    "to_passage",
    "to_passages",
]


#: The one domain of every passage that names no source (no ``source``, ``domain`` or source-like
#: metadata): such passages count as one publisher together.
UNSOURCED = "(no source)"


@dataclass(frozen=True, slots=True)
class Passage:
    """One retrieved passage.

    Attributes:
        text: the passage text.
        source: identifier of where it came from (URL, file name, document id). Defaults to
            the first non-blank of ``metadata["url"]``, ``["source"]``, ``["id"]``,
            ``["doc_id"]`` and ``["file_name"]``, then ``passage-<i>``.
        domain: the independent publisher it counts as (for trust and d_src). Defaults to the
            host of a URL source (without ``www.``), otherwise the source itself.
        score: the retriever's relevance score (any scale; min-max normalized per query).
        metadata: anything else; never modified by mirage.
    """

    text: str
    source: str | None = None
    domain: str | None = None
    score: float | None = None
    metadata: Mapping[str, Any] = field(default_factory=dict)

    def __post_init__(self) -> None:
        if not isinstance(self.text, str):
            raise TypeError(f"Passage.text must be str, got {type(self.text).__name__}")
        for name in ("source", "domain"):
            value = getattr(self, name)
            if value is not None and not isinstance(value, str):
                raise TypeError(f"Passage.{name} must be str or None, got {type(value).__name__}")
        if self.score is not None:
            if isinstance(self.score, bool) or not isinstance(self.score, int | float):
                raise TypeError(f"Passage.score must be a number, got {type(self.score).__name__}")
        if not isinstance(self.metadata, Mapping):
            raise TypeError(
                f"Passage.metadata must be a mapping, got {type(self.metadata).__name__}"
            )
        # A private copy: nothing done to this Passage can reach the caller's mapping.
        object.__setattr__(self, "metadata", dict(self.metadata))

    def __hash__(self) -> int:
        return hash((self.text, self.source, self.domain, self.score))

    def resolved_source(self, index: int) -> str:
        """The source id used for pairing: explicit, else from metadata, else ``passage-<index>``."""
        return self._named_source() or f"passage-{index}"

    def _named_source(self) -> str | None:
        if self.source:
            return self.source
        for key in ("url", "source", "id", "doc_id", "file_name"):
            value = self.metadata.get(key)
            if isinstance(value, str) and value.strip():
                return value.strip()
        return None

    def resolved_domain(self, index: int) -> str:
        """The domain used for trust and d_src: explicit, else the URL host, else the source.
        Passages that name no source at all share one domain, :data:`UNSOURCED`: text of
        unknown origin is never independent corroboration of other such text."""
        if self.domain:
            return self.domain.lower()
        source = self._named_source()
        if source is None:
            return UNSOURCED
        host = urlparse(source).netloc if "://" in source else ""
        host = host.lower().split("@")[-1].split(":")[0]
        if host.startswith("www."):
            host = host[4:]
        return (host or source).lower()


PassageLike = Passage | str | Mapping[str, Any]


def to_passage(obj: PassageLike) -> Passage:
    """Accept a :class:`Passage`, a plain string, or a mapping with ``text`` (JSONL rows)."""
    if isinstance(obj, Passage):
        return obj
    if isinstance(obj, str):
        return Passage(obj)
    if isinstance(obj, Mapping):
        if "text" not in obj:
            raise TypeError("a passage mapping needs a 'text' key")
        extra = {
            k: v
            for k, v in obj.items()
            if k not in ("text", "source", "domain", "score", "metadata")
        }
        given = obj.get("metadata") or {}
        # a non-mapping goes to Passage as it is, and Passage refuses it by name
        meta = dict(given) | extra if isinstance(given, Mapping) else given
        source = obj.get("source") or obj.get("url")
        score = obj.get("score")
        return Passage(
            text=obj["text"],
            source=str(source) if source is not None else None,
            domain=obj.get("domain"),
            score=float(score) if score is not None and not isinstance(score, bool) else score,
            metadata=meta,
        )
    raise TypeError(
        f"a passage must be a Passage, str or mapping with 'text', got {type(obj).__name__}"
    )


@dataclass(frozen=True, slots=True)
class Claim:
    """A sentence-level claim with its provenance.

    ``start``/``end`` are character offsets into the original passage text, so
    ``passage.text[start:end]`` is the claim as written; ``text`` is that sentence as every
    step reads it: normalized (:mod:`mirage_core.normalize`), whitespace collapsed, reference
    markers such as ``[12]`` or ``[citation needed]`` removed (what the NLI model and the
    generator see).
    """

    index: int
    text: str
    passage_index: int
    start: int
    end: int
    source: str
    domain: str
    retrieval_score: float
    tokens: frozenset[str]
    group: str = ""

    @property
    def span(self) -> tuple[int, int]:
        return (self.start, self.end)


def check_query(query: object) -> str:
    if not isinstance(query, str):
        raise TypeError(f"query must be str, got {type(query).__name__}")
    return query


def to_passages(passages: object) -> list[Passage]:
    """The caller's passages as :class:`Passage` objects (new objects; the input is not changed)."""
    if isinstance(passages, str | bytes) or not isinstance(passages, Sequence):
        raise TypeError(
            f"passages must be a list of Passage / str / mapping, got {type(passages).__name__}"
        )
    return [to_passage(p) for p in passages]
