"""Coordination signals: how a group of passages resembles planted copies of one falsehood
rather than honest coverage of one story.

Passage cosine alone cannot do it: honest outlets covering one story are as close in embedding
space as PoisonedRAG's planted passages (``docs/independence.md``). Planted passages differ
from honest coverage in *how* they resemble each other, and these signals measure that (the
pairwise ones on passages of *different* publishers: one publisher is one source anyway):

- ``lexical`` — shared word 3-grams outside the query's own words (containment of the smaller
  passage's shingles: :mod:`mirage_core.lexical_overlap`). Syndicated copies and templated
  poisons share phrasing; honest outlets share facts and the query's words, not sentences.
- ``concentration`` — share of a passage's content tokens that restate the query or repeat what
  at least half of the group says (RAGDefender's TF-IDF top-term concentration is one form).
  A planted passage restates the question and asserts one answer with little else.
- ``answer_focus`` — the same idea at the sentence that carries the group's shared token (the
  answer): the share of that sentence's content tokens that are the query's words or the shared
  tokens. A poison must state its answer where the question's words are, whatever framing and
  filler surround it ("Q: where was X filmed? A: New York."); an honest page's sentences that
  mention a fact other outlets share carry other facts with it.
- ``novelty`` — share of a passage's content tokens found neither in the query nor in any other
  passage of the group. Honest coverage brings facts of its own; planted text repeats one
  (low novelty is the suspicious side).
- ``tightness`` — robust z of the group's mean cosine against the query's other passage pairs
  (median / MAD of the pairs not both inside the group); needs embeddings and passages
  outside the group.
- ``restatement`` — how much of the query a passage's best sentence restates *beyond what a
  direct answer needs*, averaged over the group: ``max(0, b − a) / max(1, |q| − a)`` for a
  sentence holding ``b`` of the query's ``|q|`` content tokens, with the allowance ``a`` =
  :data:`RESTATEMENT_ALLOWANCE` (3). Text planted to be retrieved for a query restates it
  (PoisonedRAG's poisons repeat the question's words; a fabricated story repeats the claim it
  pushes); honest text names the subject and the relation it answers about, and little more
  of the query. The allowance keeps short questions out of it: "Mount Everest is 8,849 metres
  tall" restates all of "How tall is Mount Everest?" and is an honest answer.
- ``insistence`` — share of a passage's sentences that are about the answer (they carry the
  group's shared token, or restate at least half of the query), averaged over the group. A
  planted passage pushes its answer in every sentence ("Mount Kenya is Africa's tallest
  mountain … its summit is the highest point on the continent … guidebooks name it whenever
  they list the highest mountain in Africa"); an honest page answers once and goes on to tell
  other things (when it was first climbed, how long the routes take).
- ``detail`` — share of a passage's content tokens that are facts of its own: numbers, months
  and names (:func:`mirage_core.factcheck.fact_tokens`) found neither in the query nor in any
  other passage of the group (low is the suspicious side, as for ``novelty``). Honest pages
  each bring dates, figures and people of their own; planted copies repeat one answer and
  carry few facts beside it.

Candidate groups are the passages that share one content token outside the query, across at
least ``min_publishers`` publishers: the answer a planted group pushes is such a token (it must
appear verbatim to be an answer), so no similarity threshold decides who is grouped, and a
rewording attack that keeps the answer keeps the group. Each candidate is scored on every signal;
:class:`CoordinationModel` standardizes them against honest coverage (median / MAD) and flags a
group whose mean standardized score reaches its threshold. Everything is deterministic, numpy
only, and every flagged group says which signals tied which passages (:meth:`GroupSignals.explain`).
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass, field

import numpy as np

from mirage_core.claims import STOPWORDS, content_tokens, split_sentences
from mirage_core.factcheck import fact_tokens
from mirage_core.lexical_overlap import lexical_matrix, shingles

__all__ = [
    "ISOLATED_SIGNALS",
    "LOW_SIDE",
    "RESTATEMENT_ALLOWANCE",
    "SIGNALS",
    "EvidenceProfile",
    "GroupSignals",
    "candidate_groups",
    "evidence_profile",
    "group_signals",
    "lexical_matrix",
    "shingles",
]

#: Signal names, each oriented so that *higher* means "more like planted copies" once
#: standardized (the signals of :data:`LOW_SIDE` enter negated).
SIGNALS: tuple[str, ...] = (
    "lexical",
    "concentration",
    "answer_focus",
    "novelty",
    "tightness",
    "cosine",
    "restatement",
    "insistence",
    "detail",
)

#: Signals whose *low* values are the suspicious side (standardized with the sign flipped).
LOW_SIDE: frozenset[str] = frozenset({"novelty", "detail"})

#: The signals defined for a group that is the whole evidence (``tightness`` compares a group
#: with the query's other passages, and there are none).
ISOLATED_SIGNALS: tuple[str, ...] = tuple(s for s in SIGNALS if s != "tightness")

#: Query content tokens an honest sentence restates anyway (the subject's name and the relation
#: it answers about): the median best-sentence count of the honest gpe-eval groups of
#: ``research/coordination_signals.py``'s fit half (3, for queries of 14 content tokens at
#: the median; 75th / 90th percentile 4 / 5). A query of this many content tokens or fewer
#: scores 0: a direct answer restates all of it.
RESTATEMENT_ALLOWANCE = 3


@dataclass
class EvidenceProfile:
    """Per-passage token sets and pairwise matrices of one query's evidence (computed once,
    shared by every candidate group)."""

    query_tokens: frozenset[str]
    tokens: list[frozenset[str]]
    sentences: list[list[frozenset[str]]]  # content tokens of each sentence, per passage
    facts: list[frozenset[str]]  # numbers, months and names outside the query, per passage
    lexical: np.ndarray  # (n, n) shingle containment; 0 on the diagonal
    cross: np.ndarray  # (n, n) bool: different publishers
    sims: np.ndarray | None  # (n, n) cosine, when embeddings were given
    domains: list[str]


def evidence_profile(
    query: str,
    texts: Sequence[str],
    domains: Sequence[str],
    embeddings: np.ndarray | None = None,
    spans: Sequence[Sequence[tuple[int, int]] | None] | None = None,
) -> EvidenceProfile:
    """Token sets, the lexical matrix, the publisher mask and (optionally) cosines.

    ``spans``, when given, are each text's sentence spans (``None`` for one text: split here)."""
    if len(texts) != len(domains):
        raise ValueError(f"{len(texts)} texts but {len(domains)} domains")
    dom = np.asarray(list(domains), dtype=object)
    sims = None
    if embeddings is not None:
        emb = np.asarray(embeddings, dtype=np.float64)
        if emb.shape[0] != len(texts):
            raise ValueError(f"{emb.shape[0]} embeddings for {len(texts)} texts")
        sims = emb @ emb.T
    if spans is None:
        spans = [None] * len(texts)
    elif len(spans) != len(texts):
        raise ValueError(f"{len(spans)} span lists for {len(texts)} texts")
    cuts = [  # sentence splitting is the costly step
        cut if cut is not None else split_sentences(t) for t, cut in zip(texts, spans, strict=True)
    ]
    asked = {t for t, _ in fact_tokens(query)}
    facts = [
        frozenset(
            tok
            for a, b in cut
            for tok, kind in fact_tokens(t[a:b])
            if kind is not None and tok not in asked and tok not in STOPWORDS
        )
        for t, cut in zip(texts, cuts, strict=True)
    ]
    return EvidenceProfile(
        query_tokens=content_tokens(query),
        tokens=[content_tokens(t) for t in texts],
        sentences=[
            [content_tokens(t[a:b]) for a, b in cut] for t, cut in zip(texts, cuts, strict=True)
        ],
        facts=facts,
        lexical=lexical_matrix(texts, query),
        cross=dom[:, None] != dom[None, :],
        sims=sims,
        domains=list(domains),
    )


@dataclass(frozen=True, slots=True)
class GroupSignals:
    """The signals of one candidate group (passage indices into the query's evidence).

    Raw values: ``lexical`` and ``cosine`` are means over the group's pairs of different
    publishers; ``concentration``, ``answer_focus`` and ``novelty`` are means over its
    passages; ``tightness``
    is the robust z of its mean cosine against the other pairs (NaN without embeddings or
    without passages outside the group); ``restatement`` is the mean over its passages of what
    the best sentence restates of the query beyond :data:`RESTATEMENT_ALLOWANCE` tokens (NaN
    for a query without content tokens). ``insistence`` is the mean over its passages of the
    share of their sentences that carry an anchor or hold half of the query's content tokens;
    ``detail`` the mean share of their content tokens that are facts (numbers, months, names)
    no other member and not the query names. ``shared`` are the content tokens outside the
    query that every member carries (what tied them). ``tokens`` is the median number of content
    tokens of its passages (how much text the ratios rest on). ``isolated``: the group is the
    whole evidence (no passage outside it, so no ``tightness``); ``outside`` counts the
    evidence's passages outside the group, ``outside_tokens`` the content tokens of the longest
    of them (0 when isolated). ``standardized``, ``score``,
    ``threshold`` (what the score was compared with: the model's group or isolated
    threshold), ``fired`` and ``flagged`` are filled by :meth:`CoordinationModel.score`.
    """

    passages: tuple[int, ...]
    publishers: int
    shared: tuple[str, ...]
    lexical: float
    concentration: float
    answer_focus: float
    novelty: float
    cosine: float
    tightness: float
    restatement: float = float("nan")
    insistence: float = float("nan")
    detail: float = float("nan")
    lexical_pairs: tuple[tuple[int, int, float], ...] = ()
    tokens: float = float("nan")
    isolated: bool = False
    outside: int = 0
    outside_tokens: float = 0.0
    standardized: dict[str, float] = field(default_factory=dict)
    score: float = float("nan")
    threshold: float = float("nan")
    fired: tuple[str, ...] = ()
    flagged: bool = False
    absorbed: tuple[int, ...] = ()

    def value(self, signal: str) -> float:
        return float(getattr(self, signal))

    def explain(self) -> str:
        """One line for the verdict: which signals tied which passages."""
        # the members that share the tokens; absorbed passages are named at the end
        who = ", ".join(str(i) for i in self.passages if i not in self.absorbed)
        parts = [
            f"passages {who} ({self.publishers} publishers) share {', '.join(self.shared[:4])!s}"
        ]
        detail = {
            "lexical": f"shared phrasing {self.lexical:.2f}",
            "concentration": f"answer concentration {self.concentration:.2f}",
            "answer_focus": f"answer sentences {self.answer_focus:.0%} query + shared words",
            "novelty": f"novelty {self.novelty:.2f}",
            "tightness": f"tightness z {self.tightness:.1f}",
            "cosine": f"mean cosine {self.cosine:.2f}",
            "restatement": f"restate {self.restatement:.0%} of the query beyond an answer",
            "insistence": f"{self.insistence:.0%} of sentences on the answer",
            "detail": f"facts of their own {self.detail:.2f}",
        }
        fired = [detail[s] for s in self.fired] or [
            detail[s] for s in SIGNALS if math.isfinite(self.value(s))
        ]
        tail = f"; score {self.score:.2f}" if math.isfinite(self.score) else ""
        if tail and math.isfinite(self.threshold):
            tail += f" {'≥' if self.score >= self.threshold else '<'} {self.threshold:.2f}"
        pairs = ""
        if "lexical" in self.fired and self.lexical_pairs:
            a, b, c = self.lexical_pairs[0]
            pairs = f" (most: {a}~{b} {c:.2f})"
        joined = ""
        if self.absorbed:
            joined = (
                f"; passages {', '.join(str(i) for i in self.absorbed)} joined them "
                "(as close to them as they are to each other)"
            )
        return f"{parts[0]}: " + "; ".join(fired) + pairs + tail + joined


def _mean_cross(matrix: np.ndarray, cross: np.ndarray, members: np.ndarray) -> float:
    sub = matrix[np.ix_(members, members)]
    mask = np.triu(cross[np.ix_(members, members)], k=1)
    return float(sub[mask].mean()) if mask.any() else float("nan")


def group_signals(
    profile: EvidenceProfile, members: Sequence[int], anchors: Sequence[str] | None = None
) -> GroupSignals:
    """Score one group of passages (indices into the profile's evidence) on every signal.

    ``anchors``: the tokens that define the group (``answer_focus`` reads the sentences that
    carry them); default: every content token outside the query that all members share."""
    idx = np.asarray(sorted(set(int(m) for m in members)), dtype=np.int64)
    if idx.size < 2:
        raise ValueError("a group needs at least two passages")
    q = profile.query_tokens
    toks = [profile.tokens[i] - q for i in idx]
    full = [profile.tokens[i] for i in idx]
    half = math.ceil(idx.size / 2)
    counts: dict[str, int] = {}
    for t in toks:
        for w in t:
            counts[w] = counts.get(w, 0) + 1
    common = {w for w, c in counts.items() if c >= half}
    member_facts = [profile.facts[i] for i in idx]
    fact_counts: dict[str, int] = {}
    for f in member_facts:
        for w in f:
            fact_counts[w] = fact_counts.get(w, 0) + 1
    conc, nov, det = [], [], []
    for p, pf, f in zip(toks, full, member_facts, strict=True):
        size = len(pf)
        if size == 0:
            continue
        conc.append((len(pf & q) + len(p & common)) / size)
        # a token held by one member only is in no other member: no O(m²) unions
        nov.append(sum(counts[w] == 1 for w in p) / size)
        det.append(sum(fact_counts[w] == 1 for w in f) / size)
    shared = sorted(set.intersection(*(set(t) for t in toks))) if toks else []
    anchor = set(anchors) if anchors else set(shared)
    focus, restate, insist = [], [], []
    for i in idx:
        best, restated = 0.0, 0  # answer focus; query tokens of the best-restating sentence
        on, said = 0, 0  # sentences about the answer; sentences with content
        for sent in profile.sentences[i]:
            carries = bool(sent & anchor)  # the sentence states the shared token
            if carries:
                best = max(best, len(sent & (q | anchor)) / len(sent))
            restated = max(restated, len(sent & q))
            if sent:
                said += 1
                on += carries or (bool(q) and 2 * len(sent & q) >= len(q))
        focus.append(best)
        insist.append(on / said if said else 0.0)
        a = RESTATEMENT_ALLOWANCE
        restate.append(max(0, restated - a) / max(1, len(q) - a))
    members_set = set(idx.tolist())
    outside_lengths = [len(t) for i, t in enumerate(profile.tokens) if i not in members_set]
    lexical = _mean_cross(profile.lexical, profile.cross, idx)
    cosine = tightness = float("nan")
    if profile.sims is not None:
        cosine = _mean_cross(profile.sims, profile.cross, idx)
        tightness = _tightness(profile.sims, idx, cosine)
    sub_lex = profile.lexical[np.ix_(idx, idx)]
    pairs = sorted(
        (
            (int(idx[a]), int(idx[b]), round(float(sub_lex[a, b]), 3))
            for a in range(idx.size)
            for b in range(a + 1, idx.size)
            if profile.cross[idx[a], idx[b]]
        ),
        key=lambda x: -x[2],
    )
    return GroupSignals(
        passages=tuple(int(i) for i in idx),
        publishers=len({profile.domains[i] for i in idx}),
        shared=tuple(shared),
        lexical=lexical,
        concentration=float(np.mean(conc)) if conc else float("nan"),
        answer_focus=float(np.mean(focus)) if anchor else float("nan"),
        novelty=float(np.mean(nov)) if nov else float("nan"),
        detail=float(np.mean(det)) if det else float("nan"),
        cosine=cosine,
        tightness=tightness,
        restatement=float(np.mean(restate)) if q else float("nan"),
        insistence=float(np.mean(insist)),
        lexical_pairs=tuple(pairs[:3]),
        tokens=float(np.median([len(profile.tokens[i]) for i in idx])),
        isolated=idx.size == len(profile.tokens),
        outside=len(profile.tokens) - idx.size,
        outside_tokens=float(max(outside_lengths, default=0)),
    )


def _tightness(sims: np.ndarray, idx: np.ndarray, mean: float) -> float:
    """Robust z of the group's cross-publisher mean cosine against the pairs not both inside
    it, so a group that makes up most of the evidence cannot set its own baseline."""
    n = sims.shape[0]
    inside = np.zeros(n, dtype=bool)
    inside[idx] = True
    iu, ju = np.triu_indices(n, k=1)
    base = sims[iu, ju][~(inside[iu] & inside[ju])]
    if base.size == 0 or not math.isfinite(mean):
        return float("nan")
    med = float(np.median(base))
    mad = float(np.median(np.abs(base - med))) * 1.4826
    return (mean - med) / max(mad, 0.02)


def candidate_groups(
    profile: EvidenceProfile, min_publishers: int = 3, max_groups: int = 64
) -> list[tuple[tuple[int, ...], tuple[str, ...]]]:
    """Groups of passages that share a content token outside the query, spanning at least
    ``min_publishers`` publishers; one entry per distinct member set, with the tokens that
    define it, largest token support first (at most ``max_groups``)."""
    q = profile.query_tokens
    by_members: dict[tuple[int, ...], list[str]] = {}
    holders: dict[str, list[int]] = {}
    for i, toks in enumerate(profile.tokens):
        for w in toks - q:
            holders.setdefault(w, []).append(i)
    for w, members in holders.items():
        if len(members) < min_publishers:
            continue
        if len({profile.domains[i] for i in members}) < min_publishers:
            continue
        by_members.setdefault(tuple(members), []).append(w)
    ranked = sorted(by_members.items(), key=lambda kv: (-len(kv[1]), kv[0]))
    return [(m, tuple(sorted(ws))) for m, ws in ranked[:max_groups]]
