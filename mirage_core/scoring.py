"""NLI scoring: every directed pair of a batch of queries in one backend call, sync or async.

A failed call is retried query by query, so bad text in one query never changes another
query's verdict; what still fails follows ``nli_error_policy`` (``"raise"`` raises
:class:`~mirage_core.errors.NLIError` at once).
"""

from __future__ import annotations

import asyncio
import time
from collections.abc import Awaitable, Callable, Sequence
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


def _split(
    batch: Sequence[_Item], probs: np.ndarray, elapsed: float
) -> list[Scored]:
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


def score_batch(
    batch: Sequence[_Item], predict: Callable[[list[str], list[str]], Any], policy: str
) -> list[Scored]:
    """Scores for every query of ``batch``: one call, then one call per query if it fails."""
    scored = [item for item in batch if item.n_directed]
    results: dict[int, Scored] = {id(item): (np.empty((0, 3)), None) for item in batch}
    groups = [scored] if len(scored) <= 1 else [scored, *([item] for item in scored)]
    for group in groups:
        if not group or (group is not scored and results[id(group[0])][1] is None):
            continue  # scored by the shared call
        premises: list[str] = []
        hypotheses: list[str] = []
        for item in group:
            p, h = _directed(item)
            premises += p
            hypotheses += h
        t0 = time.perf_counter()
        try:
            probs = validate_probs(predict(premises, hypotheses), len(premises))
        except Exception as exc:
            error = _raise_or_keep(exc, policy)
            results.update({id(item): (None, error) for item in group})
            continue
        for item, result in zip(group, _split(group, probs, time.perf_counter() - t0), strict=True):
            results[id(item)] = result
    return [results[id(item)] for item in batch]


async def ascore_batch(
    batch: Sequence[_Item],
    apredict: Callable[[list[str], list[str]], Awaitable[Any]],
    policy: str,
) -> list[Scored]:
    """:func:`score_batch` for asyncio: the backend's own ``apredict`` (a remote server is
    awaited, never waited on in a thread)."""
    loop = asyncio.get_running_loop()

    def predict(premises: list[str], hypotheses: list[str]) -> Any:
        return asyncio.run_coroutine_threadsafe(apredict(premises, hypotheses), loop).result()

    return await asyncio.to_thread(score_batch, batch, predict, policy)
