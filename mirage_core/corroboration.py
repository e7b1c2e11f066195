"""Corroboration: which claims another independent source vouches for, fact by fact.

A claim is corroborated by a claim of *another independence group* that supports it: an NLI
support edge into it (w_supp > 0), or, with ``paraphrase_support`` set, a sentence embedding at
least that close (a paraphrase the pair budget never sent to NLI). With ``fact_coverage`` a
supporter counts only if it states every fact of the claim — each number, month and name
(:func:`claim_facts`): a sentence that agrees about the rest but adds a date no other source
gives is not verified in that date.

``min_support`` (``MirageConfig``) then asks each claim of S* for this many corroborating
groups. All of it is numpy over edges and blocks of the claim-by-claim cosine matrix; no Python
loop over claim pairs.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING

import numpy as np

from mirage_core.adjacency import tokens_stated
from mirage_core.claim_filter import is_question
from mirage_core.claims import STOPWORDS
from mirage_core.edited_copies import edited_copies
from mirage_core.fact_forms import fact_form, stated_forms
from mirage_core.factcheck import MONTHS, fact_tokens
from mirage_core.graph import ClaimGraph, SourcedGraph
from mirage_core.memo import text_memo
from mirage_core.types import Claim

if TYPE_CHECKING:
    from mirage_core.config import MirageConfig
    from mirage_core.method_settings import FactForms, FactScope, ParaphraseVeto

__all__ = [
    "Corroboration",
    "claim_facts",
    "configured_corroboration",
    "corroborate",
    "selection_corroborates",
    "stated_words",
]

_BLOCK = 512  # rows of the cosine matrix computed at once (memory stays O(block · n))


@text_memo()
def claim_facts(text: str, forms: FactForms = "tokens") -> frozenset[str]:
    """The facts a sentence states: its numbers, months and names (capitalized words; the
    first word too unless it is a stopword), lower-cased; with ``forms="equivalent"`` each in
    the form :func:`mirage_core.fact_forms.fact_form` compares it in."""
    facts = set()
    for i, (token, kind) in enumerate(fact_tokens(text)):
        if kind is not None or (i == 0 and token not in STOPWORDS and text[:1].isupper()):
            facts.add(token)
    if forms == "equivalent":
        facts = {fact_form(t, text) for t in facts}
    return frozenset(facts)


@text_memo()
def stated_words(text: str, forms: FactForms = "tokens") -> frozenset[str]:
    """Every token of ``text``, lower-cased as :func:`claim_facts` reads them: a text states a
    fact when the fact is among these. With ``forms="equivalent"``, also every form
    :func:`mirage_core.fact_forms.stated_forms` reads."""
    if forms == "equivalent":
        return stated_forms(text)
    return frozenset(t for t, _ in fact_tokens(text))


@dataclass(frozen=True)
class Corroboration:
    """Per claim: the independence groups that corroborate it (``counts``); the corroborating
    edges themselves are ``premise[k]`` → ``hypothesis[k]`` (claim indices)."""

    counts: np.ndarray
    premise: np.ndarray
    hypothesis: np.ndarray

    def vouched(self, quarantined: np.ndarray) -> np.ndarray:
        """Per claim: corroborated by a claim outside ``quarantined`` (a planted passage
        vouches for nothing)."""
        vouched = np.zeros(len(self.counts), dtype=bool)
        vouched[self.hypothesis[~quarantined[self.premise]]] = True
        return vouched

    @property
    def supporters(self) -> tuple[tuple[int, ...], ...]:
        """Per claim: its supporting claims of other groups, ascending."""
        out: list[set[int]] = [set() for _ in range(len(self.counts))]
        for p, h in zip(self.premise.tolist(), self.hypothesis.tolist(), strict=True):
            out[h].add(p)
        return tuple(tuple(sorted(s)) for s in out)


def _is_name(fact: str) -> bool:
    """A fact of :func:`claim_facts` that is a name: not a number, not a month."""
    return not fact[:1].isdigit() and fact not in MONTHS


def _facts_stated(
    claims: Sequence[Claim],
    premise: np.ndarray,
    hypothesis: np.ndarray,
    scope: FactScope,
    forms: FactForms = "tokens",
) -> np.ndarray:
    """Per edge: whether the premise's sentence (or with ``scope="passage"`` its passage)
    states every fact of the hypothesis (:func:`mirage_core.adjacency.tokens_stated`, facts and
    words as token ids of one vocabulary), in the forms ``forms`` reads. With
    ``scope="names_in_passage"`` the names may be anywhere in the premise's passage (a page
    names its subject once and then writes "he"), its numbers and months in its sentence."""
    vocab: dict[str, int] = {}
    words = [[vocab.setdefault(t, len(vocab)) for t in stated_words(c.text, forms)] for c in claims]
    facts = [claim_facts(c.text, forms) for c in claims]
    passages = np.asarray([c.passage_index for c in claims], dtype=np.int64)

    def ids(names: bool | None) -> list[list[int]]:
        """Token ids of each claim's facts: all of them (``None``), or its names / the rest."""
        return [
            [vocab.setdefault(t, len(vocab)) for t in f if names is None or _is_name(t) == names]
            for f in facts
        ]

    if scope == "names_in_passage":
        parts = [(ids(True), passages), (ids(False), None)]
    else:
        parts = [(ids(None), passages if scope == "passage" else None)]
    covered = np.ones(hypothesis.size, dtype=bool)
    for fact_ids, unit in parts:
        n_facts = np.fromiter((len(f) for f in fact_ids), dtype=np.int64, count=len(fact_ids))
        found = tokens_stated(fact_ids, premise, hypothesis, stated=words, unit=unit)
        covered &= found == n_facts[hypothesis]
    return covered


def _paraphrase_pairs(
    embeddings: np.ndarray, groups: np.ndarray, threshold: float
) -> tuple[np.ndarray, np.ndarray]:
    """(supporter, claim) index pairs of claims of different groups with cosine ≥ threshold,
    both directions; the cosine matrix is computed block by block (``embeddings``: one row at
    least)."""
    left, right = [], []
    for start in range(0, len(embeddings), _BLOCK):
        block = embeddings[start : start + _BLOCK] @ embeddings.T
        i, j = np.nonzero(block >= threshold)
        i = i + start
        keep = groups[i] != groups[j]
        left.append(i[keep])
        right.append(j[keep])
    return np.concatenate(left), np.concatenate(right)


def _uncontradicted(
    graph: ClaimGraph, premise: np.ndarray, hypothesis: np.ndarray, veto: ParaphraseVeto
) -> tuple[np.ndarray, np.ndarray]:
    """The (supporter, claim) pairs between which the claim graph holds no contradiction, in
    either direction: a close paraphrase that the NLI model read as a contradiction (a flipped
    polarity states the same facts) corroborates nothing. ``veto``: a counted contradiction
    (``w_contr > 0``), or any reading that leans to it (``p_contra > p_entail``), or that and
    no reading at all (``"unread_or_leaning"``: what the veto cannot read does not vouch)."""
    if not premise.size:
        return premise, hypothesis
    n = max(graph.n_claims, 1)
    keys = premise * n + hypothesis
    keep = np.ones(premise.size, dtype=bool)
    if veto == "unread_or_leaning":
        read = np.concatenate(
            [graph.premise * n + graph.hypothesis, graph.hypothesis * n + graph.premise]
        )
        keep &= np.isin(keys, read)
    counted = graph.probs[:, 2] > graph.probs[:, 0] if veto != "counted" else graph.w_contr > 0
    if counted.any():
        a, b = graph.premise[counted], graph.hypothesis[counted]
        keep &= ~np.isin(keys, np.concatenate([a * n + b, b * n + a]))
    return premise[keep], hypothesis[keep]


def corroborate(
    claims: Sequence[Claim],
    sourced: SourcedGraph,
    *,
    embeddings: np.ndarray | None = None,
    paraphrase_support: float | None = None,
    fact_coverage: bool = False,
    fact_scope: FactScope = "sentence",
    fact_forms: FactForms = "tokens",
    questions_vouch: bool = True,
    restating: frozenset[str] | None = None,
    paraphrase_veto: ParaphraseVeto = "counted",
    copy_overlap: float | None = None,
) -> Corroboration:
    """Who corroborates each claim: NLI support from another group, paraphrase neighbours of
    another group that the NLI model does not read as a contradiction (``embeddings``:
    L2-normalized claim rows, with ``paraphrase_support``; ``paraphrase_veto``: which reading
    counts as one), each
    kept only if it states every fact of the claim when ``fact_coverage`` is set (in its own
    sentence, or with ``fact_scope="passage"`` anywhere in its passage; ``fact_forms``: which
    forms of a fact count, :mod:`mirage_core.fact_forms`); with
    ``questions_vouch=False`` no edge from or to a question counts, and with ``restating``
    (the query's content tokens) none from or to a claim that says nothing beyond them; with
    ``copy_overlap`` a supporter in nearly the claim's words counts only if it states every word
    of it (:func:`mirage_core.edited_copies.edited_copies`)."""
    n = len(claims)
    graph, groups = sourced.graph, sourced.groups
    into = (graph.w_supp > 0) & (groups[graph.premise] != groups[graph.hypothesis])
    premise, hypothesis = graph.premise[into], graph.hypothesis[into]
    if embeddings is not None and paraphrase_support is not None and n:
        p, h = _paraphrase_pairs(embeddings, groups, paraphrase_support)
        p, h = _uncontradicted(graph, p, h, paraphrase_veto)
        premise, hypothesis = np.concatenate([premise, p]), np.concatenate([hypothesis, h])
    if premise.size and (questions_vouch is False or restating is not None):
        # a question asserts nothing, nor does a sentence made of the query's own words (a
        # question glued on without its "?"): they neither vouch for a claim nor are vouched for
        silent = np.fromiter(
            (
                (questions_vouch is False and is_question(c.text))
                or (restating is not None and c.tokens <= restating)
                for c in claims
            ),
            dtype=bool,
            count=n,
        )
        keep = ~(silent[premise] | silent[hypothesis])
        premise, hypothesis = premise[keep], hypothesis[keep]
    if fact_coverage and premise.size:
        covers = _facts_stated(claims, premise, hypothesis, fact_scope, fact_forms)
        premise, hypothesis = premise[covers], hypothesis[covers]
    if copy_overlap is not None and premise.size:
        keep = ~edited_copies(claims, premise, hypothesis, copy_overlap)
        premise, hypothesis = premise[keep], hypothesis[keep]
    # distinct (claim, supporting group) pairs
    counts = np.zeros(n, dtype=np.int64)
    if premise.size:
        by_group = np.unique(np.stack([hypothesis, groups[premise]]), axis=1)
        counts = np.bincount(by_group[0], minlength=n).astype(np.int64)
    return Corroboration(counts, premise, hypothesis)


def selection_corroborates(config: MirageConfig) -> bool:
    """Whether the selection reads :func:`corroborate` (paraphrase or fact coverage under
    ``min_support``) rather than n(c)."""
    m = config.method
    return bool(config.min_support and (m.paraphrase_support is not None or m.fact_coverage))


def configured_corroboration(
    claims: Sequence[Claim],
    sourced: SourcedGraph,
    config: MirageConfig,
    embeddings: np.ndarray | None = None,
    query_tokens: frozenset[str] = frozenset(),
) -> Corroboration | None:
    """:func:`corroborate` with ``config``'s paraphrase and fact-coverage settings, once per
    query for every step that reads it (the selection, d_src under ``source_count=
    "corroborating"``, the majority rule); ``None`` when none of them does. ``query_tokens``:
    the query's content tokens (``restatements_vouch=False`` reads them)."""
    m = config.method
    needed = (
        selection_corroborates(config)
        or m.corroborated_only != "none"
        or m.source_count == "corroborating"
        or (config.block_on_tie and m.conflict_rule == "majority")
    )
    if not needed:
        return None
    return corroborate(
        claims,
        sourced,
        embeddings=embeddings,
        paraphrase_support=m.paraphrase_support,
        fact_coverage=m.fact_coverage,
        fact_scope=m.fact_scope,
        fact_forms=m.fact_forms,
        questions_vouch=m.questions_vouch,
        restating=None if m.restatements_vouch else query_tokens,
        paraphrase_veto=m.paraphrase_veto,
        copy_overlap=m.copy_overlap,
    )
