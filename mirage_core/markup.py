"""Markup in retrieved text: HTML tags are layout, not words.

Retrievers over web pages often hand on raw HTML chunks (a loader without an HTML-to-text step).
Read as text, ``1889.</p><p>It stands`` is one sentence glued across two paragraphs, a claim
carries ``<div><p>`` into the NLI model and the prompt, and ``AT&amp;T`` is not the name the
other pages write. :func:`markup_edits` lists what normalization (:mod:`mirage_core.normalize`)
replaces, with offsets into the caller's text, so a claim's span still points into it:

- a tag of HTML's vocabulary that breaks the line or the block (``<p>``, ``</div>``,
  ``<br/>``, ``<li>``) and a comment (``<!-- … -->``) become one space; an inline tag
  (``<a href="…">``, ``<b>``, ``<span>``) becomes nothing, as a browser shows
  ``Eif<b>fel</b>`` as one word;
- a ``<script>``, ``<style>``, ``<noscript>`` or ``<template>`` element, content included, becomes
  one space: what it holds is never shown to a reader;
- a character reference (``&amp;``, ``&#39;``, ``&nbsp;``) becomes the character it names.

Only tags named in :data:`HTML_TAGS`, bare or with ``name=value`` attributes, are read as tags,
so "a <b and c> d" in a formula or "<3" stays text; an unknown reference ("&foo;") stays as
written.
"""

from __future__ import annotations

import html
import re

__all__ = ["HTML_TAGS", "INLINE_TAGS", "markup_edits"]

#: Element names read as markup.
HTML_TAGS = frozenset(
    "a abbr address article aside b bdi bdo blockquote body br button caption center cite code "
    "col colgroup dd del details dfn div dl dt em figcaption figure font footer form h1 h2 h3 "
    "h4 h5 h6 head header hr html i iframe img input ins kbd label legend li link main mark "
    "meta nav ol p picture pre q s samp section small source span strike strong sub summary "
    "sup table tbody td tfoot th thead time title tr tt u ul var wbr".split()
)
#: Elements that flow inside a line: their tags separate nothing.
INLINE_TAGS = frozenset(
    "a abbr b bdi bdo cite code del dfn em font i ins kbd mark q s samp small span strike "
    "strong sub sup time tt u var wbr".split()
)
_HIDDEN = ("script", "style", "noscript", "template")
# an element's attributes: at least one "name=value" ("<b and c>" in a formula has none), no
# "<" or ">" inside, and bounded, so that a stray "<" never reads far into the text
_ATTRIBUTES = r"(?:\s[^<>=]{0,2000}=[^<>]{0,2000})?"
_TAG = re.compile(
    r"</?("
    + "|".join(sorted(HTML_TAGS | set(_HIDDEN), key=len, reverse=True))
    + r")\b"
    + _ATTRIBUTES
    + r"\s*/?>",
    re.IGNORECASE,
)
_OPEN_HIDDEN = re.compile(r"<(" + "|".join(_HIDDEN) + r")\b" + _ATTRIBUTES + r"\s*>", re.IGNORECASE)
_REFERENCE = re.compile(r"&(?:#[0-9]{1,7}|#[xX][0-9a-fA-F]{1,6}|[A-Za-z][A-Za-z0-9]{1,31});")


def _closed_spans(raw: str, lowered: str) -> list[tuple[int, int]]:
    """Comments and hidden elements, each from its opening to its closing. Each closing is
    found with one forward search; where none follows, none follows a later opening either,
    so unclosed markup costs one pass, not one per opening."""
    spans: list[tuple[int, int]] = []
    start = raw.find("<!--")
    while start >= 0:
        close = raw.find("-->", start + 4)
        if close < 0:
            break
        spans.append((start, close + 3))
        start = raw.find("<!--", close + 3)
    unclosed: set[str] = set()
    for match in _OPEN_HIDDEN.finditer(raw):
        name = match.group(1).lower()
        if name in unclosed:
            continue
        close = lowered.find("</" + name, match.end())
        end = lowered.find(">", close) if close >= 0 else -1
        if end < 0:
            unclosed.add(name)
            continue
        spans.append((match.start(), end + 1))
    return spans


def markup_edits(raw: str) -> list[tuple[int, int, str]]:
    """``(start, end, replacement)`` for each piece of markup in ``raw``, in order and not
    overlapping (see the module's docstring); ``[]`` when ``raw`` holds none."""
    if "<" not in raw and "&" not in raw:
        return []
    edits: list[tuple[int, int, str]] = []
    if "<" in raw:
        edits += [(start, end, " ") for start, end in _closed_spans(raw, raw.lower())]
        edits += [
            (m.start(), m.end(), "" if m.group(1).lower() in INLINE_TAGS else " ")
            for m in _TAG.finditer(raw)
        ]
    if "&" in raw:
        for m in _REFERENCE.finditer(raw):
            named = html.unescape(m.group(0))
            if named != m.group(0):
                edits.append((m.start(), m.end(), named))
    # the longest first where two start together; what lies inside a comment or a hidden
    # element goes with it
    edits.sort(key=lambda e: (e[0], -e[1]))
    kept: list[tuple[int, int, str]] = []
    for edit in edits:
        if kept and edit[0] < kept[-1][1]:
            continue
        kept.append(edit)
    return kept
