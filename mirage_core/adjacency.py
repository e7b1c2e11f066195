"""Sparse structures of the engine in plain numpy: shared-token counts of claim pairs, how many
of one claim's tokens another states along given edges, and the claim graph's adjacency rows.

Both are small per query (hundreds to a few thousand claims) but must never be built with a
Python loop over pairs or as a dense n × n matrix. numpy's sort-based grouping does what a
sparse-matrix library would, without a 140 MB dependency on the torch-free install.
"""

from __future__ import annotations

from collections.abc import Iterable, Iterator, Sequence
from dataclasses import dataclass

import numpy as np

__all__ = ["Adjacency", "TokenIncidence", "tokens_stated"]


def _sum_duplicates(keys: np.ndarray, values: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """Distinct ``keys`` in ascending order and the sum of ``values`` of each."""
    uniq, inverse = np.unique(keys, return_inverse=True)
    return uniq, np.bincount(inverse, weights=values, minlength=uniq.size)


def _indptr(rows: np.ndarray, n: int) -> np.ndarray:
    """Row offsets of entries sorted by row: row ``i`` holds ``indptr[i]:indptr[i + 1]``."""
    return np.r_[0, np.cumsum(np.bincount(rows, minlength=n))].astype(np.int64)


def _flat(lists: Sequence[Sequence[int]]) -> tuple[np.ndarray, np.ndarray]:
    """(the ids of ``lists`` one after another, the length of each list)."""
    sizes = np.fromiter((len(x) for x in lists), dtype=np.int64, count=len(lists))
    flat = np.fromiter((t for x in lists for t in x), dtype=np.int64, count=int(sizes.sum()))
    return flat, sizes


def tokens_stated(
    tokens: Sequence[Sequence[int]],
    premise: np.ndarray,
    hypothesis: np.ndarray,
    stated: Sequence[Sequence[int]] | None = None,
    unit: np.ndarray | None = None,
) -> np.ndarray:
    """Per edge ``premise[k]`` → ``hypothesis[k]``: how many of the hypothesis claim's distinct
    ``tokens`` (token ids per claim) the premise states, i.e. the ``stated`` ids (default:
    ``tokens``) of any claim in the premise's ``unit`` (default: each claim its own unit; a
    passage index per claim widens it to the premise's passage). Each edge's tokens are looked
    up as (unit, token) keys in one array: no loop over edges."""
    flat, sizes = _flat(tokens)
    stated_flat, stated_sizes = (flat, sizes) if stated is None else _flat(stated)
    units = np.arange(len(tokens), dtype=np.int64) if unit is None else unit
    v = max(int(flat.max(initial=0)), int(stated_flat.max(initial=0))) + 1
    known = np.repeat(units, stated_sizes) * v + stated_flat
    per_edge = sizes[hypothesis]
    edge = np.repeat(np.arange(hypothesis.size), per_edge)
    starts = np.r_[0, np.cumsum(sizes)[:-1]]
    offset = np.arange(int(per_edge.sum())) - np.repeat(np.cumsum(per_edge) - per_edge, per_edge)
    keys = units[premise][edge] * v + flat[np.repeat(starts[hypothesis], per_edge) + offset]
    found = np.bincount(edge, weights=np.isin(keys, known), minlength=hypothesis.size)
    return found.astype(np.int64)


#: Token co-occurrences :meth:`TokenIncidence.shared_blocks` lists at once (a few tens of MB).
SHARED_BLOCK = 1_000_000


def _runs(weights: np.ndarray, block: int | None) -> list[tuple[int, int]]:
    """Consecutive index ranges ``[lo, hi)`` of ``weights`` whose sums stay within ``block``
    (one range over everything for ``None``; an index heavier than ``block`` alone is one)."""
    n = int(weights.size)
    if block is None or float(weights.sum()) <= block:
        return [(0, n)]
    cum = np.cumsum(weights)
    out, lo, base = [], 0, 0.0
    while lo < n:
        hi = int(np.searchsorted(cum, base + block, side="right"))
        hi = max(hi, lo + 1)
        out.append((lo, hi))
        base, lo = float(cum[hi - 1]), hi
    return out


def _count_keys(keys: np.ndarray, base: int, span: int) -> tuple[np.ndarray, np.ndarray]:
    """The distinct ``keys`` (all in ``[base, base + span)``), ascending, and how often each
    occurs: counted in one array over the span where it is not much larger than the keys
    (dense co-occurrence, as when every claim shares a word), else by sorting."""
    if span <= max(4 * keys.size, 1 << 16):
        counts = np.bincount(keys - base, minlength=span)
        found = np.flatnonzero(counts)
        return found + base, counts[found]
    return np.unique(keys, return_counts=True)


@dataclass(frozen=True)
class TokenIncidence:
    """Which claim holds which token: ``claim`` / ``token`` ids, one entry per distinct token of
    a claim, sorted by token and then claim; ``sizes``: distinct tokens per claim."""

    claim: np.ndarray
    token: np.ndarray
    sizes: np.ndarray

    @classmethod
    def of(cls, token_sets: Sequence[Iterable[str]]) -> TokenIncidence:
        vocab: dict[str, int] = {}
        ids = [[vocab.setdefault(t, len(vocab)) for t in set(ts)] for ts in token_sets]
        sizes = np.fromiter((len(i) for i in ids), dtype=np.int64, count=len(ids))
        claim = np.repeat(np.arange(len(ids), dtype=np.int64), sizes)
        token = np.fromiter((t for i in ids for t in i), dtype=np.int64, count=int(sizes.sum()))
        order = np.lexsort((claim, token))
        return cls(claim[order], token[order], sizes)

    @property
    def n(self) -> int:
        return int(self.sizes.size)

    def shared(self) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
        """``(left, right, shared)`` for every pair ``left < right`` sharing at least one token,
        ordered by ``(left, right)``: each token's claims are paired with each other, and the
        pairs counted."""
        parts = list(self.shared_blocks(None))
        if not parts:
            empty = np.empty(0, dtype=np.int64)
            return empty, empty, empty
        return tuple(np.concatenate(col) for col in zip(*parts, strict=True))  # type: ignore[return-value]

    def shared_blocks(
        self, block: int | None = SHARED_BLOCK
    ) -> Iterator[tuple[np.ndarray, np.ndarray, np.ndarray]]:
        """:meth:`shared`, in parts that each hold every pair of a run of ``left`` claims, in
        ``(left, right)`` order: a part lists at most about ``block`` token co-occurrences
        (``None``: one part), so evidence whose claims all share a word is paired in bounded
        memory, not in one array of every co-occurrence."""
        if self.token.size == 0:
            return
        starts = np.flatnonzero(np.r_[True, self.token[1:] != self.token[:-1]])
        ends = np.r_[starts[1:], self.token.size]
        pos = np.arange(self.token.size)
        # each entry is paired with the entries after it under the same token
        reps = np.repeat(ends, ends - starts) - pos - 1
        if int(reps.sum()) == 0:
            return
        per_claim = np.bincount(self.claim, weights=reps, minlength=self.n)
        for lo, hi in _runs(per_claim, block):
            at = np.flatnonzero((self.claim >= lo) & (self.claim < hi) & (reps > 0))
            if at.size == 0:
                continue
            r = reps[at]
            total = int(r.sum())
            first = np.repeat(at + 1, r)
            offset = np.arange(total) - np.repeat(np.cumsum(r) - r, r)
            left = np.repeat(self.claim[at], r)
            right = self.claim[first + offset]
            keys, counts = _count_keys(left * self.n + right, lo * self.n, (hi - lo) * self.n)
            yield keys // self.n, keys % self.n, counts

    def shared_of(self, left: np.ndarray, right: np.ndarray) -> np.ndarray:
        """Shared-token counts of the given pairs (``left < right``; 0 when they share none)."""
        l_all, r_all, counts = self.shared()
        want = np.asarray(left, dtype=np.int64) * self.n + np.asarray(right, dtype=np.int64)
        if counts.size == 0:
            return np.zeros(want.size, dtype=np.int64)
        keys = l_all * self.n + r_all  # ascending
        at = np.minimum(np.searchsorted(keys, want), keys.size - 1)
        return np.where(keys[at] == want, counts[at], 0)


@dataclass(frozen=True)
class Adjacency:
    """A symmetric weighted adjacency in compressed rows: ``row(i)`` gives the neighbours of
    ``i`` (each once, ascending) and the summed weights of the edges between them."""

    n: int
    indptr: np.ndarray
    indices: np.ndarray
    data: np.ndarray

    @classmethod
    def symmetric(
        cls, n: int, rows: np.ndarray, cols: np.ndarray, weights: np.ndarray
    ) -> Adjacency:
        """A[i, j] = Σ weights of edges i→j and j→i (every edge counted in both rows)."""
        r = np.concatenate([rows, cols]).astype(np.int64)
        c = np.concatenate([cols, rows]).astype(np.int64)
        keys, data = _sum_duplicates(r * n + c, np.concatenate([weights, weights]))
        width = max(n, 1)
        return cls(n, _indptr(keys // width, n), keys % width, data.astype(np.float64))

    @classmethod
    def dense(cls, matrix: np.ndarray) -> Adjacency:
        """From a dense square matrix (its non-zero entries; for tests and small inputs)."""
        m = np.asarray(matrix, dtype=np.float64)
        rows, cols = np.nonzero(m)  # row-major: sorted by row, then column
        n = m.shape[0]
        return cls(n, _indptr(rows, n), cols.astype(np.int64), m[rows, cols])

    def row(self, i: int) -> tuple[np.ndarray, np.ndarray]:
        lo, hi = self.indptr[i], self.indptr[i + 1]
        return self.indices[lo:hi], self.data[lo:hi]

    def toarray(self) -> np.ndarray:
        out = np.zeros((self.n, self.n))
        rows = np.repeat(np.arange(self.n), np.diff(self.indptr))
        out[rows, self.indices] = self.data
        return out
