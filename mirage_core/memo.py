"""Memoized functions of text whose memory is bounded by the text they hold, not only by
their entry count.

A function of a passage's or a sentence's text (its content tokens, its facts) is asked for the
same text by several steps of one query and again by later queries that retrieve the same page.
``functools.lru_cache`` bounds such a memo by entries only, and what one entry holds grows with
its text: a 20,000-character page keeps its text and a set of thousands of tokens, about
0.3 MB, so 65,536 of them would hold gigabytes in a long-lived service. :func:`text_memo`
bounds the characters of the text arguments it holds as well (the values derived from a text
grow with it), evicting the least recently used entries first.
"""

from __future__ import annotations

import functools
import threading
from collections import OrderedDict
from collections.abc import Callable, Hashable
from typing import Any, Generic, TypeVar

__all__ = ["MAX_CHARS", "MAX_ENTRIES", "TextMemo", "text_memo"]

#: Default bound on a memo's entries.
MAX_ENTRIES = 65_536
#: Default bound on the characters of the text arguments a memo holds: a text and the set of
#: its content tokens take at most about 15 bytes per character (a page of ever new words), so
#: some 60 MB at this bound.
MAX_CHARS = 4_000_000

R = TypeVar("R")


def _chars(key: tuple[Hashable, ...]) -> int:
    return sum(len(a) for a in key if isinstance(a, str))


class TextMemo(Generic[R]):
    """``fn`` memoized on its positional arguments, thread-safe; at most ``maxsize`` entries
    and ``max_chars`` characters of text arguments (an entry longer than that alone is computed
    every time, not held). ``cache_info()`` and ``cache_clear()`` as ``functools.lru_cache``."""

    __qualname__: str  # the wrapped function's, set by functools.update_wrapper

    def __init__(self, fn: Callable[..., R], maxsize: int, max_chars: int) -> None:
        if maxsize < 0 or max_chars < 0:
            raise ValueError("maxsize and max_chars must be >= 0")
        functools.update_wrapper(self, fn)
        self._fn = fn
        self.maxsize = maxsize
        self.max_chars = max_chars
        self._data: OrderedDict[tuple[Hashable, ...], R] = OrderedDict()
        self._lock = threading.Lock()
        self.chars = 0
        self.hits = 0
        self.misses = 0

    def __call__(self, *args: Any) -> R:
        with self._lock:
            try:
                value = self._data[args]
            except KeyError:
                self.misses += 1
            else:
                self._data.move_to_end(args)
                self.hits += 1
                return value
        value = self._fn(*args)
        size = _chars(args)
        if size > self.max_chars or self.maxsize == 0:
            return value
        with self._lock:
            if args not in self._data:
                self._data[args] = value
                self.chars += size
                while len(self._data) > self.maxsize or self.chars > self.max_chars:
                    old, _ = self._data.popitem(last=False)
                    self.chars -= _chars(old)
        return value

    def cache_info(self) -> functools._CacheInfo:
        with self._lock:
            return functools._CacheInfo(self.hits, self.misses, self.maxsize, len(self._data))

    def cache_clear(self) -> None:
        with self._lock:
            self._data.clear()
            self.chars = self.hits = self.misses = 0

    def __reduce__(self) -> str:
        # pickled by reference, as the function it wraps is
        return self.__qualname__


def text_memo(
    maxsize: int = MAX_ENTRIES, max_chars: int = MAX_CHARS
) -> Callable[[Callable[..., R]], TextMemo[R]]:
    """Decorator: :class:`TextMemo` of the function (called with positional arguments only)."""

    def wrap(fn: Callable[..., R]) -> TextMemo[R]:
        return TextMemo(fn, maxsize, max_chars)

    return wrap
