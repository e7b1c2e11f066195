import pytest

from mirage_core.claim_filter import NON_CLAIM_REASONS, non_claim_reason


@pytest.mark.parametrize(
    ("sentence", "reason"),
    [
        ("When was the Eiffel Tower completed?", "question"),
        ("Is the tower really 330 metres tall?”", "question"),
        ("Eiffel Tower facts and history …", "truncated"),
        ("Eiffel Tower - Example Travel .", "truncated"),
        ("Tower tickets .", "truncated"),
        ("Home > Travel > Paris", "boilerplate"),
        ("Tower history, construction and...", "truncated"),
        ("Eiffel Tower completed in 1889 | Example News", "boilerplate"),
        ("By Jane Doe and John Roe", "boilerplate"),
        ("Updated 3 March 2024", "boilerplate"),
        ("Subscribe to our newsletter for more stories", "boilerplate"),
        ("The tower's main features include:", "list intro or item"),
        ("Storm Topples Old Oak Tree", "headline"),
        ("Eiffel Tower", "headline"),  # two words are enough for a title
        ("Building the Tower of Paris in the Age of Iron", "headline"),  # small words aside
        ("History of the Eiffel Tower and its Lifts", "headline"),  # four capitals in five
        ("Drink plenty of water", "fragment"),
        ("Paris", "fragment"),  # one word is no title
        ("The tower was built fast", "fragment"),  # five words without end punctuation
        ("tickets, lifts and stairs,", "list intro or item"),
        ("  ", "fragment"),
        # a byline of ten words at most
        ("By Jane Doe and John Roe, staff writers in Paris", "boilerplate"),
    ],
)
def test_non_claims_are_named(sentence, reason):
    assert reason in NON_CLAIM_REASONS
    assert non_claim_reason(sentence) == reason


@pytest.mark.parametrize(
    "sentence",
    [
        "The Eiffel Tower was completed in 1889.",
        "Strong winds topple old oak tree at City Hall",  # a statement without its period
        "The tower was built very fast",  # six words
        "By Jane Doe and John Roe, staff writers for the paper.",  # eleven words: no byline
        "By contrast, the tower is 330 metres tall.",
        "Subscribers of the paper read it first.",
        "Copyright law protects the tower's night illumination.",
        "In approximately 12% of reported cases, the infected persons were hospitalized.73",
        "Wow, it works!",
        # a real sentence whose link text was stripped keeps its detached period
        "On May 19, under international pressure, Israel partially lifted the blockade .",
        "Physics demonstrations with Q > 1 came in the mid-2020s.",
        "This is a married woman with a child, so it comes across as very fake,",
        "埃菲尔铁塔位于巴黎。",
    ],
)
def test_statements_are_claims(sentence):
    assert non_claim_reason(sentence) is None


def test_extract_claims_skips_and_reports_non_claims(claims_of):
    text = (
        "Eiffel Tower facts | Example News. When was the Eiffel Tower built? "
        "The Eiffel Tower was completed in 1889. Its design includes:"
    )
    skipped: list = []
    claims = claims_of(text, filter_non_claims=True, skipped=skipped)
    assert [c.text for c in claims] == ["The Eiffel Tower was completed in 1889."]
    assert [s["reason"] for s in skipped] == ["boilerplate", "question", "list intro or item"]
    for s in skipped:  # spans point into the caller's text
        assert text[s["start"] : s["end"]].strip()
    assert len(claims_of(text)) == 4
