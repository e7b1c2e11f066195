"""Swapped-fact pairs: a contradiction between two differently worded sentences.

The minimal-edit contradictions of :class:`training.augment.Augmenter` change one value in an
otherwise identical sentence, so a model trained on them can learn that a contradiction is a
near-copy with one word changed, and read a reworded sentence that states another value
("The tower was finished in 1925 for the fair" against "Construction of the Eiffel Tower was
completed in 1889") as compatible. Poisoned passages are exactly such rewordings.

A swapped-fact pair starts from an *entailment* pair of a training source, whose hypothesis
words the premise's content its own way, and swaps a value in the hypothesis that the premise
states too (a number, a year, a month or weekday, a named place, nationality or person). The
premise entailed the hypothesis, so it contradicts the hypothesis with that fact swapped; the
pair keeps the original's wording distance. Negation and antonym edits are left out: they need
not touch a stated fact.

Both orders are used (contradiction is symmetric), and every source pair is used at most once.
"""

from __future__ import annotations

import random
import re
from collections.abc import Sequence

from training.augment import Augmenter, in_random_order
from training.data import NLIExample

__all__ = ["FACT_KINDS", "swapped_fact", "swapped_fact_pairs"]

#: the kinds of :meth:`Augmenter.contradiction` that change a stated value
FACT_KINDS = ("number", "year", "date", "entity")

_TOKEN = re.compile(r"[A-Za-z]+|\d+(?:[.,]\d+)*")


def _tokens(text: str) -> list[str]:
    return [t.lower() for t in _TOKEN.findall(text)]


def swapped_fact(
    premise: str, hypothesis: str, augmenter: Augmenter, rng: random.Random
) -> tuple[str, str] | None:
    """``(hypothesis with a swapped fact, kind)``, or ``None`` when no value of the hypothesis
    that the premise also states can be swapped. The swap must remove at least one token and
    every removed token must occur in the premise (so the changed fact is one it states), and
    the hypothesis must not be a near-copy of the premise (that is a minimal edit, which the
    augmenter already makes)."""
    edit = augmenter.contradiction(hypothesis, rng, kinds=FACT_KINDS)
    if edit is None:
        return None
    before, after, premise_tokens = _tokens(hypothesis), _tokens(edit.text), _tokens(premise)
    removed = set(before) - set(after)
    stated = set(premise_tokens)
    if not removed or not removed <= stated:
        return None
    if set(before) <= stated and len(before) >= 0.8 * len(premise_tokens):
        return None
    return edit.text, edit.kind


def swapped_fact_pairs(
    entailments: Sequence[NLIExample],
    augmenter: Augmenter,
    n: int,
    seed: int,
    *,
    source: str = "swapped-facts",
    with_originals: bool = False,
) -> list[NLIExample]:
    """``n`` contradiction pairs (fewer when the entailment pairs run out): a premise beside its
    entailed hypothesis with one stated fact swapped, in random order. Pairs that are not
    entailments are skipped.

    ``with_originals``: each contradiction is followed by its source pair in the same order,
    unswapped: entailment when the premise comes first, neutral when the hypothesis does (it
    states less than the premise), so that the swapped value, not the wording or the order,
    is what tells the two apart. ``n`` then counts both."""
    rng = random.Random(seed)
    out: list[NLIExample] = []
    for e in in_random_order([e for e in entailments if e.label == 0], rng):
        if len(out) >= n:
            break
        premise, hypothesis = e.premise, e.hypothesis
        if not 4 <= len(hypothesis.split()) <= 50:
            continue
        swapped = swapped_fact(premise, hypothesis, augmenter, rng)
        if swapped is None:
            continue
        text, kind = swapped
        forward = rng.random() < 0.5
        p, h = (premise, text) if forward else (text, premise)
        out.append(NLIExample(p, h, 2, f"{source}:{kind}"))
        if with_originals and len(out) < n:
            p, h = (premise, hypothesis) if forward else (hypothesis, premise)
            out.append(NLIExample(p, h, 0 if forward else 1, f"{source}:original"))
    return out
