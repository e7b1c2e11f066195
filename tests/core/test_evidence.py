"""Evidence intake: the limits on what is read, and passages skipped as empty or as copies,
never at the cost of the passages after them."""

from __future__ import annotations

from mirage_core import Mirage, MirageConfig, Passage
from mirage_core.embeddings import CallableEmbedder
from tests.conftest import bag_of_words_embedding

QUERY = "What is the capital of France?"
PAGES = [
    Passage("Paris is the capital of France.", source="https://a.example/1"),
    Passage("The capital of France is Paris.", source="https://b.example/2"),
    Passage("France has its capital in Paris.", source="https://c.example/3"),
]


def engine(fake_nli, **config) -> Mirage:
    return Mirage(MirageConfig(coordination="none").replace(**config), nli=fake_nli)


def _read(verdict) -> list[int]:
    """The caller's indices of the passages whose claims were read."""
    return sorted({c.passage_index for c in verdict.claims})


def test_an_empty_passage_or_a_copy_is_skipped_and_the_rest_is_read(fake_nli):
    blank = Passage("   ", source="https://d.example/4")
    copy = Passage("PARIS is the capital of France.", source="https://e.example/5")
    v = engine(fake_nli).defend(QUERY, [PAGES[0], blank, copy, PAGES[1], PAGES[2]])
    assert _read(v) == [0, 3, 4]
    assert "passage 1 is empty or whitespace; skipped" in v.warnings
    assert "passage 2 duplicates passage 0; counted once" in v.warnings


def test_passages_that_are_all_empty_fall_back_saying_none_holds_text(fake_nli):
    """Something was retrieved, so the reason does not say nothing was."""
    blank = [Passage("", source="https://a.example/1"), Passage(" \n\t ", source="b")]
    v = engine(fake_nli).defend(QUERY, blank)
    assert v.decision == "fallback" and v.n_passages == 2 and v.claims == ()
    assert v.reason == "no evidence: 2 retrieved passages hold no text to check"
    assert v.warnings == (
        "passage 0 is empty or whitespace; skipped",
        "passage 1 is empty or whitespace; skipped",
    )
    one = engine(fake_nli).defend(QUERY, ["  "])
    assert one.reason == "no evidence: 1 retrieved passage holds no text to check"
    assert engine(fake_nli).defend(QUERY, []).reason == "no evidence: no passages were retrieved"
    # only the passages the limits let through are read: they are the ones counted
    first = engine(fake_nli, max_passages=2).defend(QUERY, ["", " ", PAGES[0].text])
    assert first.reason == "no evidence: 2 retrieved passages hold no text to check"


def test_the_character_budget_counts_every_passage_read_so_far(fake_nli):
    sizes = [len(p.text) for p in PAGES]
    exact = engine(fake_nli, max_total_chars=sizes[0] + sizes[1]).defend(QUERY, PAGES)
    assert _read(exact) == [0, 1]  # the budget reached exactly is not exceeded
    assert any("passages 2–2 left out" in w for w in exact.warnings)
    one = engine(fake_nli, max_total_chars=sizes[0] + sizes[1] - 1).defend(QUERY, PAGES)
    assert _read(one) == [0]


def test_the_passage_limits_warn_only_beyond_them(fake_nli):
    assert not engine(fake_nli, max_passages=3).defend(QUERY, PAGES).warnings
    two = engine(fake_nli, max_passages=2).defend(QUERY, PAGES)
    assert _read(two) == [0, 1]
    assert "3 passages; only the first 2 were analyzed (max_passages)" in two.warnings
    size = len(PAGES[0].text)
    whole = engine(fake_nli, max_passage_chars=size).defend(QUERY, PAGES[:1])
    assert not any("characters" in w for w in whole.warnings)  # exactly the limit: read whole
    cut = engine(fake_nli, max_passage_chars=size - 1).defend(QUERY, PAGES[:1])
    assert (
        f"passage 0 has {size} characters as read; only the first {size - 1} were analyzed"
        in cut.warnings
    )


def test_a_passage_without_a_score_ranks_with_the_lowest_score_given(fake_nli):
    scored = [
        Passage(p.text, source=p.source, score=s)
        for p, s in zip(PAGES, [0.9, None, float("nan")], strict=True)
    ]
    v = engine(fake_nli).defend(QUERY, scored)
    by_passage = {c.passage_index: c.retrieval_score for c in v.claims}
    assert by_passage == {0: 0.9, 1: 0.9, 2: 0.9}
    unscored = engine(fake_nli).defend(QUERY, [Passage(p.text, source=p.source) for p in PAGES])
    assert {c.retrieval_score for c in unscored.claims} == {1.0}
    scored[1] = Passage(PAGES[1].text, source=PAGES[1].source, score=0.4)
    lowest = engine(fake_nli).defend(QUERY, scored)
    assert {c.passage_index: c.retrieval_score for c in lowest.claims}[2] == 0.4


def test_evidence_without_a_claim_falls_back_and_names_each_passage(fake_nli):
    short = [
        Passage("Paris.", source="https://a.example/1"),
        Passage("Yes.", source="https://b.example/2"),
    ]
    v = engine(fake_nli).defend(QUERY, short)
    assert v.decision == "fallback" and not v.claims
    assert v.reason.startswith("no evidence: no passage holds a sentence with ≥ ")
    assert [w for w in v.warnings if "has no sentence with" in w] == [
        f"passage {i} has no sentence with ≥ {MirageConfig().method.min_claim_tokens} content tokens"
        for i in (0, 1)
    ]
    read = engine(fake_nli).defend(QUERY, [*PAGES[:2], short[0]])
    assert [w for w in read.warnings if "has no sentence with" in w] == [
        f"passage 2 has no sentence with ≥ {MirageConfig().method.min_claim_tokens} content tokens"
    ]


def test_relevance_saturates_as_configured(fake_nli):
    query = "When was the Eiffel Tower in Paris completed?"  # eiffel, tower, paris, completed
    page = [Passage("The Eiffel Tower was finished long ago.", source="https://a.example/1")]
    half = engine(fake_nli).defend(query, page)
    full = engine(fake_nli, relevance_saturation=1.0).defend(query, page)
    assert half.relevance.tolist() == [1.0]  # two of four query words: half, saturated at 0.5
    assert full.relevance.tolist() == [0.5]


def test_non_claim_spans_point_into_the_callers_text(fake_nli):
    # a zero-width space for normalization to clean inside the question
    text = "Where is the capital\u200b of France located? Paris is the capital of France."
    v = engine(fake_nli, claim_filter=True).defend(
        QUERY, [Passage(text, source="https://a.example/1")]
    )
    [question] = v.non_claims
    assert (question.passage, question.reason) == (0, "question")
    assert text[question.start : question.end] == "Where is the capital\u200b of France located?"


def test_one_publishers_near_copies_count_once_when_its_pages_are_the_sources(fake_nli):
    pages = [
        Passage("Paris is the capital of France and its largest city.", source="https://w.org/a"),
        Passage("Paris is the capital of France and its biggest city.", source="https://w.org/b"),
        Passage("France borders Spain and Italy in the south.", source="https://w.org/c"),
    ]
    embedder = CallableEmbedder(bag_of_words_embedding)
    # every page from one domain: each document is a source, and with passage embeddings at
    # hand, two near-copies of one page are one source
    read = Mirage(MirageConfig(), nli=fake_nli, embedder=embedder).defend(QUERY, pages)
    assert read.groups == {"https://w.org/a (+1)": (0, 1), "https://w.org/c": (2,)}
    assert any("each document counts as a source" in w for w in read.warnings)
    # no embeddings read (no coordination signals): one source per document
    unread = engine(fake_nli).defend(QUERY, pages)
    assert sorted(unread.groups) == ["https://w.org/a", "https://w.org/b", "https://w.org/c"]
    # the published method's sources are the documents already: nothing to warn about
    paper = engine(fake_nli, independence="none").defend(QUERY, pages)
    assert not any("each document counts as a source" in w for w in paper.warnings)
