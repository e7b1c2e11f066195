"""Typed records of what a verdict's steps found, beside the claim graph and S*.

Each record says what one step did and converts itself to the JSON the verdict writes
(:meth:`Verdict.to_dict`'s ``"extras"``, whose keys are documented in ``docs/report.md``).
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

__all__ = [
    "CoordinationRecord",
    "HeldBack",
    "NonClaim",
    "RuleOutcome",
    "Tie",
]


@dataclass(frozen=True, slots=True)
class NonClaim:
    """A sentence that asserts nothing and was not made a claim (a question, a headline...)."""

    passage: int
    start: int
    end: int
    reason: str


@dataclass(frozen=True, slots=True)
class RuleOutcome:
    """What one gate rule decided: its name, whether it blocks, and why (or a note when it
    passes but changed what is delivered)."""

    rule: str
    blocks: bool
    reason: str


@dataclass(frozen=True, slots=True)
class Tie:
    """Independent groups on each side of a conflict with S* (the tie rule blocks when the
    rejected side has at least as many)."""

    selected_side: int
    rejected_side: int


@dataclass(frozen=True, slots=True)
class HeldBack:
    """Passages the redundancy filter held back and the S* claims they took with them."""

    n_adv: int
    passages: tuple[int, ...]
    held_claims: tuple[int, ...]


@dataclass(frozen=True)
class CoordinationRecord:
    """What the coordination signals flagged and what the quarantine did with it.

    ``signals``: the flagged groups (:class:`~mirage_core.coordination.GroupSignals`) that
    stayed flagged; ``released``: flagged groups let go because they contradict themselves;
    ``passages``: the quarantined passages (caller indices; empty when the quarantine is off);
    ``quarantined_claims``: claims that needed outside support; ``conflicts_ignored``:
    contradiction edges left out of r_contr (``quarantined_conflicts="ignore"``, or
    ``garbled_conflicts="ignore"`` for garbled passages' edges); ``garbled``:
    passages read as garbled (:mod:`mirage_core.garbled`), among ``passages`` while the
    quarantine is on; ``garbled_copies``: those of them that are typo'd copies of a readable
    passage.
    """

    signals: tuple[Any, ...] = ()
    released: tuple[tuple[int, ...], ...] = ()
    passages: tuple[int, ...] = ()
    quarantined_claims: int = 0
    conflicts_ignored: int | None = None
    garbled: tuple[int, ...] = ()
    garbled_copies: tuple[int, ...] = ()

    @property
    def quarantined(self) -> bool:
        return bool(self.passages)

    @property
    def relaxes_d_min(self) -> bool:
        """Whether the gate asks ``coordinated_d_min`` sources instead of ``d_min``: claims were
        quarantined for a planted group, or for typo'd copies of a page, which leave that page
        to answer alone. Garbled text that copies no page is unreadable, not a sign that an
        attack removed the other sources: put beside a lone page, it must not let the page
        pass on one source."""
        return self.quarantined_claims > 0 and (bool(self.signals) or bool(self.garbled_copies))

    def extras(self) -> dict[str, Any]:
        """The verdict JSON's coordination keys (only those that apply)."""
        out: dict[str, Any] = {}
        if self.released:
            out["coordination_released"] = [list(p) for p in self.released]
        if self.garbled:
            out["garbled_passages"] = list(self.garbled)
        if self.passages:
            out["coordinated_passages"] = list(self.passages)
            out["quarantined_claims"] = self.quarantined_claims
        if self.signals:
            out["coordination_signals"] = [
                {
                    "passages": list(g.passages),
                    "score": g.score,
                    "threshold": g.threshold,
                    "fired": list(g.fired),
                    "shared": list(g.shared),
                    "absorbed": list(g.absorbed),
                    "explain": g.explain(),
                }
                for g in self.signals
            ]
        if self.conflicts_ignored is not None:
            out["conflicts_ignored"] = self.conflicts_ignored
        return out
