"""The :class:`Verdict`: everything a decision used, convertible to JSON, networkx and text."""

from __future__ import annotations

import json
import math
from dataclasses import asdict, dataclass, field
from functools import cached_property
from typing import TYPE_CHECKING, Any, Literal

import numpy as np

from mirage_core.answer_conflict import AnswerConflict
from mirage_core.config import MirageConfig
from mirage_core.evidence import Evidence
from mirage_core.graph import ClaimGraph
from mirage_core.pairs import CandidatePairs
from mirage_core.records import CoordinationRecord, HeldBack, NonClaim, RuleOutcome, Tie
from mirage_core.types import Claim

if TYPE_CHECKING:
    import networkx as nx

__all__ = ["SCHEMA_VERSION", "Decision", "Edge", "Verdict", "VerifiedPassage", "make_verdict"]

Decision = Literal["verified", "fallback"]

#: The layout of :meth:`Verdict.to_dict` (``docs/report.md`` lists its keys).
SCHEMA_VERSION = 3


@dataclass(frozen=True, slots=True)
class Edge:
    """One directed NLI edge: does ``premise`` support / contradict ``hypothesis``?"""

    premise: int
    hypothesis: int
    p_entail: float
    p_neutral: float
    p_contra: float
    w_supp: float
    w_contr: float


@dataclass(frozen=True, slots=True)
class VerifiedPassage:
    """A passage reduced to its verified sentences (what adapters hand to the LLM).

    ``support`` is the largest n(c) among its verified claims; ``agreeing_sources`` the other
    sources whose claims support any of them; ``corroborated_claims`` those of its claims that
    an independent source corroborates (``None`` where the verdict did not read corroboration).
    """

    passage_index: int
    text: str
    claim_indices: tuple[int, ...]
    support: int
    agreeing_sources: tuple[str, ...]
    corroborated_claims: tuple[int, ...] | None = None


def _finite(x: float) -> float | None:
    return None if x is None or not math.isfinite(x) else float(x)


def _json_safe(value: Any) -> Any:
    """Recursively: tuples to lists, numpy scalars to Python, NaN/inf to None."""
    if isinstance(value, dict):
        return {str(k): _json_safe(v) for k, v in value.items()}
    if isinstance(value, list | tuple):
        return [_json_safe(v) for v in value]
    if isinstance(value, np.generic):
        value = value.item()
    if isinstance(value, float):
        return _finite(value)
    return value


@dataclass(frozen=True)
class Verdict:
    """The outcome of one ``Mirage.defend`` call.

    ``decision`` is ``"verified"`` (answer from the claims of ``selected``) or ``"fallback"``
    (no retrieved text may reach the model). ``selected`` holds the indices of the claims the
    verdict delivers, in S*'s pick order: S* itself, or the part of it that delivery, the
    redundancy filter or the lone-facts hold-back kept (the reason says how many of S*'s
    claims that is); on a fallback, the S* the gate weighed, of which nothing is delivered.
    ``scores``/``support`` are s(c) and n(c) per claim.
    """

    query: str
    decision: Decision
    reason: str
    claims: tuple[Claim, ...]
    selected: tuple[int, ...]
    r_contr: float
    d_src: int
    graph: ClaimGraph
    scores: np.ndarray
    support: np.ndarray
    thresholds: dict[str, Any]
    n_passages: int
    candidate_stats: dict[str, int] = field(default_factory=dict)
    timings: dict[str, float] = field(default_factory=dict)
    warnings: tuple[str, ...] = ()
    nli_error: str | None = None
    #: The embedder's failure (``"Type: message"``) where it failed and the policy did not raise:
    #: the verdict fell back (``"fallback"``) or went on without embeddings (``"pass_through"``).
    embedding_error: str | None = None
    #: Each claim's relevance to the query in [0, 1] (``None``: relevance off, all count fully).
    relevance: np.ndarray | None = None
    #: The source count the gate asked of S*: ``coordinated_d_min`` after a quarantine, else
    #: ``d_min``.
    d_min_applied: int | None = None
    #: Every gate rule's outcome, in the order they ran.
    gate: tuple[RuleOutcome, ...] = ()
    #: What the coordination signals flagged and the quarantine did (``None``: signals off or
    #: nothing flagged).
    coordination: CoordinationRecord | None = None
    #: Pairs of verified claims that answer the question differently (the answer-slot rule):
    #: the first 100 in index order; the gate's reason counts them all.
    answer_conflicts: tuple[AnswerConflict, ...] = ()
    #: The two sides of a tie with S*, when the tie rule blocked.
    tie: Tie | None = None
    #: What the redundancy filter held back.
    held_back: HeldBack | None = None
    #: Delivered claims held back for a fact no other independent source states, each with
    #: those facts (``lone_facts``; :mod:`mirage_core.lone_facts`).
    lone_facts: tuple[tuple[int, tuple[str, ...]], ...] = ()
    #: Sentences that assert nothing, skipped as claims.
    non_claims: tuple[NonClaim, ...] = ()
    #: Independence group -> the caller's passage indices (``None`` with ``independence="none"``).
    groups: dict[str, tuple[int, ...]] | None = None
    #: Per claim: whether an independent source that the quarantine kept corroborates it (an NLI
    #: support edge, or a paraphrase where configured, stating every fact of it with
    #: ``fact_coverage``; :mod:`mirage_core.corroboration`). A verdict can deliver claims that
    #: are not (its reason says how many are). ``None`` where no step read corroboration
    #: (``paper()``).
    corroborated: np.ndarray | None = None

    # -- views -------------------------------------------------------------------------
    @property
    def passed(self) -> bool:
        return self.decision == "verified"

    @property
    def unchecked(self) -> bool:
        """Whether this verdict delivers claims nothing checked: the NLI call failed and the
        config fails open (``nli_error_policy="pass_through"``). Its route is ``"verified"``
        by the user's choice; a prompt must not call its evidence cross-checked."""
        return self.passed and self.nli_error is not None

    @cached_property
    def extras(self) -> dict[str, Any]:
        """The typed records as the verdict's JSON writes them (``to_dict()["extras"]``; keys
        documented in ``docs/report.md``). Built once: the report reads it many times."""
        out: dict[str, Any] = {} if self.coordination is None else self.coordination.extras()
        if self.d_min_applied is not None and self.d_min_applied != self.thresholds.get("d_min"):
            out["d_min"] = self.d_min_applied
        if self.answer_conflicts:
            out["answer_conflicts"] = [asdict(c) for c in self.answer_conflicts]
        if self.tie is not None:
            out["tie"] = asdict(self.tie)
        if self.held_back is not None:
            held = self.held_back
            out["redundancy"] = {
                "n_adv": held.n_adv,
                "passages": list(held.passages),
                "held_claims": list(held.held_claims),
            }
        if self.lone_facts:
            out["lone_facts"] = [{"claim": i, "facts": list(f)} for i, f in self.lone_facts]
        if self.non_claims:
            out["non_claims"] = [asdict(n) for n in self.non_claims]
        if self.groups is not None:
            out["groups"] = {g: list(p) for g, p in self.groups.items()}
        return out

    @property
    def verified_claims(self) -> list[Claim]:
        """Claims of S* in pick order (empty on fallback)."""
        return [self.claims[i] for i in self.selected] if self.passed else []

    @property
    def edges(self) -> list[Edge]:
        g = self.graph
        return [
            Edge(
                int(p),
                int(h),
                float(pr[0]),
                float(pr[1]),
                float(pr[2]),
                float(s),
                float(c),
            )
            for p, h, pr, s, c in zip(
                g.premise, g.hypothesis, g.probs, g.w_supp, g.w_contr, strict=True
            )
        ]

    def agreeing_sources(self, claim_indices: int | list[int] | tuple[int, ...]) -> tuple[str, ...]:
        """Other sources holding a claim that supports any of ``claim_indices`` (sorted)."""
        idx = [claim_indices] if isinstance(claim_indices, int) else list(claim_indices)
        g = self.graph
        into = (g.w_supp > 0) & np.isin(g.hypothesis, idx)
        own = {self.claims[i].source for i in idx}
        return tuple(sorted({self.claims[int(j)].source for j in g.premise[into]} - own))

    def verified_passages(self) -> list[VerifiedPassage]:
        """Each contributing passage reduced to its verified sentences, in passage order and
        reading order within a passage. Empty on fallback."""
        if not self.passed:
            return []
        by_passage: dict[int, list[int]] = {}
        for i in sorted(
            self.selected, key=lambda i: (self.claims[i].passage_index, self.claims[i].start)
        ):
            by_passage.setdefault(self.claims[i].passage_index, []).append(i)
        out = []
        for p_idx in sorted(by_passage):
            idx = by_passage[p_idx]
            out.append(
                VerifiedPassage(
                    passage_index=p_idx,
                    text=" ".join(self.claims[i].text for i in idx),
                    claim_indices=tuple(idx),
                    support=int(max(self.support[i] for i in idx)),
                    agreeing_sources=self.agreeing_sources(idx),
                    corroborated_claims=None
                    if self.corroborated is None
                    else tuple(i for i in idx if self.corroborated[i]),
                )
            )
        return out

    # -- conversions -------------------------------------------------------------------
    def _claim_fields(self) -> list[dict[str, Any]]:
        """Each claim's fields as :meth:`to_dict` writes them and :meth:`to_networkx` puts them
        on its node."""
        selected = set(self.selected)
        return [
            {
                "index": c.index,
                "text": c.text,
                "passage_index": c.passage_index,
                "span": [c.start, c.end],
                "source": c.source,
                "domain": c.domain,
                "group": c.group,
                "retrieval_score": _finite(c.retrieval_score),
                "score": _finite(float(self.scores[c.index])) if self.scores.size else None,
                "support": int(self.support[c.index]) if self.support.size else 0,
                "relevance": None
                if self.relevance is None
                else round(float(self.relevance[c.index]), 4),
                "selected": c.index in selected,
                "corroborated": None
                if self.corroborated is None
                else bool(self.corroborated[c.index]),
            }
            for c in self.claims
        ]

    def to_dict(self, *, include_edges: bool = True) -> dict[str, Any]:
        """A JSON-safe dict (NaN becomes ``None``)."""
        data: dict[str, Any] = {
            "schema_version": SCHEMA_VERSION,
            "query": self.query,
            "decision": self.decision,
            "reason": self.reason,
            "r_contr": _finite(self.r_contr),
            "d_src": self.d_src,
            "selected": list(self.selected),
            "n_passages": self.n_passages,
            "claims": self._claim_fields(),
            "thresholds": dict(self.thresholds),
            "candidate_stats": dict(self.candidate_stats),
            "timings": {k: round(v, 6) for k, v in self.timings.items()},
            "warnings": list(self.warnings),
            "nli_error": self.nli_error,
            "embedding_error": self.embedding_error,
            "extras": _json_safe(self.extras),
            "gate": [asdict(o) for o in self.gate],
        }
        if include_edges:
            data["edges"] = [
                {
                    "premise": e.premise,
                    "hypothesis": e.hypothesis,
                    "p": [round(e.p_entail, 6), round(e.p_neutral, 6), round(e.p_contra, 6)],
                    "w_supp": round(e.w_supp, 6),
                    "w_contr": round(e.w_contr, 6),
                }
                for e in self.edges
            ]
        return data

    def to_json(self, *, include_edges: bool = True, **kwargs: Any) -> str:
        """:meth:`to_dict` as JSON; ``kwargs`` go to ``json.dumps`` and may replace its
        defaults here (``ensure_ascii=False``, ``default=str``)."""
        options: dict[str, Any] = {"ensure_ascii": False, "default": str} | kwargs
        return json.dumps(self.to_dict(include_edges=include_edges), **options)

    def to_html(self, passages: Any = None, *, title: str | None = None) -> str:
        """One self-contained HTML page (no script, nothing fetched): the decision, the claim
        graph as SVG, the contradiction pairs and each passage with its sentences marked.
        Pass the ``passages`` given to ``defend`` to show their whole text; see
        :func:`mirage_core.report_html.render_html`."""
        from mirage_core.report_html import render_html

        return render_html(self, passages, title=title)

    def to_networkx(self) -> nx.DiGraph[int]:
        """The claim graph as a ``networkx.DiGraph`` that carries what :meth:`to_dict` writes of
        each claim and edge, under the same names.

        - Node ``i`` is claim ``i``; its attributes are its entry of ``to_dict()["claims"]``:
          ``index``, ``text``, ``passage_index``, ``span`` (``[start, end]`` in the passage),
          ``source``, ``domain``, ``group`` (its independence group), ``retrieval_score``,
          ``score`` (s(c)), ``support`` (n(c)), ``relevance`` (rounded to 4 places; ``None``:
          relevance off), ``selected`` (whether it is in :attr:`selected`) and
          ``corroborated`` (``None`` where no step read corroboration). ``score`` and
          ``retrieval_score`` are ``None`` where not finite or not computed.
        - Edge ``(premise, hypothesis)`` carries ``p_entail``, ``p_neutral``, ``p_contra``
          (``to_dict``'s ``p``, unrounded, named as :class:`Edge` names them), ``w_supp`` and
          ``w_contr``.
        - The graph's attributes (``graph.graph``): ``query``, ``decision``, ``reason``,
          ``r_contr``, ``d_src``, ``selected`` (:attr:`selected`, in pick order),
          ``n_passages``, ``nli_error``, ``embedding_error`` and ``unchecked``
          (:attr:`unchecked`).

        The settings, gate outcomes and per-passage records (quarantine, redundancy filter, lone
        facts) stay on the verdict (:attr:`extras`, :attr:`gate`, :attr:`thresholds`).
        """
        import networkx as nx

        graph = nx.DiGraph(
            query=self.query,
            decision=self.decision,
            reason=self.reason,
            r_contr=self.r_contr,
            d_src=self.d_src,
            selected=self.selected,
            n_passages=self.n_passages,
            nli_error=self.nli_error,
            embedding_error=self.embedding_error,
            unchecked=self.unchecked,
        )
        graph.add_nodes_from((attrs["index"], attrs) for attrs in self._claim_fields())
        graph.add_edges_from(
            (
                e.premise,
                e.hypothesis,
                {
                    "p_entail": e.p_entail,
                    "p_neutral": e.p_neutral,
                    "p_contra": e.p_contra,
                    "w_supp": e.w_supp,
                    "w_contr": e.w_contr,
                },
            )
            for e in self.edges
        )
        return graph

    def explain(self, max_claims: int = 10) -> str:
        """A plain-text account of the decision (:func:`mirage_core.explain.explain`)."""
        from mirage_core.explain import explain

        return explain(self, max_claims)

    def __repr__(self) -> str:
        return f"Verdict(decision={self.decision!r}, reason={self.reason!r})"


def make_verdict(
    config: MirageConfig, evidence: Evidence, pairs: CandidatePairs | None, **fields: Any
) -> Verdict:
    """The verdict with what every verdict records: the claims, the pair counts, the
    settings, the timings and the evidence's records."""
    evidence.timings["total"] = sum(evidence.timings.values())
    stats = {
        "claims": len(evidence.claims),
        "cross_source_pairs": pairs.total_cross_source if pairs else 0,
        "prefiltered_pairs": pairs.prefiltered if pairs else 0,
        "nli_pairs": len(pairs) if pairs else 0,
        "paraphrase_pairs": pairs.paraphrase if pairs else 0,
        "non_claims": len(evidence.non_claims),
    }
    groups = None
    if config.independence != "none" and "groups" not in fields:
        members: dict[str, list[int]] = {}
        for p, g in zip(evidence.passage_ids, evidence.groups, strict=True):
            members.setdefault(str(g), []).append(int(p))
        groups = {g: tuple(p) for g, p in members.items()}
    fields.setdefault("d_min_applied", config.d_min)
    return Verdict(
        query=evidence.query,
        claims=tuple(evidence.claims),
        thresholds=config.flat(),
        n_passages=evidence.n_passages,
        candidate_stats=stats,
        timings=evidence.timings,
        warnings=tuple(evidence.warnings),
        relevance=evidence.relevance,
        embedding_error=evidence.embedding_error,
        **({"non_claims": tuple(evidence.non_claims), "groups": groups} | fields),
    )
