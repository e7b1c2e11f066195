"""What is not a factual statement is not a claim.

Web evidence arrives with questions, search-snippet titles cut off with "…", headlines, site
names ("… | Example News"), bylines, list introductions ("Symptoms include:") and navigation
text. None of them asserts anything, yet an NLI model pairs them with real claims and often
calls the pair a contradiction (measured: a question paired with a headline on its own topic
came out p_contra 0.97). :func:`non_claim_reason` names why a sentence is not a claim, or
returns ``None`` for a statement; the engine skips the named ones and reports them in the
verdict.

Headlines: a title-case line without end punctuation ("Storm Topples Old Oak Tree") is not a
claim. Its words are capitalized for typography, which the answer-slot rule and a small NLI model read
as names, and the article body restates what it says in a sentence that is a claim.
"""

from __future__ import annotations

import re

__all__ = ["NON_CLAIM_REASONS", "is_question", "non_claim_reason"]

#: Every reason :func:`non_claim_reason` can give, in the order it checks them.
NON_CLAIM_REASONS: tuple[str, ...] = (
    "question",
    "truncated",
    "boilerplate",
    "list intro or item",
    "headline",
    "fragment",
)

_WORD = re.compile(r"[^\W\d_][\w'’-]*")
# "…" or "..." where a search snippet was cut; a detached " ." ends snippet titles
# ("Eiffel Tower - Example Travel .") but also real sentences whose link text was stripped.
_TRUNCATED = re.compile(r"(?:…|\.\.\.)[\"'”’)\]]*$")
_DETACHED = re.compile(r"\s[.]$")
_QUESTION = re.compile(r"[?？][\"'”’)\]」]*$")
_TERMINAL = re.compile(
    r"[.!。！．][\"'”’)\]」]*(?:\d{1,3})?$"
)  # "...hospitalized.73": a footnote digit
_DANGLING = re.compile(r"[:;,–—-]$")
_LIST_INTRO = re.compile(r":$")
_BOILERPLATE = re.compile(
    r"""(?ix)
    \s\|\s                                   # "Title | Site name", "Home | News"
    | (?:^|\s)[›»>]\s.*\s[›»>]\s            # breadcrumbs "Home > News > World"
    | ^(?:published|updated|last\ updated|posted|modified)(?:\ on)?[:\s]+\S*\d   # datelines
    | ^(?:skip\ to|jump\ to|read\ more|click\ here|sign\ up|subscribe|share\ (?:this|on)
        |follow\ us|advertisement|related\ (?:articles|stories|posts)|table\ of\ contents
        |copyright\ (?:©|\(c\)|\d)|©)\b
    | all\ rights\ reserved
    """
)
# "By Jane Doe", "By Jane Doe and John Roe, Reuters": case-sensitive, short.
_BYLINE = re.compile(r"^(?:By|Written by|Posted by|Reviewed by|Photo by)\s+[A-Z][\w.'’-]*(?:\s|$)")
# Function words that stay lower-case in a title-case headline.
_TITLE_SMALL = frozenset(
    "a an and as at but by for from in into nor of on onto or over the to up via vs with".split()
)


def _is_title_case(words: list[str]) -> bool:
    content = [w for w in words if w.lower() not in _TITLE_SMALL]
    if len(content) < 2:
        return False
    upper = sum(w[0].isupper() for w in content)
    return upper / len(content) >= 0.8


def is_question(sentence: str) -> bool:
    """Whether ``sentence`` ends with a question mark (closing quotes and brackets allowed)."""
    return _QUESTION.search(sentence.strip()) is not None


def non_claim_reason(sentence: str) -> str | None:
    """Why ``sentence`` (whitespace-normalized) is not a factual claim, or ``None``.

    Reasons: ``"question"`` (ends with "?"), ``"truncated"`` (ends with "…" or "...", or a
    title or fragment ending in a detached " ."), ``"boilerplate"`` (site names after " | ",
    breadcrumbs, bylines, datelines, calls to action), ``"list intro or item"`` (ends with ":",
    or a short piece ending in ";", "," or a dash), ``"headline"`` (title case, no end
    punctuation) and ``"fragment"`` (no end punctuation and fewer than six words). An
    unpunctuated sentence of six or more words that is not title case is kept: extracted web
    text often drops the final period of real statements, or ends a quote at a comma.
    """
    text = sentence.strip()
    if not text:
        return "fragment"
    if _QUESTION.search(text):
        return "question"
    if _TRUNCATED.search(text):
        return "truncated"
    if _BOILERPLATE.search(text) or (_BYLINE.match(text) and len(text.split()) <= 10):
        return "boilerplate"
    if _LIST_INTRO.search(text):
        return "list intro or item"
    detached = bool(_DETACHED.search(text))
    if not detached and _TERMINAL.search(text):
        return None
    words = _WORD.findall(text)
    if _is_title_case(words):
        return "truncated" if detached else "headline"
    if len(words) < 6:
        if detached:
            return "truncated"
        return "list intro or item" if _DANGLING.search(text) else "fragment"
    return None
