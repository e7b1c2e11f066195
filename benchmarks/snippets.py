"""Short-snippet evidence: gpe-eval passages cut the way chunked retrievers return them.

The scoreboard's gpe-eval evidence keeps the first 1,200 characters of each web page; a chunked
retriever instead returns the one or two sentences of a page that best match the query. Such
snippets are short, query-focused and agree with each other: exactly what coordination signals
look for in planted text, so honest snippets are where those signals' false alarms show.

:func:`snippet` picks, from the first ``scan_chars`` characters of a page (whole sentences), the
window of one or two consecutive sentences whose content tokens cover most of the query's
content tokens (lexical, like BM25's matching terms), preferring windows of at least
``min_chars`` characters and at most ``max_chars``; a single sentence longer than ``max_chars``
stands alone. :func:`snippet_dataset` applies it to every passage of a gpe-eval dataset (clean
and poisoned alike), keeping queries, regimes, labels and the fit/report split.
"""

from __future__ import annotations

import copy

from mirage_core.claims import content_tokens, split_sentences
from mirage_core.evaluation.instances import Dataset
from mirage_core.pollution import PollutedPassage
from mirage_core.types import Passage

MIN_CHARS = 150
MAX_CHARS = 300
SCAN_CHARS = 6000


def snippet(
    text: str,
    query: str,
    min_chars: int = MIN_CHARS,
    max_chars: int = MAX_CHARS,
    scan_chars: int = SCAN_CHARS,
) -> str:
    """The 1–2 consecutive sentences of ``text`` most relevant to ``query`` (see module doc)."""
    head = text[:scan_chars]
    spans = split_sentences(head)
    if not spans:
        return text[:max_chars].strip()
    q = content_tokens(query)
    sents = [head[a:b] for a, b in spans]
    toks = [content_tokens(s) for s in sents]
    best: tuple[tuple[float, int, int], str] | None = None
    for i, s in enumerate(sents):
        windows = [(s, toks[i])]
        if i + 1 < len(sents):
            joined = f"{s} {sents[i + 1]}"
            if len(joined) <= max_chars:
                windows.append((joined, toks[i] | toks[i + 1]))
        for w, t in windows:
            if len(w) > max_chars and len(windows) > 1:
                continue
            cover = len(t & q) / len(q) if q else 0.0
            # coverage first, then reach min_chars, then the earliest window
            key = (round(cover, 6), min(len(w), min_chars), -i)
            if best is None or key > best[0]:
                best = (key, w)
    assert best is not None
    return best[1]


def _cut(item: Passage | PollutedPassage, query: str) -> Passage | PollutedPassage:
    if isinstance(item, PollutedPassage):
        return PollutedPassage.whole(
            Passage(
                snippet(item.text, query),
                source=item.source,
                domain=item.domain,
                score=item.score,
                metadata=dict(item.metadata),
            ),
            item.family,
        )
    return Passage(
        snippet(item.text, query),
        source=item.source,
        domain=item.domain,
        score=item.score,
        metadata=dict(item.metadata),
    )


def snippet_dataset(ds: Dataset, name: str) -> Dataset:
    """A copy of gpe-eval dataset ``ds`` with every passage cut to its query snippet."""
    out = copy.copy(ds)
    out.name = name
    cache: dict[tuple[int, str], Passage | PollutedPassage] = {}
    instances = []
    for inst in ds.instances:
        items = []
        for it in inst.items:
            key = (id(it), inst.query)
            if key not in cache:
                cache[key] = _cut(it, inst.query)
            items.append(cache[key])
        new = copy.copy(inst)
        new.items = items
        instances.append(new)
    out.instances = instances
    return out
