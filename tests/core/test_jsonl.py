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
