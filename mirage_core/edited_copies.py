"""Edited copies: a supporter in nearly the claim's own words vouches only for the words it shares.

Pollution of real pages is a minimal edit of a true sentence (``mirage_core.pollution``): a
word swapped for its opposite ("gained fame" → "lost fame"), a negation inserted, a degree
shifted ("most" → "few"), a frame put around it ("Early reports claimed that …, but this was
later disputed"), or a detail attached. The other pages still state the true sentence, nearly
word for word, and the NLI model often reads the true sentence as support for its edited copy:
the two share all but the edit. Fact coverage (:func:`mirage_core.corroboration.claim_facts`)
stops an edit of a number, a month or a name, and nothing else.

Here a supporter counts only for the words it states. When the supporting sentence and the
claim share most of their content words (Jaccard at least ``min_overlap``) they are copies of
one sentence, and every word of the claim the supporter lacks is what the claim changed or
added: the supporter does not corroborate it. Negations and quantifiers count as words here
(the shared stopword list drops them), and "didn't" reads as "did" + "not". A genuine
paraphrase shares fewer of its words and is left to NLI and fact coverage; a supporter that
states *more* than the claim (the claim is the plain sentence, the supporter its framed copy)
still covers every word of it.

Everything is numpy over the supporting edges (:func:`mirage_core.adjacency.tokens_stated`, as
fact coverage does); no loop over claim pairs.
"""

from __future__ import annotations

import re
from collections.abc import Sequence

import numpy as np

from mirage_core.adjacency import tokens_stated
from mirage_core.memo import text_memo
from mirage_core.types import Claim

__all__ = ["SCOPE_WORDS", "copy_words", "edited_copies"]

#: Words that turn a sentence's meaning though a stopword list drops them: negations and
#: quantifiers of degree.
SCOPE_WORDS = frozenset(
    """not no nor never none neither without cannot few fewer most all some only more less
    least many much little""".split()
)
_WORD = re.compile(r"[a-z0-9]+(?:['’][a-z]+)?")


@text_memo()
def _scope_words(text: str) -> frozenset[str]:
    out = set()
    for w in _WORD.findall(text.lower()):
        if w.endswith(("n't", "n’t")):
            out.add("not")
        elif w in SCOPE_WORDS:
            out.add(w)
    return frozenset(out)


def copy_words(claim: Claim) -> frozenset[str]:
    """The words an edited copy is read by: the claim's content tokens, its negations and its
    quantifiers."""
    return claim.tokens | _scope_words(claim.text)


def edited_copies(
    claims: Sequence[Claim], premise: np.ndarray, hypothesis: np.ndarray, min_overlap: float
) -> np.ndarray:
    """Per supporting edge ``premise[k]`` → ``hypothesis[k]``: whether the supporter is a copy
    of the claim (Jaccard of :func:`copy_words` ≥ ``min_overlap``) that lacks one of the
    claim's words, so that it does not vouch for it."""
    if not 0 < min_overlap <= 1:
        raise ValueError(f"min_overlap must be in (0, 1], got {min_overlap}")
    if not premise.size:
        return np.zeros(0, dtype=bool)
    vocab: dict[str, int] = {}
    words = [[vocab.setdefault(t, len(vocab)) for t in copy_words(c)] for c in claims]
    sizes = np.fromiter((len(w) for w in words), dtype=np.int64, count=len(words))
    shared = tokens_stated(words, premise, hypothesis)  # the claim's words its supporter states
    union = sizes[premise] + sizes[hypothesis] - shared
    overlap = np.divide(shared, union, out=np.zeros(hypothesis.size), where=union > 0)
    lacking = shared < sizes[hypothesis]
    return (overlap >= min_overlap) & lacking
