"""The one entry point: :class:`Mirage` runs the method (``docs/method.md``) on a query's passages.

``defend`` reads as the method's steps; each step lives in the module named after it:
evidence preparation (:mod:`~mirage_core.evidence`), pairing (:mod:`~mirage_core.pairs`), NLI
scoring (one batched call for every query), the claim graph (:mod:`~mirage_core.graph`), the
quarantine (:mod:`~mirage_core.quarantine`), selection (:mod:`~mirage_core.selection`),
contradiction mass and source count, and the gate (:mod:`~mirage_core.gate`).
"""

from __future__ import annotations

import asyncio
import threading
import time
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

import numpy as np

from mirage_core.claims import content_tokens
from mirage_core.config import MirageConfig
from mirage_core.corroboration import configured_corroboration
from mirage_core.delivery import deliver_corroborated, scope_conflicts
from mirage_core.embeddings import Embedder, as_embedder
from mirage_core.evidence import Evidence, prepare_evidence
from mirage_core.gate import decide
from mirage_core.gate_state import measure
from mirage_core.graph import ClaimGraph, build_graph
from mirage_core.lone_facts import hold_back_lone_facts
from mirage_core.nli.base import NLIBackend
from mirage_core.normalize import normalize_query
from mirage_core.pairs import CandidatePairs, build_pairs
from mirage_core.quarantine import apply_quarantine
from mirage_core.records import CoordinationRecord
from mirage_core.redundancy_filter import require_sklearn
from mirage_core.request_gate import gate_config, request_config
from mirage_core.scoring import Scored, ascore_batch, score_batch
from mirage_core.selection import select_claims
from mirage_core.types import Passage, PassageLike, check_query, to_passages
from mirage_core.verdict import Verdict, make_verdict

__all__ = ["Mirage", "resolve_engine"]


@dataclass
class _Query:
    """One query between its steps: the settings it is defended with, its evidence and its
    pairs."""

    config: MirageConfig
    evidence: Evidence
    pairs: CandidatePairs | None = None

    @property
    def n_directed(self) -> int:
        return 2 * len(self.pairs) if self.pairs is not None else 0


class Mirage:
    """The MIRAGE defense.

    Args:
        config: the settings (:class:`MirageConfig`; defaults documented there).
        nli: any :class:`~mirage_core.nli.base.NLIBackend`, a model name / path / preset, or
            ``None`` for the model packaged with mirage (loaded on first use, on the runtime
            ``default_nli`` picks: ONNX Runtime where it is installed and torch is a CPU-only
            build or absent, else torch).
        embedder: sentence embedder for the coordination signals, ``independence="embedding"``
            and paraphrase pairing: a :class:`~mirage_core.embeddings.Embedder`, a LangChain
            ``Embeddings``, a LlamaIndex embedding or a callable; ``None`` = the packaged
            all-MiniLM-L6-v2 (:func:`~mirage_core.embeddings.default_embedder`, on the same
            runtime as the NLI model; loaded on first use, only if the config needs it).

    A query that requests an account ("Tell me a bio of X?") is defended with the config's
    ``request_overrides`` applied (:mod:`mirage_core.request_gate`); a question with the config
    as it is.

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
        self._account: tuple[MirageConfig, MirageConfig | None] | None = None
        self._nli_spec = nli
        self._nli: NLIBackend | None = None if nli is None or isinstance(nli, str) else nli
        self._nli_lock = threading.Lock()
        self._embedder: Embedder | None = None if embedder is None else as_embedder(embedder)
        self._embedder_given = embedder is not None
        filters = {
            self.config.redundancy_filter,
            self.config.method.request_overrides.get("redundancy_filter"),
        }
        if "single_hop" in filters:
            require_sklearn()  # a missing optional dependency is a setup error: say so here

    @property
    def nli(self) -> NLIBackend:
        """The NLI backend (the packaged model is loaded here on first access)."""
        if self._nli is None:
            with self._nli_lock:
                if self._nli is None:
                    # ONNX Runtime on a CPU-only install that has it, else torch
                    from mirage_core.nli.onnx_nli import default_nli

                    spec = self._nli_spec if isinstance(self._nli_spec, str) else None
                    self._nli = default_nli(spec, batch_size=self.config.batch_size)
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

    def __getstate__(self) -> dict[str, Any]:
        """What a pickle or deep copy of the engine holds: its config and the backends it was
        given; a packaged model it loaded itself is loaded again by the copy on first use. A
        backend that cannot be pickled (an open model session) makes the pickle fail."""
        state = self.__dict__.copy()
        state["_nli_lock"], state["_account"] = None, None
        if self._nli_spec is None or isinstance(self._nli_spec, str):
            state["_nli"] = None
        if not self._embedder_given:
            state["_embedder"] = None
        return state

    def __setstate__(self, state: dict[str, Any]) -> None:
        self.__dict__.update(state)
        self._nli_lock = threading.Lock()

    # -- public API ----------------------------------------------------------------------
    def defend(self, query: str, passages: Sequence[PassageLike]) -> Verdict:
        """Verify the claims of ``passages`` for ``query`` and decide the route."""
        return self.defend_many([query], [passages])[0]

    def defend_many(
        self, queries: Sequence[str], passage_lists: Sequence[Sequence[PassageLike]]
    ) -> list[Verdict]:
        """``defend`` for many queries; their NLI pairs go to the backend in one call."""
        batch = self._pair_all(queries, passage_lists)
        scored = (
            score_batch(batch, self.nli.predict, self.config.nli_error_policy)
            if any(item.n_directed for item in batch)
            else [(None, None)] * len(batch)
        )
        return [self._verdict(item, *result) for item, result in zip(batch, scored, strict=True)]

    async def adefend(self, query: str, passages: Sequence[PassageLike]) -> Verdict:
        """Async ``defend``: the CPU work runs in a worker thread, the NLI call through the
        backend's ``apredict`` (a remote server is awaited; ``max_concurrent_requests`` holds)."""
        return (await self.adefend_many([query], [passages]))[0]

    async def adefend_many(
        self, queries: Sequence[str], passage_lists: Sequence[Sequence[PassageLike]]
    ) -> list[Verdict]:
        """Async ``defend_many`` (one shared NLI call, off the event loop)."""
        batch = await asyncio.to_thread(self._pair_all, queries, passage_lists)
        scored: list[Scored] = [(None, None)] * len(batch)
        if any(item.n_directed for item in batch):
            nli = await asyncio.to_thread(lambda: self.nli)  # a first load stays off the loop
            apredict = getattr(nli, "apredict", None)
            policy = self.config.nli_error_policy
            scored = (
                await ascore_batch(batch, apredict, policy)
                if apredict is not None
                else await asyncio.to_thread(score_batch, batch, nli.predict, policy)
            )
        return await asyncio.to_thread(
            lambda: [self._verdict(item, *r) for item, r in zip(batch, scored, strict=True)]
        )

    def _config_for(self, query: str) -> MirageConfig:
        """The settings ``query`` is defended with (:mod:`mirage_core.request_gate`); a
        request's are derived once per ``self.config``."""
        if self._account is None or self._account[0] is not self.config:
            self._account = (self.config, request_config(self.config))
        return gate_config(self.config, self._account[1], query)

    # -- steps ---------------------------------------------------------------------------
    def _pair_all(
        self, queries: Sequence[str], passage_lists: Sequence[Sequence[PassageLike]]
    ) -> list[_Query]:
        if isinstance(queries, str) or len(queries) != len(passage_lists):
            raise ValueError(
                "defend_many needs one passage list per query (two sequences of equal length)"
            )
        return [
            self._pair(check_query(q), to_passages(p))
            for q, p in zip(queries, passage_lists, strict=True)
        ]

    def _pair(self, query: str, passages: list[Passage]) -> _Query:
        """Evidence preparation, then pairing (both before the shared NLI call)."""
        cfg = self._config_for(normalize_query(query))
        # The first use loads the embedding model: outside the step timings, and only for
        # evidence with text to read (passages that hold none fall back before embedding).
        readable = any(p.text.strip() for p in passages)
        embed = self.embedder.embed if cfg.needs_embeddings and readable else None
        evidence = prepare_evidence(query, passages, cfg, embed)
        item = _Query(cfg, evidence)
        if evidence.early_reason is None:
            if evidence.embeddings is None:
                embed = None  # embeddings failed under pass_through: none for the claims either
            item.pairs = build_pairs(evidence, cfg, embed)
        return item

    def _verdict(
        self, item: _Query, probs: np.ndarray | None, error: BaseException | None
    ) -> Verdict:
        """Graph → quarantine → corroboration → selection → contradiction mass and sources →
        scope of the conflicts → gate → (with ``corroborated_only="delivery"``) the corroborated
        part of S* → (with ``lone_facts="hold_back"``) without the claims that name a lone fact."""
        cfg, evidence, claims = item.config, item.evidence, item.evidence.claims
        if evidence.early_reason is not None or error is not None or item.pairs is None:
            return self._unverified(item, error)
        t0 = time.perf_counter()
        pairs = item.pairs
        probs = np.empty((0, 3)) if probs is None else probs  # a query with no pair
        sourced = build_graph(claims, pairs.left, pairs.right, probs, cfg)
        allowed, quarantined, coordination = apply_quarantine(
            evidence.coordinated,
            claims,
            sourced.graph,
            sourced.groups,
            cfg,
            evidence.garbled,
            evidence.garbled_copies,
        )
        t1 = time.perf_counter()
        corroboration = configured_corroboration(
            claims, sourced, cfg, evidence.claim_embeddings, content_tokens(evidence.query)
        )
        selected, scores, corroborated = select_claims(
            claims, sourced, allowed, cfg, corroboration, quarantined
        )
        t2 = time.perf_counter()
        state, coordination = measure(
            evidence, sourced, selected, quarantined, coordination, cfg, corroboration, corroborated
        )
        state = scope_conflicts(state, corroboration, quarantined)
        decision = decide(state, coordination)
        if cfg.method.corroborated_only == "delivery":
            decision = deliver_corroborated(decision, state, corroboration, quarantined)
        decision = hold_back_lone_facts(decision, state, quarantined)
        evidence.timings.update(graph=t1 - t0, select=t2 - t1, gate=time.perf_counter() - t2)
        return make_verdict(
            cfg,
            evidence,
            pairs,
            decision=decision.decision,
            reason=decision.reason,
            selected=decision.delivered,
            r_contr=state.r_contr,
            d_src=state.d_src,
            graph=sourced.graph,
            scores=scores,
            support=sourced.support,
            d_min_applied=state.d_min,
            gate=decision.outcomes,
            coordination=coordination
            if coordination.signals or coordination.released or coordination.garbled
            else None,
            answer_conflicts=decision.answer_conflicts,
            tie=decision.tie,
            held_back=decision.held_back,
            lone_facts=decision.lone_facts,
            corroborated=None if corroboration is None else corroboration.vouched(quarantined),
        )

    def _unverified(self, item: _Query, error: BaseException | None) -> Verdict:
        """The verdict of a query with nothing to verify, or whose NLI call failed: fallback,
        or under ``nli_error_policy="pass_through"`` every claim unverified but those of the
        passages read as planted or garbled, which needed no NLI model to find."""
        evidence, n = item.evidence, len(item.evidence.claims)
        decision, r_contr, message = "fallback", 0.0, None
        selected: tuple[int, ...] = ()
        coordination = None
        if evidence.early_reason is not None or error is None:
            reason = evidence.early_reason or "no evidence"
        else:
            message = f"{type(error).__name__}: {error}"
            r_contr = float("nan")
            if item.config.nli_error_policy == "pass_through":
                decision, selected, reason, coordination = self._passed_through(item, message)
            else:
                reason = f"NLI failed ({message}); fallback policy: no retrieved text used"
        return make_verdict(
            item.config,
            evidence,
            item.pairs,
            decision=decision,
            reason=reason,
            selected=selected,
            r_contr=r_contr,
            d_src=len({evidence.claims[i].domain for i in selected}),
            nli_error=message,
            graph=ClaimGraph.empty(n),
            scores=np.zeros(n),
            support=np.zeros(n, dtype=np.int64),
            non_claims=(),
            groups=None,
            coordination=coordination,
        )

    @staticmethod
    def _passed_through(
        item: _Query, message: str
    ) -> tuple[str, tuple[int, ...], str, CoordinationRecord | None]:
        """(decision, delivered claims, reason, record) of a query whose NLI call failed under
        ``"pass_through"``: the user chose to go on unverified, not to let a passage the
        coordination signals or the garbled reading set apart through."""
        evidence, claims = item.evidence, item.evidence.claims
        left_out = {p for g in evidence.coordinated for p in g.passages} | set(evidence.garbled)
        kept = tuple(i for i, c in enumerate(claims) if c.passage_index not in left_out)
        head = f"NLI failed ({message}); pass_through policy: "
        if not left_out:
            return "verified", kept, f"{head}all {len(claims)} claims delivered unverified", None
        record = CoordinationRecord(
            signals=tuple(evidence.coordinated),
            passages=tuple(sorted(left_out)),
            quarantined_claims=len(claims) - len(kept),
            garbled=tuple(sorted(evidence.garbled)),
            garbled_copies=tuple(sorted(evidence.garbled_copies)),
        )
        aside = f"passages {sorted(left_out)} look planted or garbled and are left out"
        if not kept:
            return "fallback", (), f"{head}{aside}; no claim left to deliver", record
        reason = f"{head}{len(kept)} of {len(claims)} claims delivered unverified ({aside})"
        return "verified", kept, reason, record


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
