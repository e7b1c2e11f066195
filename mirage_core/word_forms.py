"""Word forms: what a query's word and a claim's word are matched on.

The answer-slot rule (:mod:`mirage_core.answer_conflict`) finds the question's content words in
a claim by a 5-character stem (:func:`mirage_core.relevance.stem`), so "completed" meets
"completion". A prefix does not reach an irregular form
or the inflections of a short root: "wrote" and "written" ("writt"), "sang" and "sung",
"played" and "plays" ("playe", "plays") stay apart, and a page that says "was written by" does
not restate "who wrote".

With ``MethodSettings.answer_word_forms="lemma"`` a word is first read as its dictionary lemma, then
cut to the same stem: "wrote", "written" and "writes" are "write", "played" and "plays"
"play", "largest" "large". The lemma comes from LemmInflect's lookup tables (no model, no
context): a word that can be a verb takes its first verb lemma, else its first noun,
adjective or adverb lemma, else it stays as written. A word is always read the same way, so a
query and a claim that hold one word still match; what changes is which different words meet
("left" meets "leave", "born" meets "bear"). Numbers stay whole.
"""

from __future__ import annotations

from functools import lru_cache
from typing import Any

__all__ = ["WORD_FORMS", "lemma", "require_lemmas"]

#: The readings of ``MethodSettings.word_forms``.
WORD_FORMS: tuple[str, ...] = ("prefix", "lemma")
#: The parts of speech whose lemma a word takes, in this order.
_PARTS = ("VERB", "NOUN", "ADJ", "ADV")


def require_lemmas() -> Any:
    """The ``lemminflect`` module, or an ImportError that says how to install it."""
    try:
        import lemminflect
    except ImportError as exc:  # pragma: no cover - a base dependency
        raise ImportError('word_forms="lemma" needs lemminflect: pip install lemminflect') from exc
    return lemminflect


@lru_cache(maxsize=65_536)
def lemma(token: str) -> str:
    """``token``'s dictionary lemma (a verb's first; see the module docstring), or ``token``
    itself when the tables do not know it or it holds a digit."""
    if not token or any(ch.isdigit() for ch in token):
        return token
    found = require_lemmas().getAllLemmas(token)
    for part in _PARTS:
        if found.get(part):
            return found[part][0]
    return token
