"""NLI scoring: every directed pair of a batch of queries in one backend call, sync or async.

A failed call is retried query by query, so bad text in one query never changes another
query's verdict; what still fails follows ``nli_error_policy`` (``"raise"`` raises
:class:`~mirage_core.errors.NLIError` at once).
"""

from __future__ import annotations

import time
from collections.abc import Awaitable, Callable, Iterator, Sequence
from typing import Any, Protocol

import numpy as np

from mirage_core.errors import NLIError
from mirage_core.nli.base import validate_probs

__all__ = ["Scored", "ascore_batch", "score_batch"]

#: Per query: the scores of its directed pairs (left→right, then right→left), or the error.
Scored = tuple[np.ndarray | None, BaseException | None]


class _Item(Protocol):
    evidence: Any
    pairs: Any

    @property
    def n_directed(self) -> int: ...


def _directed(item: _Item) -> tuple[list[str], list[str]]:
    texts = [c.text for c in item.evidence.claims]
    left = [texts[i] for i in item.pairs.left]
    right = [texts[i] for i in item.pairs.right]
    return left + right, right + left


def _raise_or_keep(exc: Exception, policy: str) -> BaseException:
    if policy == "raise":
        if isinstance(exc, NLIError):
            raise exc
        raise NLIError(f"NLI backend failed: {type(exc).__name__}: {exc}") from exc
    return exc


def _split(batch: Sequence[_Item], probs: np.ndarray, elapsed: float) -> list[Scored]:
    """One call's scores cut per query; the call's time shared by pair count."""
    total = sum(item.n_directed for item in batch)
    out: list[Scored] = []
    offset = 0
    for item in batch:
        n = item.n_directed
        if n:
            item.evidence.timings["nli"] = elapsed * n / total
        out.append((probs[offset : offset + n], None))
        offset += n
    return out


def _calls(batch: Sequence[_Item], results: dict[int, Scored]) -> Iterator[list[_Item]]:
    """The groups to score, lazily: every query in one call, then, only for the queries that
    call failed, one call each (read after the caller recorded the shared call)."""
    scored = [item for item in batch if item.n_directed]
    if not scored:
        return
    yield scored
    if len(scored) > 1:
        yield from ([item] for item in scored if results[id(item)][1] is not None)


def _inputs(group: Sequence[_Item]) -> tuple[list[str], list[str]]:
    premises: list[str] = []
    hypotheses: list[str] = []
    for item in group:
        p, h = _directed(item)
        premises += p
        hypotheses += h
    return premises, hypotheses


def _record(
    group: Sequence[_Item],
    outcome: Any,
    elapsed: float,
    n: int,
    policy: str,
    results: dict[int, Scored],
) -> None:
    """The group's scores, cut per query; or its error, under the policy."""
    if not isinstance(outcome, Exception):
        try:
            probs = validate_probs(outcome, n)
        except Exception as exc:
            outcome = exc
        else:
            for item, result in zip(group, _split(group, probs, elapsed), strict=True):
                results[id(item)] = result
            return
    error = _raise_or_keep(outcome, policy)
    results.update({id(item): (None, error) for item in group})


def score_batch(
    batch: Sequence[_Item], predict: Callable[[list[str], list[str]], Any], policy: str
) -> list[Scored]:
    """Scores for every query of ``batch``: one call, then one call per query if it fails."""
    results: dict[int, Scored] = {id(item): (np.empty((0, 3)), None) for item in batch}
    for group in _calls(batch, results):
        premises, hypotheses = _inputs(group)
        t0 = time.perf_counter()
        try:
            outcome: Any = predict(premises, hypotheses)
        except Exception as exc:
            outcome = exc
        _record(group, outcome, time.perf_counter() - t0, len(premises), policy, results)
    return [results[id(item)] for item in batch]


async def ascore_batch(
    batch: Sequence[_Item],
    apredict: Callable[[list[str], list[str]], Awaitable[Any]],
    policy: str,
) -> list[Scored]:
    """:func:`score_batch` for asyncio: the backend's own ``apredict`` is awaited (a remote
    server is never waited on in a thread)."""
    results: dict[int, Scored] = {id(item): (np.empty((0, 3)), None) for item in batch}
    for group in _calls(batch, results):
        premises, hypotheses = _inputs(group)
        t0 = time.perf_counter()
        try:
            outcome: Any = await apredict(premises, hypotheses)
        except Exception as exc:
            outcome = exc
        _record(group, outcome, time.perf_counter() - t0, len(premises), policy, results)
    return [results[id(item)] for item in batch]
