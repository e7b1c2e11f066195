"""Peer defenses re-implemented as baseline systems of ``mirage bench``."""

from mirage_core.evaluation.baselines.ragdefender import RAGDefender, RAGDefenderResult

__all__ = ["RAGDefender", "RAGDefenderResult"]
