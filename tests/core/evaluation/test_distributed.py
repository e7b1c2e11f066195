"""``mirage bench --ray`` on the session's local Ray instance: the report of a local run."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

pytest.importorskip("ray")

from mirage_core.cli import main
from mirage_core.evaluation.distributed import merge_results

TEST_DATA = Path(__file__).resolve().parents[2] / "data"
#: What differs between two runs of the same inputs: time, and where the run happened.
TIMING = ("latency", "wall", "seconds", "per_second")
WHERE = ("command", "hardware", "ray", "shards")


def strip_timings(value):
    if isinstance(value, dict):
        return {
            k: strip_timings(v)
            for k, v in value.items()
            if not any(t in k for t in TIMING) and k not in WHERE
        }
    if isinstance(value, list):
        return [strip_timings(v) for v in value]
    return value


def read_run(out: Path) -> tuple[dict, list[dict]]:
    report = json.loads((out / "report.json").read_text())
    instances = [json.loads(line) for line in (out / "instances.jsonl").read_text().splitlines()]
    return report, instances


@pytest.mark.model
def test_bench_on_ray_reports_what_a_local_run_reports(
    ray_local, sharp_nli_dir, tmp_path, monkeypatch
) -> None:
    monkeypatch.setenv("MIRAGE_DATA_DIR", str(TEST_DATA))
    args = [
        "bench",
        "--dataset",
        "poisonedrag-nq",
        "--model",
        str(sharp_nli_dir),
        "--systems",
        "no_rag,vanilla_rag,mirage,mirage_no_diversity_gate",
        "--no-plots",
        "--no-progress",
        "--threads",
        "1",
    ]
    torch = pytest.importorskip("torch")
    threads = torch.get_num_threads()
    try:
        assert main([*args, "--out", str(tmp_path / "local")]) == 0
    finally:
        torch.set_num_threads(threads)  # --threads is process-wide
    assert main([*args, "--out", str(tmp_path / "ray"), "--ray"]) == 0
    local, local_instances = read_run(tmp_path / "local")
    dist, dist_instances = read_run(tmp_path / "ray")
    assert dist["settings"]["ray"] == "local" and dist["settings"]["shards"] >= 3
    assert strip_timings(dist) == strip_timings(local)
    assert strip_timings(dist_instances) == strip_timings(local_instances)
    decisions = {i["routes"]["mirage"]["decision"] for i in local_instances}
    assert len(decisions) > 1  # the inputs exercise more than one route


def test_merging_nothing_is_an_error() -> None:
    with pytest.raises(ValueError, match="no shard results"):
        merge_results(None, [], 0.0)  # type: ignore[arg-type]
