"""ServeHandleNLI against a fake DeploymentHandle (no Ray instance): an attempt that ends
without its answer (a timeout, the caller's cancellation) cancels its request before the next
attempt is sent, and a request that answers is left alone."""

from __future__ import annotations

import asyncio
import time

import numpy as np
import pytest

from mirage_core.errors import NLIError
from mirage_core.nli.retry import RetryPolicy
from mirage_core.serve import ServeHandleNLI

SLOW = 30.0  #: seconds a stuck replica takes: far past any attempt's timeout here
FAST_RETRY = RetryPolicy(max_retries=2, backoff_s=0.001, backoff_max_s=0.002, deadline_s=5.0)


def scores(premises: list[str]) -> np.ndarray:
    return np.tile([0.7, 0.2, 0.1], (len(premises), 1))


class FakeResponse:
    """A ``DeploymentResponse`` answering after ``delay`` seconds, sync (``result``) or async
    (``await``); ``cancel()`` is recorded in the handle's log."""

    def __init__(self, handle: FakeHandle, premises: list[str], delay: float) -> None:
        self.handle, self.premises, self.delay = handle, premises, delay
        self.cancelled = False

    def result(self, *, timeout_s: float | None = None) -> np.ndarray:
        if timeout_s is not None and self.delay > timeout_s:
            time.sleep(timeout_s)
            raise TimeoutError("Timed out resolving to ObjectRef.")  # what Serve raises
        time.sleep(self.delay)
        return scores(self.premises)

    def __await__(self):
        yield from asyncio.sleep(self.delay).__await__()
        return scores(self.premises)

    def cancel(self) -> None:
        self.cancelled = True
        self.handle.log.append("cancel")
        if self.handle.cancel_error is not None:
            raise self.handle.cancel_error


class FakeHandle:
    """``handle.predict.remote(premises, hypotheses)``: the n-th request takes ``delays[n]``
    seconds (the last delay repeats). ``log`` holds "send" and "cancel" in order."""

    def __init__(self, delays: list[float]) -> None:
        self.delays = list(delays)
        self.responses: list[FakeResponse] = []
        self.log: list[str] = []
        self.cancel_error: Exception | None = None
        self.predict = self  # handle.predict.remote

    def remote(self, premises: list[str], hypotheses: list[str]) -> FakeResponse:
        delay = self.delays[min(len(self.responses), len(self.delays) - 1)]
        response = FakeResponse(self, premises, delay)
        self.responses.append(response)
        self.log.append("send")
        return response


@pytest.fixture(params=["predict", "apredict"])
def call(request):
    """``call(nli, premises, hypotheses)``: the scores by ``predict``, or by ``apredict``."""
    if request.param == "predict":
        return lambda nli, p, h: nli.predict(p, h)
    return lambda nli, p, h: asyncio.run(nli.apredict(p, h))


def handle_nli(handle: FakeHandle) -> ServeHandleNLI:
    return ServeHandleNLI(handle, timeout_s=0.05, retry=FAST_RETRY, cache_size=0)


def test_a_timed_out_attempt_is_cancelled_before_the_retry(call) -> None:
    handle = FakeHandle([SLOW, 0.0])
    probs = call(handle_nli(handle), ["p1", "p2"], ["h1", "h2"])
    np.testing.assert_allclose(probs, scores(["p1", "p2"]))
    assert handle.log == ["send", "cancel", "send"]
    assert [r.cancelled for r in handle.responses] == [True, False]


def test_every_timed_out_attempt_is_cancelled_and_the_call_fails_closed(call) -> None:
    handle = FakeHandle([SLOW])
    with pytest.raises(NLIError, match="TimeoutError"):
        call(handle_nli(handle), ["p"], ["h"])
    attempts = 1 + FAST_RETRY.max_retries
    assert handle.log == ["send", "cancel"] * attempts
    assert all(r.cancelled for r in handle.responses)


def test_a_cancel_that_fails_does_not_stop_the_retry(call) -> None:
    handle = FakeHandle([SLOW, 0.0])
    handle.cancel_error = RuntimeError("the replica is gone")
    probs = call(handle_nli(handle), ["p"], ["h"])
    np.testing.assert_allclose(probs, scores(["p"]))
    assert handle.log == ["send", "cancel", "send"]


async def test_a_cancelled_caller_cancels_its_request() -> None:
    handle = FakeHandle([SLOW])
    nli = ServeHandleNLI(handle, timeout_s=SLOW, retry=FAST_RETRY, cache_size=0)
    task = asyncio.ensure_future(nli.apredict(["p"], ["h"]))
    while not handle.responses:
        await asyncio.sleep(0.001)
    task.cancel()
    with pytest.raises(asyncio.CancelledError):
        await task
    assert handle.log == ["send", "cancel"]
