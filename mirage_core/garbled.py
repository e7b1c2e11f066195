"""Garbled passages: text whose words are largely misspelt is not evidence.

A passage run through a typo attack (GARAG's copies of the gold passage: "Pat McCormick wass
en American acter anhd camedy writter") cannot be read by the NLI model: its claims neither
corroborate nor contradict reliably, and its near-copies of an honest page look to the
coordination signals like planted copies, so the honest page is flagged with them. With
``MethodSettings.garbled_threshold`` set, a passage is *garbled* when at least that share of
its lower-case words are misspelt; it is quarantined like a planted passage
(:mod:`mirage_core.quarantine`) and left out of the coordination signals, so the pages around
it are judged on their own.

A word is *known* when the packaged NLI model's tokenizer holds it whole (its uncased
WordPiece vocabulary, about 21,000 whole words) or holds its stem under a common inflection
(``-s``, ``-es``, ``-ed``, ``-ing``, ``-er``, ``-ly``, …). A word is *misspelt* when it is not
known and one edit (a letter deleted, inserted, replaced, or two swapped) makes it a known
word: "wass", "acter", "anhd". Rare words that are spelt right are seldom one edit from a
common one ("aripiprazole", "carboxylate"), so technical pages are not read as garbled the way
a plain out-of-vocabulary count reads them (``research/garbled_shares.py``). Capitalized words
are names and are not counted; nor are passages with fewer than :data:`MIN_WORDS` lower-case
words, whose share says little.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from functools import lru_cache
from pathlib import Path

from mirage_core.memo import text_memo

__all__ = [
    "MIN_WORDS",
    "copied_passages",
    "garbled_passages",
    "garbled_share",
    "is_known_word",
    "is_misspelt",
]

#: Fewer lower-case words than this: the passage is not judged.
MIN_WORDS = 8
#: The packaged NLI model's WordPiece vocabulary (uncased BERT).
VOCAB_FILE = Path(__file__).resolve().parent / "models" / "mirage-nli-minilm-l6" / "vocab.txt"

# a lower-case word standing alone: not part of a name, a contraction or a hyphenated word
_WORD = re.compile(r"(?<![\w'’-])[a-z]+(?![\w'’-])")
# longest first, so "tries" is read as "try" + "ies" before "trie" + "s"
_INFLECTIONS = ("ies", "ied", "ing", "ers", "est", "es", "ed", "er", "ly", "s", "d")
_LETTERS = "abcdefghijklmnopqrstuvwxyz"


@lru_cache(maxsize=1)
def _vocabulary() -> frozenset[str]:
    with VOCAB_FILE.open(encoding="utf-8") as f:
        return frozenset(w for w in (line.strip() for line in f) if w.isalpha() and w.islower())


def is_known_word(word: str) -> bool:
    """Whether a lower-case ``word`` is in the vocabulary, whole or as an inflected stem."""
    vocab = _vocabulary()
    if word in vocab:
        return True
    for ending in _INFLECTIONS:
        if word.endswith(ending) and len(word) - len(ending) >= 3:
            stem = word[: -len(ending)]
            if stem in vocab or stem + "e" in vocab:
                return True
            if ending in ("ies", "ied") and stem + "y" in vocab:
                return True
    return False


def _one_edit(word: str) -> set[str]:
    """Every string one edit from ``word``: a letter deleted, swapped with the next, replaced
    or inserted."""
    cuts = [(word[:i], word[i:]) for i in range(len(word) + 1)]
    return (
        {a + b[1:] for a, b in cuts if b}
        | {a + b[1] + b[0] + b[2:] for a, b in cuts if len(b) > 1}
        | {a + c + b[1:] for a, b in cuts if b for c in _LETTERS}
        | {a + c + b for a, b in cuts for c in _LETTERS}
    )


@lru_cache(maxsize=1)
def _longest_known() -> int:
    return max(map(len, _vocabulary()))


@text_memo()  # words recur across passages and queries
def is_misspelt(word: str) -> bool:
    """Whether a lower-case ``word`` is unknown and one edit from a known word."""
    # a word two letters longer than any known word is no edit of one (and a run of
    # thousands of letters would have millions of edits)
    if len(word) > _longest_known() + 1 or is_known_word(word):
        return False
    vocab = _vocabulary()
    return any(len(e) > 1 and e in vocab for e in _one_edit(word))


def garbled_share(text: str) -> float | None:
    """The share of ``text``'s lower-case words that are misspelt (``None`` below
    :data:`MIN_WORDS` of them)."""
    words = _WORD.findall(text)
    if len(words) < MIN_WORDS:
        return None
    return sum(is_misspelt(w) for w in words) / len(words)


def garbled_passages(texts: Sequence[str], threshold: float) -> tuple[int, ...]:
    """Indices of ``texts`` whose :func:`garbled_share` is at least ``threshold``."""
    out = []
    for i, text in enumerate(texts):
        share = garbled_share(text)
        if share is not None and share >= threshold:
            out.append(i)
    return tuple(out)


def copied_passages(texts: Sequence[str], garbled: Sequence[int]) -> tuple[int, ...]:
    """Those of the ``garbled`` passages (indices of ``texts``) that are typo'd copies of a
    passage that is not garbled: at least half of their lower-case words are words of that one
    passage, as written or one edit away (the edit a typo makes). Such copies are a typo
    attack on the page they copy (GARAG), and quarantining them leaves that page to answer; a
    garbled passage that copies none (misspelt text put beside a page) is unreadable, nothing
    more."""
    skip = set(garbled)
    others = [set(_WORD.findall(t)) for i, t in enumerate(texts) if i not in skip]
    out = []
    for g in garbled:
        words = _WORD.findall(texts[g])
        if words and any(
            2 * sum(w in page or _near(w, page) for w in words) >= len(words) for page in others
        ):
            out.append(g)
    return tuple(out)


def _near(word: str, page: set[str]) -> bool:
    """Whether ``page`` holds a word one edit from ``word`` (a word too long to be any known
    word's edit is no typo: its edits are not generated)."""
    return len(word) <= _longest_known() + 2 and not _one_edit(word).isdisjoint(page)
