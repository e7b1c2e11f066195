"""Request gate: what a request for an account is defended with.

A question has one answer, and evidence that disagrees about it is unreliable: r_contr is
counted over the claim graph and the tie rule blocks when S*'s rejected side is as strong. A
request for an account ("Tell me a bio of X?", :func:`mirage_core.query_kind.requests_account`)
gathers many facts from many pages, and honest pages disagree on some of them (a birth year,
a count). Such a request is defended with ``MethodSettings.request_overrides`` applied
(:data:`~mirage_core.method_settings.REQUEST_OVERRIDES` by default): gated conflict by
conflict (r_contr inside S*, ``conflict_rule="majority"``, :mod:`mirage_core.majority`); its
corroborated part delivered though it misses the claims that repeat the subject's name (no
answer sentence to keep), and a fallback where no corroborated part reaches ``d_min``; no
coordination signals (pages telling one life read alike to signals fit on questions); and
every pair sent to NLI, not only those that hold a word of the query.
"""

from __future__ import annotations

from mirage_core.config import MirageConfig
from mirage_core.query_kind import requests_account

__all__ = ["gate_config", "request_config"]


def request_config(config: MirageConfig) -> MirageConfig | None:
    """The settings a request for an account is defended with, or ``None`` when it is
    defended as a question (``request_overrides`` empty)."""
    overrides = config.method.request_overrides
    if not overrides:
        return None
    return config.replace(**overrides, request_overrides={})


def gate_config(config: MirageConfig, account: MirageConfig | None, query: str) -> MirageConfig:
    """``account`` (from :func:`request_config`) when there is one and ``query`` requests an
    account; ``config`` otherwise."""
    if account is not None and requests_account(query):
        return account
    return config
