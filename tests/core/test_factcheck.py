import pytest

from mirage_core.factcheck import fact_conflict


@pytest.mark.parametrize(
    ("a", "b", "expected"),
    [
        ("Obama was born in Hawaii in 1961.", "Obama was born in Kenya in 1961.", True),
        ("Obama was born in Hawaii in 1961.", "Obama was born in Hawaii in 1975.", True),
        ("It opened in March 2001.", "It opened in May 2001.", True),
        ("The dam is 221 metres tall.", "The dam is 250 metres tall.", True),
        (
            "Obama was born in 1961 and became president in 2009.",
            "Obama was born in Hawaii in 1961.",
            False,
        ),
        (
            "The tower is 330 metres tall.",
            "The tower is 330 metres tall and was built in 1889.",
            False,
        ),
        ("The tower is tall.", "The tower is very tall.", False),
        ("", "anything", False),
        # the year set against 1961 is one the other sentence also states
        (
            "He was born in 1961 in Hawaii, elected in 2008.",
            "He was born in 2008 in Hawaii.",
            False,
        ),
        # a value replaced by up to three words is read; by four, the sentences part ways
        ("The tower is 330 metres tall.", "The tower is about 410 odd metres tall.", True),
        ("The tower is 330 metres tall.", "The tower is just about 410 odd metres tall.", False),
    ],
)
def test_fact_conflict(a, b, expected):
    assert fact_conflict(a, b) is expected
    assert fact_conflict(b, a) is expected


@pytest.mark.parametrize(
    ("a", "b", "kind"),
    [
        ("Obama was born in Hawaii in 1961.", "Obama was born in Kenya in 1961.", "name"),
        ("The dam is 221 metres tall.", "The dam is 250 metres tall.", "number"),
        ("It opened in March 2001.", "It opened in May 2001.", "month"),
        ("The tower is tall.", "The tower is very tall.", None),
    ],
)
def test_fact_conflict_kind(a, b, kind):
    from mirage_core.factcheck import fact_conflict_kind

    assert fact_conflict_kind(a, b) == kind
    if kind is not None:  # a kind left out of `kinds` is never reported
        others = tuple(k for k in ("number", "month", "name") if k != kind)
        assert fact_conflict_kind(a, b, others) is None


def test_min_similarity_keeps_minimal_edits_only():
    from mirage_core.factcheck import fact_conflict

    edit = (
        "The tower was completed in 1889 in Paris.",
        "The tower was completed in 1925 in Paris.",
    )
    assert fact_conflict(*edit, min_similarity=0.7)
    # 7 of the 8 tokens align: a similarity of exactly 7/8 is enough
    assert fact_conflict(*edit, min_similarity=7 / 8)
    # Two different sentences on one topic that happen to align two numbers.
    a = "Bad Bunny won album of the year at the 68th annual Grammy Awards on Sunday night."
    b = "The record won album of the year at the 2026 Grammy Awards, a first for a Spanish-language album sung by him."
    assert fact_conflict(a, b)
    assert not fact_conflict(a, b, min_similarity=0.7)


def test_an_added_clause_does_not_hide_a_swap():
    from mirage_core.factcheck import fact_conflict_kind

    a = "The tower is 330 metres tall."
    b = "The tower is 410 metres tall and was designed by the architect Le Corbusier."
    assert fact_conflict_kind(a, b, min_similarity=0.7) == "number"
