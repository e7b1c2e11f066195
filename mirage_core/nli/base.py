"""The NLI backend protocol, the pair cache every backend shares, and :class:`CallableNLI`.

A backend maps ``(premises, hypotheses)`` to an ``(n, 3)`` float array of probabilities in
``[entail, neutral, contra]`` order. :class:`CachedNLI` gives any backend a thread-safe LRU
cache keyed on the exact (premise, hypothesis) text pair and validates what the model returned,
so the engine can trust the array it gets back.
"""

from __future__ import annotations

import asyncio
import sys
import threading
from collections import OrderedDict
from collections.abc import Callable, Sequence
from typing import Any, Protocol, runtime_checkable

import numpy as np

from mirage_core.errors import NLIError

__all__ = [
    "DEFAULT_CACHE_BYTES",
    "LABELS",
    "CachedNLI",
    "CallableNLI",
    "NLIBackend",
    "PairCache",
    "validate_probs",
]

#: Column order of every probability array mirage passes around.
LABELS: tuple[str, str, str] = ("entailment", "neutral", "contradiction")


@runtime_checkable
class NLIBackend(Protocol):
    """Anything with ``predict(premises, hypotheses) -> (n, 3) array``."""

    def predict(self, premises: Sequence[str], hypotheses: Sequence[str]) -> np.ndarray:
        """Return ``[p_entail, p_neutral, p_contra]`` for each aligned pair."""
        ...


def validate_probs(probs: object, n: int) -> np.ndarray:
    """Coerce a backend's output to a float64 ``(n, 3)`` array or raise :class:`NLIError`."""
    try:
        arr = np.asarray(probs, dtype=np.float64)
    except (TypeError, ValueError) as exc:
        raise NLIError(f"NLI backend returned a non-numeric result: {exc}") from exc
    if arr.shape != (n, 3):
        raise NLIError(f"NLI backend returned shape {arr.shape}, expected ({n}, 3)")
    if n and (not np.all(np.isfinite(arr)) or arr.min() < -1e-6 or arr.max() > 1 + 1e-6):
        raise NLIError("NLI backend returned values outside [0, 1] (probabilities expected)")
    if n and not np.allclose(arr.sum(axis=1), 1.0, atol=1e-3):
        raise NLIError("NLI backend rows do not sum to 1 (probabilities expected, not logits)")
    return np.clip(arr, 0.0, 1.0)


#: Default byte bound of a :class:`PairCache` (its entry count is bounded too).
DEFAULT_CACHE_BYTES = 256 * 2**20


def _entry_bytes(key: tuple[str, str], row: np.ndarray) -> int:
    """Memory an entry holds, approximately: both strings, the row, the key tuple and the
    entry's slots in the cache's two dicts."""
    return sys.getsizeof(key[0]) + sys.getsizeof(key[1]) + sys.getsizeof(row) + 450


class PairCache:
    """Thread-safe LRU cache of NLI probabilities keyed on ``(premise, hypothesis)``.

    Bounded by entries (``maxsize``) and by bytes (``max_bytes``, the texts' and rows' memory,
    approximately; ``None``: by entries only): the least recently used entries go first, and
    an entry larger than ``max_bytes`` alone is not cached. Each entry holds a copy of its row,
    never a view of the array it came in.
    """

    def __init__(self, maxsize: int = 100_000, max_bytes: int | None = DEFAULT_CACHE_BYTES) -> None:
        if maxsize < 0:
            raise ValueError("cache maxsize must be >= 0")
        if max_bytes is not None and max_bytes < 0:
            raise ValueError("cache max_bytes must be >= 0 or None")
        self.maxsize = maxsize
        self.max_bytes = max_bytes
        self._data: OrderedDict[tuple[str, str], np.ndarray] = OrderedDict()
        self._sizes: dict[tuple[str, str], int] = {}
        self._lock = threading.Lock()
        self.nbytes = 0
        self.hits = 0
        self.misses = 0

    def __len__(self) -> int:
        return len(self._data)

    def __getstate__(self) -> dict[str, Any]:
        # a copy (pickle, deepcopy) starts empty, with a lock of its own
        state = self.__dict__.copy()
        state.update(_data=OrderedDict(), _sizes={}, _lock=None, nbytes=0, hits=0, misses=0)
        return state

    def __setstate__(self, state: dict[str, Any]) -> None:
        self.__dict__.update(state)
        self._lock = threading.Lock()

    def get_many(self, keys: Sequence[tuple[str, str]]) -> list[np.ndarray | None]:
        out: list[np.ndarray | None] = []
        with self._lock:
            for key in keys:
                row = self._data.get(key)
                if row is None:
                    self.misses += 1
                else:
                    self._data.move_to_end(key)
                    self.hits += 1
                out.append(row)
        return out

    def put_many(self, keys: Sequence[tuple[str, str]], rows: np.ndarray) -> None:
        if self.maxsize == 0:
            return
        with self._lock:
            for key, view in zip(keys, rows, strict=True):
                # a row of its own: a view would keep the call's whole array alive while
                # counting as one row
                row = np.array(view, dtype=np.float64)
                size = _entry_bytes(key, row)
                if self.max_bytes is not None and size > self.max_bytes:
                    continue
                self.nbytes += size - self._sizes.get(key, 0)
                self._sizes[key] = size
                self._data[key] = row
                self._data.move_to_end(key)
            while len(self._data) > self.maxsize or (
                self.max_bytes is not None and self.nbytes > self.max_bytes
            ):
                old, _ = self._data.popitem(last=False)
                self.nbytes -= self._sizes.pop(old)

    def clear(self) -> None:
        with self._lock:
            self._data.clear()
            self._sizes.clear()
            self.nbytes = 0
            self.hits = self.misses = 0


class CachedNLI:
    """Base class: caching, de-duplication and validation around ``_predict_uncached``.

    Subclasses implement ``_predict_uncached(premises, hypotheses)`` for pairs that are
    neither cached nor repeated within the call.
    """

    def __init__(self, cache_size: int = 100_000) -> None:
        self.cache = PairCache(cache_size)

    def _predict_uncached(self, premises: list[str], hypotheses: list[str]) -> np.ndarray:
        raise NotImplementedError

    def _lookup(
        self, premises: Sequence[str], hypotheses: Sequence[str]
    ) -> tuple[np.ndarray, dict[tuple[str, str], list[int]]]:
        """Validate the inputs; return the output array (cached rows filled in) and the unique
        misses, each with the positions it fills."""
        if isinstance(premises, str) or isinstance(hypotheses, str):
            raise TypeError("premises and hypotheses must be sequences of str, not str")
        if len(premises) != len(hypotheses):
            raise ValueError(
                f"premises ({len(premises)}) and hypotheses ({len(hypotheses)}) differ in length"
            )
        keys = [(str(p), str(h)) for p, h in zip(premises, hypotheses, strict=True)]
        out = np.empty((len(keys), 3), dtype=np.float64)
        cached = self.cache.get_many(keys)
        # Unique misses only: the same pair asked twice in one call costs one forward pass.
        todo: dict[tuple[str, str], list[int]] = {}
        for i, (key, row) in enumerate(zip(keys, cached, strict=True)):
            if row is None:
                todo.setdefault(key, []).append(i)
            else:
                out[i] = row
        return out, todo

    def _fill(
        self, out: np.ndarray, todo: dict[tuple[str, str], list[int]], probs: object
    ) -> np.ndarray:
        """Validate the misses' scores, put them in place and in the cache."""
        miss_keys = list(todo)
        valid = validate_probs(probs, len(miss_keys))
        for key, row in zip(miss_keys, valid, strict=True):
            out[todo[key]] = row
        self.cache.put_many(miss_keys, valid)
        return out

    def predict(self, premises: Sequence[str], hypotheses: Sequence[str]) -> np.ndarray:
        out, todo = self._lookup(premises, hypotheses)
        if not todo:
            return out
        return self._fill(
            out, todo, self._predict_uncached([k[0] for k in todo], [k[1] for k in todo])
        )

    async def apredict(self, premises: Sequence[str], hypotheses: Sequence[str]) -> np.ndarray:
        """``predict`` for asyncio callers: same cache, same validation, same result. The
        cache lookup and the checks run in a worker thread too: for a call of thousands of
        pairs they take tens of milliseconds, which the event loop never waits on."""
        out, todo = await asyncio.to_thread(self._lookup, premises, hypotheses)
        if not todo:
            return out
        probs = await self._apredict_uncached([k[0] for k in todo], [k[1] for k in todo])
        return await asyncio.to_thread(self._fill, out, todo, probs)

    async def _apredict_uncached(self, premises: list[str], hypotheses: list[str]) -> np.ndarray:
        """Default: the sync ``_predict_uncached`` in a worker thread (the loop stays free)."""
        return await asyncio.to_thread(self._predict_uncached, premises, hypotheses)


class CallableNLI(CachedNLI):
    """Wrap any scorer ``fn(premises, hypotheses) -> (n, 3)`` (a remote server, an LLM judge).

    Example::

        nli = CallableNLI(lambda p, h: my_server.score(p, h))
    """

    def __init__(
        self,
        fn: Callable[[list[str], list[str]], object],
        *,
        cache_size: int = 100_000,
    ) -> None:
        if not callable(fn):
            raise TypeError(f"CallableNLI needs a callable, got {type(fn).__name__}")
        super().__init__(cache_size)
        self.fn = fn

    def _predict_uncached(self, premises: list[str], hypotheses: list[str]) -> np.ndarray:
        return self.fn(premises, hypotheses)  # type: ignore[return-value]

    def __repr__(self) -> str:
        return f"CallableNLI({getattr(self.fn, '__name__', type(self.fn).__name__)})"
