"""Garbled passages: misspelt copies are quarantined and the pages around them judged alone."""

import pytest

from mirage_core import CallableNLI, Mirage, MirageConfig, Passage
from mirage_core.config import MethodSettings
from mirage_core.garbled import (
    MIN_WORDS,
    _vocabulary,
    copied_passages,
    garbled_passages,
    garbled_share,
    is_known_word,
    is_misspelt,
)

GOLD = (
    "Pat McCormick was an American actor and comedy writer known for playing Big Enos "
    "Burdette in Smokey and the Bandit and its sequels. He wrote jokes for many comedians."
)
# GARAG-style copies of the gold: most lower-case words one typo away from a real word
TYPOED = (
    "Pat McCormick wass en American acter anhd camedy writter knowning vor playind gig Enos "
    "Burdette im Smokey anso te Bandit ande itts sequals. He wrot jokees fore meny comediens.",
    "Pat McCormick was un American actir nad comeddy writher konwn foe pilayng bis Enos "
    "Burdette i Smokey andd tha Bandit anf tis seqels. He wote jokess forr mny comedans.",
)
QUERY = "Who played Big Enos in Smokey and the Bandit?"


@pytest.mark.parametrize(
    ("word", "misspelt"),
    [
        ("camedy", True),  # one letter replaced: "comedy"
        ("wass", False),  # read as "was" + "s": an inflection, not a typo
        ("acter", False),  # read as "act" + "er"
        ("writter", True),  # a letter doubled: "writer"
        ("konwn", True),  # two letters swapped: "known"
        ("anhd", True),
        ("actor", False),  # known
        ("playing", False),  # known through its inflection
        ("aripiprazole", False),  # rare and spelt right: no known word one edit away
        ("carboxylate", False),
    ],
)
def test_a_misspelt_word_is_unknown_and_one_edit_from_a_known_one(word, misspelt):
    assert is_misspelt(word) is misspelt


def test_an_inflected_word_is_known_through_its_stem():
    assert "accuracies" not in _vocabulary() and is_known_word("accuracies")  # accuracy
    assert "accommodating" not in _vocabulary() and is_known_word("accommodating")  # -e
    assert "apologied" not in _vocabulary() and is_known_word("apologied")  # apology, -ed
    assert not is_known_word("accuracing")  # y becomes ie before -es and -ed only
    # a stem of two letters is no stem: "am" is a word, "ams" is not one through it
    assert "am" in _vocabulary() and not is_known_word("ams")


def test_a_run_of_letters_is_not_expanded_into_its_edits(monkeypatch):
    """Hostile input: one "word" of 20,000 letters is longer than any known word plus one
    letter, so it is no misspelling, and its million edits are never generated."""
    from mirage_core import garbled

    def no_edits(word):
        raise AssertionError(f"edits of a {len(word)}-letter word generated")

    monkeypatch.setattr(garbled, "_one_edit", no_edits)
    assert not is_misspelt("ab" * 10_000)
    assert garbled_share("ab" * 10_000 + " the cat sat on the mat all day long") == 0.0


def test_typoed_copies_are_garbled_and_honest_technical_text_is_not():
    technical = (
        "Six of the included treatments were effective compared to placebo: minocycline, "
        "ketamine and aripiprazole, as well as fluoxetine and olanzapine combination treatment."
    )
    assert garbled_share(GOLD) == 0.0
    assert all(garbled_share(t) >= 0.4 for t in TYPOED)
    assert garbled_share(technical) == 0.0  # an out-of-vocabulary count reads 6 of 21
    assert garbled_share("camedy acter anhd") is None  # fewer than MIN_WORDS lower-case words
    assert garbled_share(" ".join(["camedy"] * 4 + ["actor"] * 4)) == 0.5  # MIN_WORDS words
    assert MIN_WORDS == 8
    assert garbled_passages([GOLD, *TYPOED, technical], 0.3) == (1, 2)


@pytest.fixture
def garag_evidence() -> list[Passage]:
    copies = [Passage(t, source=f"https://copy{i}.example/page") for i, t in enumerate(TYPOED)]
    more = [Passage(TYPOED[0].replace("Pat", "Patrick"), source="https://copy9.example/p")]
    return [*copies, Passage(GOLD, source="https://encyclopedia.example/mccormick"), *more]


def test_garbled_copies_are_quarantined_and_the_gold_is_delivered(
    garag_evidence, fake_nli, fake_embedder
):
    v = Mirage(MirageConfig(), nli=fake_nli, embedder=fake_embedder).defend(QUERY, garag_evidence)
    assert v.decision == "verified", v.reason
    assert v.extras["garbled_passages"] == [0, 1, 3]
    assert v.extras["coordinated_passages"] == [0, 1, 3]
    assert "; passages [0, 1, 3] are garbled and were quarantined" in v.reason
    # the gold page alone: no second source vouches for what is delivered, and the reason says so
    n = len(v.selected)
    assert v.reason.endswith(
        f"delivered whole: 0 of the {n} verified claims an independent source corroborates"
    )
    assert "garbled: passages [0, 1, 3] (their words are largely misspelt)" in v.explain()
    assert {v.claims[i].passage_index for i in v.selected} == {2}  # the gold alone
    assert v.d_min_applied == 1  # the copies took slots, as planted passages do
    html = v.to_html(garag_evidence)
    assert html.count("garbled: quarantined") == 3 and "looks planted" not in html
    assert "quarantined: passages [0, 1, 3] are garbled" in html
    # Off: nothing is read as garbled, and the copies are read with the gold.
    off_config = MirageConfig(method=MethodSettings(garbled_threshold=None))
    off = Mirage(off_config, nli=fake_nli, embedder=fake_embedder).defend(QUERY, garag_evidence)
    assert "garbled_passages" not in off.extras
    assert "garbled" not in off.explain()


def test_the_caller_passages_are_not_changed(garag_evidence, fake_nli, fake_embedder):
    before = [(p.text, p.source) for p in garag_evidence]
    Mirage(MirageConfig(), nli=fake_nli, embedder=fake_embedder).defend(QUERY, garag_evidence)
    assert [(p.text, p.source) for p in garag_evidence] == before


def test_garbled_conflicts_can_leave_r_contr(garag_evidence, fake_embedder):
    """An NLI model that reads every typo'd copy as contradicting the gold: counted, those
    edges block the gold; with ``garbled_conflicts="ignore"`` they leave r_contr and the gold
    is delivered, and the verdict says how many edges were left out."""
    import numpy as np

    from mirage_core import CallableNLI

    def copies_contradict(premises, hypotheses):
        typoed = ("camedy", "comeddy", "sequals", "seqels")
        rows = []
        for a, b in zip(premises, hypotheses, strict=True):
            one = any(t in a for t in typoed) != any(t in b for t in typoed)
            rows.append([0.02, 0.03, 0.95] if one else [0.9, 0.08, 0.02])
        return np.array(rows)

    def verdict(conflicts):
        config = MirageConfig(method=MethodSettings(garbled_conflicts=conflicts))
        nli = CallableNLI(copies_contradict)
        return Mirage(config, nli=nli, embedder=fake_embedder).defend(QUERY, garag_evidence)

    counted, ignored = verdict("count"), verdict("ignore")
    assert counted.decision == "fallback" and counted.r_contr > 0.3
    assert ignored.decision == "verified" and ignored.r_contr == 0.0
    assert {ignored.claims[i].passage_index for i in ignored.selected} == {2}
    assert ignored.extras["conflicts_ignored"] > 0
    assert "of garbled passages left out of r_contr" in ignored.explain()


def test_only_garbled_copies_of_a_page_leave_it_to_answer_alone(fake_nli, fake_embedder):
    # a lone page falls back (one source); garbled text beside it that copies no page must
    # not lower d_min the way typo'd copies of the page do (GARAG, above)
    poison = Passage(
        "The Eiffel Tower was completed in 1925 after long delays.", source="https://evil.example/x"
    )
    junk = Passage(
        "Teh Eifel Towr wsa compleetd adn stannds in Pariss bsides teh rivr annd wass.",
        source="https://junk.example/y",
    )
    engine = Mirage(MirageConfig(), nli=fake_nli, embedder=fake_embedder)
    query = "When was the Eiffel Tower completed?"
    alone = engine.defend(query, [poison])
    beside_junk = engine.defend(query, [poison, junk])
    assert alone.decision == beside_junk.decision == "fallback"
    assert beside_junk.extras["garbled_passages"] == [1] and beside_junk.d_min_applied == 2
    assert copied_passages([GOLD, *TYPOED], (1, 2)) == (1, 2)
    assert copied_passages([poison.text, junk.text], (1,)) == ()


def test_a_failed_nli_call_let_through_leaves_garbled_passages_out(garag_evidence, fake_embedder):
    from tests.conftest import down_nli

    config = MirageConfig(nli_error_policy="pass_through")
    v = Mirage(config, nli=CallableNLI(down_nli), embedder=fake_embedder).defend(
        QUERY, garag_evidence
    )
    assert v.passed and v.unchecked
    assert {v.claims[i].passage_index for i in v.selected} == {2}  # the gold page only
    assert v.extras["garbled_passages"] == [0, 1, 3] and "are left out" in v.reason
