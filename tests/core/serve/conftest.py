"""A ``mirage serve`` application on the session's local Ray instance (loopback), serving the
sharp tiny model with 2 replicas and dynamic batching; and the in-process verdicts to match."""

from __future__ import annotations

import socket

import pytest

pytest.importorskip("ray.serve")
pytest.importorskip("httpx")


def free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return sock.getsockname()[1]


@pytest.fixture(scope="session")
def served(ray_local, sharp_nli_dir):
    """``(config, handle)`` of a running app, shared by this package's tests (test_faults.py,
    which runs last, kills one of its replicas and then stops it)."""
    from ray import serve

    from mirage_core.serve import ServeConfig
    from mirage_core.serve.app import run

    config = ServeConfig(
        model=str(sharp_nli_dir),
        device="cpu",
        num_replicas=2,
        num_cpus=0.25,
        torch_threads=1,
        cache_size=0,
        port=free_port(),
        name="mirage-nli-test",
    )
    handle = run(config)
    yield config, handle
    from ray.serve.exceptions import RayServeException

    try:
        serve.delete(config.name)
    except RayServeException:
        pass  # test_faults.py already shut Serve down


@pytest.fixture(scope="session")
def in_process(sharp_nli_dir, bench_instances):
    """Verdicts of the benchmark inputs with the model in this process."""
    from mirage_core import Mirage, MirageConfig
    from mirage_core.nli import TransformersNLI

    mirage = Mirage(
        MirageConfig(), nli=TransformersNLI(sharp_nli_dir, device="cpu", quantize=False)
    )
    return [mirage.defend(i.query, i.passages) for i in bench_instances]


@pytest.fixture(scope="session")
def outcome():
    """``outcome(verdict)``: what a verdict delivers (decision, gate, the selected claims)."""

    def of(verdict) -> tuple:
        return (
            verdict.decision,
            verdict.passed,
            tuple(verdict.claims[i].text for i in verdict.selected),
        )

    return of


@pytest.fixture(scope="session")
def run_clients():
    """``run_clients(n, job)``: ``job(k)`` for k < n on n threads at once; the results in order."""
    from concurrent.futures import ThreadPoolExecutor

    def run(n: int, job):
        with ThreadPoolExecutor(max_workers=n) as pool:
            return list(pool.map(job, range(n)))

    return run
