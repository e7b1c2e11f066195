"""How the HTML report writes values: escaped text, numbers, each claim's query relevance.

The page (:mod:`mirage_core.report_html`), the claim graph (:mod:`mirage_core.report_graph`) and
the passages (:mod:`mirage_core.report_passages`) all use these, so they live below all three.
"""

from __future__ import annotations

import html
import math
from typing import TYPE_CHECKING

if TYPE_CHECKING:  # pragma: no cover
    from mirage_core.verdict import Verdict


def _e(text: object) -> str:
    """Escape any value for HTML text and attribute values (quotes included)."""
    return html.escape(str(text), quote=True)


def _num(x: float | None, digits: int = 3) -> str:
    return "n/a" if x is None or not math.isfinite(x) else f"{x:.{digits}f}"


def _relevance(verdict: Verdict) -> list[float] | None:
    """Each claim's query relevance in [0, 1] when the verdict has it (``None``: not measured)."""
    rel = getattr(verdict, "relevance", None)
    if rel is None or len(rel) != len(verdict.claims):
        return None
    return [float(x) for x in rel]
