"""Symmetric contradiction, relevance-weighted gate and attribution lists: options beyond the
published method (docs/method.md)."""

import numpy as np
import pytest

from mirage_core import CallableNLI, Mirage, MirageConfig, Passage
from mirage_core.config import MethodSettings
from mirage_core.graph import ClaimGraph, build_graph, symmetric_contra
from tests.conftest import worded_claims


def _probs(forward, backward):
    rows = [[1 - p - 0.01, 0.01, p] for p in [*forward, *backward]]
    return np.asarray(rows)


@pytest.mark.parametrize(
    ("symmetry", "expected"),
    [("each", [0.9, 0.1]), ("min", [0.1, 0.1]), ("mean", [0.5, 0.5]), ("max", [0.9, 0.9])],
)
def test_symmetric_contra(symmetry, expected):
    out = symmetric_contra(_probs([0.9], [0.1]), symmetry)
    assert out.tolist() == pytest.approx(expected)


def test_one_directional_contradiction_is_dropped_under_min():
    probs = _probs([0.8], [0.2])
    each = ClaimGraph.build(2, np.array([0]), np.array([1]), probs, 0.5, symmetry="each")
    both = ClaimGraph.build(2, np.array([0]), np.array([1]), probs, 0.5, symmetry="min")
    assert each.w_contr.tolist() == pytest.approx([0.8, 0.0])
    assert both.w_contr.tolist() == [0.0, 0.0]
    # the record keeps each direction's own probabilities
    assert both.probs[:, 2].tolist() == pytest.approx([0.8, 0.2])


@pytest.mark.parametrize("symmetry", ["each", "min", "mean", "max"])
def test_build_graph_combines_directions_as_the_config_asks(symmetry):
    claims = worded_claims(
        [("The tower was completed in 1889.", "a.example"), ("It opened in 1925.", "b.example")]
    )
    config = MirageConfig(method=MethodSettings(contradiction_symmetry=symmetry, kappa=0.05))
    probs = _probs([0.9], [0.1])
    sourced = build_graph(claims, np.array([0]), np.array([1]), probs, config)
    assert sourced.graph.w_contr.tolist() == pytest.approx(symmetric_contra(probs, symmetry))


def test_an_empty_graph_has_no_edges_and_three_labels():
    graph = ClaimGraph.empty(4)
    assert len(graph) == 0 and graph.n_claims == 4 and graph.probs.shape == (0, 3)
    assert graph.mass() == (0.0, 0.0)


def test_mass_weighs_edges():
    probs = np.array([[0.0, 0.1, 0.9], [0.0, 0.1, 0.9]])
    g = ClaimGraph.build(2, np.array([0]), np.array([1]), probs, 0.5)
    assert g.mass(None, np.array([0.5, 0.0]))[1] == pytest.approx(0.45)


def _always(label: int):
    def fn(premises, hypotheses):
        out = np.full((len(premises), 3), 0.01)
        out[:, label] = 0.98
        return out

    return CallableNLI(fn)


@pytest.mark.model
def test_attribution_list_passes_with_an_entailing_model(attributed_outlets):
    # The standard suite's attribution case: reading "Alpha" vs "Bravo" as a conflict would
    # give r_contr above r_max.
    v = Mirage(MirageConfig(), nli=_always(0)).defend(
        "How tall is the Eiffel Tower?", attributed_outlets
    )
    assert v.decision == "verified", v.reason
    assert v.r_contr == 0.0


@pytest.mark.model
def test_off_topic_conflict_cannot_block():
    # Every pair contradicts, but only the claims about the café are in conflict with each
    # other... and none of them is about the question.
    nli = _always(2)
    passages = [
        Passage("The café next door opened in 1990.", source="https://a.example/1"),
        Passage("The café next door opened in 1995.", source="https://b.example/2"),
    ]
    query = "How tall is the Eiffel Tower?"
    on = Mirage(MirageConfig(d_min=1), nli=nli).defend(query, passages)
    off = Mirage(MirageConfig(d_min=1, method=MethodSettings(relevance="none")), nli=nli).defend(
        query, passages
    )
    assert off.decision == "fallback" and off.r_contr > 0.3
    assert on.r_contr == 0.0 and on.decision == "verified"
    assert on.relevance is not None and on.relevance.max() == 0.0
    assert "relevance" in on.to_dict()["claims"][0]


@pytest.mark.model
def test_relevant_conflict_still_blocks():
    nli = _always(2)
    passages = [
        Passage("The Eiffel Tower was completed in 1889.", source="https://a.example/1"),
        Passage("The Eiffel Tower was completed in 1925.", source="https://b.example/2"),
    ]
    v = Mirage(MirageConfig(), nli=nli).defend("When was the Eiffel Tower completed?", passages)
    assert v.decision == "fallback"
    assert v.r_contr > 0.9


def test_paper_keeps_each_direction_and_no_relevance():
    cfg = MirageConfig.paper()
    assert cfg.method.contradiction_symmetry == "each"
    assert cfg.method.relevance == "none"
    assert cfg.method.claim_filter is False


@pytest.mark.model
def test_non_claims_are_in_the_verdict(fake_nli):
    mirage = Mirage(MirageConfig(method=MethodSettings(claim_filter=True)), nli=fake_nli)
    passages = [
        Passage(
            "When was the Eiffel Tower completed? The Eiffel Tower was completed in 1889.",
            source="https://a.example/1",
        ),
        Passage(
            "The Eiffel Tower was completed in 1889 for the World's Fair.",
            source="https://b.example/2",
        ),
    ]
    v = mirage.defend("When was the Eiffel Tower completed?", passages)
    assert [c.text for c in v.claims if c.passage_index == 0] == [
        "The Eiffel Tower was completed in 1889."
    ]
    assert v.candidate_stats["non_claims"] == 1
    assert v.extras["non_claims"][0]["reason"] == "question"
    assert "not claims (1 sentences skipped): question 1" in v.explain()
