"""JSONL rows: every object with its line number; what is not one is an error that names it."""

from __future__ import annotations

import pytest

from mirage_core.jsonl import iter_jsonl


def test_rows_keep_their_line_numbers_past_blank_lines(tmp_path):
    path = tmp_path / "rows.jsonl"
    path.write_text('{"text": "a"}\n\n   \n{"text": "é"}\n', encoding="utf-8")
    assert list(iter_jsonl(path)) == [(1, {"text": "a"}), (4, {"text": "é"})]


@pytest.mark.parametrize(
    ("line", "message"), [("[1, 2]", "each row must be a JSON object"), ("{oops", "not valid JSON")]
)
def test_a_bad_line_names_the_file_and_line(tmp_path, line, message):
    path = tmp_path / "rows.jsonl"
    path.write_text('{"text": "a"}\n' + line + "\n", encoding="utf-8")
    with pytest.raises(ValueError, match=rf"rows\.jsonl:2: {message}"):
        list(iter_jsonl(path))


def test_a_line_that_is_no_utf8_is_named_by_its_number(tmp_path):
    path = tmp_path / "rows.jsonl"
    good = b'{"text": "caf\xc3\xa9"}\n' * 50  # many lines: read in more than one chunk
    path.write_bytes(good + b'{"text": "caf\xe9"}\n')
    with pytest.raises(ValueError, match=r"rows\.jsonl:51: not UTF-8 text"):
        list(iter_jsonl(path))


def test_a_byte_order_mark_opening_the_file_is_read_past(tmp_path):
    path = tmp_path / "rows.jsonl"
    path.write_bytes(b'\xef\xbb\xbf{"text": "a"}\n{"text": "b"}\n')
    assert [row["text"] for _, row in iter_jsonl(path)] == ["a", "b"]
