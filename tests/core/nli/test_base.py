"""The NLI protocol, validation, PairCache and CallableNLI (no torch needed)."""

from __future__ import annotations

import gc
import threading
import weakref

import numpy as np
import pytest

from mirage_core.errors import NLIError
from mirage_core.nli import LABELS, CachedNLI, CallableNLI, NLIBackend, PairCache
from mirage_core.nli.base import validate_probs


def uniform(premises: list[str], hypotheses: list[str]) -> np.ndarray:
    return np.full((len(premises), 3), 1 / 3)


class Recorder:
    """A scorer that records every call and scores a pair from its text (deterministic)."""

    def __init__(self) -> None:
        self.calls: list[list[tuple[str, str]]] = []
        self.lock = threading.Lock()

    def __call__(self, premises: list[str], hypotheses: list[str]) -> np.ndarray:
        with self.lock:
            self.calls.append(list(zip(premises, hypotheses, strict=True)))
        rows = []
        for p, h in zip(premises, hypotheses, strict=True):
            e = (len(p) % 7 + 1) / 10
            c = (len(h) % 5 + 1) / 10
            rows.append([e, 1 - e - c, c])
        return np.asarray(rows)


def test_labels_order() -> None:
    assert LABELS == ("entailment", "neutral", "contradiction")


# -- validate_probs ------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("probs", "n", "match"),
    [
        (np.full((2, 2), 0.5), 2, "shape"),
        (np.full((3, 3), 1 / 3), 2, "shape"),
        (np.full(3, 1 / 3), 1, "shape"),
        ([[2.0, -1.0, 0.5]], 1, "outside"),  # raw logits
        ([[0.5, 0.5, 0.5]], 1, "sum to 1"),  # in [0, 1] but not a distribution
        ([[np.nan, 0.5, 0.5]], 1, "outside"),
        ([[np.inf, 0.0, 0.0]], 1, "outside"),
        ([["a", "b", "c"]], 1, "non-numeric"),
        (None, 1, "shape|non-numeric"),
    ],
)
def test_validate_probs_rejects(probs, n: int, match: str) -> None:
    with pytest.raises(NLIError, match=match):
        validate_probs(probs, n)


def test_validate_probs_accepts_and_clips() -> None:
    out = validate_probs([[1.0 + 1e-7, -1e-7, 0.0], [0.2, 0.3, 0.5]], 2)
    assert out.dtype == np.float64 and out.shape == (2, 3)
    assert out.min() >= 0.0 and out.max() <= 1.0
    assert validate_probs(np.empty((0, 3)), 0).shape == (0, 3)


# -- CallableNLI ---------------------------------------------------------------------------


def test_callable_nli_is_a_backend() -> None:
    nli = CallableNLI(uniform)
    assert isinstance(nli, NLIBackend) and isinstance(nli, CachedNLI)
    assert "uniform" in repr(nli)
    np.testing.assert_allclose(nli.predict(["a"], ["b"]), [[1 / 3] * 3])


def test_callable_nli_argument_errors() -> None:
    with pytest.raises(TypeError, match="CallableNLI needs a callable, got str"):
        CallableNLI("not callable")  # type: ignore[arg-type]
    nli = CallableNLI(uniform)
    with pytest.raises(TypeError, match="sequences of str, not str"):
        nli.predict("a", "b")  # type: ignore[arg-type]
    with pytest.raises(ValueError, match="differ in length"):
        nli.predict(["a", "b"], ["c"])


def test_callable_nli_empty_input_never_calls_fn() -> None:
    fn = Recorder()
    out = CallableNLI(fn).predict([], [])
    assert out.shape == (0, 3) and fn.calls == []


def test_bad_scorer_output_raises_nli_error() -> None:
    logits = CallableNLI(lambda p, h: np.tile([2.0, 0.1, -1.0], (len(p), 1)))
    with pytest.raises(NLIError):
        logits.predict(["a"], ["b"])
    short = CallableNLI(lambda p, h: np.full((len(p) - 1, 3), 1 / 3))
    with pytest.raises(NLIError, match="shape"):
        short.predict(["a", "b"], ["c", "d"])
    # A failed call caches nothing.
    assert len(logits.cache) == 0 and len(short.cache) == 0


def test_repeated_pairs_reach_the_scorer_once() -> None:
    fn = Recorder()
    nli = CallableNLI(fn)
    premises = ["p1", "p2", "p1", "p1", "p3"]
    hypotheses = ["h1", "h2", "h1", "h1x", "h1"]
    out = nli.predict(premises, hypotheses)
    assert len(fn.calls) == 1
    assert sorted(fn.calls[0]) == sorted(set(zip(premises, hypotheses, strict=True)))
    assert len(fn.calls[0]) == 4
    np.testing.assert_array_equal(out[0], out[2])
    np.testing.assert_allclose(out, fn(premises, hypotheses))


def test_second_call_hits_the_cache() -> None:
    fn = Recorder()
    nli = CallableNLI(fn)
    first = nli.predict(["a", "b"], ["x", "y"])
    assert (nli.cache.hits, nli.cache.misses) == (0, 2)
    second = nli.predict(["b", "a", "c"], ["y", "x", "z"])
    assert (nli.cache.hits, nli.cache.misses) == (2, 3)
    assert fn.calls[1] == [("c", "z")]  # only the new pair
    np.testing.assert_array_equal(second[:2], first[::-1])


def test_pairs_are_directional() -> None:
    fn = Recorder()
    nli = CallableNLI(fn)
    nli.predict(["a"], ["bb"])
    nli.predict(["bb"], ["a"])
    assert fn.calls == [[("a", "bb")], [("bb", "a")]]


def test_lru_eviction_at_maxsize() -> None:
    fn = Recorder()
    nli = CallableNLI(fn, cache_size=2)
    nli.predict(["1", "2"], ["h", "h"])
    nli.predict(["1"], ["h"])  # hit: "1" is now the most recent
    nli.predict(["3"], ["h"])  # evicts "2", the least recently used
    assert len(nli.cache) == 2
    fn.calls.clear()
    nli.predict(["1", "3"], ["h", "h"])
    assert fn.calls == []
    nli.predict(["2"], ["h"])
    assert fn.calls == [[("2", "h")]]


def test_cache_size_zero_disables_caching() -> None:
    fn = Recorder()
    nli = CallableNLI(fn, cache_size=0)
    nli.predict(["a"], ["b"])
    nli.predict(["a"], ["b"])
    assert len(fn.calls) == 2 and len(nli.cache) == 0


# -- PairCache -----------------------------------------------------------------------------


def test_pair_cache_basics() -> None:
    with pytest.raises(ValueError):
        PairCache(-1)
    cache = PairCache(maxsize=3)
    rows = np.eye(3)
    keys = [("a", "b"), ("c", "d"), ("e", "f")]
    cache.put_many(keys, rows)
    got = cache.get_many([("a", "b"), ("x", "y")])
    np.testing.assert_array_equal(got[0], rows[0])
    assert got[1] is None
    assert (cache.hits, cache.misses) == (1, 1)
    cache.put_many([("g", "h")], rows[:1])  # ("c", "d") is now the oldest
    assert len(cache) == 3
    assert cache.get_many([("c", "d")]) == [None]
    cache.clear()
    assert len(cache) == 0 and (cache.hits, cache.misses) == (0, 0)


def test_a_cached_row_does_not_keep_its_call_s_array_alive() -> None:
    cache = PairCache(maxsize=1)
    scores = np.full((4_096, 3), 1 / 3)
    alive = weakref.ref(scores)
    cache.put_many([(f"p{i}", "h") for i in range(4_096)], scores)
    del scores
    gc.collect()
    # the one entry left holds its own row: the call's 4,096 rows are freed, and the cache's
    # byte count is the memory it holds
    assert alive() is None and len(cache) == 1
    np.testing.assert_array_equal(cache.get_many([("p4095", "h")])[0], [1 / 3] * 3)


class ThreadOfCache(PairCache):
    """A PairCache that records the thread of every lookup and store."""

    def __init__(self) -> None:
        super().__init__()
        self.threads: set[int] = set()

    def get_many(self, keys):
        self.threads.add(threading.get_ident())
        return super().get_many(keys)

    def put_many(self, keys, rows):
        self.threads.add(threading.get_ident())
        super().put_many(keys, rows)


async def test_apredict_looks_up_and_fills_the_cache_off_the_event_loop() -> None:
    nli = CallableNLI(Recorder())
    nli.cache = ThreadOfCache()
    premises = [f"premise {i}" for i in range(50)]
    hypotheses = [f"hypothesis {i % 7}" for i in range(50)]
    first = await nli.apredict(premises, hypotheses)
    again = await nli.apredict(premises, hypotheses)  # every pair a hit
    np.testing.assert_array_equal(first, again)
    np.testing.assert_allclose(first, Recorder()(premises, hypotheses))
    assert nli.cache.threads and threading.get_ident() not in nli.cache.threads


def test_callable_nli_from_many_threads() -> None:
    fn = Recorder()
    nli = CallableNLI(fn, cache_size=50)
    premises = [f"premise {i}" * (i + 1) for i in range(20)]
    hypotheses = [f"hyp {i}" for i in range(20)]
    expected = fn(premises, hypotheses)
    fn.calls.clear()
    barrier = threading.Barrier(16)
    results: dict[int, np.ndarray] = {}

    def work(t: int) -> None:
        barrier.wait(timeout=30)
        idx = [(t + k) % 20 for k in range(8)]
        results[t] = (idx, nli.predict([premises[i] for i in idx], [hypotheses[i] for i in idx]))

    threads = [threading.Thread(target=work, args=(t,)) for t in range(16)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join(timeout=30)
    assert len(results) == 16
    for idx, out in results.values():
        np.testing.assert_allclose(out, expected[idx])
    assert len(nli.cache) == 20


def test_callable_nli_is_named_after_its_function() -> None:
    assert repr(CallableNLI(uniform)) == "CallableNLI(uniform)"
    assert repr(CallableNLI(Recorder())) == "CallableNLI(Recorder)"  # no __name__: its type
