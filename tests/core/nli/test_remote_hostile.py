"""HTTPNLI and TEINLI against hostile servers: a server that trickles its answer a byte at a
time (a real socket on 127.0.0.1), Retry-After, answers that are not probabilities, a TEI
label listed twice, and the concurrency limit of apredict."""

from __future__ import annotations

import asyncio
import email.utils
import json
import socket
import threading
import time

import numpy as np
import pytest

httpx = pytest.importorskip("httpx")
pytest.importorskip("tenacity")

from mirage_core.errors import NLIError  # noqa: E402
from mirage_core.nli import HTTPNLI, TEINLI, HTTPOptions, RetryPolicy  # noqa: E402
from mirage_core.nli.remote import parse_retry_after  # noqa: E402

INFO = {
    "protocol": "mirage-nli/1",
    "model": "trickle",
    "labels": ["entailment", "neutral", "contradiction"],
    "max_batch_pairs": 1,  # every pair is its own request: a call is many requests
}


class TricklingServer:
    """An HTTP/1.1 server on 127.0.0.1 that answers /info at once and sends each predict
    answer one byte every ``interval_s`` (every read of the client succeeds, so a per-read
    timeout never fires). It stops by itself after ``lifetime_s``."""

    def __init__(self, interval_s: float = 0.05, lifetime_s: float = 20.0) -> None:
        self.interval_s = interval_s
        self.sock = socket.socket()
        self.sock.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
        self.sock.bind(("127.0.0.1", 0))
        self.sock.listen(16)
        self.sock.settimeout(0.2)
        self.port = self.sock.getsockname()[1]
        self.stop_at = time.monotonic() + lifetime_s
        self.stopped = threading.Event()
        self.predicts = 0
        self.threads: list[threading.Thread] = []
        self.thread = threading.Thread(target=self._serve, daemon=True)
        self.thread.start()

    @property
    def url(self) -> str:
        return f"http://127.0.0.1:{self.port}/nli"

    def _alive(self) -> bool:
        return not self.stopped.is_set() and time.monotonic() < self.stop_at

    def _serve(self) -> None:
        while self._alive():
            try:
                conn, _ = self.sock.accept()
            except TimeoutError:
                continue
            except OSError:
                return
            t = threading.Thread(target=self._handle, args=(conn,), daemon=True)
            t.start()
            self.threads.append(t)

    def _handle(self, conn: socket.socket) -> None:
        conn.settimeout(0.5)
        buf = b""
        try:
            while self._alive():
                while b"\r\n\r\n" not in buf:
                    try:
                        data = conn.recv(65536)
                    except TimeoutError:
                        if not self._alive():
                            return
                        continue
                    if not data:
                        return
                    buf += data
                head, _, buf = buf.partition(b"\r\n\r\n")
                length = 0
                for line in head.split(b"\r\n")[1:]:
                    name, _, value = line.partition(b":")
                    if name.strip().lower() == b"content-length":
                        length = int(value)
                while len(buf) < length:
                    buf += conn.recv(65536)
                buf = buf[length:]
                if head.startswith(b"GET"):
                    body = json.dumps(INFO).encode()
                    conn.sendall(self._headers(len(body)) + body)
                    continue
                self.predicts += 1
                body = json.dumps({"probs": [[0.8, 0.15, 0.05]]}).encode() + b" " * 400
                conn.sendall(self._headers(len(body)))
                for i in range(len(body)):
                    if not self._alive():
                        return
                    conn.sendall(body[i : i + 1])
                    time.sleep(self.interval_s)
        except OSError:
            return
        finally:
            conn.close()

    @staticmethod
    def _headers(length: int) -> bytes:
        return (
            f"HTTP/1.1 200 OK\r\nContent-Type: application/json\r\nContent-Length: {length}\r\n\r\n"
        ).encode()

    def close(self) -> None:
        self.stopped.set()
        self.sock.close()
        self.thread.join(timeout=2)
        for t in self.threads:
            t.join(timeout=2)


@pytest.fixture
def trickler():
    server = TricklingServer()
    yield server
    server.close()


DEADLINE_S = 2.0


def trickled_nli(server: TricklingServer) -> HTTPNLI:
    options = HTTPOptions(
        timeout_s=1.0,
        retry=RetryPolicy(max_retries=3, backoff_s=0.01, deadline_s=DEADLINE_S),
    )
    return HTTPNLI(server.url, options=options, cache_size=0)


PREMISES = [f"Premise {i}." for i in range(4)]
HYPOTHESES = [f"Hypothesis {i}." for i in range(4)]


def test_a_trickling_server_cannot_stretch_a_call_past_its_deadline(trickler) -> None:
    nli = trickled_nli(trickler)
    start = time.monotonic()
    with pytest.raises(NLIError, match="deadline"):
        nli.predict(PREMISES, HYPOTHESES)
    elapsed = time.monotonic() - start
    # Before: each read met the 1 s read timeout and each of the 4 requests had its own time.
    assert elapsed < DEADLINE_S + 1.0, elapsed
    assert trickler.predicts == 1  # the first answer was still trickling at the deadline
    nli.close()


async def test_a_trickling_server_cannot_stretch_an_async_call_past_its_deadline(
    trickler,
) -> None:
    nli = trickled_nli(trickler)
    start = time.monotonic()
    async with nli:
        with pytest.raises(NLIError, match="deadline"):
            await nli.apredict(PREMISES, HYPOTHESES)
    elapsed = time.monotonic() - start
    assert elapsed < DEADLINE_S + 1.0, elapsed


def test_a_fast_server_is_not_cut_short(trickler) -> None:
    trickler.interval_s = 0.0005  # ~0.2 s per answer: 4 answers fit well within 10 s
    options = HTTPOptions(timeout_s=1.0, retry=RetryPolicy(deadline_s=10.0))
    probs = HTTPNLI(trickler.url, options=options, cache_size=0).predict(PREMISES, HYPOTHESES)
    np.testing.assert_allclose(probs, [[0.8, 0.15, 0.05]] * 4)


# -- Retry-After --------------------------------------------------------------------------------


def test_retry_after_parses_seconds_and_http_dates() -> None:
    now = time.time()
    assert parse_retry_after("3") == 3.0
    assert parse_retry_after(" 0 ") == 0.0
    date = email.utils.formatdate(now + 30, usegmt=True)
    assert 28 <= parse_retry_after(date, now=now) <= 31
    assert parse_retry_after(email.utils.formatdate(now - 60, usegmt=True)) == 0.0
    for junk in (None, "", "-1", "soon", "1.5e9999", "Wed, 99 Foo 2024 99:99:99 GMT", "\u00b2"):
        assert parse_retry_after(junk) is None, junk


def busy_then_ok(retry_after: str | bytes | None, fails: int = 1):
    calls: list[float] = []

    def handler(request: httpx.Request) -> httpx.Response:
        if request.url.path.endswith("/info"):
            return httpx.Response(200, json=INFO | {"max_batch_pairs": 64})
        calls.append(time.monotonic())
        if len(calls) <= fails:
            headers = {"Retry-After": retry_after} if retry_after is not None else {}
            return httpx.Response(503, text="busy", headers=headers)
        n = len(json.loads(request.content)["pairs"])
        return httpx.Response(200, json={"probs": [[0.8, 0.15, 0.05]] * n})

    return handler, calls


def mock_nli(handler, retry: RetryPolicy) -> HTTPNLI:
    transport = httpx.MockTransport(handler)
    return HTTPNLI(
        "http://nli.test/nli",
        options=HTTPOptions(retry=retry),
        transport=transport,
        async_transport=transport,
        cache_size=0,
    )


QUICK = RetryPolicy(max_retries=3, backoff_s=0.001, backoff_max_s=0.002, deadline_s=5.0)


@pytest.mark.parametrize("kind", ["seconds", "http-date"])
def test_retry_after_is_honoured(kind) -> None:
    # An HTTP-date has whole seconds: 2 s ahead waits between 1 and 2 s.
    value = "1" if kind == "seconds" else email.utils.formatdate(time.time() + 2, usegmt=True)
    handler, calls = busy_then_ok(value)
    mock_nli(handler, QUICK).predict(["a"], ["b"])
    assert len(calls) == 2
    assert 0.9 <= calls[1] - calls[0] <= 2.5  # not the 1 ms backoff


async def test_retry_after_is_honoured_by_apredict() -> None:
    handler, calls = busy_then_ok("1")
    nli = mock_nli(handler, QUICK)
    async with nli:
        await nli.apredict(["a"], ["b"])
    assert len(calls) == 2 and calls[1] - calls[0] >= 0.9


def test_a_retry_after_past_the_deadline_fails_at_once() -> None:
    handler, calls = busy_then_ok("120")
    start = time.monotonic()
    with pytest.raises(NLIError, match="HTTP 503"):
        mock_nli(handler, QUICK).predict(["a"], ["b"])
    assert time.monotonic() - start < 1.0 and len(calls) == 1


def test_a_retry_after_longer_than_the_caller_waits_ends_the_call_whatever_the_backoff() -> None:
    # retry_after_max_s under backoff_max_s: a 3 s Retry-After still ends the call at once
    handler, calls = busy_then_ok("3")
    patient_backoff = RetryPolicy(
        max_retries=1, backoff_s=0.001, backoff_max_s=5.0, retry_after_max_s=1.0, deadline_s=None
    )
    start = time.monotonic()
    with pytest.raises(NLIError, match="HTTP 503"):
        mock_nli(handler, patient_backoff).predict(["a"], ["b"])
    assert time.monotonic() - start < 1.0 and len(calls) == 1


def test_an_unreadable_retry_after_falls_back_to_the_backoff() -> None:
    handler, calls = busy_then_ok(b"\xb2")  # "²" in latin-1, as a header carries it
    mock_nli(handler, QUICK).predict(["a"], ["b"])
    assert len(calls) == 2


# -- strict decoding ---------------------------------------------------------------------------


@pytest.mark.parametrize(
    "content",
    [
        b'{"probs": [[true, false, false]]}',
        b'{"probs": [["0.8", "0.1", "0.1"]]}',
        b'{"probs": [[null, 0.5, 0.5]]}',
        b'{"probs": [[NaN, 0.5, 0.5]]}',
        b'{"probs": [[Infinity, 0, 0]]}',
        b'{"probs": [[0.5, 0.5]]}',
        b'{"probs": [[0.25, 0.25, 0.25, 0.25]]}',
        b'{"probs": [[0.9, 0.9, 0.9]]}',
        b'{"probs": [[1.5, -0.25, -0.25]]}',
        b'{"probs": [[0.8, 0.15, 0.05], [0.8, 0.15, 0.05]]}',
        b'{"probs": [[[0.8], 0.15, 0.05]]}',
        b'{"probs": ' + b"[" * 100_000 + b"]" * 100_000 + b"}",
    ],
)
def test_answers_that_are_not_probabilities_are_refused(content) -> None:
    def handler(request: httpx.Request) -> httpx.Response:
        if request.url.path.endswith("/info"):
            return httpx.Response(200, json=INFO)
        return httpx.Response(200, content=content)

    with pytest.raises(NLIError):
        mock_nli(handler, QUICK).predict(["a"], ["b"])


@pytest.mark.parametrize(
    "labels",
    [["entailment", "entailment", "contradiction"], ["entailment", "neutral"], [1, 2, 3]],
)
def test_an_info_with_bad_labels_is_refused(labels) -> None:
    def handler(request: httpx.Request) -> httpx.Response:
        return httpx.Response(200, json=INFO | {"labels": labels})

    with pytest.raises(NLIError, match="info"):
        mock_nli(handler, QUICK).predict(["a"], ["b"])


TEI_INFO = {
    "model_id": "fake",
    "model_type": {
        "classifier": {"id2label": {"0": "CONTRADICTION", "1": "ENTAILMENT", "2": "NEUTRAL"}}
    },
    "max_client_batch_size": 8,
}


def tei_row(**scores):
    return [{"label": k, "score": v} for k, v in scores.items()]


@pytest.mark.parametrize(
    ("row", "match"),
    [
        (  # a label listed twice: before, the second silently overwrote the first
            [
                {"label": "ENTAILMENT", "score": 5.0},
                {"label": "ENTAILMENT", "score": -9.0},
                {"label": "NEUTRAL", "score": 0.0},
            ],
            "twice",
        ),
        (tei_row(ENTAILMENT=True, NEUTRAL=0.0, CONTRADICTION=0.0), "finite number"),
        (tei_row(ENTAILMENT="5", NEUTRAL=0.0, CONTRADICTION=0.0), "finite number"),
        (tei_row(ENTAILMENT=None, NEUTRAL=0.0, CONTRADICTION=0.0), "finite number"),
        (tei_row(ENTAILMENT=1.0, NEUTRAL=0.0, SARCASM=0.0), "unknown label"),
        (tei_row(ENTAILMENT=1.0, NEUTRAL=0.0), "list of 3"),
        ("ENTAILMENT", "list of 3"),
    ],
)
def test_tei_answers_are_decoded_strictly(row, match) -> None:
    def handler(request: httpx.Request) -> httpx.Response:
        if request.url.path == "/info":
            return httpx.Response(200, json=TEI_INFO)
        return httpx.Response(200, json=[row])

    nli = TEINLI(
        "http://tei.test",
        options=HTTPOptions(retry=QUICK),
        transport=httpx.MockTransport(handler),
        cache_size=0,
    )
    with pytest.raises(NLIError, match=match):
        nli.predict(["a"], ["b"])


# -- apredict: the concurrency limit holds across calls ----------------------------------------


async def test_max_concurrent_requests_bounds_every_apredict_call_on_a_loop() -> None:
    in_flight = [0]
    peak = [0]

    async def handler(request: httpx.Request) -> httpx.Response:
        if request.url.path.endswith("/info"):
            return httpx.Response(200, json=INFO | {"max_batch_pairs": 1})
        in_flight[0] += 1
        peak[0] = max(peak[0], in_flight[0])
        await asyncio.sleep(0.02)
        in_flight[0] -= 1
        return httpx.Response(200, json={"probs": [[0.8, 0.15, 0.05]]})

    nli = HTTPNLI(
        "http://nli.test/nli",
        options=HTTPOptions(max_concurrent_requests=2, retry=QUICK),
        async_transport=httpx.MockTransport(handler),
        cache_size=0,
    )
    async with nli:
        parts = await asyncio.gather(
            *(nli.apredict([f"p{k}-{i}" for i in range(4)], ["h"] * 4) for k in range(3))
        )
    assert [p.shape for p in parts] == [(4, 3)] * 3
    assert peak[0] == 2  # 12 requests from 3 calls, never more than 2 at once


async def test_a_failed_request_stops_the_rest_of_its_call() -> None:
    started = [0]

    async def handler(request: httpx.Request) -> httpx.Response:
        if request.url.path.endswith("/info"):
            return httpx.Response(200, json=INFO | {"max_batch_pairs": 1})
        started[0] += 1
        if started[0] == 1:
            return httpx.Response(400, text="no")
        await asyncio.sleep(0.5)
        return httpx.Response(200, json={"probs": [[0.8, 0.15, 0.05]]})

    nli = HTTPNLI(
        "http://nli.test/nli",
        options=HTTPOptions(max_concurrent_requests=1, retry=QUICK),
        async_transport=httpx.MockTransport(handler),
        cache_size=0,
    )
    start = time.monotonic()
    async with nli:
        with pytest.raises(NLIError, match="HTTP 400"):
            await nli.apredict([f"p{i}" for i in range(8)], ["h"] * 8)
    assert time.monotonic() - start < 0.4 and started[0] <= 2
