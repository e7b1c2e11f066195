"""The :class:`Verdict`: everything a decision used, convertible to JSON, networkx and text."""

from __future__ import annotations

import json
import math
from dataclasses import dataclass, field
from typing import Any, Literal

import numpy as np

from mirage_core.graph import ClaimGraph
from mirage_core.types import Claim

__all__ = ["Decision", "Edge", "Verdict", "VerifiedPassage"]

Decision = Literal["verified", "fallback"]


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
    fact_conflict: bool


@dataclass(frozen=True, slots=True)
class VerifiedPassage:
    """A passage reduced to its verified sentences (what adapters hand to the LLM).

    ``support`` is the largest n(c) among its verified claims; ``agreeing_sources`` the other
    sources whose claims support any of them.
    """

    passage_index: int
    text: str
    claim_indices: tuple[int, ...]
    support: int
    agreeing_sources: tuple[str, ...]


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
    (no retrieved text may reach the model). ``selected`` holds claim indices of S* in pick
    order; ``scores``/``support`` are s(c) and n(c) per claim.
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
    extras: dict[str, Any] = field(default_factory=dict)
    #: Each claim's relevance to the query in [0, 1] (``None``: relevance off, all count fully).
    relevance: np.ndarray | None = None

    # -- views -------------------------------------------------------------------------
    @property
    def passed(self) -> bool:
        return self.decision == "verified"

    @property
    def d_min_applied(self) -> int | None:
        """The source count the gate asked of S*: ``coordinated_d_min`` after a quarantine
        (recorded in ``extras["d_min"]``), else the configured ``d_min``."""
        return self.extras.get("d_min", self.thresholds.get("d_min"))

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
                bool(f),
            )
            for p, h, pr, s, c, f in zip(
                g.premise, g.hypothesis, g.probs, g.w_supp, g.w_contr, g.fact_conflict, strict=True
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
                )
            )
        return out

    # -- conversions -------------------------------------------------------------------
    def to_dict(self, *, include_edges: bool = True) -> dict[str, Any]:
        """A JSON-safe dict (NaN becomes ``None``)."""
        selected = set(self.selected)
        data: dict[str, Any] = {
            "query": self.query,
            "decision": self.decision,
            "reason": self.reason,
            "r_contr": _finite(self.r_contr),
            "d_src": self.d_src,
            "selected": list(self.selected),
            "n_passages": self.n_passages,
            "claims": [
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
                }
                for c in self.claims
            ],
            "thresholds": dict(self.thresholds),
            "candidate_stats": dict(self.candidate_stats),
            "timings": {k: round(v, 6) for k, v in self.timings.items()},
            "warnings": list(self.warnings),
            "nli_error": self.nli_error,
            "extras": _json_safe(self.extras),
        }
        if include_edges:
            data["edges"] = [
                {
                    "premise": e.premise,
                    "hypothesis": e.hypothesis,
                    "p": [round(e.p_entail, 6), round(e.p_neutral, 6), round(e.p_contra, 6)],
                    "w_supp": round(e.w_supp, 6),
                    "w_contr": round(e.w_contr, 6),
                    "fact_conflict": e.fact_conflict,
                }
                for e in self.edges
            ]
        return data

    def to_json(self, **kwargs: Any) -> str:
        return json.dumps(self.to_dict(), ensure_ascii=False, default=str, **kwargs)

    def to_html(self, passages: Any = None, *, title: str | None = None) -> str:
        """One self-contained HTML page (no script, nothing fetched): the decision, the claim
        graph as SVG, the contradiction pairs and each passage with its sentences marked.
        Pass the ``passages`` given to ``defend`` to show their whole text; see
        :func:`mirage_core.report_html.render_html`."""
        from mirage_core.report_html import render_html

        return render_html(self, passages, title=title)

    def to_networkx(self):
        """The claim graph as a ``networkx.DiGraph``: nodes carry claim fields, s(c), n(c) and
        whether they are in S*; edges carry probabilities and weights."""
        import networkx as nx

        graph = nx.DiGraph(
            query=self.query, decision=self.decision, r_contr=self.r_contr, d_src=self.d_src
        )
        selected = set(self.selected)
        for c in self.claims:
            graph.add_node(
                c.index,
                text=c.text,
                passage_index=c.passage_index,
                source=c.source,
                domain=c.domain,
                score=float(self.scores[c.index]) if self.scores.size else 0.0,
                support=int(self.support[c.index]) if self.support.size else 0,
                selected=c.index in selected,
            )
        for e in self.edges:
            graph.add_edge(
                e.premise,
                e.hypothesis,
                p_entail=e.p_entail,
                p_neutral=e.p_neutral,
                p_contra=e.p_contra,
                w_supp=e.w_supp,
                w_contr=e.w_contr,
                fact_conflict=e.fact_conflict,
            )
        return graph

    def explain(self, max_claims: int = 10) -> str:
        """A plain-text account of the decision."""
        lines = [
            f"query: {self.query}",
            f"decision: {self.decision.upper()} — {self.reason}",
            f"claims: {len(self.claims)} from {self.n_passages} passage(s); "
            f"NLI edges: {len(self.graph)}; r_contr={_fmt(self.r_contr)} (r_max={self.thresholds.get('r_max')}), "
            f"d_src={self.d_src} (d_min={self.d_min_applied})",
        ]
        if self.selected:
            lines.append(f"S* ({len(self.selected)} claims, pick order):")
            for i in self.selected[:max_claims]:
                c = self.claims[i]
                lines.append(
                    f"  [{i}] s={self.scores[i]:.2f} n={int(self.support[i])} {c.domain}: {_short(c.text)}"
                )
            if len(self.selected) > max_claims:
                lines.append(f"  ... {len(self.selected) - max_claims} more")
        lines += self._explain_independence()
        contra = [e for e in self.edges if e.w_contr > 0]
        if contra:
            lines.append(f"contradictions ({len(contra)} directed edges), strongest:")
            rel = self.relevance

            def weight(e: Edge) -> float:
                # what the edge weighs in r_contr: its w_contr times its relevance
                if rel is None:
                    return e.w_contr
                return e.w_contr * min(rel[e.premise], rel[e.hypothesis])

            for e in sorted(contra, key=lambda e: -weight(e))[:5]:
                tag = " (fact conflict)" if e.fact_conflict else ""
                about = (
                    ""
                    if rel is None
                    else f" relevance={min(rel[e.premise], rel[e.hypothesis]):.2f}"
                )
                lines.append(
                    f"  [{e.premise}] {_short(self.claims[e.premise].text, 60)}  ⟂  "
                    f"[{e.hypothesis}] {_short(self.claims[e.hypothesis].text, 60)}  "
                    f"p_contra={e.p_contra:.2f} w_contr={e.w_contr:.2f}{about}{tag}"
                )
        skipped = self.extras.get("non_claims") or []
        if skipped:
            counts: dict[str, int] = {}
            for item in skipped:
                counts[item["reason"]] = counts.get(item["reason"], 0) + 1
            lines.append(
                f"not claims ({len(skipped)} sentences skipped): "
                + ", ".join(f"{k} {v}" for k, v in counts.items())
            )
        for w in self.warnings:
            lines.append(f"warning: {w}")
        if self.timings:
            lines.append(
                "timings: " + ", ".join(f"{k}={v * 1000:.1f}ms" for k, v in self.timings.items())
            )
        return "\n".join(lines)

    def _explain_independence(self) -> list[str]:
        """Multi-passage independence groups, coordination figures, answer conflicts and a tie,
        when present."""
        lines = []
        merged = {g: p for g, p in self.extras.get("groups", {}).items() if len(p) > 1}
        if merged:
            lines.append(
                "independence groups (one source each): "
                + "; ".join(f"{g} = passages {p}" for g, p in merged.items())
            )
        for g in self.extras.get("coordination", []):
            if not g.get("tight"):
                continue
            what = "flagged (tight and contradicts " + ", ".join(g["contradicts"]) + ")"
            lines.append(
                f"coordination: {g['group']} passages {list(g['passages'])}: mean cosine "
                f"{g['mean_cosine']:.2f} vs the query's median {_fmt(g['query_median'])} "
                f"(z={g['z']:.1f}) — {what if g.get('flagged') else 'tight'}; its claims need "
                "support from another group"
            )
        # Flagged groups are quarantined unless coordinated_min_support = 0 turned that off.
        fate = "quarantined" if self.extras.get("coordinated_passages") else "flagged"
        for g in self.extras.get("coordination_signals", []):
            lines.append(f"coordination signals: {g['explain']} — {fate}")
        if self.extras.get("conflicts_ignored"):
            lines.append(
                f"contradiction gate: {self.extras['conflicts_ignored']} contradiction edges of "
                "quarantined passages left out of r_contr (quarantined_conflicts='ignore')"
            )
        for passages in self.extras.get("coordination_released", []):
            lines.append(
                f"coordination signals: passages {list(passages)} flagged but released: "
                "they contradict each other (planted copies push one answer)"
            )
        for c in self.extras.get("answer_conflicts", []):
            read = [c[side] for side in ("left", "right") if c.get(f"{side}_context")]
            lines.append(
                f"answer conflict: claims [{c['left']}] and [{c['right']}] both restate the "
                "question"
                + (
                    f" ({', '.join(f'[{i}]' for i in read)} with its page's context)"
                    if read
                    else ""
                )
                + f" and name different {c['kind']}s: {', '.join(c['left_facts'])} vs "
                f"{', '.join(c['right_facts'])}"
            )
        held = self.extras.get("redundancy")
        if held:
            lines.append(
                f"redundancy filter: passages {held['passages']} held back as the estimated "
                f"adversarial majority (N_adv={held['n_adv']}); {len(held['held_claims'])} "
                "claims of S* not delivered"
            )
        tie = self.extras.get("tie")
        if tie:
            lines.append(
                f"tie: {tie['rejected_side']} independent groups against S* vs "
                f"{tie['selected_side']} behind it"
            )
        return lines

    def __repr__(self) -> str:
        return f"Verdict(decision={self.decision!r}, reason={self.reason!r})"


def _fmt(x: float) -> str:
    return "n/a" if x is None or not math.isfinite(x) else f"{x:.3f}"


def _short(text: str, n: int = 90) -> str:
    return text if len(text) <= n else text[: n - 1] + "…"
