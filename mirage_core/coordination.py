"""The coordination model: standardize a group's signals against honest coverage and flag
planted-looking groups (:func:`detect_coordination`). The signals themselves are in
:mod:`mirage_core.group_signals`.

A candidate group (passages sharing one content token outside the query, across at least
``min_publishers`` publishers) is scored on each signal; :class:`CoordinationModel`
standardizes them (median / MAD of honest groups) and flags a group whose mean standardized
score reaches its threshold. Deterministic, numpy only; a flagged group says which signals
tied which passages (:meth:`~mirage_core.group_signals.GroupSignals.explain`).
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass, replace
from typing import Any, Literal

import numpy as np

from mirage_core.group_signals import (
    ISOLATED_SIGNALS,
    LOW_SIDE,
    RESTATEMENT_ALLOWANCE,
    SIGNALS,
    GroupSignals,
    candidate_groups,
    evidence_profile,
    group_signals,
)
from mirage_core.lexical_overlap import lexical_matrix, shingles

#: What the length floor looks at (:attr:`CoordinationModel.floor_scope`).
FloorScope = Literal["group", "evidence"]

__all__ = [
    "DEFAULT_MODEL",
    "ISOLATED_SIGNALS",
    "LOW_SIDE",
    "RESTATEMENT_ALLOWANCE",
    "SIGNALS",
    "TEXT_MODEL",
    "CoordinationModel",
    "FloorScope",
    "GroupSignals",
    "absorb_near_copies",
    "candidate_groups",
    "detect_coordination",
    "evidence_profile",
    "group_signals",
    "lexical_matrix",
    "model_for",
    "shingles",
]


@dataclass(frozen=True)
class CoordinationModel:
    """How raw signals become a decision.

    Each signal is standardized against honest multi-outlet coverage:
    ``(value - center) / scale`` (:data:`LOW_SIDE` negated, so higher is always more
    suspicious); the group's score is the mean over ``signals`` that are defined for it; a
    group with ``score >= threshold`` is flagged, and ``fired`` lists the signals whose own
    standardized value reached ``fire_at``. ``center`` / ``scale`` are the median / MAD of
    honest groups.

    ``min_tokens``: a group whose passages hold a median of fewer content tokens is scored
    (its signals stay in the verdict) but never flagged (off in the shipped models: 0). The
    text signals are shares of a passage's content tokens, and on one-line snippets a share
    moves by a sixth per word, so agreeing one-liners that repeat a sentence word for word read
    exactly like planted copies. The shipped models read them as copies: one-sentence planted
    passages are common (``docs/decisions.md``, "Coordination length floor"), and honest pages
    say a fact in their own words.

    ``max_tokens``: likewise a group whose passages hold a median of more content tokens is
    never flagged (off in the shipped models: ``inf``). Every signal is a share of a passage's
    tokens, and ten full pages about one person all name the person (answer focus), resemble
    each other (cosine) and leave each page few words of their own (novelty), beyond the
    lengths the model was fit on (``research/coordination_length.py``); but a ceiling lets an
    attacker pad planted passages past it (``research/padded_poisons.py``).

    ``isolated_signals`` / ``isolated_threshold``: how a group that is the whole evidence is
    scored. ``tightness`` compares the group with the query's other passages; when there are
    none (five planted passages and nothing else, or five honest ones) it is undefined, and
    these signals (e.g. the group's plain ``cosine`` against honest coverage's) take the
    model's signals' place, with their own threshold. Empty: such a group is scored on the
    model's signals that are defined.

    ``floor_scope``: what the length floor looks at. ``"group"``: a group of short passages is
    never flagged. ``"evidence"``: only while every passage of the evidence is short; one-line
    agreement is all short evidence has to go on, but one-liners that repeat an answer beside a
    page that tells the story at length are read by the signals like any group.

    ``tightness_min_outside``: ``tightness`` counts only when at least this many passages lie
    outside the group (1 in the shipped models). With one, its baseline is that one passage's
    cosines to the members: nine honest pages about one person beside one off-topic page read
    as a tight planted group.
    """

    signals: tuple[str, ...]
    center: dict[str, float]
    scale: dict[str, float]
    threshold: float
    fire_at: float = 1.0
    min_publishers: int = 3
    min_tokens: float = 0.0
    isolated_signals: tuple[str, ...] = ()
    isolated_threshold: float = math.inf
    max_tokens: float = math.inf
    tightness_min_outside: int = 1
    floor_scope: FloorScope = "group"
    provenance: str = ""

    def __post_init__(self) -> None:
        for s in (*self.signals, *self.isolated_signals):
            if s not in SIGNALS:
                raise ValueError(f"unknown signal {s!r}; expected some of {list(SIGNALS)}")
            if s not in self.center or s not in self.scale:
                raise ValueError(f"signal {s!r} needs a center and a scale")

    def spared_as_short(self, g: GroupSignals) -> bool:
        """Whether the length floor keeps ``g`` from being flagged: its passages are short and,
        with ``floor_scope="evidence"``, so is every passage outside it."""
        if not g.tokens < self.min_tokens:
            return False
        return self.floor_scope == "group" or not g.outside_tokens >= self.min_tokens

    def standardize(self, g: GroupSignals) -> dict[str, float]:
        out = {}
        for s in SIGNALS:
            if s not in self.center:
                continue
            v = g.value(s)
            if not math.isfinite(v):
                continue
            z = (v - self.center[s]) / max(self.scale[s], 1e-9)
            out[s] = -z if s in LOW_SIDE else z
        return out

    def score(self, g: GroupSignals) -> GroupSignals:
        z = self.standardize(g)
        if g.outside < self.tightness_min_outside:
            z.pop("tightness", None)  # too few passages outside the group to compare it with
        signals, threshold = self.signals, self.threshold
        if g.isolated and self.isolated_signals and all(s in z for s in self.isolated_signals):
            signals, threshold = self.isolated_signals, self.isolated_threshold
        used = [z[s] for s in signals if s in z]
        score = float(np.mean(used)) if used else float("nan")
        fired = tuple(s for s in signals if z.get(s, -math.inf) >= self.fire_at)
        flagged = (
            bool(used)
            and score >= threshold
            and not self.spared_as_short(g)
            and not g.tokens > self.max_tokens
        )
        return replace(
            g,
            standardized={k: round(v, 3) for k, v in z.items()},
            score=score,
            threshold=threshold,
            fired=fired,
            flagged=flagged,
        )


#: The embedding model. Centers / scales: median / MAD of honest gpe-eval groups (k = 10, fit
#: half); signals and thresholds chosen on fit splits only (how, with the
#: figures: ``docs/decisions.md``, "Coordination model"). Needs embeddings (``tightness``,
#: ``cosine``); without them :data:`TEXT_MODEL` applies.
DEFAULT_MODEL = CoordinationModel(
    signals=("answer_focus", "tightness"),
    center={
        "lexical": 0.0145,
        "concentration": 0.3087,
        "answer_focus": 0.1871,
        "novelty": 0.6287,
        "tightness": 0.377,
        "cosine": 0.6694,
        "restatement": 0.0208,
        "insistence": 0.321,
        "detail": 0.106,
    },
    scale={
        "lexical": 0.0168,
        "concentration": 0.1123,
        "answer_focus": 0.0665,
        "novelty": 0.1339,
        "tightness": 0.7204,
        "cosine": 0.1095,
        "restatement": 0.0309,
        "insistence": 0.138,
        "detail": 0.066,
    },
    threshold=2.5,
    isolated_signals=("answer_focus", "novelty", "cosine"),
    isolated_threshold=0.572,
    provenance="centers / scales: research/coordination_signals.py, seed 0 (fit half); "
    "thresholds: the scoreboard's fit split (docs/decisions.md)",
)


#: The best combination without embeddings, fit the same way: ``answer_focus`` + ``novelty``.
#: Held out: honest sets flagged 4%; caught 32% / 33% / 30% / 23% (original / paraphrased /
#: synonym / dispersed), the poisons alone 35% / 25% (original / dispersed); query snippets
#: (1–2 sentences per page, benchmarks/snippets.py) flagged 3%.
TEXT_MODEL = replace(
    DEFAULT_MODEL,
    signals=("answer_focus", "novelty"),
    threshold=3.440,
    isolated_signals=(),
    isolated_threshold=math.inf,
    provenance="research/coordination_signals.py, seed 0 (fit half)",
)


def model_for(
    embeddings: bool,
    threshold: float | None = None,
    isolated_threshold: float | None = None,
    isolated_signals: Sequence[str] | None = None,
    signals: Sequence[str] | None = None,
    min_tokens: float | None = None,
    max_tokens: float | None = None,
    tightness_min_outside: int | None = None,
    floor_scope: FloorScope | None = None,
) -> CoordinationModel:
    """:data:`DEFAULT_MODEL` (with ``embeddings``) or :data:`TEXT_MODEL`, with its signals,
    thresholds, isolated signals and length bounds replaced where given
    (``MethodSettings.coordination_signals`` / ``coordination_threshold`` /
    ``coordination_isolated_threshold`` / ``coordination_isolated_signals`` /
    ``coordination_min_tokens`` / ``coordination_max_tokens`` /
    ``coordination_tightness_outside`` / ``coordination_floor_scope``). The text model has no isolated
    scoring, so the isolated ones leave it unchanged."""
    model = DEFAULT_MODEL if embeddings else TEXT_MODEL
    changes: dict[str, Any] = {}  # field name -> value, of each field's own type
    if signals is not None:
        changes["signals"] = tuple(signals)
    if threshold is not None:
        changes["threshold"] = float(threshold)
    if min_tokens is not None:
        changes["min_tokens"] = float(min_tokens)
    if max_tokens is not None:
        changes["max_tokens"] = float(max_tokens)
    if tightness_min_outside is not None:
        changes["tightness_min_outside"] = int(tightness_min_outside)
    if floor_scope is not None:
        changes["floor_scope"] = floor_scope
    if model.isolated_signals:
        if isolated_threshold is not None:
            changes["isolated_threshold"] = float(isolated_threshold)
        if isolated_signals is not None:
            changes["isolated_signals"] = tuple(isolated_signals)
    return replace(model, **changes) if changes else model


def absorb_near_copies(
    groups: Sequence[GroupSignals], embeddings: np.ndarray, margin: float
) -> list[GroupSignals]:
    """Each flagged group with the passages outside it that are as close to its members as
    they are to each other: mean cosine to the members ≥ the group's ``cosine`` − ``margin``.

    A planted passage that words the answer differently shares no token with its siblings and
    is no candidate member, but it reads as much like them as they do like each other; left
    outside, it is what the gate delivers once the group is quarantined. An honest passage on
    the same question is further from planted copies than they are from each other.
    ``embeddings``: L2-normalized rows, one per passage. Unflagged groups are returned as
    they are.
    """
    out = []
    n = len(embeddings)
    for g in groups:
        if not g.flagged or not math.isfinite(g.cosine):
            out.append(g)
            continue
        members = list(g.passages)
        inside = set(members)
        outside = [i for i in range(n) if i not in inside]
        if not outside:
            out.append(g)
            continue
        closeness = (embeddings[outside] @ embeddings[members].T).mean(axis=1)
        near = tuple(i for i, c in zip(outside, closeness, strict=True) if c >= g.cosine - margin)
        if near:
            g = replace(g, passages=tuple(sorted((*members, *near))), absorbed=near)
        out.append(g)
    return out


def detect_coordination(
    query: str,
    texts: Sequence[str],
    domains: Sequence[str],
    embeddings: np.ndarray | None = None,
    model: CoordinationModel | None = None,
    spans: Sequence[Sequence[tuple[int, int]] | None] | None = None,
) -> list[GroupSignals]:
    """Every candidate group of the query's evidence, scored by ``model``, most suspicious
    first; ``[g for g in result if g.flagged]`` are the coordinated ones.

    ``domains`` name each passage's publisher (pairs of one publisher never count);
    ``embeddings`` (L2-normalized rows) enable the ``cosine`` and ``tightness`` signals;
    ``model`` defaults to :data:`DEFAULT_MODEL` with embeddings, :data:`TEXT_MODEL` without;
    ``spans``, when given, are each text's sentence spans (``None`` for one: split here).
    """
    if model is None:
        model = model_for(embeddings is not None)
    profile = evidence_profile(query, texts, domains, embeddings, spans)
    out = [
        model.score(group_signals(profile, members, anchors))
        for members, anchors in candidate_groups(profile, model.min_publishers)
    ]
    return sorted(
        out, key=lambda g: (-(g.score if math.isfinite(g.score) else -math.inf), g.passages)
    )
