"""The method's internals: thresholds and switches a user seldom changes (``MirageConfig.method``).

The formulas they enter are in ``docs/method.md``; how each default was chosen is in
``docs/decisions.md``. :meth:`MethodSettings.paper` is the published method.
"""

from __future__ import annotations

from dataclasses import dataclass, field, fields, replace
from typing import Any, Literal

from mirage_core.checks import rule, validate
from mirage_core.coordination import FloorScope
from mirage_core.group_signals import ISOLATED_SIGNALS, SIGNALS
from mirage_core.signal_window import WindowOrder

__all__ = [
    "REQUEST_OVERRIDES",
    "AnswerConflictContext",
    "AnswerConflictScope",
    "AnswerNames",
    "AnswerTimes",
    "ConflictRule",
    "ConflictScope",
    "ContradictionScope",
    "ContradictionSymmetry",
    "CorroboratedOnly",
    "FactForms",
    "FactScope",
    "InstructionPages",
    "Linkage",
    "LoneFacts",
    "MethodSettings",
    "ParaphraseBudget",
    "ParaphraseVeto",
    "PartnerRanking",
    "QuarantinedConflicts",
    "Relevance",
    "SourceCount",
    "UncorroboratedDelivery",
]

ContradictionScope = Literal["graph", "selected", "contested"]
ConflictRule = Literal["tie", "majority"]
SourceCount = Literal["selected", "corroborating"]
ContradictionSymmetry = Literal["each", "min", "mean", "max"]
Relevance = Literal["none", "lexical"]
Linkage = Literal["average", "complete", "single"]
PartnerRanking = Literal["overlap", "embedding"]
QuarantinedConflicts = Literal["count", "ignore"]
AnswerConflictScope = Literal["claim", "passage"]
AnswerConflictContext = Literal["claim", "lead+previous", "lead+previous statements"]
AnswerNames = Literal["word", "last_word"]
AnswerTimes = Literal["number", "year"]
FactScope = Literal["sentence", "passage", "names_in_passage"]
FactForms = Literal["tokens", "equivalent"]
CorroboratedOnly = Literal["none", "selection", "delivery"]
ConflictScope = Literal["selected", "delivered"]
UncorroboratedDelivery = Literal[
    "selected", "most_relevant", "part_and_most_relevant", "fallback", "fallback_after_quarantine"
]
ParaphraseVeto = Literal["counted", "leaning", "unread_or_leaning"]
LoneFacts = Literal["deliver", "hold_back", "outvoted", "answers"]
InstructionPages = Literal["leave_out", "keep"]
ParaphraseBudget = Literal["shared", "exempt"]


#: What a request for an account is defended with (``MethodSettings.request_overrides``):
#: gated conflict by conflict, only its corroborated part delivered, without the
#: answer-sentence requirement (where no corroborated part reaches ``d_min`` it falls back:
#: an account of claims no second source states is not verified), no coordination signals
#: (``coordination="none"``: no passage quarantined as planted), and every pair read by NLI
#: (an account's claims corroborate each other on facts the query does not name). The
#: coordination signals were fit on questions; every page of an account is about one subject,
#: and they read nine honest pages of one person's life as one planted group, after which one
#: page was all that was left to deliver (``docs/decisions.md``, "what a request delivers once
#: most of its pages are quarantined").
REQUEST_OVERRIDES: dict[str, Any] = {
    "contradiction_scope": "selected",
    "conflict_rule": "majority",
    "corroborated_relevant": False,
    "uncorroborated_delivery": "fallback",
    "coordination": "none",
    "pair_relevant_only": False,
}


@dataclass(frozen=True)
class MethodSettings:
    """Internals of the method (``docs/method.md``), validated at construction."""

    tau: float = field(default=0.3, metadata=rule("unit"))
    """Token-containment overlap a cross-source pair needs to be sent to NLI."""
    kappa: float = field(default=0.8, metadata=rule("unit"))
    """Lowest p_contra, after the two directions are combined (``contradiction_symmetry``),
    for a contradiction edge to count (the published method: 0.5)."""
    alpha: float = field(default=0.5, metadata=rule("nonnegative"))
    """Weight of domain trust in the claim score s(c)."""
    beta: float = field(default=0.5, metadata=rule("nonnegative"))
    """Weight of the normalized retrieval score in the claim score s(c)."""
    contradiction_scope: ContradictionScope = "graph"
    """Edges counted in r_contr: every edge of the claim graph, only those inside S*, or those
    among S* and the claims that contradict it (``"contested"``)."""
    conflict_rule: ConflictRule = "tie"
    """How S* is weighed against the claims it rejected (with ``block_on_tie``): block when
    the rejected side has as many independence groups in all (``"tie"``), or conflict by
    conflict, when S*'s side lacks a clear majority (``"majority"``,
    :mod:`mirage_core.majority`)."""
    majority_ratio: float = field(default=1.0, metadata=rule("nonnegative"))
    """Under ``conflict_rule="majority"``, S* wins a conflict when its side has more than this
    many times the independence groups of the claim that contradicts it."""
    source_count: SourceCount = "selected"
    """The independent sources d_src counts: the units of S*'s claims (``"selected"``), or
    those and the units whose claims corroborate a claim of S* (``"corroborating"``: a source
    that states a delivered fact in its own words stands behind it; a quarantined passage
    never counts; :mod:`mirage_core.sources`)."""
    contradiction_symmetry: ContradictionSymmetry = "mean"
    """How a pair's two directions make its contradiction weight: each its own p_contra
    (``"each"``, the published method), or the min / mean / max of both, given to both."""
    claim_filter: bool = field(default=False, metadata=rule("bool"))
    """Sentences that assert nothing (questions, truncated titles, headlines, bylines, site
    names, list introductions) are not claims (:mod:`mirage_core.claim_filter`)."""
    instruction_pages: InstructionPages = "leave_out"
    """A passage that holds an instruction to the model ("Ignore all previous instructions and
    …", a chat-template marker, "Note to AI assistants: …") contributes no claim: each of its
    sentences is reported as not a claim (:mod:`mirage_core.instructions`). ``"keep"`` reads
    such a passage as any other (a corpus about prompt injection quotes the attack)."""
    min_claim_tokens: int = field(default=2, metadata=rule("int"))
    """Sentences with fewer content tokens are not claims."""
    relevance: Relevance = "lexical"
    """How a claim's relevance to the query is measured; the gate weighs each contradiction
    edge by the lower relevance of its two claims (``"none"``: every claim fully relevant)."""
    relevance_saturation: float = field(default=0.5, metadata=rule("positive_unit"))
    """Share of the query's content words at which a claim counts as fully relevant."""
    answer_conflict_scope: AnswerConflictScope = "claim"
    """Where the answer-slot rule looks for a fact two claims share: the two sentences, or each
    claim's facts against the other claim's whole passage."""
    answer_conflict_context: AnswerConflictContext = "claim"
    """Which words tell that a claim restates the question: its own, or also those of its
    page's first claim and of the claim before it (:func:`~mirage_core.answer_conflict.topic_context`);
    ``"lead+previous statements"`` reads the first and the previous claim that are not
    questions (a page headed by the question it answers otherwise lends that question's words
    to every sentence below it)."""
    answer_names: AnswerNames = "last_word"
    """How the answer-slot rule tells two names apart: by their last word, their most specific
    (``"last_word"``: "New York Mets" and "New York Yankees" differ, "Dix" and "William
    Chatterton Dix" agree), or by any word in common (``"word"``: the first two agree)."""
    answer_times: AnswerTimes = "number"
    """What answers a question that asks when, for the answer-slot rule: any number, or a year
    (``"year"``: a whole number of three or four digits; a score or a count does not say when)."""
    answer_subjects: bool = field(default=True, metadata=rule("bool"))
    """Whether the answer-slot rule reads a claim's capitalized first word as a name when the
    next word is one of what the question asks ("Michelangelo painted …" for "who painted
    …"); with ``False`` a sentence-initial word is never a name."""
    duplicate_threshold: float = field(default=0.7, metadata=rule("unit"))
    """Passage cosine at which two passages (or groups, by ``duplicate_linkage``) are one source."""
    duplicate_linkage: Linkage = "average"
    """How two groups' similarity is measured when merging them into one source."""
    coordination_threshold: float | None = field(
        default=None, metadata=rule("finite", optional=True)
    )
    """Score at which the coordination model flags a group (``None``: the model's own)."""
    coordination_signals: tuple[str, ...] | None = field(
        default=None, metadata=rule("kinds", optional=True, choices=SIGNALS)
    )
    """Signals a candidate group is scored on (``None``: the model's own)."""
    coordination_isolated_threshold: float | None = field(
        default=None, metadata=rule("finite", optional=True)
    )
    """The same threshold for a group that is the whole evidence (``None``: the model's own)."""
    coordination_isolated_signals: tuple[str, ...] | None = field(
        default=None,
        metadata=rule("kinds", optional=True, minimum=0, choices=ISOLATED_SIGNALS),
    )
    """Signals a group that is the whole evidence is scored on (``None``: the model's own;
    empty: none, so such a group is scored on the group signals it has)."""
    coordination_min_tokens: float | None = field(
        default=None, metadata=rule("nonnegative", optional=True)
    )
    """Median content tokens per passage below which a group is never flagged (``None``: the
    model's own, 0: the shipped models read one-line passages like any)."""
    coordination_max_tokens: float | None = field(
        default=None, metadata=rule("nonnegative", optional=True)
    )
    """Median content tokens per passage above which a group is never flagged (``None``: the
    model's own, no ceiling). A ceiling tells an attacker how far to pad planted passages to
    pass unflagged (``research/results/padded_poisons.txt``)."""
    coordination_tightness_outside: int | None = field(
        default=None, metadata=rule("int", optional=True)
    )
    """Passages that must lie outside a group for its ``tightness`` to count (``None``: the
    model's own, 1)."""
    coordination_floor_scope: FloorScope = "group"
    """What the coordination length floor (``coordination_min_tokens``) looks at: a group of
    short passages is never flagged (``"group"``), or only while every passage of the
    evidence is short (``"evidence"``: one-liners repeating an answer beside a page that tells
    the story at length are read by the signals like any group)."""
    coordination_window: int | None = field(default=None, metadata=rule("int", optional=True))
    """The coordination signals read each passage's sentences, in
    ``coordination_window_order``, up to this many distinct content tokens (``None``, the
    default: the whole passage; :mod:`mirage_core.signal_window`). 119 is the longest honest
    passage the coordination model was fit on."""
    coordination_window_order: WindowOrder = "relevance"
    """Which sentences fill the window: those holding most query words (``"relevance"``) or
    the passage's first (``"lead"``)."""
    coordination_absorb_margin: float | None = field(
        default=0.05, metadata=rule("unit", optional=True)
    )
    """With embeddings, a flagged group takes in the passages whose mean cosine to its members
    is at least the group's own mean cosine minus this (``None``: off)."""
    coordination_self_conflict: float | None = field(
        default=None, metadata=rule("unit", optional=True)
    )
    """A flagged group two of whose passages contradict each other (``w_contr`` at least this)
    is released, not quarantined (``None``: off). Off by default: planted passages that each
    list different decoys beside one answer contradict each other too."""
    garbled_threshold: float | None = field(default=0.3, metadata=rule("unit", optional=True))
    """A passage at least this share of whose lower-case words are misspelt is garbled
    (:mod:`mirage_core.garbled`: typo'd copies of a page): quarantined like a planted passage
    and left out of the coordination signals (``None``: off). 0.3: above every honest
    passage of the scoreboard's fit split (at most 0.23), below every typo'd GARAG copy."""
    garbled_conflicts: QuarantinedConflicts = "ignore"
    """Whether contradiction edges that touch a garbled passage's claim count in r_contr
    (``"ignore"``: they leave it, as the passage's claims leave S*: the NLI model cannot read
    a garbled passage; ``quarantined_conflicts="ignore"`` leaves them out with every
    quarantined passage's)."""
    coordinated_min_support: int | None = field(
        default=None, metadata=rule("int", minimum=0, optional=True)
    )
    """Claims of quarantined passages enter S* only with support from this many independence
    groups outside them (0: no quarantine; ``None``: never, a planted passage contributes no
    claim)."""
    coordinated_d_min: int | None = field(default=1, metadata=rule("int", optional=True))
    """``d_min`` the gate applies once passages were quarantined (``None``: ``d_min``)."""
    quarantined_conflicts: QuarantinedConflicts = "count"
    """Whether contradiction edges that touch a quarantined claim count in r_contr
    (``"ignore"``: a quarantined passage leaves the contradiction mass as its claims leave S*)."""
    paraphrase_pairs: bool = field(default=False, metadata=rule("bool"))
    """Also pair claims whose embeddings have cosine ≥ ``paraphrase_threshold``."""
    paraphrase_threshold: float = field(default=0.75, metadata=rule("unit"))
    """Claim cosine at which two claims are paired as paraphrases."""
    paraphrase_support: float | None = field(default=None, metadata=rule("unit", optional=True))
    """Claims of another group whose embeddings are at least this close corroborate a claim as
    NLI support does (``None``: NLI support only; :mod:`mirage_core.corroboration`)."""
    paraphrase_veto: ParaphraseVeto = "counted"
    """Which NLI reading of a paraphrase pair stops it from corroborating: a contradiction the
    gate counts (``"counted"``: p_contra ≥ κ), or one the model leans to in either direction
    (``"leaning"``: p_contra > p_entail; the pair must have been read, see
    ``paraphrase_pairs``), or, besides that, none at all (``"unread_or_leaning"``: a paraphrase
    the NLI model has not read in either direction corroborates nothing, so only what the veto
    could read vouches)."""
    paraphrase_budget: ParaphraseBudget = "shared"
    """Whether paraphrase pairs (``paraphrase_pairs``) compete with the token-overlap pairs for
    each claim's ``partners_per_claim`` (``"shared"``) or are all read by the NLI model
    (``"exempt"``; ``max_pairs`` still caps the query): paraphrase support then vouches only
    with pairs the veto has read."""
    fact_coverage: bool = field(default=True, metadata=rule("bool"))
    """A supporter corroborates a claim only if it states every number, month and name of it."""
    copy_overlap: float | None = field(default=None, metadata=rule("positive_unit", optional=True))
    """A supporter that shares at least this share of the claim's words (Jaccard, negations and
    quantifiers included) is a copy of the same sentence, and corroborates it only if it states
    every word of it (:mod:`mirage_core.edited_copies`): a minimal edit is what the copy lacks.
    ``None``: no such check."""
    fact_scope: FactScope = "sentence"
    """Where fact coverage looks for the claim's facts: the supporting sentence, or the whole
    passage it comes from (a page that names its subject once and then says "the tower"), or
    the passage for names and the sentence for numbers and months (``"names_in_passage"``:
    a page refers back to a name, not to a number)."""
    fact_forms: FactForms = "equivalent"
    """How fact coverage and the answer-slot rule compare facts: as the tokens written
    (``"tokens"``), or also in their equivalent forms (``"equivalent"``,
    :mod:`mirage_core.fact_forms`: accents, number words (ordinals too), scale words,
    percentages, units, ISO dates and approximate numbers read alike, so "3 km" states 3,000
    metres, "thirteenth" is "13th", "García" is "Garcia" and "c. 500" agrees with "505")."""
    corroborated_only: CorroboratedOnly = "delivery"
    """Whether only corroborated claims are delivered (:mod:`mirage_core.corroboration`, with
    ``paraphrase_support`` and ``fact_coverage``), wherever the sources behind them (their own
    and their corroborators') reach ``d_min``: ``"selection"`` chooses S* among them and the
    gate weighs that S*; ``"delivery"`` lets the gate weigh the ordinary S* and delivers its
    corroborated part (:mod:`mirage_core.delivery`). Elsewhere S* is delivered as it is."""
    questions_vouch: bool = field(default=False, metadata=rule("bool"))
    """Whether a question counts in corroboration (``False``: a sentence that asks asserts
    nothing, so it neither corroborates a claim nor is corroborated; a page heading that
    restates the query is not a second source for it)."""
    restatements_vouch: bool = field(default=False, metadata=rule("bool"))
    """Whether a sentence made only of the query's content words counts in corroboration
    (``False``: like a question, it asserts no answer, so it neither corroborates nor is
    corroborated; a question glued onto a page without its "?" reads as such a sentence)."""
    corroborated_relevant: bool = field(default=True, metadata=rule("bool"))
    """With ``corroborated_only="delivery"``: only when a corroborated claim is among S*'s
    claims most relevant to the query; otherwise S* is delivered whole, so that short evidence
    whose answer sentence no other source vouches for keeps its answer."""
    conflict_scope: ConflictScope = "delivered"
    """Whose conflicts the tie (or majority) rule weighs: all of S* (``"selected"``), or, with
    ``corroborated_only="delivery"`` when delivery narrows S*, only the part it delivers
    (``"delivered"``): a claim no independent source vouches for is not handed to the
    generator, so its conflict with one other page cannot block the rest."""
    uncorroborated_delivery: UncorroboratedDelivery = "selected"
    """With ``corroborated_only="delivery"``, what a passing verdict delivers when no
    corroborated part qualifies: all of S* (``"selected"``), or only its claims most relevant to
    the query (``"most_relevant"``: the sentence that answers, not every sentence of S* that no
    second source vouches for), or, where a corroborated part only missed those claims
    (``corroborated_relevant``), that part with them (``"part_and_most_relevant"``); or, where
    nothing of S* is corroborated (no corroborated part reaches ``d_min``, relevant or not),
    no delivery at all: the verdict falls back (``"fallback"``: evidence no second source
    vouches for is not verified), or falls back only once passages were quarantined and S*
    still spans ``d_min`` sources (``"fallback_after_quarantine"``: after a planted group,
    ``coordinated_d_min`` lets one surviving page answer alone, but several surviving pages
    none of which vouches for another are no such page). A request for an account falls back
    (``request_overrides``); a question hands on S* whole."""
    lone_facts: LoneFacts = "deliver"
    """What a passing verdict does with a claim that names a fact of the kind the query asks
    for (a number, a month, a name) that no other independent source states: hand it on
    (``"deliver"``), or hold it back (``"hold_back"``: a planted page's one swapped answer is
    the fact no honest page repeats; :mod:`mirage_core.lone_facts`), or hold it back only
    where the kept evidence names a fact of that kind that two sources or more state
    (``"outvoted"``), or the same among the claims that hold a word of what the query asks
    only, so a detail beside the answer is never held back (``"answers"``). Held back only
    where the delivered claims span two sources or more."""
    pair_relevant_only: bool = field(default=True, metadata=rule("bool"))
    """Send to NLI only the pairs both of whose claims hold a word of the query (relevance > 0):
    the gate weighs a pair by its less relevant claim, so the others can never decide r_contr
    (what they would have corroborated goes uncounted). 0.72× the pairs at k = 20. A request
    for an account reads every pair (``request_overrides``): its claims corroborate each other
    on facts the query does not name."""
    pair_min_relevance: float = field(default=0.0, metadata=rule("unit"))
    """With ``pair_relevant_only``: the query relevance a pair's less relevant claim must
    exceed to be read (0: any word of the query)."""
    partner_ranking: PartnerRanking = "overlap"
    """How a claim ranks its candidate partners for the pair budget: token overlap, or the
    cosine of the claims' embeddings (loads the embedder)."""
    request_overrides: dict[str, Any] = field(
        default_factory=lambda: dict(REQUEST_OVERRIDES), metadata=rule("overrides")
    )
    """These settings changed for a query that requests an account ("Tell me a bio of X?",
    :func:`mirage_core.query_kind.requests_account`; :mod:`mirage_core.request_gate`), by
    name: a field of this class or of ``MirageConfig`` (checked there). A
    question has one answer, and evidence that disagrees about it is unreliable; an account
    gathers many facts from many pages, and honest pages disagree on some. The default gates
    such a request conflict by conflict (r_contr inside S*, the majority rule), delivers its
    corroborated part without the answer-sentence requirement or falls back where none
    reaches ``d_min`` (``uncorroborated_delivery="fallback"``), quarantines none of its
    passages (the coordination signals, fit on questions, read honest pages about one life as
    planted copies: ``coordination="none"``), and sends every pair to NLI
    (``pair_relevant_only=False``). Empty: a request is defended as a
    question. A value replaces the whole mapping; to change one setting and keep the others,
    spread the default: ``{**REQUEST_OVERRIDES, "copy_overlap": 0.5}``."""

    def __post_init__(self) -> None:
        validate(self)
        if self.request_overrides:
            object.__setattr__(self, "request_overrides", self._checked_overrides())

    def _checked_overrides(self) -> dict[str, Any]:
        """``request_overrides`` whose names of this class are validated (valid values) and
        normalized as the fields store them; other names are ``MirageConfig``'s to check."""
        if "request_overrides" in self.request_overrides:
            raise ValueError("request_overrides cannot set request_overrides")
        names = {f.name for f in fields(self)} - {"request_overrides"}
        own = {k: v for k, v in self.request_overrides.items() if k in names}
        try:
            applied = replace(self, request_overrides={}, **own)
        except ValueError as exc:
            raise ValueError(f"request_overrides: {exc}") from exc
        return {
            k: getattr(applied, k) if k in own else v for k, v in self.request_overrides.items()
        }

    @classmethod
    def paper(cls, **overrides: Any) -> MethodSettings:
        """The published method's internals: no relevance weighting, per-direction
        contradiction at κ = 0.5, no quarantine, S* delivered whole, every page read as
        evidence."""
        base: dict[str, Any] = dict(
            kappa=0.5,
            contradiction_symmetry="each",
            relevance="none",
            coordinated_min_support=0,
            coordination_self_conflict=None,
            garbled_threshold=None,
            instruction_pages="keep",
            coordination_absorb_margin=None,
            coordinated_d_min=None,
            paraphrase_pairs=False,
            corroborated_only="none",
            fact_coverage=False,
            corroborated_relevant=False,
            questions_vouch=True,
            restatements_vouch=True,
            conflict_scope="selected",
            pair_relevant_only=False,
            request_overrides={},
        )
        return cls(**(base | overrides))

    def replace(self, **changes: Any) -> MethodSettings:
        """A copy with some fields changed (validated again)."""
        return replace(self, **changes)
