"""The records of a benchmark run and their aggregation into metric rows.

:class:`Route` is what one system delivered for one instance, :class:`InstanceRecord` one
instance's claim labels and every system's route, :class:`BenchResult` a whole run;
:func:`aggregate` pools the records into one row per system × regime × family.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Any

import numpy as np

from mirage_core.evaluation.instances import Instance
from mirage_core.evaluation.measures import claim_pollution, contains_answer, corroborated_clean
from mirage_core.verdict import Verdict

__all__ = ["BenchResult", "InstanceRecord", "Route", "aggregate"]


@dataclass
class Route:
    """What one system delivered for one instance."""

    decision: str  # verified / fallback (mirage), all (vanilla), none (no-RAG)
    delivered: tuple[int, ...]  # claim indices delivered
    n_polluted: int
    kept_corroborated: int
    correct: bool | None = None
    incorrect: bool | None = None
    latency_s: float | None = None
    nli_pairs: int | None = None
    reason: str = ""
    answer: str | None = None
    answer_correct: bool | None = None
    answer_incorrect: bool | None = None
    kept_passages: tuple[int, ...] | None = None  # filters (ragdefender): passages delivered

    @property
    def passed(self) -> bool:
        return self.decision in ("verified", "all")

    def to_dict(self) -> dict[str, Any]:
        d = {
            "decision": self.decision,
            "delivered": len(self.delivered),
            "polluted": self.n_polluted,
            "kept_corroborated": self.kept_corroborated,
        }
        for key in (
            "reason",
            "correct",
            "incorrect",
            "nli_pairs",
            "answer",
            "answer_correct",
            "answer_incorrect",
        ):
            value = getattr(self, key)
            if value is not None and value != "":
                d[key] = value
        if self.latency_s is not None:
            d["latency_ms"] = round(self.latency_s * 1000, 3)
        if self.kept_passages is not None:
            d["kept_passages"] = list(self.kept_passages)
        return d


@dataclass
class InstanceRecord:
    """Labels of one instance's claims and each system's route."""

    qid: str
    query: str
    regime: str
    family: str
    n_passages: int
    n_polluted_passages: int
    n_claims: int
    n_polluted_claims: int
    n_corroborated_clean: int
    routes: dict[str, Route] = field(default_factory=dict)
    correct: tuple[str, ...] = ()
    incorrect: tuple[str, ...] = ()
    verdicts: dict[str, Verdict] = field(default_factory=dict, repr=False)
    passage_texts: list[str] = field(default_factory=list, repr=False)
    #: per claim of the reference verdict (every mirage system shares its claims): polluted?
    polluted: np.ndarray | None = field(default=None, repr=False)

    def to_dict(self) -> dict[str, Any]:
        return {
            "qid": self.qid,
            "regime": self.regime,
            "family": self.family,
            "passages": self.n_passages,
            "polluted_passages": self.n_polluted_passages,
            "claims": self.n_claims,
            "polluted_claims": self.n_polluted_claims,
            "corroborated_clean": self.n_corroborated_clean,
            "routes": {k: r.to_dict() for k, r in self.routes.items()},
        }


@dataclass
class BenchResult:
    dataset: dict[str, Any]
    settings: dict[str, Any]
    systems: list[str]
    records: list[InstanceRecord]
    nli_stats: dict[str, Any] = field(default_factory=dict)
    wall_s: float = 0.0

    def rows(self) -> list[dict[str, Any]]:
        return aggregate(
            self.records,
            self.systems,
            qa=bool(self.dataset.get("qa")),
            families=self.dataset.get("families"),
        )


def _record(
    instance: Instance, reference: Verdict
) -> tuple[InstanceRecord, np.ndarray, np.ndarray]:
    polluted = claim_pollution(instance, reference.claims)
    corr = corroborated_clean(reference, polluted)
    return (
        InstanceRecord(
            qid=instance.qid,
            query=instance.query,
            regime=instance.regime,
            family=instance.family,
            n_passages=len(instance.items),
            n_polluted_passages=instance.n_polluted,
            n_claims=len(reference.claims),
            n_polluted_claims=int(polluted.sum()),
            n_corroborated_clean=int(corr.sum()),
            correct=tuple(instance.correct),
            incorrect=tuple(instance.incorrect),
            passage_texts=[p.text for p in instance.passages],
            polluted=polluted,
        ),
        polluted,
        corr,
    )


def _route(
    decision: str,
    delivered: Sequence[int],
    polluted: np.ndarray,
    corr: np.ndarray,
    instance: Instance,
    text: str,
    **extra: Any,
) -> Route:
    idx = np.asarray(delivered, dtype=np.int64)
    qa = bool(instance.correct or instance.incorrect)
    return Route(
        decision=decision,
        delivered=tuple(int(i) for i in idx),
        n_polluted=int(polluted[idx].sum()) if idx.size else 0,
        kept_corroborated=int(corr[idx].sum()) if idx.size else 0,
        correct=contains_answer(text, instance.correct) if qa else None,
        incorrect=contains_answer(text, instance.incorrect, instance.correct) if qa else None,
        **extra,
    )


# -- aggregation --------------------------------------------------------------------------------


def _ratio(num: float, den: float) -> float | None:
    return None if den == 0 else float(num) / float(den)


def _metrics(records: Sequence[InstanceRecord], system: str, qa: bool) -> dict[str, Any]:
    routes = [r.routes[system] for r in records if system in r.routes]
    n = len(routes)
    delivered = sum(len(x.delivered) for x in routes)
    polluted = sum(x.n_polluted for x in routes)
    corroborated = sum(r.n_corroborated_clean for r in records if system in r.routes)
    kept = sum(x.kept_corroborated for x in routes)
    out: dict[str, Any] = {
        "n": n,
        "pass_rate": _ratio(sum(x.passed for x in routes), n),
        "contamination": _ratio(polluted, delivered),
        "exposure": _ratio(sum(x.n_polluted > 0 for x in routes), n),
        "retention": _ratio(kept, corroborated),
        "claims_delivered": _ratio(delivered, n),
    }
    if qa:
        out["correct_in_evidence"] = _ratio(sum(bool(x.correct) for x in routes), n)
        out["incorrect_in_evidence"] = _ratio(sum(bool(x.incorrect) for x in routes), n)
        out["correct_only"] = _ratio(sum(bool(x.correct) and not x.incorrect for x in routes), n)
    answered = [x for x in routes if x.answer is not None]
    if answered and qa:
        out["answer_correct"] = _ratio(sum(bool(x.answer_correct) for x in answered), len(answered))
        out["answer_incorrect"] = _ratio(
            sum(bool(x.answer_incorrect) for x in answered), len(answered)
        )
    lat = [x.latency_s for x in routes if x.latency_s is not None]
    if lat and system == "mirage":
        arr = np.asarray(lat) * 1000
        out["latency_ms_mean"] = float(arr.mean())
        out["latency_ms_p50"] = float(np.percentile(arr, 50))
        out["latency_ms_p95"] = float(np.percentile(arr, 95))
    pairs = [x.nli_pairs for x in routes if x.nli_pairs is not None]
    if pairs:
        out["nli_pairs_mean"] = float(np.mean(pairs))
    return out


def aggregate(
    records: Sequence[InstanceRecord],
    systems: Sequence[str],
    *,
    qa: bool = False,
    families: Sequence[str] | None = None,
) -> list[dict[str, Any]]:
    """One row per system × regime × family, plus ``family = "all"`` rows pooling a regime
    (families in the order of ``families``, then as they appear)."""
    rank = {f: i for i, f in enumerate(families or ())}
    rows: list[dict[str, Any]] = []
    regimes = sorted(
        {r.regime for r in records}, key=lambda x: {"clean": 0, "mixed": 1, "full": 2}.get(x, 3)
    )
    for system in systems:
        for regime in regimes:
            in_regime = [r for r in records if r.regime == regime]
            fams = sorted(
                dict.fromkeys(r.family for r in in_regime), key=lambda f: rank.get(f, len(rank))
            )
            if len(fams) > 1:
                rows.append(
                    {
                        "system": system,
                        "regime": regime,
                        "family": "all",
                        **_metrics(in_regime, system, qa),
                    }
                )
            for fam in fams:
                subset = [r for r in in_regime if r.family == fam]
                rows.append(
                    {
                        "system": system,
                        "regime": regime,
                        "family": fam,
                        **_metrics(subset, system, qa),
                    }
                )
    return rows
