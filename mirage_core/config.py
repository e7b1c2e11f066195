"""Every threshold and weight of the method, validated once at construction."""

from __future__ import annotations

import json
import math
from collections.abc import Mapping
from dataclasses import dataclass, field, fields, replace
from pathlib import Path
from typing import Any, Literal, get_args

from mirage_core.coordination import ISOLATED_SIGNALS, SIGNALS

__all__ = [
    "ContradictionScope",
    "ContradictionSymmetry",
    "Coordination",
    "Independence",
    "Linkage",
    "MirageConfig",
    "NLIErrorPolicy",
    "Relevance",
]

NLIErrorPolicy = Literal["fallback", "raise", "pass_through"]
Independence = Literal["none", "domain", "embedding"]
ContradictionScope = Literal["graph", "selected"]
Linkage = Literal["average", "complete", "single"]
ContradictionSymmetry = Literal["each", "min", "mean", "max"]
Relevance = Literal["none", "lexical"]
Coordination = Literal["none", "text", "embedding"]
PartnerRanking = Literal["overlap", "embedding"]
SingleDomain = Literal["documents", "block"]
QuarantinedConflicts = Literal["count", "ignore"]
AnswerConflictScope = Literal["claim", "passage"]
AnswerConflictContext = Literal["claim", "lead+previous"]
RedundancyFilter = Literal["none", "single_hop", "multi_hop"]


#: Fields of earlier releases and what replaced them (a config file naming one gets told).
_RENAMED = {
    "pairs_per_claim": "'partners_per_claim' (partners each claim keeps, not a pair total per "
    "claim; pairs_per_claim=8 never bound on real evidence: use partners_per_claim=None to "
    "reproduce it)",
}


@dataclass(frozen=True)
class MirageConfig:
    """Configuration of the MIRAGE defense (names follow the paper; DESIGN.md §1).

    Method (paper values; those marked *provisional* are for the calibration tool to fit):
        tau: token-containment overlap a cross-source pair needs to be sent to NLI (0.3, provisional).
        kappa: minimum p_contra for a contradiction edge to count, after the two directions
            are combined (``contradiction_symmetry``) (0.8; the paper's provisional 0.5 in
            :meth:`paper`). Chosen with ``contradiction_symmetry="mean"`` on the scoreboard's
            fit split in session 7 (``research/results/scoreboard-choice.md``): the packaged
            model gives compatible claims p_contra 0.5–0.7 often enough that 0.5 costs 5–8
            points of clean gpe-eval pass (fit / report split).
        alpha: weight of domain trust in the claim score (0.5, provisional).
        beta: weight of the normalized retrieval score in the claim score (0.5, provisional).
        r_max: highest contradiction ratio the gate lets through (0.3, provisional).
        d_min: fewest distinct domains S* must span to pass the gate (2).
        trust: domain -> trust in [0, 1]; ``default_trust`` (0.5) for unknown domains.
        contradiction_scope: edges counted in r_contr: the whole claim graph (``"graph"``,
            the paper's default) or only edges inside S* (``"selected"``).
        claim_filter: sentences that assert nothing are not claims: questions, truncated
            snippet titles, headlines, site names, bylines, list introductions
            (:mod:`mirage_core.claim_filter`; True, also in :meth:`paper`: the paper's claims
            are statements).

    Beyond the paper (DESIGN.md §1.8; :meth:`paper` turns them off):
        min_support: claims with fewer corroborating sources never enter S* (0 = paper).
        fact_check: treat a high-overlap pair whose sentences differ in a number, date or
            proper name in the same position as a contradiction, whatever NLI says.
        fact_overlap: overlap a pair needs before the fact check looks at it.

    Precise conflicts (:meth:`paper` turns them off):
        contradiction_symmetry: how the two directions of a pair make its contradiction
            weight: ``"each"`` (each direction its own p_contra, the paper), ``"min"``,
            ``"mean"`` or ``"max"`` of the two, given to both directions. A contradiction is
            symmetric; a small model's one-directional p_contra on a compatible paraphrase is
            noise (default ``"mean"`` with ``kappa`` 0.8, chosen on the scoreboard's fit split in
            session 7; ``"min"`` with 0.5 before).
        relevance: how each claim's relevance to the query is measured: ``"lexical"`` (share
            of the query's content words the claim holds, saturating at
            ``relevance_saturation``) or ``"none"`` (every claim fully relevant, the paper).
            The gate weighs each edge in r_contr by the lower relevance of its two claims, so
            a conflict between claims that have nothing to do with the question cannot block.
        relevance_saturation: query-word share at which a claim counts as fully relevant (0.5).
        fact_similarity: share of the shorter sentence's tokens that must align with the other
            for the fact check to compare them (0.7): a minimal edit keeps the rest of the
            sentence, two different sentences on one topic do not (chosen on the fit split of
            ``research/factcheck_precision.py``).
        answer_conflict: block when two verified claims from different sources each hold at
            least this share of the query's content words (a word of what it asks among them)
            and name different facts of the kind the question asks for (numbers, months or
            proper names), none of them in the query: two sources answering the question
            differently (:mod:`mirage_core.answer_conflict`; ``None`` = off). 0.6, chosen on
            the scoreboard's fit split (``research/results/scoreboard-choice.md``).
        answer_conflict_scope: where the answer-slot rule looks for a fact the two claims have
            in common: ``"claim"`` (the two sentences; default) or ``"passage"`` (each claim's
            facts against the other claim's whole passage, so a page that names the other
            page's answer in another sentence does not answer differently; measured in session
            12, it lets more planted answers through: ``research/results/scoreboard-choice.md``).
        answer_conflict_context: which words tell that a claim restates the question:
            ``"claim"`` (its own) or ``"lead+previous"`` (its own plus those of its page's
            first claim and of the claim before it, so "The dynastic capital was Vienna" on
            the Habsburg Monarchy's page is about "the capital of the Habsburg empire"; the
            word of what the question asks must still be its own;
            :func:`mirage_core.answer_conflict.topic_context`).
        fact_kinds: the fact-check kinds that count as conflicts (``number``, ``month``,
            ``name``); only kinds measured at ≥ 95% precision on clean web evidence are on by
            default (see ``research/factcheck_precision.py``).

    Source independence (coordinated poisoning; :meth:`paper` uses ``"none"``):
        independence: what counts as one source for n(c) and d_src: ``"none"`` (every
            source, the paper), ``"domain"`` (one per publisher domain) or ``"embedding"``
            (same domain *or* near-duplicate passages, cosine ≥ ``duplicate_threshold``).
            Support inside a group is no corroboration; a contradiction inside a group still
            counts: a near-duplicate that disagrees is what an edited copy looks like.
        single_domain: what counts as one source when every passage comes from one domain
            (a Wikipedia dump, one company's documentation) and ``independence`` is
            ``"domain"`` or ``"embedding"``: ``"documents"`` (each source URL or id, for
            grouping, d_src and the coordination signals' publishers, with near-duplicate
            documents merged into one source when passage embeddings are at hand, as by
            ``independence="embedding"``; the verdict warns) or
            ``"block"`` (one domain is one source, so d_src = 1 and the gate blocks every
            such query).
        duplicate_threshold: passage cosine at which two passages (or groups, by
            ``duplicate_linkage``) are one source (0.7: chosen on the fit split of
            ``research/independence.py``).
        duplicate_linkage: how two groups' similarity is measured when merging them:
            ``"average"`` (mean cosine over their passage pairs, the default: planted passages
            are close on average while independent coverage of one story only has a few
            close pairs), ``"complete"`` (least similar pair) or ``"single"`` (most similar
            pair: chains through the evidence).
        coordination_z: a multi-passage group whose internal similarity is this many robust
            standard deviations above the query's median, and that contradicts other groups,
            is flagged as coordinated (2.0; needs embeddings).
        coordinated_trust: trust given to claims of a flagged group (0.0; ``None`` = unchanged).
        coordination: coordination signals (:mod:`mirage_core.coordination`) that flag planted
            passages: ``"embedding"`` (answer focus and tightness; the default, which loads
            the packaged all-MiniLM-L6-v2 embedder once per process), ``"text"`` (answer focus
            and novelty; no model) or ``"none"``. Claims of flagged passages are quarantined:
            they enter S* only with support from ``coordinated_min_support`` independence
            groups outside the flagged passages (:mod:`mirage_core.quarantine`). One-line
            passages (under ~13 content tokens) are never flagged
            (``CoordinationModel.min_tokens``). The embedding model's centers and
            thresholds were fit on all-MiniLM-L6-v2 cosines; an ``embedder`` of another
            family shifts them. Chosen on the fit split of the scoreboard
            (``research/results/scoreboard-choice.md``). Known false alarm: honest
            evidence whose passages all share one word and read alike, with nothing else
            retrieved, looks like planted passages alone (12% of honest gpe-eval page sets at
            k = 5, report split; the README example's four honest passages on their own), and
            honest passages flagged beside others are quarantined (some passages of 33% of
            those sets), so fewer corroborated claims are delivered.
        coordination_threshold: the score at which the coordination model flags a group
            (``None``: the model's threshold, 2.5 for the embedding model, chosen on the
            scoreboard's fit split, and 3.440 for the text model;
            :data:`~mirage_core.coordination.DEFAULT_MODEL`). Lower flags more planted groups
            and more honest ones: fewer wrong answers delivered, fewer honest claims.
        coordination_signals: the signals a candidate group is scored on (``None``: the
            model's, answer focus + tightness for the embedding model and answer focus +
            novelty for the text model; any of
            :data:`~mirage_core.coordination.SIGNALS`). ``tightness`` and ``cosine`` need
            embeddings: the text model scores a group on the ones that are defined.
        coordination_isolated_threshold: the same for a group that is the whole evidence
            (``None``: the model's, 0.572 for the embedding model; the text model has no
            isolated scoring and ignores it). Lower blocks more planted passages retrieved
            alone and more honest evidence that reads like one story told alike.
        coordination_isolated_signals: the signals a group that is the whole evidence is
            scored on (``None``: the model's, answer focus + novelty + cosine for the embedding
            model; ``tightness`` is undefined for such a group and
            not allowed; the text model has no isolated scoring and ignores it).
        coordination_absorb_margin: with embeddings, a flagged group also takes in the
            passages outside it whose mean cosine to its members is at least the group's own
            mean cosine minus this (0.05, chosen on the scoreboard's fit split in session 7;
            ``None``: off). A planted passage that words the answer
            differently shares no token with its siblings but reads as much like them; left
            outside the group, it is what the gate delivers
            (:func:`~mirage_core.coordination.absorb_near_copies`).
        coordination_self_conflict: a flagged group two of whose passages contradict each
            other (an edge with ``w_contr`` at least this) is released, not quarantined:
            planted copies push one answer, and a polluted page that copied the honest pages'
            wording would otherwise take them down with it (0.9: a near-certain
            contradiction; ``None`` = off).
        coordinated_d_min: the ``d_min`` the gate applies once the coordination signals
            quarantined passages (1; ``None`` = ``d_min``): the planted passages took the
            retrieval slots that independent corroboration would fill, so the honest passage
            they outnumber is delivered alone rather than blocked with them. The verdict
            records the value it applied (``Verdict.d_min_applied``).
        quarantined_conflicts: what the contradiction gate does with edges that touch a claim
            of a quarantined passage: ``"count"`` them in r_contr like any other (the default)
            or ``"ignore"`` them: planted passages are expected to contradict the honest
            evidence, and a flagged honest group's false conflicts are no reason to block what
            remains (:func:`mirage_core.quarantine.conflict_weight`).
        coordinated_min_support: claims of an unusually tight group (robust z ≥
            ``coordination_z``, contradiction or not) enter S* only with support from at least
            this many other groups (1; 0 = off). Planted passages corroborate only each other.
        redundancy_filter: hold back from the delivered evidence the passages RAGDefender's
            two-stage estimate marks as the adversarial majority
            (:mod:`mirage_core.redundancy_filter`): ``"single_hop"`` (its clustering + TF-IDF
            estimate, for one-fact questions), ``"multi_hop"`` (its concentration estimate) or
            ``"none"``. It runs on the passage embeddings once the gate has passed; a held-back
            claim that a page outside the held-back passages supports is delivered, and the
            verdict blocks only when no verified claim remains; 3 passages at least. Off by
            default: it costs a third of the corroborated clean claims delivered
            (``docs/independence.md``, session 14).
        block_on_tie: block when the claims rejected for contradicting S* have at least as many
            independent groups behind them as the S* claims they contradict (True).
        paraphrase_pairs: also pair claims whose embeddings have cosine ≥
            ``paraphrase_threshold`` when their token overlap is under τ (False).

    Engineering limits:
        min_claim_tokens: sentences with fewer content tokens are not claims (2).
        max_claims_per_passage: claims kept per passage, in reading order (64).
        max_passage_chars: characters of a passage analyzed; the rest is ignored and the
            verdict warns (20,000).
        partners_per_claim: the NLI pair budget: each claim keeps its best this many candidate
            partners (its best partner in each other source first, then by token overlap), so
            NLI work grows linearly with the claims: at most ``partners_per_claim × n_claims``
            pairs, each scored in both directions (:mod:`mirage_core.pair_budget`; 2, chosen
            on the scoreboard, ``research/results/pair_budget.md``). ``None`` = every
            candidate pair.
        partner_ranking: how a claim ranks its candidate partners for the budget: by token
            ``"overlap"`` (the default: no model) or by the cosine of the claims' sentence
            ``"embedding"`` (loads the embedder; measured in ``research/results/pair_budget.md``).
        max_pairs: a hard cap on a query's NLI pairs after the per-claim budget; the pairs
            whose claims are most relevant to the query are kept first (4096; ``None`` = no cap).
        batch_size: NLI batch size hint passed to backends that batch (64).
        nli_error_policy: what an NLI failure does: ``"fallback"`` (fail closed: no retrieved
            text is used), ``"raise"`` (propagate :class:`~mirage_core.errors.NLIError`) or
            ``"pass_through"`` (fail open: every claim is delivered unverified). An embedder
            failure follows it too: fallback, :class:`~mirage_core.errors.EmbeddingError`, or
            (pass_through) independence by domain only, with a warning.
    """

    tau: float = 0.3
    kappa: float = 0.8
    alpha: float = 0.5
    beta: float = 0.5
    r_max: float = 0.3
    d_min: int = 2
    trust: Mapping[str, float] = field(default_factory=dict)
    default_trust: float = 0.5
    contradiction_scope: ContradictionScope = "graph"
    claim_filter: bool = True
    contradiction_symmetry: ContradictionSymmetry = "mean"
    relevance: Relevance = "lexical"
    relevance_saturation: float = 0.5
    min_support: int = 0
    fact_check: bool = True
    fact_overlap: float = 0.5
    fact_kinds: tuple[str, ...] = ("number", "month", "name")
    fact_similarity: float = 0.7
    answer_conflict: float | None = 0.6
    answer_conflict_scope: AnswerConflictScope = "claim"
    answer_conflict_context: AnswerConflictContext = "claim"
    independence: Independence = "domain"
    single_domain: SingleDomain = "documents"
    duplicate_threshold: float = 0.7
    duplicate_linkage: Linkage = "average"
    coordination_z: float = 2.0
    coordinated_trust: float | None = 0.0
    coordinated_min_support: int = 1
    coordination: Coordination = "embedding"
    coordination_threshold: float | None = None
    coordination_signals: tuple[str, ...] | None = None
    coordination_isolated_threshold: float | None = None
    coordination_isolated_signals: tuple[str, ...] | None = None
    coordination_absorb_margin: float | None = 0.05
    coordination_self_conflict: float | None = 0.9
    coordinated_d_min: int | None = 1
    quarantined_conflicts: QuarantinedConflicts = "count"
    redundancy_filter: RedundancyFilter = "none"
    block_on_tie: bool = True
    paraphrase_pairs: bool = False
    paraphrase_threshold: float = 0.75
    min_claim_tokens: int = 2
    max_claims_per_passage: int = 64
    max_passage_chars: int = 20_000
    partners_per_claim: int | None = 2
    partner_ranking: PartnerRanking = "overlap"
    max_pairs: int | None = 4096
    batch_size: int = 64
    nli_error_policy: NLIErrorPolicy = "fallback"

    def __post_init__(self) -> None:
        def unit(name: str) -> None:
            value = getattr(self, name)
            if isinstance(value, bool) or not isinstance(value, int | float) or not 0 <= value <= 1:
                raise ValueError(f"{name} must be a number in [0, 1], got {value!r}")

        def positive_int(name: str, allow_none: bool = False, minimum: int = 1) -> None:
            value = getattr(self, name)
            if value is None and allow_none:
                return
            if isinstance(value, bool) or not isinstance(value, int) or value < minimum:
                raise ValueError(f"{name} must be an int >= {minimum}, got {value!r}")

        for name in (
            "tau",
            "kappa",
            "r_max",
            "default_trust",
            "fact_overlap",
            "duplicate_threshold",
            "paraphrase_threshold",
            "relevance_saturation",
            "fact_similarity",
        ):
            unit(name)
        if self.relevance_saturation <= 0:
            raise ValueError("relevance_saturation must be > 0")
        if isinstance(self.fact_kinds, str) or not all(
            k in ("number", "month", "name") for k in self.fact_kinds
        ):
            raise ValueError(
                f"fact_kinds must be a sequence of 'number', 'month', 'name', got {self.fact_kinds!r}"
            )
        object.__setattr__(self, "fact_kinds", tuple(self.fact_kinds))
        if self.coordinated_trust is not None:
            unit("coordinated_trust")
        if self.answer_conflict is not None:
            unit("answer_conflict")
            if self.answer_conflict == 0:
                raise ValueError("answer_conflict must be > 0 (or None to turn the rule off)")
        if (
            isinstance(self.coordination_z, bool)
            or not isinstance(self.coordination_z, int | float)
            or not math.isfinite(self.coordination_z)
        ):
            raise ValueError(f"coordination_z must be a finite number, got {self.coordination_z!r}")
        for name in ("alpha", "beta"):
            value = getattr(self, name)
            if (
                isinstance(value, bool)
                or not isinstance(value, int | float)
                or not (math.isfinite(value) and value >= 0)
            ):
                raise ValueError(f"{name} must be a finite number >= 0, got {value!r}")
        positive_int("d_min")
        positive_int("min_support", minimum=0)
        positive_int("coordinated_min_support", minimum=0)
        positive_int("coordinated_d_min", allow_none=True)
        if self.coordination_self_conflict is not None:
            unit("coordination_self_conflict")
        if self.coordination_absorb_margin is not None:
            unit("coordination_absorb_margin")
        for name in ("coordination_threshold", "coordination_isolated_threshold"):
            value = getattr(self, name)
            if value is not None and (
                isinstance(value, bool)
                or not isinstance(value, int | float)
                or not math.isfinite(value)
            ):
                raise ValueError(f"{name} must be a finite number or None, got {value!r}")
        for name, allowed in (
            ("coordination_signals", SIGNALS),
            ("coordination_isolated_signals", ISOLATED_SIGNALS),
        ):
            chosen = getattr(self, name)
            if chosen is None:
                continue
            if isinstance(chosen, str) or not chosen or not all(s in allowed for s in chosen):
                raise ValueError(
                    f"{name} must be a non-empty sequence of {list(allowed)} or None, "
                    f"got {chosen!r}"
                )
            object.__setattr__(self, name, tuple(chosen))
        positive_int("min_claim_tokens")
        positive_int("max_claims_per_passage")
        positive_int("max_passage_chars")
        positive_int("partners_per_claim", allow_none=True)
        positive_int("max_pairs", allow_none=True)
        positive_int("batch_size")
        for name, kind in (
            ("independence", Independence),
            ("duplicate_linkage", Linkage),
            ("contradiction_scope", ContradictionScope),
            ("contradiction_symmetry", ContradictionSymmetry),
            ("relevance", Relevance),
            ("coordination", Coordination),
            ("partner_ranking", PartnerRanking),
            ("single_domain", SingleDomain),
            ("quarantined_conflicts", QuarantinedConflicts),
            ("answer_conflict_scope", AnswerConflictScope),
            ("answer_conflict_context", AnswerConflictContext),
            ("redundancy_filter", RedundancyFilter),
            ("nli_error_policy", NLIErrorPolicy),
        ):
            allowed = get_args(kind)  # the Literal types are the one list of choices
            if getattr(self, name) not in allowed:
                raise ValueError(
                    f"{name} must be one of {', '.join(map(repr, allowed))}, "
                    f"got {getattr(self, name)!r}"
                )
        for name in ("fact_check", "block_on_tie", "paraphrase_pairs", "claim_filter"):
            if not isinstance(getattr(self, name), bool):
                raise ValueError(f"{name} must be a bool, got {getattr(self, name)!r}")
        if not isinstance(self.trust, Mapping):
            raise ValueError(
                f"trust must be a mapping domain -> [0, 1], got {type(self.trust).__name__}"
            )
        for domain, value in self.trust.items():
            if not isinstance(domain, str):
                raise ValueError(f"trust keys must be domain strings, got {domain!r}")
            if isinstance(value, bool) or not isinstance(value, int | float) or not 0 <= value <= 1:
                raise ValueError(f"trust[{domain!r}] must be in [0, 1], got {value!r}")
        # A private lower-cased copy (plain dict so configs pickle and deepcopy).
        object.__setattr__(self, "trust", {k.lower(): float(v) for k, v in self.trust.items()})

    def __hash__(self) -> int:
        return hash(json.dumps(self.to_dict(), sort_keys=True))

    # -- constructors -------------------------------------------------------------------
    @classmethod
    def paper(cls, **overrides: Any) -> MirageConfig:
        """The method exactly as published: no §1.8 options, no independence groups, no
        coordination handling and no pair budget."""
        base: dict[str, Any] = dict(
            kappa=0.5,  # DESIGN.md's provisional κ, whatever the default becomes
            min_support=0,
            fact_check=False,
            partners_per_claim=None,
            max_pairs=None,
            independence="none",
            coordinated_trust=None,
            coordinated_min_support=0,
            block_on_tie=False,
            paraphrase_pairs=False,
            contradiction_symmetry="each",
            relevance="none",
            coordination="none",
            coordination_self_conflict=None,
            coordination_absorb_margin=None,
            coordinated_d_min=None,
            single_domain="block",
            answer_conflict=None,
            redundancy_filter="none",
        )
        return cls(**(base | overrides))

    def replace(self, **changes: Any) -> MirageConfig:
        """A copy with some fields changed (validated again)."""
        return replace(self, **changes)

    def to_dict(self) -> dict[str, Any]:
        data = {f.name: getattr(self, f.name) for f in fields(self)}
        data["trust"] = dict(self.trust)
        data["fact_kinds"] = list(self.fact_kinds)
        for name in ("coordination_signals", "coordination_isolated_signals"):
            if getattr(self, name) is not None:
                data[name] = list(getattr(self, name))
        return data

    @classmethod
    def from_dict(cls, data: Mapping[str, Any]) -> MirageConfig:
        known = {f.name for f in fields(cls)}
        unknown = set(data) - known
        renamed = sorted(unknown & _RENAMED.keys())
        if renamed:
            raise ValueError(
                "renamed MirageConfig fields: "
                + "; ".join(f"{old!r} is now {_RENAMED[old]}" for old in renamed)
            )
        if unknown:
            raise ValueError(f"unknown MirageConfig fields: {sorted(unknown)}")
        return cls(**dict(data))

    def to_file(self, path: str | Path) -> None:
        """Write the configuration as JSON (what ``mirage calibrate`` produces)."""
        Path(path).write_text(json.dumps(self.to_dict(), indent=2, sort_keys=True) + "\n")

    @classmethod
    def from_file(cls, path: str | Path) -> MirageConfig:
        """Load a JSON file written by :meth:`to_file` or ``mirage calibrate``.

        A file may hold the fields at top level or under a ``"config"`` key.
        """
        data = json.loads(Path(path).read_text())
        if isinstance(data, dict) and "config" in data and isinstance(data["config"], dict):
            data = data["config"]
        if not isinstance(data, dict):
            raise ValueError(f"{path}: expected a JSON object of MirageConfig fields")
        return cls.from_dict(data)

    @property
    def needs_embeddings(self) -> bool:
        return (
            self.independence == "embedding"
            or self.paraphrase_pairs
            or self.coordination == "embedding"
            or self.redundancy_filter != "none"
            or (self.partner_ranking == "embedding" and self.partners_per_claim is not None)
        )

    def trust_of(self, domain: str) -> float:
        return self.trust.get(domain.lower(), self.default_trust)
