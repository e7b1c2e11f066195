"""Evidence preparation: everything up to the NLI call that depends on the passages alone.

Apply the limits, normalize the text (:mod:`mirage_core.normalize`), dedupe the passages, name their publishers and independence groups, find garbled
and coordinated (planted-looking) passages, split the rest into claims and measure each claim's relevance to
the query. Each step is one function; :func:`prepare_evidence` runs them in order.
"""

from __future__ import annotations

import dataclasses
import math
import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field, replace
from typing import Any

import numpy as np

from mirage_core.claims import clean_text, content_tokens, extract_claims, split_sentences
from mirage_core.config import MirageConfig
from mirage_core.embeddings import checked_rows
from mirage_core.errors import EmbeddingError
from mirage_core.independence import independence_groups, publishers_of
from mirage_core.normalize import NormalizedText, normalize_query, normalize_text
from mirage_core.records import NonClaim
from mirage_core.relevance import lexical_relevance
from mirage_core.signal_window import WindowOrder
from mirage_core.types import Claim, Passage

__all__ = ["Evidence", "embed_under_policy", "no_text_reason", "prepare_evidence"]

#: ``texts -> L2-normalized rows``; ``None`` when the config reads no embeddings.
EmbedFn = Callable[[list[str]], np.ndarray]
#: Sentence spans per passage (``None``: not split yet).
Spans = Sequence[Sequence[tuple[int, int]] | None]


def no_text_reason(n: int, kind: str = "passage") -> str:
    """The reason of a query whose ``n`` retrieved items (passages, or an adapter's ``kind`` of
    item: ``"node"``) hold no text to check: something was retrieved, nothing could be read."""
    if n == 1:
        return f"no evidence: 1 retrieved {kind} holds no text to check"
    return f"no evidence: {n:,} retrieved {kind}s hold no text to check"


@dataclass
class Evidence:
    """One query's evidence, ready for pairing. ``early_reason`` is set when there is nothing
    to verify (the verdict falls back with it)."""

    query: str
    n_passages: int
    passage_ids: list[int] = field(default_factory=list)  # the caller's index of each kept passage
    texts: list[str] = field(default_factory=list)  # what the embedder and the signals read
    publishers: list[str] = field(default_factory=list)  # domain, or source under single_domain
    groups: list[str] = field(default_factory=list)  # independence group of each kept passage
    embeddings: np.ndarray | None = None  # passage embeddings, when the config reads them
    claim_embeddings: np.ndarray | None = None  # when pairing or corroboration reads them
    coordinated: list[Any] = field(default_factory=list)  # flagged GroupSignals, caller indices
    garbled: list[int] = field(default_factory=list)  # garbled passages, caller indices
    garbled_copies: list[int] = field(default_factory=list)  # those copying a readable one
    claims: list[Claim] = field(default_factory=list)
    non_claims: list[NonClaim] = field(default_factory=list)
    relevance: np.ndarray | None = None  # per claim; None when relevance="none"
    warnings: list[str] = field(default_factory=list)
    timings: dict[str, float] = field(default_factory=dict)
    early_reason: str | None = None
    embedding_error: str | None = None  # the embedder's failure, whatever the policy did


def embed_under_policy(
    embed: EmbedFn, texts: list[str], config: MirageConfig, evidence: Evidence
) -> np.ndarray | None:
    """Embed under the error policy: ``"raise"`` raises :class:`EmbeddingError`, ``"fallback"``
    ends the query on the fallback route, ``"pass_through"`` returns None (the query goes on
    without embeddings) with a warning."""
    t0 = time.perf_counter()
    try:
        # shape, finiteness and unit rows checked here, whatever embedder the caller gave
        return checked_rows(embed(texts), len(texts))
    except Exception as exc:
        message = f"{type(exc).__name__}: {exc}"
        evidence.embedding_error = message
        policy = config.nli_error_policy
        if policy == "raise":
            raise EmbeddingError(f"embedder failed: {message}") from exc
        if policy == "fallback":
            evidence.early_reason = (
                f"embedding failed ({message}); fallback policy: no retrieved text used"
            )
        else:
            evidence.warnings.append(
                f"embedding failed ({message}); pass_through policy: independence by "
                "domain only, no paraphrase pairs"
                + (", no redundancy filter" if config.redundancy_filter != "none" else "")
            )
        return None
    finally:
        evidence.timings["embed"] = evidence.timings.get("embed", 0.0) + time.perf_counter() - t0


def within_limits(
    passages: Sequence[Passage], evidence: Evidence, config: MirageConfig
) -> Sequence[Passage]:
    """The passages the limits allow, in the caller's (rank) order: at most ``max_passages``,
    and no passage once ``max_total_chars`` characters were taken. What is left out is never
    delivered; the verdict warns."""
    kept = passages[: config.max_passages]
    if len(passages) > len(kept):
        evidence.warnings.append(
            f"{len(passages):,} passages; only the first {len(kept):,} were analyzed (max_passages)"
        )
    budget, total = config.max_total_chars, 0
    for i, p in enumerate(kept):
        total += min(len(p.text), config.max_passage_chars)
        if total > budget:
            evidence.warnings.append(
                f"passages {i}–{len(passages) - 1} left out: the evidence exceeds "
                f"{budget:,} characters (max_total_chars)"
            )
            return kept[:i]
    return kept


def dedupe(
    passages: Sequence[Passage], evidence: Evidence, max_chars: int
) -> list[tuple[Passage, NormalizedText]]:
    """The passages worth reading, once each, with their normalized text: empty ones and exact
    copies (after normalization, case-insensitive) are skipped with a warning; copies are not
    independent corroboration."""
    kept: list[tuple[Passage, NormalizedText]] = []
    seen: dict[str, int] = {}
    for i, p in enumerate(passages):
        normalized = normalize_text(p.text)
        norm = clean_text(normalized.text).lower()
        if not norm:
            evidence.warnings.append(f"passage {i} is empty or whitespace; skipped")
            continue
        if norm in seen:
            evidence.warnings.append(f"passage {i} duplicates passage {seen[norm]}; counted once")
            continue
        seen[norm] = i
        # the cut applies to the text as read (normalization can lengthen it: "…" is "...")
        if len(normalized.text) > max_chars:
            evidence.warnings.append(
                f"passage {i} has {len(normalized.text):,} characters as read; only the first "
                f"{max_chars:,} were analyzed"
            )
        # every step reads the normalized text; claim spans are mapped back to the caller's
        kept.append((replace(p, text=normalized.text), normalized))
        evidence.passage_ids.append(i)
    return kept


def assign_sources(
    kept: Sequence[Passage], evidence: Evidence, config: MirageConfig
) -> tuple[list[str], list[str]]:
    """Each kept passage's source and domain; fills the publishers and independence groups.
    Returns ``(sources, domains)`` for the claims."""
    ids = evidence.passage_ids
    sources = [p.resolved_source(i) for p, i in zip(kept, ids, strict=True)]
    domains = [p.resolved_domain(i) for p, i in zip(kept, ids, strict=True)]
    independence = config.independence
    if evidence.embeddings is None and independence == "embedding":
        independence = "domain"  # embeddings failed under pass_through: by domain only
    evidence.publishers, by_document = publishers_of(
        sources, domains, independence, config.single_domain
    )
    if by_document:
        evidence.warnings.append(by_document)
        if evidence.embeddings is not None:
            independence = "embedding"  # near-copies of one publisher's pages count once
    evidence.groups = independence_groups(
        sources,
        evidence.publishers,
        independence,
        evidence.embeddings,
        config.method.duplicate_threshold,
        config.method.duplicate_linkage,
    )
    return sources, domains


def find_garbled(evidence: Evidence, config: MirageConfig) -> tuple[int, ...]:
    """Mark the garbled passages (``garbled_threshold``; caller indices in
    ``evidence.garbled``, and in ``evidence.garbled_copies`` those that copy a readable
    passage); returns their positions among ``evidence.texts``."""
    threshold = config.method.garbled_threshold
    if threshold is None:
        return ()
    from mirage_core.garbled import copied_passages, garbled_passages

    found = garbled_passages(evidence.texts, threshold)
    evidence.garbled = [evidence.passage_ids[i] for i in found]
    copies = copied_passages(evidence.texts, found) if found else ()
    evidence.garbled_copies = [evidence.passage_ids[i] for i in copies]
    return found


def find_coordinated(
    evidence: Evidence,
    config: MirageConfig,
    spans: Spans | None = None,
    skip: Sequence[int] = (),
) -> None:
    """Flag planted-looking passage groups with the coordination signals (caller indices).
    ``spans``: sentence spans of ``evidence.texts`` already split (``None``: split there);
    ``skip``: positions the signals do not read (garbled passages)."""
    skipped = set(skip)
    read = [i for i in range(len(evidence.texts)) if i not in skipped]
    if config.coordination == "none" or len(read) <= 2:
        return
    from mirage_core.coordination import absorb_near_copies, detect_coordination, model_for

    m = config.method
    embeddings = evidence.embeddings if config.coordination == "embedding" else None
    texts: Sequence[str] = [evidence.texts[i] for i in read]
    publishers = [evidence.publishers[i] for i in read]
    if embeddings is not None:
        embeddings = embeddings[read]
    if spans is not None:
        spans = [spans[i] for i in read]
    if m.coordination_window is not None:
        texts, spans = signal_windows(
            evidence.query, texts, spans, m.coordination_window, m.coordination_window_order
        )
    found = detect_coordination(
        evidence.query,
        texts,
        publishers,
        embeddings,
        model_for(
            embeddings is not None,
            m.coordination_threshold,
            m.coordination_isolated_threshold,
            m.coordination_isolated_signals,
            m.coordination_signals,
            m.coordination_min_tokens,
            m.coordination_max_tokens,
            m.coordination_tightness_outside,
            m.coordination_floor_scope,
        ),
        spans=spans,
    )
    if m.coordination_absorb_margin is not None and embeddings is not None:
        found = absorb_near_copies(found, embeddings, m.coordination_absorb_margin)
    ids = [evidence.passage_ids[i] for i in read]
    evidence.coordinated = [
        dataclasses.replace(
            g,
            passages=tuple(ids[i] for i in g.passages),
            absorbed=tuple(ids[i] for i in g.absorbed),
        )
        for g in found
        if g.flagged
    ]


def signal_windows(
    query: str,
    texts: Sequence[str],
    spans: Spans | None,
    max_tokens: int,
    order: WindowOrder,
) -> tuple[list[str], list[list[tuple[int, int]]]]:
    """Each text cut to the window the coordination signals read, with its sentence spans."""
    from mirage_core.signal_window import signal_window

    query_tokens = content_tokens(query)
    cuts = spans if spans is not None else [None] * len(texts)
    windows = [
        signal_window(
            t, cut if cut is not None else split_sentences(t), query_tokens, max_tokens, order
        )
        for t, cut in zip(texts, cuts, strict=True)
    ]
    return [w for w, _ in windows], [s for _, s in windows]


def _finite(score: float | None) -> float | None:
    """A retrieval score as a finite float, or None (missing, NaN, ±inf, or an int no float
    can hold)."""
    try:
        value = None if score is None else float(score)
    except OverflowError:
        return None
    return value if value is not None and math.isfinite(value) else None


def split_claims(
    kept: Sequence[Passage],
    normalized: Sequence[NormalizedText],
    sources: list[str],
    domains: list[str],
    evidence: Evidence,
    config: MirageConfig,
    spans: Spans | None = None,
) -> None:
    """Sentence claims of the kept passages; a missing or non-finite retrieval score counts as
    the weakest one present. ``spans``: each passage's sentence spans in its first
    ``max_passage_chars`` characters, already split (``None``: split there)."""
    scores = [_finite(p.score) for p in kept]
    present = [s for s in scores if s is not None]
    fill = min(present) if present else 1.0
    m = config.method
    skipped: list[dict[str, Any]] = []  # extract_claims' {"passage", "start", "end", "reason"}
    evidence.claims = extract_claims(
        kept,
        indices=evidence.passage_ids,
        sources=sources,
        domains=domains,
        groups=evidence.groups,
        scores=[fill if s is None else s for s in scores],
        min_tokens=m.min_claim_tokens,
        max_claims_per_passage=config.max_claims_per_passage,
        max_chars=config.max_passage_chars,
        filter_non_claims=m.claim_filter,
        skipped=skipped,
        spans=spans,
        leave_out_instructions=m.instruction_pages == "leave_out",
    )
    # spans into the caller's text, whatever normalization changed
    by_passage = dict(zip(evidence.passage_ids, normalized, strict=True))
    evidence.claims = [
        replace(c, start=s, end=e)
        for c in evidence.claims
        for s, e in [by_passage[c.passage_index].original_span(c.start, c.end)]
    ]
    evidence.non_claims = []
    for item in skipped:
        start, end = by_passage[item["passage"]].original_span(item["start"], item["end"])
        evidence.non_claims.append(NonClaim(item["passage"], start, end, item["reason"]))
    with_claims = {c.passage_index for c in evidence.claims}
    instructing = {item["passage"] for item in skipped if item["reason"] == "instruction"}
    for i in evidence.passage_ids:
        if i in instructing:
            evidence.warnings.append(f"passage {i} instructs the model; it is left out")
        elif i not in with_claims:
            evidence.warnings.append(
                f"passage {i} has no sentence with ≥ {m.min_claim_tokens} content tokens"
            )
    if not evidence.claims:
        short = f"no passage holds a sentence with ≥ {m.min_claim_tokens} content tokens"
        if instructing:
            others = len(instructing) < len(evidence.passage_ids)
            short = f"passages {sorted(instructing)} instruct the model and are left out" + (
                f"; no other {short.removeprefix('no ')}" if others else ""
            )
        evidence.early_reason = f"no evidence: {short}"
    elif m.relevance == "lexical":
        evidence.relevance = lexical_relevance(
            evidence.query, evidence.claims, m.relevance_saturation
        )


def prepare_evidence(
    query: str, passages: Sequence[Passage], config: MirageConfig, embed: EmbedFn | None
) -> Evidence:
    """Limits → normalization and dedupe → passage embeddings → sources and independence
    groups → garbled passages → coordination → claims and their relevance. ``embed`` is ``None`` when the config reads no embeddings."""
    evidence = Evidence(query=normalize_query(query), n_passages=len(passages))
    t0 = time.perf_counter()
    if not passages:
        evidence.early_reason = "no evidence: no passages were retrieved"
        return evidence
    limited = within_limits(passages, evidence, config)
    pairs = dedupe(limited, evidence, config.max_passage_chars)
    if limited and not pairs:  # every passage read was empty or whitespace
        evidence.early_reason = no_text_reason(len(limited))
        return evidence
    kept = [p for p, _ in pairs]
    evidence.texts = [clean_text(p.text[: config.max_passage_chars]) for p in kept]
    if embed is not None and kept:
        evidence.embeddings = embed_under_policy(embed, evidence.texts, config, evidence)
        if evidence.early_reason is not None:
            return evidence
    sources, domains = assign_sources(kept, evidence, config)
    # Split each passage once: the claims read its raw text, the coordination signals the
    # cleaned one; they share the spans where cleaning changed nothing (else the signals split
    # the cleaned text, whose newlines have become spaces).
    read = [n for _, n in pairs]
    raw = [
        p.text[: n.whole_prefix(config.max_passage_chars)] for p, n in zip(kept, read, strict=True)
    ]
    # no sentence starts or ends inside a character normalization expanded ("1889…The")
    spans = [n.whole_characters(split_sentences(t)) for t, n in zip(raw, read, strict=True)]
    shared = [s if t == r else None for s, t, r in zip(spans, evidence.texts, raw, strict=True)]
    unreadable = find_garbled(evidence, config)
    find_coordinated(evidence, config, spans=shared, skip=unreadable)
    split_claims(kept, read, sources, domains, evidence, config, spans=spans)
    # stage timings do not overlap: embedding has its own entry
    evidence.timings["claims"] = time.perf_counter() - t0 - evidence.timings.get("embed", 0.0)
    return evidence
