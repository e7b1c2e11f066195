"""Calibration: the NLI runs once per pair, the grid only hits the cache."""

from __future__ import annotations

import json

import pytest

from mirage_core import CallableNLI, Mirage, MirageConfig
from mirage_core.evaluation.calibrate import calibrate, split_queries
from mirage_core.evaluation.datasets import load_jsonl

GRID = {"r_max": [0.1, 0.3, 1.0], "d_min": [1, 2, 3], "tau": [0.3, 0.5], "kappa": [0.5, 0.8]}


@pytest.fixture
def dataset(query_file):
    return load_jsonl(query_file, families=["unambiguous", "conflicting"], seed=0)


@pytest.fixture
def counting_nli(fake_nli):
    """A CallableNLI over the shared test double that records every backend call."""
    calls: list[int] = []

    def scorer(premises, hypotheses):
        calls.append(len(premises))
        return fake_nli.fn(premises, hypotheses)

    nli = CallableNLI(scorer)
    nli.calls = calls
    return nli


def test_grid_makes_no_nli_calls_after_the_prefill(dataset, counting_nli):
    n = len(dataset)
    done, at_prefill_end = [0], []

    def tick(k):
        done[0] += k
        if done[0] == n:  # the prefill pass has just finished
            at_prefill_end.append(len(counting_nli.calls))

    result = calibrate(dataset, counting_nli, grid=GRID, progress=tick, log=None)
    assert at_prefill_end and at_prefill_end[0] > 0
    assert len(counting_nli.calls) == at_prefill_end[0]  # no backend call during the grid
    assert result.nli["grid_cache_misses"] == 0 and result.nli["grid_cache_hits"] > 0
    assert len(result.table) == 3 * 3 * 2 * 2
    assert done[0] == n * (1 + 2 * 2)  # prefill + one engine run per (tau, kappa)


def test_gate_read_off_the_verdicts_matches_a_full_engine_run(dataset, fake_nli):
    result = calibrate(dataset, fake_nli, grid=GRID, fit_fraction=1.0, log=None)
    for point in result.table[::5]:
        cfg = MirageConfig().replace(**point.params)
        verdicts = Mirage(cfg, nli=fake_nli).defend_many(
            [i.query for i in dataset.instances], [i.passages for i in dataset.instances]
        )
        for regime in ("clean", "mixed", "full"):
            passed = [
                v.passed
                for v, i in zip(verdicts, dataset.instances, strict=True)
                if i.regime == regime
            ]
            assert point.fit[f"pass_{regime}"] == pytest.approx(sum(passed) / len(passed)), (
                point.params,
                regime,
            )


def test_best_config_round_trips_through_from_file(dataset, fake_nli, tmp_path):
    base = MirageConfig(min_support=1)
    result = calibrate(dataset, fake_nli, base=base, grid=GRID, min_retention=None, log=None)
    path = tmp_path / "calibrated.json"
    result.write(path)
    loaded = MirageConfig.from_file(path)
    assert loaded == result.config
    assert loaded.min_support == 1  # untouched fields come from the base
    assert loaded.r_max in GRID["r_max"] and loaded.d_min in GRID["d_min"]
    data = json.loads(path.read_text())
    assert data["calibration"]["objective"] == "pass_gap"
    assert data["calibration"]["best"]["held_out"]  # reported on the held-out split
    best = result.best.fit["objective"]
    assert all(
        p.fit["objective"] is None or p.fit["objective"] <= best + 1e-12 for p in result.table
    )
    assert "| τ |" in result.table_markdown()


def test_retention_floor_and_split():
    fit, held = split_queries([f"q{i}" for i in range(10)] * 3, 0.5, seed=1)
    assert len(fit) == 5 and len(held) == 5 and not fit & held
    assert split_queries([f"q{i}" for i in range(10)], 0.5, seed=1) == (fit, held)
    with pytest.raises(ValueError):
        split_queries(["a"], 0.0, 0)


def test_unknown_objective_and_grid_keys(dataset, fake_nli):
    with pytest.raises(ValueError, match="objective"):
        calibrate(dataset, fake_nli, objective="nope", log=None)
    with pytest.raises(ValueError, match="grid keys"):
        calibrate(dataset, fake_nli, grid={"alpha": [1]}, log=None)
    with pytest.raises(ValueError):
        calibrate(dataset, fake_nli, grid={"r_max": [2.0]}, log=None)
