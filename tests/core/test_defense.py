"""Mirage end to end with the NLI test double: routes, bad input, error policy, batching."""

from __future__ import annotations

import asyncio
import copy
import math
import threading
from types import SimpleNamespace

import numpy as np
import pytest

from mirage_core import CallableNLI, Mirage, MirageConfig, NLIError, Passage
from mirage_core.types import UNSOURCED
from tests.conftest import NO_SIGNALS, LexicalSpy, down_nli, lexical_nli

QUERY = "When was the Eiffel Tower completed?"


@pytest.mark.model
def test_clean_evidence_passes_and_polluted_is_blocked(mirage, clean_passages, polluted_passages):
    ok = mirage.defend(QUERY, clean_passages)
    assert ok.decision == "verified" and ok.reason.startswith("passed")
    assert ok.d_src == 3
    bad = mirage.defend(QUERY, polluted_passages)
    assert bad.decision == "fallback" and "r_contr" in bad.reason
    assert bad.verified_passages() == []


@pytest.mark.model
def test_minority_pollution_is_kept_out_of_s_star(mirage, clean_passages):
    poisoned = Passage(
        "Its lifts were rebuilt in the 1980s. The tower was completed in 1925.",
        source="https://evil.example",
    )
    v = mirage.defend(QUERY, [*clean_passages, poisoned])
    delivered = " ".join(vp.text for vp in v.verified_passages())
    assert "1889" in delivered and "1925" not in delivered


@pytest.mark.model
def test_caller_passages_are_never_mutated(mirage, clean_passages):
    meta = {"url": "https://x.org/a", "tags": ["t"]}
    passages = [*clean_passages, Passage("The Eiffel Tower is located in Paris.", metadata=meta)]
    snapshot = copy.deepcopy(passages)
    rows = [{"text": "The Eiffel Tower is located in Paris.", "url": "https://y.org", "extra": [1]}]
    rows_snapshot = copy.deepcopy(rows)
    mirage.defend(QUERY, passages)
    mirage.defend(QUERY, rows)
    assert passages == snapshot and rows == rows_snapshot
    assert meta == {"url": "https://x.org/a", "tags": ["t"]}


@pytest.mark.parametrize("bad", [None, 3, b"bytes", [1], ["ok", None]])
def test_wrong_types_raise_type_error(mirage, bad):
    with pytest.raises(TypeError):
        mirage.defend(QUERY, bad)


def test_non_str_text_and_query_raise(mirage):
    with pytest.raises(TypeError, match=r"Passage\.text must be str"):
        Passage(123)  # type: ignore[arg-type]
    with pytest.raises(TypeError, match="query must be str"):
        mirage.defend(None, ["text"])  # type: ignore[arg-type]


def test_empty_passage_list(mirage):
    v = mirage.defend(QUERY, [])
    assert v.decision == "fallback" and v.reason == "no evidence: no passages were retrieved"
    assert v.r_contr == 0.0 and v.d_src == 0  # nothing to contradict, no source


@pytest.mark.model
def test_empty_and_whitespace_texts(mirage, clean_passages):
    v = mirage.defend(QUERY, ["", "   \n\t "])
    assert v.decision == "fallback"
    assert v.reason == "no evidence: 2 retrieved passages hold no text to check"
    assert any("passage 1 is empty" in w for w in v.warnings)
    ok = mirage.defend(QUERY, ["  ", *clean_passages])
    assert ok.decision == "verified" and any("passage 0 is empty" in w for w in ok.warnings)


def test_evidence_without_text_loads_no_embedder(monkeypatch):
    from mirage_core import embeddings

    def no_load():
        raise AssertionError("the embedder was loaded for evidence with no text")

    monkeypatch.setattr(embeddings, "default_embedder", no_load)
    mirage = Mirage(MirageConfig(), nli=CallableNLI(lexical_nli))
    assert MirageConfig().needs_embeddings
    v = mirage.defend(QUERY, ["", "   \n\t "])
    assert v.reason == "no evidence: 2 retrieved passages hold no text to check"
    assert mirage.defend(QUERY, []).decision == "fallback"
    with pytest.raises(AssertionError, match="was loaded"):  # readable text does load it
        mirage.defend(QUERY, ["The tower opened in 1889.", "It opened in 1889."])


@pytest.mark.model
def test_one_source_only(mirage, fake_nli):
    """Evidence from one domain: by default each document is a source, but near-copies of one
    page still count once; ``single_domain="block"`` is ``paper()``'s one-domain-one-source."""
    text = "The Eiffel Tower is located in Paris. The tower was completed in 1889."
    copies = [
        Passage(text, source="https://one.org/a"),
        Passage(text + " It is tall and iron.", source="https://one.org/b"),
    ]
    v = mirage.defend(QUERY, copies)
    assert any("each document counts as a source" in w for w in v.warnings)
    assert v.decision == "fallback" and "only one" in v.reason
    distinct = [
        Passage("The Eiffel Tower, completed in 1889, is located in Paris.", "https://one.org/a"),
        Passage(
            "Gustave Eiffel's company built the tower for the 1889 World's Fair; visitors "
            "climb its stairs or take the lifts to three levels above the Champ de Mars.",
            "https://one.org/b",
        ),
    ]
    assert mirage.defend(QUERY, distinct).d_src == 2
    paper_like = Mirage(MirageConfig(single_domain="block"), nli=fake_nli).defend(QUERY, distinct)
    assert paper_like.decision == "fallback" and "only one domain" in paper_like.reason


@pytest.mark.model
def test_duplicate_passages_count_once(mirage, clean_passages):
    dup = Passage(clean_passages[0].text, source="https://copycat.example")
    v = mirage.defend(QUERY, [clean_passages[0], dup])
    assert any("duplicates passage 0" in w for w in v.warnings)
    assert {c.passage_index for c in v.claims} == {0}
    assert v.decision == "fallback"  # a copy is not a second source


@pytest.mark.model
def test_very_long_passage_is_truncated_with_a_warning(mirage, clean_passages):
    long_text = (
        "The Eiffel Tower is located in Paris. "
        + "Lorem ipsum dolor sit amet, consectetur. " * 5000
    )
    assert len(long_text) > 200_000
    v = mirage.defend(QUERY, [*clean_passages, Passage(long_text, source="https://long.example")])
    assert any("only the first 20,000 were analyzed" in w for w in v.warnings)
    assert v.decision == "verified"
    assert max(c.end for c in v.claims if c.passage_index == 3) <= 20_000


@pytest.mark.model
def test_binary_junk_and_control_characters(mirage, clean_passages):
    junk = bytes(range(256)).decode("latin-1") * 4
    controls = mirage.defend(QUERY, ["\x00\x01\x02\x1b[31m\x7f", "\ufffd\x0b\x0c" * 50])
    assert controls.decision == "fallback" and controls.reason.startswith("no evidence")
    # Junk that happens to hold letter runs yields "claims" that nothing corroborates.
    assert mirage.defend(QUERY, [junk]).decision == "fallback"
    mixed = mirage.defend(QUERY, [*clean_passages, junk])
    assert mixed.decision == "verified"
    assert all("\x00" not in c.text and "\x1b" not in c.text for c in mixed.claims)


@pytest.mark.model
def test_missing_metadata_gets_positional_sources_of_one_unknown_publisher(mirage):
    v = mirage.defend(
        QUERY,
        ["The Eiffel Tower is located in Paris.", "The Eiffel Tower is located in Paris, France."],
    )
    assert {c.source for c in v.claims} == {"passage-0", "passage-1"}
    # text of unknown origin is no independent corroboration of other such text
    assert {c.domain for c in v.claims} == {UNSOURCED}
    assert v.decision == "fallback" and v.d_src == 1


@pytest.mark.model
def test_non_english_text(mirage):
    zh = ["埃菲尔铁塔位于巴黎。它建于1889年。", "埃菲尔铁塔位于巴黎。它是一座铁塔。"]
    v = mirage.defend(
        "埃菲尔铁塔在哪里？",
        [Passage(t, source=f"https://zh{i}.example") for i, t in enumerate(zh)],
    )
    assert v.claims and v.decision == "verified"
    ru = mirage.defend(
        "Где находится Эйфелева башня?",
        [
            Passage(t, source=f"https://ru{i}.example")
            for i, t in enumerate(
                [
                    "Эйфелева башня находится в Париже.",
                    "Эйфелева башня находится в Париже, Франция.",
                ]
            )
        ],
    )
    assert len(ru.claims) == 2 and ru.decision == "verified"


def _policy(policy: str) -> MirageConfig:
    # the policy is the NLI step's: no embedder needed to read it
    return NO_SIGNALS.replace(nli_error_policy=policy)


@pytest.mark.parametrize(
    ("policy", "decision", "text"),
    [
        ("fallback", "fallback", "fallback policy"),
        ("pass_through", "verified", "pass_through policy"),
    ],
)
def test_nli_error_policy(clean_passages, policy, decision, text):
    v = Mirage(_policy(policy), CallableNLI(down_nli)).defend(QUERY, clean_passages)
    assert v.decision == decision and text in v.reason and "model server down" in v.nli_error
    assert v.to_dict()["r_contr"] is None  # no contradiction was measured
    assert math.isnan(v.r_contr) and v.candidate_stats["nli_pairs"] > 0  # the pairs it tried
    if decision == "verified":
        assert len(v.selected) == len(v.claims)
        assert v.d_src == len({c.domain for c in v.claims}) == len(clean_passages)
    else:
        assert v.selected == () and v.d_src == 0


def test_nli_error_policy_raise(clean_passages):
    with pytest.raises(NLIError, match="model server down"):
        Mirage(_policy("raise"), CallableNLI(down_nli)).defend(QUERY, clean_passages)
    bad_shape = CallableNLI(lambda p, h: np.zeros((len(p), 2)))
    with pytest.raises(NLIError, match="shape"):
        Mirage(_policy("raise"), bad_shape).defend(QUERY, clean_passages)


@pytest.mark.model
def test_defend_many_shares_one_nli_call_and_equals_defend(
    fake_nli, clean_passages, polluted_passages
):
    spy = LexicalSpy()
    m = Mirage(MirageConfig(), spy)
    many = m.defend_many([QUERY, QUERY], [clean_passages, polluted_passages])
    assert len(spy.batches) == 1
    single = [
        Mirage(MirageConfig(), fake_nli).defend(QUERY, ps)
        for ps in (clean_passages, polluted_passages)
    ]
    for a, b in zip(many, single):
        assert a.to_dict(include_edges=True) | {"timings": {}} == b.to_dict(include_edges=True) | {
            "timings": {}
        }
    with pytest.raises(ValueError):
        m.defend_many([QUERY], [])


@pytest.mark.model
async def test_adefend_equals_defend_and_runs_concurrently(
    mirage, clean_passages, polluted_passages
):
    inputs = [clean_passages, polluted_passages] * 8
    results = await asyncio.gather(*(mirage.adefend(QUERY, ps) for ps in inputs))
    assert [r.decision for r in results] == [mirage.defend(QUERY, ps).decision for ps in inputs]
    many = await mirage.adefend_many([QUERY] * 2, [clean_passages, polluted_passages])
    assert [v.decision for v in many] == ["verified", "fallback"]


def test_invalid_constructor_arguments():
    with pytest.raises(TypeError, match="MirageConfig"):
        Mirage(config={"tau": 0.3})  # type: ignore[arg-type]
    with pytest.raises(TypeError, match="CallableNLI"):
        Mirage(nli=lambda p, h: None)  # type: ignore[arg-type]


@pytest.mark.model
def test_a_missing_model_is_a_setup_error_whatever_the_policy(clean_passages, tmp_path):
    from mirage_core import ModelNotFoundError

    for policy in ("fallback", "pass_through"):
        m = Mirage(MirageConfig(nli_error_policy=policy), nli=str(tmp_path / "no-such-model"))
        with pytest.raises(ModelNotFoundError):
            m.defend(QUERY, clean_passages)


@pytest.mark.model
def test_domains_are_case_insensitive(mirage):
    v = mirage.defend(
        QUERY,
        [
            Passage("The Eiffel Tower is located in Paris.", source="Wiki/Paris"),
            Passage("The Eiffel Tower is located in Paris, France.", source="wiki/paris"),
        ],
    )
    assert {c.domain for c in v.claims} == {"wiki/paris"} and v.decision == "fallback"


async def test_many_concurrent_adefend_calls_finish(fake_nli, clean_passages):
    """More concurrent calls than the default executor has threads: the NLI call is awaited,
    so no worker thread waits on another (a thread-pool deadlock otherwise)."""
    import asyncio

    engine = Mirage(MirageConfig(coordination="none"), nli=fake_nli)
    calls = [engine.adefend(f"{QUERY} {i}", clean_passages) for i in range(40)]
    verdicts = await asyncio.wait_for(asyncio.gather(*calls), timeout=120)
    assert len(verdicts) == 40 and all(v.passed for v in verdicts)


async def test_adefend_many_runs_a_predict_only_backend_off_the_loop(
    clean_passages, polluted_passages
):
    backend = LexicalSpy()
    inputs = [clean_passages, polluted_passages]
    many = await Mirage(NO_SIGNALS, backend).adefend_many([QUERY] * 2, inputs)
    alone = [Mirage(NO_SIGNALS, CallableNLI(lexical_nli)).defend(QUERY, ps) for ps in inputs]
    assert [(v.decision, v.selected) for v in many] == [(v.decision, v.selected) for v in alone]
    assert [v.decision for v in many] == ["verified", "fallback"]
    assert backend.threads and threading.get_ident() not in backend.threads

    down = SimpleNamespace(predict=down_nli)  # predict only, like the spy
    with pytest.raises(NLIError, match="model server down"):
        await Mirage(_policy("raise"), down).adefend_many([QUERY], [clean_passages])


async def test_a_batch_with_nothing_to_score_calls_no_backend():
    backend = LexicalSpy()
    engine = Mirage(NO_SIGNALS, backend)
    one_page = [Passage("The tower was completed in 1889 in Paris.", source="https://a.example")]
    verdicts = engine.defend_many([QUERY, QUERY], [one_page, []])
    verdicts += await engine.adefend_many([QUERY, QUERY], [one_page, []])
    assert [v.decision for v in verdicts] == ["fallback"] * 4 and backend.batches == []


def test_a_verdict_times_its_steps(clean_passages):
    v = Mirage(NO_SIGNALS, CallableNLI(lexical_nli)).defend(QUERY, clean_passages)
    assert {"graph", "select", "gate", "total"} <= set(v.timings)
    assert all(t >= 0 for t in v.timings.values())
    assert v.timings["total"] >= v.timings["graph"] + v.timings["select"] + v.timings["gate"]
