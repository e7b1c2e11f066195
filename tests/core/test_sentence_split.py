"""Sentence splitting: pysbd's spans in linear time, bounded on dense input, glued marks."""

from __future__ import annotations

import time

import pytest

from mirage_core import claims
from mirage_core.claims import split_sentences


def _texts(text: str) -> list[str]:
    return [text[a:b] for a, b in split_sentences(text)]


def _stock(text: str) -> list[tuple[int, int]]:
    pysbd = pytest.importorskip("pysbd")
    seg = pysbd.Segmenter(language="en", clean=False)
    return claims._locate(text, seg.segment(text))


ORDINARY = [
    "Dr. Smith arrived at 5 p.m. on Jan. 3. He met Mr. Jones, Ph.D., of the U.S. Army.",
    "The U.S. economy grew 3.5% in 2020. St. Louis and St. Paul saw gains, e.g. in retail.",
    'She said "It is done." Then she left. No. 5 was next (see p. 12). Prof. Lee agreed.',
    "Items: i. first ii. second. Is that all? Yes! It is... maybe.\nNew line here. Fig. 2 shows it.",
    "Co. profits rose; Inc. shares fell. The a.m. train left at 9 a.m. sharp. Art. 5 applies.",
    "He lives at 12 Main St. in Springfield. ST. JOHN'S is old. st. lucia is warm.",
]


@pytest.mark.parametrize("text", ORDINARY)
def test_spans_match_stock_pysbd(text):
    assert split_sentences(text) == _stock(text)


def test_offsets_are_exact_and_trimmed():
    text = "  First one here.   Second one there!\n\nThird?  "
    for a, b in split_sentences(text):
        assert text[a:b] == text[a:b].strip() and text[a:b]


@pytest.mark.parametrize(
    "unit",
    [
        "a. ",
        "Dr. ",
        "1. ",
        "U.S. ",
        "St. st. sT. ST. ",
        "a\n",
        '"a." ',
        "(a) ",
        "x",
        "ab.cd",
        "Ab.Cd ",
    ],
)
def test_bounded_time_on_pathological_input(unit):
    text = (unit * (20_000 // len(unit) + 1))[:20_000]
    split_sentences(text)  # warm
    t0 = time.process_time()
    spans = split_sentences(text)
    assert time.process_time() - t0 < 0.5  # stock pysbd: seconds; here tens of ms
    for a, b in spans:
        assert 0 <= a < b <= len(text)


def test_glued_question_is_its_own_sentence():
    text = "She thanked the crew for her stellar performance.who won i want to work for diddy."
    assert _texts(text) == [
        "She thanked the crew for her stellar performance.",
        "who won i want to work for diddy.",
    ]
    assert _texts("It rained in 2020.The game was called off.") == [
        "It rained in 2020.",
        "The game was called off.",
    ]
    assert _texts("He won!Then he left.") == ["He won!", "Then he left."]


@pytest.mark.parametrize(
    "text",
    [
        "Dr.Smith came home late.",  # abbreviation
        "We paid 3.5 dollars for it.",  # decimal
        "See https://example.org/a.b.html for it.",  # URL
        "Mail john.doe@example.com about it.",  # e-mail
        "The U.S.Army and the U.K. agreed.",  # initials
        "Some e.g.this example stays.",  # initials
        "J.R.R.Tolkien wrote the books.",  # initials
        "Visit example.com for details.",  # domain name
        "Read news.bbc.co.uk every day.",  # domain name
        "Open report.pdf to see it.",  # file name
        "Run setup.py before the tests.",  # file name
        "Wait...what happened here?",  # ellipsis
        "They use ASP.NET at work.",  # upper-case pair
        "They watched ABC.NEWS at work.",
        "Read it on example.com.",  # domain name, then the sentence's own mark
        "It is on example.com), they said.",
        "Install it from example.com.AU today.",  # an upper-case run after the ending
    ],
)
def test_glued_exclusions_stay_one_sentence(text):
    assert _texts(text) == [text]


@pytest.mark.parametrize(
    "sentences",
    [
        ["Alpha beta went home.", "gamma delta came.", " Epsilon zeta stayed.", "eta theta left."],
        # pysbd splits at some of these marks itself
        ["He won!", "Then he left.", "so what!", "And more.", "then less"],
    ],
)
def test_every_glued_mark_of_every_sentence_is_cut(sentences):
    assert _texts("".join(sentences)) == [s.strip() for s in sentences]


@pytest.mark.parametrize(
    ("text", "first"),
    [
        ("Read more at example.com today.who won the race", "Read more at example.com today."),
        ("Dr.Smith arrived late.who knows why", "Dr.Smith arrived late."),
        ("The U.S.Army lost the game.why did it", "The U.S.Army lost the game."),
        ("See https://a.org/x.y for it.what then", "See https://a.org/x.y for it."),
        ("Search www.Wikipedia today.we went", "Search www.Wikipedia today."),
        ("Mail john.doe@example.com now.where is it", "Mail john.doe@example.com now."),
        ("Wait...what happened.who knows", "Wait...what happened."),
        ("They use ASP.NET at work.we do not.", "They use ASP.NET at work."),
        ("They watched ABC.NEWS at work.we did not.", "They watched ABC.NEWS at work."),
        ("Read news.bbc.co.uk daily.we do.", "Read news.bbc.co.uk daily."),
        ("Plan A.we went there.then we left", "Plan A.we went there."),
    ],
)
def test_a_mark_left_alone_does_not_stop_the_cuts_after_it(text, first):
    assert _texts(text) == [first, text[len(first) :]]


@pytest.mark.parametrize(
    "text",
    [
        "It was over.He left soon after.",  # a two-letter word after the mark
        "They came back to it.we left soon after.",  # a two-letter word before it
        "It was run by NASA.The agency agreed.",  # one side upper case only
        "Hello world.we went",
        "So.we went home.",  # the text's first word
        'He said "no".we left then',  # a closing quote or bracket before the mark
        "The sign was red (mostly).NASA agreed.",
    ],
)
def test_a_glued_mark_between_words_splits(text):
    cut = text.index(".") + 1
    assert _texts(text) == [text[:cut], text[cut:]]


def _no_pysbd():
    raise AssertionError("pysbd was called")


def test_dense_text_is_split_without_pysbd(monkeypatch):
    monkeypatch.setattr(claims, "_pysbd_english", _no_pysbd)
    assert len(split_sentences("a. " * 200)) == 200


def test_a_long_ordinary_page_is_split_by_pysbd():
    """The density bound grows with the text: a long page with few marks per character keeps
    pysbd's reading of abbreviations."""
    text = " ".join(f"Dr. Smith walked past house number {i} in the old town." for i in range(80))
    assert len(text) > 4_000
    assert split_sentences(text) == _stock(text)
    assert len(split_sentences(text)) == 80


class _ChokingProcessor:
    def __init__(self, text, lang):
        raise RecursionError("pysbd gave up")


def test_text_pysbd_fails_on_is_split_by_the_plain_rule(monkeypatch):
    monkeypatch.setattr(claims, "_pysbd_english", lambda: (_ChokingProcessor, None))
    text = "\n\nDr. Smith came home. He left again.\nThe end."
    assert _texts(text) == ["Dr.", "Smith came home.", "He left again.", "The end."]


def test_glued_rule_can_be_switched_off(monkeypatch):
    monkeypatch.setattr(claims, "SPLIT_GLUED", False)
    text = "her stellar performance.who won i want to work for diddy."
    assert _texts(text) == [text]


def test_a_mark_after_a_bracket_is_left_alone_in_a_token_with_an_inner_mark():
    # the glued rule's own reading (pysbd may still split there): a token that holds a mark
    # between two letters or digits ("v1.2", a domain, code) keeps its other marks too
    assert claims._glued_cuts("They shipped v1.2).Then it broke down.") == []
    assert claims._glued_cuts("They shipped v12).Then it broke down.") == [18]


def test_a_piece_the_segmenter_altered_is_skipped_and_the_rest_located():
    text = "Alpha beta. Gamma delta."
    assert claims._locate(text, ["Alpha beta.", "  ", "Alpha  beta!", "Gamma delta."]) == [
        (0, 11),
        (12, 24),
    ]


def test_cuts_split_every_span_they_fall_inside():
    spans = [(0, 10), (10, 20), (20, 30)]
    # a cut at a span's own start (10) cuts nothing; the cuts before each span are passed over
    assert claims._split_at(spans, [3, 10, 25]) == [(0, 3), (3, 10), (10, 20), (20, 25), (25, 30)]


@pytest.mark.parametrize(
    ("text", "first"),
    [
        ("Read more at example.com.Then the tower opened.", "Read more at example.com."),
        ("Open report.pdf.It says so.", "Open report.pdf."),
        ("It runs on node.js.We tested it.", "It runs on node.js."),
        ("It runs on node.js).We tested it.", "It runs on node.js)."),
    ],
)
def test_a_sentence_glued_after_a_domain_or_file_name_is_cut_after_the_name(text, first):
    assert _texts(text) == [first, text[len(first) :]]


@pytest.mark.parametrize(
    ("text", "cuts"),
    [
        ("Open report.html.It says so.", [17]),  # the longest endings are read whole
        ("See example.com.hk for it.", []),  # a lower-case run after the name: its ending
        ("They shipped v1.2.Then it broke.", []),  # a version number is no name
        ("Read it on example.com,then leave.", []),  # a comma after the name's ending
        ("It ran on Xbox.The game sold.", [15]),  # a capital X is no mark of a path
    ],
)
def test_the_glued_rule_after_a_name_reads_the_ending_and_the_word_after_it(text, cuts):
    assert claims._glued_cuts(text) == cuts
