"""The claim graph of the HTML report as inline SVG: :func:`_graph_svg`.

One node per claim, grouped around a circle by passage, in S* / rejected / not-selected classes
that the report's stylesheet colours; contradiction chords red, support chords green, neutral
pairs not drawn. Every text from the passages is HTML-escaped.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from typing import TYPE_CHECKING

from mirage_core.report_values import _e, _num, _relevance

if TYPE_CHECKING:  # pragma: no cover
    from mirage_core.verdict import Verdict


def _short(text: str, n: int) -> str:
    return text if len(text) <= n else text[: n - 1] + "…"


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
        theta = math.atan2(vy, vx)
        lx = cx + (radius + node_r + 14) * math.cos(theta)
        ly = cy + (radius + node_r + 14) * math.sin(theta)
        anchor = "start" if math.cos(theta) > 0.2 else "end" if math.cos(theta) < -0.2 else "middle"
        dy = 4 if abs(math.sin(theta)) < 0.8 else (12 if math.sin(theta) > 0 else -4)
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
