"""Each kept passage is split into sentences once per query: claims and coordination share it."""

from __future__ import annotations

import pytest

from mirage_core import Mirage, MirageConfig, Passage, claims, evidence, group_signals


@pytest.fixture
def split_counter(monkeypatch):
    calls: list[str] = []
    real = claims.split_sentences

    def counting(text: str):
        calls.append(text)
        return real(text)

    for module in (claims, evidence, group_signals):
        monkeypatch.setattr(module, "split_sentences", counting)
    return calls


PASSAGES = [
    Passage(
        "The bridge opened in 1932. It carries eight lanes of traffic.", source="https://a.org/1"
    ),
    Passage("The bridge opened in 1932. Its arch spans 503 metres.", source="https://b.com/2"),
    Passage("The bridge opened in 1933. It was built by Dorman Long.", source="https://c.net/3"),
    Passage("The bridge opened in 1932. Locals call it the Coathanger.", source="https://d.io/4"),
]


@pytest.mark.parametrize("coordination", ["text", "none"])
def test_each_passage_is_split_once_per_query(fake_nli, split_counter, coordination):
    mirage = Mirage(MirageConfig(coordination=coordination), nli=fake_nli)
    verdict = mirage.defend("When did the bridge open?", PASSAGES)
    assert verdict is not None
    assert sorted(split_counter) == sorted(p.text for p in PASSAGES)


def test_a_passage_whose_cleaning_changes_it_is_split_as_cleaned_for_the_signals(
    fake_nli, split_counter
):
    passages = [
        *PASSAGES[:3],
        Passage("The bridge opened\nin 1932. Locals love it.", source="e.eu"),
    ]
    Mirage(MirageConfig(coordination="text"), nli=fake_nli).defend("When?", passages)
    # the raw text once for the claims, the cleaned text once for the coordination signals
    assert split_counter.count(passages[3].text) == 1
    assert split_counter.count("The bridge opened in 1932. Locals love it.") == 1
    assert len(split_counter) == 5


def test_given_spans_are_used_as_they_are():
    text = "One claim about the bridge here. Another claim about the bridge there."
    whole = [(0, len(text))]
    out = claims.extract_claims(
        [Passage(text)],
        indices=[0],
        sources=["s"],
        domains=["d"],
        scores=[1.0],
        min_tokens=2,
        max_claims_per_passage=8,
        max_chars=20_000,
        spans=[whole],
    )
    assert [(c.start, c.end) for c in out] == whole
    profile = group_signals.evidence_profile("q", [text], ["d"], spans=[whole])
    assert len(profile.sentences[0]) == 1
