"""Calibration: the NLI runs once per pair, the grid only hits the cache."""

from __future__ import annotations

import json

import pytest

from mirage_core import CallableNLI, Mirage, MirageConfig
from mirage_core.config import MethodSettings
from mirage_core.evaluation.calibrate import calibrate
from mirage_core.evaluation.datasets import load_jsonl
from mirage_core.evaluation.splits import split_queries
from tests.conftest import HABSBURG, HABSBURG_PAGES, entail_all, flagged_group
from tests.core.evaluation.conftest import passage_row

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


def assert_read_off_matches_engine(point, config, nli, dataset):
    """The pass rates calibrate read off its loose-gate verdicts for ``point`` are those of a
    full engine run of ``config`` with the point's parameters, in every regime."""
    verdicts = Mirage(config.replace(**point.params), nli=nli).defend_many(
        [i.query for i in dataset.instances], [i.passages for i in dataset.instances]
    )
    for regime in ("clean", "mixed", "full"):
        passed = [
            v.passed for v, i in zip(verdicts, dataset.instances, strict=True) if i.regime == regime
        ]
        assert point.fit[f"pass_{regime}"] == pytest.approx(sum(passed) / len(passed)), (
            point.params,
            regime,
        )


@pytest.mark.model
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
    # prefill + one engine run per (tau, kappa, d_min): corroborated delivery reads d_min
    assert done[0] == n * (1 + 2 * 2 * len(GRID["d_min"]))


@pytest.mark.model
def test_gate_read_off_the_verdicts_matches_a_full_engine_run(dataset, fake_nli):
    result = calibrate(dataset, fake_nli, grid=GRID, fit_fraction=1.0, log=None)
    for point in result.table[::5]:
        assert_read_off_matches_engine(point, MirageConfig(), fake_nli, dataset)


@pytest.mark.model
def test_read_off_matches_an_engine_run_with_the_redundancy_filter_on(dataset, fake_nli):
    # The filter acts after the gate on S* alone, so a loose-gate run still tells every
    # (r_max, d_min) decision: a verdict it blocks (nothing left) is blocked under any gate.
    base = MirageConfig(redundancy_filter="multi_hop")
    result = calibrate(dataset, fake_nli, base=base, grid=GRID, fit_fraction=1.0, log=None)
    for point in result.table[::7]:
        assert_read_off_matches_engine(point, base, fake_nli, dataset)


@pytest.mark.model
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


def test_gate_readout_applies_coordinated_d_min_after_a_quarantine(dataset, fake_nli, monkeypatch):
    """After the coordination signals quarantine passages the engine's gate asks
    ``coordinated_d_min`` sources, not the grid's ``d_min``; the read-off must too."""
    from mirage_core import coordination

    def flag_first_two(query, texts, domains, embeddings=None, model=None, spans=None):
        return [flagged_group((0, 1))]

    monkeypatch.setattr(coordination, "detect_coordination", flag_first_two)
    base = MirageConfig(coordination="text", method=MethodSettings(coordination_self_conflict=None))
    grid = {"r_max": [0.3, 1.0], "d_min": [1, 2, 3]}
    result = calibrate(dataset, fake_nli, base=base, grid=grid, fit_fraction=1.0, log=None)
    queries = [i.query for i in dataset.instances]
    evidence = [i.passages for i in dataset.instances]
    quarantined = [
        bool(v.extras.get("quarantined_claims"))
        for v in Mirage(base, nli=fake_nli).defend_many(queries, evidence)
    ]
    assert any(quarantined)
    for point in result.table:
        assert_read_off_matches_engine(point, base, fake_nli, dataset)


def test_grid_varies_the_coordination_thresholds(dataset, fake_nli, monkeypatch):
    """The coordination thresholds change what is quarantined (one engine run per value, cache
    hits only) and the read-off still matches full engine runs; the best value lands in the
    written config. The detector is stubbed to flag passages 0-1 when the model it is handed
    has a threshold under 5 (the test passages are one-liners, which the real one never flags)."""
    from mirage_core import coordination

    def by_threshold(query, texts, domains, embeddings=None, model=None, spans=None):
        return [flagged_group((0, 1), threshold=model.threshold, flagged=model.threshold < 5.0)]

    monkeypatch.setattr(coordination, "detect_coordination", by_threshold)
    base = MirageConfig(coordination="text", method=MethodSettings(coordination_self_conflict=None))
    grid = {"r_max": [0.3, 1.0], "d_min": [1, 2], "coordination_threshold": [1.0, 9.0]}
    done = [0]

    def tick(k):
        done[0] += k

    result = calibrate(
        dataset, fake_nli, base=base, grid=grid, fit_fraction=1.0, progress=tick, log=None
    )
    n = len(dataset)
    assert done[0] == n * (1 + 2 * 2) and result.nli["grid_cache_misses"] == 0
    assert len(result.table) == 2 * 2 * 2
    assert {p.coordination_threshold for p in result.table} == {1.0, 9.0}
    queries = [i.query for i in dataset.instances]
    evidence = [i.passages for i in dataset.instances]
    low = Mirage(base.replace(coordination_threshold=1.0), nli=fake_nli)
    high = Mirage(base.replace(coordination_threshold=9.0), nli=fake_nli)
    assert not any(
        v.extras.get("coordinated_passages") for v in high.defend_many(queries, evidence)
    )
    assert any(v.extras.get("coordinated_passages") for v in low.defend_many(queries, evidence))
    for point in result.table:
        assert point.params["coordination_threshold"] == point.coordination_threshold
        assert_read_off_matches_engine(point, base, fake_nli, dataset)
    assert result.config.method.coordination_threshold == result.best.coordination_threshold
    assert "coordination (group / whole)" in result.table_markdown()
    # without the key the column and the field stay out
    plain = calibrate(dataset, fake_nli, base=base, grid={"r_max": [0.3]}, log=None)
    assert "coordination_threshold" not in plain.best.params
    assert "coordination" not in plain.table_markdown()


@pytest.fixture
def habsburg(tmp_path):
    """The Habsburg evidence (an encyclopedic page and a planted one) as a query file."""
    path = tmp_path / "habsburg.jsonl"
    row = {"id": "h0", "query": HABSBURG, "passages": [passage_row(p) for p in HABSBURG_PAGES]}
    path.write_text(json.dumps(row) + "\n")
    return load_jsonl(path, families=["unambiguous"], seed=0)


def test_grid_varies_the_answer_slot_context(habsburg):
    """A named choice is one more engine run per value on cache hits; the read-off matches
    full engine runs and the choice lands in the point, the table and the written config."""
    nli = CallableNLI(entail_all)
    base = MirageConfig(independence="none", coordination="none")
    grid = {
        "r_max": [0.3, 1.0],
        "d_min": [1, 2],
        "answer_conflict_context": ["claim", "lead+previous"],
    }
    result = calibrate(habsburg, nli, base=base, grid=grid, fit_fraction=1.0, log=None)
    assert len(result.table) == 2 * 2 * 2 and result.nli["grid_cache_misses"] == 0
    by = {(p.choices["answer_conflict_context"], p.r_max, p.d_min): p for p in result.table}
    # with its page's context the encyclopedic sentence answers the question, and the two
    # pages name different capitals: the clean evidence is blocked
    assert by[("claim", 1.0, 1)].fit["pass_clean"] == 1.0
    assert by[("lead+previous", 1.0, 1)].fit["pass_clean"] == 0.0
    for point in result.table:
        assert point.params["answer_conflict_context"] == point.choices["answer_conflict_context"]
        assert_read_off_matches_engine(point, base, nli, habsburg)
    assert result.base in result.table  # the base's choice is on the grid: no extra run
    # a base outside the grid (r_max 0.3 not listed) is scored by its own run, its choice kept
    off = dict(grid, r_max=[1.0])
    outside = calibrate(habsburg, nli, base=base, grid=off, fit_fraction=1.0, log=None)
    assert outside.base not in outside.table
    assert outside.base.choices == {"answer_conflict_context": "claim"}
    assert (
        result.config.method.answer_conflict_context
        == result.best.choices["answer_conflict_context"]
    )
    assert "answer_conflict_context |" in result.table_markdown()
    # without the key the field stays out of the points and the table
    plain = calibrate(habsburg, nli, base=base, grid={"r_max": [1.0]}, log=None)
    assert "answer_conflict_context" not in plain.best.params
    assert "answer_conflict_context" not in plain.table_markdown()
    with pytest.raises(ValueError, match="answer_conflict_context"):
        calibrate(habsburg, nli, grid={"answer_conflict_context": ["page"]}, log=None)
    with pytest.raises(ValueError, match="no value"):
        calibrate(habsburg, nli, grid={"answer_conflict_context": []}, log=None)


@pytest.mark.model
def test_grid_varies_the_redundancy_filter(dataset, fake_nli):
    grid = {"r_max": [0.3, 1.0], "d_min": [1], "redundancy_filter": ["none", "multi_hop"]}
    result = calibrate(dataset, fake_nli, grid=grid, fit_fraction=1.0, log=None)
    assert len(result.table) == 2 * 2 and result.nli["grid_cache_misses"] == 0
    assert {p.choices["redundancy_filter"] for p in result.table} == {"none", "multi_hop"}
    for point in result.table:
        assert_read_off_matches_engine(point, MirageConfig(), fake_nli, dataset)
