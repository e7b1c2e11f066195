"""In-process NLI vs `mirage serve` on Ray Serve: `python -m benchmarks.serve_bench`.

The requests are the NLI calls the engine makes for PoisonedRAG NQ inputs (one request = the
pairs of one query, clean / mixed / full evidence). N concurrent clients (64 by default) send
them, for each of: the model in-process (`TransformersNLI`, the clients' threads share it), and
served over HTTP by 1 and 2 replicas, with and without dynamic batching (`@serve.batch`), side by
side in one run on one local Ray instance (loopback). It prints requests/s, pairs/s and the
client-side latency p50/p95 of each, the batching speed-up per replica count, how many requests
one forward pass served (a replica's ``/info`` counters, before and after a run; with 2 replicas
the run's counters of whichever replica answered both times), and checks that the served
probabilities give the in-process verdicts (mismatches must be 0).

Every configuration gets the same CPU budget (`--cpus`): in-process and 1 replica use that many
torch threads, 2 replicas half each. The server's pair cache is off, so every request is
computed. The model runs in full precision on both sides (`mirage serve`'s default; see
docs/serving.md on int8 behind a dynamic batcher). Figures from one run are what to compare on a shared machine; absolute rates are not.
"""

from __future__ import annotations

import argparse
import asyncio
import os
import socket
import statistics
import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from pathlib import Path

import httpx
import numpy as np

from mirage_core import Mirage, MirageConfig
from mirage_core.evaluation.poisonedrag import load_poisonedrag
from mirage_core.nli import HTTPNLI, HTTPOptions, TransformersNLI
from mirage_core.nli.base import CallableNLI

ROOT = Path(__file__).resolve().parents[1]

Request = tuple[list[str], list[str]]


def engine_requests(instances: Sequence) -> list[Request]:
    """The NLI call the engine makes for each input (its pairs, in order)."""
    out: list[Request] = []

    def record(p: list[str], h: list[str]) -> np.ndarray:
        out.append((list(p), list(h)))
        return np.tile([0.1, 0.8, 0.1], (len(p), 1))

    nli = CallableNLI(record, cache_size=0)
    mirage = Mirage(MirageConfig(), nli=nli)
    for inst in instances:
        mirage.defend(inst.query, inst.passages)
    return [r for r in out if r[0]]


@dataclass
class Run:
    name: str
    requests: int
    pairs: int
    wall_s: float
    latencies: list[float]
    probs: dict[tuple[str, str], np.ndarray]
    requests_per_batch: float | None = None

    def row(self, base: Run | None) -> str:
        lat = sorted(self.latencies)
        p50 = statistics.median(lat) * 1000
        p95 = lat[min(len(lat) - 1, int(0.95 * len(lat)))] * 1000
        rps = self.requests / self.wall_s
        ratio = f"{rps / (base.requests / base.wall_s):.2f}×" if base else "—"
        per_batch = f"{self.requests_per_batch:.1f}" if self.requests_per_batch else "—"
        return (
            f"| {self.name} | {rps:.1f} | {self.pairs / self.wall_s:.0f} | {p50:.0f} | {p95:.0f} "
            f"| {ratio} | {per_batch} |"
        )


async def load(
    name: str,
    predict: Callable[[list[str], list[str]], object],
    requests: list[Request],
    clients: int,
) -> Run:
    """``clients`` concurrent clients take the requests from one queue; latency per request."""
    queue: asyncio.Queue[int] = asyncio.Queue()
    for i in range(len(requests)):
        queue.put_nowait(i)
    latencies: list[float] = []
    probs: dict[tuple[str, str], np.ndarray] = {}

    async def client() -> None:
        while not queue.empty():
            i = queue.get_nowait()
            p, h = requests[i]
            t0 = time.perf_counter()
            out = await predict(p, h)  # type: ignore[misc]
            latencies.append(time.perf_counter() - t0)
            for key, row in zip(zip(p, h, strict=True), np.asarray(out), strict=True):
                probs[key] = row

    start = time.perf_counter()
    await asyncio.gather(*(client() for _ in range(clients)))
    wall = time.perf_counter() - start
    return Run(name, len(requests), sum(len(r[0]) for r in requests), wall, latencies, probs)


def free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return sock.getsockname()[1]


def verdict_mismatches(instances: Sequence, reference: list, probs: dict) -> int:
    """Inputs whose verdict differs when the NLI scores are the served ones."""

    def lookup(p: list[str], h: list[str]) -> np.ndarray:
        return np.asarray([probs[(a, b)] for a, b in zip(p, h, strict=True)])

    mirage = Mirage(MirageConfig(), nli=CallableNLI(lookup, cache_size=0))
    got = [mirage.defend(i.query, i.passages) for i in instances]
    return sum(
        (a.decision, a.passed, a.selected) != (b.decision, b.passed, b.selected)
        for a, b in zip(got, reference, strict=True)
    )


def batch_counters(url: str | None) -> tuple[str, int, int] | None:
    """(replica, batches, requests batched) of the replica answering ``/info`` (batching only)."""
    if url is None:
        return None
    info = httpx.get(url + "/info", timeout=60).json()
    if not info.get("batching"):
        return None
    return info["replica"], info["batches"], info["batched_requests"]


def split(requests: list[Request], size: int | None) -> list[Request]:
    """Each request cut into requests of at most ``size`` pairs (``None``: as the engine sends)."""
    if size is None:
        return requests
    return [(p[i : i + size], h[i : i + size]) for p, h in requests for i in range(0, len(p), size)]


def deploy(args: argparse.Namespace, port: int) -> dict[str, str]:
    """The four served configurations side by side (idle ones cost no CPU): name -> URL."""
    from mirage_core.serve import ServeConfig
    from mirage_core.serve.app import run as serve_run

    urls = {}
    for replicas in (1, 2):
        for batching in (False, True):
            config = ServeConfig(
                model=args.model,
                device="cpu",
                num_replicas=replicas,
                num_cpus=0.01,  # all four are deployed; --cpus is enforced by the threads
                torch_threads=max(1, args.cpus // replicas),
                cache_size=0,
                batching=batching,
                max_batch_size=args.max_batch_size,
                batch_wait_timeout_s=args.batch_wait_s,
                port=port,
                name=f"nli-r{replicas}-b{int(batching)}",
                route_prefix=f"/r{replicas}b{int(batching)}",
            )
            serve_run(config)
            plural = "s" if replicas > 1 else ""
            mode = f"batching (≤{args.max_batch_size} requests)" if batching else "no batching"
            urls[f"served, {replicas} replica{plural}, {mode}"] = config.url
    return urls


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--model", default=None, help="NLI model (default: the packaged one)")
    parser.add_argument("--queries", type=int, default=24, help="PoisonedRAG NQ queries")
    parser.add_argument("--clients", type=int, default=64)
    parser.add_argument("--cpus", type=int, default=2, help="CPU budget of every configuration")
    parser.add_argument("--max-batch-size", type=int, default=32)
    parser.add_argument("--batch-wait-s", type=float, default=0.01)
    parser.add_argument(
        "--sizes",
        default="engine,4",
        help="request sizes: 'engine' (one query's pairs, as Mirage sends them) and/or N (at most "
        "N pairs per request), comma-separated",
    )
    parser.add_argument("--rounds", type=int, default=2, help="interleaved rounds; best is kept")
    args = parser.parse_args()
    os.environ.setdefault("TOKENIZERS_PARALLELISM", "false")

    ds = load_poisonedrag("nq", limit=args.queries, seed=0)
    engine = engine_requests(ds.instances)
    sizes = [None if s.strip() == "engine" else int(s) for s in args.sizes.split(",")]
    per = [len(r[0]) for r in engine]
    print(
        f"inputs: {len(ds.instances)} PoisonedRAG NQ inputs ({ds.n_queries} queries × clean/mixed/"
        f"full) -> {len(engine)} engine NLI calls, {sum(per)} pairs (median "
        f"{statistics.median(per):.0f} per call); {args.clients} concurrent clients; CPU budget "
        f"{args.cpus} cores per configuration (machine: {os.cpu_count()} cores, load average "
        f"{os.getloadavg()[0]:.1f} at start); best of {args.rounds} interleaved rounds"
    )
    local = TransformersNLI(
        args.model, device="cpu", cache_size=0, torch_threads=args.cpus, quantize=False
    )
    reference = Mirage(MirageConfig(), nli=local).defend_many(
        [i.query for i in ds.instances], [i.passages for i in ds.instances]
    )

    import ray
    from ray import serve

    ray.init(
        num_cpus=args.cpus,
        _node_ip_address="127.0.0.1",
        include_dashboard=False,
        log_to_driver=False,
        runtime_env={"env_vars": {"PYTHONPATH": str(ROOT), "TOKENIZERS_PARALLELISM": "false"}},
    )
    urls = deploy(args, free_port())
    clients: dict[str, Callable] = {"in-process": local.apredict}
    options = HTTPOptions(timeout_s=300, max_connections=args.clients)
    for name, url in urls.items():
        clients[name] = HTTPNLI(url, options=options, cache_size=0).apredict

    async def measure_all() -> dict[tuple[str, int | None], Run]:
        best: dict[tuple[str, int | None], Run] = {}
        for predict in clients.values():  # warm-up: models loaded, connections open
            await load("warm-up", predict, engine[:8], args.clients)
        for _ in range(args.rounds):
            for size in sizes:
                requests = split(engine, size)
                for name, predict in clients.items():
                    before = batch_counters(urls.get(name))
                    run = await load(name, predict, requests, args.clients)
                    after = batch_counters(urls.get(name))
                    if before and after and before[0] == after[0] and after[1] > before[1]:
                        run.requests_per_batch = (after[2] - before[2]) / (after[1] - before[1])
                    key = (name, size)
                    if key not in best or run.wall_s < best[key].wall_s:
                        best[key] = run
        return best

    best = asyncio.run(measure_all())
    print(f"(load average at the end: {os.getloadavg()[0]:.1f})")
    serve.shutdown()
    ray.shutdown()

    for size in sizes:
        n = len(split(engine, size))
        what = "one query's pairs per request" if size is None else f"≤ {size} pairs per request"
        print()
        print(f"### {what} ({n} requests)")
        print()
        print(
            "| configuration | requests/s | pairs/s | p50 ms | p95 ms | vs in-process "
            "| requests per batch |"
        )
        print("|---|---|---|---|---|---|---|")
        base = best[("in-process", size)]
        for name in clients:
            run = best[(name, size)]
            print(run.row(None if run is base else base))
        print()
        for replicas, plural in ((1, ""), (2, "s")):
            on = next(
                r
                for (nm, sz), r in best.items()
                if sz == size and nm.startswith(f"served, {replicas} replica{plural}, batching")
            )
            off = best[(f"served, {replicas} replica{plural}, no batching", size)]
            ratio = (on.requests / on.wall_s) / (off.requests / off.wall_s)
            print(
                f"- dynamic batching, {replicas} replica{plural}: {ratio:.2f}× the requests/s "
                "of the same replicas without"
            )
    print()
    print("### verdicts from the served scores vs in-process")
    print()
    ref_probs = best[("in-process", sizes[0])].probs
    for (name, size), run in best.items():
        if name == "in-process":
            continue
        diff = max(float(np.abs(run.probs[k] - ref_probs[k]).max()) for k in ref_probs)
        mism = verdict_mismatches(ds.instances, reference, run.probs)
        what = "engine-sized" if size is None else f"≤ {size} pairs"
        print(
            f"- {name}, {what} requests: {mism} verdict mismatches of {len(ds.instances)}; "
            f"max |Δp| {diff:.1e}"
        )


if __name__ == "__main__":
    main()
