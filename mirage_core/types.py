"""Plain data types of the engine: :class:`Passage` (input) and :class:`Claim` (a sentence of it)."""

from __future__ import annotations

import copy
import numbers
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any
from urllib.parse import urlsplit

__all__ = [
    "UNSOURCED",
    "Claim",
    "Passage",
    "PassageLike",
    "check_query",
    "copy_metadata",
    "normalize_domain",
    "to_passage",
    "to_passages",
]


#: The one domain of every passage that names no source (no ``source``, ``domain`` or source-like
#: metadata): such passages count as one publisher together.
UNSOURCED = "(no source)"


def normalize_domain(name: str) -> str:
    """A publisher's name as trust and d_src compare it: lower case, no ``www.`` in front, no
    dot at the end (``"WWW.Example.org."`` is ``"example.org"``), an internationalized name in
    its ASCII (punycode) form, so the two spellings of one name are one domain."""
    host = name.strip().lower().rstrip(".")
    if host.startswith("www."):
        host = host[4:]
    if not host.isascii():
        try:
            host = host.encode("idna").decode("ascii")
        except UnicodeError:  # not a valid name: compared as written
            pass
    return host


def url_host(source: str) -> str | None:
    """The host of a URL ``source`` as a browser reads it, or ``None`` for a source that is no
    URL (a file name, a document id). A backslash counts as a slash, as browsers read it in a
    web URL, so ``https://evil.example\\@wiki.org/`` is ``evil.example``; user info and port
    are dropped, and an IPv6 address keeps its colons."""
    if "://" not in source:
        return None
    try:
        host = urlsplit(source.replace("\\", "/")).hostname
    except ValueError:  # a malformed address ("http://[::1"): no host to read
        return None
    return host or None


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
            # any real number: a retriever's numpy float32 / int64 as well as a float
            if isinstance(self.score, bool) or not isinstance(self.score, numbers.Real):
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
        if self.source and self.source.strip():
            return self.source.strip()
        for key in ("url", "source", "id", "doc_id", "file_name"):
            value = self.metadata.get(key)
            if isinstance(value, str) and value.strip():
                return value.strip()
        return None

    def resolved_domain(self, index: int) -> str:
        """The domain used for trust and d_src: explicit, else the URL host, else the source.
        Passages that name no source at all share one domain, :data:`UNSOURCED`: text of
        unknown origin is never independent corroboration of other such text."""
        given = normalize_domain(self.domain) if self.domain else ""
        if given:
            return given
        source = self._named_source()
        if source is None:
            return UNSOURCED
        host = url_host(source)
        return normalize_domain(host) if host else source.lower()


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
        return Passage(
            text=obj["text"],
            source=str(source) if source is not None else None,
            domain=obj.get("domain"),
            score=_mapped_score(obj.get("score")),
            metadata=meta,
        )
    raise TypeError(
        f"a passage must be a Passage, str or mapping with 'text', got {type(obj).__name__}"
    )


def copy_metadata(metadata: Mapping[str, Any]) -> dict[str, Any]:
    """A copy of a caller's ``metadata``, value by value: what the adapters hand back as new
    documents or nodes. A value that cannot be copied (a lock, a client) is shared; every
    other one (lists, dicts) belongs to the copy, so nothing done to it reaches the caller."""
    out: dict[str, Any] = {}
    for key, value in metadata.items():
        try:
            out[key] = copy.deepcopy(value)
        except Exception:
            out[key] = value
    return out


def _mapped_score(score: object) -> Any:
    """A mapping's ``score``: a number as it is, a numeral (JSONL rows) as a float; ``None``
    and a bool as they are (:class:`Passage` refuses the bool by name). ``Any``, as the
    mapping's other values: :class:`Passage` checks it, and takes any real number."""
    if score is None or isinstance(score, bool | numbers.Real):
        return score
    try:
        return float(score)  # type: ignore[arg-type]
    except (TypeError, ValueError):
        raise TypeError(f"a passage's 'score' must be a number, got {score!r}") from None


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
