"""The request gate: a request for an account can be gated conflict by conflict while a
question keeps the gate it has."""

from __future__ import annotations

import pytest

from mirage_core import Mirage, MirageConfig, Passage
from mirage_core.request_gate import gate_config, request_config

QUESTION = "When was the Eiffel Tower completed?"
REQUEST = "Tell me about the completed Eiffel Tower."
EMBEDDED = "Tell me when the Eiffel Tower was completed."  # a question in the imperative


@pytest.fixture
def outvoted_pages() -> list[Passage]:
    """Three independent pages agree on 1889; a fourth moves the tower to 1925."""
    texts = (
        ("The Eiffel Tower was completed in 1889. The tower is in Paris.", "a.example"),
        ("Completed in 1889, the Eiffel Tower stands in Paris.", "b.example"),
        ("The Eiffel Tower was completed in 1889 in Paris.", "c.example"),
        ("The Eiffel Tower was completed in 1925.", "d.example"),
    )
    return [Passage(t, source=f"https://{host}/eiffel", score=0.9) for t, host in texts]


def engine(fake_nli, request_gate: str) -> Mirage:
    config = MirageConfig(coordination="none").replace(request_gate=request_gate)
    return Mirage(config, nli=fake_nli)


def test_a_request_is_gated_as_a_question_by_default(fake_nli, outvoted_pages):
    mirage = engine(fake_nli, "question")
    question, request = (mirage.defend(q, outvoted_pages) for q in (QUESTION, REQUEST))
    assert question.decision == request.decision == "fallback"
    assert "r_contr" in request.reason and "outvoted" not in request.reason


def test_the_majority_gate_outvotes_a_minority_page_of_a_request(fake_nli, outvoted_pages):
    mirage = engine(fake_nli, "majority")
    question = mirage.defend(QUESTION, outvoted_pages)
    request = mirage.defend(REQUEST, outvoted_pages)
    assert question.decision == "fallback"  # a question keeps its gate
    assert mirage.defend(EMBEDDED, outvoted_pages).decision == "fallback"  # so does this one
    assert request.decision == "verified"
    delivered = " ".join(request.claims[i].text for i in request.selected)
    assert "1889" in delivered and "1925" not in delivered
    assert "outvoted" in request.reason and "passages [3]" in request.reason


def test_request_config_changes_only_the_gate_rules():
    as_question = MirageConfig().replace(request_gate="question")
    assert request_config(as_question) is None
    assert gate_config(as_question, None, REQUEST) is as_question
    assert MirageConfig().method.request_gate == "majority"
    assert MirageConfig.paper().method.request_gate == "question"
    kappa = 0.7
    config = MirageConfig().replace(kappa=kappa)
    account = request_config(config)
    assert account is not None
    m = account.method
    assert (m.conflict_rule, m.contradiction_scope) == ("majority", "selected")
    assert m.coordination_self_conflict == kappa  # a contradiction the gate counts releases
    assert (
        account.replace(
            conflict_rule=config.method.conflict_rule,
            contradiction_scope=config.method.contradiction_scope,
            coordination_self_conflict=config.method.coordination_self_conflict,
        )
        == config
    )
    assert gate_config(config, account, REQUEST) is account
    assert gate_config(config, account, QUESTION) is config


def test_the_engine_follows_a_changed_config(fake_nli, outvoted_pages):
    mirage = engine(fake_nli, "question")
    assert mirage.defend(REQUEST, outvoted_pages).decision == "fallback"
    mirage.config = mirage.config.replace(request_gate="majority")
    assert mirage.defend(REQUEST, outvoted_pages).decision == "verified"


def test_majority_paraphrase_adds_paraphrase_support_to_a_request_only():
    from mirage_core.request_gate import REQUEST_PARAPHRASE

    config = MirageConfig().replace(request_gate="majority_paraphrase")
    account = request_config(config)
    assert account is not None and account.method.paraphrase_support == REQUEST_PARAPHRASE
    assert account.needs_embeddings
    assert config.method.paraphrase_support is None  # questions keep NLI-only corroboration
    own = request_config(config.replace(paraphrase_support=0.9))
    assert own is not None and own.method.paraphrase_support == 0.9  # a set value stays
    plain = request_config(MirageConfig())
    assert plain is not None and plain.method.paraphrase_support is None


def test_a_request_is_corroborated_by_close_paraphrases(fake_nli, fake_embedder):
    """Two pages word one fact their own way (the test NLI finds no entailment, the
    embeddings are close, the facts the same): under ``"majority_paraphrase"`` that fact is
    corroborated and delivered without the lone claim beside it."""
    pages = [
        Passage(text, source=f"https://{host}/eiffel", score=0.9)
        for text, host in (
            (
                "Otis supplied the lift machinery of the tower in 1889 with hydraulic pumps. "
                "The tower is painted every seven years.",
                "a.example",
            ),
            (
                "Otis supplied the lift machinery of the tower in 1889 for its elevators.",
                "b.example",
            ),
        )
    ]
    request = "Tell me about the lift machinery of the tower."

    def run(gate: str):
        config = MirageConfig(coordination="none").replace(request_gate=gate)
        return Mirage(config, nli=fake_nli, embedder=fake_embedder).defend(request, pages)

    nli_only, paraphrase = run("majority"), run("majority_paraphrase")
    assert nli_only.decision == paraphrase.decision == "verified"
    assert any("painted" in nli_only.claims[i].text for i in nli_only.selected)
    delivered = [paraphrase.claims[i].text for i in paraphrase.selected]
    assert len(delivered) == 2 and all("Otis" in t for t in delivered)
    assert "corroborates" in paraphrase.reason and "corroborates" not in nli_only.reason
