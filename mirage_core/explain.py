"""A verdict in plain text: the decision, S*, the strongest conflicts and what each rule did."""

from __future__ import annotations

import math
from typing import TYPE_CHECKING

from mirage_core.lone_facts import named_facts
from mirage_core.normalize import one_line

if TYPE_CHECKING:
    from mirage_core.verdict import Edge, Verdict

__all__ = ["explain"]


def explain(verdict: Verdict, max_claims: int = 10) -> str:
    """A plain-text account of ``verdict``'s decision (``Verdict.explain``); at most
    ``max_claims`` (≥ 0) claims of S* are listed."""
    if isinstance(max_claims, bool) or not isinstance(max_claims, int) or max_claims < 0:
        raise ValueError(f"max_claims must be an int ≥ 0, got {max_claims!r}")
    v = verdict
    lines = [
        f"query: {v.query}",
        f"decision: {v.decision.upper()} — {v.reason}",
        f"claims: {len(v.claims)} from {v.n_passages} passage(s); "
        f"NLI edges: {len(v.graph)}; r_contr={_fmt(v.r_contr)} (r_max={v.thresholds.get('r_max')}), "
        f"d_src={v.d_src} (d_min={v.d_min_applied})",
    ]
    if v.selected:
        # a fallback hands no claim on: its S* is what the gate weighed, not what was delivered
        heading = "delivered" if v.passed else "S*, not delivered (the verdict falls back)"
        lines.append(f"{heading} ({len(v.selected)} claims of S*, pick order):")
        for i in v.selected[:max_claims]:
            c = v.claims[i]
            lines.append(
                f"  [{i}] s={v.scores[i]:.2f} n={int(v.support[i])} {c.domain}: {_short(c.text)}"
            )
        if len(v.selected) > max_claims:
            lines.append(f"  ... {len(v.selected) - max_claims} more")
    lines += _independence(v)
    lines += _conflicts(v)
    if v.non_claims:
        counts: dict[str, int] = {}
        for item in v.non_claims:
            counts[item.reason] = counts.get(item.reason, 0) + 1
        lines.append(
            f"not claims ({len(v.non_claims)} sentences skipped): "
            + ", ".join(f"{k} {n}" for k, n in counts.items())
        )
    for w in v.warnings:
        lines.append(f"warning: {w}")
    if v.timings:
        lines.append("timings: " + ", ".join(f"{k}={t * 1000:.1f}ms" for k, t in v.timings.items()))
    # each entry is one line: a line break in a query, a source or a reason cannot start a
    # line that reads as the account's own ("decision: VERIFIED" inside a passage's domain)
    return "\n".join(one_line(line) for line in lines)


def _conflicts(v: Verdict) -> list[str]:
    contra = [e for e in v.edges if e.w_contr > 0]
    if not contra:
        return []
    lines = [f"contradictions ({len(contra)} directed edges), strongest:"]
    rel = v.relevance

    def weight(e: Edge) -> float:
        # what the edge weighs in r_contr: its w_contr times its relevance
        if rel is None:
            return e.w_contr
        return e.w_contr * min(rel[e.premise], rel[e.hypothesis])

    for e in sorted(contra, key=lambda e: -weight(e))[:5]:
        about = "" if rel is None else f" relevance={min(rel[e.premise], rel[e.hypothesis]):.2f}"
        lines.append(
            f"  [{e.premise}] {_short(v.claims[e.premise].text, 60)}  ⟂  "
            f"[{e.hypothesis}] {_short(v.claims[e.hypothesis].text, 60)}  "
            f"p_contra={e.p_contra:.2f} w_contr={e.w_contr:.2f}{about}"
        )
    return lines


def _independence(v: Verdict) -> list[str]:
    """Multi-passage independence groups, coordination, answer conflicts, the redundancy
    filter and a tie, when present."""
    lines = []
    merged = {g: list(p) for g, p in (v.groups or {}).items() if len(p) > 1}
    if merged:
        lines.append(
            "independence groups (one source each): "
            + "; ".join(f"{g} = passages {p}" for g, p in merged.items())
        )
    coordination = v.coordination
    if coordination is not None:
        # flagged groups are quarantined unless coordinated_min_support = 0 turned that off
        fate = "quarantined" if coordination.quarantined else "flagged"
        for g in coordination.signals:
            lines.append(f"coordination signals: {g.explain()} — {fate}")
        if coordination.garbled:
            lines.append(
                f"garbled: passages {list(coordination.garbled)} (their words are largely "
                f"misspelt) — {fate}"
            )
        if coordination.conflicts_ignored:
            whose = (
                "quarantined passages left out of r_contr (quarantined_conflicts='ignore')"
                if v.thresholds.get("quarantined_conflicts") == "ignore"
                else "garbled passages left out of r_contr (garbled_conflicts='ignore')"
            )
            lines.append(
                f"contradiction gate: {coordination.conflicts_ignored} contradiction edges of "
                + whose
            )
        for passages in coordination.released:
            lines.append(
                f"coordination signals: passages {list(passages)} flagged but released: "
                "they contradict each other (planted copies push one answer)"
            )
    for c in v.answer_conflicts:
        read = [side for side, ctx in ((c.left, c.left_context), (c.right, c.right_context)) if ctx]
        lines.append(
            f"answer conflict: claims [{c.left}] and [{c.right}] both restate the question"
            + (f" ({', '.join(f'[{i}]' for i in read)} with its page's context)" if read else "")
            + f" and name different {c.kind}s: {', '.join(c.left_facts)} vs "
            f"{', '.join(c.right_facts)}"
        )
    held = v.held_back
    if held is not None:
        lines.append(
            f"redundancy filter: passages {list(held.passages)} held back as the estimated "
            f"adversarial majority (N_adv={held.n_adv}); {len(held.held_claims)} "
            "claims of S* not delivered"
        )
    if v.lone_facts:
        lines.append(
            f"lone facts: held back, no other source states them: {named_facts(v.lone_facts)}"
        )
    if v.tie is not None:
        lines.append(
            f"tie: {v.tie.rejected_side} independent groups against S* vs "
            f"{v.tie.selected_side} behind it"
        )
    return lines


def _fmt(x: float | None) -> str:
    return "n/a" if x is None or not math.isfinite(x) else f"{x:.3f}"


def _short(text: str, n: int = 90) -> str:
    return text if len(text) <= n else text[: n - 1] + "…"
