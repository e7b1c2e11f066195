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
    ],
)
def test_fact_conflict(a, b, expected):
    assert fact_conflict(a, b) is expected
    assert fact_conflict(b, a) is expected
