"""``mirage serve`` on a local Ray instance: routes, served scores and verdicts equal to the
in-process ones, 64 concurrent clients over HTTP and through a DeploymentHandle."""

from __future__ import annotations

import asyncio

import httpx
import numpy as np
import pytest

from mirage_core import Mirage, MirageConfig
from mirage_core.nli import HTTPNLI, TransformersNLI
from mirage_core.serve import ServeHandleNLI

CLIENTS = 64
PREMISES = ["The cat sat on the mat.", "Paris is the capital of France.", "The team won."]
HYPOTHESES = ["An animal sat on the mat.", "London is the capital of France.", "They lost."]


def test_health_info_and_bad_requests(served) -> None:
    config, _ = served
    health = httpx.get(config.url + "/health", timeout=10).json()
    assert health["status"] == "ok"
    info = httpx.get(config.url + "/info", timeout=10).json()
    assert info["protocol"] == "mirage-nli/1"
    assert info["labels"] == ["entailment", "neutral", "contradiction"]
    assert info["batching"] is True
    bad = httpx.post(config.url + "/predict", json={"pairs": [["only one"]]}, timeout=10)
    assert bad.status_code == 400 and "pair of strings" in bad.text


def test_served_scores_equal_in_process_scores(served, sharp_nli_dir) -> None:
    config, _ = served
    local = TransformersNLI(sharp_nli_dir, device="cpu", cache_size=0, quantize=False)
    expected = local.predict(PREMISES, HYPOTHESES)
    over_http = HTTPNLI(config.url, cache_size=0).predict(PREMISES, HYPOTHESES)
    by_handle = ServeHandleNLI(app_name=config.name, cache_size=0).predict(PREMISES, HYPOTHESES)
    np.testing.assert_allclose(over_http, expected, atol=1e-6)
    np.testing.assert_allclose(by_handle, expected, atol=1e-6)
    assert np.abs(expected - 1 / 3).max() > 0.1  # the sharp model is far from uniform


@pytest.mark.model
def test_64_concurrent_clients_get_the_in_process_verdicts(
    served, bench_instances, in_process, outcome, run_clients
) -> None:
    config, _ = served
    expected = [outcome(v) for v in in_process]
    assert len(set(expected)) > 3  # verdicts differ between inputs: a mix-up would show

    def client(k: int):
        mirage = Mirage(MirageConfig(), nli=HTTPNLI(config.url, cache_size=0))
        inst = bench_instances[k % len(bench_instances)]
        return outcome(mirage.defend(inst.query, inst.passages))

    got = run_clients(CLIENTS, client)
    mismatches = [k for k in range(CLIENTS) if got[k] != expected[k % len(expected)]]
    assert mismatches == []
    info = httpx.get(config.url + "/info", timeout=10).json()  # one replica's counters
    assert info["batches"] > 0 and info["requests_per_batch"] >= 1


async def test_64_concurrent_async_calls_through_the_handle(served, sharp_nli_dir) -> None:
    config, _ = served
    nli = ServeHandleNLI(app_name=config.name, cache_size=0)
    premises = [f"{p} Number {k}." for k in range(CLIENTS) for p in PREMISES]
    hypotheses = [h for _ in range(CLIENTS) for h in HYPOTHESES]
    local = TransformersNLI(sharp_nli_dir, device="cpu", cache_size=0, quantize=False)
    expected = local.predict(premises, hypotheses)
    n = len(PREMISES)
    parts = await asyncio.gather(
        *(
            nli.apredict(premises[k * n : (k + 1) * n], hypotheses[k * n : (k + 1) * n])
            for k in range(CLIENTS)
        )
    )
    np.testing.assert_allclose(np.vstack(parts), expected, atol=1e-6)


def test_hostile_requests_on_ray_serve(served) -> None:
    """A second app on the same Serve instance with a backend that fails on some inputs:
    limits, token and per-request errors hold through the real proxy and ``@serve.batch``."""
    from ray import serve

    from mirage_core.serve import ServeConfig
    from mirage_core.serve.app import run

    base, _ = served
    config = ServeConfig(
        model="tests.core.serve.faulty_backend:FaultyNLI",
        device="cpu",
        num_cpus=0.1,
        cache_size=0,
        batch_wait_timeout_s=0.3,
        max_batch_size=8,
        port=base.port,
        route_prefix="/faulty",
        name="mirage-nli-faulty",
        token="t0ken",
    )
    run(config)
    auth = {"Authorization": "Bearer t0ken"}
    try:
        with httpx.Client(base_url=config.url, headers=auth, timeout=30) as client:
            assert client.post("/predict", json={"pairs": []}).status_code == 200
            assert httpx.post(config.url + "/predict", json={"pairs": []}).status_code == 401
            big = b'{"pairs": [["' + b"x" * 10_000_000 + b'", "y"]]}'
            assert client.post("/predict", content=big).status_code == 413
            nested = b'{"pairs": ' + b"[" * 100_000 + b"]" * 100_000 + b"}"
            assert client.post("/predict", content=nested).status_code == 400
        bodies = [{"pairs": [["BOOM" if k == 2 else f"p{k}", "h"]]} for k in range(6)]

        async def post_all():
            async with httpx.AsyncClient(base_url=config.url, headers=auth, timeout=30) as c:
                return await asyncio.gather(*(c.post("/predict", json=b) for b in bodies))

        statuses = [r.status_code for r in asyncio.run(post_all())]
        assert statuses == [200, 200, 422, 200, 200, 200]
        with httpx.Client(base_url=config.url, headers=auth, timeout=30) as client:
            info = client.get("/info").json()
        assert info["requests_per_batch"] > 1  # the bad request was merged with good ones
    finally:
        serve.delete(config.name)
