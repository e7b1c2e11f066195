"""The passages of the HTML report: each passage's text with its sentences marked.

A sentence that became a claim is marked with its state: in S* (verified, or held back when the
gate blocked), rejected (not in S* and contradicting a claim of S*), or not selected (its tip
names the facts it was held back for, under ``lone_facts``); a sentence the claim filter skipped
is marked as not a claim. Each passage's heading names its source (a
link only for http(s) URLs), its publisher, its group and whether it was quarantined. Every text
from the passages is HTML-escaped.

The claim states are named here (:data:`SELECTED`, :data:`REJECTED`, :data:`UNSELECTED`, also
the marks' CSS classes); the page (:mod:`mirage_core.report_html`) decides each claim's state.
"""

from __future__ import annotations

from collections.abc import Sequence
from itertools import pairwise
from typing import TYPE_CHECKING

from mirage_core.report_values import _e, _num, _relevance
from mirage_core.types import PassageLike, to_passage

if TYPE_CHECKING:  # pragma: no cover
    from mirage_core.verdict import Verdict


# Claim states, each with its CSS class and the words the legend uses for it.
SELECTED, REJECTED, UNSELECTED = "sel", "rej", "uns"


def _non_claims(verdict: Verdict) -> dict[int, list[tuple[int, int, str]]]:
    """Sentences the claim filter skipped, per passage: ``(start, end, reason)``."""
    out: dict[int, list[tuple[int, int, str]]] = {}
    items = verdict.extras.get("non_claims") if isinstance(verdict.extras, dict) else None
    for it in items or ():
        try:
            out.setdefault(int(it["passage"]), []).append(
                (int(it["start"]), int(it["end"]), str(it.get("reason", "")))
            )
        except (KeyError, TypeError, ValueError):
            continue
    return {p: sorted(v) for p, v in out.items()}


def _sentence(verdict: Verdict, i: int, text: str, state: str, against: dict[int, list[int]]):
    c = verdict.claims[i]
    s = _num(float(verdict.scores[i]), 2) if verdict.scores.size else "n/a"
    n = int(verdict.support[i]) if verdict.support.size else 0
    why = {
        SELECTED: "in S*" + ("" if verdict.passed else " (held back: the gate blocked)"),
        REJECTED: "rejected: contradicts S* claim(s) "
        + ", ".join(f"[{j}]" for j in against.get(i, [])),
        UNSELECTED: "not selected",
    }[state]
    lone = dict(verdict.lone_facts).get(i)
    if lone:
        why = f"held back: no other source states {', '.join(lone)}"
    rel = _relevance(verdict)
    about = "" if rel is None else f", query relevance {rel[i]:.2f}"
    tip = f"[{i}] {why}; s={s}, n={n}{about}, group {c.group or c.domain}"
    return (
        f'<mark id="claim-{i}" class="{state}" title="{_e(tip)}">'
        f'<sup class="ci">{i}</sup>{_e(text)}</mark>'
    )


def _passage_sections(
    verdict: Verdict,
    passages: Sequence[PassageLike] | None,
    states: Sequence[str],
    against: dict[int, list[int]],
) -> str:
    by_passage: dict[int, list[int]] = {}
    for c in verdict.claims:
        by_passage.setdefault(c.passage_index, []).append(c.index)
    items = [to_passage(p) for p in passages] if passages is not None else None
    count = len(items) if items is not None else verdict.n_passages
    groups = verdict.extras.get("groups") if isinstance(verdict.extras, dict) else None
    group_of: dict[int, str] = {}
    if isinstance(groups, dict):
        for name, members in groups.items():
            for m in members if isinstance(members, list | tuple) else ():
                if isinstance(m, int):
                    group_of[m] = str(name)
    skipped = _non_claims(verdict)
    extras = verdict.extras if isinstance(verdict.extras, dict) else {}
    garbled = set(extras.get("garbled_passages") or ())
    planted = set(extras.get("coordinated_passages") or ()) - garbled
    out = []
    for p in range(count):
        idx = sorted(by_passage.get(p, []), key=lambda i: verdict.claims[i].start)
        first = verdict.claims[idx[0]] if idx else None
        item = items[p] if items is not None and p < len(items) else None
        source = first.source if first else item.resolved_source(p) if item else f"passage-{p}"
        domain = first.domain if first else item.resolved_domain(p) if item else ""
        counts = {st: sum(states[i] == st for i in idx) for st in (SELECTED, REJECTED, UNSELECTED)}
        head = (
            f'<h3><span class="pid">P{p}</span> {_source_html(source)}'
            f'<span class="dom">{_e(domain)}</span>'
            + (
                f'<span class="dom">group {_e(group_of[p])}</span>'
                if p in group_of and group_of[p] != domain
                else ""
            )
            + (
                '<span class="dom planted">looks planted: quarantined</span>'
                if p in planted
                else '<span class="dom planted">garbled: quarantined</span>'
                if p in garbled
                else ""
            )
            + "</h3>"
            f'<p class="muted">{len(idx)} claim(s): {counts[SELECTED]} in S*, '
            f"{counts[REJECTED]} rejected, {counts[UNSELECTED]} not selected"
            + (f"; {len(skipped[p])} sentence(s) not claims" if skipped.get(p) else "")
            + "</p>"
        )
        body = _passage_body(verdict, item, idx, states, against, skipped.get(p, []))
        out.append(f'<section class="passage" id="passage-{p}">{head}{body}</section>')
    if not out:
        return '<p class="muted">No passages.</p>'
    return "".join(out)


def _source_html(source: str) -> str:
    """The source as text; a link only for http(s) URLs (never javascript: or data:)."""
    if source.lower().startswith(("http://", "https://")):
        return f'<a class="src" href="{_e(source)}" rel="noopener noreferrer">{_e(source)}</a>'
    return f'<span class="src">{_e(source)}</span>'


def _marked_text(text: str, spans: list[tuple[int, int, str]]) -> str | None:
    """``text`` escaped, each ``(start, end, html)`` span replaced by its html; ``None`` when
    the spans do not fit the text (out of bounds or overlapping)."""
    spans = sorted(spans, key=lambda x: x[0])
    if not all(0 <= a < b <= len(text) for a, b, _ in spans) or not all(
        x[1] <= y[0] for x, y in pairwise(spans)
    ):
        return None
    parts, at = [], 0
    for start, end, markup in spans:
        parts.append(_e(text[at:start]))
        parts.append(markup)
        at = end
    parts.append(_e(text[at:]))
    return "".join(parts)


def _passage_body(verdict, item, idx, states, against, skipped=()) -> str:
    claims = verdict.claims
    if item is not None:
        text = item.text
        if all(0 <= claims[i].start < claims[i].end <= len(text) for i in idx):
            spans = [
                (c.start, c.end, _sentence(verdict, i, text[c.start : c.end], states[i], against))
                for i in idx
                for c in (claims[i],)
            ]
            others = [
                (
                    a,
                    b,
                    f'<mark class="nc" title="{_e("not a claim: " + why)}">{_e(text[a:b])}</mark>',
                )
                for a, b, why in skipped
            ]
            body = _marked_text(text, spans + others) or _marked_text(text, spans)
            if body is not None:
                return f'<p class="text">{body}</p>'
    if not idx:
        if item is not None and item.text.strip():
            return f'<p class="text">{_e(item.text)}</p><p class="muted">No claims in this passage.</p>'
        return '<p class="muted">No claims in this passage (empty, or nothing to check).</p>'
    sentences = " ".join(_sentence(verdict, i, claims[i].text, states[i], against) for i in idx)
    note = (
        ""
        if item is not None
        else '<p class="muted">The sentences mirage analyzed (pass the passages to '
        "<code>to_html</code> to show the whole text).</p>"
    )
    return f'<p class="text">{sentences}</p>{note}'
