"""The request gate: a request for an account is defended with the request overrides (gated
conflict by conflict by default) while a question keeps the settings it has."""

from __future__ import annotations

import pytest

from mirage_core import Mirage, MirageConfig, Passage
from mirage_core.method_settings import REQUEST_OVERRIDES
from mirage_core.request_gate import gate_config, request_config

QUESTION = "When was the Eiffel Tower completed?"
REQUEST = "Tell me about the completed Eiffel Tower."
EMBEDDED = "Tell me when the Eiffel Tower was completed."  # a question in the imperative


def engine(fake_nli, as_question: bool = False) -> Mirage:
    config = MirageConfig(coordination="none")
    if as_question:
        config = config.replace(request_overrides={})
    return Mirage(config, nli=fake_nli)


def test_without_overrides_a_request_is_gated_as_a_question(fake_nli, outvoted_pages):
    mirage = engine(fake_nli, as_question=True)
    question, request = (mirage.defend(q, outvoted_pages) for q in (QUESTION, REQUEST))
    assert question.decision == request.decision == "fallback"
    assert "r_contr" in request.reason and "outvoted" not in request.reason


def test_the_majority_gate_outvotes_a_minority_page_of_a_request(fake_nli, outvoted_pages):
    mirage = engine(fake_nli)
    question = mirage.defend(QUESTION, outvoted_pages)
    request = mirage.defend(REQUEST, outvoted_pages)
    assert question.decision == "fallback"  # a question keeps its gate
    assert mirage.defend(EMBEDDED, outvoted_pages).decision == "fallback"  # so does this one
    assert request.decision == "verified"
    delivered = " ".join(request.claims[i].text for i in request.selected)
    assert "1889" in delivered and "1925" not in delivered
    assert "outvoted" in request.reason and "passages [3]" in request.reason


def test_request_config_applies_the_overrides_and_nothing_else():
    as_question = MirageConfig().replace(request_overrides={})
    assert request_config(as_question) is None
    assert gate_config(as_question, None, REQUEST) is as_question
    assert MirageConfig.paper().method.request_overrides == {}
    config = MirageConfig().replace(kappa=0.7)
    overrides = config.method.request_overrides
    assert overrides == REQUEST_OVERRIDES
    account = request_config(config)
    assert account is not None
    m = account.method
    assert (m.conflict_rule, m.contradiction_scope) == ("majority", "selected")
    assert account.coordination == "none" and config.coordination == "embedding"
    assert m.corroborated_relevant is False and m.uncorroborated_delivery == "fallback"
    assert m.request_overrides == {} and m.kappa == 0.7
    restored = {k: config.flat()[k] for k in overrides}
    assert account.replace(**restored, request_overrides=overrides) == config
    assert gate_config(config, account, REQUEST) is account
    assert gate_config(config, account, QUESTION) is config


def test_request_overrides_are_checked_as_settings():
    with pytest.raises(ValueError, match="unknown settings"):
        MirageConfig().replace(request_overrides={"kapa": 0.5})
    with pytest.raises(ValueError, match="unknown settings"):
        MirageConfig().replace(request_overrides={"method": {}})
    with pytest.raises(ValueError, match="request_overrides: kappa"):
        MirageConfig().replace(request_overrides={"kappa": 7})
    with pytest.raises(ValueError, match="request_overrides: coordination"):
        MirageConfig().replace(request_overrides={"coordination": "sometimes"})
    with pytest.raises(ValueError, match="request_overrides: d_min"):
        MirageConfig().replace(request_overrides={"d_min": "two"})
    listed = MirageConfig().replace(request_overrides={"coordination_isolated_signals": []})
    assert listed.method.request_overrides == {"coordination_isolated_signals": ()}
    config = MirageConfig()
    assert MirageConfig.from_dict(config.to_dict()) == config  # JSON lists come back as tuples


def test_the_engine_follows_a_changed_config(fake_nli, outvoted_pages):
    mirage = engine(fake_nli, as_question=True)
    assert mirage.defend(REQUEST, outvoted_pages).decision == "fallback"
    mirage.config = mirage.config.replace(request_overrides=REQUEST_OVERRIDES)
    assert mirage.defend(REQUEST, outvoted_pages).decision == "verified"


#: Two pages that word one fact their own way: the test NLI finds no entailment between
#: them, the embeddings are close and the facts the same. The first page adds a lone claim.
PARAPHRASED = (
    (
        "Otis supplied the lift machinery of the tower in 1889 with hydraulic pumps. "
        "The tower is painted every seven years.",
        "a.example",
    ),
    ("Otis supplied the lift machinery of the tower in 1889 for its elevators.", "b.example"),
)
LIFT_REQUEST = "Tell me about the lift machinery of the tower."
LIFT_QUESTION = "Who supplied the lift machinery of the tower?"


@pytest.fixture
def paraphrased_pages() -> list[Passage]:
    return [Passage(t, source=f"https://{host}/eiffel", score=0.9) for t, host in PARAPHRASED]


@pytest.fixture
def defend_with(fake_nli, fake_embedder, paraphrased_pages):
    """``defend_with(overrides, query)``: the paraphrased pages defended with these request
    overrides (no coordination signals)."""

    def run(overrides, query=LIFT_REQUEST):
        config = MirageConfig(coordination="none").replace(request_overrides=overrides)
        return Mirage(config, nli=fake_nli, embedder=fake_embedder).defend(query, paraphrased_pages)

    return run


def test_a_request_is_corroborated_by_close_paraphrases(defend_with):
    """With paraphrase support among a request's overrides the shared fact is corroborated
    and delivered without the lone claim beside it; with NLI-only corroboration nothing is,
    and the request falls back; a question keeps NLI-only corroboration."""
    paraphrasing = {**REQUEST_OVERRIDES, "paraphrase_support": 0.8, "paraphrase_pairs": True}
    nli_only, paraphrase = defend_with(REQUEST_OVERRIDES), defend_with(paraphrasing)
    assert paraphrase.decision == "verified"
    delivered = [paraphrase.claims[i].text for i in paraphrase.selected]
    assert len(delivered) == 2 and all("Otis" in t for t in delivered)
    assert "; delivered: the " in paraphrase.reason
    assert nli_only.decision == "fallback"
    question = defend_with(paraphrasing, LIFT_QUESTION)
    assert question.decision == "verified" and "; delivered: the " not in question.reason


def test_a_request_that_nothing_corroborates_falls_back(defend_with):
    """A request hands on only claims an independent source vouches for: where no
    corroborated part reaches d_min it falls back, and says why. Asked as a question, the same
    evidence passes and hands on S* whole; so does a request whose overrides deliver S*
    whole, and its reason says that none of it is corroborated."""
    request = defend_with(REQUEST_OVERRIDES)
    assert request.decision == "fallback" and request.selected == ()
    assert "no independent source corroborates" in request.reason
    assert request.corroborated is not None and not request.corroborated.any()
    question = defend_with(REQUEST_OVERRIDES, LIFT_QUESTION)
    assert question.decision == "verified"
    assert any("painted" in question.claims[i].text for i in question.selected)
    whole = defend_with({**REQUEST_OVERRIDES, "uncorroborated_delivery": "selected"})
    assert whole.decision == "verified" and whole.selected
    assert "delivered whole: 0 of the" in whole.reason


@pytest.mark.model
def test_the_readme_example_asked_for_an_account_outvotes_the_polluted_page(readme_example):
    """The packaged models on the README's example: asked when the tower was completed, the
    evidence contradicts itself about the one answer and falls back; asked for an account of
    the tower, the Le Corbusier page is outvoted and 1889 is delivered."""
    mirage = Mirage()
    assert mirage.defend(QUESTION, readme_example).decision == "fallback"
    account = mirage.defend("Tell me about the Eiffel Tower", readme_example)
    assert account.decision == "verified"
    delivered = " ".join(account.claims[i].text for i in account.selected)
    assert "1889" in delivered
    assert not any(w in delivered for w in ("1925", "410", "Corbusier"))
    assert "passages [4]" in account.reason and "outvoted" in account.reason
