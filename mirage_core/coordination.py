"""Coordination signals: tell planted copies of one falsehood from honest coverage of one story.

Passage cosine alone cannot do it: honest outlets covering one story are as close in embedding
space as PoisonedRAG's planted passages (README, "Source independence"). Planted passages differ
from honest coverage in *how* they resemble each other, and these signals measure that (the
pairwise ones on passages of *different* publishers: one publisher is one source anyway):

- ``lexical`` — shared word 3-grams outside the query's own words (containment of the smaller
  passage's shingles). Syndicated copies and templated poisons share phrasing; honest outlets
  share facts and the query's words, not sentences.
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
  (as :func:`mirage_core.independence.coordination_report`); needs embeddings and passages
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
import re
import unicodedata
from collections.abc import Sequence
from dataclasses import dataclass, field, replace

import numpy as np

from mirage_core.claims import STOPWORDS, content_tokens, split_sentences
from mirage_core.factcheck import fact_tokens

__all__ = [
    "DEFAULT_MODEL",
    "ISOLATED_SIGNALS",
    "LOW_SIDE",
    "RESTATEMENT_ALLOWANCE",
    "SIGNALS",
    "TEXT_MODEL",
    "CoordinationModel",
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

_WORD = re.compile(r"\d+(?:[.,]\d+)*|[^\W\d_][^\W_]*(?:['’][^\W\d_]+)?")
_NUMBER = re.compile(r"\d+(?:[.,]\d+)*")


def _words(text: str) -> list[str]:
    """Ordered lowercase word tokens (numbers normalized like :func:`content_tokens`)."""
    low = unicodedata.normalize("NFKC", text).lower()
    out = []
    for m in _WORD.finditer(low):
        tok = m.group(0).replace("’", "'")
        out.append(tok.replace(",", "") if _NUMBER.fullmatch(tok) else tok)
    return out


def shingles(text: str, query_words: frozenset[str], n: int = 3) -> frozenset[tuple[str, ...]]:
    """Word ``n``-grams of ``text`` that carry at least one word outside the query and the
    stopwords: a shingle made of the query's own words ("of chicago fire") is what any page on
    the topic says, while "a total of" is phrasing."""
    toks = _words(text)
    grams = zip(*(toks[i:] for i in range(n)), strict=False)
    return frozenset(
        g for g in grams if any(t not in query_words and t not in STOPWORDS for t in g)
    )


def _containment(a: frozenset, b: frozenset) -> float:
    small = min(len(a), len(b))
    return len(a & b) / small if small else 0.0


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


def lexical_matrix(texts: Sequence[str], query: str, n: int = 3) -> np.ndarray:
    """Pairwise shingle containment ``|A ∩ B| / min(|A|, |B|)`` (0 on the diagonal)."""
    qw = frozenset(_words(query))
    sh = [shingles(t, qw, n) for t in texts]
    m = len(texts)
    out = np.zeros((m, m))
    for i in range(m):
        for j in range(i + 1, m):
            out[i, j] = out[j, i] = _containment(sh[i], sh[j])
    return out


def evidence_profile(
    query: str,
    texts: Sequence[str],
    domains: Sequence[str],
    embeddings: np.ndarray | None = None,
) -> EvidenceProfile:
    """Token sets, the lexical matrix, the publisher mask and (optionally) cosines."""
    if len(texts) != len(domains):
        raise ValueError(f"{len(texts)} texts but {len(domains)} domains")
    dom = np.asarray(list(domains), dtype=object)
    sims = None
    if embeddings is not None:
        emb = np.asarray(embeddings, dtype=np.float64)
        if emb.shape[0] != len(texts):
            raise ValueError(f"{emb.shape[0]} embeddings for {len(texts)} texts")
        sims = emb @ emb.T
    spans = [split_sentences(t) for t in texts]  # sentence splitting is the costly step
    asked = {t for t, _ in fact_tokens(query)}
    facts = [
        frozenset(
            tok
            for a, b in cut
            for tok, kind in fact_tokens(t[a:b])
            if kind is not None and tok not in asked and tok not in STOPWORDS
        )
        for t, cut in zip(texts, spans, strict=True)
    ]
    return EvidenceProfile(
        query_tokens=content_tokens(query),
        tokens=[content_tokens(t) for t in texts],
        sentences=[
            [content_tokens(t[a:b]) for a, b in cut] for t, cut in zip(texts, spans, strict=True)
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
    whole evidence (no passage outside it, so no ``tightness``). ``standardized``, ``score``,
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
    lexical = _mean_cross(profile.lexical, profile.cross, idx)
    cosine = tightness = float("nan")
    if profile.sims is not None:
        cosine = _mean_cross(profile.sims, profile.cross, idx)
        tightness = _tightness(profile.sims, profile.cross, idx, cosine)
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
    )


def _tightness(sims: np.ndarray, cross: np.ndarray, idx: np.ndarray, mean: float) -> float:
    """Robust z of the group's cross-publisher mean cosine against the pairs not both inside
    it (the formula of :func:`~mirage_core.independence.coordination_report`)."""
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
    (its signals stay in the verdict) but never flagged. The text signals are shares of a
    passage's content tokens; on one-line snippets ("The Eiffel Tower is located in Paris.",
    six content tokens) a share moves by a sixth per word and agreeing honest snippets look
    exactly like planted copies, so such evidence is left to the contradiction and diversity
    gates, as without coordination signals. Fit as the largest floor that loses no planted
    group caught on the fit half (``research/coordination_signals.py``).

    ``isolated_signals`` / ``isolated_threshold``: how a group that is the whole evidence is
    scored. ``tightness`` compares the group with the query's other passages; when there are
    none (five planted passages and nothing else, or five honest ones) it is undefined, and
    these signals (e.g. the group's plain ``cosine`` against honest coverage's) take the
    model's signals' place, with their own threshold. Empty: such a group is scored on the
    model's signals that are defined.
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
    provenance: str = ""

    def __post_init__(self) -> None:
        for s in (*self.signals, *self.isolated_signals):
            if s not in SIGNALS:
                raise ValueError(f"unknown signal {s!r}; expected some of {list(SIGNALS)}")
            if s not in self.center or s not in self.scale:
                raise ValueError(f"signal {s!r} needs a center and a scale")

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
        signals, threshold = self.signals, self.threshold
        if g.isolated and self.isolated_signals and all(s in z for s in self.isolated_signals):
            signals, threshold = self.isolated_signals, self.isolated_threshold
        used = [z[s] for s in signals if s in z]
        score = float(np.mean(used)) if used else float("nan")
        fired = tuple(s for s in signals if z.get(s, -math.inf) >= self.fire_at)
        flagged = bool(used) and score >= threshold and not g.tokens < self.min_tokens
        return replace(
            g,
            standardized={k: round(v, 3) for k, v in z.items()},
            score=score,
            threshold=threshold,
            fired=fired,
            flagged=flagged,
        )


#: Fit by ``python -m research.coordination_signals`` (research/results/coordination_signals.txt):
#: centers / scales are the median / MAD of honest gpe-eval groups (k = 10) of the fit half, the
#: signals the combination whose worst poison variant caught most on the fit half, the threshold
#: the one that flags 5% of honest fit sets. Held out: honest sets flagged 11% (length-matched
#: honest control 5%); PoisonedRAG gold + 5 poisons caught 68% (original), 68% (paraphrased),
#: 63% (synonym-substituted), 35% (dispersed), the five poisons alone 47% (original) and 83%
#: (dispersed); the flagged group is the poisons in 97%. Over ten seeded fit / report splits the
#: rule chose this combination 4 times (answer_focus + novelty 5) and it flagged 5% (3–8%) of
#: honest held-out sets, catching 62% / 61% / 60% / 33% (original / paraphrase / synonym /
#: dispersed, with gold) and 41% / 81% of the poisons alone.
#: Length floor ``min_tokens`` 14 (fit half; held out it costs 1 point on the original /
#: paraphrased / synonym poisons and no honest set changes: honest pages, a 300-char cut and
#: query snippets all hold more content tokens per passage).
#: A group that is the whole evidence has no ``tightness``: it is scored on its own signals
#: (``isolated_signals``) against its own threshold. Session 5 fit ``answer_focus`` + ``cosine``
#: with the lowest threshold that flags at most 2% of the scoreboard's honest gpe-eval fit sets
#: (1.169). Session 7 compared every combination of the isolated signals at one honest cost, the
#: 11 of 300 honest fit sets the shipped scoring then flagged (``research/coordination_isolated.py
#: --budget answer_focus,cosine@0.8``; research/results/coordination_isolated.txt), and took
#: the one catching the largest mean share of the attack-only evidence kinds on the fit split:
#: ``answer_focus`` + ``novelty`` + ``cosine`` at 0.572 (planted passages repeat one story;
#: honest pages bring facts of their own). Against ``answer_focus`` + ``cosine`` at that cost,
#: attack-only gpe-eval pages caught 75% / 77% (was 64% / 68%, k = 5, fit / report) and 59% /
#: 50% (39% / 39%, k = 10); PoisonedRAG poisons alone 94% / 94% and 86% / 84% (88% / 94%,
#: 86% / 84%); dispersed poisons alone unchanged (90% / 100%, 80% / 80%). Shipped with
#: ``MirageConfig.kappa`` 0.8 on the mean of both directions after a scoreboard sweep
#: (research/results/scoreboard-choice.md).
#: Session 11 added ``restatement`` and reran the comparison at the same honest cost (11 of 300
#: honest fit sets; ``research/coordination_isolated.py --budget
#: answer_focus,novelty,cosine@0.572``). As a plain share of the query's content tokens it won
#: (concentration + novelty + cosine + restatement at 0.276: attack-only gpe-eval pages caught
#: 84% / 88% at k = 5, fit / report, NQ poisons alone 96% / 96%; on the scoreboard J3 +128.0
#: against +124.4), but it blocked the LlamaIndex example's three honest Everest pages: a
#: direct answer restates all of a three-word question. With :data:`RESTATEMENT_ALLOWANCE`
#: the rule keeps the session-7 combination below, so the isolated scoring is unchanged.
#: The main threshold was lowered on the scoreboard's fit split (session 6), and the isolated
#: one with it before session 7 replaced the isolated signals: the rules above
#: (3.773, 1.169) bound the honest sets *flagged*, but a flag on honest evidence mostly costs
#: delivered claims, not the pass, since the gate passes what remains. A sweep of both
#: (``MirageConfig.coordination_threshold`` / ``coordination_isolated_threshold``; 1.5–4.5 and
#: 0.8–2.0) was decided by ``research/choose_default.py`` (rule J3:
#: research/results/scoreboard-choice.md): 2.5 and 0.8. Fit / report split against 3.773 /
#: 1.169: wrong answer in gold + 5 evidence 13% / 7% (was 22% / 16%), attack-only gpe-eval
#: evidence passed 36% / 23% (48% / 37%), clean gpe-eval pass 83.5% / 77.5% (87% / 80%),
#: corroborated clean claims delivered 52% / 48% (69% / 64%).
#: Session 13 added ``insistence`` and ``detail`` (centers / scales fit as above, rounded to
#: three places) and reran both comparisons. The whole-evidence picks (lexical + novelty +
#: cosine + restatement + insistence + detail at 0.615; with shortqa's honest sets in the
#: pool, concentration + answer_focus + novelty + cosine + detail at 0.384) and the group pick
#: each lost on the scoreboard's fit split (research/results/scoreboard-choice.md, session
#: 13): what spares honest short answers spares fabricated pages too. The scoring below is
#: unchanged.
#: Needs embeddings (``tightness``, ``cosine``); without them :data:`TEXT_MODEL` applies.
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
    min_tokens=14.0,
    isolated_signals=("answer_focus", "novelty", "cosine"),
    isolated_threshold=0.572,
    provenance="research/coordination_signals.py, seed 0 (fit half); main threshold: "
    "research/choose_default.py (scoreboard fit split, rule J3); isolated signals and "
    "threshold: research/coordination_isolated.py (session 7; rerun in session 11)",
)


#: The best combination without embeddings, fit the same way: ``answer_focus`` + ``novelty``.
#: Held out: honest sets flagged 4%; caught 32% / 33% / 30% / 23% (original / paraphrased /
#: synonym / dispersed), the poisons alone 35% / 25% (original / dispersed); query snippets
#: (1–2 sentences per page, benchmarks/snippets.py) flagged 3%. Length floor 13 content tokens
#: (fit half; held out it changes no figure).
TEXT_MODEL = replace(
    DEFAULT_MODEL,
    signals=("answer_focus", "novelty"),
    threshold=3.440,
    min_tokens=13.0,
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
) -> CoordinationModel:
    """:data:`DEFAULT_MODEL` (with ``embeddings``) or :data:`TEXT_MODEL`, with its signals,
    thresholds and isolated signals replaced where given (``MirageConfig.coordination_signals``
    / ``coordination_threshold`` / ``coordination_isolated_threshold`` /
    ``coordination_isolated_signals``). The text model has no isolated scoring, so the
    isolated ones leave it unchanged."""
    model = DEFAULT_MODEL if embeddings else TEXT_MODEL
    changes: dict[str, object] = {}
    if signals is not None:
        changes["signals"] = tuple(signals)
    if threshold is not None:
        changes["threshold"] = float(threshold)
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
) -> list[GroupSignals]:
    """Every candidate group of the query's evidence, scored by ``model``, most suspicious
    first; ``[g for g in result if g.flagged]`` are the coordinated ones.

    ``domains`` name each passage's publisher (pairs of one publisher never count);
    ``embeddings`` (L2-normalized rows) enable the ``cosine`` and ``tightness`` signals;
    ``model`` defaults to :data:`DEFAULT_MODEL` with embeddings, :data:`TEXT_MODEL` without.
    """
    if model is None:
        model = model_for(embeddings is not None)
    profile = evidence_profile(query, texts, domains, embeddings)
    out = [
        model.score(group_signals(profile, members, anchors))
        for members, anchors in candidate_groups(profile, model.min_publishers)
    ]
    return sorted(
        out, key=lambda g: (-(g.score if math.isfinite(g.score) else -math.inf), g.passages)
    )
