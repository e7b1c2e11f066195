"""The engine's input types: what a passage's source and publisher are, and what is refused."""

from __future__ import annotations

import numpy as np
import pytest

from mirage_core.types import UNSOURCED, Passage, check_query, to_passage, to_passages


@pytest.mark.parametrize(
    ("metadata", "expected"),
    [
        ({"url": "https://a.example/x", "source": "s", "id": "i"}, "https://a.example/x"),
        ({"source": "s", "id": "i", "doc_id": "d"}, "s"),
        ({"id": "i", "doc_id": "d", "file_name": "f.txt"}, "i"),
        ({"doc_id": "d", "file_name": "f.txt"}, "d"),
        ({"file_name": " f.txt "}, "f.txt"),  # stripped
        ({"url": "  ", "source": 7, "file_name": "f.txt"}, "f.txt"),  # blank or not text: skipped
    ],
)
def test_a_source_is_read_from_the_metadata_in_order(metadata, expected):
    assert Passage("Some text.", metadata=metadata).resolved_source(3) == expected


def test_an_explicit_source_wins_and_no_source_is_numbered():
    assert Passage("t", source="mine", metadata={"url": "https://a.example"}).resolved_source(
        0
    ) == ("mine")
    assert Passage("t").resolved_source(4) == "passage-4"


@pytest.mark.parametrize(
    ("passage", "domain"),
    [
        (Passage("t", domain="Reuters.COM"), "reuters.com"),
        (Passage("t", source="https://www.BBC.co.uk/news/1"), "bbc.co.uk"),
        (Passage("t", source="https://editor@news.example.org:8443/a"), "news.example.org"),
        (Passage("t", metadata={"url": "http://www.example.com"}), "example.com"),
        (Passage("t", source="Report.PDF"), "report.pdf"),  # no URL: the source itself
        (Passage("t", source="mailto:x@example.com"), "mailto:x@example.com"),
        (Passage("t"), UNSOURCED),
        # read as a browser reads the address: a backslash is a slash, so the host is
        # evil.example, not the wikipedia.org after the "@"
        (Passage("t", source="https://evil.example\\@wikipedia.org/a"), "evil.example"),
        (Passage("t", source="https://evil.com./b"), "evil.com"),  # the root's dot
        (Passage("t", source="https://[2001:db8::1]:443/"), "2001:db8::1"),
        (Passage("t", source="https://b\u00fccher.de/a"), "xn--bcher-kva.de"),
        (Passage("t", source="https://xn--bcher-kva.de/b"), "xn--bcher-kva.de"),
        (Passage("t", source="  https://x.org/a  "), "x.org"),
        (Passage("t", source="http://[::1"), "http://[::1"),  # no host to read: the source
        (Passage("t", domain="WWW.Reuters.com."), "reuters.com"),
    ],
)
def test_the_publisher_is_the_url_host_else_the_source(passage, domain):
    assert passage.resolved_domain(0) == domain


def test_a_mapping_becomes_a_passage_with_its_other_keys_as_metadata():
    row = {
        "text": "The tower is 330 metres tall.",
        "url": "https://a.example/t",
        "score": "0.75",
        "metadata": {"lang": "en"},
        "title": "Tower",
    }
    p = to_passage(row)
    assert p.source == "https://a.example/t"  # "url" stands for a missing "source"
    assert p.score == 0.75 and isinstance(p.score, float)
    assert p.metadata == {"lang": "en", "url": "https://a.example/t", "title": "Tower"}
    assert to_passage({"text": "t", "source": "s", "url": "u"}).source == "s"
    assert row["metadata"] == {"lang": "en"}  # the caller's row is untouched


@pytest.mark.parametrize(
    ("obj", "message"),
    [
        ({"source": "s"}, "needs a 'text' key"),
        ({"text": "t", "score": True}, "score must be a number, got bool"),
        ({"text": 3}, "text must be str, got int"),
        ({"text": "t", "domain": 5}, "domain must be str or None, got int"),
        ({"text": "t", "metadata": ["a"]}, "metadata must be a mapping, got list"),
        (3.5, "must be a Passage, str or mapping"),
    ],
)
def test_a_bad_passage_is_refused_with_what_is_wrong(obj, message):
    with pytest.raises(TypeError, match=message):
        to_passage(obj)


@pytest.mark.parametrize("passages", ["one text", b"bytes", iter(["a", "b"]), {"a", "b"}])
def test_passages_must_be_a_sequence_of_passages(passages):
    with pytest.raises(TypeError, match="passages must be a list"):
        to_passages(passages)


def test_passages_are_new_objects_and_the_query_must_be_text():
    given = [Passage("a"), "b", {"text": "c"}]
    out = to_passages(given)
    assert [p.text for p in out] == ["a", "b", "c"] and out[0] is given[0]
    assert check_query("q") == "q"
    with pytest.raises(TypeError, match="query must be str, got bytes"):
        check_query(b"q")


@pytest.mark.parametrize(
    ("kwargs", "message"),
    [
        ({"score": "0.5"}, "Passage.score must be a number, got str"),
        ({"source": 7}, "Passage.source must be str or None, got int"),
        ({"metadata": None}, "Passage.metadata must be a mapping, got NoneType"),
    ],
)
def test_a_passage_checks_its_own_fields(kwargs, message):
    with pytest.raises(TypeError, match=message):
        Passage("Some text.", **kwargs)


@pytest.mark.parametrize("score", [np.float32(0.5), np.float64(0.5), np.int64(3), 2])
def test_any_real_number_is_a_score(score):
    assert Passage("t", score=score).score == score
    assert to_passage({"text": "t", "score": score}).score == score
    assert to_passage({"text": "t", "score": "0.5"}).score == 0.5  # a numeral in a JSONL row


@pytest.mark.parametrize("score", ["high", [1], {}])
def test_a_mapping_s_score_that_is_no_number_is_refused_by_name(score):
    with pytest.raises(TypeError, match="a passage's 'score' must be a number"):
        to_passage({"text": "t", "score": score})
