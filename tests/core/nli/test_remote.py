"""HTTPNLI and TEINLI against in-memory servers (httpx.MockTransport): label order read from
the server, batching, retries, timeouts and every failure as NLIError. Offline, no sockets
except the refused-connection test (a closed loopback port)."""

from __future__ import annotations

import json
import socket
import time
import zlib

import numpy as np
import pytest

httpx = pytest.importorskip("httpx")

from mirage_core import Mirage, MirageConfig, Passage  # noqa: E402
from mirage_core.errors import NLIError  # noqa: E402
from mirage_core.nli import (  # noqa: E402
    HTTPNLI,
    LABELS,
    TEINLI,
    HTTPOptions,
    NLIBackend,
    RetryPolicy,
)

FAST_RETRY = RetryPolicy(max_retries=2, backoff_s=0.001, backoff_max_s=0.002, deadline_s=5.0)

#: The fake servers' column order: a hard-coded [entail, neutral, contra] would be caught.
SERVER_LABELS = ["contradiction", "entailment", "neutral"]
TO_SERVER = [SERVER_LABELS.index(name) for name in LABELS]  # our column i -> server column


def reference_probs(premises, hypotheses) -> np.ndarray:
    """Deterministic [entail, neutral, contra] probabilities of each pair."""
    rows = []
    for p, h in zip(premises, hypotheses, strict=True):
        seed = zlib.crc32(f"{p}\x00{h}".encode())
        raw = np.asarray([1 + seed % 7, 1 + (seed >> 3) % 5, 1 + (seed >> 7) % 11], dtype=float)
        rows.append(raw / raw.sum())
    return np.asarray(rows).reshape(-1, 3)


def reference_logits(premises, hypotheses) -> np.ndarray:
    return np.log(reference_probs(premises, hypotheses)) + 3.0


class MirageServer:
    """A mirage-protocol server in memory; records every request, can fail on purpose."""

    def __init__(
        self,
        *,
        max_batch_pairs: int = 1000,
        labels=SERVER_LABELS,
        max_text_chars: int | None = None,
        max_body_bytes: int | None = None,
    ) -> None:
        self.max_batch_pairs = max_batch_pairs
        self.max_text_chars = max_text_chars
        self.max_body_bytes = max_body_bytes
        self.labels = list(labels)
        self.requests: list[tuple[str, str, int]] = []  # (method, path, pairs)
        self.statuses: list[int] = []  # of each answer, in order
        self.failures: list[object] = []  # consumed one per predict request: status or exception

    def info(self) -> dict:
        return {
            "protocol": "mirage-nli/1",
            "model": "fake",
            "labels": self.labels,
            "max_batch_pairs": self.max_batch_pairs,
            "max_text_chars": self.max_text_chars,
            "max_body_bytes": self.max_body_bytes,
        }

    def __call__(self, request: httpx.Request) -> httpx.Response:
        response = self.answer(request)
        self.statuses.append(response.status_code)
        return response

    def answer(self, request: httpx.Request) -> httpx.Response:
        path = request.url.path
        if request.method == "GET" and path.endswith("/info"):
            self.requests.append(("GET", path, 0))
            return httpx.Response(200, json=self.info())
        body = json.loads(request.content)
        pairs = body["pairs"]
        self.requests.append(("POST", path, len(pairs)))
        if self.failures:
            failure = self.failures.pop(0)
            if isinstance(failure, Exception):
                raise failure
            return httpx.Response(int(failure), text="busy")  # type: ignore[arg-type]
        if len(pairs) > self.max_batch_pairs:
            return httpx.Response(400, text="too many pairs")
        if self.max_body_bytes and len(request.content) > self.max_body_bytes:
            return httpx.Response(413, text="body too long")
        if self.max_text_chars and any(
            len(t) > self.max_text_chars for pair in pairs for t in pair
        ):
            return httpx.Response(400, text="a string is too long")
        probs = reference_probs([p for p, _ in pairs], [h for _, h in pairs])
        server_cols = np.empty_like(probs)
        for ours, theirs in enumerate(TO_SERVER):
            server_cols[:, theirs] = probs[:, ours]
        return httpx.Response(200, json={"probs": server_cols.tolist()})

    @property
    def predict_sizes(self) -> list[int]:
        return [n for method, _, n in self.requests if method == "POST"]


def http_nli(server, **options) -> HTTPNLI:
    opts = HTTPOptions(**({"retry": FAST_RETRY} | options))
    transport = httpx.MockTransport(server)
    return HTTPNLI(
        "http://nli.test/nli",
        options=opts,
        transport=transport,
        async_transport=transport,
        cache_size=0,
    )


PREMISES = [f"Premise number {i} about the river." for i in range(11)]
HYPOTHESES = [f"Hypothesis {i % 4} about a city." for i in range(11)]


def test_columns_follow_the_labels_the_server_names() -> None:
    server = MirageServer()
    nli = http_nli(server)
    assert isinstance(nli, NLIBackend)
    probs = nli.predict(PREMISES, HYPOTHESES)
    np.testing.assert_allclose(probs, reference_probs(PREMISES, HYPOTHESES), atol=1e-12)
    assert nli.label_columns == (1, 2, 0)
    assert nli.server_info().model == "fake"
    assert [r[:2] for r in server.requests] == [("GET", "/nli/info"), ("POST", "/nli/predict")]


def test_label_map_overrides_names_that_say_nothing() -> None:
    server = MirageServer(labels=["LABEL_0", "LABEL_1", "LABEL_2"])
    with pytest.raises(NLIError, match="label order"):
        http_nli(server).predict(PREMISES, HYPOTHESES)
    nli = HTTPNLI(
        "http://nli.test/nli",
        transport=httpx.MockTransport(server),
        label_map={"entailment": 1, "neutral": 2, "contradiction": 0},
    )
    np.testing.assert_allclose(
        nli.predict(PREMISES, HYPOTHESES), reference_probs(PREMISES, HYPOTHESES), atol=1e-12
    )


@pytest.mark.parametrize(("ours", "theirs", "expected"), [(4, 1000, 4), (64, 3, 3)])
def test_requests_never_exceed_the_smaller_batch_limit(ours, theirs, expected) -> None:
    server = MirageServer(max_batch_pairs=theirs)
    nli = http_nli(server, max_batch_pairs=ours)
    probs = nli.predict(PREMISES, HYPOTHESES)
    assert max(server.predict_sizes) == expected
    assert sum(server.predict_sizes) == len(PREMISES)
    np.testing.assert_allclose(probs, reference_probs(PREMISES, HYPOTHESES), atol=1e-12)


def test_texts_are_cut_to_the_server_s_limit_and_bodies_split_by_size() -> None:
    long = "The river runs past the old mill and on to the sea. " * 400  # 21,200 characters
    server = MirageServer(max_text_chars=10_000, max_body_bytes=60_000)
    premises = [long, *PREMISES]
    hypotheses = [f"{h} {long}" for h in HYPOTHESES] + ["short"]
    probs = http_nli(server).predict(premises, hypotheses)
    # each request fits the server's limits, so the call scores every pair as the server
    # scores the texts it may read
    assert len(server.predict_sizes) > 1 and sum(server.predict_sizes) == len(premises)
    want = reference_probs([p[:10_000] for p in premises], [h[:10_000] for h in hypotheses])
    np.testing.assert_allclose(probs, want, atol=1e-12)


@pytest.fixture(params=["predict", "apredict"])
def call(request):
    """``call(nli, premises, hypotheses)``: the scores by ``predict``, or by ``apredict`` on a
    fresh event loop."""
    import asyncio

    if request.param == "predict":
        return lambda nli, p, h: nli.predict(p, h)
    return lambda nli, p, h: asyncio.run(nli.apredict(p, h))


def info_reads(server: MirageServer) -> int:
    return sum(method == "GET" for method, _, _ in server.requests)


@pytest.mark.parametrize(
    ("shrink", "refusal"),
    [
        ({"max_body_bytes": 600}, 413),
        ({"max_batch_pairs": 3}, 400),
        ({"max_text_chars": 20}, 400),
    ],
)
def test_limits_are_read_again_when_the_server_refuses_a_request_for_its_size(
    call, shrink, refusal
) -> None:
    server = MirageServer(max_batch_pairs=64, max_text_chars=10_000, max_body_bytes=60_000)
    nli = http_nli(server)
    call(nli, PREMISES[:1], HYPOTHESES[:1])
    for name, value in shrink.items():  # the server is redeployed with a smaller limit
        setattr(server, name, value)
    server.requests.clear()
    server.statuses.clear()
    premises, hypotheses = PREMISES[1:], HYPOTHESES[1:]
    probs = call(nli, premises, hypotheses)
    # refused once under the old limits, /info read again, every request answered after it
    assert server.statuses[0] == refusal and server.statuses.count(refusal) == 1
    assert info_reads(server) == 1
    info = nli.server_info()
    assert {name: getattr(info, name) for name in shrink} == shrink
    cut = shrink.get("max_text_chars")
    want = reference_probs([p[:cut] for p in premises], [h[:cut] for h in hypotheses])
    np.testing.assert_allclose(probs, want, atol=1e-12)
    # the next call is sent under the new limits at once
    server.requests.clear()
    server.statuses.clear()
    call(nli, PREMISES, HYPOTHESES)
    assert info_reads(server) == 0 and set(server.statuses) == {200}


def test_a_refusal_under_unchanged_limits_is_not_tried_again(call) -> None:
    server = MirageServer(max_body_bytes=60_000)
    server.failures = [413]  # a proxy in front refuses the body; /info says nothing new
    nli = http_nli(server)
    with pytest.raises(NLIError, match="HTTP 413"):
        call(nli, PREMISES[:2], HYPOTHESES[:2])
    assert [method for method, _, _ in server.requests] == ["GET", "POST", "GET"]


def test_limits_are_read_again_once_per_call(call) -> None:
    server = MirageServer(max_body_bytes=60_000)

    def shrinking(request: httpx.Request) -> httpx.Response:
        if request.method == "GET":  # every reading of /info gives a smaller limit
            server.max_body_bytes -= 1000
            return server(request)
        server.requests.append(("POST", request.url.path, 0))
        return httpx.Response(413, text="body too long")

    with pytest.raises(NLIError, match="HTTP 413"):
        call(http_nli(shrinking), PREMISES[:2], HYPOTHESES[:2])
    assert [method for method, _, _ in server.requests] == ["GET", "POST", "GET", "POST"]


async def test_calls_refused_together_all_end_under_the_new_limits() -> None:
    import asyncio

    server = MirageServer(max_batch_pairs=64)
    nli = http_nli(server, max_concurrent_requests=8)
    await nli.apredict(PREMISES[:1], HYPOTHESES[:1])
    server.max_batch_pairs = 2
    server.requests.clear()
    calls = [(PREMISES[i:], HYPOTHESES[i:]) for i in range(1, 9)]
    results = await asyncio.gather(*(nli.apredict(p, h) for p, h in calls))
    for (p, h), probs in zip(calls, results, strict=True):
        np.testing.assert_allclose(probs, reference_probs(p, h), atol=1e-12)
    assert 1 <= info_reads(server) <= len(calls)  # at most one reading per call
    assert nli.server_info().max_batch_pairs == 2


def test_an_event_loop_s_client_is_dropped_once_the_loop_ends() -> None:
    import asyncio

    nli = http_nli(MirageServer())
    for i in range(5):
        asyncio.run(nli.apredict([f"premise {i}"], ["hypothesis"]))
    assert len(nli._aclients) <= 1 and len(nli._gates) <= 1
    nli.close()
    assert nli._aclients == {} and nli._gates == {}


@pytest.mark.parametrize(
    "failure", [503, 500, 429, httpx.ReadTimeout("slow"), httpx.ConnectError("refused")]
)
def test_transient_failures_are_retried(failure) -> None:
    server = MirageServer()
    server.failures = [failure, failure]
    probs = http_nli(server).predict(PREMISES[:3], HYPOTHESES[:3])
    assert server.predict_sizes == [3, 3, 3]  # two failures, then the answer
    np.testing.assert_allclose(probs, reference_probs(PREMISES[:3], HYPOTHESES[:3]), atol=1e-12)


def test_retries_end_in_nli_error() -> None:
    server = MirageServer()
    server.failures = [httpx.ReadTimeout("slow")] * 10
    with pytest.raises(NLIError, match="timed out"):
        http_nli(server).predict(PREMISES[:2], HYPOTHESES[:2])
    assert len(server.predict_sizes) == 1 + FAST_RETRY.max_retries


def test_retry_deadline_stops_retrying() -> None:
    server = MirageServer()
    server.failures = [503] * 10
    slow = RetryPolicy(max_retries=10, backoff_s=0.05, jitter=0.0, deadline_s=0.12)
    start = time.monotonic()
    with pytest.raises(NLIError, match="HTTP 503"):
        http_nli(server, retry=slow).predict(PREMISES[:2], HYPOTHESES[:2])
    assert time.monotonic() - start < 1.0
    assert 2 <= len(server.predict_sizes) <= 3  # waits 0.05, 0.10: the third would pass 0.12 s


@pytest.mark.parametrize(
    ("response", "match"),
    [
        (httpx.Response(400, text="bad pairs"), "HTTP 400"),
        (httpx.Response(200, text="<html>"), "not JSON"),
        (
            httpx.Response(200, text='{"probs": [[0.1, 0.1, 0.8]], "probs": [[0.8, 0.1, 0.1]]}'),
            "the answer is ambiguous: duplicate key 'probs'",
        ),
        (httpx.Response(200, json={"probs": [[0.5, 0.5]]}), "malformed"),
        (httpx.Response(200, json={"probs": [[2.0, -1.0, 0.0]]}), "outside"),
    ],
)
def test_bad_answers_are_nli_errors_and_not_retried(response, match) -> None:
    server = MirageServer()
    calls = []

    def handler(request: httpx.Request) -> httpx.Response:
        if request.url.path.endswith("/info"):
            return server(request)
        calls.append(request)
        return response

    nli = http_nli(handler)
    with pytest.raises(NLIError, match=match):
        nli.predict(PREMISES[:1], HYPOTHESES[:1])
    assert len(calls) == 1


def test_a_server_of_another_protocol_is_refused() -> None:
    def handler(request: httpx.Request) -> httpx.Response:
        return httpx.Response(200, json={"hello": "world"})

    with pytest.raises(NLIError, match="does not speak mirage-nli/1"):
        http_nli(handler).predict(PREMISES[:1], HYPOTHESES[:1])


async def test_apredict_matches_predict_and_runs_chunks_concurrently() -> None:
    server = MirageServer(max_batch_pairs=2)
    nli = http_nli(server, max_concurrent_requests=3)
    async with nli:
        probs = await nli.apredict(PREMISES, HYPOTHESES)
        again = await nli.apredict(PREMISES, HYPOTHESES)
    np.testing.assert_allclose(probs, reference_probs(PREMISES, HYPOTHESES), atol=1e-12)
    np.testing.assert_array_equal(probs, again)
    assert sorted(server.predict_sizes) == sorted([2] * 10 + [1] * 2)


async def test_apredict_cuts_a_call_into_requests_off_the_event_loop() -> None:
    import threading

    server = MirageServer(max_batch_pairs=2, max_body_bytes=10_000)
    nli = http_nli(server)
    threads: list[int] = []
    chunks = nli._chunks

    def recorded(*args):
        threads.append(threading.get_ident())
        return chunks(*args)

    nli._chunks = recorded
    async with nli:
        probs = await nli.apredict(PREMISES, HYPOTHESES)
    np.testing.assert_allclose(probs, reference_probs(PREMISES, HYPOTHESES), atol=1e-12)
    assert threads and threading.get_ident() not in threads


def test_cache_spares_the_server() -> None:
    server = MirageServer()
    nli = HTTPNLI("http://nli.test/nli", transport=httpx.MockTransport(server))
    first = nli.predict(PREMISES, HYPOTHESES)
    second = nli.predict(PREMISES + PREMISES, HYPOTHESES + HYPOTHESES)
    np.testing.assert_array_equal(second, np.vstack([first, first]))
    assert server.predict_sizes == [len(PREMISES)]


# -- text-embeddings-inference --------------------------------------------------------------

TEI_ID2LABEL = {"0": "CONTRADICTION", "1": "ENTAILMENT", "2": "NEUTRAL"}


class TEIServer:
    """TEI's /info and /predict (raw scores, predictions sorted by score as TEI does)."""

    def __init__(self, model_type=None, max_client_batch_size: int = 4) -> None:
        self.model_type = model_type or {
            "classifier": {
                "id2label": TEI_ID2LABEL,
                "label2id": {v: int(k) for k, v in TEI_ID2LABEL.items()},
            }
        }
        self.max_client_batch_size = max_client_batch_size
        self.bodies: list[dict] = []

    def __call__(self, request: httpx.Request) -> httpx.Response:
        if request.url.path == "/info":
            return httpx.Response(
                200,
                json={
                    "model_id": "cross-encoder/fake-nli",
                    "model_type": self.model_type,
                    "max_client_batch_size": self.max_client_batch_size,
                },
            )
        body = json.loads(request.content)
        self.bodies.append(body)
        if len(body["inputs"]) > self.max_client_batch_size:
            return httpx.Response(
                413, json={"error": "batch too large", "error_type": "Validation"}
            )
        assert body["raw_scores"] is True
        logits = reference_logits([p for p, _ in body["inputs"]], [h for _, h in body["inputs"]])
        out = []
        for row in logits:  # row in [entail, neutral, contra] order
            by_label = {"ENTAILMENT": row[0], "NEUTRAL": row[1], "CONTRADICTION": row[2]}
            preds = [{"label": k, "score": float(v)} for k, v in by_label.items()]
            out.append(sorted(preds, key=lambda x: -x["score"]))
        return httpx.Response(200, json=out)


def tei_nli(server: TEIServer) -> TEINLI:
    transport = httpx.MockTransport(server)
    return TEINLI(
        "http://tei.test",
        options=HTTPOptions(retry=FAST_RETRY),
        transport=transport,
        async_transport=transport,
        cache_size=0,
    )


async def test_tei_scores_are_softmaxed_in_the_label_order_of_info() -> None:
    server = TEIServer()
    nli = tei_nli(server)
    probs = nli.predict(PREMISES, HYPOTHESES)
    np.testing.assert_allclose(probs, reference_probs(PREMISES, HYPOTHESES), atol=1e-9)
    assert nli.label_columns == (1, 2, 0)
    assert max(len(b["inputs"]) for b in server.bodies) == 4  # TEI's max_client_batch_size
    assert all(b["truncate"] is True for b in server.bodies)
    np.testing.assert_allclose(await nli.apredict(PREMISES, HYPOTHESES), probs, atol=1e-12)


@pytest.mark.parametrize(
    ("model_type", "match"),
    [
        ({"embedding": {"pooling": "cls"}}, "not a sequence classifier"),
        ({"reranker": {"id2label": {"0": "LABEL_0"}, "label2id": {}}}, "not a sequence"),
        ({"classifier": {"id2label": {"0": "POSITIVE", "1": "NEGATIVE"}}}, "label order"),
    ],
)
def test_tei_refuses_models_that_are_not_nli(model_type, match) -> None:
    with pytest.raises(NLIError, match=match):
        tei_nli(TEIServer(model_type)).predict(PREMISES[:1], HYPOTHESES[:1])


def test_tei_reads_its_batch_limit_again_after_a_413() -> None:
    server = TEIServer(max_client_batch_size=8)
    nli = tei_nli(server)
    nli.predict(PREMISES[:1], HYPOTHESES[:1])
    server.max_client_batch_size = 2
    probs = nli.predict(PREMISES, HYPOTHESES)
    np.testing.assert_allclose(probs, reference_probs(PREMISES, HYPOTHESES), atol=1e-9)
    assert [len(b["inputs"]) for b in server.bodies[1:]] == [8, 2, 2, 2, 2, 2, 1]


# -- the engine on a remote backend ---------------------------------------------------------


def closed_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return sock.getsockname()[1]


PASSAGES = [
    Passage("The Eiffel Tower is in Paris. It was completed in 1889.", source="https://a.org/1"),
    Passage("The Eiffel Tower is in Paris. It opened in 1889.", source="https://b.org/2"),
    Passage("The Eiffel Tower stands in Paris, France.", source="https://c.org/3"),
]


@pytest.mark.model
@pytest.mark.parametrize("policy", ["fallback", "pass_through"])
def test_server_down_follows_the_error_policy(policy) -> None:
    options = HTTPOptions(timeout_s=1.0, retry=FAST_RETRY)
    nli = HTTPNLI(f"http://127.0.0.1:{closed_port()}/nli", options=options)
    # no coordination signals: they read these three short pages as planted, and a failed
    # call let through still leaves planted passages out
    mirage = Mirage(MirageConfig(nli_error_policy=policy, coordination="none"), nli=nli)
    # Warm up first, outside the timed window: one passage makes no pair, so this loads the
    # embedder and the lazy modules without calling the (down) server.
    warm = mirage.defend("Where is the Eiffel Tower?", PASSAGES[:1])
    assert "NLI failed" not in warm.reason
    start = time.monotonic()
    verdict = mirage.defend("Where is the Eiffel Tower?", PASSAGES)
    assert time.monotonic() - start < 5.0  # the failing NLI call and the verdict, nothing else
    assert "NLI failed" in verdict.reason and "ConnectError" in verdict.reason
    if policy == "fallback":
        assert not verdict.passed and verdict.decision == "fallback"
    else:
        assert verdict.passed and "unverified" in verdict.reason


def test_options_are_validated() -> None:
    with pytest.raises(ValueError, match="max_batch_pairs"):
        HTTPOptions(max_batch_pairs=0)
    with pytest.raises(ValueError, match="timeout_s"):
        HTTPOptions(timeout_s=0)
    with pytest.raises(ValueError, match="max_retries"):
        RetryPolicy(max_retries=-1)
    with pytest.raises(ValueError, match="http"):
        HTTPNLI("nli.test:8000")
