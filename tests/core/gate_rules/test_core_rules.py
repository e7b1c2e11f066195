"""The two core gate rules and how the gate combines them, on gate states built by hand."""

from __future__ import annotations

from types import SimpleNamespace

import pytest

from mirage_core import MirageConfig
from mirage_core.gate import decide
from mirage_core.gate_rules.contradiction_ratio import ContradictionRatio
from mirage_core.gate_rules.source_diversity import SourceDiversity


@pytest.fixture
def state():
    """What the core rules read: the measures, d_min, the evidence's units and the config."""

    def make(**measures):
        values = {
            "selected": (0, 1),
            "r_contr": 0.0,
            "d_src": 2,
            "d_min": 2,
            "n_units": 3,
            "corroborated": False,
            "config": MirageConfig(),
        }
        return SimpleNamespace(**(values | measures))

    return make


def test_contradiction_ratio_blocks_only_above_r_max(state):
    r_max = MirageConfig().r_max
    at = ContradictionRatio().check(state(r_contr=r_max))
    above = ContradictionRatio().check(state(r_contr=r_max + 1e-6))
    assert not at.blocks and "≤ r_max" in at.reason
    assert above.blocks and "contradicts itself" in above.reason
    assert at.rule == above.rule == "contradiction_ratio"


def test_source_diversity_says_whether_the_evidence_or_s_star_had_too_few(state):
    rule = SourceDiversity()
    assert not rule.check(state(d_src=2, d_min=2)).blocks
    one_unit = rule.check(state(d_src=1, n_units=1))
    two_units = rule.check(state(d_src=1, n_units=2, d_min=3))
    too_few = rule.check(state(d_src=1, n_units=4))
    assert one_unit.blocks and "only one domain in the evidence" in one_unit.reason
    assert two_units.blocks and "too few domains" in two_units.reason
    assert too_few.blocks and "too few domains" in too_few.reason
    grouped = rule.check(state(d_src=1, config=MirageConfig(independence="embedding")))
    assert "too few independent sources" in grouped.reason


def test_the_gate_reports_both_core_problems_and_runs_no_later_rule(state):
    blocked = decide(state(r_contr=0.9, d_src=1), coordination=None)
    assert blocked.decision == "fallback"
    assert [o.rule for o in blocked.outcomes] == ["contradiction_ratio", "source_diversity"]
    assert "contradicts itself" in blocked.reason and "d_src=1 < d_min=2" in blocked.reason


def test_an_empty_selection_falls_back_before_any_rule(state):
    empty = decide(state(selected=()), coordination=None)
    assert empty.decision == "fallback"
    assert [o.rule for o in empty.outcomes] == ["selection"] and empty.outcomes[0].blocks
    assert "S* is empty" in empty.reason
