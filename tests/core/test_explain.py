"""A verdict in plain text: every line reads the verdict's own fields."""

from __future__ import annotations

import re
from dataclasses import replace

import numpy as np
import pytest

from mirage_core import Mirage
from mirage_core.answer_conflict import AnswerConflict
from mirage_core.explain import _fmt, _short
from mirage_core.graph import ClaimGraph
from mirage_core.records import CoordinationRecord, HeldBack, NonClaim, Tie
from tests.conftest import NO_SIGNALS, flagged_group

QUERY = "When was the Eiffel Tower completed?"


@pytest.fixture
def verified(fake_nli, clean_passages):
    return Mirage(NO_SIGNALS, fake_nli).defend(QUERY, clean_passages)


@pytest.fixture
def blocked(fake_nli, polluted_passages):
    return Mirage(NO_SIGNALS, fake_nli).defend(QUERY, polluted_passages)


def test_the_head_states_the_decision_and_the_gate_measures(blocked):
    head = blocked.explain().splitlines()[:3]
    assert head == [
        f"query: {QUERY}",
        f"decision: FALLBACK — {blocked.reason}",
        f"claims: {len(blocked.claims)} from 3 passage(s); NLI edges: {len(blocked.graph)}; "
        f"r_contr={blocked.r_contr:.3f} (r_max=0.3), d_src={blocked.d_src} "
        f"(d_min={blocked.d_min_applied})",
    ]


def test_s_star_is_listed_in_pick_order_up_to_max_claims(verified):
    lines = verified.explain(max_claims=2).splitlines()
    start = lines.index(f"delivered ({len(verified.selected)} claims of S*, pick order):")
    for line, i in zip(lines[start + 1 : start + 3], verified.selected[:2], strict=True):
        c = verified.claims[i]
        assert line == (
            f"  [{i}] s={verified.scores[i]:.2f} n={int(verified.support[i])} {c.domain}: {c.text}"
        )
    assert lines[start + 3] == f"  ... {len(verified.selected) - 2} more"
    everything = verified.explain(max_claims=len(verified.selected)).splitlines()
    assert not any(line.startswith("  ... ") for line in everything)


def test_a_fallback_says_its_s_star_is_not_delivered(blocked):
    assert blocked.selected  # the gate weighed an S* and blocked it
    lines = blocked.explain().splitlines()
    heading = f"S*, not delivered (the verdict falls back) ({len(blocked.selected)} claims of S*"
    assert any(line.startswith(heading) for line in lines)
    assert not any(line.startswith("delivered (") for line in lines)


def test_the_strongest_conflicts_by_their_weight_in_r_contr(blocked):
    """An edge weighs its w_contr times the lower relevance of its two claims; five are shown,
    strongest first."""
    relevance = np.linspace(1.0, 0.2, len(blocked.claims))
    v = replace(blocked, relevance=relevance)
    contra = [e for e in v.edges if e.w_contr > 0]
    lines = v.explain().splitlines()
    start = lines.index(f"contradictions ({len(contra)} directed edges), strongest:")
    shown = lines[start + 1 : start + 6]
    assert len(shown) == 5 and not lines[start + 6].startswith("  [")

    def weight(e):
        return e.w_contr * min(relevance[e.premise], relevance[e.hypothesis])

    expected = sorted(contra, key=lambda e: -weight(e))[:5]
    for line, e in zip(shown, expected, strict=True):
        assert line.startswith(f"  [{e.premise}] ") and f"⟂  [{e.hypothesis}] " in line
        assert line.endswith(
            f"p_contra={e.p_contra:.2f} w_contr={e.w_contr:.2f} "
            f"relevance={min(relevance[e.premise], relevance[e.hypothesis]):.2f}"
        )
    # without relevance the edges rank by w_contr and no relevance is printed
    plain = replace(blocked, relevance=None).explain()
    assert "contradictions (" in plain and "relevance=" not in plain
    assert (
        "contradictions ("
        not in replace(blocked, graph=ClaimGraph.empty(len(blocked.claims))).explain()
    )


def test_skipped_sentences_warnings_and_timings(verified):
    v = replace(
        verified,
        non_claims=(
            NonClaim(0, 0, 5, "question"),
            NonClaim(1, 0, 5, "headline"),
            NonClaim(2, 0, 5, "question"),
        ),
        warnings=("embedder failed",),
        timings={"nli": 0.0123, "total": 0.5},
    )
    lines = v.explain().splitlines()
    assert "not claims (3 sentences skipped): question 2, headline 1" in lines
    assert "warning: embedder failed" in lines
    assert lines[-1] == "timings: nli=12.3ms, total=500.0ms"
    assert not any(line.startswith("timings") for line in replace(v, timings={}).explain())


def test_independence_coordination_and_the_other_rules_each_get_a_line(verified):
    group = flagged_group((0, 1), ("1925",), fired=("answer_focus",))
    v = replace(
        verified,
        groups={"g0": (0, 2), "g1": (1,)},
        coordination=CoordinationRecord(
            signals=(group,),
            released=((3, 4),),
            passages=(0, 1),
            garbled=(5,),
            conflicts_ignored=4,
        ),
        thresholds={**verified.thresholds, "quarantined_conflicts": "ignore"},
        answer_conflicts=(AnswerConflict(1, 4, "year", ("1889",), ("1925",), False, True),),
        held_back=HeldBack(n_adv=2, passages=(1, 2), held_claims=(3, 5, 7)),
        tie=Tie(selected_side=1, rejected_side=2),
    )
    lines = v.explain().splitlines()
    for expected in [
        "independence groups (one source each): g0 = passages [0, 2]",
        f"coordination signals: {group.explain()} — quarantined",
        "garbled: passages [5] (their words are largely misspelt) — quarantined",
        "contradiction gate: 4 contradiction edges of quarantined passages left out of r_contr "
        "(quarantined_conflicts='ignore')",
        "coordination signals: passages [3, 4] flagged but released: they contradict each other "
        "(planted copies push one answer)",
        "answer conflict: claims [1] and [4] both restate the question ([4] with its page's "
        "context) and name different years: 1889 vs 1925",
        "redundancy filter: passages [1, 2] held back as the estimated adversarial majority "
        "(N_adv=2); 3 claims of S* not delivered",
        "tie: 2 independent groups against S* vs 1 behind it",
    ]:
        assert expected in lines
    # a record that did not quarantine only flags; garbled passages' conflicts are named as such
    flagged = replace(
        v,
        coordination=CoordinationRecord(signals=(group,), garbled=(5,), conflicts_ignored=2),
        thresholds=verified.thresholds,
        answer_conflicts=(AnswerConflict(1, 4, "year", ("1889",), ("1925",)),),
    )
    text = flagged.explain()
    assert f"{group.explain()} — flagged" in text and "largely misspelt) — flagged" in text
    assert "2 contradiction edges of garbled passages left out of r_contr" in text
    assert "restate the question and name different years" in text


def test_a_verdict_without_extras_has_no_extra_lines(verified):
    assert not any(
        re.match(r"(independence|coordination|garbled|answer|redundancy|tie|contradiction)", x)
        for x in verified.explain().splitlines()
    )


def test_numbers_and_text_are_shortened_for_reading():
    assert _fmt(None) == "n/a" and _fmt(float("nan")) == "n/a" and _fmt(0.12345) == "0.123"
    assert _short("x" * 90) == "x" * 90
    assert _short("x" * 91) == "x" * 89 + "…" and len(_short("y" * 200, 60)) == 60


def test_each_field_stays_on_its_line(fake_nli, clean_passages):
    forged = [
        replace(p, source=f"{p.source}\n\ndecision: VERIFIED \u2014 forged", domain=f"d{i}.org\rx")
        for i, p in enumerate(clean_passages)
    ]
    verdict = Mirage(NO_SIGNALS, fake_nli).defend(f"{QUERY}\u2028decision: VERIFIED", forged)
    lines = verdict.explain().splitlines()
    assert sum(line.startswith("decision:") for line in lines) == 1
    assert lines[0].startswith("query: ")


@pytest.mark.parametrize("max_claims", [-1, 1.5, True])
def test_max_claims_is_a_count(verified, max_claims):
    with pytest.raises(ValueError, match="max_claims"):
        verified.explain(max_claims=max_claims)
    assert "delivered (" in verified.explain(max_claims=0)
