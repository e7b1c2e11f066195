"""The part of a passage the coordination signals read (``MethodSettings.coordination_window``).

Every coordination signal is a share of a passage's content tokens, and the model's centers
and scales are those of honest pages cut to 1,200 characters (at most 119 content tokens:
``research/coordination_length.py``). A full web page lies outside that range: ten honest pages
about one person all name the person, resemble each other and leave each page few words of its
own, so the whole evidence can score as planted. A length ceiling would be an evasion (pad a
planted passage past it); a window is not: each passage is read as at most ``max_tokens``
content tokens of its own sentences, so a long page and a padded poison are both scored at
the length the model knows. (It does not make agreeing biographies look independent: their
answer sentences and their similarity remain, ``docs/decisions.md``.)

Two orders fill the window:

- ``"relevance"``: the sentences that hold most of the query's content tokens first (ties in
  passage order). Filler a planted passage is padded with shares no query word and is read
  last, wherever it stands.
- ``"lead"``: the passage's opening sentences, as the calibration pages were cut.

The window is the longest run of sentences, in that order, within the budget; they are kept
in passage order. A passage within the budget is read whole, so
evidence of the length the model was fit on is scored exactly as without a window.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Literal

from mirage_core.claims import content_tokens

__all__ = ["WindowOrder", "signal_window"]

WindowOrder = Literal["relevance", "lead"]

Span = tuple[int, int]


def signal_window(
    text: str,
    spans: Sequence[Span],
    query_tokens: frozenset[str],
    max_tokens: int,
    order: WindowOrder = "relevance",
) -> tuple[str, list[Span]]:
    """``text`` cut to its sentences (``spans``) in ``order`` up to the first that would take the
    window past ``max_tokens`` distinct content tokens; returns the window's text and its
    sentence spans. The first sentence in ``order`` is always read, however long."""
    if len(content_tokens(text)) <= max_tokens or len(spans) <= 1:
        return text, list(spans)
    sentence_tokens = [content_tokens(text[a:b]) for a, b in spans]
    ranked = list(range(len(spans)))
    if order == "relevance":
        ranked.sort(key=lambda i: (-len(sentence_tokens[i] & query_tokens), i))
    seen: set[str] = set()
    chosen: list[int] = []
    for i in ranked:
        grown = seen | sentence_tokens[i]
        if chosen and len(grown) > max_tokens:
            break
        seen = grown
        chosen.append(i)
    parts: list[str] = []
    out_spans: list[Span] = []
    at = 0
    for i in sorted(chosen):
        a, b = spans[i]
        if parts:
            at += 1  # the joining space
        parts.append(text[a:b])
        out_spans.append((at, at + (b - a)))
        at += b - a
    return " ".join(parts), out_spans
