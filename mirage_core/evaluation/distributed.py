"""``mirage bench --ray``: the benchmark's inputs spread over a Ray cluster, one task per shard.

A shard is one regime × family group of :func:`~mirage_core.evaluation.harness.regime_groups`,
run by :func:`~mirage_core.evaluation.harness.run_benchmark` exactly as a local run runs it (same
batches, a cold pair cache per group), with the NLI backend built inside the task from its spec.
The records come back in the local run's order, so the report is the local report: the same
verdicts and metrics; only the timings differ (each task measures its own queries).

With ``cold_cache=False`` (``--shared-cache``) each shard has its own cache: the verdicts are
the same, the latency of later groups is less under-stated than in a local run.

ray is imported by :func:`run_benchmark_ray` only (the ``serve`` extra).
"""

from __future__ import annotations

import dataclasses
import time
from collections.abc import Callable, Mapping
from typing import Any

from mirage_core.evaluation.harness import regime_groups, run_benchmark
from mirage_core.evaluation.instances import Dataset
from mirage_core.evaluation.records import BenchResult

__all__ = ["merge_results", "run_benchmark_ray"]

_INSTALL_HINT = "mirage bench --ray needs Ray: pip install 'mirage-rag[serve]'"


def _run_shard(
    dataset: Dataset, model: str | None, nli_kwargs: dict[str, Any], bench_kwargs: dict[str, Any]
) -> BenchResult:
    """One task: build the backend, run the shard."""
    from mirage_core.nli.loading import load_backend

    return run_benchmark(dataset, load_backend(model, **nli_kwargs), **bench_kwargs)


def merge_results(dataset: Dataset, parts: list[BenchResult], wall_s: float) -> BenchResult:
    """One result of the shards' results (in shard order), as a local run reports it."""
    if not parts:
        raise ValueError("no shard results to merge")
    stats: dict[str, Any] = {"backend": parts[0].nli_stats.get("backend")}
    for key in ("nli_seconds", "cache_hits", "pair_evaluations"):
        values = [p.nli_stats[key] for p in parts if key in p.nli_stats]
        if values:
            stats[key] = round(sum(values), 3) if key == "nli_seconds" else sum(values)
    if stats.get("nli_seconds") and stats.get("pair_evaluations"):
        stats["pairs_per_second"] = round(stats["pair_evaluations"] / stats["nli_seconds"], 1)
    stats["cold_cache_per_group"] = all(p.nli_stats.get("cold_cache_per_group") for p in parts)
    return BenchResult(
        dataset=dataset.info(),
        settings=dict(parts[0].settings),
        systems=list(parts[0].systems),
        records=[rec for p in parts for rec in p.records],
        nli_stats=stats,
        wall_s=wall_s,
    )


def run_benchmark_ray(
    dataset: Dataset,
    model: str | None = None,
    *,
    address: str | None = None,
    nli_kwargs: Mapping[str, Any] | None = None,
    num_cpus: float = 1.0,
    num_gpus: float = 0.0,
    progress: Callable[[int], None] | None = None,
    settings: Mapping[str, Any] | None = None,
    **bench_kwargs: Any,
) -> BenchResult:
    """:func:`~mirage_core.evaluation.harness.run_benchmark` over a Ray cluster.

    Args:
        model: the NLI backend's spec (:func:`~mirage_core.nli.loading.load_backend`), built
            in each task; ``None`` is the packaged model.
        address: the cluster (``"auto"``, ``"ray://head:10001"``); ``None`` joins the Ray
            instance this process already runs, or starts a local one.
        nli_kwargs: keyword arguments of the backend (``torch_threads``, ``batch_size``, ...).
        num_cpus, num_gpus: resources of each task.
        progress: called with the number of instances of each shard that finishes.
        settings, bench_kwargs: as in ``run_benchmark``; ``settings`` gains ``ray`` (the
            address) and ``shards``.
    """
    try:
        import ray
    except ImportError as exc:
        raise ImportError(_INSTALL_HINT) from exc
    if not ray.is_initialized():
        ray.init(address=address, include_dashboard=False)
    shards = [dataclasses.replace(dataset, instances=g) for g in regime_groups(dataset.instances)]
    task = ray.remote(num_cpus=num_cpus, num_gpus=num_gpus)(_run_shard)
    kwargs = dict(bench_kwargs)
    kwargs["settings"] = {
        **dict(settings or {}),
        "ray": address or "local",
        "shards": len(shards),
    }
    started = time.perf_counter()
    refs = [task.remote(s, model, dict(nli_kwargs or {}), kwargs) for s in shards]
    sizes = {ref: len(s) for ref, s in zip(refs, shards, strict=True)}
    pending = list(refs)
    while pending:
        done, pending = ray.wait(pending, num_returns=1)
        ray.get(done)  # a failed shard fails the run here, with its traceback
        if progress is not None:
            progress(sizes[done[0]])
    parts = ray.get(refs)
    return merge_results(dataset, parts, time.perf_counter() - started)
