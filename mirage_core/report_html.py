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
libraries.
"""

from __future__ import annotations

import html
import math
from collections.abc import Sequence
from dataclasses import dataclass
from itertools import pairwise
from typing import TYPE_CHECKING

from mirage_core.types import PassageLike, to_passage

if TYPE_CHECKING:  # pragma: no cover
    from mirage_core.verdict import Verdict

__all__ = ["render_html"]

# Claim states, each with its CSS class and the words the legend uses for it.
SELECTED, REJECTED, UNSELECTED = "sel", "rej", "uns"


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


def _e(text: object) -> str:
    """Escape any value for HTML text and attribute values (quotes included)."""
    return html.escape(str(text), quote=True)


def _num(x: float | None, digits: int = 3) -> str:
    return "n/a" if x is None or not math.isfinite(x) else f"{x:.{digits}f}"


def _short(text: str, n: int) -> str:
    return text if len(text) <= n else text[: n - 1] + "…"


def _relevance(verdict: Verdict) -> list[float] | None:
    """Each claim's query relevance in [0, 1] when the verdict has it (``None``: not measured)."""
    rel = getattr(verdict, "relevance", None)
    if rel is None or len(rel) != len(verdict.claims):
        return None
    return [float(x) for x in rel]


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


# -- the claim graph ---------------------------------------------------------------------------


def _graph_svg(verdict: Verdict, states: Sequence[str]) -> str:
    """Claims on a circle, in passage order; chords for support (green) and contradiction (red)."""
    claims = verdict.claims
    n = len(claims)
    if n == 0:
        return '<p class="muted">No claims: nothing to draw.</p>'
    node_r = 11 if n <= 40 else 8 if n <= 120 else 5
    radius = max(190.0, n * (2 * node_r + 6) / (2 * math.pi))
    pad_x, pad_y = 230.0, 50.0  # room for the passage labels outside the circle
    width, height = 2 * (radius + pad_x), 2 * (radius + pad_y)
    cx, cy = width / 2, height / 2
    # A gap between passages makes the groups readable.
    order = sorted(range(n), key=lambda i: (claims[i].passage_index, claims[i].start, i))
    passages = sorted({c.passage_index for c in claims})
    slots = n + len(passages)
    angle: dict[int, float] = {}
    slot = 0
    last = None
    for i in order:
        if claims[i].passage_index != last:
            slot += 1 if last is not None else 0
            last = claims[i].passage_index
        angle[i] = -math.pi / 2 + 2 * math.pi * slot / slots
        slot += 1
    pos = {i: (cx + radius * math.cos(a), cy + radius * math.sin(a)) for i, a in angle.items()}

    # Undirected chords: red when either direction is a contradiction edge, else green when
    # either direction supports; neutral pairs are not drawn.
    g = verdict.graph
    chords: dict[tuple[int, int], dict[str, float | bool]] = {}
    for p, h, ws, wc, probs in zip(
        g.premise.tolist(),
        g.hypothesis.tolist(),
        g.w_supp.tolist(),
        g.w_contr.tolist(),
        g.probs.tolist(),
        strict=True,
    ):
        key = (min(p, h), max(p, h))
        rec = chords.setdefault(key, {"supp": 0.0, "contr": 0.0, "pe": 0.0, "pc": 0.0})
        rec["supp"] = max(float(rec["supp"]), ws)
        rec["contr"] = max(float(rec["contr"]), wc)
        rec["pe"] = max(float(rec["pe"]), probs[0])
        rec["pc"] = max(float(rec["pc"]), probs[2])
    rel = _relevance(verdict)
    support_paths, contra_paths = [], []
    for (a, b), rec in sorted(chords.items()):
        (x1, y1), (x2, y2) = pos[a], pos[b]
        qx = cx + ((x1 + x2) / 2 - cx) * 0.35
        qy = cy + ((y1 + y2) / 2 - cy) * 0.35
        d = f"M{x1:.1f},{y1:.1f} Q{qx:.1f},{qy:.1f} {x2:.1f},{y2:.1f}"
        if float(rec["contr"]) > 0:
            stroke = 1.5 + 3.0 * float(rec["contr"])
            tip = f"[{a}] ⟂ [{b}]: contradiction, p_contra up to {float(rec['pc']):.2f}"
            opacity = 0.85
            if rel is not None:  # an off-topic conflict weighs less in r_contr: drawn fainter
                r = min(rel[a], rel[b])
                opacity = 0.2 + 0.65 * r
                tip += f", query relevance {r:.2f}"
            contra_paths.append(
                f'<path class="ec" d="{d}" stroke-width="{stroke:.1f}" '
                f'style="stroke-opacity:{opacity:.2f}"><title>{_e(tip)}</title></path>'
            )
        elif float(rec["supp"]) > 0:
            stroke = 0.8 + 2.0 * float(rec["supp"])
            tip = f"[{a}] ↔ [{b}]: support, p_entail up to {float(rec['pe']):.2f}"
            support_paths.append(
                f'<path class="es" d="{d}" stroke-width="{stroke:.1f}"><title>{_e(tip)}</title></path>'
            )

    nodes = []
    scores = verdict.scores
    support = verdict.support
    for i in order:
        c = claims[i]
        x, y = pos[i]
        s = _num(float(scores[i]), 2) if scores.size else "n/a"
        nsup = int(support[i]) if support.size else 0
        about = "" if rel is None else f", relevance={rel[i]:.2f}"
        tip = (
            f"[{i}] passage {c.passage_index} ({c.domain}), s={s}, n={nsup}{about}: "
            f"{_short(c.text, 200)}"
        )
        font = max(7, node_r - 1)
        nodes.append(
            f'<a href="#claim-{i}"><g class="n {states[i]}">'
            f"<title>{_e(tip)}</title>"
            f'<circle cx="{x:.1f}" cy="{y:.1f}" r="{node_r}"/>'
            f'<text x="{x:.1f}" y="{y + font / 3:.1f}" font-size="{font}">{i}</text></g></a>'
        )

    labels = []
    for p in passages:
        members = [i for i in order if claims[i].passage_index == p]
        # Mean angle of the passage's claims (as a unit vector, so groups across -π/π work).
        vx = sum(math.cos(angle[i]) for i in members)
        vy = sum(math.sin(angle[i]) for i in members)
        a = math.atan2(vy, vx)
        lx = cx + (radius + node_r + 14) * math.cos(a)
        ly = cy + (radius + node_r + 14) * math.sin(a)
        anchor = "start" if math.cos(a) > 0.2 else "end" if math.cos(a) < -0.2 else "middle"
        dy = 4 if abs(math.sin(a)) < 0.8 else (12 if math.sin(a) > 0 else -4)
        domain = claims[members[0]].domain
        labels.append(
            f'<text class="pl" x="{lx:.1f}" y="{ly + dy:.1f}" text-anchor="{anchor}">'
            f'<tspan font-weight="600">P{p}</tspan> {_e(_short(domain, 30))}</text>'
        )

    return (
        f'<svg xmlns="http://www.w3.org/2000/svg" class="graph" role="img" '
        f'viewBox="0 0 {width:.0f} {height:.0f}" width="{min(width, 1000):.0f}" '
        f'aria-label="claim graph: {n} claims, {len(contra_paths)} contradiction pairs">'
        f'<circle cx="{cx:.1f}" cy="{cy:.1f}" r="{radius:.1f}" class="ring"/>'
        + "".join(support_paths)
        + "".join(contra_paths)
        + "".join(nodes)
        + "".join(labels)
        + "</svg>"
    )


# -- passages ----------------------------------------------------------------------------------


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

_CSS = """
:root{--ok:#1b7f3b;--okbg:#e3f4e8;--bad:#c62828;--badbg:#fde4e4;--warn:#a15c00;--warnbg:#fff1d6;
--mute:#667085;--line:#d0d5dd;--sel:#1b9e4b;--selbg:#c8f0d4}
*{box-sizing:border-box}
body{font:15px/1.5 system-ui,-apple-system,"Segoe UI",Roboto,sans-serif;color:#1d2939;margin:0;
background:#f8f9fb}
main{max-width:1100px;margin:0 auto;padding:24px}
h1{font-size:20px;margin:0 0 4px}h2{font-size:17px;margin:28px 0 8px}
h3{font-size:15px;margin:0 0 4px;display:flex;gap:8px;flex-wrap:wrap;align-items:baseline}
.card{background:#fff;border:1px solid var(--line);border-radius:8px;padding:16px;margin:12px 0}
.decision{display:inline-block;font-weight:700;padding:2px 10px;border-radius:12px;font-size:14px}
.decision.verified{background:var(--okbg);color:var(--ok)}
.decision.fallback{background:var(--warnbg);color:var(--warn)}
.reason{font-family:ui-monospace,Menlo,Consolas,monospace;font-size:13px;margin-top:6px}
.query{font-size:17px;margin:8px 0}
.stats{display:flex;flex-wrap:wrap;gap:8px 24px;margin-top:8px;font-size:14px}
.stats b{font-variant-numeric:tabular-nums}
.muted{color:var(--mute);font-size:13px;margin:4px 0}
.legend{display:flex;flex-wrap:wrap;gap:6px 18px;font-size:13px;margin:6px 0}
.legend span{display:inline-flex;align-items:center;gap:6px}
.sw{display:inline-block;width:14px;height:14px;border-radius:50%;border:2px solid #344054}
.sw.sel{background:var(--sel);border-color:#0b4f23}.sw.rej{background:#f3a6a6;border-color:var(--bad)}
.sw.uns{background:#e4e7ec;border-color:#98a2b3}
.sw.nc{background:none;border:1px dotted var(--mute);border-radius:2px}
.ln{display:inline-block;width:22px;height:0;border-top:3px solid}
.ln.c{border-color:var(--bad)}.ln.s{border-color:#5cb176}
svg.graph{display:block;max-width:100%;height:auto;margin:0 auto}
svg .ring{fill:none;stroke:#eaecf0;stroke-width:1}
svg .es{fill:none;stroke:#5cb176;stroke-opacity:.55}
svg .ec{fill:none;stroke:#d92d20;stroke-opacity:.85}
svg .n circle{stroke-width:2}
svg .n text{text-anchor:middle;font-family:system-ui,sans-serif;fill:#101828;pointer-events:none}
svg .n.sel circle{fill:var(--sel);stroke:#0b4f23;stroke-width:3.5}
svg .n.sel text{fill:#fff;font-weight:700}
svg .n.rej circle{fill:#f3a6a6;stroke:var(--bad)}
svg .n.uns circle{fill:#e4e7ec;stroke:#98a2b3}
svg .pl{font-size:12px;fill:#344054;font-family:system-ui,sans-serif}
.passage{background:#fff;border:1px solid var(--line);border-radius:8px;padding:12px 16px;margin:10px 0}
.pid{font-family:ui-monospace,Menlo,monospace;font-weight:700;color:#344054}
.src{word-break:break-all}.dom{color:var(--mute);font-size:12px;border:1px solid var(--line);
border-radius:10px;padding:0 8px}
.dom.planted{color:var(--bad);border-color:var(--bad)}
.text{margin:6px 0;white-space:pre-wrap;overflow-wrap:anywhere}
mark{border-radius:3px;padding:1px 2px;color:inherit}
mark.sel{background:var(--selbg);box-shadow:inset 0 -2px 0 var(--sel)}
mark.rej{background:var(--badbg);text-decoration:line-through;text-decoration-color:var(--bad);
box-shadow:inset 0 -2px 0 var(--bad)}
mark.uns{background:#f2f4f7}
mark.nc{background:none;color:var(--mute);border-bottom:1px dotted var(--mute);border-radius:0}
mark:target{outline:2px solid #2e90fa}
sup.ci{font-size:10px;color:var(--mute);margin-right:2px;font-family:ui-monospace,monospace}
table{border-collapse:collapse;width:100%;background:#fff;font-size:14px}
th,td{border:1px solid var(--line);padding:6px 8px;vertical-align:top;text-align:left}
th{background:#f2f4f7}td.num{text-align:right;font-variant-numeric:tabular-nums;white-space:nowrap}
.tag{font-family:ui-monospace,monospace;text-decoration:none;color:inherit;border-radius:3px;padding:0 3px}
.tag.sel{background:var(--selbg)}.tag.rej{background:var(--badbg)}.tag.uns{background:#f2f4f7}
details{margin:8px 0}summary{cursor:pointer;color:#344054}
code{font-family:ui-monospace,Menlo,monospace;font-size:13px}
.warn{background:var(--warnbg);border:1px solid #f5c26b;border-radius:6px;padding:6px 10px;margin:6px 0}
footer{color:var(--mute);font-size:12px;margin:28px 0 8px}
@media print{body{background:#fff}.card,.passage{break-inside:avoid}}
"""

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
