"""``mirage serve``'s request handling without Ray (NLIService in a plain FastAPI app): body,
string and pair limits, deeply nested JSON, backend errors isolated per request within a
batch, the bearer token, /info without host or pid, the byte-bounded pair cache, the CLI."""

from __future__ import annotations

import asyncio
import json
import os
import re
import socket

import numpy as np
import pytest

httpx = pytest.importorskip("httpx")
pytest.importorskip("fastapi")

from mirage_core.nli.base import CallableNLI, PairCache  # noqa: E402
from mirage_core.serve import ServeConfig  # noqa: E402
from mirage_core.serve.routes import NLIService, build_api  # noqa: E402

from .faulty_backend import FaultyNLI  # noqa: E402

GOOD = {"pairs": [["The cat sat.", "An animal sat."]]}


class Batcher:
    """A stand-in for ``@serve.batch``: requests arriving within 50 ms go to score_many
    together."""

    def __init__(self) -> None:
        self.service: NLIService | None = None
        self.pending: list = []

    async def __call__(self, request):
        loop = asyncio.get_running_loop()
        future = loop.create_future()
        self.pending.append((request, future))
        if len(self.pending) == 1:
            loop.call_later(0.05, lambda: asyncio.ensure_future(self.flush()))
        return await future

    async def flush(self) -> None:
        batch, self.pending = self.pending, []
        results = await self.service.score_many([r for r, _ in batch])
        for (_, future), result in zip(batch, results, strict=True):
            future.set_result(result)


def make(config: ServeConfig | None = None, backend=None, batched: bool = False):
    backend = backend or FaultyNLI()
    batcher = Batcher() if batched else None
    service = NLIService(config or ServeConfig(), backend, batch=batcher)
    if batcher is not None:
        batcher.service = service
    client = httpx.AsyncClient(
        transport=httpx.ASGITransport(app=build_api(service)), base_url="http://nli.test"
    )
    return service, client


async def test_a_good_request_is_answered() -> None:
    _, client = make()
    async with client:
        response = await client.post("/predict", json=GOOD)
    assert response.status_code == 200
    np.testing.assert_allclose(response.json()["probs"], [[0.7, 0.2, 0.1]])


async def test_a_10_mb_body_is_refused_with_413_before_and_while_it_is_read() -> None:
    service, client = make()
    big = json.dumps({"pairs": [["x" * 1000, "y"]] * 10_000}).encode()
    assert len(big) > 10_000_000

    async def chunked():  # no Content-Length: the limit holds while reading
        for i in range(0, len(big), 65536):
            yield big[i : i + 65536]

    async with client:
        declared = await client.post("/predict", content=big)
        streamed = await client.post("/predict", content=chunked())
    assert declared.status_code == 413 and streamed.status_code == 413
    assert service.batches == 0  # never reached the model


async def test_the_body_limit_is_configurable() -> None:
    _, client = make(ServeConfig(max_body_bytes=100))
    async with client:
        small = await client.post("/predict", json=GOOD)
        large = await client.post("/predict", json={"pairs": [["a" * 200, "b"]]})
    assert small.status_code == 200 and large.status_code == 413


@pytest.mark.parametrize(
    "body",
    [
        b"",
        b"not json",
        b"[]",
        b"null",
        b'{"pairs": null}',
        b'{"pairs": [["only one"]]}',
        b'{"pairs": [["a", "b", "c"]]}',
        b'{"pairs": [[1, "b"]]}',
        b'{"pairs": [[true, "b"]]}',
        b'{"pairs": [[null, "b"]]}',
        b'{"pairs": [["a", {"b": 1}]]}',
        b'{"pairs": [], "extra": 1}',
        b'{"pairs": [["\\ud800", "b"]]}',  # a lone surrogate
        b'{"pairs": [["a", "b"]]' + b" " * 10,  # truncated
        b'{"pairs": ' + b"[" * 100_000 + b"]" * 100_000 + b"}",  # deeply nested
        b"[" * 1_000_000,
        json.dumps({"pairs": [["a" * 10_001, "b"]]}).encode(),  # a string over the limit
        json.dumps({"pairs": [["a", "b"]] * 1025}).encode(),  # too many pairs
    ],
)
async def test_malformed_requests_get_400_never_500(body) -> None:
    service, client = make()
    async with client:
        response = await client.post("/predict", content=body)
    assert response.status_code == 400, response.text
    assert "pair of strings" in response.json()["error"]
    assert service.batches == 0


@pytest.mark.parametrize(
    "body",
    [
        b'{"pairs": [["a", "b"]], "pairs": [["c", "d"]]}',
        b'{"pairs": [["a", "b"]], "pair\\u0073": [["c", "d"]]}',  # an escape spells "pairs"
    ],
)
async def test_a_body_that_repeats_pairs_gets_400_and_is_not_scored(body) -> None:
    service, client = make()
    async with client:
        response = await client.post("/predict", content=body)
    assert response.status_code == 400, response.text
    assert "duplicate key 'pairs'" in response.json()["error"]
    assert service.batches == 0


async def test_a_backend_error_fails_only_its_own_request_in_a_batch() -> None:
    backend = FaultyNLI()
    service, client = make(backend=backend, batched=True)
    bodies = [GOOD, {"pairs": [["BOOM", "x"]]}, GOOD, {"pairs": [["DOWN", "x"]]}, GOOD]
    async with client:
        responses = await asyncio.gather(*(client.post("/predict", json=b) for b in bodies))
    assert [r.status_code for r in responses] == [200, 422, 200, 503, 200]
    assert service.batches == 1 and service.batched_requests == 5  # one merged batch
    assert backend.calls[0] == 5  # the merged call failed; then each request alone
    assert "TypeError" in responses[1].json()["error"]
    for r in (responses[0], responses[2], responses[4]):
        np.testing.assert_allclose(r.json()["probs"], [[0.7, 0.2, 0.1]])


async def test_a_backend_error_without_batching_is_answered_not_raised() -> None:
    _, client = make()
    async with client:
        boom = await client.post("/predict", json={"pairs": [["BOOM", "x"]]})
        down = await client.post("/predict", json={"pairs": [["DOWN", "x"]]})
    assert (boom.status_code, down.status_code) == (422, 503)


async def test_a_backend_answer_of_the_wrong_shape_is_503() -> None:
    backend = CallableNLI(lambda p, h: np.full((len(p), 2), 0.5), cache_size=0)
    _, client = make(backend=backend)
    async with client:
        response = await client.post("/predict", json=GOOD)
    assert response.status_code == 503


async def test_the_bearer_token() -> None:
    _, client = make(ServeConfig(token="s3cret-token"))
    async with client:
        none = await client.post("/predict", json=GOOD)
        wrong = await client.post(
            "/predict", json=GOOD, headers={"Authorization": "Bearer s3cret-tokeN"}
        )
        basic = await client.post(
            "/predict", json=GOOD, headers={"Authorization": "Basic s3cret-token"}
        )
        right = await client.post(
            "/predict", json=GOOD, headers={"Authorization": "Bearer s3cret-token"}
        )
        info = await client.get("/info")
        health = await client.get("/health")
    assert [r.status_code for r in (none, wrong, basic, info)] == [401] * 4
    assert none.headers["www-authenticate"] == "Bearer"
    assert right.status_code == 200
    assert health.status_code == 200 and health.json() == {"status": "ok"}  # no model name


def test_the_token_is_not_in_the_config_repr() -> None:
    assert "s3cret" not in repr(ServeConfig(token="s3cret"))
    for bad in (" ", "s\u00e9cret", "two words"):  # what no Authorization header can carry
        with pytest.raises(ValueError, match="token"):
            ServeConfig(token=bad)


async def test_a_token_read_with_its_newline_still_authenticates() -> None:
    config = ServeConfig(token="s3cret-token\n")  # a secret mounted from a file
    assert config.token == "s3cret-token"
    _, client = make(config)
    async with client:
        right = await client.post(
            "/predict", json=GOOD, headers={"Authorization": "Bearer s3cret-token"}
        )
    assert right.status_code == 200


async def test_info_shows_neither_host_nor_pid() -> None:
    _, client = make()
    async with client:
        info = (await client.get("/info")).json()
    # whole tokens: a short host name ("vm") or pid can occur inside a random replica id
    tokens = set(re.findall(r"[\w.-]+", json.dumps(info)))
    assert socket.gethostname() not in tokens and str(os.getpid()) not in tokens
    assert info["max_text_chars"] == 10_000 and info["max_body_bytes"] == 4 * 2**20


def test_the_pair_cache_is_bounded_by_bytes() -> None:
    cache = PairCache(maxsize=1000, max_bytes=200_000)
    row = np.asarray([[0.7, 0.2, 0.1]])
    for i in range(100):  # 100 entries of ~10 kB each: ~1 MB asked, 200 kB kept
        cache.put_many([(f"{i}" + "x" * 10_000, "h")], row)
    assert cache.nbytes <= 200_000 and 10 <= len(cache) < 25
    assert cache.get_many([("99" + "x" * 10_000, "h")])[0] is not None  # the newest stay
    cache.put_many([("y" * 300_000, "h")], row)  # larger than the whole bound: not cached
    assert cache.get_many([("y" * 300_000, "h")])[0] is None and cache.nbytes <= 200_000
    cache.clear()
    assert cache.nbytes == 0 and len(cache) == 0


def test_the_service_bounds_the_backends_cache_by_bytes() -> None:
    backend = CallableNLI(lambda p, h: np.tile([0.7, 0.2, 0.1], (len(p), 1)))
    NLIService(ServeConfig(cache_bytes=12345), backend)
    assert backend.cache.max_bytes == 12345


# -- the command line ---------------------------------------------------------------------------


def serve_args(monkeypatch, capsys, argv, env=None):
    from mirage_core.cli import main
    from mirage_core.serve import app

    seen = {}
    monkeypatch.setattr(app, "run", lambda config, blocking: seen.update(config=config))
    monkeypatch.delenv("MIRAGE_SERVE_TOKEN", raising=False)
    for k, v in (env or {}).items():
        monkeypatch.setenv(k, v)
    assert main(["serve", *argv]) == 0
    return seen["config"], capsys.readouterr().err


def test_the_default_bind_is_loopback_and_a_public_bind_without_token_warns(
    monkeypatch, capsys
) -> None:
    config, err = serve_args(monkeypatch, capsys, [])
    assert config.host == "127.0.0.1" and config.token is None and "warning" not in err
    config, err = serve_args(monkeypatch, capsys, ["--host", "0.0.0.0"])
    assert "warning" in err and "without a token" in err


def test_the_token_comes_from_the_flag_or_the_environment(monkeypatch, capsys) -> None:
    config, err = serve_args(
        monkeypatch, capsys, ["--host", "0.0.0.0"], env={"MIRAGE_SERVE_TOKEN": "from-env"}
    )
    assert config.token == "from-env" and "warning" not in err and "from-env" not in err
    config, _ = serve_args(
        monkeypatch, capsys, ["--token", "from-flag"], env={"MIRAGE_SERVE_TOKEN": "from-env"}
    )
    assert config.token == "from-flag"
    config, _ = serve_args(
        monkeypatch, capsys, ["--max-body-bytes", "1000", "--max-text-chars", "50"]
    )
    assert (config.max_body_bytes, config.max_text_chars) == (1000, 50)
