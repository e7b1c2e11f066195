"""Coordinated passages are quarantined: their claims need support from outside them."""

from dataclasses import replace

import numpy as np
import pytest

from mirage_core import Mirage, MirageConfig, Passage
from mirage_core.claims import content_tokens
from mirage_core.config import MethodSettings
from mirage_core.graph import ClaimGraph
from mirage_core.quarantine import (
    conflict_weight,
    gate_d_min,
    outside_support,
    quarantine_eligible,
    self_contradicting,
)
from mirage_core.types import Claim
from tests.conftest import flagged_group


def _claims(passage_of: list[int]) -> list[Claim]:
    return [
        Claim(i, f"claim {i}", p, 0, 5, f"s{p}", f"d{p}", 1.0, content_tokens(f"claim {i} x"))
        for i, p in enumerate(passage_of)
    ]


def _support_graph(n: int, edges: list[tuple[int, int]]) -> ClaimGraph:
    left = np.array([a for a, _ in edges])
    right = np.array([b for _, b in edges])
    probs = np.tile([0.98, 0.01, 0.01], (2 * len(edges), 1))
    return ClaimGraph.build(n, left, right, probs, 0.5)


def test_planted_claims_need_outside_support():
    # claims 0-2 on planted passages 0-2 support each other; claim 3 (honest passage 3)
    # supports claim 2 only.
    claims = _claims([0, 1, 2, 3])
    graph = _support_graph(4, [(0, 1), (1, 2), (0, 2), (2, 3)])
    groups = np.array([0, 1, 2, 3])
    eligible, quarantined = quarantine_eligible(claims, graph, groups, {0, 1, 2}, 1)
    assert quarantined.tolist() == [True, True, True, False]
    assert eligible.tolist() == [False, False, True, True]
    assert outside_support(graph, groups, quarantined).tolist() == [0, 0, 1, 0]
    off, _ = quarantine_eligible(claims, graph, groups, {0, 1, 2}, 0)
    assert off.all()


AUSTRALIA = "What is the capital of Australia?"


@pytest.fixture
def planted_flagged(monkeypatch):
    """Three planted copies (passages 0-2) flagged by a stubbed detector, and one honest page;
    returns (passages, calls made to the detector)."""
    from mirage_core import coordination

    tails = ("as reported", "by all accounts", "as widely known")
    planted = [
        Passage(f"The capital of Australia is Sydney, {t}.", source=f"https://p{i}.example")
        for i, t in enumerate(tails)
    ]
    honest = Passage("Canberra is the capital of Australia.", source="https://gov.example/au")
    calls = []

    def fake_detect(query, texts, domains, embeddings=None, model=None, spans=None):
        calls.append((query, len(texts), embeddings))
        return [flagged_group((0, 1, 2), ("sydney",), fired=("answer_focus",))]

    monkeypatch.setattr(coordination, "detect_coordination", fake_detect)
    return [*planted, honest], calls


def test_flagged_group_is_quarantined_in_the_verdict(planted_flagged, fake_nli):
    passages, calls = planted_flagged
    cfg = MirageConfig(coordination="text", method=MethodSettings(coordinated_d_min=None))
    v = Mirage(cfg, nli=fake_nli).defend(AUSTRALIA, passages)
    assert calls and calls[0][2] is None  # the text model needs no embeddings
    assert v.decision == "fallback"
    assert v.extras["coordinated_passages"] == [0, 1, 2]
    assert "look planted (answer_focus) and were quarantined" in v.reason
    assert "d_min=2" in v.reason  # the honest page alone is one source
    assert "share sydney: answer sentences 90% query + shared words" in v.explain()
    html = v.to_html(passages)  # the report names the planted passages and why
    assert 'id="coordination"' in html and "quarantined: passages 0, 1, 2" in html
    assert html.count("looks planted: quarantined") == 3
    # With the quarantine off the groups are still reported, as flagged, not as quarantined.
    off = Mirage(
        MirageConfig(coordination="text", method=MethodSettings(coordinated_min_support=0)),
        nli=fake_nli,
    ).defend(AUSTRALIA, passages)
    assert "coordinated_passages" not in off.extras
    assert "share sydney" in off.explain() and "— flagged" in off.explain()
    assert "quarantined" not in off.explain() and "<li>flagged: " in off.to_html(passages)
    assert not any(v.claims[i].passage_index in (0, 1, 2) for i in v.selected)
    # Without the rule the planted copies corroborate each other and pass.
    plain = Mirage(MirageConfig(coordination="none"), nli=fake_nli).defend(AUSTRALIA, passages)
    assert plain.decision == "verified"
    assert "coordinated_passages" not in plain.extras


@pytest.mark.model
def test_after_a_quarantine_the_gate_asks_coordinated_d_min_sources(planted_flagged, fake_nli):
    """The planted copies took the slots corroboration would fill: with ``coordinated_d_min=1``
    the honest page that remains is delivered alone, and the verdict says which d_min applied."""
    passages, _ = planted_flagged
    v = Mirage(
        MirageConfig(coordination="text", method=MethodSettings(coordinated_d_min=1)), nli=fake_nli
    ).defend(AUSTRALIA, passages)
    assert v.decision == "verified", v.reason
    assert {v.claims[i].passage_index for i in v.selected} == {3}
    assert v.extras["d_min"] == 1 and v.d_min_applied == 1
    assert "d_min=1" in v.reason and "(d_min=1)" in v.explain()
    # Nothing quarantined: the configured d_min applies and nothing is recorded.
    plain = Mirage(MirageConfig(method=MethodSettings(coordinated_d_min=1)), nli=fake_nli).defend(
        AUSTRALIA, passages[3:] + passages[3:]
    )
    assert "d_min" not in plain.extras and plain.d_min_applied == 2


def test_one_quarantined_claim_is_enough_for_coordinated_d_min(monkeypatch, fake_nli):
    """A flagged pair of pages that holds one claim between them (the other is a bare menu)
    still took a slot corroboration would fill: the honest page answers alone."""
    from mirage_core import coordination

    passages = [
        Passage("The capital of Australia is Sydney, as reported.", source="https://p0.example"),
        Passage("Menu", source="https://p1.example"),
        Passage("Canberra is the capital of Australia.", source="https://gov.example/au"),
    ]
    monkeypatch.setattr(
        coordination,
        "detect_coordination",
        lambda *a, **k: [flagged_group((0, 1), ("sydney",), fired=("answer_focus",))],
    )
    v = Mirage(
        MirageConfig(coordination="text", method=MethodSettings(coordinated_d_min=1)), nli=fake_nli
    ).defend(AUSTRALIA, passages)
    assert v.extras["quarantined_claims"] == 1
    assert v.d_min_applied == 1 and v.decision == "verified", v.reason
    assert {v.claims[i].passage_index for i in v.selected} == {2}


def test_quarantined_conflicts_ignore_leaves_their_edges_out_of_r_contr(planted_flagged):
    """The planted Sydney copies contradict the honest Canberra page. Counted, those conflicts
    block the honest page too; with ``quarantined_conflicts="ignore"`` the gate reads only what
    remains, and the honest page is delivered."""
    from mirage_core import CallableNLI

    def sydney_vs_canberra(premises, hypotheses):
        rows = []
        for a, b in zip(premises, hypotheses, strict=True):
            if ("Sydney" in a) != ("Sydney" in b):
                rows.append([0.02, 0.03, 0.95])
            else:
                rows.append([0.9, 0.08, 0.02])
        return np.array(rows)

    passages, _ = planted_flagged
    nli = CallableNLI(sydney_vs_canberra)
    base = MirageConfig(coordination="text")
    counted = Mirage(base, nli=nli).defend(AUSTRALIA, passages)
    assert counted.extras["coordinated_passages"] == [0, 1, 2]
    assert counted.decision == "fallback" and counted.r_contr > base.r_max
    ignored = Mirage(base.replace(quarantined_conflicts="ignore"), nli=nli).defend(
        AUSTRALIA, passages
    )
    assert ignored.decision == "verified", ignored.reason
    assert ignored.r_contr == 0.0
    planted_claims = {c.index for c in ignored.claims if c.passage_index < 3}
    touching = [
        e for e in ignored.edges if e.w_contr > 0 and {e.premise, e.hypothesis} & planted_claims
    ]
    # every contradiction edge that touches a quarantined claim is counted, once per direction
    assert ignored.extras["conflicts_ignored"] == len(touching) > 0
    assert "left out of r_contr" in ignored.explain()
    assert "conflicts_ignored" not in counted.extras
    assert {ignored.claims[i].passage_index for i in ignored.selected} == {3}
    # nothing quarantined: the option changes nothing
    plain = Mirage(
        MirageConfig(coordination="none", method=MethodSettings(quarantined_conflicts="ignore")),
        nli=nli,
    )
    assert plain.defend(AUSTRALIA, passages).r_contr > 0


def test_conflict_weight_zeroes_edges_touching_quarantined_passages():
    claims = _claims([0, 1, 2, 3])
    graph = _support_graph(4, [(0, 3), (2, 3), (1, 2)])
    _, quarantined = quarantine_eligible(claims, graph, np.arange(4), {0}, 1)
    w = conflict_weight(graph, quarantined)
    # directed edges: the three pairs a->b, then b->a
    assert w.tolist() == [0.0, 1.0, 1.0, 0.0, 1.0, 1.0]
    assert conflict_weight(graph, np.zeros(len(claims), dtype=bool)).tolist() == [1.0] * 6


def test_gate_d_min():
    assert gate_d_min(2, 1, quarantined_any=True) == 1
    assert gate_d_min(2, 1, quarantined_any=False) == 2
    assert gate_d_min(2, None, quarantined_any=True) == 2


def test_a_group_that_contradicts_itself_is_released(monkeypatch, fake_nli):
    """Planted copies push one answer: a flagged group whose passages contradict each other
    (1889 vs 1925) is not quarantined, and the verdict lists it as released."""
    from mirage_core import coordination

    passages = [
        Passage("The tower was completed in 1889 for the fair.", source="https://a.example"),
        Passage("The iron tower was completed in 1889 for the fair.", source="https://b.example"),
        Passage("The tower was completed in 1925 for the fair.", source="https://c.example"),
    ]

    def fake_detect(query, texts, domains, embeddings=None, model=None, spans=None):
        g = flagged_group((0, 1, 2), ("fair",), fired=("answer_focus",))
        return [g]

    monkeypatch.setattr(coordination, "detect_coordination", fake_detect)
    query = "When was the tower completed?"
    released = Mirage(
        MirageConfig(coordination="text", method=MethodSettings(coordination_self_conflict=0.9)),
        nli=fake_nli,
    ).defend(query, passages)
    assert released.extras["coordination_released"] == [[0, 1, 2]]
    assert "passages [0, 1, 2] flagged but released" in released.explain()
    html = released.to_html(passages)
    assert "released: passages [0, 1, 2]" in html and "looks planted" not in html
    assert "coordinated_passages" not in released.extras
    kept = Mirage(
        MirageConfig(coordination="text", method=MethodSettings(coordination_self_conflict=None)),
        nli=fake_nli,
    ).defend(query, passages)
    assert kept.extras["coordinated_passages"] == [0, 1, 2]


def test_self_contradicting_needs_two_passages_of_the_group():
    claims = _claims([0, 1, 2, 2])
    contra = np.tile([0.01, 0.01, 0.98], (2, 1))
    # claims 2 and 3 (both passage 2) contradict: one passage, not the group, so no.
    inner = ClaimGraph.build(4, np.array([2]), np.array([3]), contra, 0.5)
    assert not self_contradicting((0, 1, 2), claims, inner, 0.9)
    # claims 0 and 2 (passages 0 and 2) contradict.
    across = ClaimGraph.build(4, np.array([0]), np.array([2]), contra, 0.5)
    assert self_contradicting((0, 1, 2), claims, across, 0.9)
    assert not self_contradicting((0, 1), claims, across, 0.9)  # passage 2 is outside
    assert self_contradicting((0, 1, 2), claims, across, 0.98)  # at the threshold
    assert not self_contradicting((0, 1, 2), claims, across, 0.99)  # under the threshold
    assert not self_contradicting((0, 1, 2), claims, ClaimGraph.empty(4), 0.9)


def test_paper_has_no_coordination():
    assert MirageConfig.paper().coordination == "none"
    assert MirageConfig(coordination="embedding").needs_embeddings


EIFFEL_QUERY = "When was the Eiffel Tower completed?"


@pytest.mark.model
def test_the_readme_example_honest_pages_beside_the_polluted_one(readme_example, fake_nli):
    """The coordination signals on the README example, with an NLI that sees no conflict among
    the honest pages. The four honest pages, which restate the question and agree on 1889,
    score 2.87, over the default threshold (2.5), and their group takes in the polluted page
    (1925, 410 m), which reads as much like them as they do like each other
    (``coordination_absorb_margin``). For a question a flagged group is not released when its
    passages contradict each other, so all five are quarantined and the gate blocks on an empty
    S*. With the release (``coordination_self_conflict=0.9``, what a request uses at 0.8) the
    groups that mix the polluted page with the honest pages whose wording it copied contradict
    themselves and are released, so no honest page is quarantined; without the absorption the
    honest four alone are quarantined, a false alarm the gate survives (fallback); under the
    threshold fit on honest sets alone (3.773) no honest page is flagged."""
    default = Mirage(MirageConfig(), nli=fake_nli).defend(EIFFEL_QUERY, readme_example)
    assert default.extras["coordinated_passages"] == [0, 1, 2, 3, 4]
    assert not default.extras.get("coordination_released")
    assert default.decision == "fallback" and not default.selected
    release = MethodSettings(coordination_self_conflict=0.9)
    v = Mirage(MirageConfig(method=release), nli=fake_nli).defend(EIFFEL_QUERY, readme_example)
    released = v.extras.get("coordination_released")
    assert released and all(4 in g for g in released)
    assert [0, 1, 2, 3, 4] in released  # the honest group, with the page it absorbed
    assert "coordinated_passages" not in v.extras
    assert v.decision == "fallback"
    plain = Mirage(
        MirageConfig(method=replace(release, coordination_absorb_margin=None)), nli=fake_nli
    ).defend(EIFFEL_QUERY, readme_example)
    (group,) = plain.extras["coordination_signals"]
    assert group["passages"] == [0, 1, 2, 3] and 2.5 <= group["score"] < 3.773
    assert plain.extras["coordinated_passages"] == [0, 1, 2, 3]
    assert plain.decision == "fallback"
    strict = Mirage(
        MirageConfig(
            method=replace(release, coordination_threshold=3.773, coordination_absorb_margin=None)
        ),
        nli=fake_nli,
    ).defend(EIFFEL_QUERY, readme_example)
    assert "coordinated_passages" not in strict.extras
    assert strict.extras["coordination_released"] == plain.extras["coordination_released"]
    # Without the release, the honest pages copied by the polluted one are quarantined with it.
    kept = Mirage(
        MirageConfig(
            method=MethodSettings(
                coordination_threshold=3.773,
                coordination_self_conflict=None,
                coordination_absorb_margin=None,
            )
        ),
        nli=fake_nli,
    ).defend(EIFFEL_QUERY, readme_example)
    assert set(kept.extras["coordinated_passages"]) & {0, 1, 2, 3}


@pytest.mark.model
def test_agreeing_encyclopedic_passages_alone_are_a_known_false_alarm(readme_example, fake_nli):
    """The documented limit of the coordination signals: the four honest pages on their own
    (~17 content tokens each, as long as a PoisonedRAG poison, above the length floor) restate
    the question and agree on the answer with nothing to compare them to, which is what planted
    copies look like. Both models flag them (the default scores the whole-evidence group on
    answer focus + cosine); with an NLI backend that finds no conflict between them the
    quarantine leaves S* empty and the gate blocks. Without coordination signals they pass."""
    from mirage_core.coordination import TEXT_MODEL, detect_coordination

    honest = readme_example[:4]
    found = detect_coordination(
        EIFFEL_QUERY,
        [p.text for p in honest],
        [p.resolved_domain(i) for i, p in enumerate(honest)],
    )
    top = found[0]
    assert top.flagged and top.passages == (0, 1, 2, 3) and top.tokens >= TEXT_MODEL.min_tokens
    plain = Mirage(MirageConfig(coordination="none"), nli=fake_nli).defend(EIFFEL_QUERY, honest)
    assert plain.decision == "verified"
    for cfg in (MirageConfig(coordination="text"), MirageConfig()):
        v = Mirage(cfg, nli=fake_nli).defend(EIFFEL_QUERY, honest)
        assert v.decision == "fallback" and v.extras["coordinated_passages"] == [0, 1, 2, 3]


def test_absorb_margin_quarantines_a_sibling_worded_differently(
    monkeypatch, fake_nli, fake_embedder
):
    """``coordination_absorb_margin`` reaches the quarantine: a fourth planted passage that
    the detector left out joins the flagged group, the honest page does not."""
    from mirage_core import coordination

    planted = [
        Passage(f"The capital of Australia is Sydney, {t}.", source=f"https://p{i}.example")
        for i, t in enumerate(("as reported", "by all accounts", "as widely known"))
    ]
    sibling = Passage(
        "Sydney, as reported, is the capital of Australia.", source="https://q.example"
    )
    honest = Passage(
        "Canberra was chosen as a compromise between Sydney and Melbourne in 1908.",
        source="https://gov.example/au",
    )
    passages = [*planted, sibling, honest]
    emb = fake_embedder.embed([p.text for p in passages])
    inner = float(np.mean([emb[a] @ emb[b] for a, b in ((0, 1), (0, 2), (1, 2))]))
    group = flagged_group((0, 1, 2), ("sydney",), cosine=inner)
    monkeypatch.setattr(coordination, "detect_coordination", lambda *a, **k: [group])
    expected = coordination.absorb_near_copies([group], emb, 0.05)[0]
    assert expected.absorbed == (3,)  # the sibling, not the honest page
    base = MirageConfig(method=MethodSettings(coordination_self_conflict=None))
    on = Mirage(base.replace(coordination_absorb_margin=0.05), nli=fake_nli, embedder=fake_embedder)
    v = on.defend(AUSTRALIA, passages)
    assert v.extras["coordinated_passages"] == [0, 1, 2, 3]
    assert v.extras["coordination_signals"][0]["absorbed"] == [3]
    assert "passages 3 joined them" in v.explain()
    off = Mirage(
        base.replace(coordination_absorb_margin=None), nli=fake_nli, embedder=fake_embedder
    ).defend(AUSTRALIA, passages)
    assert off.extras["coordinated_passages"] == [0, 1, 2]
