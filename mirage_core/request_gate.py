"""Request gate: how the gate weighs evidence for a request for an account.

A question has one answer, and evidence that disagrees about it is unreliable: r_contr is
counted over the claim graph and the tie rule blocks when S*'s rejected side is as strong. A
request for an account ("Tell me a bio of X?", :func:`mirage_core.query_kind.requests_account`)
gathers many facts from many pages, and honest pages disagree on some of them (a birth year,
a count). With ``MethodSettings.request_gate="majority"`` such a request is gated conflict by
conflict instead: r_contr inside S*, each conflict of S* weighed on its own
(``conflict_rule="majority"``, :mod:`mirage_core.majority`), and a flagged group two of whose
passages hold a contradiction the gate counts (``w_contr`` ≥ κ) is released, since a group
that disagrees about the facts is not one planted story. ``"majority_paraphrase"`` also
counts close paraphrases from other groups as corroboration (:data:`REQUEST_PARAPHRASE`):
pages telling one life word the same facts their own way, and NLI between two such
sentences, paired two partners per claim, finds few of them. Those close pairs are sent to
the NLI model as well (``paraphrase_pairs``), and a paraphrase it reads as a contradiction (a
flipped polarity states the same facts) corroborates nothing.
"""

from __future__ import annotations

from mirage_core.config import MirageConfig
from mirage_core.query_kind import requests_account

__all__ = ["REQUEST_PARAPHRASE", "gate_config", "request_config"]

#: Embedding cosine at which a claim of another group corroborates under
#: ``request_gate="majority_paraphrase"`` (with fact coverage): close paraphrases in MiniLM
#: space that state the same numbers, months and names.
REQUEST_PARAPHRASE = 0.8


def request_config(config: MirageConfig) -> MirageConfig | None:
    """The settings a request for an account is gated with, or ``None`` when it is gated as a
    question (``request_gate="question"``)."""
    m = config.method
    if m.request_gate == "question":
        return None
    paraphrase = m.paraphrase_support
    if m.request_gate == "majority_paraphrase" and paraphrase is None:
        paraphrase = REQUEST_PARAPHRASE
    return config.replace(
        contradiction_scope="selected",
        conflict_rule="majority",
        coordination_self_conflict=m.kappa,
        paraphrase_support=paraphrase,
        # the NLI model reads the close pairs too, so that a paraphrase it contradicts is seen
        paraphrase_pairs=m.paraphrase_pairs or paraphrase is not None,
    )


def gate_config(config: MirageConfig, account: MirageConfig | None, query: str) -> MirageConfig:
    """``account`` (from :func:`request_config`) when there is one and ``query`` requests an
    account; ``config`` otherwise."""
    if account is not None and requests_account(query):
        return account
    return config
