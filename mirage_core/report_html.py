"""A verdict as one self-contained HTML page: :func:`render_html` (``Verdict.to_html``).

The page needs nothing but a browser: inline CSS, the claim graph as inline SVG, no script, no
fonts or images from anywhere (a Content-Security-Policy forbids loading any). Every text that
comes from the query or the passages is HTML-escaped: retrieved passages are untrusted input, and
a passage holding ``<script>`` shows as text.

What it shows:

- the decision and its reason, with the gate's figures (r_contr vs r_max, d_src vs d_min);
- the claim graph: one node per claim, grouped around a circle by passage; S* nodes highlighted,
  contradiction edges red, support edges green (neutral NLI pairs are counted, not drawn);
- each passage with its sentences marked: in S* (verified, or held back when the gate blocked),
  rejected (not in S* and contradicting a claim of S*), or not selected;
- the contradiction pairs with p_contra in both directions.

Pure Python (``html`` and ``math``): the engine stays free of frameworks and templating
libraries. The claim graph is drawn by :mod:`mirage_core.report_graph`, the passages with their
marked sentences by :mod:`mirage_core.report_passages`, the stylesheet is
:mod:`mirage_core.report_style`, and every part escapes and formats values with
:mod:`mirage_core.report_values`.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING

from mirage_core.report_graph import _graph_svg
from mirage_core.report_passages import (
    REJECTED,
    SELECTED,
    UNSELECTED,
    _non_claims,
    _passage_sections,
)
from mirage_core.report_style import _CSS
from mirage_core.report_values import _e, _num, _relevance
from mirage_core.types import PassageLike

if TYPE_CHECKING:  # pragma: no cover
    from mirage_core.verdict import Verdict

__all__ = ["render_html"]


@dataclass(frozen=True)
class _Pair:
    """One unordered claim pair with a contradiction edge in at least one direction."""

    a: int
    b: int
    p_ab: float | None  # p_contra of a → b (None: that direction was not scored)
    p_ba: float | None

    @property
    def strength(self) -> float:
        return max(self.p_ab or 0.0, self.p_ba or 0.0)


def _states(verdict: Verdict) -> tuple[list[str], dict[int, list[int]]]:
    """Each claim's state, and for every claim the S* claims it contradicts (either direction)."""
    n = len(verdict.claims)
    selected = set(verdict.selected)
    against: dict[int, set[int]] = {}
    g = verdict.graph
    for p, h, w in zip(g.premise.tolist(), g.hypothesis.tolist(), g.w_contr.tolist(), strict=True):
        if w <= 0:
            continue
        if h in selected and p not in selected:
            against.setdefault(p, set()).add(h)
        if p in selected and h not in selected:
            against.setdefault(h, set()).add(p)
    states = [
        SELECTED if i in selected else REJECTED if i in against else UNSELECTED for i in range(n)
    ]
    return states, {i: sorted(s) for i, s in against.items()}


def _contradiction_pairs(verdict: Verdict) -> list[_Pair]:
    g = verdict.graph
    by_pair: dict[tuple[int, int], dict[str, object]] = {}
    for p, h, probs, w in zip(
        g.premise.tolist(), g.hypothesis.tolist(), g.probs.tolist(), g.w_contr.tolist(), strict=True
    ):
        a, b = min(p, h), max(p, h)
        rec = by_pair.setdefault((a, b), {"ab": None, "ba": None, "hit": False})
        rec["ab" if p == a else "ba"] = float(probs[2])
        rec["hit"] = bool(rec["hit"]) or w > 0
    pairs = [
        _Pair(a, b, r["ab"], r["ba"])  # type: ignore[arg-type]
        for (a, b), r in by_pair.items()
        if r["hit"]
    ]
    return sorted(pairs, key=lambda x: (-x.strength, x.a, x.b))


# -- coordination signals and answer conflicts -------------------------------------------------


def _coordination_html(verdict: Verdict) -> str:
    """What the coordination signals found: each quarantined group with the signals that tied
    its passages, and each flagged group released because it contradicts itself."""
    extras = verdict.extras if isinstance(verdict.extras, dict) else {}
    fate = "quarantined" if extras.get("coordinated_passages") else "flagged"
    items = [
        f"<li>{fate}: {_e(g.get('explain', g.get('passages')))}</li>"
        for g in extras.get("coordination_signals") or ()
        if isinstance(g, dict)
    ]
    items += [
        f"<li>released: passages {_e(list(g))} were flagged but contradict each other "
        "(planted copies push one answer)</li>"
        for g in extras.get("coordination_released") or ()
    ]
    if extras.get("garbled_passages"):
        items.append(
            f"<li>{fate}: passages {_e(list(extras['garbled_passages']))} are garbled (their "
            "words are largely misspelt)</li>"
        )
    if not items:
        return ""
    return (
        '<div id="coordination"><p class="muted">Coordination signals (passages that look '
        f"planted):</p><ul>{''.join(items)}</ul></div>"
    )


def _answer_conflicts_html(verdict: Verdict) -> str:
    """The answer-slot rule's pairs: two sources that restate the question with different facts."""
    extras = verdict.extras if isinstance(verdict.extras, dict) else {}
    items = []
    for c in extras.get("answer_conflicts") or ():
        if not isinstance(c, dict):
            continue
        left, right = c.get("left"), c.get("right")
        items.append(
            f'<li><a href="#claim-{_e(left)}">[{_e(left)}]</a> and '
            f'<a href="#claim-{_e(right)}">[{_e(right)}]</a> name different '
            f"{_e(c.get('kind'))}s: {_e(', '.join(c.get('left_facts', ())))} vs "
            f"{_e(', '.join(c.get('right_facts', ())))}</li>"
        )
    if not items:
        return ""
    return (
        '<div id="answer-conflicts"><p class="muted">Answer conflicts (two sources restate the '
        f"question with different facts):</p><ul>{''.join(items)}</ul></div>"
    )


# -- contradictions ----------------------------------------------------------------------------


def _contradiction_table(verdict: Verdict, states: Sequence[str], pairs: list[_Pair]) -> str:
    if not pairs:
        return '<p class="muted">No contradiction edges (p_contra below κ everywhere).</p>'
    rel = _relevance(verdict)
    rows = []
    for pr in pairs:
        ca, cb = verdict.claims[pr.a], verdict.claims[pr.b]
        rel_cell = "" if rel is None else f'<td class="num">{min(rel[pr.a], rel[pr.b]):.2f}</td>'
        rows.append(
            "<tr>"
            f'<td><a href="#claim-{pr.a}" class="tag {states[pr.a]}">[{pr.a}]</a> '
            f'<span class="pid">P{ca.passage_index}</span> {_e(ca.text)}</td>'
            f'<td><a href="#claim-{pr.b}" class="tag {states[pr.b]}">[{pr.b}]</a> '
            f'<span class="pid">P{cb.passage_index}</span> {_e(cb.text)}</td>'
            f'<td class="num">{_num(pr.p_ab, 2)}</td><td class="num">{_num(pr.p_ba, 2)}</td>'
            f"{rel_cell}</tr>"
        )
    rel_head = "" if rel is None else "<th>query relevance (weight in r_contr)</th>"
    return (
        "<table><thead><tr><th>claim a</th><th>claim b</th><th>p_contra a→b</th>"
        f"<th>p_contra b→a</th>{rel_head}</tr></thead><tbody>" + "".join(rows) + "</tbody></table>"
    )


# -- the page ----------------------------------------------------------------------------------


# Nothing may be fetched or run: styles inline, images only as data: URLs, no scripts at all.
_CSP = (
    "default-src 'none'; style-src 'unsafe-inline'; img-src data:; "
    "base-uri 'none'; form-action 'none'"
)


def render_html(
    verdict: Verdict,
    passages: Sequence[PassageLike] | None = None,
    *,
    title: str | None = None,
) -> str:
    """Render ``verdict`` as one self-contained HTML page (a ``str``; write it to a file).

    Args:
        verdict: the result of ``Mirage.defend``.
        passages: the passages given to ``defend`` (``Passage`` values, strings or JSONL-style
            mappings), to show each passage's whole text with its sentences marked. Without
            them the page shows the sentences that became claims.
        title: the page title (default: ``"mirage verdict: <query>"``).

    Every text taken from the query, the passages or their sources is HTML-escaped, and the
    page carries a Content-Security-Policy that allows no script and no network access.
    """
    states, against = _states(verdict)
    pairs = _contradiction_pairs(verdict)
    n_supp = int((verdict.graph.w_supp > 0).sum())
    n_contr = int((verdict.graph.w_contr > 0).sum())
    th = verdict.thresholds
    page_title = title if title is not None else f"mirage verdict: {verdict.query}"
    sel_words = "in S*, verified" if verdict.passed else "in S*, held back (gate blocked)"
    routed = (
        "The model answers from the claims of S* only."
        if verdict.passed
        else "No retrieved text reaches the model: it answers from its own knowledge (fallback route)."
    )
    warnings = "".join(f'<div class="warn">warning: {_e(w)}</div>' for w in verdict.warnings)
    if verdict.nli_error:
        warnings += f'<div class="warn">NLI error: {_e(verdict.nli_error)}</div>'
    if verdict.embedding_error:
        warnings += f'<div class="warn">Embedder error: {_e(verdict.embedding_error)}</div>'
    thresholds = "".join(
        f"<tr><td><code>{_e(k)}</code></td><td><code>{_e(v)}</code></td></tr>"
        for k, v in sorted(th.items())
    )
    stats_extra = "".join(
        f"<tr><td><code>{_e(k)}</code></td><td class='num'>{_e(v)}</td></tr>"
        for k, v in verdict.candidate_stats.items()
    )
    timings = ", ".join(f"{_e(k)} {v * 1000:.1f} ms" for k, v in verdict.timings.items())
    nc_legend = (
        '<span><i class="sw nc"></i>not a claim (question, title, boilerplate)</span>'
        if _non_claims(verdict)
        else ""
    )
    legend = (
        '<div class="legend">'
        f'<span><i class="sw sel"></i>{_e(sel_words)}</span>'
        '<span><i class="sw rej"></i>rejected: contradicts S*</span>'
        '<span><i class="sw uns"></i>not selected</span>'
        + nc_legend
        + '<span><i class="ln c"></i>contradiction (w_contr &gt; 0'
        + ("; fainter: less relevant to the query" if _relevance(verdict) else "")
        + ")</span>"
        '<span><i class="ln s"></i>support (w_supp &gt; 0)</span>'
        "</div>"
    )
    n_pairs = len(
        {
            (min(p, h), max(p, h))
            for p, h in zip(
                verdict.graph.premise.tolist(), verdict.graph.hypothesis.tolist(), strict=True
            )
        }
    )
    return f"""<!DOCTYPE html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta http-equiv="Content-Security-Policy" content="{_CSP}">
<meta name="viewport" content="width=device-width, initial-scale=1">
<meta name="generator" content="mirage">
<title>{_e(page_title)}</title>
<style>{_CSS}</style>
</head>
<body>
<main>
<h1>mirage verdict</h1>
<div class="card" id="decision">
<span class="decision {_e(verdict.decision)}">{_e(verdict.decision.upper())}</span>
<div class="query">{_e(verdict.query)}</div>
<div class="reason">{_e(verdict.reason)}</div>
<p class="muted">{_e(routed)}</p>
<div class="stats">
<span>r_contr <b>{_num(verdict.r_contr)}</b> (r_max {_e(th.get("r_max", "n/a"))})</span>
<span>d_src <b>{verdict.d_src}</b> (d_min {_e(verdict.d_min_applied or "n/a")})</span>
<span>claims <b>{len(verdict.claims)}</b> from <b>{verdict.n_passages}</b> passage(s)</span>
<span>S* <b>{len(verdict.selected)}</b> claim(s)</span>
<span>NLI pairs <b>{n_pairs}</b>: <b>{n_contr}</b> contradiction and <b>{n_supp}</b> support edges</span>
</div>
{warnings}
{_coordination_html(verdict)}
{_answer_conflicts_html(verdict)}
</div>
<h2>Claim graph</h2>
<div class="card" id="graph">
{legend}
{_graph_svg(verdict, states)}
<p class="muted">One node per claim, numbered as below, grouped by passage (P0, P1, …). Chords join
claims that the NLI model compared; neutral pairs are not drawn. Hover for the text and
probabilities; a node links to its sentence.</p>
</div>
<h2>Contradictions ({len(pairs)} pair(s))</h2>
<div id="contradictions">{_contradiction_table(verdict, states, pairs)}</div>
<h2>Passages</h2>
{legend}
<div id="passages">{_passage_sections(verdict, passages, states, against)}</div>
<h2>Details</h2>
<div class="card">
<details><summary>Thresholds</summary><table><tbody>{thresholds}</tbody></table></details>
<details><summary>Candidate pairs</summary><table><tbody>{stats_extra}</tbody></table></details>
<p class="muted">timings: {timings or "n/a"}</p>
</div>
<footer>Written by mirage (<code>Verdict.to_html</code>). Self-contained: no script, nothing
loaded from the network.</footer>
</main>
</body>
</html>
"""
