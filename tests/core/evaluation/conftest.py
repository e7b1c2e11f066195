"""Small query files for the evaluation tests (built from the shared passage fixtures)."""

from __future__ import annotations

import json

import pytest


def passage_row(p) -> dict:
    row = {"text": p.text, "source": p.source}
    if p.score is not None:
        row["score"] = p.score
    return row


@pytest.fixture
def query_file(tmp_path, clean_passages):
    """Four queries with three agreeing sources each (JSONL of {id, query, passages, answer})."""
    path = tmp_path / "queries.jsonl"
    rows = []
    for i in range(4):
        rows.append(
            {
                "id": f"q{i}",
                "query": "When was the Eiffel Tower completed?",
                "passages": [passage_row(p) for p in clean_passages],
                "answer": "1889",
                "incorrect_answer": "1925",
            }
        )
    path.write_text("".join(json.dumps(r) + "\n" for r in rows))
    return path
