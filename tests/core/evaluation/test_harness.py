"""Harness metrics on hand-built cases where contamination and retention are known."""

from __future__ import annotations

import pytest

from mirage_core import MirageConfig, Passage
from mirage_core.errors import NLIError
from mirage_core.evaluation.harness import SYSTEMS, run_benchmark, system_configs
from mirage_core.evaluation.instances import Dataset, Instance
from mirage_core.evaluation.measures import claim_pollution, contains_answer
from mirage_core.evaluation.records import InstanceRecord, Route, aggregate
from mirage_core.pollution import Edit, PollutedPassage

CLEAN_0 = Passage(
    "The Eiffel Tower is located in Paris. The tower was completed in 1889.",
    source="https://britannica.com/e",
)
CLEAN_1 = Passage(
    "The Eiffel Tower is located in Paris, France. The tower was completed in 1889 for the World's Fair.",
    source="https://en.wikipedia.org/e",
)
_BAD = "The Eiffel Tower is located in Paris. The tower was completed in 1925."
BAD = PollutedPassage(
    text=_BAD,
    original=CLEAN_0.text,
    family="unambiguous",
    edits=(Edit(_BAD.index("1925"), _BAD.index("1925") + 4, "1889", "1925", "year"),),
    source="https://history.com/e",
)


def _record(regime, family, corr, routes):
    return InstanceRecord("q", "q?", regime, family, 3, 1, 10, 3, corr, routes=routes)


def test_aggregate_on_hand_built_records():
    a = _record(
        "mixed",
        "x",
        4,
        {
            "vanilla_rag": Route("all", tuple(range(10)), n_polluted=3, kept_corroborated=4),
            "mirage": Route(
                "verified", (0, 1, 2, 3, 4), n_polluted=1, kept_corroborated=3, latency_s=0.010
            ),
        },
    )
    b = _record(
        "mixed",
        "x",
        2,
        {
            "vanilla_rag": Route("all", tuple(range(8)), n_polluted=4, kept_corroborated=2),
            "mirage": Route("fallback", (), n_polluted=0, kept_corroborated=0, latency_s=0.030),
        },
    )
    rows = {r["system"]: r for r in aggregate([a, b], ["vanilla_rag", "mirage"])}
    m, v = rows["mirage"], rows["vanilla_rag"]
    assert m["pass_rate"] == 0.5
    assert m["contamination"] == pytest.approx(1 / 5)  # pooled over delivered claims
    assert m["exposure"] == 0.5
    assert m["retention"] == pytest.approx(3 / 6)
    assert m["claims_delivered"] == 2.5
    assert m["latency_ms_mean"] == pytest.approx(20.0)
    assert (
        v["pass_rate"] == 1.0
        and v["contamination"] == pytest.approx(7 / 18)
        and v["retention"] == 1.0
    )
    assert "latency_ms_mean" not in v


def test_regime_pooling_rows():
    recs = [_record("mixed", f, 1, {"mirage": Route("fallback", (), 0, 0)}) for f in ("x", "y")]
    rows = aggregate(recs, ["mirage"], families=["y", "x"])
    assert [r["family"] for r in rows] == ["all", "y", "x"]
    assert rows[0]["n"] == 2 and rows[0]["contamination"] is None  # nothing delivered


@pytest.mark.model
def test_claims_map_to_polluted_spans_and_metrics_follow(fake_nli):
    inst = Instance(
        "q1",
        "When was the Eiffel Tower completed?",
        "mixed",
        "unambiguous",
        [CLEAN_0, CLEAN_1, BAD],
        correct=("1889",),
        incorrect=("1925",),
    )
    clean = Instance(
        "q1",
        inst.query,
        "clean",
        "none",
        [CLEAN_0, CLEAN_1],
        correct=("1889",),
        incorrect=("1925",),
    )
    ds = Dataset("hand", [clean, inst], families=["unambiguous"], qa=True)
    result = run_benchmark(ds, fake_nli, systems=SYSTEMS)
    rec = next(r for r in result.records if r.regime == "mixed")
    verdict = rec.verdicts["mirage"]
    flags = claim_pollution(inst, verdict.claims)
    # Six sentences; only the one holding the edited year is polluted (not its neighbour).
    assert [c.text for c, f in zip(verdict.claims, flags, strict=True) if f] == [
        "The tower was completed in 1925."
    ]
    assert rec.n_claims == 6 and rec.n_polluted_claims == 1
    # Corroborated clean claims: both sentences of CLEAN_0 (entailed by CLEAN_1) and the clean
    # first sentence of BAD (entailed by CLEAN_0).
    assert rec.n_corroborated_clean == 3

    rows = {(r["system"], r["regime"]): r for r in result.rows()}
    vanilla = rows[("vanilla_rag", "mixed")]
    assert vanilla["contamination"] == pytest.approx(1 / 6)
    assert vanilla["retention"] == 1.0 and vanilla["exposure"] == 1.0
    assert vanilla["correct_in_evidence"] == 1.0 and vanilla["incorrect_in_evidence"] == 1.0
    assert vanilla["correct_only"] == 0.0
    no_rag = rows[("no_rag", "mixed")]
    assert (
        no_rag["pass_rate"] == 0.0
        and no_rag["retention"] == 0.0
        and no_rag["correct_in_evidence"] == 0.0
    )

    mirage = rows[("mirage", "mixed")]
    delivered = verdict.selected if verdict.passed else ()
    assert mirage["pass_rate"] == float(verdict.passed)
    if delivered:
        assert mirage["contamination"] == pytest.approx(
            sum(flags[i] for i in delivered) / len(delivered)
        )
    assert mirage["latency_ms_mean"] > 0
    # The ablations run the same claims; dropping the contradiction gate can only pass more.
    assert rows[("mirage_no_contradiction_gate", "mixed")]["pass_rate"] >= mirage["pass_rate"]
    assert rows[("mirage", "clean")]["contamination"] in (0.0, None)


def test_system_configs():
    base = MirageConfig(r_max=0.2, d_min=3)
    cfgs = system_configs(base)
    assert cfgs["mirage"] is base
    assert (
        cfgs["mirage_no_contradiction_gate"].r_max == 1.0
        and cfgs["mirage_no_contradiction_gate"].d_min == 3
    )
    assert (
        cfgs["mirage_no_diversity_gate"].d_min == 1
        and cfgs["mirage_no_diversity_gate"].r_max == 0.2
    )
    assert cfgs["mirage_paper"] == MirageConfig.paper()
    with pytest.raises(ValueError):
        system_configs(base, ["mirage", "nope"])


def test_contains_answer_is_case_insensitive_at_word_boundaries():
    assert contains_answer("It has 23 Episodes.", ["23"])
    assert not contains_answer("It aired in 1923.", ["23"])
    assert not contains_answer("It is well known.", ["no"])
    assert contains_answer("No, they are not.", ["no"])
    assert contains_answer("born in new\nyork city", ["New York"])
    assert not contains_answer("anything", [])


def test_a_number_answer_is_not_read_inside_a_longer_number():
    assert not contains_answer("It holds an average rating of 6.2 out of 10.", ["2"])
    assert not contains_answer("The court covers about 2,000 square feet.", ["2"])
    assert not contains_answer("It cost 1,889 francs.", ["889"])
    assert contains_answer("It ran for 2 seasons.", ["2"])
    assert contains_answer("Completed in 1889.", ["1889"])
    assert contains_answer("In 1889, the tower opened.", ["1889"])
    assert contains_answer("About 3,500 square feet.", ["3,500"])


def test_a_planted_answer_inside_the_correct_one_is_read_outside_its_mentions():
    correct = ["Richmond River"]
    assert not contains_answer("Lismore is on the Richmond River.", ["The Richmond"], correct)
    assert contains_answer("Grafton sits on the Richmond.", ["The Richmond"], correct)
    assert contains_answer("Lismore is on the Richmond River.", ["The Richmond"])  # no besides
    months = ["March and April"]
    assert not contains_answer("It flowers in March and April.", ["April"], months)
    assert contains_answer("It flowers in March and April, and again in April.", ["April"], months)
    # a planted answer that contains the correct one is read as before
    assert contains_answer("He was born in Paris, Texas.", ["Paris, Texas"], ["Paris"])
    assert contains_answer("It was 2 seasons.", ["2"], ["2"])  # the same string: read as is


@pytest.mark.model
def test_generate_answers_scores_each_route(fake_nli):
    fake_chat = pytest.importorskip("langchain_core.language_models.fake_chat_models")
    inst = Instance(
        "q1",
        "When was it completed?",
        "clean",
        "none",
        [CLEAN_0, CLEAN_1],
        correct=("1889",),
        incorrect=("1925",),
    )
    result = run_benchmark(
        Dataset("hand", [inst], qa=True), fake_nli, systems=["no_rag", "vanilla_rag", "mirage"]
    )
    from mirage_core.evaluation.harness import generate_answers

    generate_answers(result, fake_chat.FakeListChatModel(responses=["It was completed in 1889."]))
    rows = {r["system"]: r for r in result.rows()}
    assert all(
        rows[s]["answer_correct"] == 1.0 and rows[s]["answer_incorrect"] == 0.0 for s in rows
    )
    assert result.records[0].routes["vanilla_rag"].answer == "It was completed in 1889."


def test_a_failing_nli_backend_stops_the_benchmark_instead_of_recording_fallbacks():
    """Under the default error policy a failed NLI call ends a query on the fallback route; a
    benchmark must not count that as the defense blocking the evidence."""

    class BrokenNLI:
        def predict(self, premises, hypotheses):
            raise OSError("the pair store is locked")

    clean = Instance(
        "q1", "When was the Eiffel Tower completed?", "clean", "none", [CLEAN_0, CLEAN_1]
    )
    ds = Dataset("hand", [clean])
    assert MirageConfig().nli_error_policy == "fallback"
    with pytest.raises(NLIError, match="the pair store is locked"):
        run_benchmark(ds, BrokenNLI(), systems=("mirage", "vanilla_rag"))
