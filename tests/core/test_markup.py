import time

import pytest

from mirage_core.markup import markup_edits
from mirage_core.normalize import normalize_text


@pytest.mark.parametrize(
    ("raw", "read"),
    [
        ("<p>The tower opened.</p><p>It is tall.</p>", " The tower opened.  It is tall. "),
        ('<a href="/wiki/Paris" title="Paris">Paris</a> is big.', "Paris is big."),
        ("The Eif<b>fel</b> Tower", "The Eiffel Tower"),  # an inline tag separates nothing
        ("One<br/>two<br />three<BR>four", "One two three four"),
        ("<!-- nav --><div class='x'>Text.</div>", "  Text. "),
        ("<script>var a = 1 < 2;</script>Body.<style>p{}</style>", " Body. "),
        ("AT&amp;T and R&D grew &#8212; a lot&#x21;", "AT&T and R&D grew — a lot!"),
        ("It is 5&nbsp;km.", "It is 5 km."),  # NBSP, then NFKC: a space
    ],
)
def test_markup_is_read_as_the_text_a_reader_sees(raw, read):
    assert normalize_text(raw).text == read


@pytest.mark.parametrize(
    "raw",
    [
        "if a <b and c> d then",  # a formula: attributes without "=" are no tag
        "x < y > z",
        "I <3 Paris",
        "Tom &foo; Jerry",  # an unknown reference stays as written
        "<unknown>tag</unknown>",  # not HTML's vocabulary
    ],
)
def test_text_that_only_looks_like_markup_is_left_alone(raw):
    assert markup_edits(raw) == []
    assert normalize_text(raw).text == raw


def test_each_character_maps_back_into_the_callers_text():
    raw = "<div><p>The Eiffel Tower was completed in 1889.</p><p>AT&amp;T paid.</p></div>"
    norm = normalize_text(raw)
    sentence = "The Eiffel Tower was completed in 1889."
    start = norm.text.index(sentence)
    s, e = norm.original_span(start, start + len(sentence))
    assert raw[s:e] == sentence
    start = norm.text.index("AT&T paid.")
    s, e = norm.original_span(start, start + len("AT&T paid."))
    assert raw[s:e] == "AT&amp;T paid."


def test_an_element_inside_a_hidden_one_goes_with_it():
    raw = "<script>document.write('<p>x</p>');</script>Seen."
    assert markup_edits(raw) == [(0, raw.index("Seen."), " ")]


def test_unclosed_markup_is_read_in_bounded_time():
    raw = "<!--" + "a <p class='" * 20_000 + "<script>" + "x" * 100_000
    start = time.perf_counter()
    normalize_text(raw)
    assert time.perf_counter() - start < 5.0


@pytest.mark.parametrize("opening", ["<script>", "<!--", "<p class='", "<style type=x>"])
def test_many_unclosed_openings_are_read_in_one_pass(opening):
    start = time.perf_counter()
    normalize_text(opening * 20_000 + "Text.")
    assert time.perf_counter() - start < 5.0


def test_a_query_keeps_its_markup():
    from mirage_core.normalize import normalize_query

    assert (
        normalize_query("<u>When</u> was AT&amp;T founded?") == "<u>When</u> was AT&amp;T founded?"
    )
    assert normalize_text("<u>When</u>", markup=False).text == "<u>When</u>"
