"""JSONL rows: every object with its line number; what is not one is an error that names it."""

from __future__ import annotations

import json
import pickle

import pytest

from mirage_core.errors import DuplicateKeyError
from mirage_core.jsonl import iter_jsonl, json_loads


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


@pytest.mark.parametrize(
    ("line", "key"),
    [
        ('{"text": "a", "source": "x.org", "text": "b"}', "text"),
        ('{"text": "a", "metadata": {"id": 1, "id": 2}}', "id"),  # in a nested object too
        ('{"text": "a", "te\\u0078t": "b"}', "text"),  # an escape spells the same key
    ],
)
def test_a_row_that_repeats_a_key_names_the_file_line_and_key(tmp_path, line, key):
    path = tmp_path / "rows.jsonl"
    path.write_text('{"text": "a"}\n' + line + "\n", encoding="utf-8")
    with pytest.raises(DuplicateKeyError, match=rf"rows\.jsonl:2: duplicate key '{key}'") as err:
        list(iter_jsonl(path))
    assert isinstance(err.value, ValueError) and err.value.key == key
    copy = pickle.loads(pickle.dumps(err.value))  # e.g. from a worker process
    assert (str(copy), copy.key, copy.where) == (str(err.value), key, f"{path}:2")


def test_json_loads_refuses_a_repeated_key_and_reads_the_rest_as_json_does():
    text = '{"a": [{"b": 1}, {"b": 2}], "c": {}, "d": "\\u00e9"}'
    assert json_loads(text) == json.loads(text) == {"a": [{"b": 1}, {"b": 2}], "c": {}, "d": "é"}
    with pytest.raises(DuplicateKeyError, match=r"^duplicate key 'b' in a JSON object$"):
        json_loads(b'{"a": {"b": 1, "b": 1}}')  # the same value twice is still two keys
